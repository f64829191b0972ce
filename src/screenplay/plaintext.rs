//! Plain-text (IMSDb / PDF-to-text) reader. Being written.

use super::Reading;

/// True when most non-blank lines are indented, as laid-out scripts are.
pub fn looks_laid_out(text: &str) -> bool {
    let mut total = 0usize;
    let mut indented = 0usize;
    for line in text.lines().take(2000) {
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        let lead = line.len() - line.trim_start().len();
        if lead >= 8 {
            indented += 1;
        }
    }
    total > 0 && indented * 10 >= total * 3
}

/// Reads a laid-out plain-text script into elements.
pub fn read(_text: &str) -> Reading {
    Reading::default()
}
