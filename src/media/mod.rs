//! Media: the film itself as the pipeline sees it — shots and keyframes
//! (DESIGN.md §1, step 2).

pub mod shots;
