//! The option order: a stable seed per (film-wide seed, tree, node) and the
//! seeded shuffle, so answer positions are balanced and reruns agree.

use crate::util::hash::{fnv1a_extend, FNV_OFFSET};

/// A deterministic seed per (film-wide seed, tree, node).
pub fn seed_of(seed: u64, tree: &str, node: &str) -> u64 {
    // FNV-1a from a seeded start over `tree`, a 0 byte and `node`: stable
    // across platforms and Rust versions, unlike `DefaultHasher`.
    let h = fnv1a_extend(FNV_OFFSET ^ seed, tree.as_bytes());
    fnv1a_extend(fnv1a_extend(h, &[0]), node.as_bytes())
}

/// Seeded Fisher–Yates shuffle (xorshift64*), so answer positions are balanced
/// and reruns give the same order.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = seed | 1;
    for i in (1..items.len()).rev() {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
        items.swap(i, (r % (i as u64 + 1)) as usize);
    }
}
