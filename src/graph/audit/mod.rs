//! The `rules` auditors and adjudicator.
//!
//! - [`GroundingAuditor`]: the evidence exists in the script (verbatim or
//!   fuzzily) and the entities are named there, not only inferred from a pronoun.
//! - [`SchemaTimeAuditor`]: kinds and required fields are valid, causes do not
//!   run backwards in story time, no self-loops, a holder or agent is present in
//!   (or informed about) the scene.
//! - [`RulesAdjudicator`]: for a split vote, sides with the schema check, and
//!   accepts a pronoun-grounded candidate only when the pronoun is unambiguous
//!   among the characters present.

use std::collections::{BTreeMap, BTreeSet};

use crate::graph::generate::cast::Cast;
use crate::graph::schema::*;
use crate::graph::{Adjudicator, Auditor, BlockContext, GraphError};
use crate::screenplay::ElementKind;
use crate::text::spans::{char_slice, normalize, words};

mod quote;
mod scene;

use quote::{antecedent_is, causal_language, stated};
use scene::{contradiction, on_stage, only_one_on_stage};

/// Nodes visible to a check: the known entities and the batch's nodes.
fn lookup<'a>(ctx: &BlockContext<'a>, batch: &'a [Candidate]) -> BTreeMap<&'a str, &'a Node> {
    let mut map: BTreeMap<&str, &Node> =
        ctx.entities.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for c in batch {
        if let Item::Node(n) = &c.item {
            map.insert(n.id.as_str(), n);
        }
    }
    map
}

/// How a quote was found in the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Verbatim,
    Fuzzy,
    Missing,
}

fn find_quote(ctx: &BlockContext<'_>, ev: &Evidence) -> Found {
    let [first, last] = ctx.block.elements;
    if ev.block > ctx.block.id
        || (ev.block == ctx.block.id && !(first..=last).contains(&ev.element))
    {
        return Found::Missing;
    }
    let Some(el) = ctx.play.elements.get(ev.element) else {
        return Found::Missing;
    };
    if ev.quote.is_empty() {
        return Found::Missing;
    }
    if char_slice(&el.text, ev.start, ev.end) == ev.quote {
        return Found::Verbatim;
    }
    let (q, t) = (normalize(&ev.quote), normalize(&el.text));
    if !q.is_empty() && t.contains(&q) {
        return Found::Fuzzy;
    }
    let slice = normalize(&char_slice(&el.text, ev.start, ev.end));
    if strsim::normalized_levenshtein(&slice, &q) >= 0.9 {
        return Found::Fuzzy;
    }
    Found::Missing
}

/// Lowercase words of the block, and the characters who speak in it.
struct BlockWords {
    words: BTreeSet<String>,
    speakers: BTreeSet<String>,
}

fn block_words(ctx: &BlockContext<'_>) -> BlockWords {
    let mut out = BlockWords {
        words: BTreeSet::new(),
        speakers: BTreeSet::new(),
    };
    for (_, el) in ctx.elements() {
        for w in words(&el.text, 0) {
            out.words.insert(
                w.text
                    .to_lowercase()
                    .replace('’', "'")
                    .trim_end_matches("'s")
                    .to_owned(),
            );
        }
        if let (ElementKind::Dialogue, Some(sp)) = (el.kind, &el.speaker) {
            out.speakers.insert(normalize(sp));
        }
    }
    if let Some(loc) = ctx.location() {
        for w in words(loc, 0) {
            out.words.insert(w.text.to_lowercase());
        }
    }
    out
}

fn first_word(name: &str) -> String {
    normalize(name).split(' ').next().unwrap_or("").to_owned()
}

/// Whether a character (by node) speaks in or is named in the block.
fn present(bw: &BlockWords, node: &Node) -> bool {
    std::iter::once(&node.name)
        .chain(node.aliases.iter())
        .map(|n| first_word(n))
        .any(|w| !w.is_empty() && (bw.words.contains(&w) || bw.speakers.contains(&w)))
}

/// Whether the character is named in the quote before any he/she (a name
/// after the pronoun that opens a clause is its object: `He suspects Rory
/// now` does not name its holder), or speaks the evidence element.
fn named_in(ctx: &BlockContext<'_>, ev: &Evidence, who: &Node) -> bool {
    let names: Vec<String> = std::iter::once(&who.name)
        .chain(who.aliases.iter())
        .map(|n| first_word(n))
        .collect();
    let quote = words(&ev.quote, 0);
    let before_pronoun = quote
        .iter()
        .position(|w| {
            matches!(
                w.text.to_lowercase().as_str(),
                "he" | "she" | "he's" | "she's" | "he'd" | "she'd" | "he'll" | "she'll"
            )
        })
        .unwrap_or(quote.len());
    let quoted = quote[..before_pronoun].iter().any(|w| {
        names.contains(
            &w.text
                .to_lowercase()
                .replace('’', "'")
                .trim_end_matches("'s")
                .to_owned(),
        )
    });
    let spoken = ctx.play.elements.get(ev.element).is_some_and(|el| {
        matches!(
            el.kind,
            ElementKind::Dialogue | ElementKind::Parenthetical | ElementKind::Character
        ) && el
            .speaker
            .as_deref()
            .is_some_and(|s| names.contains(&first_word(s)))
    });
    quoted || spoken
}

fn grounding(
    ctx: &BlockContext<'_>,
    cast: &Cast,
    nodes: &BTreeMap<&str, &Node>,
    bw: &BlockWords,
    c: &Candidate,
) -> Result<(), String> {
    for ev in c.item.evidence() {
        if find_quote(ctx, ev) == Found::Missing {
            return Err(format!(
                "quote “{}” not found at element {}",
                ev.quote, ev.element
            ));
        }
    }
    if c.item.evidence().is_empty() {
        return Err("no evidence".to_owned());
    }
    let person = |id: &Option<String>| id.as_deref().and_then(|h| nodes.get(h)).copied();
    match &c.item {
        Item::Node(n) => match n.kind {
            NodeKind::Character => {
                if !present(bw, n) {
                    return Err(format!("{} is not named in the block", n.name));
                }
            }
            NodeKind::Object => {
                let head = normalize(&n.name)
                    .split(' ')
                    .next_back()
                    .unwrap_or("")
                    .to_owned();
                if !bw.words.contains(&head) {
                    return Err(format!("{} is not mentioned in the block", n.name));
                }
            }
            NodeKind::Location => {}
            NodeKind::Event => {
                let Some(agent) = person(&n.agent) else {
                    return Err("the agent is unknown".to_owned());
                };
                if !n
                    .evidence
                    .iter()
                    .any(|ev| named_in(ctx, ev, agent) || antecedent_is(ctx, cast, ev, agent))
                {
                    return Err(format!(
                        "the agent {} is neither named in the quote nor the nearest character \
                         its pronoun can mean",
                        agent.name
                    ));
                }
            }
            NodeKind::MentalState => {
                let Some(holder) = person(&n.holder) else {
                    return Err("the holder is unknown".to_owned());
                };
                if !n
                    .evidence
                    .iter()
                    .any(|ev| named_in(ctx, ev, holder) || antecedent_is(ctx, cast, ev, holder))
                {
                    return Err(format!(
                        "the holder {} is neither named in the quote nor the nearest \
                         character its pronoun can mean",
                        holder.name
                    ));
                }
                stated(n)?;
            }
        },
        Item::Edge(e) => {
            causal_language(e)?;
            if e.kind == EdgeKind::Holds {
                if let Some(holder) = nodes.get(e.source.as_str()) {
                    if !e
                        .evidence
                        .iter()
                        .any(|ev| named_in(ctx, ev, holder) || antecedent_is(ctx, cast, ev, holder))
                    {
                        return Err(format!(
                            "the holder {} is neither named in the quote nor the nearest \
                             character its pronoun can mean",
                            holder.name
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The context auditor's checks. `stage` (the characters on stage, with
/// the cast) adds the check that a pronoun's holder or agent is the only
/// one on stage it can mean; the adjudicator leaves it out.
fn schema(
    ctx: &BlockContext<'_>,
    nodes: &BTreeMap<&str, &Node>,
    bw: &BlockWords,
    stage: Option<(&Cast, &BTreeMap<String, usize>)>,
    c: &Candidate,
) -> Result<(), String> {
    match &c.item {
        Item::Node(n) => {
            if n.name.trim().is_empty() {
                return Err("empty name".to_owned());
            }
            if n.truth.is_some() && n.attitude != Some(Attitude::Belief) {
                return Err("truth is set on something other than a belief".to_owned());
            }
            let who = match n.kind {
                NodeKind::MentalState => {
                    if n.attitude.is_none() {
                        return Err("a mental state without an attitude".to_owned());
                    }
                    Some(("holder", &n.holder))
                }
                NodeKind::Event => {
                    if n.order.is_none() {
                        return Err("an event without a story time".to_owned());
                    }
                    Some(("agent", &n.agent))
                }
                _ => None,
            };
            if let Some((role, id)) = who {
                let Some(person) = id.as_deref().and_then(|h| nodes.get(h)) else {
                    return Err(format!("the {role} is not a known node"));
                };
                if person.kind != NodeKind::Character {
                    return Err(format!("the {role} {} is not a character", person.id));
                }
                if !present(bw, person) && !informed(ctx, nodes, &person.id) {
                    return Err(format!(
                        "the {role} {} is neither in the scene nor informed about it",
                        person.name
                    ));
                }
                if let Some((cast, on)) = stage {
                    only_one_on_stage(ctx, cast, on, &n.evidence, person)?;
                }
            }
            if n.kind == NodeKind::MentalState {
                contradiction(nodes, n)?;
            }
            if let Some(t) = &n.target {
                if t == &n.id {
                    return Err("a mental state about itself".to_owned());
                }
            }
            if n.attitude == Some(Attitude::SocialGoal) {
                let toward = n.target.as_deref().and_then(|t| nodes.get(t));
                if !toward.is_some_and(|t| t.kind == NodeKind::Character && n.holder != n.target) {
                    return Err("a social goal must be toward another character".to_owned());
                }
            }
        }
        Item::Edge(e) => {
            if e.source == e.target {
                return Err("self-loop".to_owned());
            }
            let (Some(s), Some(t)) = (nodes.get(e.source.as_str()), nodes.get(e.target.as_str()))
            else {
                return Err("an endpoint is not a known node".to_owned());
            };
            let (ks, kt) = e.kind.endpoints();
            if ks.is_some_and(|k| k != s.kind) || kt.is_some_and(|k| k != t.kind) {
                return Err(format!(
                    "{} cannot join {} to {}",
                    e.kind.as_str(),
                    s.kind.as_str(),
                    t.kind.as_str()
                ));
            }
            kind_checks(ctx, bw, nodes, e, s, t)?;
            if let (EdgeKind::Holds, Some((cast, on))) = (e.kind, stage) {
                only_one_on_stage(ctx, cast, on, &e.evidence, s)?;
            }
            // A motive may be told after the act it explains ("Jealousy made
            // the decision for her"), within the act's scene.
            let motive_told_after = e.kind == EdgeKind::Motivates && s.scene == t.scene;
            if e.kind.family() == EdgeFamily::Causal && !e.flashback && !motive_told_after {
                if let (Some(a), Some(b)) = (s.order, t.order) {
                    if a > b {
                        return Err(format!(
                            "the cause (element {a}) comes after its effect (element {b})"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks particular to an edge kind: a perceiver is present, a possessed
/// prop and a relation's label are in the quote, a lie conceals its liar's mind.
fn kind_checks(
    ctx: &BlockContext<'_>,
    bw: &BlockWords,
    nodes: &BTreeMap<&str, &Node>,
    e: &Edge,
    s: &Node,
    t: &Node,
) -> Result<(), String> {
    let quoted = |word: &str| {
        !word.is_empty()
            && e.evidence.iter().any(|ev| {
                words(&ev.quote, 0).iter().any(|w| {
                    w.text
                        .to_lowercase()
                        .replace('’', "'")
                        .trim_end_matches("'s")
                        == word
                })
            })
    };
    match e.kind {
        EdgeKind::Perceives if !present(bw, s) && !informed(ctx, nodes, &s.id) => Err(format!(
            "the perceiver {} is neither in the scene nor informed about it",
            s.name
        )),
        EdgeKind::Possesses => {
            let head = normalize(&t.name)
                .split(' ')
                .next_back()
                .unwrap_or("")
                .to_owned();
            if quoted(&head) {
                Ok(())
            } else {
                Err(format!("the prop {} is not in the quote", t.name))
            }
        }
        EdgeKind::SocialRelation => match e.label.as_deref() {
            Some(l) if quoted(&l.to_lowercase()) => Ok(()),
            Some(l) => Err(format!("the relation “{l}” is not in the quote")),
            None => Err("a social relation without a label".to_owned()),
        },
        EdgeKind::Conceals if s.agent.is_none() || t.holder != s.agent => {
            Err("a lie can only conceal its own teller's mental state".to_owned())
        }
        _ => Ok(()),
    }
}

/// A character is informed about a scene when an event of the block involves them.
fn informed(ctx: &BlockContext<'_>, nodes: &BTreeMap<&str, &Node>, id: &str) -> bool {
    nodes.values().any(|n| {
        n.kind == NodeKind::Event
            && n.blocks.contains(&ctx.block.id)
            && n.participants.iter().any(|p| p == id)
    })
}

/// Evidence-grounding auditor (`rules`).
#[derive(Debug, Clone, Copy, Default)]
pub struct GroundingAuditor;

impl Auditor for GroundingAuditor {
    fn name(&self) -> String {
        "rules-grounding".to_owned()
    }

    fn audit(&self, ctx: &BlockContext<'_>, batch: &[Candidate]) -> Result<Vec<Vote>, GraphError> {
        let nodes = lookup(ctx, batch);
        let bw = block_words(ctx);
        let cast = Cast::new(ctx);
        Ok(batch
            .iter()
            .map(|c| {
                vote(
                    &self.name(),
                    Role::Auditor,
                    grounding(ctx, &cast, &nodes, &bw, c),
                    "every quote is in the script and names its entities",
                )
            })
            .collect())
    }
}

/// Schema-and-time auditor (`rules`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SchemaTimeAuditor;

impl Auditor for SchemaTimeAuditor {
    fn name(&self) -> String {
        "rules-schema-time".to_owned()
    }

    fn audit(&self, ctx: &BlockContext<'_>, batch: &[Candidate]) -> Result<Vec<Vote>, GraphError> {
        let nodes = lookup(ctx, batch);
        let bw = block_words(ctx);
        let cast = Cast::new(ctx);
        let stage = on_stage(ctx, &cast);
        Ok(batch
            .iter()
            .map(|c| {
                vote(
                    &self.name(),
                    Role::Auditor,
                    schema(ctx, &nodes, &bw, Some((&cast, &stage)), c),
                    "kinds, fields, story time and presence are valid",
                )
            })
            .collect())
    }
}

fn vote(judge: &str, role: Role, verdict: Result<(), String>, ok: &str) -> Vote {
    match verdict {
        Ok(()) => Vote {
            judge: judge.to_owned(),
            role,
            accept: true,
            rationale: ok.to_owned(),
        },
        Err(why) => Vote {
            judge: judge.to_owned(),
            role,
            accept: false,
            rationale: why,
        },
    }
}

/// The `rules` adjudicator: schema first, then pronoun ambiguity.
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesAdjudicator;

impl Adjudicator for RulesAdjudicator {
    fn name(&self) -> String {
        "rules-adjudicator".to_owned()
    }

    fn adjudicate(
        &self,
        ctx: &BlockContext<'_>,
        candidate: &Candidate,
        // The block's other candidates: a holder first named in this block
        // is one of them.
        block: &[Candidate],
    ) -> Result<Vote, GraphError> {
        let nodes = lookup(ctx, block);
        let bw = block_words(ctx);
        let cast = Cast::new(ctx);
        // The schema without the stage count, then the script's own reading:
        // where the stage is ambiguous, the nearest antecedent decides.
        let verdict = schema(ctx, &nodes, &bw, None, candidate)
            .and_then(|()| grounding(ctx, &cast, &nodes, &bw, candidate));
        Ok(vote(
            &self.name(),
            Role::Adjudicator,
            verdict,
            "the schema holds and the quotes, read on their own, state it",
        ))
    }
}
