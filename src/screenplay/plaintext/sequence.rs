//! The line model: a linear-chain sequence model over the classes of a
//! script's non-blank lines (S N C D E T, and O for page furniture), fitted
//! as an averaged structured perceptron and decoded with Viterbi.
//!
//! Its features are the rules reader's own reading of each line and of its
//! neighbours, the line's shape (case, length, punctuation, screenplay
//! words), and the script's column model: which columns the script uses,
//! how wide the lines at each column run, and what the reader read at that
//! column. So the model corrects the reader where a script's layout fooled
//! its rules (action set at a speech's column, a heading without INT.), and
//! agrees with it elsewhere. Weights are data (`line_model.txt`), fitted by
//! `moviegraph bench parse --real DIR --fit FILE`; fitting is deterministic.

use std::collections::HashMap;

use super::super::layouts::Tag;
use super::Line;
use crate::util::hash::fnv1a_extend;
use crate::util::rng::SplitMix64;

/// Classes the model tells apart: the six story tags, then other (`O`).
pub const CLASSES: usize = 7;

/// The class index of a line's tag (`None`: other).
pub fn class_of(tag: Option<Tag>) -> usize {
    tag.and_then(|t| Tag::ALL.iter().position(|&a| a == t))
        .unwrap_or(Tag::ALL.len())
}

/// The tag of a class index (`None` for other).
pub fn tag_of(class: usize) -> Option<Tag> {
    Tag::ALL.get(class).copied()
}

/// One script's non-blank lines, with the features of each.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// 1-based line numbers of the non-blank lines, in order.
    pub lines: Vec<usize>,
    /// The features of each of those lines.
    pub features: Vec<Vec<u64>>,
}

/// Hashes a feature: its template name and values.
struct Feature(u64);

impl Feature {
    fn new(name: &str) -> Feature {
        Feature(fnv1a_extend(0xcbf2_9ce4_8422_2325, name.as_bytes()))
    }
    fn with(self, value: impl AsRef<[u8]>) -> Feature {
        Feature(fnv1a_extend(self.0 ^ 0x9e37, value.as_ref()))
    }
    fn num(self, value: i64) -> Feature {
        self.with(value.to_le_bytes())
    }
}

/// Words that end a heading's time of day.
const TIMES: &[&str] = &[
    "DAY",
    "NIGHT",
    "MORNING",
    "EVENING",
    "AFTERNOON",
    "LATER",
    "CONTINUOUS",
    "DUSK",
    "DAWN",
    "SUNSET",
    "SUNRISE",
    "MOMENTS LATER",
    "SAME",
];

/// `text` ends with `suffix`, ASCII case ignored.
fn ends_with_ci(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text.as_bytes()[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// `text` holds `needle`, ASCII case ignored.
fn contains_ci(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The case of a line: 0 upper (letters, none lower), 1 mostly lower, 2 mixed.
fn case_of(text: &str) -> i64 {
    let (mut letters, mut lower) = (0, 0);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        lower += usize::from(c.is_lowercase());
    }
    if letters > 0 && lower == 0 {
        0
    } else if lower * 2 > letters {
        1
    } else {
        2
    }
}

/// What a line looks like, independent of its script: named values.
fn shape(text: &str) -> [(&'static str, i64); 15] {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    let count = 1 + words.clone().count();
    let last = words
        .next_back()
        .unwrap_or(first)
        .trim_matches(|c: char| !c.is_alphanumeric());
    let case = case_of(text);
    let heading_word = ["INT", "EXT", "I/E", "INT./EXT", "EXT./INT", "INT/EXT"]
        .iter()
        .any(|w| first.trim_end_matches(['.', '-']).eq_ignore_ascii_case(w));
    let time = case == 0
        && TIMES
            .iter()
            .any(|t| last.eq_ignore_ascii_case(t) || ends_with_ci(text, t));
    let transition = ends_with_ci(text, "TO:")
        || ends_with_ci(text, " TO")
        || [
            "FADE", "CUT", "DISSOLVE", "SMASH", "MATCH", "WIPE", "IRIS", "JUMP",
        ]
        .iter()
        .any(|w| first.trim_end_matches([':', '.']).eq_ignore_ascii_case(w));
    let extension = text.contains('(')
        && [
            "(V.O.)",
            "(O.S.)",
            "(O.C.)",
            "(CONT'D)",
            "(CONT’D)",
            "(CONT)",
            "(V.O)",
            "(OS)",
            "(VO)",
        ]
        .iter()
        .any(|e| contains_ci(text, e));
    let end = text
        .chars()
        .next_back()
        .filter(|c| !c.is_alphanumeric())
        .map_or(0, |c| c as i64);
    [
        ("case", case),
        ("len", (text.chars().count() / 8).min(10) as i64),
        ("words", count.min(8) as i64),
        ("open", i64::from(text.starts_with('('))),
        ("close", i64::from(text.ends_with(')'))),
        ("colon", i64::from(text.ends_with(':'))),
        ("end", end),
        (
            "digit",
            i64::from(text.starts_with(|c: char| c.is_ascii_digit())),
        ),
        ("heading-word", i64::from(heading_word)),
        ("time", i64::from(time)),
        (
            "dash",
            i64::from(text.contains(" - ") || text.contains("--")),
        ),
        ("transition-word", i64::from(transition)),
        ("extension", i64::from(extension)),
        (
            "first-caps",
            i64::from(first.len() > 1 && first.chars().all(|c| !c.is_lowercase())),
        ),
        ("words-1", i64::from(count == 1)),
    ]
}

/// The script's column model: per indent, how many lines, what the reader
/// read there most, and how far lines there run.
struct Columns {
    /// indent → (lines, class counts, widths).
    at: HashMap<usize, (usize, [usize; CLASSES], Vec<usize>)>,
    /// Frequent indents, most used first.
    ranked: Vec<usize>,
}

impl Columns {
    fn learn(lines: &[Line<'_>], reader: &[usize]) -> Columns {
        let mut at: HashMap<usize, (usize, [usize; CLASSES], Vec<usize>)> = HashMap::new();
        for (i, l) in lines.iter().enumerate() {
            if l.text.is_empty() {
                continue;
            }
            let e = at.entry(l.indent).or_default();
            e.0 += 1;
            e.1[reader[i]] += 1;
            e.2.push(l.text.chars().count());
        }
        for e in at.values_mut() {
            e.2.sort_unstable();
        }
        let mut ranked: Vec<usize> = at.keys().copied().collect();
        ranked.sort_by(|a, b| at[b].0.cmp(&at[a].0).then(a.cmp(b)));
        Columns { at, ranked }
    }

    /// Rank of the column (0: most used), 5 for rare ones.
    fn rank(&self, indent: usize) -> usize {
        self.ranked
            .iter()
            .take(5)
            .position(|&c| c == indent)
            .unwrap_or(5)
    }

    /// The reader's most frequent class at `indent` and its share in tenths.
    fn major(&self, indent: usize) -> (usize, usize) {
        let Some((n, counts, _)) = self.at.get(&indent) else {
            return (CLASSES, 0);
        };
        let (k, &c) = counts
            .iter()
            .enumerate()
            .max_by_key(|&(k, c)| (*c, std::cmp::Reverse(k)))
            .unwrap_or((CLASSES, &0));
        (k, c * 10 / (*n).max(1))
    }

    /// The 90th-percentile width of the lines at `indent`, in 8-column steps.
    fn width(&self, indent: usize) -> usize {
        self.at.get(&indent).map_or(0, |(_, _, w)| {
            w.get((w.len() * 9 / 10).min(w.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0)
                / 8
        })
    }
}

/// The features of every non-blank line of a prepared script, given the
/// class the rules reader gave each line (`reader[i]` for `lines[i]`).
pub(super) fn observe(lines: &[Line<'_>], reader: &[usize]) -> Observed {
    let columns = Columns::learn(lines, reader);
    let content: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].text.is_empty())
        .collect();
    let left = lines
        .iter()
        .filter(|l| !l.text.is_empty())
        .map(|l| l.indent)
        .filter(|&i| columns.rank(i) < 5)
        .min()
        .unwrap_or(0);
    let widest = columns
        .ranked
        .iter()
        .take(4)
        .map(|&c| columns.width(c))
        .max()
        .unwrap_or(0);
    // Paragraphs: runs of content lines with no blank line between.
    let mut paragraph = vec![(0usize, 0usize); content.len()];
    let mut start = 0;
    for k in 0..=content.len() {
        let ends = k == content.len() || (k > start && content[k] > content[k - 1] + 1);
        if ends {
            paragraph[start..k].fill((start, k));
            start = k;
        }
    }
    // The longest line of each paragraph, once per paragraph.
    let mut longest = vec![0usize; content.len()];
    let mut k = 0;
    while k < content.len() {
        let (p0, p1) = paragraph[k];
        let max = (p0..p1)
            .map(|j| lines[content[j]].text.chars().count())
            .max()
            .unwrap_or(0);
        longest[p0..p1].fill(max);
        k = p1.max(k + 1);
    }
    let mut features = Vec::with_capacity(content.len());
    for (k, &i) in content.iter().enumerate() {
        let l = &lines[i];
        let (p0, p1) = paragraph[k];
        let para_max = longest[k];
        let column_chars = columns.width(l.indent) * 8 + 4;
        let first = &lines[content[p0]];
        let led_by_cue = k > p0
            && case_of(&first.text) == 0
            && first.text.chars().count() < 40
            && first.indent >= l.indent;
        let prev = k.checked_sub(1).map(|p| content[p]);
        let next = content.get(k + 1).copied();
        let r = reader[i] as i64;
        let rp = prev.map_or(-1, |p| reader[p] as i64);
        let rn = next.map_or(-1, |n| reader[n] as i64);
        let blank_before = prev.is_none_or(|p| p + 1 < i);
        let blank_after = next.is_none_or(|n| n > i + 1);
        let (major, share) = columns.major(l.indent);
        let rank = columns.rank(l.indent) as i64;
        let width = columns.width(l.indent) as i64;
        let rel = |other: Option<usize>| match other {
            None => 3,
            Some(o) => (lines[o].indent as i64 - l.indent as i64).signum() + 1,
        };
        let mut f = vec![
            Feature::new("bias").0,
            Feature::new("r").num(r).0,
            Feature::new("r-1").num(rp).0,
            Feature::new("r+1").num(rn).0,
            Feature::new("r-1,r").num(rp).num(r).0,
            Feature::new("r,r+1").num(r).num(rn).0,
            Feature::new("rank").num(rank).0,
            Feature::new("rank,r").num(rank).num(r).0,
            Feature::new("major").num(major as i64).num(share as i64).0,
            Feature::new("major,r").num(major as i64).num(r).0,
            Feature::new("width").num(width).0,
            Feature::new("width-gap")
                .num((widest as i64 - width).clamp(0, 6))
                .0,
            Feature::new("left")
                .num(((l.indent as i64 - left as i64) / 4).clamp(-2, 12))
                .0,
            Feature::new("blank")
                .num(i64::from(blank_before))
                .num(i64::from(blank_after))
                .0,
            Feature::new("prev-indent").num(rel(prev)).0,
            Feature::new("next-indent").num(rel(next)).0,
            Feature::new("noise")
                .num(l.noise.map_or(-1, |n| n as i64))
                .0,
            Feature::new("number").num(i64::from(l.number.is_some())).0,
            Feature::new("page").num(i64::from(l.page_start)).0,
            Feature::new("para-max")
                .num((para_max / 8).min(10) as i64)
                .0,
            Feature::new("para-ratio")
                .num((para_max * 10 / column_chars.max(1)).min(12) as i64)
                .0,
            Feature::new("para-lines").num((p1 - p0).min(5) as i64).0,
            Feature::new("para-pos")
                .num(if k == p0 {
                    0
                } else if k + 1 == p1 {
                    2
                } else {
                    1
                })
                .0,
            Feature::new("led-by-cue").num(i64::from(led_by_cue)).0,
            Feature::new("led-by-cue,first-indent")
                .num(i64::from(led_by_cue))
                .num((first.indent as i64 - l.indent as i64).signum())
                .0,
            Feature::new("para-ratio,r")
                .num((para_max * 10 / column_chars.max(1)).min(12) as i64)
                .num(r)
                .0,
        ];
        let shape = shape(&l.text);
        for (name, value) in shape {
            f.push(Feature::new(name).num(value).0);
        }
        let case = shape[0].1;
        f.push(Feature::new("case,r").num(case).num(r).0);
        f.push(Feature::new("case,major").num(case).num(major as i64).0);
        f.push(Feature::new("case,next-indent").num(case).num(rel(next)).0);
        f.push(
            Feature::new("case,blank-after,major")
                .num(case)
                .num(i64::from(blank_after))
                .num(major as i64)
                .0,
        );
        f.push(Feature::new("case,rank").num(case).num(rank).0);
        f.push(
            Feature::new("case,blank")
                .num(case)
                .num(i64::from(blank_before))
                .num(i64::from(blank_after))
                .0,
        );
        f.push(Feature::new("len,width").num(shape[1].1).num(width).0);
        if let Some(p) = prev {
            f.push(Feature::new("prev-case").num(case_of(&lines[p].text)).0);
            f.push(
                Feature::new("prev-close")
                    .num(i64::from(lines[p].text.ends_with(')')))
                    .0,
            );
        }
        if let Some(n) = next {
            f.push(Feature::new("next-case").num(case_of(&lines[n].text)).0);
            f.push(
                Feature::new("next-open")
                    .num(i64::from(lines[n].text.starts_with('(')))
                    .0,
            );
        }
        features.push(f);
    }
    Observed {
        lines: content.iter().map(|&i| lines[i].no).collect(),
        features,
    }
}

/// Feature keys are already hashes: the map uses them as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a_extend(self.0, bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Weights by feature key.
type Weights = HashMap<u64, [f32; CLASSES], std::hash::BuildHasherDefault<KeyHasher>>;

/// A fitted line model: a weight per feature and class, and transition
/// weights between classes (row `CLASSES` is the start).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    weights: Weights,
    transitions: [[f32; CLASSES]; CLASSES + 1],
    /// How much better (in path score) the model's class must be than the
    /// rules reader's for a line to change.
    pub threshold: f32,
}

impl Model {
    /// The score each class gets on each line: the feature weights.
    fn emissions(&self, features: &[Vec<u64>]) -> Vec<[f32; CLASSES]> {
        features
            .iter()
            .map(|f| {
                let mut s = [0f32; CLASSES];
                for h in f {
                    if let Some(w) = self.weights.get(h) {
                        for c in 0..CLASSES {
                            s[c] += w[c];
                        }
                    }
                }
                s
            })
            .collect()
    }

    /// The most likely classes of a sequence's lines (Viterbi).
    pub fn decode(&self, features: &[Vec<u64>]) -> Vec<usize> {
        let emit = self.emissions(features);
        let n = emit.len();
        if n == 0 {
            return Vec::new();
        }
        let mut score = vec![[0f32; CLASSES]; n];
        let mut back = vec![[0u8; CLASSES]; n];
        for c in 0..CLASSES {
            score[0][c] = emit[0][c] + self.transitions[CLASSES][c];
        }
        for t in 1..n {
            for c in 0..CLASSES {
                let (best, from) = (0..CLASSES)
                    .map(|p| (score[t - 1][p] + self.transitions[p][c], p))
                    .fold((f32::NEG_INFINITY, 0), |a, b| if b.0 > a.0 { b } else { a });
                score[t][c] = best + emit[t][c];
                back[t][c] = from as u8;
            }
        }
        let mut best = (0..CLASSES).fold(0, |a, c| {
            if score[n - 1][c] > score[n - 1][a] {
                c
            } else {
                a
            }
        });
        let mut out = vec![0; n];
        for t in (0..n).rev() {
            out[t] = best;
            best = back[t][best] as usize;
        }
        out
    }

    /// For each line and class, the score of the best whole-sequence path
    /// through that class at that line (max-marginals): how much the model
    /// prefers one class of a line over another, all else chosen best.
    pub fn max_marginals(&self, features: &[Vec<u64>]) -> Vec<[f32; CLASSES]> {
        let emit = self.emissions(features);
        let n = emit.len();
        let mut forward = vec![[0f32; CLASSES]; n];
        let mut backward = vec![[0f32; CLASSES]; n];
        for t in 0..n {
            for c in 0..CLASSES {
                let before = if t == 0 {
                    self.transitions[CLASSES][c]
                } else {
                    (0..CLASSES)
                        .map(|p| forward[t - 1][p] + self.transitions[p][c])
                        .fold(f32::NEG_INFINITY, f32::max)
                };
                forward[t][c] = before + emit[t][c];
            }
        }
        for t in (0..n.saturating_sub(1)).rev() {
            for c in 0..CLASSES {
                backward[t][c] = (0..CLASSES)
                    .map(|d| self.transitions[c][d] + emit[t + 1][d] + backward[t + 1][d])
                    .fold(f32::NEG_INFINITY, f32::max);
            }
        }
        (0..n)
            .map(|t| std::array::from_fn(|c| forward[t][c] + backward[t][c]))
            .collect()
    }

    /// The classes the reader should end with: the model's best class of a
    /// line where its path beats the best path keeping the reader's class
    /// (`reader[t]`) by at least [`Model::threshold`], else the reader's.
    pub fn correct(&self, features: &[Vec<u64>], reader: &[usize]) -> Vec<usize> {
        let marginals = self.max_marginals(features);
        marginals
            .iter()
            .zip(reader)
            .map(|(m, &r)| {
                let best = (0..CLASSES).fold(0, |a, c| if m[c] > m[a] { c } else { a });
                if m[best] - m[r.min(CLASSES - 1)] >= self.threshold {
                    best
                } else {
                    r
                }
            })
            .collect()
    }

    /// The model as text: the transition rows, then `hash w0 … w6` per feature.
    pub fn to_text(&self) -> String {
        let mut out = String::from("moviegraph line model 1\n");
        out.push_str(&format!("threshold {:.3}\n", self.threshold));
        for row in &self.transitions {
            out.push_str(&join(row));
            out.push('\n');
        }
        let mut keys: Vec<&u64> = self.weights.keys().collect();
        keys.sort_unstable();
        for k in keys {
            out.push_str(&format!("{k:016x} {}\n", join(&self.weights[k])));
        }
        out
    }

    /// Reads [`Model::to_text`]'s form.
    pub fn from_text(text: &str) -> Result<Model, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, "moviegraph line model 1")) => {}
            _ => return Err("line 1: not a moviegraph line model".into()),
        }
        let threshold = match lines.next() {
            Some((_, l)) => l
                .strip_prefix("threshold ")
                .and_then(|t| t.parse().ok())
                .ok_or("line 2: `threshold X` expected")?,
            None => return Err("line 2: `threshold X` expected".into()),
        };
        let mut transitions = [[0f32; CLASSES]; CLASSES + 1];
        for row in transitions.iter_mut() {
            let (n, l) = lines.next().ok_or("the transition rows end early")?;
            *row = numbers(l).ok_or(format!("line {}: {CLASSES} numbers expected", n + 1))?;
        }
        let mut weights = Weights::default();
        for (n, l) in lines {
            let (key, rest) = l
                .split_once(' ')
                .ok_or(format!("line {}: no weights", n + 1))?;
            let key =
                u64::from_str_radix(key, 16).map_err(|_| format!("line {}: bad key", n + 1))?;
            let w = numbers(rest).ok_or(format!("line {}: {CLASSES} numbers expected", n + 1))?;
            weights.insert(key, w);
        }
        Ok(Model {
            weights,
            transitions,
            threshold,
        })
    }

    /// Features with a weight.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// True for a model with no feature weights.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
}

fn join(row: &[f32; CLASSES]) -> String {
    row.iter()
        .map(|w| format!("{w:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn numbers(text: &str) -> Option<[f32; CLASSES]> {
    let v: Vec<f32> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    v.try_into().ok()
}

/// One training sequence: features and gold classes of consecutive lines,
/// and how much each of its mistakes moves the weights.
#[derive(Debug, Clone, Default)]
pub struct Example {
    /// Features of each line.
    pub features: Vec<Vec<u64>>,
    /// Gold class of each line.
    pub gold: Vec<usize>,
    /// Size of an update (1 for real scripts; less for rendered layouts).
    pub weight: f32,
}

/// Fits a model on `examples` with the averaged structured perceptron:
/// `epochs` passes in a seeded order, weights averaged over every step.
pub fn fit(examples: &[Example], epochs: usize, seed: u64) -> Model {
    let mut model = Model {
        weights: Weights::default(),
        transitions: [[0.0; CLASSES]; CLASSES + 1],
        threshold: 0.0,
    };
    // Sums of every update times the step it came at, for the average.
    let mut stamped = Weights::default();
    let mut stamped_t = [[0f32; CLASSES]; CLASSES + 1];
    let mut step = 1f32;
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for &e in &order {
            let Example {
                features,
                gold,
                weight,
            } = &examples[e];
            let (weight, stamp) = (*weight, *weight * step);
            let guess = model.decode(features);
            if &guess != gold {
                for t in 0..gold.len() {
                    let (g, p) = (gold[t], guess[t]);
                    if g != p {
                        for h in &features[t] {
                            let w = model.weights.entry(*h).or_default();
                            w[g] += weight;
                            w[p] -= weight;
                            let s = stamped.entry(*h).or_default();
                            s[g] += stamp;
                            s[p] -= stamp;
                        }
                    }
                    let (gp, pp) = if t == 0 {
                        (CLASSES, CLASSES)
                    } else {
                        (gold[t - 1], guess[t - 1])
                    };
                    if (gp, g) != (pp, p) {
                        model.transitions[gp][g] += weight;
                        model.transitions[pp][p] -= weight;
                        stamped_t[gp][g] += stamp;
                        stamped_t[pp][p] -= stamp;
                    }
                }
            }
            step += 1.0;
        }
    }
    // The average: w - stamped / step.
    for (h, w) in model.weights.iter_mut() {
        let s = stamped[h];
        for c in 0..CLASSES {
            w[c] -= s[c] / step;
        }
    }
    for (row, s) in model.transitions.iter_mut().zip(&stamped_t) {
        for c in 0..CLASSES {
            row[c] -= s[c] / step;
        }
    }
    model
        .weights
        .retain(|_, w| w.iter().any(|x| x.abs() >= 5e-4));
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two features, each telling one class; a second class follows the first.
    fn toy() -> Vec<Example> {
        let a = Feature::new("toy").num(0).0;
        let b = Feature::new("toy").num(1).0;
        (0..6)
            .map(|k| Example {
                features: vec![vec![a], vec![b], vec![a], vec![b]],
                gold: vec![2, 3, 2, 3],
                weight: if k % 2 == 0 { 1.0 } else { 0.5 },
            })
            .collect()
    }

    #[test]
    fn a_fit_learns_the_toy_sequences_and_is_the_same_every_time() {
        let examples = toy();
        let model = fit(&examples, 4, 7);
        assert_eq!(model.decode(&examples[0].features), vec![2, 3, 2, 3]);
        assert_eq!(fit(&examples, 4, 7), model);
        assert!(model.decode(&[]).is_empty());
    }

    #[test]
    fn max_marginals_peak_on_the_viterbi_path_and_the_threshold_keeps_the_reader() {
        let examples = toy();
        let mut model = fit(&examples, 4, 7);
        let features = &examples[0].features;
        let best = model.decode(features);
        for (m, &b) in model.max_marginals(features).iter().zip(&best) {
            let top = (0..CLASSES).fold(0, |a, c| if m[c] > m[a] { c } else { a });
            assert!((m[top] - m[b]).abs() < 1e-4);
        }
        let reader = vec![1, 1, 1, 1];
        assert_eq!(model.correct(features, &reader), best);
        model.threshold = f32::INFINITY;
        assert_eq!(model.correct(features, &reader), reader);
    }

    #[test]
    fn the_text_form_round_trips_and_a_bad_file_is_named_by_line() {
        let mut model = fit(&toy(), 3, 1);
        model.threshold = 12.5;
        let text = model.to_text();
        let back = Model::from_text(&text).unwrap();
        assert_eq!(back.to_text(), text);
        assert_eq!(back.threshold, 12.5);
        assert!(Model::from_text("nonsense").unwrap_err().contains("line 1"));
        let broken = text.replacen("threshold 12.500", "threshold x", 1);
        assert!(Model::from_text(&broken).unwrap_err().contains("line 2"));
        let short = format!("{}0123 1 2\n", text);
        assert!(Model::from_text(&short)
            .unwrap_err()
            .contains("numbers expected"));
    }

    #[test]
    fn the_shipped_model_reads() {
        let model = Model::from_text(include_str!("line_model.txt")).unwrap();
        assert!(!model.is_empty());
        assert!(model.threshold > 0.0);
    }
}
