//! Generators: the offline `rules` baseline, and the transport-free pieces of a
//! model-backed generator (schema, prompt, response validation).

pub mod cast;
pub mod gates;
pub mod rules;

pub use gates::Families;
pub use rules::RulesGenerator;

/// Whether a lowercase word names what one person is to another (`sister`,
/// `apprentice`).
pub(crate) fn rules_roles(word: &str) -> bool {
    rules::is_role(word)
}
