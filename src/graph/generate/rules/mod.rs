//! The `rules` generator: a lexical baseline, offline and deterministic.
//!
//! It reads screenplay structure and surface cues only; it is a baseline to
//! compare models against, never a reasoner. What it finds:
//! - characters from cues and from introductions (`QUINTON ELLIS (34)`);
//! - locations from scene headings; objects from capitalised props in action;
//! - events from action sentences whose subject is a character, and speech acts
//!   (lies, confessions, threats, refusals, promises, reveals, orders);
//! - mental states from parentheticals (`(lying)`, `(relieved)`, `(realizing)`),
//!   mental-state verbs with their holder (`thinks`, `knows`, `wants`, `plans`,
//!   `suspects`, `pretends`, `realizes`…), emotion nouns as subjects
//!   (`Jealousy made the decision for her`), nested for higher-order states;
//!   a false belief where a holder `doesn't know` something the text states, or
//!   `believes` a character whose last line was marked `(lying)`;
//! - causal edges from connectives (`So`, `Then`) and from reactions: an event by
//!   B that involves A follows the latest event by A that involved B;
//! - `perceives`: a character whose sentence starts with a perception verb
//!   (`June sees it`, `He notices`) perceives the block's latest act by someone
//!   else; the addressee of a speech act hears it;
//! - `conceals`: a lie conceals the liar's latest knowledge, intention or desire
//!   (else the pretense its parenthetical marks);
//! - `enables` / `prevents`: an event sentence with `lets`/`allows`/`so that`
//!   followed by a character enables that character's act (a second event from
//!   the clause); `stops`/`keeps`/`prevents` `<character> from` prevents it;
//! - `possesses`: a character subject of a holding verb (`pockets`, `takes`,
//!   `holds`…) with a prop after it, or `his`/`her`/`<Name>'s` right before a prop;
//! - `social_relation` (labelled): a role word (`sister`, `apprentice`,
//!   `creditor`…) after a possessive, in apposition to a character named just
//!   before (`JUNE OKAFOR (24), her apprentice`) or after a copula (`He's my
//!   brother`);
//! - `social_goal` mental states: a help or hinder verb (`help`, `save`,
//!   `protect`; `hurt`, `ruin`, `betray`) with a person as subject and another as
//!   object (`I'd help you`), not negated, not a question.
//!
//! The code is one `Extractor` pass over a block, split by cue family:
//! - `lexicon`: the cue words (mental-state verbs, parentheticals, speech-act
//!   phrases, perception, holding and role words);
//! - `evidence`: quotes as evidence and the proposal's node/edge bookkeeping;
//! - `characters`: who is who (mentions, pronouns, speakers and addressees);
//! - `action`: action sentences (introductions, props, names, emotion nouns,
//!   the sentence's event);
//! - `dialogue`: speech acts, parentheticals and concealment in lines;
//! - `mental`: mental-state clauses and their holders (`contents`: a
//!   state's content as text);
//! - `commitments`: what a speaker commits to (`I'll…`, `I won't…`);
//! - `judgments`: beliefs a line shows by its shape with no mental verb (a
//!   doubt, a contradiction, an inference, a hedged guess, a prediction
//!   about someone else, a verdict such as `it's not enough`);
//! - `events`: event nodes, perception, enabling and preventing;
//! - `social`: possession, social relations and social goals;
//! - `links`: context and causal edges over the block's events and states.

mod action;
mod characters;
mod commitments;
mod contents;
mod dialogue;
mod ellipsis;
mod events;
mod evidence;
mod judgments;
mod lexicon;
mod links;
mod mental;
mod readings;
mod social;

use std::collections::BTreeMap;

use super::cast::Cast;
use super::gates::{family, Families};
use crate::graph::schema::*;
use crate::graph::{BlockContext, Generator, GraphError, Proposal};
use crate::screenplay::ElementKind;
use crate::text::spans::{sentences, title_case};

/// Whether a lowercase word names what one person is to another.
pub(crate) fn is_role(word: &str) -> bool {
    lexicon::ROLES.contains(&word)
}

/// The lexical baseline generator (`rules` backend): `rules` proposes every
/// cue family; `rules-gated` only the families whose measured precision puts
/// them on (see [`super::gates`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesGenerator {
    /// Which cue families it proposes.
    pub families: Families,
}

impl RulesGenerator {
    /// The generator with every cue family on (`rules`, the default).
    pub fn all_families() -> RulesGenerator {
        RulesGenerator {
            families: Families::All,
        }
    }

    /// The generator with only the measured families on (`rules-gated`).
    pub fn gated() -> RulesGenerator {
        RulesGenerator {
            families: Families::Measured,
        }
    }

    /// The generator a built-in model name means (`rules`, `rules-gated`).
    pub fn named(name: &str) -> RulesGenerator {
        match name {
            GATED => RulesGenerator::gated(),
            _ => RulesGenerator::default(),
        }
    }
}

/// The built-in generator with only the measured rule families on.
pub const GATED: &str = "rules-gated";

impl Generator for RulesGenerator {
    fn name(&self) -> String {
        match self.families {
            Families::Measured => GATED.to_owned(),
            Families::All => "rules".to_owned(),
        }
    }

    fn generate(&self, ctx: &BlockContext<'_>) -> Result<Proposal, GraphError> {
        let mut proposal = Extractor::new(ctx).run();
        drop_items(&mut proposal, |item, _| match item {
            Item::Node(n) => contents::readable(n),
            Item::Edge(_) => true,
        });
        let families = self.families;
        if families != Families::All {
            drop_items(&mut proposal, |item, reason| {
                families.allows(family(reason, item).as_deref())
            });
        }
        Ok(proposal)
    }
}

/// Drops the items `keep` refuses (those of families that are off) and
/// every edge that touched a
/// dropped node: where the generator cannot tell, it says nothing.
fn drop_items(proposal: &mut Proposal, keep: impl Fn(&Item, &str) -> bool) {
    let mut dropped = std::collections::BTreeSet::new();
    proposal.items.retain(|(item, reason)| {
        let kept = keep(item, reason);
        if !kept {
            dropped.insert(item.id().to_owned());
        }
        kept
    });
    proposal.items.retain_mut(|(item, _)| match item {
        Item::Edge(e) => !dropped.contains(&e.source) && !dropped.contains(&e.target),
        Item::Node(n) => {
            if n.target.as_ref().is_some_and(|t| dropped.contains(t)) {
                n.target = None;
            }
            true
        }
    });
}

/// The characters on stage in a block: who speaks in it and whom its action
/// names (not someone a line only talks about), in order of first
/// appearance.
fn block_cast(ctx: &BlockContext<'_>, cast: &Cast) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, e) in ctx.elements() {
        let named = match e.kind {
            ElementKind::Character => e
                .speaker
                .as_deref()
                .and_then(|sp| sp.split_whitespace().next())
                .and_then(|first| cast.named(&title_case(first)))
                .map(|m| vec![m.id.clone()])
                .unwrap_or_default(),
            // A possessive (`sits on Abel's chair`) does not put anyone on
            // stage.
            ElementKind::Action => e
                .text
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’'))
                .filter(|w| !w.ends_with("'s") && !w.ends_with("’s"))
                .filter_map(|w| cast.named(w))
                .map(|m| m.id.clone())
                .collect(),
            _ => Vec::new(),
        };
        for id in named {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
struct EventRec {
    id: String,
    act: Act,
    agent: String,
    participants: Vec<String>,
    order: (usize, usize),
    evidence: Evidence,
}

#[derive(Debug, Clone)]
struct MentalRec {
    id: String,
    holder: String,
    attitude: Attitude,
    order: (usize, usize),
    evidence: Evidence,
}

struct Extractor<'c, 'a> {
    ctx: &'c BlockContext<'a>,
    cast: Cast,
    block: usize,
    location: Option<String>,
    items: Vec<(Item, String)>,
    node_index: BTreeMap<String, usize>,
    edge_index: BTreeMap<String, usize>,
    recent: Vec<String>,
    /// Every character the block's lines are spoken by or its action names
    /// (ids), for a pronoun no earlier mention fits.
    block_cast: Vec<String>,
    events: Vec<EventRec>,
    mentals: Vec<MentalRec>,
    objects: Vec<(String, String)>,
    lies: BTreeMap<String, (usize, String)>,
    speakers: Vec<(usize, String)>,
    /// Whether the current line is a recording (a voicemail greeting).
    recorded: bool,
    /// Narrated events and states whose pronoun several characters in the
    /// block fit: (node id, the other characters it can mean).
    readings: Vec<(String, Vec<String>)>,
}

impl<'c, 'a> Extractor<'c, 'a> {
    fn new(ctx: &'c BlockContext<'a>) -> Self {
        let cast = Cast::new(ctx);
        let block_cast = block_cast(ctx, &cast);
        let speakers = ctx
            .elements()
            .filter(|(_, e)| e.kind == ElementKind::Dialogue)
            .filter_map(|(i, e)| {
                let sp = e.speaker.as_deref()?;
                let first = sp.split_whitespace().next()?;
                let m = cast.named(&title_case(first))?;
                Some((i, m.id.clone()))
            })
            .collect();
        // Objects already known, so later blocks find `the ring` by its head word.
        let objects = ctx
            .entities
            .values()
            .filter(|n| n.kind == NodeKind::Object)
            .map(|n| (n.id.clone(), n.name.clone()))
            .collect();
        Extractor {
            ctx,
            cast,
            block: ctx.block.id,
            location: None,
            items: Vec::new(),
            node_index: BTreeMap::new(),
            edge_index: BTreeMap::new(),
            recent: Vec::new(),
            block_cast,
            events: Vec::new(),
            mentals: Vec::new(),
            objects,
            lies: BTreeMap::new(),
            speakers,
            recorded: false,
            readings: Vec::new(),
        }
    }

    fn run(mut self) -> Proposal {
        let ctx = self.ctx;
        if let Some(loc) = ctx.location() {
            let scene = &ctx.play.scenes[ctx.block.scene];
            let [first, _] = scene.elements;
            let name = title_case(loc);
            let mut node = Node::new(format!("location:{}", slug(loc)), NodeKind::Location, name);
            if let Some(heading) = ctx.play.elements.get(first) {
                if let Some(pos) = heading.text.find(loc) {
                    let start = heading.text[..pos].chars().count();
                    node.evidence =
                        vec![self.evidence(first, start, start + loc.chars().count(), loc)];
                } else {
                    let n = heading.text.chars().count();
                    node.evidence = vec![self.evidence(first, 0, n, &heading.text)];
                }
            }
            self.location = Some(self.add_node(node, "scene heading"));
        }
        let mut paren: Option<(usize, String)> = None;
        for (i, el) in ctx.elements() {
            match el.kind {
                ElementKind::Character => {
                    if let Some(sp) = &el.speaker {
                        let first = sp.split_whitespace().next().unwrap_or(sp);
                        if let Some(m) = self.cast.named(&title_case(first)).cloned() {
                            let n = el.text.chars().count();
                            let ev = self.evidence(i, 0, n, &el.text);
                            self.mention(&m.id, ev);
                        }
                    }
                }
                ElementKind::Parenthetical => paren = Some((i, el.text.clone())),
                ElementKind::Dialogue => {
                    let p = paren.take().filter(|(pi, _)| pi + 1 == i);
                    self.dialogue(i, &el.text, p);
                }
                ElementKind::Action => {
                    for s in sentences(&el.text) {
                        self.action_sentence(i, &s);
                    }
                }
                _ => {}
            }
        }
        self.link();
        self.other_readings();
        Proposal {
            items: self.items,
            dropped: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
