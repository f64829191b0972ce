//! What a question may claim, read off the verified graph: causal neighbours,
//! ancestry, who holds what, story order; and [`Facts::classify`], the one
//! judgement both the `rules` generator and the model-output verifier use to
//! decide whether an option is a gold answer, a distractor wrong for a stated
//! reason, or unusable (true in some other sense, so never offered).

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use crate::graph::{Attitude, Edge, EdgeKind, Graph, Node, NodeKind};

use super::schema::DistractorReason;
use pronouns::Pronoun;

mod classify;
pub mod pronouns;
mod wording;

/// What a question asks about; node arguments are indices into [`Graph::nodes`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ask {
    /// Which earlier event ultimately set `end` in motion (any causal ancestor).
    Origin {
        /// The chain's last node.
        end: usize,
    },
    /// The direct cause of `target`.
    Cause {
        /// An event or mental state.
        target: usize,
    },
    /// The direct effect of `source`.
    Effect {
        /// An event or mental state.
        source: usize,
    },
    /// Which characters take part in an event.
    Participants {
        /// The event.
        event: usize,
    },
    /// Who holds a mental state.
    Holder {
        /// The mental state.
        state: usize,
    },
    /// Which of two moments comes first.
    Order {
        /// One moment.
        a: usize,
        /// The other.
        b: usize,
    },
    /// Which state of mind a character has by the time of `moment`.
    MindBefore {
        /// The character.
        character: usize,
        /// The moment (an event or mental state) that fixes the time.
        moment: usize,
    },
    /// What a character knows by `moment`, against what they only believe
    /// (wrongly) or do not know (knowledge access).
    KnowsAt {
        /// The character.
        character: usize,
        /// The moment that fixes the time.
        moment: usize,
    },
    /// Which of a character's beliefs by `moment` is false (false belief).
    FalseBelief {
        /// The character.
        character: usize,
        /// The moment that fixes the time.
        moment: usize,
    },
    /// Which of a character's earlier states has ended by `moment` (belief
    /// change: corrected, given up, carried out).
    NoLonger {
        /// The character.
        character: usize,
        /// The moment that fixes the time.
        moment: usize,
    },
}

impl Ask {
    /// The character a question about one character's mind is about.
    pub fn character(&self) -> Option<usize> {
        match *self {
            Ask::MindBefore { character, .. }
            | Ask::KnowsAt { character, .. }
            | Ask::FalseBelief { character, .. }
            | Ask::NoLonger { character, .. } => Some(character),
            _ => None,
        }
    }
}

/// What an option is, judged against the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A right answer.
    Gold,
    /// Wrong, for this reason.
    Wrong(DistractorReason),
    /// Neither clearly right nor clearly wrong (e.g. an indirect cause): never offered.
    Unusable,
}

/// An index over one graph for question building.
#[derive(Debug)]
pub struct Facts<'g> {
    /// The graph.
    pub graph: &'g Graph,
    index: HashMap<&'g str, usize>,
    causal_in: Vec<Vec<usize>>,
    causal_out: Vec<Vec<usize>>,
    /// Per node: the indices of the graph's edges leaving it.
    edges_from: Vec<Vec<usize>>,
    participants: Vec<BTreeSet<usize>>,
    /// Character node indices, by id.
    pub characters: Vec<usize>,
    /// Event and mental-state indices in story order.
    pub moments: Vec<usize>,
    /// Per character index: mental states held, in story order.
    held: HashMap<usize, Vec<usize>>,
    glosses: Vec<String>,
    /// Per node: whether its words, as an option, say something (see
    /// [`Facts::says_something`]).
    telling: Vec<bool>,
    /// Per node: the pronoun the narration uses for it (characters).
    pronouns: Vec<Option<Pronoun>>,
    /// Per node: its gloss's content words as ids into `vocabulary`,
    /// sorted (compared many times per ask, so never as strings).
    words: Vec<Vec<u32>>,
    vocabulary: FxHashMap<String, u32>,
    /// Per node: the index of its holder (mental states).
    holders: Vec<Option<usize>>,
    people: Vec<BTreeSet<usize>>,
    /// `people` as bit sets (`stride` words a node), for reach.
    people_bits: Vec<u64>,
    stride: usize,
    /// Per node, once asked: its ancestors and its descendants.
    up: RefCell<Vec<Option<Rc<BTreeSet<usize>>>>>,
    down: RefCell<Vec<Option<Rc<BTreeSet<usize>>>>>,
    verdicts: RefCell<FxHashMap<Ask, Judged>>,
    reach: RefCell<FxHashMap<(usize, usize), bool>>,
}

/// An ask's pool with the verdict of each option, shared.
pub type Judged = Rc<Vec<(usize, Verdict)>>;

/// Causal edge kinds a "reason" may follow (`prevents` is not a reason for what happened).
fn is_causal(kind: EdgeKind) -> bool {
    matches!(
        kind,
        EdgeKind::Causes | EdgeKind::Enables | EdgeKind::Motivates | EdgeKind::Triggers
    )
}

impl<'g> Facts<'g> {
    /// Indexes a graph.
    pub fn new(graph: &'g Graph) -> Facts<'g> {
        let n = graph.nodes.len();
        let index: HashMap<&str, usize> = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.id.as_str(), i))
            .collect();
        let mut causal_in = vec![Vec::new(); n];
        let mut causal_out = vec![Vec::new(); n];
        let mut participants: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut held: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            for p in &node.participants {
                if let Some(&c) = index.get(p.as_str()) {
                    participants[i].insert(c);
                }
            }
            if let Some(&c) = node.holder.as_deref().and_then(|h| index.get(h)) {
                held.entry(c).or_default().push(i);
            }
        }
        let mut edges_from = vec![Vec::new(); n];
        for (e, edge) in graph.edges.iter().enumerate() {
            if let Some(&s) = index.get(edge.source.as_str()) {
                edges_from[s].push(e);
            }
        }
        for edge in &graph.edges {
            let (Some(&s), Some(&t)) = (
                index.get(edge.source.as_str()),
                index.get(edge.target.as_str()),
            ) else {
                continue;
            };
            if s == t {
                continue;
            }
            if is_causal(edge.kind) {
                causal_in[t].push(s);
                causal_out[s].push(t);
            } else if edge.kind == EdgeKind::ParticipatesIn {
                participants[t].insert(s);
            }
        }
        for list in causal_in.iter_mut().chain(causal_out.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        let mut characters: Vec<usize> = (0..n)
            .filter(|&i| graph.nodes[i].kind == NodeKind::Character)
            .collect();
        characters.sort_by(|&a, &b| graph.nodes[a].id.cmp(&graph.nodes[b].id));
        let mut moments: Vec<usize> = (0..n)
            .filter(|&i| matches!(graph.nodes[i].kind, NodeKind::Event | NodeKind::MentalState))
            .collect();
        let order = |i: usize| (graph.nodes[i].order.unwrap_or(usize::MAX), i);
        moments.sort_by_key(|&i| order(i));
        for list in held.values_mut() {
            list.sort_by_key(|&i| order(i));
        }
        let mut facts = Facts {
            graph,
            index,
            causal_in,
            causal_out,
            edges_from,
            participants,
            characters,
            moments,
            held,
            glosses: Vec::new(),
            telling: Vec::new(),
            pronouns: Vec::new(),
            words: Vec::new(),
            vocabulary: FxHashMap::default(),
            holders: Vec::new(),
            people: Vec::new(),
            people_bits: Vec::new(),
            stride: 0,
            up: RefCell::new(vec![None; n]),
            down: RefCell::new(vec![None; n]),
            verdicts: RefCell::default(),
            reach: RefCell::default(),
        };
        facts.holders = graph
            .nodes
            .iter()
            .map(|node| node.holder.as_deref().and_then(|h| facts.index_of(h)))
            .collect();
        facts.people = (0..n).map(|i| facts.people_of(i)).collect();
        let bit_of: HashMap<usize, usize> = facts
            .people
            .iter()
            .flatten()
            .copied()
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .enumerate()
            .map(|(bit, c)| (c, bit))
            .collect();
        facts.stride = bit_of.len().div_ceil(64).max(1);
        facts.people_bits = vec![0; n * facts.stride];
        for (i, people) in facts.people.iter().enumerate() {
            for c in people {
                let bit = bit_of[c];
                facts.people_bits[i * facts.stride + bit / 64] |= 1 << (bit % 64);
            }
        }
        facts.glosses = (0..n).map(|i| facts.make_gloss(i)).collect();
        facts.telling = (0..n)
            .map(|i| {
                graph.nodes[i].kind != NodeKind::MentalState
                    || content_words(&facts.content(i)).len() >= 2
            })
            .collect();
        facts.pronouns = pronouns::learn(&facts);
        let mut vocabulary = FxHashMap::default();
        facts.words = facts
            .glosses
            .iter()
            .map(|g| {
                let mut ids: Vec<u32> = content_words(g)
                    .into_iter()
                    .map(|w| {
                        let next = vocabulary.len() as u32;
                        *vocabulary.entry(w).or_insert(next)
                    })
                    .collect();
                ids.sort_unstable();
                ids
            })
            .collect();
        facts.vocabulary = vocabulary;
        facts
    }

    /// The node at an index.
    pub fn node(&self, i: usize) -> &'g Node {
        &self.graph.nodes[i]
    }

    /// The index of a node id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// Story time of a node (unknown sorts last).
    pub fn order(&self, i: usize) -> usize {
        self.node(i).order.unwrap_or(usize::MAX)
    }

    /// The graph's edges leaving a node (indices into its edges).
    pub fn edges_from(&self, i: usize) -> impl Iterator<Item = &'g Edge> + '_ {
        self.edges_from[i].iter().map(|&e| &self.graph.edges[e])
    }

    /// Direct causes (causes, enables, motivates, triggers).
    pub fn causes(&self, i: usize) -> &[usize] {
        &self.causal_in[i]
    }

    /// Direct effects.
    pub fn effects(&self, i: usize) -> &[usize] {
        &self.causal_out[i]
    }

    /// Characters taking part in an event.
    pub fn participants(&self, i: usize) -> &BTreeSet<usize> {
        &self.participants[i]
    }

    /// Mental states a character holds, in story order.
    pub fn held_by(&self, character: usize) -> &[usize] {
        self.held.get(&character).map_or(&[], Vec::as_slice)
    }

    /// The holder of a mental state.
    pub fn holder(&self, state: usize) -> Option<usize> {
        self.holders[state]
    }

    /// Every node with a causal path to `i`.
    pub fn ancestors(&self, i: usize) -> Rc<BTreeSet<usize>> {
        if let Some(known) = &self.up.borrow()[i] {
            return Rc::clone(known);
        }
        let found = Rc::new(self.walk(i, &self.causal_in));
        self.up.borrow_mut()[i] = Some(Rc::clone(&found));
        found
    }

    /// Every node `i` has a causal path to.
    pub fn descendants(&self, i: usize) -> Rc<BTreeSet<usize>> {
        if let Some(known) = &self.down.borrow()[i] {
            return Rc::clone(known);
        }
        let found = Rc::new(self.walk(i, &self.causal_out));
        self.down.borrow_mut()[i] = Some(Rc::clone(&found));
        found
    }

    fn walk(&self, start: usize, adj: &[Vec<usize>]) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if w != start && seen.insert(w) {
                    stack.push(w);
                }
            }
        }
        seen
    }

    /// The characters a moment concerns: agent, participants, holder.
    pub fn people(&self, i: usize) -> &BTreeSet<usize> {
        &self.people[i]
    }

    fn people_of(&self, i: usize) -> BTreeSet<usize> {
        let node = self.node(i);
        let mut out = self.participants[i].clone();
        for id in [node.agent.as_deref(), node.holder.as_deref()]
            .into_iter()
            .flatten()
        {
            out.extend(self.index_of(id));
        }
        out
    }

    /// A character's display name.
    pub fn name(&self, character: usize) -> &'g str {
        &self.node(character).name
    }

    /// How a node reads in a question or option: its name, gloss or quote;
    /// never its id.
    pub fn gloss(&self, i: usize) -> String {
        self.glosses[i].clone()
    }

    fn make_gloss(&self, i: usize) -> String {
        let node = self.node(i);
        if node.kind != NodeKind::MentalState {
            // One colon at most in a question: "X threatens Y, saying “…”".
            let name = node.name.trim();
            return match name.split_once(": “") {
                Some((head, quote)) if node.act.is_some() => format!("{head}, saying “{quote}"),
                Some((head, quote)) => format!("{head}, “{quote}"),
                None => name.to_owned(),
            };
        }
        let holder = self.holder(i).map(|h| self.first_name(h)).unwrap_or("");
        // A pretence shares its words with the lie it motivates; say what it is.
        if node.attitude == Some(Attitude::Pretense) && !holder.is_empty() {
            let target = node.target.as_deref().and_then(|t| self.index_of(t));
            if let Some(t) = target.filter(|&t| self.node(t).kind == NodeKind::Character) {
                return format!("{holder} means to deceive {}", self.first_name(t));
            }
        }
        match node.name.split_once(": ") {
            Some((who, rest)) if !holder.is_empty() && who == holder => {
                if rest.starts_with(holder) {
                    rest.trim().to_owned()
                } else {
                    format!(
                        "{holder}'s {}, “{}”",
                        attitude_noun(node.attitude),
                        rest.trim().trim_matches(['“', '”'])
                    )
                }
            }
            // An annotation's state is its content alone ("get Licence
            // 118 for Halvard"): said with its holder and attitude.
            _ if !holder.is_empty() && !node.name.contains(holder) => self.statement(i),
            _ => node.name.trim().to_owned(),
        }
    }

    /// A mental state with its holder left out ("thinks he got away with it"),
    /// for asking who holds it; `None` when the wording cannot hide the holder.
    pub fn without_holder(&self, state: usize) -> Option<String> {
        let node = self.node(state);
        let holder = self.first_name(self.holder(state)?);
        let text = match node.name.split_once(": ") {
            Some((who, rest)) if who == holder => rest,
            _ => node.name.as_str(),
        };
        let rest = text.strip_prefix(holder)?.trim_start();
        (!rest.is_empty() && !rest.contains(holder)).then(|| rest.to_owned())
    }

    /// A mental state's content without who holds it: the holder-free
    /// wording, else the quoted words, else its name.
    pub fn content(&self, state: usize) -> String {
        if let Some(text) = self.without_holder(state) {
            return text;
        }
        let node = self.node(state);
        let holder = self.holder(state).map(|h| self.first_name(h)).unwrap_or("");
        match node.name.split_once(": ") {
            Some((who, rest)) if who == holder && !rest.contains(holder) => {
                format!("“{}”", rest.trim().trim_matches(['“', '”']))
            }
            _ => node.name.trim().to_owned(),
        }
    }

    /// The first quote of a node's evidence.
    pub fn quote(&self, i: usize) -> Option<&'g str> {
        self.node(i)
            .evidence
            .first()
            .map(|e| e.quote.trim())
            .filter(|q| !q.is_empty())
    }

    /// The first word of a character's name (`Mara` for `Mara Ellis`).
    pub fn first_name(&self, character: usize) -> &'g str {
        let name = self.name(character);
        name.split_whitespace().next().unwrap_or(name)
    }

    /// Whether `from` can have influenced `to`: they share the scene or a
    /// character, or news of `from` can have travelled to `to`'s characters
    /// through the moments between (each moment passing it on to everyone in
    /// it). A moment with no character can reach anything (nothing proves
    /// otherwise).
    pub fn can_reach(&self, from: usize, to: usize) -> bool {
        if let Some(&known) = self.reach.borrow().get(&(from, to)) {
            return known;
        }
        let reached = self.reaches(from, to);
        self.reach.borrow_mut().insert((from, to), reached);
        reached
    }

    /// Every option of an ask's pool with its verdict, in pool order
    /// (computed once per ask).
    pub fn verdicts(&self, ask: &Ask) -> Judged {
        if let Some(known) = self.verdicts.borrow().get(ask) {
            return Rc::clone(known);
        }
        let judged: Judged = Rc::new(
            self.pool(ask)
                .into_iter()
                .map(|i| (i, self.classify(ask, i)))
                .collect(),
        );
        self.verdicts
            .borrow_mut()
            .insert(ask.clone(), Rc::clone(&judged));
        judged
    }

    fn reaches(&self, from: usize, to: usize) -> bool {
        let (a, b) = (self.node(from), self.node(to));
        if a.scene.is_some() && a.scene == b.scene {
            return true;
        }
        let bits = |i: usize| &self.people_bits[i * self.stride..(i + 1) * self.stride];
        let meet = |x: &[u64], y: &[u64]| x.iter().zip(y).any(|(p, q)| p & q != 0);
        let mut told: Vec<u64> = bits(from).to_vec();
        if self.people(from).is_empty() || self.people(to).is_empty() {
            return true;
        }
        let (start, end) = (self.order(from), self.order(to));
        if start >= end {
            return meet(&told, bits(to));
        }
        // Moments are in story order: those from `start` to `end`, in turn.
        let first = self.moments.partition_point(|&m| self.order(m) < start);
        for &m in &self.moments[first..] {
            if self.order(m) > end {
                break;
            }
            let here = bits(m);
            if meet(&told, here) {
                for (t, h) in told.iter_mut().zip(here) {
                    *t |= h;
                }
                // Those told stay told: once they include someone of `to`,
                // nothing later changes the answer.
                if meet(&told, bits(to)) {
                    return true;
                }
            }
        }
        meet(&told, bits(to))
    }

    /// Whether an event's own consequences are known (it causes something in
    /// the graph): then a moment it is not linked to is not one of them.
    pub fn led_elsewhere(&self, event: usize) -> bool {
        !self.effects(event).is_empty()
    }

    /// Whether `character` also holds a state with the same wording as `state`.
    fn same_content_held(&self, state: usize, character: usize) -> bool {
        let words = &self.words[state];
        self.held_by(character)
            .iter()
            .any(|&s| share_found(words, words.len(), &self.words[s]) >= 0.6)
    }

    /// The nodes an ask's options are drawn from.
    pub fn pool(&self, ask: &Ask) -> Vec<usize> {
        match ask {
            Ask::Participants { .. } | Ask::Holder { .. } => self.characters.clone(),
            Ask::Order { a, b } => vec![*a, *b],
            _ => self.moments.clone(),
        }
    }

    /// Whether a made-up motive for `character` would contradict a mental state
    /// the graph gives them (then it may not serve as an unsupported motive).
    pub fn motive_supported(&self, character: usize, motive: &str) -> bool {
        let words = content_words(motive);
        // Words no node uses cannot be shared; they still count in the share.
        let mut known: Vec<u32> = words
            .iter()
            .filter_map(|w| self.vocabulary.get(w).copied())
            .collect();
        known.sort_unstable();
        self.held_by(character)
            .iter()
            .any(|&s| share_found(&known, words.len(), &self.words[s]) >= 0.34)
    }
}

/// The noun for an attitude ("belief", "fear"…).
pub fn attitude_noun(attitude: Option<Attitude>) -> &'static str {
    match attitude {
        Some(Attitude::Belief) => "belief",
        Some(Attitude::Knowledge) => "knowledge",
        Some(Attitude::Desire) => "wish",
        Some(Attitude::Intention) => "intention",
        Some(Attitude::Emotion) => "feeling",
        Some(Attitude::Suspicion) => "suspicion",
        Some(Attitude::Pretense) => "pretence",
        Some(Attitude::SocialGoal) => "aim",
        None => "state of mind",
    }
}

pub use crate::text::{content_words, is_content_word};

/// [`overlap`] over sorted word ids: the share of `a`'s `of` words (`a`
/// holds the ones with an id) found in `b`.
fn share_found(a: &[u32], of: usize, b: &[u32]) -> f64 {
    if of == 0 {
        return 0.0;
    }
    let n = crate::util::sorted::common_count(a, b);
    n as f64 / of as f64
}

/// Share of `a`'s words found in `b` (0 when `a` is empty).
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.intersection(b).count() as f64 / a.len() as f64
}
