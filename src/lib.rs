//! moviegraph: from a film's screenplay, subtitles and keyframes to a verified
//! social-causal graph, question trees, and a two-phase Theory-of-Mind evaluation.
//!
//! The library is organised as the pipeline in `DESIGN.md` §1; see
//! `ARCHITECTURE.md` for the map. The layers (infrastructure, stages in pipeline
//! order, the application `workspace`, the front ends) are checked by a test:
//! a module uses only modules below it.

#![warn(missing_docs)]

pub mod align;
pub mod embed;
pub mod eval;
pub mod graph;
pub mod llm;
pub mod media;
pub mod screenplay;
pub mod store;
mod text;
pub mod trees;
pub mod util;
pub mod walk;
pub mod workspace;

#[cfg(test)]
mod layering;
