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

    /// The most recent character of the pronoun's gender, not in `exclude`.
    pub(super) fn resolve(&self, pronoun: &str, exclude: &[&str]) -> Option<String> {
        let gender = pronoun_gender(pronoun)?;
        self.recent
            .iter()
            .rev()
            .filter(|id| !exclude.contains(&id.as_str()))
            .find(|id| {
                self.cast
                    .by_id(id)
                    .and_then(|m| m.gender)
                    .is_none_or(|g| g == gender)
            })
            .cloned()
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
            let (a, b) = (w.start, w.end);
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
