//! Hierarchical question trees derived from the verified graph (docs/trees-format.md).
//!
//! The tree model ([`schema`]), its JSONL exchange form ([`jsonl`]) and
//! validation ([`validate`]), the first line saying how a file's trees were
//! made ([`provenance`]); generation ([`generate`], from the film's [`source`]
//! and only what the film contains: [`in_film`]) judges every answer
//! against the graph ([`facts`]) and has it worded by a [`generate::QuestionWriter`]:
//! the offline [`generate::rules`] templates, or a model ([`model`]: schema, prompt and
//! the parser of its output; the transport lives in the model layer).
//! [`stats`] tabulates a tree set; [`synth`] makes graphs for the benchmark.

pub mod audit;
pub mod facts;
pub mod generate;
pub mod import;
pub mod in_film;
pub mod jsonl;
pub mod model;
pub mod provenance;
pub mod schema;
pub mod source;
pub mod stats;
pub mod synth;
pub mod validate;

#[cfg(test)]
mod generate_tests;
#[cfg(test)]
mod mind_asks_tests;
#[cfg(test)]
mod tests;
