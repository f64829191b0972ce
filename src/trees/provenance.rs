//! How a tree set was made: the first line of `trees/<film>.jsonl`
//! (docs/audit.md: every output says how it was made).
//!
//! ```json
//! {"format":"moviegraph.trees","version":1,"provenance":{"source":"generated",
//!  "film":"the-second-key","film_dir":"screenplays/the-second-key",
//!  "graph":{"generator":{"name":"rules","baseline":true}, "…": "…"},
//!  "question_writer":{"name":"rules","baseline":true},"models":[],
//!  "alignment":{"verdict":"partial","coverage":0.8, "…": "…"},
//!  "keyframes":true,"text_only":false,"settings":{"depth":3, "…": "…"}}}
//! ```
//!
//! Every fact is optional on reading: a tool that writes trees need not know
//! them all, and an imported file records only what its trees show. Nothing
//! here depends on the time or the machine, so writing stays deterministic;
//! no API key or endpoint reaches it (backend and model names only).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::align::Verdict;

use super::schema::Tree;

/// The `format` value of a trees file's metadata line.
pub const FORMAT: &str = "moviegraph.trees";
/// The metadata line's version this build writes (and the newest it reads).
pub const VERSION: u32 = 1;
/// What a report says for a trees file without a metadata line.
pub const UNKNOWN: &str = "unknown (trees file has no provenance line)";

/// The metadata line: `{"format":"moviegraph.trees","version":1,"provenance":{…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The line's version ([`VERSION`] when written by this build).
    pub version: u32,
    /// How the file's trees were made.
    pub provenance: Provenance,
}

impl Header {
    /// The metadata line of this build for `provenance`.
    pub fn new(provenance: Provenance) -> Header {
        Header {
            format: FORMAT.to_owned(),
            version: VERSION,
            provenance,
        }
    }
}

/// Where a trees file's trees came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Generated from a film's graph (`trees generate`, `run`).
    Generated,
    /// Brought in by `trees import` (written by hand or by another tool).
    Import,
}

impl Origin {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Generated => "generated",
            Origin::Import => "import",
        }
    }
}

/// One role that made the trees: a graph generator, auditor, adjudicator or
/// the question writer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Maker {
    /// The role's name as the build recorded it (`rules`, `rules-grounding`, a model name).
    pub name: String,
    /// An offline `rules` role: a documented baseline, not a reasoner.
    pub baseline: bool,
    /// The model backend (`openai`, `local`, `replay`), for a model role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// The model the backend serves, for a model role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Maker {
    /// An offline rules role (a baseline).
    pub fn baseline(name: &str) -> Maker {
        Maker {
            name: name.to_owned(),
            baseline: true,
            backend: None,
            model: None,
        }
    }

    /// The role `name` of a build whose model roles have these identities
    /// (the JSON objects `{"name","backend","model",…}` a graph build's
    /// settings list): a model role when one of them names it, else a rules
    /// baseline when its name says so.
    pub fn from_identities(name: &str, identities: &[String]) -> Maker {
        let found = identities
            .iter()
            .filter_map(|i| serde_json::from_str::<serde_json::Value>(i).ok())
            .find(|v| v.get("name").and_then(|n| n.as_str()) == Some(name));
        match found {
            Some(v) => {
                let text = |key: &str| v.get(key).and_then(|x| x.as_str()).map(str::to_owned);
                let backend = text("backend");
                Maker {
                    name: name.to_owned(),
                    baseline: backend.as_deref() == Some("rules"),
                    backend,
                    model: text("model"),
                }
            }
            None => Maker {
                name: name.to_owned(),
                baseline: name == "rules" || name.starts_with("rules-"),
                backend: None,
                model: None,
            },
        }
    }

    /// `name (baseline)` or `name (backend model)`.
    pub fn describe(&self) -> String {
        if self.baseline {
            format!("{} (baseline)", self.name)
        } else {
            match (&self.backend, &self.model) {
                (Some(b), Some(m)) if *m != self.name => format!("{} ({b} {m})", self.name),
                (Some(b), _) => format!("{} ({b})", self.name),
                _ => self.name.clone(),
            }
        }
    }

    /// `backend/model` when this is a model role.
    fn model_name(&self) -> Option<String> {
        match (&self.backend, &self.model) {
            (Some(b), Some(m)) if !self.baseline => Some(format!("{b}/{m}")),
            (Some(b), None) if !self.baseline => Some(format!("{b}/{}", self.name)),
            _ => None,
        }
    }
}

/// The roles that built the graph the questions were judged against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphMakers {
    /// Proposed the candidates.
    pub generator: Maker,
    /// Voted on them, independently.
    pub auditors: Vec<Maker>,
    /// Decided split votes (none when a person reviewed them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicator: Option<Maker>,
}

impl GraphMakers {
    /// The makers named by a graph build's settings (as in `graphs/<film>.json`'s
    /// `settings`): generator, auditors, adjudicator and the model identities.
    pub fn from_settings(
        generator: &str,
        auditors: &[String],
        adjudicator: Option<&str>,
        identities: &[String],
    ) -> GraphMakers {
        GraphMakers {
            generator: Maker::from_identities(generator, identities),
            auditors: auditors
                .iter()
                .map(|a| Maker::from_identities(a, identities))
                .collect(),
            adjudicator: adjudicator.map(|a| Maker::from_identities(a, identities)),
        }
    }
}

/// The alignment of the script with the film the trees were cut from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlignmentFacts {
    /// aligned, partial or mismatch.
    pub verdict: Verdict,
    /// Share of the script's dialogue lines matched to a subtitle cue, to four places.
    pub coverage: f64,
    /// Blocks of the script.
    pub blocks: usize,
    /// Blocks with no timed cue: scenes the film does not contain. Their lines
    /// are shown only in text-only trees.
    pub untimed_blocks: usize,
}

/// The generation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Depth of every tree.
    pub depth: u32,
    /// Most trees for the film (`null`: the default, growing with the film).
    #[serde(default)]
    pub max_trees: Option<usize>,
    /// Format shares `[open, single, multi]`, summing to 1.
    pub mix: [f64; 3],
    /// Seed of the option-order shuffle.
    pub seed: u64,
    /// Options of a single-choice question.
    pub single_options: usize,
    /// Options of a multiple-choice question.
    pub multi_options: usize,
    /// Whether trivia (who holds a line, who takes part, which came first)
    /// was asked (`--include-trivia`); absent: not asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_trivia: bool,
}

/// How a tree set was made. Every field but `source` may be absent: absent
/// means not known, never "no".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Generated here, or imported.
    pub source: Origin,
    /// The film's slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub film: Option<String>,
    /// The film folder, as the command was given it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub film_dir: Option<String>,
    /// Who built the graph behind the questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphMakers>,
    /// Who worded the questions: the rules templates (a baseline) or a model
    /// (each question checked against the graph; the templates where it fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_writer: Option<Maker>,
    /// Every model behind the trees as `backend/model`, in role order; empty
    /// when every role was an offline baseline.
    #[serde(default)]
    pub models: Vec<String>,
    /// The script's alignment with the film.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<AlignmentFacts>,
    /// Whether any question's context carries keyframes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframes: Option<bool>,
    /// Built from the script alone (`--text-only`): contexts may come from
    /// scenes the film does not contain, and the alignment may be a mismatch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_only: Option<bool>,
    /// The generation settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// The metadata line the imported file carried, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Box<Provenance>>,
    /// For questions imported from another benchmark: what was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<BenchmarkImport>,
}

/// Where imported benchmark questions came from (`trees import --from muma-tom|items`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkImport {
    /// The import format (`muma-tom`, `items`).
    pub format: String,
    /// The files read, as the command was given them.
    pub files: Vec<String>,
    /// Questions imported.
    pub questions: usize,
}

impl Provenance {
    /// An empty record of `source`: nothing known yet.
    pub fn new(source: Origin) -> Provenance {
        Provenance {
            source,
            film: None,
            film_dir: None,
            graph: None,
            question_writer: None,
            models: Vec::new(),
            alignment: None,
            keyframes: None,
            text_only: None,
            settings: None,
            imported: None,
            benchmark: None,
        }
    }

    /// The record of questions imported from another benchmark: no graph,
    /// no alignment, no question writer of ours.
    pub fn benchmark(trees: &[Tree], import: BenchmarkImport) -> Provenance {
        let mut p = Provenance::new(Origin::Import);
        p.film = trees.first().map(|t| t.film.clone());
        p.keyframes = Some(has_keyframes(trees));
        p.benchmark = Some(import);
        p
    }

    /// What `trees import` knows of a file's trees: their film, whether any
    /// context carries keyframes, and the file's own metadata line when it had one.
    pub fn import(trees: &[Tree], carried: Option<Provenance>) -> Provenance {
        let mut p = Provenance::new(Origin::Import);
        p.film = trees.first().map(|t| t.film.clone());
        p.keyframes = Some(has_keyframes(trees));
        if let Some(c) = &carried {
            p.text_only = c.text_only;
        }
        p.imported = carried.map(Box::new);
        p
    }

    /// Fills `models` from the makers (graph roles, then the question writer).
    pub fn collect_models(&mut self) {
        let mut models: Vec<String> = Vec::new();
        let graph = self.graph.iter().flat_map(|g| {
            std::iter::once(&g.generator)
                .chain(&g.auditors)
                .chain(g.adjudicator.as_ref())
        });
        for m in graph.chain(self.question_writer.as_ref()) {
            if let Some(name) = m.model_name() {
                if !models.contains(&name) {
                    models.push(name);
                }
            }
        }
        self.models = models;
    }

    /// The record in one line, for reports: film, graph makers, question
    /// writer (each "baseline" when offline), alignment, keyframes, text-only.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let unknown = "unknown";
        let _ = write!(
            out,
            "film {}; {}",
            self.film.as_deref().unwrap_or(unknown),
            self.source.as_str()
        );
        if let Some(inner) = &self.imported {
            let _ = write!(out, " (carried provenance: {})", inner.describe());
            return out;
        }
        if let Some(b) = &self.benchmark {
            let _ =
                write!(
                out,
                " of another benchmark: {} questions read as {} from {}; no graph behind them; \
                 keyframes in contexts: {}",
                b.questions,
                b.format,
                b.files.join(", "),
                if self.keyframes == Some(true) { "yes" } else { "none" }
            );
            return out;
        }
        match &self.graph {
            Some(g) => {
                let _ = write!(
                    out,
                    "; graph generator {}, auditors {}, adjudicator {}",
                    g.generator.describe(),
                    g.auditors
                        .iter()
                        .map(Maker::describe)
                        .collect::<Vec<_>>()
                        .join(" + "),
                    g.adjudicator
                        .as_ref()
                        .map_or("none".into(), Maker::describe)
                );
            }
            None => out.push_str("; graph makers unknown"),
        }
        let _ = write!(
            out,
            "; question writer {}",
            self.question_writer
                .as_ref()
                .map_or(unknown.into(), Maker::describe)
        );
        match &self.alignment {
            Some(a) => {
                let _ = write!(
                    out,
                    "; alignment {} (coverage {:.1} %, {} of {} blocks untimed)",
                    a.verdict.as_str(),
                    a.coverage * 100.0,
                    a.untimed_blocks,
                    a.blocks
                );
            }
            None => out.push_str("; alignment unknown"),
        }
        let _ = write!(
            out,
            "; keyframes in contexts: {}",
            match self.keyframes {
                Some(true) => "yes",
                Some(false) => "none",
                None => unknown,
            }
        );
        match self.text_only {
            Some(true) => out.push_str(
                "; text-only (script-only trees: may ask about scenes the film does not contain)",
            ),
            Some(false) => out.push_str("; only scenes the film contains"),
            None => out.push_str("; text-only unknown"),
        }
        out
    }
}

/// Whether any question of `trees` shows a keyframe.
pub fn has_keyframes(trees: &[Tree]) -> bool {
    trees
        .iter()
        .flat_map(|t| &t.nodes)
        .any(|n| !n.context.keyframes.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_roles_are_baselines_and_models_name_their_backend() {
        let ids = vec![
            r#"{"name":"gpt","backend":"openai","model":"gpt-4o","temperature":0.0}"#.to_owned(),
        ];
        let g = GraphMakers::from_settings(
            "gpt",
            &["rules-grounding".to_owned(), "gpt".to_owned()],
            Some("rules-adjudicator"),
            &ids,
        );
        assert!(!g.generator.baseline);
        assert_eq!(g.generator.backend.as_deref(), Some("openai"));
        assert_eq!(g.generator.model.as_deref(), Some("gpt-4o"));
        assert!(g.auditors[0].baseline);
        assert!(g.adjudicator.as_ref().unwrap().baseline);
        let mut p = Provenance::new(Origin::Generated);
        p.graph = Some(g);
        p.question_writer = Some(Maker::baseline("rules"));
        p.collect_models();
        assert_eq!(p.models, vec!["openai/gpt-4o".to_owned()]);
        let text = p.describe();
        assert!(
            text.contains("graph generator gpt (openai gpt-4o)"),
            "{text}"
        );
        assert!(text.contains("rules-grounding (baseline)"), "{text}");
        assert!(text.contains("question writer rules (baseline)"), "{text}");
    }

    #[test]
    fn the_header_round_trips_and_leaves_unknowns_out() {
        let h = Header::new(Provenance::new(Origin::Import));
        let text = serde_json::to_string(&h).unwrap();
        assert_eq!(
            text,
            r#"{"format":"moviegraph.trees","version":1,"provenance":{"source":"import","models":[]}}"#
        );
        assert_eq!(serde_json::from_str::<Header>(&text).unwrap(), h);
    }
}
