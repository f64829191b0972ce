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

use std::collections::BTreeMap;

use super::cast::{pronoun_gender, Cast};
use crate::graph::schema::*;
use crate::graph::text::{gloss, is_caps, sentences, title_case, words, Span};
use crate::graph::{BlockContext, Generator, GraphError, Proposal};
use crate::screenplay::ElementKind;

/// The lexical baseline generator (`rules` backend).
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesGenerator;

impl Generator for RulesGenerator {
    fn name(&self) -> String {
        "rules".to_owned()
    }

    fn generate(&self, ctx: &BlockContext<'_>) -> Result<Proposal, GraphError> {
        Ok(Extractor::new(ctx).run())
    }
}

/// Mental-state verbs: form → attitude.
fn mental_verb(word: &str) -> Option<Attitude> {
    Some(match word {
        "think" | "thinks" | "thought" | "believe" | "believes" | "believed" | "assumes"
        | "assume" => Attitude::Belief,
        "know" | "knows" | "knew" | "realizes" | "realize" | "realized" | "understands"
        | "understand" | "understood" => Attitude::Knowledge,
        "want" | "wants" | "wanted" | "hope" | "hopes" | "hoped" | "wishes" => Attitude::Desire,
        "plan" | "plans" | "planned" | "decides" | "decided" | "intends" | "means" => {
            Attitude::Intention
        }
        "suspect" | "suspects" | "suspected" | "doubt" | "doubts" | "doubted" => {
            Attitude::Suspicion
        }
        "pretend" | "pretends" | "pretended" => Attitude::Pretense,
        "fear" | "fears" | "feared" | "hates" | "hate" | "envies" => Attitude::Emotion,
        _ => return None,
    })
}

const NEGATIONS: &[&str] = &[
    "doesn't", "don't", "didn't", "does", "do", "did", "not", "never", "can't", "won't",
];
const ADVERBS: &[&str] = &[
    "still", "just", "also", "really", "already", "actually", "only",
];

const EMOTION_NOUNS: &[&str] = &[
    "fear", "jealousy", "guilt", "relief", "dread", "anger", "shame", "grief", "panic", "envy",
    "hope", "love", "rage",
];

/// Parenthetical words that name the speaker's state: word → (attitude, gloss).
fn paren_state(word: &str) -> Option<(Attitude, &'static str)> {
    Some(match word {
        "lying" => (Attitude::Pretense, "lies"),
        "pretending" => (Attitude::Pretense, "pretends"),
        "realizing" | "realising" => (Attitude::Knowledge, "realizes"),
        "bitter" => (Attitude::Emotion, "feels bitter"),
        "relieved" => (Attitude::Emotion, "feels relieved"),
        "ashamed" => (Attitude::Emotion, "feels ashamed"),
        "horrified" => (Attitude::Emotion, "feels horrified"),
        "uneasy" => (Attitude::Emotion, "feels uneasy"),
        "breaking" => (Attitude::Emotion, "breaks down"),
        "angry" | "furious" => (Attitude::Emotion, "feels angry"),
        "afraid" | "scared" | "terrified" => (Attitude::Emotion, "feels afraid"),
        "guilty" => (Attitude::Emotion, "feels guilty"),
        "jealous" => (Attitude::Emotion, "feels jealous"),
        _ => return None,
    })
}

const ORDER_VERBS: &[&str] = &[
    "sell", "take", "ask", "do", "don't", "come", "go", "find", "tell", "give", "call", "get",
    "open", "stay", "wait", "listen", "look", "leave", "stop", "bring", "keep", "let", "put",
    "read", "run", "show",
];

/// Speech act of a line, by surface cues. `paren` is the manner parenthetical.
fn speech_act(line: &str, paren: &str) -> Option<Act> {
    let l = line.to_lowercase().replace('’', "'");
    let has = |p: &str| l.contains(p);
    if paren.contains("lying") {
        return Some(Act::Lie);
    }
    if has("i lied") || has("i stole") || has("it was me") || has("i'm sorry") || has("i found it")
    {
        return Some(Act::Confession);
    }
    if has("don't make me") || has("or else") || has("you'll regret") || has("i'll hurt") {
        return Some(Act::Threat);
    }
    let first = words(&l, 0).into_iter().next().map(|w| w.text);
    if first.as_deref() == Some("no") || has("i'm not ") || has("not yet") || has("i said no") {
        return Some(Act::Refusal);
    }
    if has("i promise") || has("i'll ") || has("i will ") || has("i won't ") {
        return Some(Act::Promise);
    }
    if has("never threw")
        || has("told me")
        || has("the truth")
        || has("know what you did")
        || has("i saw ")
        || has("isn't there")
    {
        return Some(Act::Reveal);
    }
    let imperative = sentences(line).into_iter().any(|s| {
        !s.text.ends_with('?')
            && words(&s.text, 0)
                .first()
                .is_some_and(|w| ORDER_VERBS.contains(&w.text.to_lowercase().as_str()))
    });
    imperative.then_some(Act::Order)
}

fn act_phrase(act: Act) -> &'static str {
    match act {
        Act::Action => "acts",
        Act::Reveal => "reveals to",
        Act::Lie => "lies to",
        Act::Promise => "promises",
        Act::Threat => "threatens",
        Act::Order => "tells",
        Act::Confession => "confesses to",
        Act::Refusal => "refuses",
    }
}

#[derive(Debug, Clone)]
struct EventRec {
    id: String,
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
    narrated: bool,
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
    events: Vec<EventRec>,
    mentals: Vec<MentalRec>,
    objects: Vec<(String, String)>,
    lies: BTreeMap<String, (usize, String)>,
    speakers: Vec<(usize, String)>,
}

impl<'c, 'a> Extractor<'c, 'a> {
    fn new(ctx: &'c BlockContext<'a>) -> Self {
        let cast = Cast::new(ctx);
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
            events: Vec::new(),
            mentals: Vec::new(),
            objects,
            lies: BTreeMap::new(),
            speakers,
        }
    }

    fn evidence(&self, element: usize, start: usize, end: usize, quote: &str) -> Evidence {
        Evidence {
            block: self.block,
            element,
            start,
            end,
            quote: quote.to_owned(),
            keyframes: Vec::new(),
        }
    }

    fn span_evidence(&self, element: usize, s: &Span) -> Evidence {
        self.evidence(element, s.start, s.end, &s.text)
    }

    fn add_node(&mut self, mut node: Node, reason: &str) -> String {
        let id = node.id.clone();
        if let Some(&i) = self.node_index.get(&id) {
            if let Item::Node(have) = &mut self.items[i].0 {
                for ev in node.evidence {
                    if have.evidence.len() < 3 && !have.evidence.contains(&ev) {
                        have.evidence.push(ev);
                    }
                }
            }
            return id;
        }
        node.blocks = vec![self.block];
        self.node_index.insert(id.clone(), self.items.len());
        self.items.push((Item::Node(node), reason.to_owned()));
        id
    }

    fn add_edge(
        &mut self,
        kind: EdgeKind,
        source: &str,
        target: &str,
        ev: Vec<Evidence>,
        reason: &str,
    ) {
        if source.is_empty() || target.is_empty() {
            return;
        }
        let mut edge = Edge::new(kind, source, target);
        if self.edge_index.contains_key(&edge.id) {
            return;
        }
        edge.blocks = vec![self.block];
        edge.evidence = ev;
        edge.evidence.sort();
        edge.evidence.dedup();
        self.edge_index.insert(edge.id.clone(), self.items.len());
        self.items.push((Item::Edge(edge), reason.to_owned()));
    }

    fn mention(&mut self, id: &str, ev: Evidence) {
        let m = self.cast.by_id(id).cloned();
        let name = m.map(|m| m.display).unwrap_or_else(|| id.to_owned());
        let mut node = Node::new(id, NodeKind::Character, name);
        node.evidence = vec![ev];
        self.add_node(node, "character named in the block");
        self.recent.retain(|r| r != id);
        self.recent.push(id.to_owned());
    }

    /// The most recent character of the pronoun's gender, not in `exclude`.
    fn resolve(&self, pronoun: &str, exclude: &[&str]) -> Option<String> {
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
        Proposal {
            items: self.items,
            dropped: Vec::new(),
        }
    }

    fn speaker_at(&self, element: usize) -> Option<String> {
        self.speakers
            .iter()
            .find(|(i, _)| *i == element)
            .map(|(_, s)| s.clone())
    }

    /// The nearest other speaker before this line, else after it.
    fn addressee(&self, element: usize, speaker: &str) -> Option<String> {
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

    fn action_sentence(&mut self, i: usize, s: &Span) {
        let ws = words(&s.text, s.start);
        // Introductions and capitalised props.
        let mut named: Vec<String> = Vec::new();
        // Props mentioned in this sentence: (first word, last word, id).
        let mut props: Vec<(usize, usize, String)> = Vec::new();
        let mut k = 0;
        while k < ws.len() {
            if !(is_caps(&ws[k].text)
                && ws[k].text.chars().filter(|c| c.is_alphabetic()).count() >= 2)
            {
                k += 1;
                continue;
            }
            let run_start = k;
            while k < ws.len() && is_caps(&ws[k].text) && ws[k].text.chars().count() >= 2 {
                k += 1;
            }
            let run = &ws[run_start..k];
            let (a, b) = (run[0].start - s.start, run[run.len() - 1].end - s.start);
            let run_text: String = s.text.chars().skip(a).take(b - a).collect();
            let after: String = s.text.chars().skip(b).take(3).collect();
            let intro = after.trim_start().starts_with('(')
                && after.trim_start()[1..].starts_with(|c: char| c.is_ascii_digit());
            let start = run[0].start;
            let end = run[run.len() - 1].end;
            let ev = self.evidence(i, start, end, &run_text);
            if intro {
                let name = title_case(&run_text);
                let known = self.cast.named(&title_case(&run[0].text)).cloned();
                let mut node = Node::new(
                    format!("character:{}", slug(&name)),
                    NodeKind::Character,
                    name,
                );
                node.evidence = vec![ev.clone()];
                let proposed = self.add_node(node, "character introduction (NAME (age))");
                let id = known.map(|m| m.id).unwrap_or(proposed);
                self.recent.retain(|r| r != &id);
                self.recent.push(id.clone());
                named.push(id);
            } else if run.iter().all(|w| self.cast.named(&w.text).is_none())
                && run.len() != ws.len()
                && run_text.chars().filter(|c| c.is_alphabetic()).count() >= 3
            {
                let name = title_case(&run_text);
                let id = format!("object:{}", slug(&name));
                let mut node = Node::new(id.clone(), NodeKind::Object, name.clone());
                node.evidence = vec![ev];
                self.add_node(node, "capitalised prop in action");
                props.push((run_start, k - 1, id.clone()));
                if !self.objects.iter().any(|(o, _)| o == &id) {
                    self.objects.push((id, name));
                }
            }
        }
        // Known objects mentioned by their head word (`the ring`).
        for (wi, w) in ws.iter().enumerate() {
            let lw = w.text.to_lowercase();
            let hit = self
                .objects
                .iter()
                .find(|(_, name)| {
                    name.split_whitespace()
                        .last()
                        .map(str::to_lowercase)
                        .as_deref()
                        == Some(&lw)
                        && !is_caps(&w.text)
                })
                .cloned();
            if let Some((_, _)) = hit {
                let mut node = Node::new(
                    format!("object:{}", slug(&lw)),
                    NodeKind::Object,
                    lw.clone(),
                );
                node.evidence = vec![self.evidence(i, w.start, w.end, &w.text)];
                let id = self.add_node(node, "known object named by its head word");
                props.push((wi, wi, id));
            }
        }
        // Character names.
        let mut names_at: Vec<(usize, String)> = Vec::new();
        for (wi, w) in ws.iter().enumerate() {
            if let Some(m) = self.cast.named(&w.text).cloned() {
                let ev = self.evidence(i, w.start, w.end, &w.text);
                self.mention(&m.id, ev);
                names_at.push((wi, m.id.clone()));
                if !named.contains(&m.id) {
                    named.push(m.id);
                }
            }
        }
        let lower: Vec<String> = ws
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        self.perception(i, s, &ws, &lower);
        self.possession(i, s, &ws, &lower, &props);
        self.social_relations(i, s, &ws, &lower, &names_at, None);
        self.social_goals(i, s, &ws, &lower, None, None, true);
        // Emotion noun as subject: `Jealousy made the decision for her`.
        if let Some(first) = lower.first() {
            if EMOTION_NOUNS.contains(&first.as_str()) {
                let holder = named.first().cloned().or_else(|| {
                    lower[1..]
                        .iter()
                        .find_map(|w| pronoun_gender(w).and_then(|_| self.resolve(w, &[])))
                });
                if let Some(holder) = holder {
                    let ev = self.span_evidence(i, s);
                    let display = self.display(&holder);
                    let mut node = Node::new(
                        format!(
                            "mental_state:e{i:04}-{:03}-emotion-{}",
                            s.start,
                            slug(first)
                        ),
                        NodeKind::MentalState,
                        format!("{display} feels {first}: {}", gloss(&s.text, 70)),
                    );
                    node.attitude = Some(Attitude::Emotion);
                    node.holder = Some(holder.clone());
                    node.content = Some(first.clone());
                    node.order = Some(i);
                    node.scene = Some(self.ctx.block.scene);
                    node.evidence = vec![ev.clone()];
                    let id = self.add_node(node, "emotion noun as subject");
                    self.mentals.push(MentalRec {
                        id,
                        holder,
                        attitude: Attitude::Emotion,
                        order: (i, s.start),
                        narrated: true,
                        evidence: ev,
                    });
                }
                return;
            }
        }
        // Mental-state verbs.
        let found = self.mental_states(i, s, &ws, &lower, None, None, true, 0);
        // An event when the subject is a character and its verb is not mental.
        let Some(first) = ws.first() else { return };
        let subject = match self.cast.named(&first.text) {
            Some(m) => Some(m.id.clone()),
            None if matches!(lower[0].as_str(), "he" | "she") => self.resolve(&lower[0], &[]),
            None => None,
        };
        let Some(agent) = subject else { return };
        if found.iter().any(|(verb_at, _)| *verb_at <= 3) || ws.len() < 2 {
            return;
        }
        let mut participants = vec![agent.clone()];
        for id in &named {
            if !participants.contains(id) {
                participants.push(id.clone());
            }
        }
        for w in &lower[1..] {
            if matches!(w.as_str(), "him" | "her") {
                if let Some(id) = self.resolve(w, &[&agent]) {
                    if !participants.contains(&id) {
                        participants.push(id);
                    }
                }
            }
        }
        let ev = self.span_evidence(i, s);
        let connective = matches!(lower[0].as_str(), "so" | "then" | "now");
        let id = self.event(
            i,
            s.start,
            Act::Action,
            &agent,
            participants,
            gloss(&s.text, 80),
            ev,
            connective,
        );
        self.enabling(i, s, &ws, &lower, &id, &agent);
    }

    fn display(&self, id: &str) -> String {
        self.cast
            .by_id(id)
            .map(|m| m.display.clone())
            .unwrap_or_else(|| id.trim_start_matches("character:").to_owned())
    }

    #[allow(clippy::too_many_arguments)]
    fn event(
        &mut self,
        i: usize,
        start: usize,
        act: Act,
        agent: &str,
        participants: Vec<String>,
        name: String,
        ev: Evidence,
        connective: bool,
    ) -> String {
        let mut node = Node::new(
            format!("event:e{i:04}-{start:03}-{}", act.as_str()),
            NodeKind::Event,
            name,
        );
        node.agent = Some(agent.to_owned());
        node.participants = participants.clone();
        node.act = Some(act);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.evidence = vec![ev.clone()];
        let reason = if act == Act::Action {
            "action sentence with a character subject"
        } else {
            "speech act"
        };
        let id = self.add_node(node, reason);
        if connective {
            if let Some(prev) = self.events.last().cloned() {
                self.add_edge(
                    EdgeKind::Causes,
                    &prev.id,
                    &id,
                    vec![prev.evidence.clone(), ev.clone()],
                    "connective (So/Then/Now) after an event",
                );
            }
        }
        self.events.push(EventRec {
            id: id.clone(),
            agent: agent.to_owned(),
            participants,
            order: (i, start),
            evidence: ev,
        });
        id
    }

    /// Finds `<subject> [not] <mental verb> <content>` clauses in a sentence and
    /// proposes a mental state for each (nested clauses become higher-order
    /// states); returns (verb position, id).
    #[allow(clippy::too_many_arguments)]
    fn mental_states(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        speaker: Option<&str>,
        addressee: Option<&str>,
        narrated: bool,
        from: usize,
    ) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        // A question asserts nothing about anyone's mind.
        if s.text.trim_end().ends_with('?') {
            return out;
        }
        let mut k = from;
        while k < ws.len() {
            let Some(attitude) = mental_verb(&lower[k]) else {
                k += 1;
                continue;
            };
            // Subject: the word before, skipping one negation/adverb.
            let mut j = k;
            let mut negated = false;
            while j > from
                && (NEGATIONS.contains(&lower[j - 1].as_str())
                    || ADVERBS.contains(&lower[j - 1].as_str()))
            {
                negated |= NEGATIONS.contains(&lower[j - 1].as_str())
                    && lower[j - 1] != "do"
                    && lower[j - 1] != "does"
                    && lower[j - 1] != "did";
                j -= 1;
            }
            if j == from && from > 0 || j == 0 {
                k += 1;
                continue;
            }
            let subj = &lower[j - 1];
            let holder = match subj.as_str() {
                "i" => speaker.map(str::to_owned),
                "you" => addressee.map(str::to_owned),
                "he" | "she" => self.resolve(subj, &speaker.into_iter().collect::<Vec<_>>()),
                _ => self.cast.named(&ws[j - 1].text).map(|m| m.id.clone()),
            };
            let Some(holder) = holder else {
                k += 1;
                continue;
            };
            let mut c = k + 1;
            if c < ws.len() && lower[c] == "that" {
                c += 1;
            }
            let clause_start = ws[j - 1].start;
            let content = if c < ws.len() {
                s.text
                    .chars()
                    .skip(ws[c].start - s.start)
                    .collect::<String>()
            } else {
                String::new()
            };
            let content = content.trim_end_matches(['.', '!', '?']).trim().to_owned();
            if content.is_empty() && attitude != Attitude::Knowledge {
                k += 1;
                continue;
            }
            // Target: a person named or pronoun-referred in the content, else an object.
            let mut target: Option<String> = None;
            for w in c..ws.len() {
                if let Some(m) = self.cast.named(&ws[w].text) {
                    if m.id != holder {
                        target = Some(m.id.clone());
                        break;
                    }
                }
                let lw = lower[w].as_str();
                let id = match lw {
                    "me" | "i" => speaker.map(str::to_owned),
                    "you" => addressee.map(str::to_owned),
                    "him" | "her" | "he" | "she" => self.resolve(lw, &[&holder]),
                    _ => None,
                };
                if let Some(id) = id.filter(|id| id != &holder) {
                    target = Some(id);
                    break;
                }
            }
            if target.is_none() {
                target = (c..ws.len()).find_map(|w| {
                    self.objects
                        .iter()
                        .find(|(_, name)| {
                            name.split_whitespace()
                                .last()
                                .map(str::to_lowercase)
                                .as_deref()
                                == Some(lower[w].as_str())
                        })
                        .map(|(id, _)| id.clone())
                });
            }
            let mut attitude = attitude;
            let mut truth = None;
            let mut label = attitude.as_str().to_owned();
            // Only a top-level clause is asserted; a nested one is someone's thought.
            if attitude == Attitude::Knowledge && negated && from == 0 {
                // Not knowing what the text states: a false belief.
                attitude = Attitude::Belief;
                truth = Some(false);
                label = "false-belief".to_owned();
            } else if attitude == Attitude::Belief && !negated && from == 0 {
                if let Some(t) = &target {
                    if let Some((_, lie)) = self.lies.get(t) {
                        truth = Some(false);
                        label = format!("false-belief (believes the lie “{}”)", gloss(lie, 40));
                    }
                }
            }
            let clause: String = s
                .text
                .chars()
                .skip(clause_start - s.start)
                .collect::<String>()
                .trim_end_matches(['.', '!', '?'])
                .to_owned();
            let display = self.display(&holder);
            let id = format!(
                "mental_state:e{i:04}-{:03}-{}",
                ws[k].start,
                attitude.as_str()
            );
            let ev = self.evidence(
                i,
                clause_start,
                clause_start + clause.chars().count(),
                &clause,
            );
            let mut node = Node::new(
                id.clone(),
                NodeKind::MentalState,
                format!("{display}: {}", gloss(&clause, 80)),
            );
            node.attitude = Some(attitude);
            node.holder = Some(holder.clone());
            node.content = Some(if truth == Some(false) {
                format!("{label}: {content}")
            } else {
                content.clone()
            });
            node.truth = truth;
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.evidence = vec![ev.clone()];
            // Higher order: a mental clause inside the content.
            let inner = self.mental_states(i, s, ws, lower, speaker, addressee, narrated, c);
            if let Some((_, inner_id)) = inner.first() {
                node.target = Some(inner_id.clone());
            } else {
                node.target = target.clone();
            }
            let node_target = node.target.clone();
            let id = self.add_node(node, "mental-state verb with its holder");
            if let Some(t) = node_target {
                self.add_edge(
                    EdgeKind::About,
                    &id,
                    &t,
                    vec![ev.clone()],
                    "content of the mental state",
                );
            }
            self.mentals.push(MentalRec {
                id: id.clone(),
                holder,
                attitude,
                order: (i, ws[k].start),
                narrated,
                evidence: ev,
            });
            out.push((k - from, id));
            out.extend(inner);
            break;
        }
        out
    }

    fn dialogue(&mut self, i: usize, text: &str, paren: Option<(usize, String)>) {
        let Some(speaker) = self.speaker_at(i) else {
            return;
        };
        let addressee = self.addressee(i, &speaker);
        let paren_text = paren
            .as_ref()
            .map(|(_, p)| p.trim_matches(['(', ')']).to_lowercase())
            .unwrap_or_default();
        let n = text.chars().count();
        let line_ev = self.evidence(i, 0, n, text);
        let speaker_name = self.display(&speaker);
        let addressee_name = addressee.as_deref().map(|a| self.display(a));
        // The parenthetical's state of mind.
        if let Some((pi, ptext)) = &paren {
            if let Some((attitude, phrase)) = words(&paren_text, 0)
                .iter()
                .find_map(|w| paren_state(&w.text))
            {
                let pev = self.evidence(*pi, 0, ptext.chars().count(), ptext);
                let to = match (&attitude, &addressee_name) {
                    (Attitude::Pretense, Some(a)) => format!(" to {a}"),
                    _ => String::new(),
                };
                let mut node = Node::new(
                    format!("mental_state:e{i:04}-000-{}", attitude.as_str()),
                    NodeKind::MentalState,
                    format!("{speaker_name} {phrase}{to}: “{}”", gloss(text, 60)),
                );
                node.attitude = Some(attitude);
                node.holder = Some(speaker.clone());
                node.content = Some(text.to_owned());
                node.order = Some(i);
                node.scene = Some(self.ctx.block.scene);
                if attitude == Attitude::Pretense {
                    node.target = addressee.clone();
                }
                node.evidence = vec![pev.clone(), line_ev.clone()];
                let target = node.target.clone();
                let id = self.add_node(node, "state of mind in a parenthetical");
                if let Some(t) = target {
                    self.add_edge(
                        EdgeKind::About,
                        &id,
                        &t,
                        vec![pev.clone()],
                        "deceived character",
                    );
                }
                self.mentals.push(MentalRec {
                    id,
                    holder: speaker.clone(),
                    attitude,
                    order: (i, 0),
                    narrated: false,
                    evidence: pev,
                });
            }
        }
        // Speech act.
        if let Some(act) = speech_act(text, &paren_text) {
            let mut participants = vec![speaker.clone()];
            if let Some(a) = &addressee {
                participants.push(a.clone());
            }
            for w in words(text, 0) {
                if let Some(m) = self.cast.named(&w.text) {
                    if !participants.contains(&m.id) {
                        participants.push(m.id.clone());
                    }
                }
            }
            let to = addressee_name
                .clone()
                .unwrap_or_else(|| "no one".to_owned());
            let name = format!(
                "{speaker_name} {} {to}: “{}”",
                act_phrase(act),
                gloss(text, 60)
            );
            let id = self.event(
                i,
                0,
                act,
                &speaker,
                participants,
                name,
                line_ev.clone(),
                false,
            );
            if let Some(a) = &addressee {
                self.add_edge(
                    EdgeKind::Perceives,
                    a,
                    &id,
                    vec![line_ev.clone()],
                    "the addressee of a speech act hears it",
                );
            }
            if act == Act::Lie {
                self.lies.insert(speaker.clone(), (i, text.to_owned()));
                self.concealment(i, &id, &speaker, &line_ev);
            }
            let l = text.to_lowercase();
            if matches!(act, Act::Confession | Act::Reveal)
                && (l.contains("lied") || l.contains("lie ") || l.contains("lying"))
            {
                // Reveals the speaker's latest deception of this addressee.
                let pretense = self
                    .mentals
                    .iter()
                    .filter(|m| m.attitude == Attitude::Pretense && m.holder == speaker)
                    .map(|m| m.id.clone())
                    .next_back()
                    .or_else(|| {
                        self.ctx
                            .entities
                            .values()
                            .filter(|n| {
                                n.attitude == Some(Attitude::Pretense)
                                    && n.holder.as_deref() == Some(speaker.as_str())
                                    && (addressee.is_none() || n.target == addressee)
                            })
                            .max_by_key(|n| (n.order, n.id.clone()))
                            .map(|n| n.id.clone())
                    });
                if let Some(p) = pretense {
                    self.add_edge(
                        EdgeKind::Reveals,
                        &id,
                        &p,
                        vec![line_ev.clone()],
                        "confession of a lie",
                    );
                }
            }
        }
        // Mental-state verbs in the line.
        for s in sentences(text) {
            let ws = words(&s.text, s.start);
            let lower: Vec<String> = ws
                .iter()
                .map(|w| w.text.to_lowercase().replace('’', "'"))
                .collect();
            for w in &ws {
                if let Some(m) = self.cast.named(&w.text).cloned() {
                    if m.id != speaker {
                        self.recent.retain(|r| r != &m.id);
                        self.recent.push(m.id.clone());
                    }
                }
            }
            self.mental_states(
                i,
                &s,
                &ws,
                &lower,
                Some(&speaker),
                addressee.as_deref(),
                false,
                0,
            );
            self.social_relations(i, &s, &ws, &lower, &[], Some(&speaker));
            self.social_goals(
                i,
                &s,
                &ws,
                &lower,
                Some(&speaker),
                addressee.as_deref(),
                false,
            );
        }
        // The speaker stays the most recent mention after their own line.
        self.recent.retain(|r| r != &speaker);
        self.recent.push(speaker);
    }

    /// Context and causal edges over the block's events and mental states.
    fn link(&mut self) {
        let events = self.events.clone();
        let mentals = self.mentals.clone();
        for e in &events {
            for p in &e.participants {
                self.add_edge(
                    EdgeKind::ParticipatesIn,
                    p,
                    &e.id,
                    vec![e.evidence.clone()],
                    "participant of the event",
                );
            }
            if let Some(loc) = self.location.clone() {
                self.add_edge(
                    EdgeKind::LocatedAt,
                    &e.id,
                    &loc,
                    vec![e.evidence.clone()],
                    "the scene's location",
                );
            }
        }
        for m in &mentals {
            self.add_edge(
                EdgeKind::Holds,
                &m.holder,
                &m.id,
                vec![m.evidence.clone()],
                "holder of the mental state",
            );
            // A narrated state follows from the event just before it (a reaction).
            if m.narrated {
                if let Some(e) = events
                    .iter()
                    .rev()
                    .find(|e| e.order < m.order && e.participants.contains(&m.holder))
                {
                    self.add_edge(
                        EdgeKind::Triggers,
                        &e.id,
                        &m.id,
                        vec![e.evidence.clone(), m.evidence.clone()],
                        "reaction: state after an event involving the holder",
                    );
                }
            } else if m.attitude == Attitude::Pretense {
                // A lie told is the event that expresses the deception.
                if let Some(e) = events
                    .iter()
                    .find(|e| e.order.0 == m.order.0 + 1 || e.order.0 == m.order.0)
                {
                    self.add_edge(
                        EdgeKind::Motivates,
                        &m.id,
                        &e.id,
                        vec![m.evidence.clone(), e.evidence.clone()],
                        "deception expressed by the lie",
                    );
                }
            }
            if matches!(
                m.attitude,
                Attitude::Intention | Attitude::Desire | Attitude::Emotion | Attitude::SocialGoal
            ) {
                let next = events
                    .iter()
                    .find(|e| e.order > m.order && e.agent == m.holder);
                let prev = events
                    .iter()
                    .rev()
                    .find(|e| e.order < m.order && e.agent == m.holder);
                if let Some(e) = next.or(prev) {
                    self.add_edge(
                        EdgeKind::Motivates,
                        &m.id,
                        &e.id,
                        vec![m.evidence.clone(), e.evidence.clone()],
                        "state of the agent nearest the act",
                    );
                }
            }
        }
        // Reactions: an event by B involving A follows the latest event by A
        // involving B (earlier in this block or in an earlier block).
        let mut prior: Vec<EventRec> = self
            .ctx
            .entities
            .values()
            .filter(|n| n.kind == NodeKind::Event && n.agent.is_some())
            .map(|n| EventRec {
                id: n.id.clone(),
                agent: n.agent.clone().unwrap_or_default(),
                participants: n.participants.clone(),
                order: (
                    n.order.unwrap_or(0),
                    n.evidence.first().map_or(0, |e| e.start),
                ),
                evidence: n
                    .evidence
                    .first()
                    .cloned()
                    .unwrap_or_else(|| self.evidence(0, 0, 0, "")),
            })
            .collect();
        prior.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
        for e2 in &events {
            let cause = prior
                .iter()
                .rev()
                .find(|e1| {
                    e1.agent != e2.agent
                        && e1.participants.contains(&e2.agent)
                        && e2.participants.contains(&e1.agent)
                })
                .cloned();
            if let Some(e1) = cause {
                self.add_edge(
                    EdgeKind::Causes,
                    &e1.id,
                    &e2.id,
                    vec![e1.evidence.clone(), e2.evidence.clone()],
                    "reaction: the other character's latest act involving the agent",
                );
            }
            prior.push(e2.clone());
        }
    }
}

/// Verbs of perception that make their subject a witness.
const PERCEIVE_VERBS: &[&str] = &[
    "sees",
    "saw",
    "notices",
    "noticed",
    "watches",
    "watched",
    "hears",
    "heard",
    "glances",
    "spots",
    "spotted",
    "overhears",
    "overheard",
    "witnesses",
    "witnessed",
];

/// Verbs that put a prop in the subject's hands.
const HOLD_VERBS: &[&str] = &[
    "pockets", "pocketed", "holds", "held", "takes", "took", "grabs", "grabbed", "keeps", "kept",
    "carries", "carried", "clutches", "clutched", "hides", "hid", "owns", "wears", "snatches",
    "snatched",
];

/// Words naming what one person is to another.
const ROLES: &[&str] = &[
    "sister",
    "brother",
    "mother",
    "father",
    "son",
    "daughter",
    "wife",
    "husband",
    "apprentice",
    "boss",
    "employer",
    "employee",
    "creditor",
    "debtor",
    "lender",
    "partner",
    "friend",
    "uncle",
    "aunt",
    "cousin",
    "landlord",
    "tenant",
    "client",
    "lawyer",
    "mentor",
    "girlfriend",
    "boyfriend",
    "fiancé",
    "fiancée",
];

/// Verbs of helping and hindering another person.
fn goal_verb(word: &str) -> Option<&'static str> {
    Some(match word {
        "help" | "helps" | "helping" | "save" | "saves" | "protect" | "protects" | "protecting"
        | "rescue" | "rescues" => "help",
        "hurt" | "hurts" | "hurting" | "ruin" | "ruins" | "betray" | "betrays" | "hinder"
        | "hinders" | "sabotage" | "sabotages" => "hinder",
        _ => return None,
    })
}

/// Words between a subject and its verb that change nothing about who acts.
const AUXILIARIES: &[&str] = &[
    "would", "will", "could", "can", "to", "going", "is", "am", "are", "was", "meant", "want",
    "wants", "wanted", "try", "tries", "tried", "has", "have", "had", "must", "should",
];

impl Extractor<'_, '_> {
    /// The person a word refers to: a name, `I`/`me` (the speaker), `you` (the
    /// addressee) or a personal pronoun (the latest character of its gender).
    fn person(
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

    /// Evidence for words `a..=b` of a sentence.
    fn words_evidence(&self, i: usize, s: &Span, ws: &[Span], a: usize, b: usize) -> Evidence {
        let text: String = s
            .text
            .chars()
            .skip(ws[a].start - s.start)
            .take(ws[b].end - ws[a].start)
            .collect();
        self.evidence(i, ws[a].start, ws[b].end, &text)
    }

    /// `<Character> [adverb] sees|notices|watches…`: a witness of the latest act
    /// by someone else in the block.
    fn perception(&mut self, i: usize, s: &Span, ws: &[Span], lower: &[String]) {
        let Some(who) = self.person(ws, lower, 0, None, None, &[]) else {
            return;
        };
        let mut k = 1;
        while k < lower.len() && ADVERBS.contains(&lower[k].as_str()) {
            k += 1;
        }
        if k >= lower.len() || !PERCEIVE_VERBS.contains(&lower[k].as_str()) {
            return;
        }
        let Some(e) = self.events.iter().rev().find(|e| e.agent != who).cloned() else {
            return;
        };
        let ev = self.span_evidence(i, s);
        self.add_edge(
            EdgeKind::Perceives,
            &who,
            &e.id,
            vec![ev, e.evidence],
            "perception verb: the block's latest act by someone else",
        );
    }

    /// Holding verbs and possessives before a prop.
    fn possession(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        props: &[(usize, usize, String)],
    ) {
        if props.is_empty() {
            return;
        }
        if let Some(who) = self.person(ws, lower, 0, None, None, &[]) {
            let mut k = 1;
            while k < lower.len() && ADVERBS.contains(&lower[k].as_str()) {
                k += 1;
            }
            if k < lower.len() && HOLD_VERBS.contains(&lower[k].as_str()) {
                // Only a determiner or particle between the verb and the prop.
                let held = props.iter().find(|(a, _, _)| {
                    *a > k
                        && lower[k + 1..*a].iter().all(|w| {
                            matches!(
                                w.as_str(),
                                "the"
                                    | "a"
                                    | "an"
                                    | "out"
                                    | "up"
                                    | "back"
                                    | "his"
                                    | "her"
                                    | "their"
                            )
                        })
                });
                if let Some((_, b, id)) = held {
                    let ev = self.words_evidence(i, s, ws, 0, *b);
                    self.add_edge(
                        EdgeKind::Possesses,
                        &who,
                        id,
                        vec![ev],
                        "holding verb with the character as subject and a prop after it",
                    );
                }
            }
        }
        for (a, b, id) in props {
            for back in 1..=2 {
                if *a < back {
                    break;
                }
                let j = a - back;
                let w = lower[j].as_str();
                let who = match w {
                    "his" | "her" => self.resolve(w, &[]),
                    _ if w.ends_with("'s") => self.cast.named(&ws[j].text).map(|m| m.id.clone()),
                    _ => None,
                };
                if let Some(who) = who {
                    let ev = self.words_evidence(i, s, ws, j, *b);
                    self.add_edge(
                        EdgeKind::Possesses,
                        &who,
                        id,
                        vec![ev],
                        "possessive right before a prop",
                    );
                    break;
                }
                // `her mother's ring` is not hers.
                if w.ends_with("'s") {
                    break;
                }
            }
        }
    }

    /// `<Name>, his|her|my <role>` (apposition) and `He's|<Name> is my <role>`
    /// (copula): a labelled relation from the possessor to the person named.
    fn social_relations(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        names_at: &[(usize, String)],
        speaker: Option<&str>,
    ) {
        for r in 1..ws.len() {
            let role = lower[r].trim_end_matches("'s");
            if !ROLES.contains(&role) {
                continue;
            }
            let poss = lower[r - 1].as_str();
            let named_possessor = match poss {
                "my" => match speaker {
                    Some(sp) => Some(sp.to_owned()),
                    None => continue,
                },
                "his" | "her" => None,
                p if p.ends_with("'s") => match self.cast.named(&ws[r - 1].text) {
                    Some(m) => Some(m.id.clone()),
                    None => continue,
                },
                _ => continue,
            };
            let p = r - 1;
            let apposition = names_at
                .iter()
                .rev()
                .find(|(wi, _)| *wi < p && *wi + 4 >= p)
                .and_then(|(wi, id)| {
                    let between: String = s
                        .text
                        .chars()
                        .skip(ws[*wi].end - s.start)
                        .take(ws[p].start - ws[*wi].end)
                        .collect();
                    between.contains(',').then(|| (id.clone(), *wi))
                });
            let copula = || {
                if p == 0 {
                    return None;
                }
                let c = lower[p - 1].as_str();
                if matches!(c, "he's" | "she's") {
                    let who = self.resolve(c.trim_end_matches("'s"), &[])?;
                    return Some((who, p - 1));
                }
                if c == "is" && p >= 2 {
                    let who = self.cast.named(&ws[p - 2].text)?;
                    return Some((who.id.clone(), p - 2));
                }
                None
            };
            let Some((referent, from)) = apposition.or_else(copula) else {
                continue;
            };
            let possessor = named_possessor.or_else(|| self.resolve(poss, &[&referent]));
            let Some(possessor) = possessor.filter(|p| p != &referent) else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, from, r);
            let edge = Edge::make_id(EdgeKind::SocialRelation, &possessor, &referent);
            self.add_edge(
                EdgeKind::SocialRelation,
                &possessor,
                &referent,
                vec![ev],
                "role word after a possessive, in apposition or after a copula",
            );
            if let Some(&at) = self.edge_index.get(&edge) {
                if let Item::Edge(e) = &mut self.items[at].0 {
                    e.label.get_or_insert_with(|| role.to_owned());
                }
            }
        }
    }

    /// `<person> [aux…] help|save|protect|hurt|ruin… <other person>`: a social
    /// goal of the subject toward the object, unless negated or asked.
    #[allow(clippy::too_many_arguments)]
    fn social_goals(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        speaker: Option<&str>,
        addressee: Option<&str>,
        narrated: bool,
    ) {
        if s.text.trim_end().ends_with('?') {
            return;
        }
        for k in 1..ws.len().saturating_sub(1) {
            let Some(polarity) = goal_verb(&lower[k]) else {
                continue;
            };
            let mut holder = None;
            let mut negated = false;
            let mut hj = k;
            for j in (k.saturating_sub(5)..k).rev() {
                let w = lower[j].as_str();
                if w.ends_with("n't") || matches!(w, "not" | "never") {
                    negated = true;
                    continue;
                }
                if AUXILIARIES.contains(&w) || ADVERBS.contains(&w) {
                    continue;
                }
                holder = self.person(ws, lower, j, speaker, addressee, &[]);
                hj = j;
                break;
            }
            let Some(holder) = holder.filter(|_| !negated) else {
                continue;
            };
            // `saved her brother`: the pronoun is a possessive, not the person helped.
            if lower
                .get(k + 2)
                .is_some_and(|w| ROLES.contains(&w.trim_end_matches("'s")))
            {
                continue;
            }
            let Some(target) = self
                .person(ws, lower, k + 1, speaker, addressee, &[&holder])
                .filter(|t| t != &holder)
            else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, hj, k + 1);
            let (who, whom) = (self.display(&holder), self.display(&target));
            let mut node = Node::new(
                format!("mental_state:e{i:04}-{:03}-social_goal", ws[k].start),
                NodeKind::MentalState,
                format!(
                    "{who} wants to {polarity} {whom}: “{}”",
                    gloss(&ev.quote, 60)
                ),
            );
            node.attitude = Some(Attitude::SocialGoal);
            node.holder = Some(holder.clone());
            node.target = Some(target.clone());
            node.content = Some(format!("{polarity} {whom}"));
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.evidence = vec![ev.clone()];
            let id = self.add_node(node, "help or hinder verb toward another person");
            self.add_edge(
                EdgeKind::About,
                &id,
                &target,
                vec![ev.clone()],
                "the person the goal is toward",
            );
            self.mentals.push(MentalRec {
                id,
                holder,
                attitude: Attitude::SocialGoal,
                order: (i, ws[k].start),
                narrated,
                evidence: ev,
            });
        }
    }

    /// A lie conceals the liar's latest knowledge, intention or desire (in this
    /// block, else known before), else the pretense marked on the line.
    fn concealment(&mut self, i: usize, lie: &str, speaker: &str, line_ev: &Evidence) {
        const HIDDEN: [Attitude; 3] = [Attitude::Knowledge, Attitude::Intention, Attitude::Desire];
        let here = self
            .mentals
            .iter()
            .rev()
            .find(|m| m.holder == speaker && HIDDEN.contains(&m.attitude) && m.order.0 < i)
            .map(|m| m.id.clone());
        let before = || {
            self.ctx
                .entities
                .values()
                .filter(|n| {
                    n.kind == NodeKind::MentalState
                        && n.holder.as_deref() == Some(speaker)
                        && n.attitude.is_some_and(|a| HIDDEN.contains(&a))
                })
                .max_by_key(|n| (n.order, n.id.clone()))
                .map(|n| n.id.clone())
        };
        let pretense = || {
            self.mentals
                .iter()
                .find(|m| m.holder == speaker && m.attitude == Attitude::Pretense && m.order.0 == i)
                .map(|m| m.id.clone())
        };
        if let Some(hidden) = here.or_else(before).or_else(pretense) {
            self.add_edge(
                EdgeKind::Conceals,
                lie,
                &hidden,
                vec![line_ev.clone()],
                "a lie conceals the liar's latest knowledge, intention or desire",
            );
        }
    }

    /// `… lets|allows <person> …` / `… so that <person> …` enables that person's
    /// act; `… stops|keeps|prevents <person> from …` prevents it. The act is a
    /// second event from the clause after the person.
    fn enabling(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        first_event: &str,
        agent: &str,
    ) {
        for k in 1..ws.len().saturating_sub(1) {
            let (kind, who_at, act_at) = match lower[k].as_str() {
                "lets" | "let" | "allows" | "allowed" => (EdgeKind::Enables, k + 1, k + 2),
                "so" if lower[k + 1] == "that" => (EdgeKind::Enables, k + 2, k + 3),
                "stops" | "stopped" | "keeps" | "kept" | "prevents" | "prevented"
                    if lower.get(k + 2).map(String::as_str) == Some("from") =>
                {
                    (EdgeKind::Prevents, k + 1, k + 3)
                }
                _ => continue,
            };
            if act_at >= ws.len() {
                continue;
            }
            let Some(who) = self
                .person(ws, lower, who_at, None, None, &[agent])
                .filter(|w| w != agent)
            else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, who_at, ws.len() - 1);
            let name = if kind == EdgeKind::Prevents {
                format!(
                    "{} is kept from: {}",
                    self.display(&who),
                    gloss(&ev.quote, 70)
                )
            } else {
                gloss(&ev.quote, 80)
            };
            let second = self.event(
                i,
                ws[who_at].start,
                Act::Action,
                &who,
                vec![who.clone(), agent.to_owned()],
                name,
                ev,
                false,
            );
            let reason = if kind == EdgeKind::Prevents {
                "stops/keeps/prevents <person> from: the first act prevents the second"
            } else {
                "lets/allows/so that <person>: the first act enables the second"
            };
            let sentence = self.span_evidence(i, s);
            self.add_edge(kind, first_event, &second, vec![sentence], reason);
            break;
        }
    }
}

#[cfg(test)]
mod tests;
