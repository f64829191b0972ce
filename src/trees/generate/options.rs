//! What a question offers: the answer format the mix needs most, the gold
//! answers, and a shortlist of distractors that are plausible (same
//! characters, similar length, close in time) and wrong for a reason the
//! story proves; the balancer picks among them.

use std::collections::BTreeSet;

use crate::graph::NodeKind;
use crate::trees::facts::pronouns::{pronouns_in, Pronoun};
use crate::trees::facts::{Ask, Facts, Verdict};
use crate::trees::schema::{DistractorReason, Format};

use super::balance::{combos, Balancer};
use super::{focus_of, Candidate, GenerateOptions, Spec};

/// A question before its distractors are picked: the format, the gold
/// answers and the plausible distractors to choose from.
#[derive(Debug, Clone)]
pub(super) struct Draft {
    pub(super) ask: Ask,
    pub(super) format: Format,
    /// Right answers to choose from (the question takes `n_gold`): which
    /// one a question names is a surface feature too.
    pub(super) golds: Vec<Candidate>,
    /// Right answers the question takes.
    pub(super) n_gold: usize,
    /// The shortlist of distractors, most plausible first.
    pub(super) wrongs: Vec<Candidate>,
    /// Distractors the question takes.
    pub(super) want: usize,
}

/// Distractors considered per question (the most plausible).
const SHORTLIST: usize = 7;

/// Right answers considered beyond those a question takes.
const GOLD_CHOICES: usize = 2;

impl Draft {
    /// Every way to pick the golds and the distractors from the
    /// shortlists, the most plausible picks first (at most 64 distractor
    /// picks in all).
    pub(super) fn specs(&self) -> Vec<Spec> {
        self.picks(usize::MAX)
    }

    /// [`Draft::specs`] with at most `per_gold` distractor picks for each
    /// pick of golds (the most plausible): a preview of what the draft can
    /// offer.
    pub(super) fn picks(&self, per_gold: usize) -> Vec<Spec> {
        let mut gold_picks: Vec<Vec<usize>> = Vec::new();
        combos(
            self.golds.len(),
            self.n_gold,
            0,
            &mut Vec::new(),
            &mut |idx: &[usize]| gold_picks.push(idx.to_vec()),
        );
        let per_gold = (64 / gold_picks.len().max(1)).max(4).min(per_gold);
        let n = self.wrongs.len();
        let mut out = Vec::new();
        for golds in &gold_picks {
            let mut taken = 0;
            combos(n, self.want, 0, &mut Vec::new(), &mut |idx: &[usize]| {
                if taken < per_gold {
                    taken += 1;
                    let mut candidates: Vec<Candidate> =
                        golds.iter().map(|&g| self.golds[g].clone()).collect();
                    candidates.extend(idx.iter().map(|&i| self.wrongs[i].clone()));
                    out.push(Spec {
                        ask: self.ask.clone(),
                        format: self.format,
                        candidates,
                    });
                }
            });
        }
        out
    }

    /// Leaves out the golds a follow-up may not give (its parent's subject
    /// or answers); `false` when too few are left.
    pub(super) fn drop_golds(&mut self, focus: &[usize]) -> bool {
        self.golds
            .retain(|c| c.node.is_none_or(|n| !focus.contains(&n)));
        self.golds.len() >= self.n_gold
    }
}

/// The index of a format in per-format counts (open, single, multi).
pub(super) fn slot(f: Format) -> usize {
    match f {
        Format::Open => 0,
        Format::Single => 1,
        Format::Multi => 2,
    }
}

/// What drafting a question reads of the trees being built.
pub(super) struct Drafting<'a, 'g> {
    pub(super) facts: &'a Facts<'g>,
    pub(super) opts: &'a GenerateOptions,
    /// Nodes written per format (open, single, multi), for the mix.
    pub(super) counts: &'a [usize; 3],
    pub(super) balance: &'a Balancer,
    /// Whether the film shows a node's evidence.
    pub(super) shown: &'a dyn Fn(usize) -> bool,
}

impl Drafting<'_, '_> {
    /// The judged answers of `ask` in the format the mix needs most; `None`
    /// when the graph offers too little to ask it. Only moments whose
    /// evidence the film shows are offered.
    pub(super) fn draft(&self, ask: &Ask) -> Option<Draft> {
        let f = self.facts;
        let mut golds = Vec::new();
        let mut wrongs = Vec::new();
        for &(i, verdict) in f.verdicts(ask).iter() {
            if !(self.shown)(i) {
                continue;
            }
            match verdict {
                Verdict::Gold => golds.push(i),
                Verdict::Wrong(r) => wrongs.push((i, r)),
                Verdict::Unusable => {}
            }
        }
        let focus = focus_of(ask);
        let subject: Vec<String> = focus.iter().map(|&m| f.gloss(m)).collect();
        if !matches!(ask, Ask::Order { .. }) {
            golds.retain(|&g| !subject.contains(&f.gloss(g)));
            wrongs.retain(|&(i, _)| !subject.contains(&f.gloss(i)));
        }
        if golds.is_empty() || wrongs.is_empty() {
            return None;
        }
        let people: BTreeSet<usize> = focus.iter().flat_map(|&m| f.people(m)).copied().collect();
        let cast = cast_of(f, &focus);
        // The gold a single answer names: the nearest in story time.
        let anchor_time = focus.first().map_or(0, |&m| f.order(m));
        golds.sort_by_key(|&g| {
            let t = f.order(g);
            match ask {
                Ask::Origin { .. } => (t, g),
                _ => (anchor_time.abs_diff(t), g),
            }
        });
        let k = self.opts.multi_options;
        // A state has one holder: "choose everyone who" would hide a single
        // answer, the speaker of the quoted line. Those involved in a line
        // are its speaker and whoever the excerpt puts beside them: asked
        // "choose every one", a reader of the cue and the excerpt's names
        // picks them all (measured: 5 of the sample film's 22 multiple-choice
        // questions, all answered by the learned context reader).
        let multi_count = match ask {
            Ask::Order { .. } | Ask::Holder { .. } | Ask::Participants { .. } => None,
            // A link between moments puts its one gold next to its target
            // in the excerpt: asked "choose every one", a single gold is the
            // one a reader of positions picks, so such asks take two or more.
            Ask::Cause { .. } | Ask::Effect { .. } | Ask::Origin { .. } => {
                self.balance.multi_count(
                    k,
                    (2..k).filter(|&c| c <= golds.len() && k - c <= wrongs.len()),
                )
            }
            _ => self.balance.multi_count(
                k,
                (1..k).filter(|&c| c <= golds.len() && k - c <= wrongs.len()),
            ),
        };
        let mut formats = vec![Format::Single, Format::Open];
        if multi_count.is_some() {
            formats.push(Format::Multi);
        }
        if matches!(ask, Ask::Order { .. }) {
            formats = vec![Format::Single];
        }
        // "Who holds this": the speaker cue above the quoted line often
        // names the holder, so once that reader is ahead the question is
        // asked open.
        if matches!(ask, Ask::Holder { .. }) && self.balance.ahead("speaker-cue") {
            formats = vec![Format::Open];
        }
        let total: usize = self.counts.iter().sum::<usize>() + 1;
        let share = |x: Format| match x {
            Format::Open => self.opts.mix.open,
            Format::Single => self.opts.mix.single,
            Format::Multi => self.opts.mix.multi,
        };
        let format = formats
            .iter()
            .copied()
            .max_by(|&a, &b| {
                let da = share(a) * total as f64 - self.counts[slot(a)] as f64;
                let db = share(b) * total as f64 - self.counts[slot(b)] as f64;
                da.total_cmp(&db).then(slot(b).cmp(&slot(a)))
            })
            .expect("at least one format");
        let (n_gold, n_opts) = match format {
            Format::Single => (1, self.opts.single_options),
            Format::Multi => (multi_count.unwrap_or(1), k),
            Format::Open => match ask {
                Ask::Participants { .. } => (golds.len().min(3), golds.len().min(3) + 1),
                _ => (1, 2),
            },
        };
        let want = n_opts.saturating_sub(n_gold).max(1);
        if !matches!(ask, Ask::Order { .. }) && wrongs.len() < want {
            return None;
        }
        let gold_text: Vec<String> = golds[..n_gold]
            .iter()
            .map(|&g| text_of(f, ask, g))
            .collect();
        let gold_len = gold_text.iter().map(|t| t.chars().count()).sum::<usize>() / n_gold;
        // Distractors sit where the golds sit: on the same side of the
        // asked moment in story time (so the excerpt's order does not tell
        // them apart), then plausible first: a character in the scene,
        // sharing a character with the question, close in length to the
        // gold, close in time. The balancer then picks among the shortlist
        // what keeps every surface feature at chance.
        let before = |i: usize| f.order(i) < anchor_time;
        let golds_before = golds[..n_gold].iter().filter(|&&g| before(g)).count();
        let side = |i: usize| {
            if golds_before * 2 == n_gold {
                false
            } else {
                before(i) != (golds_before * 2 > n_gold)
            }
        };
        wrongs.sort_by_cached_key(|&(i, _)| {
            let shares = f.people(i).intersection(&people).next().is_some() || people.contains(&i);
            let len = text_of(f, ask, i).chars().count();
            (
                // a character who is in the scene, so the name alone does not tell
                f.node(i).kind == NodeKind::Character && !cast.contains(&i),
                f.node(i).kind != NodeKind::Character && side(i),
                !shares,
                len.abs_diff(gold_len) / 24,
                f.order(i).abs_diff(anchor_time),
                i,
            )
        });
        // One of each reason first among those on the golds' side, so
        // distractors are wrong in different ways.
        let mut ordered: Vec<(usize, DistractorReason)> = Vec::new();
        let mut reasons = BTreeSet::new();
        for &(i, r) in &wrongs {
            if !side(i) && reasons.insert(r) {
                ordered.push((i, r));
            }
        }
        for &w in &wrongs {
            if !ordered.contains(&w) {
                ordered.push(w);
            }
        }
        // A few more right answers to choose from than the question takes
        // (the nearest in time is not always the one named).
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let golds: Vec<Candidate> = golds
            .iter()
            .map(|&g| Candidate {
                node: Some(g),
                character: None,
                text: text_of(f, ask, g),
                verdict: Verdict::Gold,
            })
            .filter(|c| seen.insert(c.text.trim().to_lowercase()))
            .take(n_gold + GOLD_CHOICES)
            .collect();
        if golds.len() < n_gold {
            return None;
        }
        let wrongs: Vec<Candidate> = ordered
            .into_iter()
            .map(|(i, r)| Candidate {
                node: Some(i),
                character: None,
                text: text_of(f, ask, i),
                verdict: Verdict::Wrong(r),
            })
            .filter(|c| !pronoun_gives_away(f, ask, c))
            .filter(|c| seen.insert(c.text.trim().to_lowercase()))
            .take(SHORTLIST.max(want))
            .collect();
        if wrongs.len() < want {
            return None;
        }
        Some(Draft {
            ask: ask.clone(),
            format,
            golds,
            n_gold,
            wrongs,
            want,
        })
    }
}

/// The text of a node as an option: a character's name, a moment's gloss.
fn text_of(f: &Facts<'_>, ask: &Ask, i: usize) -> String {
    // Asked what a character knows, or which belief is false, every option
    // says "knows" (or "believes") with its content: what the character
    // only believes, or does not know, offered as known is the distractor.
    let claimed = match ask {
        Ask::KnowsAt { character, .. } => Some((*character, "knows")),
        Ask::FalseBelief { character, .. } => Some((*character, "believes")),
        _ => None,
    };
    if let Some((character, verb)) = claimed {
        if f.node(i).kind == NodeKind::MentalState {
            return f.claim(i, f.first_name(character), verb);
        }
    }
    if let Some(character) = ask.character() {
        if f.node(i).kind == NodeKind::MentalState {
            // A sentence with its subject: the asked character, whoever
            // really holds the state ("Quinton suspects …" for Teo's
            // suspicion is the distractor).
            let name = f.first_name(character);
            return match f.without_holder(i) {
                Some(rest) => {
                    let holder = f.holder(i).map(|h| f.first_name(h));
                    format!("{name} {}", swap_name(&rest, name, holder))
                }
                None => f.statement_as(i, name),
            };
        }
    }
    if f.node(i).kind == NodeKind::Character {
        f.name(i).to_owned()
    } else {
        f.gloss(i)
    }
}

/// Whether another's state said of the asked character keeps a pronoun
/// that is not theirs ("Mara feels fear: Fear is doing his thinking for
/// him now."): a reader of pronouns would strike it without reading the
/// film. Kept only where the narration's pronouns are known to fit.
fn pronoun_gives_away(f: &Facts<'_>, ask: &Ask, c: &Candidate) -> bool {
    let Some(character) = ask.character() else {
        return false;
    };
    let Some(i) = c.node else {
        return false;
    };
    if f.holder(i).is_none_or(|h| h == character) {
        return false;
    }
    let Some((_, told)) = c.text.split_once(": ") else {
        return false;
    };
    !matches!(
        (pronouns_in(told), f.pronoun(character)),
        ((0, 0), _) | ((_, 0), Some(Pronoun::He)) | ((0, _), Some(Pronoun::She))
    )
}

/// Another character's state said of `name` (see [`text_of`]): where it
/// names `name` itself, the real holder takes that place, so "Teo lies to
/// Mara" said of Mara reads "Mara lies to Teo", not "Mara lies to Mara".
fn swap_name(rest: &str, name: &str, holder: Option<&str>) -> String {
    let Some(holder) = holder.filter(|h| *h != name) else {
        return rest.to_owned();
    };
    let mut out = String::with_capacity(rest.len());
    let mut word = String::new();
    // Quoted words are the film's own and stay as they are, and so is what
    // follows the colon ("sees: Quinton's hand slides…" is the film's line).
    let mut quoted = false;
    let mut told = false;
    for c in rest.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        out.push_str(if word == name && !quoted && !told {
            holder
        } else {
            &word
        });
        word.clear();
        match c {
            '“' => quoted = true,
            '”' => quoted = false,
            '"' => quoted = !quoted,
            ':' => told = true,
            _ => {}
        }
        out.push(c);
    }
    out.pop();
    out
}

/// The characters of the scenes of these moments.
fn cast_of(f: &Facts<'_>, focus: &[usize]) -> BTreeSet<usize> {
    let scenes: BTreeSet<usize> = focus.iter().filter_map(|&m| f.node(m).scene).collect();
    f.moments
        .iter()
        .filter(|&&m| f.node(m).scene.is_some_and(|s| scenes.contains(&s)))
        .flat_map(|&m| f.people(m))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Attitude, Graph, Node};

    #[test]
    fn another_characters_state_keeping_a_pronoun_not_the_asked_ones_is_no_distractor() {
        assert_eq!(
            pronouns_in("Fear is doing his thinking for him now."),
            (2, 0)
        );
        // A quoted line's pronouns are the speaker's, about someone else.
        assert_eq!(pronouns_in("“He knew I'd never open it”, she says"), (0, 1));
        let state = |id: &str, who: &str, name: &str| {
            let mut n = Node::new(id, NodeKind::MentalState, name);
            n.attitude = Some(Attitude::Emotion);
            n.holder = Some(who.into());
            n
        };
        let g = Graph {
            film: "f".into(),
            edges: Vec::new(),
            nodes: vec![
                Node::new("character:mara", NodeKind::Character, "Mara Ellis"),
                Node::new("character:quinton", NodeKind::Character, "Quinton Ellis"),
                Node::new("character:teo", NodeKind::Character, "Teo"),
                state(
                    "mental_state:q",
                    "character:quinton",
                    "Quinton: Quinton feels fear: Fear is doing his thinking for him now.",
                ),
                state(
                    "mental_state:m",
                    "character:mara",
                    "Mara: Mara feels guilt: Guilt has caught up with her.",
                ),
                state(
                    "mental_state:t",
                    "character:teo",
                    "Teo: Teo feels uneasy: “I hate surprises.”",
                ),
            ],
        };
        let f = Facts::new(&g);
        let at = |id: &str| f.index_of(id).unwrap();
        assert_eq!(f.pronoun(at("character:quinton")), Some(Pronoun::He));
        assert_eq!(f.pronoun(at("character:mara")), Some(Pronoun::She));
        // Teo's sight of Quinton's hand says nothing of Teo.
        assert_eq!(f.pronoun(at("character:teo")), None);
        let asked = |character: &str, state: &str| {
            let ask = Ask::MindBefore {
                character: at(character),
                moment: at("mental_state:t"),
            };
            let c = Candidate {
                node: Some(at(state)),
                character: None,
                text: text_of(&f, &ask, at(state)),
                verdict: Verdict::Gold,
            };
            pronoun_gives_away(&f, &ask, &c)
        };
        // "Mara feels fear: Fear is doing his thinking…" tells itself apart.
        assert!(asked("character:mara", "mental_state:q"));
        assert!(asked("character:quinton", "mental_state:m"));
        // Without pronouns, or with the asked one's own, it is a distractor.
        assert!(!asked("character:mara", "mental_state:t"));
        assert!(!asked("character:quinton", "mental_state:q"));
        // Teo's pronoun is unknown: a gendered line is not risked.
        assert!(asked("character:teo", "mental_state:q"));
    }

    #[test]
    fn another_characters_state_said_of_the_asked_one_names_the_holder_in_its_place() {
        assert_eq!(
            swap_name(
                "lies to Mara: “I remember the splash.”",
                "Mara",
                Some("Teo")
            ),
            "lies to Teo: “I remember the splash.”"
        );
        // A quotation is the film's own words: never edited.
        assert_eq!(
            swap_name("realizes: “Mara found it.”", "Mara", Some("Quinton")),
            "realizes: “Mara found it.”"
        );
        // Only the whole name: "Maraschino" stays.
        assert_eq!(
            swap_name("wants the Maraschino cherries", "Mara", Some("Teo")),
            "wants the Maraschino cherries"
        );
        assert_eq!(swap_name("feels uneasy", "Mara", None), "feels uneasy");
        // An action line after the colon is the film's too ("Quinton sees:
        // June's hand slides into his pocket" misquoted the script).
        assert_eq!(
            swap_name(
                "sees: Quinton's hand slides into his pocket",
                "Quinton",
                Some("June")
            ),
            "sees: Quinton's hand slides into his pocket"
        );
    }
}
