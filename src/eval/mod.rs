//! Two-phase evaluation of a subject on question trees (docs/evaluation.md).
//!
//! - [`prompt`]: the conversation a subject sees (questions, lettered options, context,
//!   answer-format instructions, the phase-2 premise) and the judge's rubric.
//! - [`parse`]: the robust answer parser (an unparseable answer is kept verbatim and
//!   scored wrong).
//! - [`score`]: per-answer scoring, ROUGE-L as the rouge-score package computes it.
//! - [`subject`]: the [`subject::Subject`] and [`subject::Judge`] traits, the offline
//!   baselines (`random`, `first-option`, `lexical`) and a scripted subject for tests.
//! - [`model`]: the model-backed subject and judge over the model layer
//!   ([`crate::llm::ModelHandle`]: cache, retries, budget, accounting).
//! - [`protocol`]: Algorithm 1: phase 1 (the dynamic path) then phase 2 (every unvisited
//!   node as a counterfactual), one conversation per tree, resumable from recorded answers.
//! - [`metrics`]: RDS, weighted RDS, CCF, CRS, breakdowns, dependency analysis, group
//!   levels, with seeded cluster-bootstrap confidence intervals.
//! - [`report`]: terminal tables, JSON and CSV, several runs side by side.
//! - [`agreement`]: raw agreement and Cohen's κ between annotators of human runs.
//! - [`html`]: the self-contained HTML report with inline SVG charts (plotters).
//! - [`synth`]: synthetic trees for benchmarks and tests.
//!
//! Nothing here touches the network itself: [`model`] calls models only through the
//! model layer (`src/llm`).

pub mod agreement;
pub mod html;
pub mod inspect_log;
pub mod limp;
pub mod metrics;
pub mod model;
pub mod parse;
pub mod prompt;
pub mod protocol;
pub mod report;
pub mod score;
pub mod subject;
pub mod synth;
pub mod tables;

#[cfg(test)]
mod tests;
