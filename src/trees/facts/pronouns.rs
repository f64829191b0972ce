//! The narration's pronoun for each character, learned from the states the
//! graph gives them, so that another's state said of a character does not
//! keep a pronoun that gives it away.

use std::collections::HashMap;

use super::Facts;

/// The narration's pronouns for each character, by majority over the
/// narrated words of the states it holds ("Quinton feels fear: Fear is
/// doing his thinking for him now." votes `he`). Quoted lines are left
/// out (a speaker's `he` is someone else), and so are words that name
/// another character.
pub(super) fn learn(f: &Facts<'_>) -> Vec<Option<Pronoun>> {
    let mut votes: HashMap<usize, (usize, usize)> = HashMap::new();
    for (i, holder) in (0..f.graph.nodes.len()).map(|i| (i, f.holder(i))) {
        let (Some(holder), Some(rest)) = (holder, f.without_holder(i)) else {
            continue;
        };
        let Some((_, told)) = rest.split_once(": ") else {
            continue;
        };
        // "June sees: Quinton's hand slides into his pocket": the
        // pronoun is the other one's.
        let names_another = f.characters.iter().any(|&c| {
            c != holder
                && told
                    .split(|ch: char| !ch.is_alphanumeric())
                    .any(|w| w == f.first_name(c))
        });
        if names_another {
            continue;
        }
        let (he, she) = pronouns_in(told);
        let v = votes.entry(holder).or_default();
        v.0 += he;
        v.1 += she;
    }
    (0..f.graph.nodes.len())
        .map(|i| match votes.get(&i) {
            Some(&(he, she)) if he > she => Some(Pronoun::He),
            Some(&(he, she)) if she > he => Some(Pronoun::She),
            _ => None,
        })
        .collect()
}

/// A third-person pronoun family, as narration refers to a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pronoun {
    /// he, him, his, himself
    He,
    /// she, her, hers, herself
    She,
}

/// How many he-family and she-family words `text` has outside quotes.
pub fn pronouns_in(text: &str) -> (usize, usize) {
    let mut quoted = false;
    let (mut he, mut she) = (0, 0);
    for piece in text.split_inclusive(['“', '”', '"']) {
        let words = if quoted { "" } else { piece };
        for w in words.split(|c: char| !c.is_alphabetic()) {
            match w.to_lowercase().as_str() {
                "he" | "him" | "his" | "himself" => he += 1,
                "she" | "her" | "hers" | "herself" => she += 1,
                _ => {}
            }
        }
        if piece.ends_with(['“', '"']) && !quoted {
            quoted = true;
        } else if piece.ends_with(['”', '"']) {
            quoted = false;
        }
    }
    (he, she)
}
