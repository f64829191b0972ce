//! Hard synthetic alignment cases with gold, generated from any screenplay.
//!
//! From the script's dialogue, [`synth`] writes subtitles the way a film
//! departs from its script, deterministically from a seed: lines cut,
//! lines reworded (a word dropped, a word replaced by a near-synonym, a
//! filler added) or paraphrased (synonyms, contractions, dropped fillers,
//! clauses swapped), short neighbouring lines merged into one cue, long lines
//! split over two or three cues, ad-lib cues inserted, and optionally one
//! scene moved to a later place in the edit. Cue times are laid out in film
//! order. The gold mapping has the shape of `alignment_gold.json`.
//!
//! For the "unrelated script" case, align a case's subtitles with a different
//! screenplay: every line must stay unmatched and the verdict be `mismatch`.

use std::fmt::Write as _;

use super::eval::{Gold, GoldLine, GoldScene};
use crate::media::subtitles::{self, normalize_for_matching, SubtitleFormat, Subtitles};
use crate::screenplay::{ElementKind, Screenplay};

/// Rates and switches of [`synth`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthOptions {
    /// Seed of the deterministic generator.
    pub seed: u64,
    /// Share of lines cut from the film.
    pub cut: f64,
    /// Share of lines reworded.
    pub reword: f64,
    /// Share of lines paraphrased: every known synonym swapped, contractions
    /// made or undone, opening fillers dropped, two clauses put the other
    /// way round (where a sentence embedding should help and words do not).
    pub paraphrase: f64,
    /// Share of (short) lines merged with the next line into one cue.
    pub merge: f64,
    /// Share of (long enough) lines split over two cues.
    pub split: f64,
    /// Chance of an ad-lib cue before a line.
    pub adlib: f64,
    /// Move one scene later in the edit.
    pub move_scene: bool,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            seed: 1,
            cut: 0.05,
            reword: 0.2,
            paraphrase: 0.0,
            merge: 0.08,
            split: 0.1,
            adlib: 0.04,
            move_scene: true,
        }
    }
}

/// A generated case: subtitles (and their SRT text) with gold.
#[derive(Debug, Clone)]
pub struct SynthCase {
    /// The generated SRT file.
    pub srt: String,
    /// The SRT parsed.
    pub subtitles: Subtitles,
    /// Gold mapping (cue numbers 1-based).
    pub gold: Gold,
    /// The scene moved in the edit, if any.
    pub moved_scene: Option<usize>,
}

/// SplitMix64: a small deterministic generator (the crate's one, drawn here
/// with [`Rng::below_mod`]).
pub use crate::util::rng::SplitMix64 as Rng;

const SYNONYMS: &[(&str, &str)] = &[
    ("yes", "yeah"),
    ("okay", "ok"),
    ("think", "guess"),
    ("maybe", "perhaps"),
    ("little", "small"),
    ("big", "huge"),
    ("know", "see"),
    ("just", "only"),
    ("really", "truly"),
    ("good", "fine"),
    ("come", "get"),
    ("going", "heading"),
    ("said", "told"),
    ("want", "need"),
    ("look", "see"),
];

const FILLERS: &[&str] = &["well", "look", "listen", "so", "oh", "right"];

const ADLIBS: &[&str] = &[
    "Morning, morning.",
    "Hey, hey, watch it.",
    "Come on, come on...",
    "Mind the step, love.",
    "Right, then.",
    "Evening, all.",
    "Over here!",
    "Careful now.",
];

fn reword(words: &mut Vec<String>, rng: &mut Rng) {
    match rng.below_mod(3) {
        0 if words.len() >= 5 => {
            let i = rng.below_mod(words.len());
            words.remove(i);
        }
        1 => {
            if let Some(i) = words.iter().position(|w| {
                let lw = w.to_lowercase();
                SYNONYMS
                    .iter()
                    .any(|(a, _)| lw.trim_matches(|c: char| !c.is_alphanumeric()) == *a)
            }) {
                let lw = words[i].to_lowercase();
                let bare = lw.trim_matches(|c: char| !c.is_alphanumeric()).to_owned();
                let to = SYNONYMS
                    .iter()
                    .find(|(a, _)| *a == bare)
                    .map(|(_, b)| *b)
                    .unwrap_or("");
                words[i] = to.to_owned();
            } else {
                words.insert(0, format!("{},", FILLERS[rng.below_mod(FILLERS.len())]));
            }
        }
        _ => words.insert(0, format!("{},", FILLERS[rng.below_mod(FILLERS.len())])),
    }
}

/// Word pairs a paraphrase swaps either way (a superset of [`SYNONYMS`]).
const PARAPHRASES: &[(&str, &str)] = &[
    ("yes", "yeah"),
    ("okay", "alright"),
    ("think", "reckon"),
    ("maybe", "perhaps"),
    ("little", "small"),
    ("big", "large"),
    ("just", "only"),
    ("really", "truly"),
    ("good", "fine"),
    ("going", "heading"),
    ("said", "told"),
    ("want", "wish"),
    ("look", "see"),
    ("quickly", "fast"),
    ("begin", "start"),
    ("car", "vehicle"),
    ("house", "home"),
    ("scared", "afraid"),
    ("angry", "mad"),
    ("buy", "purchase"),
    ("find", "locate"),
    ("help", "assist"),
    ("talk", "speak"),
    ("wrong", "mistaken"),
    ("money", "cash"),
    ("kid", "child"),
    ("dad", "father"),
    ("mom", "mother"),
    ("gone", "away"),
    ("now", "right now"),
];

/// Contractions a paraphrase makes or undoes.
const CONTRACTIONS: &[(&str, &str)] = &[
    ("do not", "don't"),
    ("does not", "doesn't"),
    ("did not", "didn't"),
    ("is not", "isn't"),
    ("are not", "aren't"),
    ("was not", "wasn't"),
    ("cannot", "can't"),
    ("will not", "won't"),
    ("i am", "i'm"),
    ("you are", "you're"),
    ("we are", "we're"),
    ("they are", "they're"),
    ("it is", "it's"),
    ("that is", "that's"),
    ("i will", "i'll"),
    ("i have", "i've"),
    ("let us", "let's"),
];

/// A paraphrase of a line: the same meaning in other words (see
/// [`SynthOptions::paraphrase`]). Deterministic given `rng`.
fn paraphrase(text: &str, rng: &mut Rng) -> String {
    let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
    // Opening fillers go.
    while words.len() > 3 {
        let first = words[0].to_lowercase();
        let bare = first.trim_matches(|c: char| !c.is_alphanumeric());
        if ["well", "oh", "look", "listen", "so", "um", "uh", "hey"].contains(&bare)
            && first.ends_with(',')
        {
            words.remove(0);
        } else {
            break;
        }
    }
    // Every known synonym, either way.
    for w in words.iter_mut() {
        let lw = w.to_lowercase();
        let start = lw.find(|c: char| c.is_alphanumeric()).unwrap_or(0);
        let end = lw.rfind(|c: char| c.is_alphanumeric()).map_or(0, |i| i + 1);
        if start >= end {
            continue;
        }
        let bare = &lw[start..end];
        let to = PARAPHRASES.iter().find_map(|&(a, b)| {
            (a == bare)
                .then_some(b)
                .or_else(|| (b == bare).then_some(a))
        });
        if let Some(to) = to {
            *w = format!("{}{to}{}", &lw[..start], &lw[end..]);
        }
    }
    let mut line = words.join(" ");
    // Contractions made (or undone) where they fit.
    let lower = line.to_lowercase();
    for &(long, short) in CONTRACTIONS {
        let (from, to) = if rng.below_mod(2) == 0 {
            (long, short)
        } else {
            (short, long)
        };
        if let Some(at) = find_word(&lower, from) {
            // `I` stays a capital, and so does a sentence's first letter.
            let capital = line[at..].starts_with(char::is_uppercase);
            let to = if capital || to.starts_with("i'") || to.starts_with("i ") {
                let mut c = to.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            } else {
                to.to_owned()
            };
            line = format!("{}{to}{}", &line[..at], &line[at + from.len()..]);
            break;
        }
    }
    // Two clauses the other way round: `A, B.` → `B, a.`
    if let Some(comma) = line.find(", ") {
        let (a, b) = (&line[..comma], &line[comma + 2..]);
        let end = b.trim_end_matches(['.', '!', '?']);
        let stop = &b[end.len()..];
        if a.split(' ').count() >= 3 && end.split(' ').count() >= 3 {
            let mut b_first = end.chars();
            let b_cap: String = b_first
                .next()
                .map(|c| c.to_uppercase().chain(b_first).collect())
                .unwrap_or_default();
            let a_low = match a.split_once(' ') {
                Some((w, rest)) if w != "I" && !w.starts_with("I'") => {
                    format!("{} {rest}", w.to_lowercase())
                }
                _ => a.to_owned(),
            };
            line = format!("{b_cap}, {a_low}{stop}");
        }
    }
    line
}

/// Byte offset of `phrase` in `text` as whole words (both lower case).
fn find_word(text: &str, phrase: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(phrase) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '\'');
        if edge(before) && edge(after) {
            return Some(at);
        }
        from = at + phrase.len();
    }
    None
}

/// Generates a case from `play`'s dialogue (see the module docs).
pub fn synth(play: &Screenplay, opts: &SynthOptions) -> SynthCase {
    let mut rng = Rng::new(opts.seed);
    let dialogue: Vec<(usize, Option<usize>)> = play
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Dialogue)
        .map(|e| (0, e.scene))
        .enumerate()
        .map(|(i, (_, s))| (i, s))
        .collect();
    let texts: Vec<String> = play
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Dialogue)
        .map(|e| e.text.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    // Cues per scene (in script order): (text, lines it carries).
    let scene_of = |s: Option<usize>| s.map_or(0, |s| s + 1);
    let scene_count = play.scenes.len() + 1;
    let mut scene_cues: Vec<Vec<(String, Vec<usize>)>> = vec![Vec::new(); scene_count];
    let mut status = vec![String::from("verbatim"); texts.len()];
    let mut i = 0;
    while i < texts.len() {
        let sc = scene_of(dialogue[i].1);
        let out = &mut scene_cues[sc];
        if normalize_for_matching(&texts[i]).text.is_empty() || rng.unit() < opts.cut {
            status[i] = "line_cut".into();
            i += 1;
            continue;
        }
        if rng.unit() < opts.adlib {
            out.push((ADLIBS[rng.below_mod(ADLIBS.len())].to_owned(), Vec::new()));
        }
        let mut words: Vec<String> = texts[i].split(' ').map(str::to_owned).collect();
        if rng.unit() < opts.reword {
            reword(&mut words, &mut rng);
            status[i] = "reworded".into();
        }
        // Drawn only when asked for, so the other cases keep their draws.
        if opts.paraphrase > 0.0 && rng.unit() < opts.paraphrase {
            words = paraphrase(&words.join(" "), &mut rng)
                .split(' ')
                .map(str::to_owned)
                .collect();
            status[i] = "reworded".into();
        }
        let next_ok = i + 1 < texts.len()
            && scene_of(dialogue[i + 1].1) == sc
            && !normalize_for_matching(&texts[i + 1]).text.is_empty();
        if next_ok
            && words.len() <= 8
            && texts[i + 1].split(' ').count() <= 8
            && rng.unit() < opts.merge
        {
            out.push((
                format!("{} - {}", words.join(" "), texts[i + 1]),
                vec![i, i + 1],
            ));
            status[i] = "merged".into();
            status[i + 1] = "merged".into();
            i += 2;
            continue;
        }
        let pieces = if words.len() >= 24 {
            3
        } else if words.len() >= 14 || (words.len() >= 8 && rng.unit() < opts.split) {
            2
        } else {
            1
        };
        if pieces > 1 && status[i] == "verbatim" {
            status[i] = "split".into();
        }
        let per = words.len().div_ceil(pieces);
        for chunk in words.chunks(per) {
            out.push((chunk.join(" "), vec![i]));
        }
        i += 1;
    }
    // Move one scene later in the edit.
    let mut order: Vec<usize> = (0..scene_count).collect();
    let mut moved_scene = None;
    if opts.move_scene && scene_count > 6 {
        let candidates: Vec<usize> = (2..scene_count - 3)
            .filter(|&s| scene_cues[s].iter().filter(|c| !c.1.is_empty()).count() >= 3)
            .collect();
        if !candidates.is_empty() {
            let s = candidates[rng.below_mod(candidates.len())];
            let to = (s + 2 + rng.below_mod(3)).min(scene_count - 1);
            order.remove(s);
            order.insert(to, s);
            moved_scene = Some(s - 1);
        }
    }
    // Lay out times and number cues.
    let mut srt = String::new();
    let mut gold_cues: Vec<Vec<usize>> = vec![Vec::new(); texts.len()];
    let mut adlibs = Vec::new();
    let mut scenes = vec![
        GoldScene {
            index: 0,
            start_ms: None,
            end_ms: None,
        };
        play.scenes.len()
    ];
    let mut t: u64 = 5_000;
    let mut number = 0;
    let stamp = |ms: u64| subtitles::format_ms(ms).replace('.', ",");
    for &sc in &order {
        if scene_cues[sc].is_empty() {
            continue;
        }
        let scene_start = t;
        t += 1_500;
        for (text, lines) in &scene_cues[sc] {
            number += 1;
            let dur = 900 + 280 * text.split(' ').count() as u64;
            let _ = write!(
                srt,
                "{number}\n{} --> {}\n{text}\n\n",
                stamp(t),
                stamp(t + dur)
            );
            t += dur + 300 + rng.below_mod(1_200) as u64;
            if lines.is_empty() {
                adlibs.push(number);
            }
            for &l in lines {
                gold_cues[l].push(number);
            }
        }
        t += 1_500;
        if sc > 0 {
            scenes[sc - 1] = GoldScene {
                index: sc - 1,
                start_ms: Some(scene_start),
                end_ms: Some(t),
            };
        }
    }
    for (k, s) in scenes.iter_mut().enumerate() {
        s.index = k;
    }
    let subtitles = subtitles::read(&srt, SubtitleFormat::Srt);
    let gold = Gold {
        dialogue: gold_cues
            .into_iter()
            .enumerate()
            .map(|(index, cues)| GoldLine {
                index,
                status: status[index].clone(),
                cues,
            })
            .collect(),
        adlib_cues: adlibs,
        scenes,
    };
    SynthCase {
        srt,
        subtitles,
        gold,
        moved_scene,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paraphrase_swaps_synonyms_contractions_fillers_and_clauses() {
        let mut rng = Rng::new(3);
        let p = paraphrase(
            "Well, I think the car is gone, we should find a little house.",
            &mut rng,
        );
        assert!(!p.to_lowercase().starts_with("well"), "{p}");
        for (from, to) in [("think", "reckon"), ("car", "vehicle"), ("little", "small")] {
            assert!(p.contains(to) && !p.contains(&format!(" {from} ")), "{p}");
        }
        // The clauses swapped round the comma, the stop kept at the end.
        assert!(p.starts_with("We should locate"), "{p}");
        assert!(p.ends_with('.'), "{p}");
        // The same seed, the same paraphrase.
        let again = paraphrase(
            "Well, I think the car is gone, we should find a little house.",
            &mut Rng::new(3),
        );
        assert_eq!(p, again);
        assert_eq!(find_word("it is. it isn't", "it is"), Some(0));
        assert_eq!(find_word("bit is", "it is"), None);
    }

    #[test]
    fn paraphrasing_nothing_leaves_the_default_cases_as_they_were() {
        let play = crate::screenplay::parse_text(
            "INT. A - DAY\n\nMARA\nWell, I think the car is gone, we should go.\n\nTEO\nNo.\n",
            Some(crate::screenplay::Format::Fountain),
            None,
        )
        .unwrap();
        let a = synth(&play, &SynthOptions::default());
        let b = synth(
            &play,
            &SynthOptions {
                paraphrase: 1.0,
                ..SynthOptions::default()
            },
        );
        assert_ne!(a.srt, b.srt);
        assert_eq!(a.srt, synth(&play, &SynthOptions::default()).srt);
    }

    #[test]
    fn rng_is_deterministic() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        assert!((0..100).all(|_| a.unit() < 1.0));
    }
}
