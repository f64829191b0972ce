//! Small helpers every layer may use, depending on nothing else in the crate:
//! a stable hash ([`hash`]), a seeded generator ([`rng`]), an atomic file
//! write ([`fs`]), sorted-slice merges ([`sorted`]), precision/recall/F1
//! arithmetic ([`metrics`]) and the [`report::Reporter`] through which work
//! below the top shows notes and progress.

pub mod fs;
pub mod hash;
pub mod metrics;
pub mod report;
pub mod rng;
pub mod sorted;
pub mod time;
