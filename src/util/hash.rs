//! FNV-1a, 64-bit: a stable hash for seeds and hashed features, the same on
//! every platform and Rust release (std's `DefaultHasher` may change).

/// The FNV-1a 64-bit offset basis: the hash of no bytes.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a 64-bit prime.
pub const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a, 64-bit, of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(FNV_OFFSET, bytes)
}

/// Continues the FNV-1a hash `h` over `bytes`: hashing in pieces gives the
/// hash of the whole (`fnv1a_extend(FNV_OFFSET, b)` is `fnv1a(b)`), and a start
/// other than [`FNV_OFFSET`] mixes a seed in.
pub fn fnv1a_extend(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn hashing_in_pieces_hashes_the_whole() {
        let h = fnv1a_extend(fnv1a(b"foo"), b"bar");
        assert_eq!(h, fnv1a(b"foobar"));
    }
}
