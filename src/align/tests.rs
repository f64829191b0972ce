//! Unit tests of the alignment pipeline: verdicts, declining unrelated text,
//! and the lone-gap pass with its per-film calibration.

use super::*;

#[test]
fn verdict_thresholds() {
    assert_eq!(Summary::verdict(0.9, 0.9, 50, 100), Verdict::Aligned);
    assert_eq!(Summary::verdict(0.5, 0.9, 50, 100), Verdict::Partial);
    assert_eq!(Summary::verdict(0.9, 0.5, 50, 100), Verdict::Partial);
    assert_eq!(Summary::verdict(0.2, 0.9, 50, 100), Verdict::Mismatch);
    assert_eq!(Summary::verdict(0.9, 0.9, 4, 100), Verdict::Mismatch);
}

/// A test embedder that reads a little meaning: bag of words over 256
/// hashed dimensions, where `alright` lies close to `okay`.
struct SynonymEmbedder;

impl Embedder for SynonymEmbedder {
    fn name(&self) -> &str {
        "synonyms"
    }
    fn model_id(&self) -> &str {
        "test-synonyms"
    }
    fn dims(&self) -> usize {
        256
    }
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 256];
                let dim = |w: &str| {
                    w.bytes().fold(2166136261u32, |h, b| {
                        (h ^ u32::from(b)).wrapping_mul(16777619)
                    }) as usize
                        % 256
                };
                for w in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    let w = w.to_lowercase();
                    // A synonym: cosine 0.8 with its partner, as MiniLM
                    // gives `okay` and `alright` (0.85).
                    match w.as_str() {
                        "alright" => {
                            v[dim("okay")] += 0.8;
                            v[dim("alright")] += 0.6;
                        }
                        other => v[dim(other)] += 1.0,
                    }
                }
                crate::embed::l2_normalize(&mut v);
                v
            })
            .collect())
    }
}

/// 50 lines of words no other line has, with one short line at 25 that
/// the cues carry as `middle_cue` (or drop, with `adlib` said instead).
fn film(middle_line: &str, middle_cue: &str) -> (Vec<String>, Vec<String>) {
    let mut lines: Vec<String> = (0..50)
        .map(|i| format!("w{i}a w{i}b w{i}c w{i}d w{i}e w{i}f"))
        .collect();
    let mut cues = lines.clone();
    lines[25] = middle_line.to_owned();
    cues[25] = middle_cue.to_owned();
    (lines, cues)
}

fn matched(lines: &[String], cues: &[String], embedder: &dyn Embedder) -> Matching {
    let l: Vec<&str> = lines.iter().map(String::as_str).collect();
    let c: Vec<&str> = cues.iter().map(String::as_str).collect();
    match_texts(&l, &c, &AlignOptions::default(), embedder).unwrap()
}

#[test]
fn a_lone_line_reworded_without_a_common_word_is_matched_when_the_embedding_says_so() {
    let (lines, cues) = film("Okay.", "Alright.");
    let m = matched(&lines, &cues, &SynonymEmbedder);
    assert_eq!(m.lone_pairs, 1);
    let p = m
        .pairs
        .iter()
        .find(|p| p.line == 25)
        .expect("line 25 matched");
    assert_eq!((p.cue, p.cues), (25, 1));
    // The pairs stay in order.
    assert!(m.pairs.windows(2).all(|w| w[0].line < w[1].line));
    let level = m.unrelated.expect("50 lines are enough to measure");
    assert!(level.high < 0.5, "{level:?}");
    // The hashed baseline's cosine for the two words sits among unrelated pairs.
    let m = matched(&lines, &cues, &HashedNgramEmbedder);
    assert_eq!(m.lone_pairs, 0);
    assert!(m.pairs.iter().all(|p| p.line != 25), "{:?}", m.pairs);
}

#[test]
fn a_cut_line_facing_an_unrelated_ad_lib_stays_unmatched() {
    let (lines, cues) = film("What is this place?", "Mind the step, love.");
    let m = matched(&lines, &cues, &SynonymEmbedder);
    assert_eq!(m.lone_pairs, 0);
    assert!(m.pairs.iter().all(|p| p.line != 25), "{:?}", m.pairs);
}

#[test]
fn a_short_film_has_no_calibration_and_no_lone_gap_pass() {
    let lines = ["The tide is out.", "Okay.", "Nobody saw a thing."];
    let cues = ["The tide is out.", "Alright.", "Nobody saw a thing."];
    let m = match_texts(&lines, &cues, &AlignOptions::default(), &SynonymEmbedder).unwrap();
    assert_eq!(m.unrelated, None);
    assert_eq!(m.lone_pairs, 0);
    assert!(m.pairs.iter().all(|p| p.line != 1), "{:?}", m.pairs);
}

#[test]
fn matching_declines_unrelated_text() {
    let lines = [
        "The tide is out and the boat is gone.",
        "Nobody saw a thing.",
    ];
    let cues = ["Pass the salt, please.", "I have never been to Paris."];
    let m = match_texts(
        &lines,
        &cues,
        &AlignOptions::default(),
        &HashedNgramEmbedder,
    )
    .unwrap();
    assert!(m.pairs.is_empty(), "{:?}", m.pairs);
}
