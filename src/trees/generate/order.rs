//! The option order: a stable seed per (film-wide seed, tree, node) and the
//! seeded shuffle, so answer positions are balanced and reruns agree.

/// A deterministic seed per (film-wide seed, tree, node).
pub fn seed_of(seed: u64, tree: &str, node: &str) -> u64 {
    // FNV-1a: stable across platforms and Rust versions, unlike `DefaultHasher`.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in tree.bytes().chain([0]).chain(node.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
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
