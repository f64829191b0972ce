//! moviegraph: from a film's screenplay, subtitles and keyframes to a verified
//! social-causal graph, question trees, and a two-phase Theory-of-Mind evaluation.
//!
//! The library is organised as the pipeline; see `ARCHITECTURE.md` for the
//! map. Modules are declared below in layer order. The layers (infrastructure, stages in pipeline
//! order, the application `workspace`, the front ends) are checked by a test:
//! a module uses only modules below it.

#![warn(missing_docs)]

// Infrastructure.
pub mod embed;
pub mod llm;
pub mod store;
mod text;
pub mod util;
// Stages, in pipeline order.
pub mod align;
pub mod eval;
pub mod graph;
pub mod media;
pub mod screenplay;
pub mod trees;
// The application.
pub mod workspace;
// The top: front ends in the library (the binary holds `args`, `bench`, `cli`).
pub mod signin;
pub mod verify;
pub mod walk;

#[cfg(test)]
mod layering;
