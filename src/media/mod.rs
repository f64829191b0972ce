//! The film side of the pipeline (DESIGN.md §1, step 2): what the film itself
//! says and shows, on the film's clock, for the aligner to match against the
//! screenplay.
//!
//! - [`subtitles`] reads SubRip and WebVTT files into timed cues.
//! - [`shots`] reads shot lists and keyframes (MovieNet layout or a manifest).

pub mod shots;
pub mod subtitles;
