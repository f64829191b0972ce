//! Model backends.

pub mod local;
