//! The scene auditor's checks against the rest of the film: who is on stage
//! for a pronoun to mean, and contradictions with a holder's other states.

use std::collections::BTreeMap;

use super::named_in;
use crate::graph::generate::cast::{pronoun_gender, Cast};
use crate::graph::schema::*;
use crate::graph::BlockContext;
use crate::screenplay::ElementKind;
use crate::text::spans::{normalize, words};

/// The characters on stage in the block, each with the element where they
/// first appear: named in an action line, or speaking in person (not
/// voice-over or off-screen).
pub(super) fn on_stage(ctx: &BlockContext<'_>, cast: &Cast) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (i, el) in ctx.elements() {
        match el.kind {
            ElementKind::Action => {
                for w in words(&el.text, 0) {
                    if let Some(m) = cast.named(&w.text) {
                        out.entry(m.id.clone()).or_insert(i);
                    }
                }
            }
            ElementKind::Dialogue => {
                let away = el.extension.as_deref().is_some_and(|x| {
                    let x = x.to_uppercase();
                    x.contains("V.O")
                        || x.contains("O.S")
                        || x.contains("O.C")
                        || x.contains("FILTERED")
                });
                let first = el
                    .speaker
                    .as_deref()
                    .and_then(|s| s.split_whitespace().next());
                if let (false, Some(m)) = (away, first.and_then(|f| cast.named(f))) {
                    out.entry(m.id.clone()).or_insert(i);
                }
            }
            _ => {}
        }
    }
    out
}

/// A holder or agent the quotes do not name must be the only character on
/// stage its pronoun can mean: the scene so far (everyone who has appeared
/// up to the quoted element), not the sentence, decides — one known to be
/// of the pronoun's gender before one whose gender is unknown, and one the
/// block brings on later only when nobody so far fits.
pub(super) fn only_one_on_stage(
    ctx: &BlockContext<'_>,
    cast: &Cast,
    stage: &BTreeMap<String, usize>,
    evidence: &[Evidence],
    who: &Node,
) -> Result<(), String> {
    if evidence.iter().any(|ev| named_in(ctx, ev, who)) {
        return Ok(());
    }
    let gender = evidence.iter().find_map(|ev| {
        words(&ev.quote, 0)
            .iter()
            .find_map(|w| pronoun_gender(&w.text.to_lowercase()))
    });
    let Some(gender) = gender else {
        return Ok(());
    };
    let upto = evidence.iter().map(|ev| ev.element).max().unwrap_or(0);
    // Those on stage so far known to be of the pronoun's gender; else those
    // whose gender the script never shows; else, when nobody so far fits,
    // those of that gender the block brings on later (`She laughs` before
    // the scene names her).
    let gender_of = |id: &str| cast.by_id(id).and_then(|m| m.gender);
    let so_far = |id: &&String| stage.get(id.as_str()).is_some_and(|first| *first <= upto);
    let known: Vec<&String> = stage
        .keys()
        .filter(so_far)
        .filter(|id| gender_of(id) == Some(gender))
        .collect();
    let unknown: Vec<&String> = stage
        .keys()
        .filter(so_far)
        .filter(|id| gender_of(id).is_none())
        .collect();
    let later: Vec<&String> = stage
        .keys()
        .filter(|id| gender_of(id) == Some(gender))
        .collect();
    let options = if !known.is_empty() {
        known
    } else if !unknown.is_empty() {
        unknown
    } else {
        later
    };
    match options.as_slice() {
        [one] if **one == who.id => Ok(()),
        [_] => Err(format!(
            "{} is not the one on stage the pronoun can mean",
            who.name
        )),
        [] => Err(format!("nobody on stage fits the pronoun {}", who.name)),
        many => {
            // Several fit: the scene's focus decides — the subject of its
            // latest action sentence that names one of them, else the one of
            // them who spoke last in person.
            let at = evidence
                .iter()
                .map(|ev| (ev.element, ev.start))
                .max()
                .unwrap_or((0, 0));
            match focus(ctx, cast, many, at) {
                Some(f) if f == who.id => Ok(()),
                Some(f) => Err(format!(
                    "the pronoun means {}, the scene's focus, not {}",
                    cast.by_id(&f).map_or(f.as_str(), |m| m.display.as_str()),
                    who.name
                )),
                None => Err(format!(
                    "the pronoun could mean {} characters on stage, none in focus",
                    many.len()
                )),
            }
        }
    }
}

/// The character in focus just before `(element, char)`, among `options`:
/// the first of them named in the latest action sentence that names any,
/// else the latest of them to speak in person.
fn focus(
    ctx: &BlockContext<'_>,
    cast: &Cast,
    options: &[&String],
    (element, at): (usize, usize),
) -> Option<String> {
    let [first, _] = ctx.block.elements;
    let fits = |id: &str| options.iter().any(|o| o.as_str() == id);
    for j in (first..=element).rev() {
        let Some(el) = ctx.play.elements.get(j) else {
            continue;
        };
        match el.kind {
            ElementKind::Action => {
                let spans = crate::text::spans::sentences(&el.text);
                for s in spans.iter().rev() {
                    if j == element && s.start >= at {
                        continue;
                    }
                    let named = words(&s.text, 0)
                        .iter()
                        .filter_map(|w| cast.named(&w.text))
                        .find(|m| fits(&m.id))
                        .map(|m| m.id.clone());
                    if named.is_some() {
                        return named;
                    }
                }
            }
            ElementKind::Dialogue if j < element => {
                let away = el.extension.as_deref().is_some_and(|x| {
                    let x = x.to_uppercase();
                    x.contains("V.O") || x.contains("O.S") || x.contains("O.C")
                });
                let speaker = el
                    .speaker
                    .as_deref()
                    .and_then(|s| s.split_whitespace().next())
                    .and_then(|f| cast.named(f))
                    .filter(|m| fits(&m.id) && !away);
                if let Some(m) = speaker {
                    return Some(m.id.clone());
                }
            }
            _ => {}
        }
    }
    None
}

/// A mental state contradicting one its holder already holds: same family,
/// same content, the other polarity.
pub(super) fn contradiction(nodes: &BTreeMap<&str, &Node>, n: &Node) -> Result<(), String> {
    let (Some(attitude), Some(content)) = (n.attitude, n.content.as_deref()) else {
        return Ok(());
    };
    let key = normalize(content);
    let clash = nodes.values().find(|m| {
        m.id != n.id
            && m.kind == NodeKind::MentalState
            && m.holder == n.holder
            && m.attitude.is_some_and(|a| a.family() == attitude.family())
            && m.negated != n.negated
            && m.content.as_deref().map(normalize).as_deref() == Some(key.as_str())
    });
    match clash {
        Some(m) => Err(format!("contradicts {}: {}", m.id, m.name)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::OneBlock;

    const SCENE: &str = "INT. BOAT - NIGHT\n\n\
        QUINTON lifts the coat. He tears the lining.\n\n\
        QUINTON\nYou old liar.\n\n\
        TEO ducks in. He sees the torn lining. He says nothing.\n\n\
        TEO\nFind anything?\n";

    /// `who` judged on the quote `quote` of element `element`, in a scene
    /// where Teo walks in after Quinton's first line of action.
    fn judged(element: usize, quote: &str, who: &str) -> Result<(), String> {
        let one = OneBlock::parse(SCENE);
        let (ctx, play) = (one.ctx(), &one.play);
        let cast = Cast::new(&ctx);
        let stage = on_stage(&ctx, &cast);
        let start = play.elements[element].text.find(quote).unwrap();
        let ev = Evidence {
            block: 0,
            element,
            start,
            end: start + quote.len(),
            quote: quote.to_owned(),
            keyframes: Vec::new(),
        };
        let node = Node::new(
            format!("character:{who}"),
            NodeKind::Character,
            who.to_owned(),
        );
        only_one_on_stage(&ctx, &cast, &stage, &[ev], &node)
    }

    #[test]
    fn a_pronoun_is_judged_against_who_has_appeared_so_far() {
        let action = |n: usize| {
            OneBlock::parse(SCENE)
                .play
                .elements
                .iter()
                .enumerate()
                .filter(|(_, e)| e.kind == ElementKind::Action)
                .nth(n)
                .unwrap()
                .0
        };
        // Before Teo walks in, `He` can only be Quinton.
        assert_eq!(judged(action(0), "He tears the lining", "quinton"), Ok(()));
        assert!(judged(action(0), "He tears the lining", "teo").is_err());
        // Once both are on stage, the scene's focus tells: the subject of
        // the latest sentence naming one of them ("He sees the torn lining"
        // follows "TEO ducks in").
        assert_eq!(judged(action(1), "He says nothing", "teo"), Ok(()));
        assert!(judged(action(1), "He says nothing", "quinton").is_err());
    }
}
