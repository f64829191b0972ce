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

use crate::graph::generate::cast::{pronoun_gender, Cast};
use crate::graph::schema::*;
use crate::graph::text::{char_slice, normalize, words};
use crate::graph::{Adjudicator, Auditor, BlockContext, GraphError};
use crate::screenplay::ElementKind;

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

/// Whether the character is named in the quote or speaks the evidence element.
fn named_in(ctx: &BlockContext<'_>, ev: &Evidence, who: &Node) -> bool {
    let names: Vec<String> = std::iter::once(&who.name)
        .chain(who.aliases.iter())
        .map(|n| first_word(n))
        .collect();
    let quoted = words(&ev.quote, 0).iter().any(|w| {
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

/// Whether `who` is the nearest antecedent of a he/she/his/her/him in the
/// quote: reading back from the pronoun through the block (names in action
/// lines and the quote, the speakers of lines), the first character whose
/// gender fits. The pronoun is re-resolved from the script alone, not from
/// the generator's bookkeeping.
fn antecedent_is(ctx: &BlockContext<'_>, cast: &Cast, ev: &Evidence, who: &Node) -> bool {
    let Some(member) = cast.by_id(&who.id) else {
        return false;
    };
    let quote = words(&ev.quote, 0);
    let Some(at) = quote
        .iter()
        .position(|w| pronoun_gender(&w.text.to_lowercase()).is_some())
    else {
        return false;
    };
    let Some(gender) = pronoun_gender(&quote[at].text.to_lowercase()) else {
        return false;
    };
    let fits = |m: &crate::graph::generate::cast::Member| m.gender.is_none_or(|g| g == gender);
    // Names read back from a text, last first.
    let named_back = |text: &str| -> Option<String> {
        words(text, 0)
            .iter()
            .rev()
            .filter_map(|w| cast.named(&w.text))
            .find(|m| fits(m))
            .map(|m| m.id.clone())
    };
    let [first, _] = ctx.block.elements;
    let Some(el) = ctx.play.elements.get(ev.element) else {
        return false;
    };
    let before_quote = char_slice(&el.text, 0, ev.start + quote[at].start);
    let mut found = if el.kind == ElementKind::Action {
        named_back(&before_quote)
    } else {
        None
    };
    let mut j = ev.element;
    while found.is_none() && j > first {
        j -= 1;
        let e = &ctx.play.elements[j];
        found = match e.kind {
            ElementKind::Action => named_back(&e.text),
            ElementKind::Dialogue => e
                .speaker
                .as_deref()
                .and_then(|sp| cast.named(sp.split_whitespace().next().unwrap_or(sp)))
                .filter(|m| fits(m))
                .map(|m| m.id.clone()),
            _ => None,
        };
    }
    found.as_deref() == Some(member.id.as_str())
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
    stage: Option<(&Cast, &BTreeSet<String>)>,
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

/// The characters on stage in the block: named in an action line, or
/// speaking in person (not voice-over or off-screen).
fn on_stage(ctx: &BlockContext<'_>, cast: &Cast) -> BTreeSet<String> {
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
fn only_one_on_stage(
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

/// Words whose presence in a quote states a mental state of each attitude
/// family: the quote auditor's own reading, apart from the generator's.
fn family_cues(family: &str) -> &'static [&'static str] {
    match family {
        "belief" => &[
            "think",
            "thinks",
            "thought",
            "believe",
            "believes",
            "believed",
            "know",
            "knows",
            "knew",
            "realize",
            "realizes",
            "realized",
            "realizing",
            "realise",
            "realises",
            "realising",
            "understand",
            "understands",
            "understood",
            "suspect",
            "suspects",
            "suspected",
            "sees",
            "saw",
            "see",
            "notices",
            "noticed",
            "hears",
            "heard",
            "mistakes",
            "mistook",
            "sure",
            "assume",
            "assumes",
        ],
        "desire" => &[
            "want", "wants", "wanted", "hope", "hopes", "hoped", "wish", "wishes", "need", "needs",
            "help", "helps", "save", "saves", "protect", "protects", "hurt", "ruin", "betray",
            "rescue",
        ],
        "intention" => &[
            "i'll", "will", "won't", "going", "plan", "plans", "planned", "decide", "decides",
            "decided", "intend", "intends", "mean", "means", "meant", "need", "needs", "i'm",
        ],
        "emotion" => &[
            "fear",
            "fears",
            "jealousy",
            "guilt",
            "relief",
            "dread",
            "anger",
            "shame",
            "grief",
            "panic",
            "envy",
            "hope",
            "love",
            "rage",
            "hate",
            "hates",
            "bitter",
            "relieved",
            "ashamed",
            "horrified",
            "uneasy",
            "breaking",
            "angry",
            "furious",
            "afraid",
            "scared",
            "terrified",
            "guilty",
            "jealous",
        ],
        "pretense" => &[
            "lying",
            "lie",
            "lies",
            "lied",
            "pretend",
            "pretends",
            "pretending",
        ],
        _ => &[],
    }
}

/// An explicit mental state is stated in its quotes: a cue of its attitude
/// family is there, negated exactly when the state is.
fn stated(n: &Node) -> Result<(), String> {
    let (Some(attitude), Some(true)) = (n.attitude, n.explicit) else {
        return Ok(());
    };
    // A belief may be about another's mind ("He thinks I don't know"): any
    // mental cue states it, and a negation inside its content is not its own.
    let all: Vec<&str>;
    let cues: &[&str] = if attitude.family() == "belief" {
        all = ["belief", "desire", "intention", "emotion", "pretense"]
            .iter()
            .flat_map(|f| family_cues(f).iter().copied())
            .collect();
        &all
    } else {
        family_cues(attitude.family())
    };
    let content_negated = n.content.as_deref().is_some_and(|c| {
        words(c, 0).iter().any(|w| {
            let w = w.text.to_lowercase().replace('’', "'");
            matches!(w.as_str(), "not" | "never") || w.ends_with("n't")
        })
    });
    let mut found = false;
    let mut negated_cue = false;
    let mut any_negation = false;
    for ev in &n.evidence {
        let ws: Vec<String> = words(&ev.quote, 0)
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        for (k, w) in ws.iter().enumerate() {
            let negation = matches!(w.as_str(), "not" | "never") || w.ends_with("n't");
            any_negation |= negation;
            if cues.contains(&w.as_str()) || negation && attitude == Attitude::Intention {
                found = true;
                negated_cue |= ws[k.saturating_sub(2)..k]
                    .iter()
                    .any(|p| matches!(p.as_str(), "not" | "never") || p.ends_with("n't"));
            }
        }
    }
    if !found {
        return Err(format!(
            "no {} cue in the quote states it",
            attitude.family()
        ));
    }
    if n.negated && !any_negation {
        return Err("negated, but nothing in the quote negates it".to_owned());
    }
    if !n.negated && negated_cue && !content_negated && !any_positive_cue(n, cues) {
        return Err("the quote negates it, but the state is not negated".to_owned());
    }
    Ok(())
}

/// Whether some cue in the quotes stands without a negation before it.
fn any_positive_cue(n: &Node, cues: &[&str]) -> bool {
    n.evidence.iter().any(|ev| {
        let ws: Vec<String> = words(&ev.quote, 0)
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        ws.iter().enumerate().any(|(k, w)| {
            cues.contains(&w.as_str())
                && !ws[k.saturating_sub(2)..k]
                    .iter()
                    .any(|p| matches!(p.as_str(), "not" | "never") || p.ends_with("n't"))
        })
    })
}

/// Words that say one thing brings another about.
const CAUSAL_WORDS: &[&str] = &[
    "because",
    "so",
    "made",
    "makes",
    "make",
    "lets",
    "let",
    "allows",
    "allowed",
    "stops",
    "stopped",
    "keeps",
    "kept",
    "prevents",
    "prevented",
    "why",
    "therefore",
    "since",
    "cause",
    "caused",
    "causes",
    "decision",
    "choice",
    "order",
];

/// A causal claim (not `precedes`) is worded as one in its quotes.
fn causal_language(e: &Edge) -> Result<(), String> {
    if !e.kind.claims_cause() {
        return Ok(());
    }
    let worded = e.evidence.iter().any(|ev| {
        words(&ev.quote, 0)
            .iter()
            .any(|w| CAUSAL_WORDS.contains(&w.text.to_lowercase().as_str()))
    });
    if worded {
        Ok(())
    } else {
        Err(format!(
            "{}: nothing in the quotes says one brings the other about",
            e.kind.as_str()
        ))
    }
}

/// A mental state contradicting one its holder already holds: same family,
/// same content, the other polarity.
fn contradiction(nodes: &BTreeMap<&str, &Node>, n: &Node) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn state(quote: &str, attitude: Attitude, negated: bool, content: &str) -> Node {
        let mut n = Node::new("mental_state:x", NodeKind::MentalState, "x");
        n.attitude = Some(attitude);
        n.negated = negated;
        n.explicit = Some(true);
        n.content = Some(content.to_owned());
        n.evidence = vec![Evidence {
            block: 0,
            element: 0,
            start: 0,
            end: quote.chars().count(),
            quote: quote.to_owned(),
            keyframes: Vec::new(),
        }];
        n
    }

    #[test]
    fn an_explicit_state_is_read_back_from_its_quote_polarity_included() {
        let know = |negated| {
            state(
                "Quinton doesn't know the ring has left the safe",
                Attitude::Knowledge,
                negated,
                "the ring has left the safe",
            )
        };
        assert!(stated(&know(true)).is_ok());
        // The quote negates it; the state says otherwise.
        assert!(stated(&know(false)).is_err());
        // Negated with nothing in the quote to negate it.
        let s = state("June sees it", Attitude::Knowledge, true, "it");
        assert!(stated(&s).is_err());
        // No cue of the family at all.
        let s = state("He pockets the key", Attitude::Desire, false, "the key");
        assert!(stated(&s).is_err());
        // A belief about another's mind carries that mind's negation in its content.
        let s = state(
            "He thinks I don't know when he's lying",
            Attitude::Belief,
            false,
            "He thinks I don't know when he's lying",
        );
        assert!(stated(&s).is_ok());
    }

    #[test]
    fn a_cause_needs_causal_words_and_an_order_does_not() {
        let mut e = Edge::new(EdgeKind::Causes, "event:a", "event:b");
        e.evidence = vec![Evidence {
            block: 0,
            element: 0,
            start: 0,
            end: 10,
            quote: "Teo goes. Quinton opens his fist.".to_owned(),
            keyframes: Vec::new(),
        }];
        assert!(causal_language(&e).is_err());
        e.kind = EdgeKind::Precedes;
        assert!(causal_language(&e).is_ok());
        e.kind = EdgeKind::Motivates;
        e.evidence[0].quote = "Jealousy made the decision for her.".to_owned();
        assert!(causal_language(&e).is_ok());
    }
}
