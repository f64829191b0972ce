//! The scene auditor's checks against the rest of the film: who is on stage
//! for a pronoun to mean, and contradictions with a holder's other states.

use std::collections::{BTreeMap, BTreeSet};

use super::named_in;
use crate::graph::generate::cast::{pronoun_gender, Cast};
use crate::graph::schema::*;
use crate::graph::text::{normalize, words};
use crate::graph::BlockContext;
use crate::screenplay::ElementKind;

/// The characters on stage in the block: named in an action line, or
/// speaking in person (not voice-over or off-screen).
pub(super) fn on_stage(ctx: &BlockContext<'_>, cast: &Cast) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, el) in ctx.elements() {
        match el.kind {
            ElementKind::Action => {
                for w in words(&el.text, 0) {
                    if let Some(m) = cast.named(&w.text) {
                        out.insert(m.id.clone());
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
                    out.insert(m.id.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// A holder or agent the quotes do not name must be the only character on
/// stage its pronoun can mean: the scene, not the sentence, decides.
pub(super) fn only_one_on_stage(
    ctx: &BlockContext<'_>,
    cast: &Cast,
    stage: &BTreeSet<String>,
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
    let options: Vec<&String> = stage
        .iter()
        .filter(|id| {
            cast.by_id(id)
                .and_then(|m| m.gender)
                .is_none_or(|g| g == gender)
        })
        .collect();
    match options.as_slice() {
        [one] if **one == who.id => Ok(()),
        [_] => Err(format!(
            "{} is not the one on stage the pronoun can mean",
            who.name
        )),
        many => Err(format!(
            "the pronoun could mean {} characters on stage",
            many.len()
        )),
    }
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
