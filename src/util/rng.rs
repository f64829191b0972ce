//! SplitMix64: a small seeded generator, the same on every platform and
//! release, so seeded baselines, bootstrap intervals, synthetic data and
//! sampling are reproducible byte for byte without a dependency.

/// SplitMix64: a small, fast, deterministic generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits of [`next_u64`](Self::next_u64).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `0..n` (n > 0), by multiply-shift (bias below 2^-32 for our sizes).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `0..n` (n > 0), as the next 64 bits modulo `n` (the
    /// reduction the synthetic subtitles were drawn with; a different sequence
    /// from [`below`](Self::below)).
    pub fn below_mod(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_sequence() {
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn draws_stay_in_range_and_repeat_with_the_seed() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for _ in 0..200 {
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            assert_eq!(u, b.unit());
            assert!(a.below(5) < 5);
            assert!(a.below_mod(3) < 3);
            b.below(5);
            b.below_mod(3);
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
