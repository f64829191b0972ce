//! Who is who: characters mentioned in the block, the latest character a
//! pronoun refers to, a character's display name, and a line's speaker and
//! addressee.

use super::Extractor;
use crate::graph::generate::cast::pronoun_gender;
use crate::graph::schema::*;
use crate::screenplay::ElementKind;
use crate::text::spans::Span;

impl Extractor<'_, '_> {
    pub(super) fn mention(&mut self, id: &str, ev: Evidence) {
        let m = self.cast.by_id(id).cloned();
        let name = m.map(|m| m.display).unwrap_or_else(|| id.to_owned());
        let mut node = Node::new(id, NodeKind::Character, name);
        node.evidence = vec![ev];
        self.add_node(node, "character named in the block");
        self.recent.retain(|r| r != id);
        self.recent.push(id.to_owned());
    }

    /// The characters a sentence names only after word `at` (for a pronoun
    /// at `at`, who it cannot mean).
    pub(super) fn named_only_after(&self, ws: &[Span], at: usize) -> Vec<String> {
        let named = |range: &[Span]| -> Vec<String> {
            range
                .iter()
                .filter_map(|w| self.cast.named(&w.text).map(|m| m.id.clone()))
                .collect()
        };
        let before = named(&ws[..at.min(ws.len())]);
        named(&ws[(at + 1).min(ws.len())..])
            .into_iter()
            .filter(|id| !before.contains(id))
            .collect()
    }

    /// The character a he or she means, not one in `exclude`: the most
    /// recent one known to be of the pronoun's gender, else the most recent
    /// one whose gender the script never shows.
    pub(super) fn resolve(&self, pronoun: &str, exclude: &[&str]) -> Option<String> {
        let gender = pronoun_gender(pronoun)?;
        let gender_of = |id: &str| self.cast.by_id(id).and_then(|m| m.gender);
        let candidates = || {
            self.recent
                .iter()
                .rev()
                .filter(|id| !exclude.contains(&id.as_str()))
        };
        candidates()
            .find(|id| gender_of(id) == Some(gender))
            .or_else(|| candidates().find(|id| gender_of(id).is_none()))
            .cloned()
    }

    /// A narrated he or she: the most recent character known to be of its
    /// gender; else the one character of that gender on stage in the block
    /// (its speakers and the characters its action names, before or after:
    /// `She laughs` opening a scene whose woman is named later); else the
    /// most recent one whose gender the script never shows. Nobody when
    /// none of these fits (the generator does not guess between two).
    pub(super) fn resolve_narrated(&self, pronoun: &str, exclude: &[&str]) -> Option<String> {
        let gender = pronoun_gender(pronoun)?;
        let gender_of = |id: &str| self.cast.by_id(id).and_then(|m| m.gender);
        let recent = || {
            self.recent
                .iter()
                .rev()
                .filter(|id| !exclude.contains(&id.as_str()))
        };
        if let Some(known) = recent().find(|id| gender_of(id) == Some(gender)) {
            return Some(known.clone());
        }
        if let Some(on_stage) = self.only_one_on_stage(gender, exclude) {
            return Some(on_stage);
        }
        recent().find(|id| gender_of(id).is_none()).cloned()
    }

    /// The one character on stage in the block known to be of `gender`
    /// (not in `exclude`), if exactly one is.
    fn only_one_on_stage(
        &self,
        gender: crate::graph::generate::cast::Gender,
        exclude: &[&str],
    ) -> Option<String> {
        let fits: Vec<&String> = self
            .block_cast
            .iter()
            .filter(|id| {
                !exclude.contains(&id.as_str())
                    && self.cast.by_id(id).and_then(|m| m.gender) == Some(gender)
            })
            .collect();
        match fits.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// The person a word refers to: a name, `I`/`me` (the speaker), `you` (the
    /// addressee) or a personal pronoun (the latest character of its gender).
    pub(super) fn person(
        &self,
        ws: &[Span],
        lower: &[String],
        j: usize,
        speaker: Option<&str>,
        addressee: Option<&str>,
        exclude: &[&str],
    ) -> Option<String> {
        let w = lower.get(j)?.as_str();
        let base = w.split('\'').next().unwrap_or(w);
        match base {
            "i" | "me" => speaker.map(str::to_owned),
            "you" => addressee.map(str::to_owned),
            "he" | "she" | "him" | "her" if speaker.is_none() => {
                self.resolve_narrated(base, exclude)
            }
            "he" | "she" | "him" | "her" => self.resolve(base, exclude),
            _ => self.cast.named(&ws[j].text).map(|m| m.id.clone()),
        }
    }

    pub(super) fn display(&self, id: &str) -> String {
        self.cast
            .by_id(id)
            .map(|m| m.display.clone())
            .unwrap_or_else(|| id.trim_start_matches("character:").to_owned())
    }

    pub(super) fn speaker_at(&self, element: usize) -> Option<String> {
        self.speakers
            .iter()
            .find(|(i, _)| *i == element)
            .map(|(_, s)| s.clone())
    }

    /// Whether the speech at `element` is a narrating voice-over: its cue
    /// is `(V.O.)` and it stands outside any exchange — neither the element
    /// before its cue nor the one after the speech is part of a dialogue
    /// (`AUGUSTA (V.O.)` telling the film between two scenes, not a voice on
    /// the phone answering someone).
    pub(super) fn narrating(&self, element: usize) -> bool {
        let elements = &self.ctx.play.elements;
        let in_exchange = |e: Option<&crate::screenplay::Element>| {
            e.is_some_and(|e| {
                matches!(
                    e.kind,
                    ElementKind::Character | ElementKind::Dialogue | ElementKind::Parenthetical
                )
            })
        };
        let mut cue = element;
        while cue > 0 && elements[cue].kind != ElementKind::Character {
            cue -= 1;
        }
        let Some(c) = elements
            .get(cue)
            .filter(|e| e.kind == ElementKind::Character)
        else {
            return false;
        };
        if !c
            .extension
            .as_deref()
            .is_some_and(|x| x.to_uppercase().replace('.', "").contains("VO"))
        {
            return false;
        }
        let mut end = element;
        while elements
            .get(end + 1)
            .is_some_and(|e| matches!(e.kind, ElementKind::Dialogue | ElementKind::Parenthetical))
        {
            end += 1;
        }
        !in_exchange(cue.checked_sub(1).and_then(|k| elements.get(k)))
            && !in_exchange(elements.get(end + 1))
    }

    /// Who a line is said to: the one the script names (a `(to Bev)`
    /// parenthetical, the line calling them by name, or the action just
    /// before it: `Gus looks at Bev.`); else the nearest other speaker
    /// before the line, else after it.
    pub(super) fn addressee(&self, element: usize, speaker: &str) -> Option<String> {
        if let Some(named) = self.named_addressee(element, speaker) {
            return Some(named);
        }
        let before = self
            .speakers
            .iter()
            .rev()
            .filter(|(i, s)| *i < element && s != speaker)
            .map(|(_, s)| s.clone())
            .next();
        before.or_else(|| {
            self.speakers
                .iter()
                .filter(|(i, s)| *i > element && s != speaker)
                .map(|(_, s)| s.clone())
                .next()
        })
    }

    /// The addressee the script itself names for a dialogue element: its
    /// parenthetical `(to X)`, a vocative (`Gus, …`, `Mrs. Kettering. …`,
    /// `…, Roz.`), or the action right before its cue where the speaker
    /// looks at, turns to or speaks to X.
    fn named_addressee(&self, element: usize, speaker: &str) -> Option<String> {
        let elements = &self.ctx.play.elements;
        let other = |word: &str| {
            self.cast
                .named(word.trim_matches(|c: char| !c.is_alphanumeric()))
                .map(|m| m.id.clone())
                .filter(|id| id != speaker)
        };
        // Walk back over this speech's parentheticals to its cue, and one
        // element more: the action before the cue.
        let mut k = element;
        while k > 0 {
            k -= 1;
            let e = elements.get(k)?;
            match e.kind {
                ElementKind::Parenthetical | ElementKind::Dialogue => {
                    if e.kind == ElementKind::Parenthetical {
                        if let Some(to) = to_whom(&e.text).and_then(other) {
                            return Some(to);
                        }
                    }
                }
                ElementKind::Character => break,
                _ => return None,
            }
        }
        if let Some(called) = vocative(&elements.get(element)?.text).and_then(other) {
            return Some(called);
        }
        let before = elements.get(k.checked_sub(1)?)?;
        if before.kind != ElementKind::Action {
            return None;
        }
        let ws: Vec<&str> = before.text.split_whitespace().collect();
        let speaker_at = ws.iter().position(|w| {
            self.cast
                .named(w.trim_matches(|c: char| !c.is_alphanumeric()))
                .is_some_and(|m| m.id == speaker)
        })?;
        ws.windows(2)
            .skip(speaker_at + 1)
            .take(4)
            .find(|pair| matches!(pair[0], "at" | "to"))
            .and_then(|pair| other(pair[1]))
    }

    /// A content with its persons spelled out, so that it reads alone:
    /// `I`/`me`/`my` become the speaker, `you`/`your` the addressee, and
    /// he/she/him/her the holder when the gender fits (a clause's pronoun
    /// mostly means its subject: "Mara believes she has…"), else the latest
    /// character of that gender other than the speaker and addressee. A
    /// pronoun nobody fits stays as written.
    pub(super) fn spell_out(
        &self,
        text: &str,
        speaker: Option<&str>,
        addressee: Option<&str>,
        holder: &str,
    ) -> String {
        self.spell_out_with(text, speaker, addressee, holder, true)
    }

    /// [`Self::spell_out`] for what someone wants or means to happen: its
    /// verbs stay as written (`wishes that Anna ask Ben properly`, not
    /// `asks`).
    pub(super) fn spell_out_wished(
        &self,
        text: &str,
        speaker: Option<&str>,
        addressee: Option<&str>,
        holder: &str,
    ) -> String {
        self.spell_out_with(text, speaker, addressee, holder, false)
    }

    /// [`Self::spell_out`], with the verb after a spelled-out `I` or `you`
    /// put in the third person when `agree`.
    fn spell_out_with(
        &self,
        text: &str,
        speaker: Option<&str>,
        addressee: Option<&str>,
        holder: &str,
        agree: bool,
    ) -> String {
        let first_name = |id: &str| {
            self.display(id)
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned()
        };
        let holder_gender = self.cast.by_id(holder).and_then(|m| m.gender);
        let exclude: Vec<&str> = speaker.into_iter().chain(addressee).collect();
        let mut out = String::new();
        let mut last = 0;
        let all = crate::text::spans::words(text, 0);
        for (n, w) in all.iter().enumerate() {
            // `he'd done` is had, `I'd help` would; an adverb between says
            // nothing (`I'd never open` would, `he'd never been` had).
            let verb_after = all[n + 1..].iter().find(|next| {
                !matches!(
                    next.text.to_lowercase().as_str(),
                    "never" | "already" | "just" | "not" | "ever" | "always" | "really"
                )
            });
            let had = verb_after.is_some_and(|next| {
                let x = next.text.to_lowercase();
                x.ends_with("ed")
                    || matches!(
                        x.as_str(),
                        "done"
                            | "been"
                            | "gone"
                            | "seen"
                            | "taken"
                            | "given"
                            | "made"
                            | "had"
                            | "known"
                            | "said"
                            | "told"
                            | "found"
                            | "left"
                            | "got"
                            | "won"
                            | "lost"
                            | "kept"
                            | "brought"
                            | "bought"
                            | "heard"
                            | "paid"
                            | "sold"
                            | "thought"
                            | "meant"
                            | "sent"
                            | "spent"
                            | "written"
                            | "broken"
                            | "forgotten"
                            | "stolen"
                            | "begun"
                    )
            });
            let lower = w.text.to_lowercase().replace('’', "'");
            let (base, tail) = match lower.split_once('\'') {
                Some((b, t)) => (b.to_owned(), Some(t.to_owned())),
                None => (lower.clone(), None),
            };
            let who = match base.as_str() {
                "i" | "me" | "my" | "myself" | "mine" => speaker.map(str::to_owned),
                "you" | "your" | "yourself" | "yours" => addressee.map(str::to_owned),
                "he" | "she" | "him" | "her" | "his" | "himself" | "herself" => {
                    let g = pronoun_gender(&base);
                    // A name the text itself gives before the pronoun comes
                    // first (`Quinton's hand slides into his pocket`).
                    let named_here = all[..n]
                        .iter()
                        .rev()
                        .filter_map(|w| self.cast.named(&w.text))
                        .find(|m| m.gender.is_none_or(|mg| Some(mg) == g))
                        .map(|m| m.id.clone());
                    if named_here.is_some() {
                        named_here
                    } else if g.is_some() && g == holder_gender && speaker != Some(holder) {
                        Some(holder.to_owned())
                    } else {
                        self.resolve(&base, &exclude)
                    }
                }
                _ => None,
            };
            let Some(who) = who else {
                continue;
            };
            let name = first_name(&who);
            if name.is_empty() {
                continue;
            }
            // `her` before a noun is hers (`saved her brother`); before a
            // function word or at the end it is her (`believes her`, `told
            // her the truth`).
            let her_possessive = base == "her"
                && all.get(n + 1).is_some_and(|next| {
                    let x = next.text.to_lowercase();
                    !crate::graph::generate::cast::NOT_AFTER_POSSESSIVE.contains(&x.as_str())
                        && text[..]
                            .chars()
                            .skip(w.end)
                            .take(next.start - w.end)
                            .all(char::is_whitespace)
                });
            let possessive =
                matches!(base.as_str(), "my" | "your" | "his" | "mine" | "yours") || her_possessive;
            let spelled = match tail.as_deref() {
                Some("m") => format!("{name} is"),
                Some("re") => format!("{name} is"),
                Some("ll") => format!("{name} will"),
                Some("d") if had => format!("{name} had"),
                Some("d") => format!("{name} would"),
                Some("ve") => format!("{name} has"),
                Some("s") => format!("{name} is"),
                _ if possessive => format!("{name}'s"),
                _ => name,
            };
            let (a, mut b) = (w.start, w.end);
            let mut spelled = spelled;
            // `I owe` → `Quinton owes`, `you were` → `Mara was`: a first or
            // second person become a name takes the third person's verb,
            // where the pronoun is the subject of its clause.
            let opens_clause = n == 0
                || text[..]
                    .chars()
                    .skip(all[n - 1].end)
                    .take(a - all[n - 1].end)
                    .any(|c| matches!(c, ',' | ';' | ':'))
                || matches!(
                    all[n - 1].text.to_lowercase().as_str(),
                    "that"
                        | "if"
                        | "when"
                        | "and"
                        | "but"
                        | "because"
                        | "so"
                        | "or"
                        | "until"
                        | "unless"
                        | "while"
                        | "before"
                        | "after"
                        | "whether"
                        | "where"
                        | "what"
                        | "how"
                        | "why"
                        | "once"
                        | "than"
                );
            if agree && tail.is_none() && matches!(base.as_str(), "i" | "you") && opens_clause {
                if let Some(verb) = all.get(n + 1).filter(|v| {
                    text[..]
                        .chars()
                        .skip(b)
                        .take(v.start - b)
                        .all(char::is_whitespace)
                }) {
                    if let Some(third) = third_person(&verb.text) {
                        spelled = format!("{spelled} {third}");
                        b = verb.end;
                    }
                }
            }
            out.extend(text.chars().skip(last).take(a - last));
            out.push_str(&spelled);
            last = b;
        }
        out.extend(text.chars().skip(last));
        out
    }

    /// A known object whose name ends in this lowercase word (`ring` for
    /// the Sapphire Ring): (id, name).
    pub(super) fn object_by_head(&self, lower: &str) -> Option<&(String, String)> {
        self.objects.iter().find(|(_, name)| {
            name.split_whitespace()
                .last()
                .map(str::to_lowercase)
                .as_deref()
                == Some(lower)
        })
    }
}

/// The third person singular of a verb that follows `I` or `you`: the
/// irregular ones (`are` → `is`, `were` → `was`, `have` → `has`, `do` →
/// `does`, and their negations), and common verbs in their base form, which
/// take an `s` (`owe` → `owes`, `ask` → `asks`). `None` for anything else,
/// which is left as written (a past tense, a modal, an adverb).
fn third_person(verb: &str) -> Option<String> {
    let lower = verb.to_lowercase().replace('’', "'");
    let irregular = match lower.as_str() {
        "are" | "am" => Some("is"),
        "were" => Some("was"),
        "have" => Some("has"),
        "do" => Some("does"),
        "don't" => Some("doesn't"),
        "aren't" => Some("isn't"),
        "weren't" => Some("wasn't"),
        "haven't" => Some("hasn't"),
        _ => None,
    };
    if let Some(x) = irregular {
        return Some(x.to_owned());
    }
    const BASE_VERBS: &[&str] = &[
        "ask",
        "owe",
        "want",
        "need",
        "know",
        "think",
        "mean",
        "like",
        "say",
        "get",
        "come",
        "make",
        "take",
        "see",
        "tell",
        "pay",
        "keep",
        "give",
        "find",
        "help",
        "love",
        "hate",
        "feel",
        "look",
        "believe",
        "hope",
        "wish",
        "call",
        "leave",
        "bring",
        "buy",
        "sell",
        "open",
        "own",
        "run",
        "stay",
        "work",
        "win",
        "lose",
        "trust",
        "understand",
        "care",
        "mind",
        "lie",
        "steal",
        "promise",
        "read",
        "remember",
        "forget",
        "play",
        "talk",
        "live",
        "ring",
        "sign",
        "vote",
        "hold",
        "show",
        "hide",
        "send",
        "wait",
        "walk",
        "drive",
    ];
    if BASE_VERBS.contains(&lower.as_str()) {
        return Some(match lower.as_str() {
            "go" | "do" => format!("{lower}es"),
            _ => format!("{lower}s"),
        });
    }
    None
}

/// The person a parenthetical says a line is spoken to: `(to Bev)`,
/// `(quietly, to Bev)`.
fn to_whom(paren: &str) -> Option<&str> {
    let inner = paren.trim().trim_matches(['(', ')']);
    let mut ws = inner.split_whitespace();
    while let Some(w) = ws.next() {
        if w == "to" {
            return ws.next();
        }
    }
    None
}

/// A name a line opens by calling out (`Gus, …`; with a title also `Mrs.
/// Kettering. …`) or closes with (`…, Roz.`).
fn vocative(line: &str) -> Option<&str> {
    let ws: Vec<&str> = line.split_whitespace().collect();
    let title = |w: &str| {
        matches!(
            w.trim_end_matches('.').to_lowercase().as_str(),
            "mr" | "mrs" | "ms" | "miss" | "dr" | "aunt" | "uncle" | "mister"
        )
    };
    let opening = match ws.as_slice() {
        [t, name, _, ..] if title(t) && (name.ends_with(',') || name.ends_with('.')) => Some(*name),
        [name, _, ..] if name.ends_with(',') => Some(*name),
        _ => None,
    };
    opening.or_else(|| {
        let body = line.trim_end_matches(['.', '?', '!', '…']);
        let (_, tail) = body.rsplit_once(", ")?;
        let tail = tail.trim();
        (!tail.contains(' ')).then_some(tail)
    })
}
