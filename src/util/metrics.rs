//! Precision, recall and F1 arithmetic shared by every scorer.

/// `part / whole`, and 1 when `whole` is 0 (nothing expected, nothing missed).
pub fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// The harmonic mean of precision `p` and recall `r` (0 when both are 0).
pub fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_f1() {
        assert_eq!(share(3, 4), 0.75);
        assert_eq!(share(0, 0), 1.0);
        assert_eq!(f1(0.0, 0.0), 0.0);
        assert!((f1(0.5, 1.0) - 2.0 / 3.0).abs() < 1e-12);
    }
}
