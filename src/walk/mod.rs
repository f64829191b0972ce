//! The walkers (docs/evaluation.md, the human baseline): a person answers question trees in
//! a terminal ([`tui`]) or a browser ([`web`]).
//!
//! Two modes. *Test mode* is the two-phase protocol exactly as `eval run` runs it: a
//! [`session::HumanSubject`] takes the person's answers through a channel, the run is
//! stored as an eval run with subject `human` and the annotator's name, scored by the
//! same code, and resumed where the person stopped. *Explore mode* browses any branch
//! with gold answers, the reason each distractor is wrong and the graph elements
//! behind each node ([`explore`]); it records nothing.
//!
//! The web walker listens on a socket (127.0.0.1 unless told otherwise) and serves only
//! its own pages and the keyframes the trees reference ([`keyframes`]); it makes no
//! outgoing connection.

pub mod explore;
pub mod preview;
pub mod session;
pub mod tui;
pub mod web;
