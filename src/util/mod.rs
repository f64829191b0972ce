//! Small helpers every layer may use, depending on nothing else in the crate:
//! a stable hash ([`hash`]), a seeded generator ([`rng`]), an atomic file
//! write ([`fs`]), sorted-slice merges ([`sorted`]) and precision/recall/F1
//! arithmetic ([`metrics`]).

pub mod fs;
pub mod hash;
pub mod metrics;
pub mod rng;
pub mod sorted;
