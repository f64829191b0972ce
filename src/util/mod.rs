//! Small helpers every layer may use, depending on nothing else in the crate:
//! a stable hash ([`hash`]), a seeded generator ([`rng`]), an atomic file
//! write ([`fs`]) and sorted-slice merges ([`sorted`]).

pub mod fs;
pub mod hash;
pub mod rng;
pub mod sorted;
