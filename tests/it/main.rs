//! The integration tests, one binary: each module was a test file of its own.
//! One binary links the library once instead of thirty times, which is most of
//! the test suite's build time. Fixtures are in `tests/fixtures/`; conformance
//! suites are read in place from `../shared/conformance` (skipped, with the
//! reason printed, when it is absent).

mod common;

mod align;
mod align_store;
mod cli;
mod doctor;
mod embed;
mod embed_remote;
mod eval;
mod eval_cli;
mod eval_extras;
mod eval_inspect;
mod eval_limp;
mod eval_model;
mod expect;
mod fdx_conformance;
mod fixtures;
mod fountain_conformance;
mod gates;
mod graph;
mod graph_import;
mod graph_model;
mod line_model;
mod llm_cli;
mod llm_client;
mod local_backend;
mod local_model;
mod merge;
mod no_film_in_rules;
mod plaintext;
mod plaintext_hard;
mod provenance;
mod review_about;
mod review_web;
mod run;
mod run_films;
mod run_review;
mod run_subtitles;
mod run_video;
mod shots;
mod subtitle_fixtures;
mod subtitles;
mod trees;
mod trees_import;
mod trees_model;
mod video;
mod walk_tui;
mod walk_web;
