//! Sorted-slice helpers shared by the word-overlap measures.

/// How many items two sorted slices have in common, an item repeated in
/// both counted as often as the fewer repeats (one merge pass, no
/// allocation).
pub fn common_count<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_items_both_hold() {
        assert_eq!(common_count(&[1, 3, 5, 7], &[2, 3, 4, 7, 9]), 2);
        assert_eq!(common_count::<u32>(&[], &[1, 2]), 0);
        assert_eq!(common_count(&["a", "b"], &["a", "b"]), 2);
        assert_eq!(common_count(&[1, 1, 1, 2], &[1, 1, 3]), 2);
    }
}
