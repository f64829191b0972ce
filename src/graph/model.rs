//! The transport-free half of model-backed roles: JSON schemas, prompt
//! builders and response validators for the generator, auditors and
//! adjudicator. `src/llm` sends the [`Prompt`]s; this module never touches the
//! network.
//!
//! No graph id reaches a model: entities are shown as handles (`E1`, `E2`…, new
//! ones declared by the model as `N1`, `N2`…), candidates as `C1`, `C2`…, and
//! the validators map handles back to ids.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::graph::schema::*;
use crate::graph::{BlockContext, Proposal};

pub mod backed;
pub use backed::{ModelAdjudicator, ModelAuditor, ModelGenerator};

/// A request for a model: messages, images to attach, and the output schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// The system message.
    pub system: String,
    /// The user message (script segment, lists, instructions).
    pub user: String,
    /// Keyframe paths to attach as images, in order.
    pub images: Vec<String>,
    /// Schema name for structured output.
    pub schema_name: &'static str,
    /// JSON schema the answer must follow.
    pub schema: Value,
}

/// Entity handles shown to a model (`E1`…) and the graph ids behind them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Handles {
    /// Handle → graph id.
    pub ids: BTreeMap<String, String>,
}

const NODE_KINDS: [&str; 5] = ["character", "object", "location", "event", "mental_state"];
const ATTITUDES: [&str; 8] = [
    "belief",
    "knowledge",
    "desire",
    "intention",
    "emotion",
    "suspicion",
    "pretense",
    "social_goal",
];
const ACTS: [&str; 8] = [
    "action",
    "reveal",
    "lie",
    "promise",
    "threat",
    "order",
    "confession",
    "refusal",
];

fn parse_kind<T: serde::de::DeserializeOwned>(s: &str) -> Option<T> {
    serde_json::from_value(Value::String(s.to_owned())).ok()
}

/// The block's script segment, one element a line, numbered by element index.
pub fn script_segment(ctx: &BlockContext<'_>) -> String {
    let mut out = String::new();
    for (i, el) in ctx.elements() {
        if !el.kind.is_story() {
            continue;
        }
        let who = el
            .speaker
            .as_deref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "[{i}] {}{who}: {}",
            el.kind.as_str(),
            el.text.replace('\n', " ")
        );
    }
    out
}

fn entity_line(handle: &str, n: &Node) -> String {
    let aliases = if n.aliases.is_empty() {
        String::new()
    } else {
        format!(" (also {})", n.aliases.join(", "))
    };
    format!("{handle} {} {}{aliases}", n.kind.as_str(), n.name)
}

fn quote_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["element", "quote"],
        "properties": {
            "element": {"type": "integer", "description": "the [number] of the script line"},
            "quote": {"type": "string", "description": "exact words from that line"}
        }
    })
}

/// The generator's output schema: new entities first, then edges whose
/// endpoints are handles from the entity list (`E…`) or declared entities (`N…`).
pub fn generator_schema(handles: &Handles) -> Value {
    let known: Vec<&String> = handles.ids.keys().collect();
    let endpoint = json!({"anyOf": [
        {"type": "string", "enum": known},
        {"type": "string", "pattern": "^N[0-9]+$"}
    ]});
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["entities", "edges"],
        "properties": {
            "entities": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["handle", "kind", "name", "evidence"],
                "properties": {
                    "handle": {"type": "string", "pattern": "^N[0-9]+$"},
                    "kind": {"type": "string", "enum": NODE_KINDS},
                    "name": {"type": "string"},
                    "attitude": {"type": "string", "enum": ATTITUDES},
                    "act": {"type": "string", "enum": ACTS},
                    "holder": endpoint.clone(),
                    "agent": endpoint.clone(),
                    "target": endpoint.clone(),
                    "participants": {"type": "array", "items": endpoint.clone()},
                    "content": {"type": "string"},
                    "truth": {"type": "boolean", "description": "false for a false belief"},
                    "evidence": {"type": "array", "items": quote_schema()},
                    "negated": {"type": "boolean", "description": "true when the holder holds the negation of the content (\"doesn't know X\": knowledge of X, negated); never invert the content instead"},
                    "explicit": {"type": "boolean", "description": "true when the script states the mental state in so many words, false when a reader infers it"}
                }
            }},
            "edges": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["kind", "source", "target", "evidence"],
                "properties": {
                    "kind": {"type": "string", "enum": EdgeKind::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
                             "description": "causes/enables/prevents/motivates/triggers only where the script gives a reason (because, so, made her…) or a stated motive; events that merely follow each other: precedes"},
                    "source": endpoint.clone(),
                    "target": endpoint,
                    "evidence": {"type": "array", "items": quote_schema()}
                }
            }}
        }
    })
}

/// The generator's prompt for a block, and the handles it shows.
pub fn generator_prompt(ctx: &BlockContext<'_>) -> (Prompt, Handles) {
    let mut handles = Handles::default();
    let mut entities = String::new();
    for (k, n) in ctx.entities.values().enumerate() {
        let h = format!("E{}", k + 1);
        let _ = writeln!(entities, "{}", entity_line(&h, n));
        handles.ids.insert(h, n.id.clone());
    }
    let characters: Vec<String> = ctx.play.characters.iter().map(|c| c.name.clone()).collect();
    let user = format!(
        "Scene {} of the film. Script segment (each line is [number] kind speaker: text):\n{}\n\
         Characters known so far: {}\n\nEntity list (use these handles for anything already known):\n{}\n\
         Propose the characters, objects, locations, events and mental states (with holder, attitude and \
         target; a mental state may be about another mental state) that this segment shows, and the ToM, \
         causal and context edges between them. Declare every new entity first with a handle N1, N2, …; \
         edges may only join handles from the entity list or ones you declared. Every item needs at least \
         one quote: the line number and its exact words.",
        ctx.block.scene + 1,
        script_segment(ctx),
        if characters.is_empty() { "none".to_owned() } else { characters.join(", ") },
        if entities.is_empty() { "(empty)\n".to_owned() } else { entities }
    );
    let prompt = Prompt {
        system: "You build a social-causal graph of a film for Theory-of-Mind research. Be literal: \
                 propose only what the script or the keyframes support, and quote the evidence exactly."
            .to_owned(),
        user,
        images: ctx.keyframes().into_iter().map(str::to_owned).collect(),
        schema_name: "graph_candidates",
        schema: generator_schema(&handles),
    };
    (prompt, handles)
}

/// Strips a Markdown code fence a model may wrap its JSON in.
fn unfence(text: &str) -> &str {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .unwrap_or(t);
    t.strip_suffix("```").unwrap_or(t).trim()
}

/// Finds a quote in the block: at the given element, else anywhere in the
/// block (repairing the element), exactly or ignoring case and spacing.
fn locate(ctx: &BlockContext<'_>, element: Option<usize>, quote: &str) -> Option<Evidence> {
    let quote = quote.trim();
    if quote.is_empty() {
        return None;
    }
    let mut order: Vec<usize> = element.into_iter().collect();
    order.extend(
        ctx.elements()
            .map(|(i, _)| i)
            .filter(|i| Some(*i) != element),
    );
    for i in order {
        let [first, last] = ctx.block.elements;
        if !(first..=last).contains(&i) {
            continue;
        }
        let Some(el) = ctx.play.elements.get(i) else {
            continue;
        };
        let found = el
            .text
            .find(quote)
            .map(|b| (b, b + quote.len()))
            .or_else(|| {
                let lower = el.text.to_lowercase();
                // Lowercasing can change byte lengths; only trust it when it does not.
                (lower.len() == el.text.len())
                    .then(|| {
                        lower
                            .find(&quote.to_lowercase())
                            .map(|b| (b, b + quote.len()))
                    })
                    .flatten()
            });
        if let Some((b, e)) = found {
            if !el.text.is_char_boundary(b) || !el.text.is_char_boundary(e) {
                continue;
            }
            let start = el.text[..b].chars().count();
            let text = &el.text[b..e];
            return Some(Evidence {
                block: ctx.block.id,
                element: i,
                start,
                end: start + text.chars().count(),
                quote: text.to_owned(),
                keyframes: Vec::new(),
            });
        }
    }
    None
}

/// Parses and validates a generator's answer. Invalid candidates are repaired
/// (quotes re-located, misplaced element numbers fixed) or dropped; each drop
/// comes back as a reason, and is logged.
pub fn parse_generator(
    ctx: &BlockContext<'_>,
    handles: &Handles,
    text: &str,
) -> Result<(Proposal, Vec<String>), String> {
    let value: Value = serde_json::from_str(unfence(text)).map_err(|e| format!("not JSON: {e}"))?;
    let mut dropped = Vec::new();
    let mut drop = |why: String| {
        tracing::warn!(block = ctx.block.id, "generator output: {why}");
        dropped.push(why);
    };
    let evidence = |v: &Value| -> Vec<Evidence> {
        let mut out: Vec<Evidence> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|q| {
                let el = q.get("element").and_then(Value::as_u64).map(|e| e as usize);
                locate(
                    ctx,
                    el,
                    q.get("quote").and_then(Value::as_str).unwrap_or(""),
                )
            })
            .collect();
        out.sort();
        out.dedup();
        out
    };
    let mut ids: BTreeMap<String, String> = handles.ids.clone();
    let mut nodes: Vec<(Node, Value)> = Vec::new();
    for e in value
        .get("entities")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let handle = e
            .get("handle")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let name = e
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_owned();
        let Some(kind) = e
            .get("kind")
            .and_then(Value::as_str)
            .and_then(parse_kind::<NodeKind>)
        else {
            drop(format!("entity {handle}: unknown kind"));
            continue;
        };
        if !handle.starts_with('N') || ids.contains_key(&handle) || name.is_empty() {
            drop(format!(
                "entity {handle:?}: missing name, or a handle that is not a new unique N…"
            ));
            continue;
        }
        let ev = evidence(e.get("evidence").unwrap_or(&Value::Null));
        let Some(first) = ev.first().cloned() else {
            drop(format!(
                "entity {handle} ({name}): no quote found in the block"
            ));
            continue;
        };
        let attitude = e
            .get("attitude")
            .and_then(Value::as_str)
            .and_then(parse_kind::<Attitude>);
        let act = e
            .get("act")
            .and_then(Value::as_str)
            .and_then(parse_kind::<Act>);
        let id = match kind {
            NodeKind::Event => format!(
                "event:e{:04}-{:03}-{}",
                first.element,
                first.start,
                act.unwrap_or(Act::Action).as_str()
            ),
            NodeKind::MentalState => {
                let Some(a) = attitude else {
                    drop(format!(
                        "entity {handle} ({name}): a mental state without an attitude"
                    ));
                    continue;
                };
                format!(
                    "mental_state:e{:04}-{:03}-{}",
                    first.element,
                    first.start,
                    a.as_str()
                )
            }
            _ if slug(&name).is_empty() => {
                drop(format!("entity {handle}: a name without letters"));
                continue;
            }
            _ => format!("{}:{}", kind.as_str(), slug(&name)),
        };
        let mut node = Node::new(id.clone(), kind, name);
        node.attitude = attitude.filter(|_| kind == NodeKind::MentalState);
        node.act = if kind == NodeKind::Event {
            Some(act.unwrap_or(Act::Action))
        } else {
            None
        };
        node.content = e.get("content").and_then(Value::as_str).map(str::to_owned);
        node.truth = e
            .get("truth")
            .and_then(Value::as_bool)
            .filter(|_| node.attitude == Some(Attitude::Belief));
        if kind == NodeKind::MentalState {
            node.negated = e.get("negated").and_then(Value::as_bool).unwrap_or(false);
            node.explicit = e.get("explicit").and_then(Value::as_bool);
        }
        if matches!(kind, NodeKind::Event | NodeKind::MentalState) {
            node.order = Some(first.element);
            node.scene = Some(ctx.block.scene);
        }
        node.evidence = ev;
        ids.insert(handle, id);
        nodes.push((node, e.clone()));
    }
    let mut items = Vec::new();
    for (mut node, e) in nodes {
        let map = |field: &str| {
            e.get(field)
                .and_then(Value::as_str)
                .and_then(|h| ids.get(h).cloned())
        };
        node.holder = map("holder");
        node.agent = map("agent");
        node.target = map("target");
        node.participants = e
            .get("participants")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.as_str().and_then(|h| ids.get(h).cloned()))
            .collect();
        if node.kind == NodeKind::MentalState && node.holder.is_none() {
            drop(format!(
                "{}: a mental state whose holder is not in the entity list",
                node.name
            ));
            continue;
        }
        if node.kind == NodeKind::Event && node.agent.is_none() {
            node.agent = node.participants.first().cloned();
        }
        items.push((Item::Node(node), "model".to_owned()));
    }
    for e in value
        .get("edges")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(kind) = e
            .get("kind")
            .and_then(Value::as_str)
            .and_then(parse_kind::<EdgeKind>)
        else {
            drop("edge: unknown kind".to_owned());
            continue;
        };
        let end = |f: &str| {
            e.get(f)
                .and_then(Value::as_str)
                .and_then(|h| ids.get(h).cloned())
        };
        let (Some(s), Some(t)) = (end("source"), end("target")) else {
            drop(format!(
                "{} edge: an endpoint is neither in the entity list nor declared",
                kind.as_str()
            ));
            continue;
        };
        let ev = evidence(e.get("evidence").unwrap_or(&Value::Null));
        if ev.is_empty() {
            drop(format!(
                "{} edge: no quote found in the block",
                kind.as_str()
            ));
            continue;
        }
        let mut edge = Edge::new(kind, &s, &t);
        edge.evidence = ev;
        items.push((Item::Edge(edge), "model".to_owned()));
    }
    Ok((
        Proposal {
            items,
            dropped: Vec::new(),
        },
        dropped,
    ))
}

/// Describes a candidate without graph ids, names looked up in `names`.
fn describe(c: &Candidate, names: &BTreeMap<String, String>) -> String {
    let name = |id: &str| {
        names
            .get(id)
            .cloned()
            .unwrap_or_else(|| "an unknown node".to_owned())
    };
    let what = match &c.item {
        Item::Node(n) => {
            let mut s = format!("{} “{}”", n.kind.as_str().replace('_', " "), n.name);
            if let Some(a) = n.attitude {
                let _ = write!(s, ", attitude {}", a.as_str());
            }
            if n.truth == Some(false) {
                s.push_str(" (a false belief)");
            }
            if let Some(h) = &n.holder {
                let _ = write!(s, ", held by {}", name(h));
            }
            if let Some(a) = &n.agent {
                let _ = write!(s, ", by {}", name(a));
            }
            if let Some(t) = &n.target {
                let _ = write!(s, ", about {}", name(t));
            }
            s
        }
        Item::Edge(e) => format!(
            "{}: {} → {}",
            e.kind.as_str(),
            name(&e.source),
            name(&e.target)
        ),
    };
    let quotes: Vec<String> = c
        .item
        .evidence()
        .iter()
        .map(|ev| format!("[{}] “{}”", ev.element, ev.quote))
        .collect();
    format!("{what}; evidence {}", quotes.join(" "))
}

fn names_of(ctx: &BlockContext<'_>, batch: &[Candidate]) -> BTreeMap<String, String> {
    let mut names: BTreeMap<String, String> = ctx
        .entities
        .iter()
        .map(|(k, n)| (k.clone(), n.name.clone()))
        .collect();
    for c in batch {
        if let Item::Node(n) = &c.item {
            names.insert(n.id.clone(), n.name.clone());
        }
    }
    names
}

/// The auditor's output schema: exactly one verdict per candidate handle.
///
/// The verdicts are an object keyed by handle with every handle required, so a
/// schema-following server (or the `local` engine's constrained decoding)
/// cannot leave a candidate out or judge one twice; an array of verdicts could.
pub fn audit_schema(count: usize) -> Value {
    let verdict = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["accept", "rationale"],
        "properties": {
            "accept": {"type": "boolean"},
            "rationale": {"type": "string"}
        }
    });
    let handles: Vec<String> = (1..=count).map(|i| format!("C{i}")).collect();
    let properties: serde_json::Map<String, Value> = handles
        .iter()
        .map(|h| (h.clone(), verdict.clone()))
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["verdicts"],
        "properties": {"verdicts": {
            "type": "object",
            "additionalProperties": false,
            "required": handles,
            "properties": properties
        }}
    })
}

/// One auditor's prompt for a block's candidates (never showing other votes).
pub fn audit_prompt(ctx: &BlockContext<'_>, batch: &[Candidate]) -> Prompt {
    let names = names_of(ctx, batch);
    let mut list = String::new();
    for (i, c) in batch.iter().enumerate() {
        let _ = writeln!(list, "C{} {}", i + 1, describe(c, &names));
    }
    Prompt {
        system: "You audit proposed facts about a film for a Theory-of-Mind graph. Judge each candidate on its \
                 own: accept only what the quoted script supports, with the right holder, target and time order."
            .to_owned(),
        user: format!(
            "Script segment:\n{}\nCandidates:\n{list}\nGive one verdict per candidate with a one-sentence rationale.",
            script_segment(ctx)
        ),
        images: ctx.keyframes().into_iter().map(str::to_owned).collect(),
        schema_name: "audit_verdicts",
        schema: audit_schema(batch.len()),
    }
}

/// Parses an auditor's answer into one vote per candidate, in batch order.
/// The verdicts are an object keyed by handle (the schema's form) or, from a
/// server that ignores schemas, a list of `{candidate, accept, rationale}`.
/// A missing verdict is an error (the caller re-asks); duplicates keep the first.
pub fn parse_audit(judge: &str, batch: &[Candidate], text: &str) -> Result<Vec<Vote>, String> {
    let value: Value = serde_json::from_str(unfence(text)).map_err(|e| format!("not JSON: {e}"))?;
    let mut got: BTreeMap<usize, Vote> = BTreeMap::new();
    let listed: Vec<(Option<&str>, &Value)> = match value.get("verdicts") {
        Some(Value::Object(map)) => map.iter().map(|(h, v)| (Some(h.as_str()), v)).collect(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|v| (v.get("candidate").and_then(Value::as_str), v))
            .collect(),
        _ => Vec::new(),
    };
    for (handle, v) in listed {
        let Some(k) = handle
            .and_then(|h| h.strip_prefix('C'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&k| k >= 1 && k <= batch.len())
        else {
            continue;
        };
        let Some(accept) = v.get("accept").and_then(Value::as_bool) else {
            continue;
        };
        got.entry(k).or_insert_with(|| Vote {
            judge: judge.to_owned(),
            role: Role::Auditor,
            accept,
            rationale: v
                .get("rationale")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        });
    }
    let missing: Vec<String> = (1..=batch.len())
        .filter(|k| !got.contains_key(k))
        .map(|k| format!("C{k}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("no verdict for {}", missing.join(", ")));
    }
    Ok(got.into_values().collect())
}

/// The adjudicator's output schema.
pub fn adjudicator_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["accept", "rationale"],
        "properties": {"accept": {"type": "boolean"}, "rationale": {"type": "string"}}
    })
}

/// The adjudicator's prompt: the candidate, its evidence, the auditors' votes
/// (anonymised as Auditor 1, 2…).
///
/// Node names come from the entities known before the block and from the
/// block's own candidates (`block`), so an edge between nodes new in this block
/// is described by their names, not as unknown nodes.
pub fn adjudicator_prompt(
    ctx: &BlockContext<'_>,
    candidate: &Candidate,
    block: &[Candidate],
) -> Prompt {
    let mut names = names_of(ctx, block);
    names.extend(names_of(ctx, std::slice::from_ref(candidate)));
    let mut votes = String::new();
    for (i, v) in candidate
        .votes
        .iter()
        .filter(|v| v.role == Role::Auditor)
        .enumerate()
    {
        let _ = writeln!(
            votes,
            "Auditor {}: {} — {}",
            i + 1,
            if v.accept { "accept" } else { "reject" },
            v.rationale
        );
    }
    Prompt {
        system: "You are the judge for proposed facts about a film on which the auditors disagreed. Decide from the \
                 script alone."
            .to_owned(),
        user: format!(
            "Script segment:\n{}\nCandidate: {}\n\nVotes:\n{votes}\nAccept or reject it, with a rationale.",
            script_segment(ctx),
            describe(candidate, &names)
        ),
        images: ctx.keyframes().into_iter().map(str::to_owned).collect(),
        schema_name: "adjudication",
        schema: adjudicator_schema(),
    }
}

/// Parses the adjudicator's answer.
pub fn parse_adjudication(judge: &str, text: &str) -> Result<Vote, String> {
    let value: Value = serde_json::from_str(unfence(text)).map_err(|e| format!("not JSON: {e}"))?;
    let accept = value
        .get("accept")
        .and_then(Value::as_bool)
        .ok_or("no boolean `accept`")?;
    Ok(Vote {
        judge: judge.to_owned(),
        role: Role::Adjudicator,
        accept,
        rationale: value
            .get("rationale")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    })
}

/// Whether a prompt text mentions any graph id (it must not).
pub fn leaks_ids(text: &str, ids: impl IntoIterator<Item = impl AsRef<str>>) -> bool {
    ids.into_iter().any(|id| text.contains(id.as_ref()))
}

#[cfg(test)]
mod tests;
