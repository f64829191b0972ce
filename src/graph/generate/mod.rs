//! Generators: the offline `rules` baseline, and the transport-free pieces of a
//! model-backed generator (schema, prompt, response validation).

pub mod cast;
pub mod rules;

pub use rules::RulesGenerator;
