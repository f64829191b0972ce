//! Anchors: rare word 3-grams shared by the script's dialogue and the subtitles.
//!
//! A 3-gram of word ids that occurs exactly once in all dialogue (lines
//! concatenated in order) and exactly once in all cues pins a line to a cue.
//! The script side's unique 3-grams go into an `fst::Map` (key: the three ids
//! as big-endian bytes, value: line index); the cue side's unique 3-grams are
//! looked up in it. The anchors that form the longest chain increasing in
//! both line and cue order are kept; they band the dynamic programme.

use fst::{Map, MapBuilder, Streamer};

use super::similarity::Side;

/// A line–cue pair pinned by a shared rare 3-gram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Anchor {
    /// Dialogue line (position among dialogue elements).
    pub line: usize,
    /// Cue (0-based position).
    pub cue: usize,
}

fn key(w: &[u32]) -> [u8; 12] {
    let mut k = [0u8; 12];
    for (i, x) in w.iter().enumerate() {
        k[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    k
}

/// Unique 3-grams of a side: key → item index (only those occurring once).
fn unique_trigrams(side: &Side) -> Vec<([u8; 12], usize)> {
    let mut flat: Vec<(u32, usize)> = Vec::new();
    for i in 0..side.len() {
        flat.extend(side.words(i, 1).iter().map(|&w| (w, i)));
    }
    // The gram belongs to the item where it ends (covers cross-item grams).
    let mut all: Vec<([u8; 12], usize)> = flat
        .windows(3)
        .map(|win| (key(&[win[0].0, win[1].0, win[2].0]), win[2].1))
        .collect();
    // Sorting by key puts repeats side by side; only keys seen once are kept.
    all.sort_unstable_by_key(|&(k, _)| k);
    let mut out = Vec::with_capacity(all.len());
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        while j < all.len() && all[j].0 == all[i].0 {
            j += 1;
        }
        if j == i + 1 {
            out.push(all[i]);
        }
        i = j;
    }
    out
}

/// All anchors (line, cue) from unique shared 3-grams, sorted.
pub fn find_anchors(lines: &Side, cues: &Side) -> Vec<Anchor> {
    let script = unique_trigrams(lines);
    let mut builder = MapBuilder::memory();
    for (k, i) in &script {
        builder
            .insert(k, *i as u64)
            .expect("keys are sorted and unique");
    }
    let map = Map::new(builder.into_inner().expect("in-memory fst")).expect("valid fst");
    // Both key sets are sorted: one pass over the map's stream beside the cue
    // keys finds the shared ones (cheaper than a lookup per cue key).
    let cue_keys = unique_trigrams(cues);
    let mut anchors: Vec<Anchor> = Vec::new();
    let mut stream = map.stream();
    let mut k = 0;
    while let Some((key, line)) = stream.next() {
        while k < cue_keys.len() && cue_keys[k].0.as_slice() < key {
            k += 1;
        }
        if k == cue_keys.len() {
            break;
        }
        if cue_keys[k].0.as_slice() == key {
            anchors.push(Anchor {
                line: line as usize,
                cue: cue_keys[k].1,
            });
        }
    }
    anchors.sort_unstable();
    anchors.dedup();
    anchors
}

/// The longest chain of anchors non-decreasing in both line and cue
/// (input sorted by line, then cue), in O(n log n).
pub fn monotone_chain(anchors: &[Anchor]) -> Vec<Anchor> {
    // tails[k]: index of the smallest-cue end of a chain of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; anchors.len()];
    for (i, a) in anchors.iter().enumerate() {
        let pos = tails.partition_point(|&t| anchors[t].cue <= a.cue);
        prev[i] = if pos > 0 { Some(tails[pos - 1]) } else { None };
        if pos == tails.len() {
            tails.push(i);
        } else {
            tails[pos] = i;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        chain.push(anchors[i]);
        cur = prev[i];
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::similarity::{prepare, HashedNgramEmbedder, Vocabulary};

    #[test]
    fn chain_drops_out_of_order_anchors() {
        let a = |line, cue| Anchor { line, cue };
        let chain = monotone_chain(&[a(0, 0), a(1, 5), a(2, 1), a(3, 2), a(4, 3)]);
        assert_eq!(chain, vec![a(0, 0), a(2, 1), a(3, 2), a(4, 3)]);
    }

    #[test]
    fn shared_rare_trigrams_become_anchors() {
        let mut v = Vocabulary::default();
        let e = HashedNgramEmbedder;
        let lines = prepare(
            &["the quick brown fox", "jumps over the lazy dog"],
            1,
            &mut v,
            &e,
        )
        .unwrap();
        let cues = prepare(
            &["hello", "the quick brown", "fox jumps over the lazy dog"],
            1,
            &mut v,
            &e,
        )
        .unwrap();
        let found = find_anchors(&lines, &cues);
        assert!(found.contains(&Anchor { line: 0, cue: 1 }));
        assert!(found.contains(&Anchor { line: 1, cue: 2 }));
        assert!(found.iter().all(|a| a.cue != 0));
    }
}
