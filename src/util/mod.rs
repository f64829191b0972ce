//! Small helpers every layer may use, depending on nothing else in the crate:
//! a stable hash ([`hash`]), a seeded generator ([`rng`]) and an atomic file
//! write ([`fs`]).

pub mod fs;
pub mod hash;
pub mod rng;
