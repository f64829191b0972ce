//! The film side of the pipeline (see ARCHITECTURE.md): what the film itself
//! says and shows, on the film's clock, for the aligner to match against the
//! screenplay.
//!
//! - [`subtitles`] reads SubRip and WebVTT files into timed cues.
//! - [`video`] reads a film file itself: shots, keyframes and subtitles out of it.
//! - [`shots`] reads shot lists and keyframes (MovieNet layout or a manifest)
//!   and answers time queries over them.

pub mod shots;
pub mod subtitles;
pub mod video;
