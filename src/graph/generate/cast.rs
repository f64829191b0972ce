//! The characters a block can mention, with grammatical gender learned from
//! the script itself (`Quinton closes his fist` → he), used to resolve pronouns.

use std::collections::{BTreeMap, BTreeSet};

use crate::graph::schema::{slug, NodeKind};
use crate::graph::BlockContext;
use crate::screenplay::{ElementKind, Screenplay};
use crate::text::spans::{sentences, title_case, words};

/// Grammatical gender as the script's pronouns show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gender {
    /// he / him / his.
    Male,
    /// she / her / hers.
    Female,
}

/// One character the text can name.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Node id (`character:quinton`).
    pub id: String,
    /// Display name (`Quinton`).
    pub display: String,
    /// Lowercase words that name the character in running text.
    pub keys: Vec<String>,
    /// Learned gender, if the script shows one.
    pub gender: Option<Gender>,
}

/// The known characters of a film.
#[derive(Debug, Clone, Default)]
pub struct Cast {
    /// Members in a stable order (screenplay order, then entity ids).
    pub members: Vec<Member>,
}

/// The node id of a character named `name` in a cue (`MARA` → `character:mara`).
pub fn character_id(name: &str) -> String {
    format!("{}:{}", NodeKind::Character.as_str(), slug(name))
}

/// Pronoun gender of a word, lowercase.
pub fn pronoun_gender(word: &str) -> Option<Gender> {
    match word {
        "he" | "him" | "his" | "himself" => Some(Gender::Male),
        "she" | "her" | "hers" | "herself" => Some(Gender::Female),
        _ => None,
    }
}

impl Cast {
    /// The speaking characters of the screenplay plus characters already in
    /// the entity list (introduced without speaking).
    pub fn new(ctx: &BlockContext<'_>) -> Cast {
        let surnames = learn_surnames(ctx.play);
        let genders = learn_genders(ctx.play, &surnames);
        let mut members: Vec<Member> = Vec::new();
        for c in &ctx.play.characters {
            let first = c.name.split_whitespace().next().unwrap_or(&c.name);
            let key = first.to_lowercase();
            if key.chars().count() < 2 {
                continue;
            }
            members.push(Member {
                id: character_id(&c.name),
                display: title_case(&c.name),
                gender: genders.get(&key).copied(),
                keys: surnames
                    .get(&key)
                    .map_or_else(|| vec![key.clone()], |s| vec![key.clone(), s.clone()]),
            });
        }
        for node in ctx.entities.values() {
            if node.kind != NodeKind::Character || members.iter().any(|m| m.id == node.id) {
                continue;
            }
            let Some(first) = node.name.split_whitespace().next() else {
                continue;
            };
            let key = first.to_lowercase();
            members.push(Member {
                id: node.id.clone(),
                display: node.name.clone(),
                gender: genders.get(&key).copied(),
                keys: vec![key],
            });
        }
        Cast { members }
    }

    /// The member a word names (`Quinton`, `Quinton's`, `QUINTON`); the word must
    /// be capitalised, so common nouns are not names.
    pub fn named(&self, word: &str) -> Option<&Member> {
        if !word.chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        let lower = word.to_lowercase().replace('’', "'");
        let stem = lower.strip_suffix("'s").unwrap_or(&lower);
        self.members
            .iter()
            .find(|m| m.keys.iter().any(|k| k == stem))
    }

    /// The member with this id.
    pub fn by_id(&self, id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id)
    }
}

/// Surnames from the action lines that introduce characters in capitals
/// with their age (`BEV KETTERING (75), glasses on a chain…`): the cue's
/// first name → its surname, for surnames only one speaking character
/// has, and never a word that is already someone's first name.
fn learn_surnames(play: &Screenplay) -> BTreeMap<String, String> {
    let firsts: BTreeSet<String> = play
        .characters
        .iter()
        .filter_map(|c| c.name.split_whitespace().next())
        .map(str::to_lowercase)
        .collect();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for el in play
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Action)
    {
        let ws: Vec<&str> = el.text.split_whitespace().collect();
        for (k, w) in ws.iter().enumerate().skip(2) {
            let aged = w.starts_with('(')
                && w.trim_start_matches('(')
                    .trim_end_matches([')', ',', '.'])
                    .chars()
                    .all(|c| c.is_ascii_digit())
                && w.contains(')');
            if !aged {
                continue;
            }
            let caps = |x: &str| {
                x.chars().any(char::is_alphabetic)
                    && x.chars().all(|c| !c.is_alphabetic() || c.is_uppercase())
            };
            let (first, last) = (ws[k - 2], ws[k - 1]);
            if !caps(first) || !caps(last) {
                continue;
            }
            let first = first.to_lowercase();
            let last = last
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if firsts.contains(&first) && !firsts.contains(&last) && last.chars().count() > 1 {
                found.entry(last).or_default().insert(first);
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, who)| who.len() == 1)
        .filter_map(|(last, who)| who.into_iter().next().map(|first| (first, last)))
        .collect()
}

/// Votes for each first name: the first gendered pronoun after the name in
/// action sentences that start with it, and a title before the name or its
/// surname (`Mrs Pellew`, `Mr. Bliss`). Weaker signs, each counted only for
/// a name the signs before it never tell: the pronoun opening the sentence
/// after one that opens on the name and names no one else (`Conrad stands
/// clear of the spray. He drove out here…`), then the pronoun opening an
/// action right after a character's line (`HOLLIS: Or she's cleverer than
/// you.` / `He lifts a carriage clock…`: the one who just spoke goes on).
fn learn_genders(
    play: &Screenplay,
    surnames: &BTreeMap<String, String>,
) -> BTreeMap<String, Gender> {
    let mut votes: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut after_lines: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let firsts: BTreeSet<String> = play
        .characters
        .iter()
        .filter_map(|c| c.name.split_whitespace().next())
        .map(str::to_lowercase)
        .collect();
    let first_of = |word: &str| -> Option<String> {
        let w = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let w = w.strip_suffix("'s").unwrap_or(&w).to_owned();
        if firsts.contains(&w) {
            return Some(w);
        }
        surnames
            .iter()
            .find(|(_, last)| **last == w)
            .map(|(first, _)| first.clone())
    };
    let vote = |map: &mut BTreeMap<String, (u32, u32)>, name: String, g: Gender| {
        let v = map.entry(name).or_default();
        match g {
            Gender::Male => v.0 += 1,
            Gender::Female => v.1 += 1,
        }
    };
    for el in &play.elements {
        if !matches!(el.kind, ElementKind::Action | ElementKind::Dialogue) {
            continue;
        }
        let ws: Vec<&str> = el.text.split_whitespace().collect();
        for pair in ws.windows(2) {
            let title = match pair[0].trim_end_matches('.').to_lowercase().as_str() {
                "mr" | "mister" => Gender::Male,
                "mrs" | "ms" | "miss" => Gender::Female,
                _ => continue,
            };
            if let Some(name) = first_of(pair[1]) {
                vote(&mut votes, name, title);
            }
        }
    }
    let mut carried: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for el in play
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Action)
    {
        let said = sentences(&el.text);
        for pair in said.windows(2) {
            let before = words(&pair[0].text, 0);
            let named: BTreeSet<String> = before
                .iter()
                .filter(|w| w.text.chars().next().is_some_and(char::is_uppercase))
                .filter_map(|w| first_of(&w.text))
                .collect();
            let opener = before.first().and_then(|w| first_of(&w.text));
            let (Some(name), 1) = (opener, named.len()) else {
                continue;
            };
            let next = words(&pair[1].text, 0);
            if let Some(g) = next
                .first()
                .filter(|w| matches!(w.text.as_str(), "He" | "She"))
                .and_then(|w| pronoun_gender(&w.text.to_lowercase()))
            {
                vote(&mut carried, name, g);
            }
        }
    }
    let mut last_speaker: Option<String> = None;
    for el in &play.elements {
        match el.kind {
            ElementKind::Dialogue => {
                last_speaker = el
                    .speaker
                    .as_deref()
                    .and_then(|s| s.split_whitespace().next())
                    .map(str::to_lowercase);
                continue;
            }
            ElementKind::Action => {}
            ElementKind::Parenthetical | ElementKind::Character => continue,
            _ => {
                last_speaker = None;
                continue;
            }
        }
        if let Some(speaker) = last_speaker.take() {
            let opening = words(&el.text, 0)
                .first()
                .and_then(|w| pronoun_gender(&w.text.to_lowercase()))
                .filter(|_| {
                    words(&el.text, 0)
                        .first()
                        .is_some_and(|w| matches!(w.text.as_str(), "He" | "She"))
                });
            if let Some(g) = opening {
                let v = after_lines.entry(speaker).or_default();
                match g {
                    Gender::Male => v.0 += 1,
                    Gender::Female => v.1 += 1,
                }
            }
        }
        for s in sentences(&el.text) {
            let ws = words(&s.text, 0);
            let Some(first) = ws.first() else { continue };
            if !first.text.chars().next().is_some_and(char::is_uppercase) {
                continue;
            }
            let name = first.text.to_lowercase().replace('’', "'");
            let name = name.strip_suffix("'s").unwrap_or(&name).to_owned();
            // A subject, a possessive or a reflexive tells the name's gender;
            // an object is someone else (`Rory … lays the LOGBOOK in front of
            // her`).
            // Words after which a pronoun is more often someone else's: an
            // embedded clause (`Augusta knows how certain he is`), a
            // participle or a preposition aimed at another (`Augusta,
            // watching his hands`, `looks at her`).
            let embeds = |w: &str| {
                matches!(
                    w,
                    "that"
                        | "how"
                        | "what"
                        | "if"
                        | "whether"
                        | "why"
                        | "when"
                        | "who"
                        | "where"
                        | "because"
                        | "than"
                        | "while"
                        | "as"
                        | "until"
                        | "before"
                        | "after"
                )
            };
            let aimed =
                |w: &str| w.ends_with("ing") || matches!(w, "at" | "to" | "toward" | "towards");
            let mut embedded = false;
            let mut someone_else = false;
            let telling = ws.iter().enumerate().skip(1).find_map(|(k, w)| {
                let lower = w.text.to_lowercase();
                if pronoun_gender(&lower).is_none() {
                    embedded |= embeds(&lower);
                    someone_else |= w.text.chars().next().is_some_and(char::is_uppercase)
                        && first_of(&w.text).is_some_and(|n| n != name);
                    return None;
                }
                let reflexive = matches!(lower.as_str(), "himself" | "herself");
                let before = ws[k - 1].text.to_lowercase();
                if !reflexive && (embedded || someone_else || aimed(&before)) {
                    return None;
                }
                // A he or she tells only as the subject of a clause joined to
                // the name's (`Augusta sits, and she…`), not after a noun
                // (`pours him tea he hasn't asked for`: someone else's).
                if matches!(lower.as_str(), "he" | "she")
                    && !matches!(before.as_str(), "and" | "but" | "then" | "so")
                {
                    embedded = true;
                    return None;
                }
                let object = lower == "him"
                    || lower == "her"
                        && ws.get(k + 1).is_none_or(|next| {
                            NOT_AFTER_POSSESSIVE.contains(&next.text.to_lowercase().as_str())
                        });
                // `RORY MORROW (31), her brother, climbs…`: an apposition's
                // possessive is whoever he is the brother of.
                let apposition = k > 0
                    && ws.get(k + 1).is_some_and(|next| {
                        crate::graph::generate::rules_roles(&next.text.to_lowercase())
                    })
                    && s.text
                        .chars()
                        .skip(ws[k - 1].end)
                        .take(ws[k].start - ws[k - 1].end)
                        .any(|c| c == ',');
                if object || apposition {
                    return None;
                }
                pronoun_gender(&lower)
            });
            if let Some(g) = telling {
                let v = votes.entry(name).or_default();
                match g {
                    Gender::Male => v.0 += 1,
                    Gender::Female => v.1 += 1,
                }
            }
        }
    }
    // The weaker signs, for a name the stronger never tell: a pronoun right
    // after a sentence about that one person before the pronoun after a
    // line (which, between two people, is as often the one spoken to).
    for (name, v) in carried {
        votes.entry(name).or_insert(v);
    }
    for (name, v) in after_lines {
        votes.entry(name).or_insert(v);
    }
    votes
        .into_iter()
        .filter_map(|(name, (m, f))| match m.cmp(&f) {
            std::cmp::Ordering::Greater => Some((name, Gender::Male)),
            std::cmp::Ordering::Less => Some((name, Gender::Female)),
            std::cmp::Ordering::Equal => None,
        })
        .collect()
}

/// Words that do not follow a possessive: after `her`, they make it the
/// object (`told her the truth`, `believes her and goes`).
pub(crate) const NOT_AFTER_POSSESSIVE: &[&str] = &[
    "the",
    "a",
    "an",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "that",
    "this",
    "and",
    "but",
    "or",
    "again",
    "now",
    "back",
    "up",
    "down",
    "out",
    "off",
    "away",
    "too",
    "so",
    "if",
    "when",
    "because",
    "before",
    "after",
    "as",
    "about",
    "from",
    "into",
    "by",
    "is",
    "was",
    "what",
    "how",
    "why",
    "where",
    "who",
    "it",
    "him",
    "her",
    "them",
    "me",
    "you",
    "go",
    "know",
    "myself",
    "yourself",
    "himself",
    "herself",
    "itself",
    "ourselves",
    "themselves",
    "anything",
    "something",
    "everything",
    "nothing",
    "first",
    "later",
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
    "alone",
    "here",
    "there",
    "once",
    "twice",
    "anyway",
    "yet",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surname_from_an_introduction_names_its_one_character() {
        let play = crate::screenplay::parse_text(
            "INT. HALL - NIGHT\n\n\
             BEV KETTERING (75) writes. ANNA PELL (40) and ABEL PELL (62) sit. \
             ROZ GUS (61) stands.\n\n\
             BEV\nHere.\n\nANNA\nHere.\n\nABEL\nHere.\n\nROZ\nHere.\n\nGUS\nHere.\n",
            Some(crate::screenplay::Format::Fountain),
            None,
        )
        .unwrap();
        let surnames = learn_surnames(&play);
        // Kettering is Bev's; Pell is two people's; Gus is somebody's first name.
        assert_eq!(surnames.get("bev").map(String::as_str), Some("kettering"));
        assert_eq!(surnames.get("anna"), None);
        assert_eq!(surnames.get("abel"), None);
        assert_eq!(surnames.get("roz"), None);
    }
}
