//! Fountain reader (fountain.io). Being written; see the Fountain issue.

use super::Reading;

/// Reads Fountain text into elements.
pub fn read(_text: &str) -> Reading {
    Reading::default()
}
