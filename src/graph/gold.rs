//! Expert annotations of a film's graph: `gold.json` in a film folder
//! (docs/graph-format.md, "Polarity, explicitness, and scoring against a gold annotation"), what `graph score` measures a graph
//! against.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::schema::{Attitude, Edge, EdgeKind, Node, NodeKind};
use super::Graph;

/// A gold annotation of one film.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gold {
    /// The film's name.
    pub film: String,
    /// The characters, each with the names a graph may give them.
    #[serde(default)]
    pub characters: Vec<GoldCharacter>,
    /// Every mental state a careful annotator accepts.
    #[serde(default)]
    pub mental_states: Vec<GoldState>,
    /// Every causal link a careful annotator accepts.
    #[serde(default)]
    pub causal_links: Vec<GoldLink>,
    /// Causal chains, each a list of [`GoldLink::id`]s in order.
    #[serde(default)]
    pub chains: Vec<Vec<String>>,
}

/// A character of the annotation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldCharacter {
    /// The cue name (`MARA`).
    pub name: String,
    /// Other names (`Mara Ellis`).
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// An annotated mental state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldState {
    /// Its id in the file (`m1`).
    pub id: String,
    /// The holder's cue name.
    pub holder: String,
    /// The attitude.
    pub attitude: Attitude,
    /// What is held, in words (never inverted: see `negated`).
    pub content: String,
    /// The holder holds the negation of the content.
    #[serde(default)]
    pub negated: bool,
    /// Beliefs only: `false` marks a false belief.
    #[serde(default)]
    pub truth: Option<bool>,
    /// The id of the state this one is about (higher-order ToM).
    #[serde(default)]
    pub about: Option<String>,
    /// The scene (1-based, script order) where it is first shown.
    pub scene: usize,
    /// The last scene where it still holds, if known.
    #[serde(default)]
    pub until_scene: Option<usize>,
    /// The script says it in so many words.
    #[serde(default)]
    pub explicit: bool,
    /// A quote from the script.
    #[serde(default)]
    pub evidence: String,
}

/// An annotated causal link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldLink {
    /// Its id in the file (`c1`).
    pub id: String,
    /// The cause, in words.
    pub cause: String,
    /// The effect, in words.
    pub effect: String,
    /// The cause's scene (1-based).
    pub cause_scene: usize,
    /// The effect's scene (1-based).
    pub effect_scene: usize,
    /// The script states the link (because, so, that's why…).
    #[serde(default)]
    pub explicit: bool,
    /// A quote for the cause.
    #[serde(default)]
    pub cause_evidence: String,
    /// A quote for the effect.
    #[serde(default)]
    pub effect_evidence: String,
}

impl Gold {
    /// The annotation as a graph: a character per character, a mental state
    /// per state (held by its character, `about` its state), an event per
    /// distinct cause or effect joined by `causes`. Scoring it against the
    /// annotation gives 1 everywhere.
    pub fn to_graph(&self) -> Graph {
        let character_id = |name: &str| {
            let c = self.characters.iter().find(|c| {
                c.name.eq_ignore_ascii_case(name)
                    || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            });
            format!(
                "character:{}",
                c.map_or(name, |c| c.name.as_str()).to_lowercase()
            )
        };
        let mut nodes: Vec<Node> = Vec::new();
        let mut edges = Vec::new();
        for c in &self.characters {
            let mut n = Node::new(character_id(&c.name), NodeKind::Character, c.name.clone());
            n.aliases = c.aliases.clone();
            nodes.push(n);
        }
        for s in &self.mental_states {
            let holder = character_id(&s.holder);
            if !nodes.iter().any(|n| n.id == holder) {
                nodes.push(Node::new(
                    holder.clone(),
                    NodeKind::Character,
                    s.holder.clone(),
                ));
            }
            let id = format!("mental_state:{}", s.id);
            let mut n = Node::new(id.clone(), NodeKind::MentalState, s.content.clone());
            n.attitude = Some(s.attitude);
            n.holder = Some(holder.clone());
            n.content = Some(s.content.clone());
            n.negated = s.negated;
            n.truth = s.truth;
            n.explicit = Some(s.explicit);
            n.scene = Some(s.scene - 1);
            n.until_scene = s.until_scene.map(|u| u - 1);
            nodes.push(n);
            edges.push(Edge::new(EdgeKind::Holds, &holder, &id));
            if let Some(about) = &s.about {
                edges.push(Edge::new(
                    EdgeKind::About,
                    &id,
                    &format!("mental_state:{about}"),
                ));
            }
        }
        let event = |text: &str, scene: usize, nodes: &mut Vec<Node>| {
            let existing = nodes.iter().find(|n| {
                n.kind == NodeKind::Event && n.name == text && n.scene == Some(scene - 1)
            });
            if let Some(n) = existing {
                return n.id.clone();
            }
            let id = format!(
                "event:g{:03}",
                nodes.iter().filter(|n| n.kind == NodeKind::Event).count()
            );
            let mut n = Node::new(id.clone(), NodeKind::Event, text);
            n.scene = Some(scene - 1);
            nodes.push(n);
            id
        };
        for l in &self.causal_links {
            let cause = event(&l.cause, l.cause_scene, &mut nodes);
            let effect = event(&l.effect, l.effect_scene, &mut nodes);
            let mut edge = Edge::new(EdgeKind::Causes, &cause, &effect);
            edge.explicit = Some(l.explicit);
            edge.link = Some(l.id.clone());
            edge.chains = self
                .chains
                .iter()
                .enumerate()
                .flat_map(|(c, chain)| {
                    chain
                        .iter()
                        .enumerate()
                        .filter(|(_, id)| **id == l.id)
                        .map(move |(step, _)| (c, step))
                })
                .collect();
            edges.push(edge);
        }
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        Graph {
            film: self.film.clone(),
            nodes,
            edges,
        }
    }
}

impl Gold {
    /// A graph in the annotation's form (`graph export --gold`): its
    /// characters (the cue as name, the other names as aliases), its mental
    /// states (ids without the `mental_state:` prefix, 1-based scenes, the
    /// first evidence quote, `about` from the `about` edge) and its causal
    /// links (the causal edges between events or states, with the
    /// annotation's ids and chains where the graph came from one).
    /// [`Gold::to_graph`] of an annotation read back by `graph import` gives
    /// the same annotation.
    pub fn from_graph(graph: &Graph) -> Gold {
        let name_of = |id: &str| graph.node(id).map(cue_of);
        let mut characters: Vec<GoldCharacter> = graph
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Character)
            .map(|n| {
                let cue = cue_of(n);
                let story = story_name(&cue);
                let aliases = std::iter::once(&n.name)
                    .chain(&n.aliases)
                    .filter(|a| **a != cue && **a != story)
                    .fold(Vec::<String>::new(), |mut v, a| {
                        if !v.contains(a) {
                            v.push(a.clone());
                        }
                        v
                    });
                GoldCharacter { name: cue, aliases }
            })
            .collect();
        characters.sort_by_key(|c| first_scene(graph, &c.name));
        let about: std::collections::BTreeMap<&str, &str> = graph
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::About && e.target.starts_with("mental_state:"))
            .map(|e| (e.source.as_str(), e.target.as_str()))
            .collect();
        let bare = |id: &str| id.strip_prefix("mental_state:").unwrap_or(id).to_owned();
        let mut mental_states: Vec<GoldState> = graph
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::MentalState)
            .filter_map(|n| {
                Some(GoldState {
                    id: bare(&n.id),
                    holder: name_of(n.holder.as_deref()?)?,
                    attitude: n.attitude?,
                    content: n.content.clone().unwrap_or_else(|| n.name.clone()),
                    negated: n.negated,
                    truth: n.truth,
                    about: about.get(n.id.as_str()).map(|t| bare(t)),
                    scene: n.scene.unwrap_or(0) + 1,
                    until_scene: n.until_scene.map(|u| u + 1),
                    explicit: n.explicit.unwrap_or(false),
                    evidence: n
                        .evidence
                        .first()
                        .map_or(String::new(), |e| e.quote.clone()),
                })
            })
            .collect();
        mental_states.sort_by_key(|s| natural(&s.id));
        let mut used: BTreeSet<String> =
            graph.edges.iter().filter_map(|e| e.link.clone()).collect();
        let mut next = 0;
        let mut causal_links = Vec::new();
        let mut steps: Vec<(usize, usize, String)> = Vec::new();
        for e in graph
            .edges
            .iter()
            .filter(|e| e.kind.family() == super::schema::EdgeFamily::Causal)
        {
            let (Some(cause), Some(effect)) = (graph.node(&e.source), graph.node(&e.target)) else {
                continue;
            };
            let id = e.link.clone().unwrap_or_else(|| loop {
                next += 1;
                let id = format!("c{next}");
                if used.insert(id.clone()) {
                    break id;
                }
            });
            steps.extend(e.chains.iter().map(|&(c, s)| (c, s, id.clone())));
            let quote = |n: &Node| {
                n.evidence
                    .first()
                    .map_or(String::new(), |e| e.quote.clone())
            };
            // A link from an annotation carries its quotes, cause then effect.
            let (cause_evidence, effect_evidence) = match (&e.link, e.evidence.as_slice()) {
                (Some(_), [c, f]) => (c.quote.clone(), f.quote.clone()),
                _ => (quote(cause), quote(effect)),
            };
            causal_links.push(GoldLink {
                id,
                cause: cause.name.clone(),
                effect: effect.name.clone(),
                cause_scene: cause.scene.unwrap_or(0) + 1,
                effect_scene: effect.scene.unwrap_or(0) + 1,
                explicit: e.explicit.unwrap_or(false),
                cause_evidence,
                effect_evidence,
            });
        }
        causal_links.sort_by_key(|l| natural(&l.id));
        steps.sort();
        let mut chains: Vec<Vec<String>> = Vec::new();
        for (c, _, id) in steps {
            if chains.len() <= c {
                chains.resize(c + 1, Vec::new());
            }
            chains[c].push(id);
        }
        chains.retain(|c| !c.is_empty());
        Gold {
            film: graph.film.clone(),
            characters,
            mental_states,
            causal_links,
            chains,
        }
    }
}

/// A character's cue: its first alias written in capitals, else its name in
/// capitals.
fn cue_of(n: &Node) -> String {
    let upper =
        |s: &String| s.chars().any(char::is_alphabetic) && !s.chars().any(char::is_lowercase);
    if upper(&n.name) {
        return n.name.clone();
    }
    n.aliases
        .iter()
        .find(|a| upper(a))
        .cloned()
        .unwrap_or_else(|| n.name.to_uppercase())
}

/// `MARTA ELLIS` → `Marta Ellis`: the story name `graph import` gives a cue,
/// which the annotation does not list.
pub fn story_name(cue: &str) -> String {
    cue.split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_uppercase().collect::<String>() + &c.as_str().to_lowercase()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a character first holds a state (characters are listed in that
/// order, those holding none last).
fn first_scene(graph: &Graph, cue: &str) -> (usize, String) {
    let scene = graph
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::MentalState)
        .filter(|n| {
            n.holder
                .as_deref()
                .and_then(|h| graph.node(h))
                .is_some_and(|h| cue_of(h) == cue)
        })
        .filter_map(|n| n.scene)
        .min()
        .unwrap_or(usize::MAX);
    (scene, cue.to_owned())
}

/// `m12` sorts after `m2`: (text, number) pieces.
fn natural(id: &str) -> (String, u64, String) {
    let digits = id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len());
    let (head, rest) = id.split_at(digits);
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    (
        head.to_owned(),
        rest[..end].parse().unwrap_or(0),
        rest[end..].to_owned(),
    )
}

/// A gold file that cannot be used, with where.
#[derive(Debug, thiserror::Error)]
pub enum GoldError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a gold annotation.
    #[error("{path}:{line}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads and checks a gold file.
pub fn read_gold(path: &Path) -> Result<Gold, GoldError> {
    let text = std::fs::read_to_string(path).map_err(|source| GoldError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_gold(&text).map_err(|(line, message)| GoldError::Invalid {
        path: path.to_owned(),
        line,
        message,
    })
}

/// Parses and checks a gold annotation: (1-based line, problem) when it is
/// not one.
pub fn parse_gold(text: &str) -> Result<Gold, (usize, String)> {
    let gold: Gold = serde_json::from_str(text).map_err(|e| (e.line().max(1), e.to_string()))?;
    check(&gold).map_err(|(id, message)| (line_of(text, &id), message))?;
    Ok(gold)
}

/// The first line holding `"id"` as a JSON string (1 when none does).
fn line_of(text: &str, id: &str) -> usize {
    let quoted = format!("\"{id}\"");
    text.lines()
        .position(|l| l.contains(&quoted))
        .map_or(1, |i| i + 1)
}

/// Cross-references: unique ids, `about` and chains naming ids that exist,
/// 1-based scenes, holders among the characters when characters are listed.
/// On a problem: (the id to point at, what is wrong).
fn check(gold: &Gold) -> Result<(), (String, String)> {
    let mut ids = BTreeSet::new();
    for id in gold
        .mental_states
        .iter()
        .map(|s| &s.id)
        .chain(gold.causal_links.iter().map(|l| &l.id))
    {
        if !ids.insert(id.as_str()) {
            return Err((id.clone(), format!("id {id:?} is used twice")));
        }
    }
    let states: BTreeSet<&str> = gold.mental_states.iter().map(|s| s.id.as_str()).collect();
    let names: BTreeSet<String> = gold
        .characters
        .iter()
        .flat_map(|c| std::iter::once(&c.name).chain(&c.aliases))
        .map(|n| n.to_uppercase())
        .collect();
    for s in &gold.mental_states {
        if let Some(about) = &s.about {
            if !states.contains(about.as_str()) || about == &s.id {
                return Err((
                    s.id.clone(),
                    format!("state {}: `about` names {about:?}, not another state", s.id),
                ));
            }
        }
        if s.scene == 0 || s.until_scene.is_some_and(|u| u < s.scene) {
            return Err((
                s.id.clone(),
                format!(
                    "state {}: scenes are 1-based and `until_scene` ≥ `scene`",
                    s.id
                ),
            ));
        }
        if !names.is_empty() && !names.contains(&s.holder.to_uppercase()) {
            return Err((
                s.id.clone(),
                format!(
                    "state {}: holder {:?} is not among the characters",
                    s.id, s.holder
                ),
            ));
        }
    }
    let links: BTreeSet<&str> = gold.causal_links.iter().map(|l| l.id.as_str()).collect();
    for l in &gold.causal_links {
        if l.cause_scene == 0 || l.effect_scene == 0 {
            return Err((l.id.clone(), format!("link {}: scenes are 1-based", l.id)));
        }
    }
    for chain in &gold.chains {
        if let Some(bad) = chain.iter().find(|c| !links.contains(c.as_str())) {
            return Err((
                bad.clone(),
                format!("a chain names {bad:?}, which is not a causal link"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"film": "f",
 "characters": [{"name": "MARA", "aliases": ["Mara Ellis"]}],
 "mental_states": [
  {"id": "m1", "holder": "MARA", "attitude": "belief", "content": "the key is gone",
   "truth": false, "scene": 2},
  {"id": "m2", "holder": "Mara Ellis", "attitude": "knowledge", "content": "m1",
   "about": "m1", "scene": 3, "negated": true}],
 "causal_links": [{"id": "c1", "cause": "a", "effect": "b", "cause_scene": 1, "effect_scene": 2}],
 "chains": [["c1"]]}"#;

    #[test]
    fn a_good_file_parses() {
        let g = parse_gold(GOOD).unwrap();
        assert_eq!(g.mental_states.len(), 2);
        assert!(g.mental_states[1].negated);
        assert_eq!(g.mental_states[0].truth, Some(false));
    }

    #[test]
    fn problems_name_their_line() {
        let bad_about = GOOD.replace(r#""about": "m1""#, r#""about": "m9""#);
        let (line, msg) = parse_gold(&bad_about).unwrap_err();
        assert_eq!(line, 6, "{msg}");
        assert!(msg.contains("m9"), "{msg}");
        let bad_holder = GOOD.replace(r#""holder": "MARA""#, r#""holder": "TEO""#);
        let (line, msg) = parse_gold(&bad_holder).unwrap_err();
        assert_eq!(line, 4, "{msg}");
        let bad_chain = GOOD.replace(r#"[["c1"]]"#, r#"[["c2"]]"#);
        assert!(parse_gold(&bad_chain).unwrap_err().1.contains("c2"));
        let bad_attitude = GOOD.replace(r#""attitude": "belief""#, r#""attitude": "hunch""#);
        let (line, msg) = parse_gold(&bad_attitude).unwrap_err();
        assert_eq!(line, 4, "{msg}");
        let zero = GOOD.replace(r#""scene": 2"#, r#""scene": 0"#);
        assert!(parse_gold(&zero).unwrap_err().1.contains("1-based"));
    }

    #[test]
    fn a_cue_reads_as_a_name() {
        assert_eq!(story_name("MARTA"), "Marta");
        assert_eq!(story_name("CONRAD BLISS"), "Conrad Bliss");
    }

    #[test]
    fn an_annotation_as_a_graph_and_back_is_the_same_annotation() {
        let g = parse_gold(GOOD).unwrap();
        let back = Gold::from_graph(&g.to_graph());
        // The holder named by an alias comes back as the cue.
        let mut expected = g.clone();
        expected.mental_states[1].holder = "MARA".into();
        assert_eq!(back, expected);
    }

    #[test]
    fn the_sample_films_gold_is_valid() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("screenplays/the-second-key/gold.json");
        let g = read_gold(&path).unwrap();
        assert!(g.mental_states.len() > 50);
        assert!(!g.chains.is_empty());
    }
}
