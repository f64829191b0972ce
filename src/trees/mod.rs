//! Hierarchical question trees derived from the verified graph (DESIGN.md §3).
//!
//! Today: the tree model ([`schema`]), its JSONL exchange form ([`jsonl`]) and
//! validation ([`validate`]). Generation from the graph comes with the graph stage.

pub mod jsonl;
pub mod schema;
pub mod validate;

#[cfg(test)]
mod tests;
