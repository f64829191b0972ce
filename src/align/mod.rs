//! Script–film alignment: dialogue lines to subtitle cues, times for every
//! element, and synchronized blocks (the pipeline in ARCHITECTURE.md).
//!
//! Pipeline of [`align`]:
//! 1. both sides are normalized and prepared for scoring groups of up to three
//!    items ([`similarity`]: hybrid of word-level fuzzy matching (Levenshtein, Dice) and a
//!    hashed character-n-gram embedding behind the [`similarity::Embedder`] trait);
//! 2. rare word 3-grams shared by both sides, found through an `fst` index,
//!    give anchors; their longest monotone chain bands the search ([`anchors`]);
//! 3. a banded monotone many-to-many dynamic programme matches lines to cues
//!    with gaps for cut lines and ad-libs ([`dp`]);
//! 4. runs of ≥ 3 unmatched consecutive lines (a scene moved in the edit) are
//!    placed by a local alignment among runs of unmatched cues, kept when confident;
//! 5. non-dialogue elements get interpolated times, scenes become blocks
//!    (split when longer than [`AlignOptions::block_max_ms`]), and a
//!    [`Summary`] gives coverage, mean confidence and a [`Verdict`].
//!
//! Verdict thresholds ([`Summary::verdict`]): `aligned` when coverage ≥ 0.6
//! and mean confidence ≥ 0.6; `mismatch` when coverage < 0.25 or the anchor
//! chain holds fewer than one anchor per 20 dialogue lines; `partial`
//! otherwise. A `mismatch` declines: every line is reported unmatched.

pub mod anchors;
pub mod dp;
pub mod eval;
pub mod export;
pub mod render;
pub mod similarity;
pub mod store;
pub mod synth;

use serde::{Deserialize, Serialize};

use crate::media::subtitles::Subtitles;
use crate::screenplay::{ElementKind, Screenplay};
use dp::{Band, DpParams, Pair};
use similarity::{EmbedError, Embedder, HashedNgramEmbedder, Side, UnrelatedLevel, Vocabulary};

/// Options of [`align`].
#[derive(Debug, Clone, PartialEq)]
pub struct AlignOptions {
    /// Scoring of the dynamic programme.
    pub params: DpParams,
    /// Cues added on each side of the anchor band.
    pub band_margin: usize,
    /// Use the full matrix instead of the anchor band (for comparison).
    pub naive: bool,
    /// Shortest run of unmatched consecutive lines tried as a moved scene.
    pub moved_min_lines: usize,
    /// Blocks longer than this are split (milliseconds).
    pub block_max_ms: u64,
}

impl Default for AlignOptions {
    fn default() -> Self {
        AlignOptions {
            params: DpParams::default(),
            band_margin: 8,
            naive: false,
            moved_min_lines: 3,
            block_max_ms: 90_000,
        }
    }
}

/// The alignment of one dialogue element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineAlignment {
    /// Element index in the screenplay.
    pub element: usize,
    /// Position among dialogue elements (0-based; the gold files' `index`).
    pub line: usize,
    /// Matched cues, as 1-based cue numbers ([`crate::media::subtitles::Cue::index`]).
    pub cues: Vec<usize>,
    /// Start of the first matched cue, or `None` when unmatched.
    pub start_ms: Option<u64>,
    /// End of the last matched cue, or `None` when unmatched.
    pub end_ms: Option<u64>,
    /// Similarity of the matched group, 0..1 (0 when unmatched).
    pub confidence: f32,
    /// Placed by the moved-scene pass rather than the main monotone pass.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moved: bool,
}

/// Time of any element: matched cue times for aligned dialogue, interpolated otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementTime {
    /// Start in milliseconds.
    pub start_ms: u64,
    /// End in milliseconds.
    pub end_ms: u64,
    /// True when interpolated between aligned neighbours.
    pub interpolated: bool,
}

/// A keyframe of a shot overlapping a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockKeyframe {
    /// Path of the image.
    pub path: String,
    /// One of the ≤ 5 representatives of the block.
    pub representative: bool,
}

/// A synchronized block: a scene (or part of a long scene) with its time span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// 0-based, in script order.
    pub id: usize,
    /// Element range `[first, last]`, inclusive.
    pub elements: [usize; 2],
    /// Scene index.
    pub scene: usize,
    /// Start on the film clock, `None` when the scene has no aligned line.
    pub start_ms: Option<u64>,
    /// End on the film clock (exclusive), `None` when the scene has no aligned line.
    pub end_ms: Option<u64>,
    /// Keyframes of the shots the block overlaps (empty without shots).
    pub keyframes: Vec<BlockKeyframe>,
}

/// Whether the script is this film's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Most lines matched with good confidence.
    Aligned,
    /// The script matches the film only in part (heavy edit, other draft).
    Partial,
    /// The script is not this film's; no line is reported matched.
    Mismatch,
}

impl Verdict {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Aligned => "aligned",
            Verdict::Partial => "partial",
            Verdict::Mismatch => "mismatch",
        }
    }
}

/// Figures of an alignment and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Dialogue elements in the script.
    pub dialogue_lines: usize,
    /// Cues in the subtitles.
    pub cues: usize,
    /// Dialogue elements matched (before a mismatch verdict declines them).
    pub matched: usize,
    /// `matched / dialogue_lines`.
    pub coverage: f32,
    /// Mean confidence of matched lines.
    pub mean_confidence: f32,
    /// Anchors in the monotone chain.
    pub anchors: usize,
    /// Cells the dynamic programme evaluated.
    pub dp_cells: usize,
    /// Lines placed by the moved-scene pass.
    pub moved_lines: usize,
    /// The embedder used.
    pub embedder: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Where this embedder put the film's unrelated line–cue pairs: the
    /// calibration of the lone-gap pass (`None` when the film is too short
    /// to measure, and then that pass does not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrelated: Option<UnrelatedLevel>,
    /// Lines matched by the lone-gap pass (a reworded line alone between
    /// matched neighbours; see [`Matching::lone_pairs`]).
    #[serde(default)]
    pub lone_pairs: usize,
}

impl Summary {
    /// The verdict for the given figures (thresholds in the module docs).
    pub fn verdict(coverage: f32, mean_confidence: f32, anchors: usize, lines: usize) -> Verdict {
        if coverage < 0.25 || anchors * 20 < lines {
            Verdict::Mismatch
        } else if coverage >= 0.6 && mean_confidence >= 0.6 {
            Verdict::Aligned
        } else {
            Verdict::Partial
        }
    }
}

/// The result of [`align`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    /// One per dialogue element, in script order.
    pub alignments: Vec<LineAlignment>,
    /// One per screenplay element: its time, if known.
    pub element_times: Vec<Option<ElementTime>>,
    /// Blocks in script order.
    pub blocks: Vec<Block>,
    /// Figures and verdict.
    pub summary: Summary,
}

/// Aligns with the offline [`HashedNgramEmbedder`].
pub fn align(play: &Screenplay, subs: &Subtitles, opts: &AlignOptions) -> Alignment {
    match align_with(play, subs, opts, &HashedNgramEmbedder) {
        Ok(a) => a,
        // The hashed embedder computes every vector itself; it has no error path.
        Err(e) => unreachable!("the hashed embedder failed: {e}"),
    }
}

/// The matched groups and figures of the line–cue pass, before times and blocks.
#[derive(Debug, Clone)]
pub struct Matching {
    /// Matched groups (line/cue positions, 0-based), main pass then moved scenes.
    pub pairs: Vec<Pair>,
    /// Number of leading pairs from the main monotone pass.
    pub main_pairs: usize,
    /// Anchors in the chain.
    pub anchors: usize,
    /// Cells evaluated by the main pass.
    pub cells: usize,
    /// The film's unrelated level with this embedder, when measurable.
    pub unrelated: Option<UnrelatedLevel>,
    /// Pairs among the main ones that the lone-gap pass added: a line alone
    /// between two matched neighbours, facing a cue alone between theirs,
    /// whose cosine says they are related though their words do not.
    pub lone_pairs: usize,
}

/// Matches dialogue texts to cue texts (positions), without any screenplay or timing.
pub fn match_texts(
    lines: &[&str],
    cues: &[&str],
    opts: &AlignOptions,
    embedder: &dyn Embedder,
) -> Result<Matching, EmbedError> {
    let mut vocab = Vocabulary::default();
    let g = opts.params.max_group;
    let ls = similarity::prepare(lines, g, &mut vocab, embedder)?;
    let cs = similarity::prepare(cues, g, &mut vocab, embedder)?;
    Ok(match_prepared(&ls, &cs, opts))
}

/// [`match_texts`] on prepared sides.
pub fn match_prepared(ls: &Side, cs: &Side, opts: &AlignOptions) -> Matching {
    let (n, m) = (ls.len(), cs.len());
    let chain = anchors::monotone_chain(&anchors::find_anchors(ls, cs));
    let band = if opts.naive {
        Band::full(n, m)
    } else {
        Band::around(&chain, n, m, opts.band_margin)
    };
    let cells = band.cells();
    let mut pairs = dp::banded_dp(ls, cs, &band, &opts.params);
    let unrelated = similarity::unrelated_level(ls, cs);
    let lone_pairs = unrelated.map_or(0, |level| pair_lone_gaps(ls, cs, &mut pairs, level));
    let main_pairs = pairs.len();
    place_moved(ls, cs, &mut pairs, opts);
    Matching {
        pairs,
        main_pairs,
        anchors: chain.len(),
        cells,
        unrelated,
        lone_pairs,
    }
}

/// How far from the film's unrelated level towards identity a lone pair's
/// cosine must reach: a quarter of the way from the unrelated pairs' 99th
/// percentile to 1 (about 0.49 with all-MiniLM-L6-v2, 0.56 with the hashed
/// baseline). Ad-libs said where a line was cut tend to share its topic, so
/// the 99th percentile of pairs half a film apart alone is too low a bar.
pub const LONE_MARGIN: f32 = 0.25;

/// The lone-gap pass: a line between two matched neighbours is matched to
/// the cue between their cues when it is the only one left on both sides
/// and the embedding says the two are related: their cosine is at least
/// `high + LONE_MARGIN · (1 − high)`, `high` the 99th percentile of the
/// film's unrelated pairs with this embedder ([`UnrelatedLevel::high`]).
/// Short lines reworded with no word in common (`Okay.` → `Alright.`,
/// `Dad?` → `Father?`) fall below the similarity floor, and only an
/// embedder that reads meaning tells that they agree; the hashed baseline
/// puts such pairs among unrelated ones. Returns the pairs added.
fn pair_lone_gaps(ls: &Side, cs: &Side, pairs: &mut Vec<Pair>, level: UnrelatedLevel) -> usize {
    let related = level.high + LONE_MARGIN * (1.0 - level.high);
    let mut found = Vec::new();
    for (k, w) in pairs.windows(2).enumerate() {
        let (p, q) = (w[0], w[1]);
        let (line, cue) = (p.line + p.lines, p.cue + p.cues);
        if q.line != line + 1 || q.cue != cue + 1 {
            continue;
        }
        if ls.word_count(line) == 0 || cs.word_count(cue) == 0 {
            continue;
        }
        let (line_vec, cue_vec) = (ls.embedding(line, 1), cs.embedding(cue, 1));
        if similarity::dot(line_vec, cue_vec) < related {
            continue;
        }
        let sim = similarity::hybrid(ls.words(line, 1), line_vec, cs.words(cue, 1), cue_vec);
        found.push((
            k + 1,
            Pair {
                line,
                lines: 1,
                cue,
                cues: 1,
                sim,
            },
        ));
    }
    for &(at, pair) in found.iter().rev() {
        pairs.insert(at, pair);
    }
    found.len()
}

/// Moved-scene pass: each run of ≥ `moved_min_lines` unmatched consecutive
/// lines is aligned (same DP, full matrix) against each maximal run of
/// unmatched cues; the best placement is kept when at least half the lines
/// (and two) match with mean similarity ≥ 0.6.
fn place_moved(ls: &Side, cs: &Side, pairs: &mut Vec<Pair>, opts: &AlignOptions) {
    let (n, m) = (ls.len(), cs.len());
    let mut line_used = vec![false; n];
    let mut cue_used = vec![false; m];
    for p in pairs.iter() {
        line_used[p.line..p.line + p.lines]
            .iter_mut()
            .for_each(|u| *u = true);
        cue_used[p.cue..p.cue + p.cues]
            .iter_mut()
            .for_each(|u| *u = true);
    }
    let runs = |used: &[bool], min: usize| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < used.len() {
            if used[i] {
                i += 1;
                continue;
            }
            let s = i;
            while i < used.len() && !used[i] {
                i += 1;
            }
            if i - s >= min {
                out.push((s, i - s));
            }
        }
        out
    };
    let min_lines = opts.moved_min_lines.max(1);
    for (l0, ln) in runs(&line_used, min_lines) {
        let mut best: Option<(f32, Vec<Pair>)> = None;
        for (c0, cn) in runs(&cue_used, 2) {
            if cn * 2 < ln.min(2 * opts.moved_min_lines) {
                continue; // too few cues to hold half the run
            }
            let band = Band::full(ln, cn);
            let found = dp::dp_in(ls, cs, l0, ln, c0, cn, &band, &opts.params);
            let matched: usize = found.iter().map(|p| p.lines).sum();
            if found.is_empty() || matched < 2 || matched * 2 < ln {
                continue;
            }
            let mean = found.iter().map(|p| p.sim * p.lines as f32).sum::<f32>() / matched as f32;
            if mean < 0.6 {
                continue;
            }
            let score = mean * matched as f32;
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, found));
            }
        }
        if let Some((_, found)) = best {
            for p in &found {
                cue_used[p.cue..p.cue + p.cues]
                    .iter_mut()
                    .for_each(|u| *u = true);
            }
            pairs.extend(found);
        }
    }
}

/// Aligns a screenplay with subtitles using `embedder` for the semantic part
/// (an error only when the embedder fails).
pub fn align_with(
    play: &Screenplay,
    subs: &Subtitles,
    opts: &AlignOptions,
    embedder: &dyn Embedder,
) -> Result<Alignment, EmbedError> {
    let dialogue: Vec<usize> = play
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == ElementKind::Dialogue)
        .map(|(i, _)| i)
        .collect();
    let line_texts: Vec<&str> = dialogue
        .iter()
        .map(|&i| play.elements[i].text.as_str())
        .collect();
    let cue_texts: Vec<&str> = subs.cues.iter().map(|c| c.text.as_str()).collect();
    let matching = match_texts(&line_texts, &cue_texts, opts, embedder)?;

    let mut alignments: Vec<LineAlignment> = dialogue
        .iter()
        .enumerate()
        .map(|(line, &element)| LineAlignment {
            element,
            line,
            cues: Vec::new(),
            start_ms: None,
            end_ms: None,
            confidence: 0.0,
            moved: false,
        })
        .collect();
    for (k, p) in matching.pairs.iter().enumerate() {
        let cues = &subs.cues[p.cue..p.cue + p.cues];
        for a in &mut alignments[p.line..p.line + p.lines] {
            a.cues = cues.iter().map(|c| c.index).collect();
            a.start_ms = cues.iter().map(|c| c.start_ms).min();
            a.end_ms = cues.iter().map(|c| c.end_ms).max();
            a.confidence = p.sim.clamp(0.0, 1.0);
            a.moved = k >= matching.main_pairs;
        }
    }
    let matched: Vec<&LineAlignment> = alignments.iter().filter(|a| !a.cues.is_empty()).collect();
    let n = alignments.len();
    let coverage = if n == 0 {
        0.0
    } else {
        matched.len() as f32 / n as f32
    };
    let mean_confidence = if matched.is_empty() {
        0.0
    } else {
        matched.iter().map(|a| a.confidence).sum::<f32>() / matched.len() as f32
    };
    let verdict = Summary::verdict(coverage, mean_confidence, matching.anchors, n);
    let summary = Summary {
        dialogue_lines: n,
        cues: subs.cues.len(),
        matched: matched.len(),
        coverage,
        mean_confidence,
        anchors: matching.anchors,
        dp_cells: matching.cells,
        moved_lines: alignments.iter().filter(|a| a.moved).count(),
        embedder: embedder.name().to_owned(),
        verdict,
        unrelated: matching.unrelated,
        lone_pairs: matching.lone_pairs,
    };
    if verdict == Verdict::Mismatch {
        for a in &mut alignments {
            *a = LineAlignment {
                cues: Vec::new(),
                start_ms: None,
                end_ms: None,
                confidence: 0.0,
                moved: false,
                ..a.clone()
            };
        }
    }
    let (element_times, blocks) = times_and_blocks(play, &alignments, opts.block_max_ms);
    Ok(Alignment {
        alignments,
        element_times,
        blocks,
        summary,
    })
}

/// Scene bounds from aligned dialogue, element times, and blocks.
// Index loops: element indices address `times` and `play.elements` alike.
#[allow(clippy::needless_range_loop)]
fn times_and_blocks(
    play: &Screenplay,
    alignments: &[LineAlignment],
    block_max_ms: u64,
) -> (Vec<Option<ElementTime>>, Vec<Block>) {
    let mut times: Vec<Option<ElementTime>> = vec![None; play.elements.len()];
    for a in alignments {
        if let (Some(s), Some(e)) = (a.start_ms, a.end_ms) {
            times[a.element] = Some(ElementTime {
                start_ms: s,
                end_ms: e,
                interpolated: false,
            });
        }
    }
    // Dialogue span of each scene: (first start, last end) of its matched lines.
    let spans: Vec<Option<(u64, u64)>> = play
        .scenes
        .iter()
        .map(|sc| {
            let ts = (sc.elements[0]..=sc.elements[1]).filter_map(|e| times[e]);
            ts.fold(None, |acc: Option<(u64, u64)>, t| match acc {
                None => Some((t.start_ms, t.end_ms)),
                Some((s, e)) => Some((s.min(t.start_ms), e.max(t.end_ms))),
            })
        })
        .collect();
    // Scene bounds: midpoints between neighbouring scenes in film order.
    let mut order: Vec<usize> = (0..spans.len()).filter(|&s| spans[s].is_some()).collect();
    order.sort_by_key(|&s| spans[s].map(|x| x.0));
    let mut bounds: Vec<Option<(u64, u64)>> = vec![None; spans.len()];
    for (k, &s) in order.iter().enumerate() {
        let (ds, de) = spans[s].expect("ordered scenes have spans");
        let start = if k == 0 {
            ds.saturating_sub(2_000)
        } else {
            let pe = spans[order[k - 1]].expect("span").1;
            if pe <= ds {
                (pe + ds) / 2
            } else {
                ds
            }
        };
        let end = if k + 1 == order.len() {
            de + 2_000
        } else {
            let ns = spans[order[k + 1]].expect("span").0;
            if de <= ns {
                (de + ns) / 2
            } else {
                de
            }
        };
        bounds[s] = Some((start, end.max(start)));
    }
    // Interpolate the other elements of each timed scene.
    for (s, sc) in play.scenes.iter().enumerate() {
        let Some((start, end)) = bounds[s] else {
            continue;
        };
        let (first, last) = (sc.elements[0], sc.elements[1]);
        // Known points: (element position, time at its start, time at its end).
        let mut known: Vec<(usize, u64, u64)> = vec![(first, start, start)];
        for e in first..=last {
            if let Some(t) = times[e] {
                known.push((e, t.start_ms, t.end_ms));
            }
        }
        known.push((last + 1, end, end));
        for w in known.windows(2) {
            let (ea, _, ta) = w[0];
            let (eb, tb, _) = w[1];
            // Lines sharing a cue overlap: start in-between elements no later than the next line.
            let ta = ta.min(tb);
            let span = (eb - ea).max(1) as u64;
            let from = if ea == first && times[first].is_none() {
                ea
            } else {
                ea + 1
            };
            for e in from..eb {
                let at = |x: usize| ta + (tb - ta) * (x - ea) as u64 / span;
                times[e] = Some(ElementTime {
                    start_ms: at(e),
                    end_ms: at(e + 1).max(at(e)),
                    interpolated: true,
                });
            }
        }
    }
    // Blocks: one per scene, split before a non-speech element or a character
    // cue once the block has run longer than `block_max_ms`.
    let mut blocks = Vec::new();
    for (s, sc) in play.scenes.iter().enumerate() {
        let (first, last) = (sc.elements[0], sc.elements[1]);
        let Some((start, end)) = bounds[s] else {
            blocks.push(Block {
                id: blocks.len(),
                elements: [first, last],
                scene: s,
                start_ms: None,
                end_ms: None,
                keyframes: Vec::new(),
            });
            continue;
        };
        let mut block_first = first;
        let mut block_start = start;
        for e in first + 1..=last {
            let kind = play.elements[e].kind;
            let splittable = !matches!(kind, ElementKind::Dialogue | ElementKind::Parenthetical);
            let t = times[e].map(|t| t.start_ms).unwrap_or(block_start);
            if splittable && t > block_start && t - block_start >= block_max_ms {
                blocks.push(Block {
                    id: blocks.len(),
                    elements: [block_first, e - 1],
                    scene: s,
                    start_ms: Some(block_start),
                    end_ms: Some(t),
                    keyframes: Vec::new(),
                });
                block_first = e;
                block_start = t;
            }
        }
        blocks.push(Block {
            id: blocks.len(),
            elements: [block_first, last],
            scene: s,
            start_ms: Some(block_start),
            end_ms: Some(end.max(block_start)),
            keyframes: Vec::new(),
        });
    }
    (times, blocks)
}

/// Attaches keyframes to blocks and snaps scene boundaries to shot cuts.
///
/// A block's start that falls between scenes is moved to the nearest shot
/// start within `snap_ms` (a scene change is a cut); the previous block's end
/// follows it. Then every block gets the keyframes of all shots it overlaps,
/// with at most `representatives` of them marked
/// ([`crate::media::shots::ShotList::representative_keyframes`]).
pub fn attach_shots(
    alignment: &mut Alignment,
    shots: &crate::media::shots::ShotList,
    representatives: usize,
    snap_ms: u64,
) {
    let cuts: Vec<u64> = shots.shots.iter().map(|s| s.start_ms).collect();
    let snap = |t: u64| -> u64 {
        let i = cuts.partition_point(|&c| c < t);
        [i.checked_sub(1), Some(i)]
            .into_iter()
            .flatten()
            .filter_map(|k| cuts.get(k).copied())
            .filter(|&c| c.abs_diff(t) <= snap_ms)
            .min_by_key(|&c| c.abs_diff(t))
            .unwrap_or(t)
    };
    // Film-order list of timed blocks; snap each start (and the previous end).
    let mut order: Vec<usize> = (0..alignment.blocks.len())
        .filter(|&b| alignment.blocks[b].start_ms.is_some())
        .collect();
    order.sort_by_key(|&b| alignment.blocks[b].start_ms);
    for (k, &b) in order.iter().enumerate() {
        let start = alignment.blocks[b].start_ms.expect("timed");
        let snapped = snap(start);
        alignment.blocks[b].start_ms = Some(snapped);
        if k > 0 {
            let prev = order[k - 1];
            if alignment.blocks[prev].end_ms == Some(start) {
                alignment.blocks[prev].end_ms = Some(snapped);
            }
        }
    }
    if let Some(&last) = order.last() {
        if let Some(end) = alignment.blocks[last].end_ms {
            let next_cut = cuts.iter().copied().find(|&c| c >= end);
            let film_end = shots.shots.last().map(|s| s.end_ms);
            let end = next_cut
                .filter(|c| c - end <= snap_ms)
                .or(film_end.filter(|f| *f >= end && f - end <= snap_ms))
                .unwrap_or(end);
            alignment.blocks[last].end_ms = Some(end);
        }
    }
    for block in &mut alignment.blocks {
        let (Some(s), Some(e)) = (block.start_ms, block.end_ms) else {
            continue;
        };
        let reps: Vec<&std::path::Path> = shots
            .representative_keyframes(s, e, representatives)
            .into_iter()
            .map(|k| k.path.as_path())
            .collect();
        block.keyframes = shots
            .shots_overlapping(s, e)
            .iter()
            .flat_map(|shot| shot.keyframes.iter())
            .map(|k| BlockKeyframe {
                path: k.path.display().to_string(),
                representative: reps.contains(&k.path.as_path()),
            })
            .collect();
    }
}

#[cfg(test)]
mod tests;
