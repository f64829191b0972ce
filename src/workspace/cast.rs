//! The cast: who serves each model role of a command or a run, read from the
//! configuration — the graph's generator, auditors and adjudicator (with the
//! auditor-independence rule), the trees' question writer, the judge, the
//! subjects — and the model layer they share.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::eval::subject::BASELINES;
use crate::graph::audit::{GroundingAuditor, RulesAdjudicator, SchemaTimeAuditor};
use crate::graph::build::Roles;
use crate::graph::generate::RulesGenerator;
use crate::graph::model::{ModelAdjudicator, ModelAuditor, ModelGenerator};
use crate::graph::{Adjudicator, Auditor, Generator};
use crate::llm::{BackendKind, BlockingModel, Config, Llm, LlmOptions, Role};
use crate::store::Store;

use super::{bail, Context, Result};

/// The models serving a graph build's roles, and which of them are `rules` models.
#[derive(Debug, Clone)]
pub struct GraphRoles {
    generator: String,
    auditors: Vec<String>,
    adjudicator: String,
    rules: BTreeSet<String>,
}

/// A build's roles, opened and owned.
pub struct OwnedRoles {
    generator: Box<dyn Generator>,
    auditors: Vec<Box<dyn Auditor>>,
    adjudicator: Box<dyn Adjudicator>,
}

impl OwnedRoles {
    /// The roles as `graph::build` takes them.
    pub fn roles(&self) -> Roles<'_> {
        Roles {
            generator: self.generator.as_ref(),
            auditors: self.auditors.iter().map(|a| a.as_ref()).collect(),
            adjudicator: Some(self.adjudicator.as_ref()),
        }
    }
}

impl GraphRoles {
    /// Reads the generator, auditors and adjudicator from the configuration.
    /// The auditors must be independent: no model named twice, and the only
    /// rules auditors are `rules-grounding` and `rules-schema`.
    pub fn from_config(config: &Config) -> Result<GraphRoles> {
        let one = |role: Role| -> Result<String> {
            config.role(role).first().cloned().with_context(|| {
                format!(
                    "{}: no model serves the {role} role",
                    config.source.display()
                )
            })
        };
        let chosen = GraphRoles {
            generator: one(Role::Generator)?,
            auditors: config.role(Role::Auditors).to_vec(),
            adjudicator: one(Role::Adjudicator)?,
            rules: config
                .models
                .iter()
                .filter(|(_, m)| m.backend == BackendKind::Rules)
                .map(|(n, _)| n.clone())
                .collect(),
        };
        let mut seen = BTreeSet::new();
        for a in &chosen.auditors {
            if !seen.insert(a) {
                bail!("auditor {a} is named twice; the auditors must be independent models");
            }
            if chosen.rules.contains(a) && !matches!(a.as_str(), "rules-grounding" | "rules-schema")
            {
                bail!(
                    "auditor {a} is a rules model; the rules auditors are rules-grounding and rules-schema"
                );
            }
        }
        Ok(chosen)
    }

    fn is_rules(&self, name: &str) -> bool {
        self.rules.contains(name)
    }

    /// Does any role call a model (rather than a native rules role)?
    pub fn needs_models(&self) -> bool {
        std::iter::once(&self.generator)
            .chain(&self.auditors)
            .chain(std::iter::once(&self.adjudicator))
            .any(|n| !self.is_rules(n))
    }

    /// Which backend runs each role, for a build's first line.
    pub fn describe(&self) -> String {
        if !self.needs_models() {
            return "rules backend: a lexical baseline, offline".to_owned();
        }
        let of = |n: &str| {
            if self.is_rules(n) {
                format!("{n} [rules: lexical baseline, offline]")
            } else {
                format!("{n} [model]")
            }
        };
        format!(
            "generator {}, auditors {}, adjudicator {}",
            of(&self.generator),
            self.auditors
                .iter()
                .map(|a| of(a))
                .collect::<Vec<_>>()
                .join(", "),
            of(&self.adjudicator)
        )
    }

    /// The native rules roles for `rules` models, model-backed roles for the
    /// rest, driven on `runtime` when one is given (else on a runtime of their own).
    pub fn open(
        &self,
        llm: Option<&Llm>,
        runtime: Option<Arc<tokio::runtime::Runtime>>,
    ) -> Result<OwnedRoles> {
        let mut wanted = Vec::new();
        let mut handle = |name: &str, role: &str| -> Result<usize> {
            let llm = llm.context("the model layer is not open")?;
            wanted.push(llm.model(name, role)?);
            Ok(wanted.len() - 1)
        };
        let g = (!self.is_rules(&self.generator))
            .then(|| handle(&self.generator, "generator"))
            .transpose()?;
        let auds = self
            .auditors
            .iter()
            .map(|a| {
                (!self.is_rules(a))
                    .then(|| handle(a, "auditor"))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let j = (!self.is_rules(&self.adjudicator))
            .then(|| handle(&self.adjudicator, "adjudicator"))
            .transpose()?;
        // One runtime for all the model roles of the build.
        let models = match runtime {
            Some(rt) => BlockingModel::all_on(wanted, rt),
            None => BlockingModel::all(wanted).context("cannot start the async runtime")?,
        };
        let generator: Box<dyn Generator> = match g {
            Some(i) => Box::new(ModelGenerator::new(models[i].clone())),
            None => Box::new(RulesGenerator::named(&self.generator)),
        };
        let auditors = self
            .auditors
            .iter()
            .zip(auds)
            .map(|(name, i)| -> Box<dyn Auditor> {
                match (i, name.as_str()) {
                    (Some(i), _) => Box::new(ModelAuditor::new(models[i].clone())),
                    (None, "rules-grounding") => Box::new(GroundingAuditor),
                    (None, _) => Box::new(SchemaTimeAuditor),
                }
            })
            .collect();
        let adjudicator: Box<dyn Adjudicator> = match j {
            Some(i) => Box::new(ModelAdjudicator::new(models[i].clone())),
            None => Box::new(RulesAdjudicator),
        };
        Ok(OwnedRoles {
            generator,
            auditors,
            adjudicator,
        })
    }
}

/// The configured model serving `role` when it is off the rules backend.
pub fn model_role(config: &Config, role: Role) -> Option<String> {
    config
        .role(role)
        .first()
        .cloned()
        .filter(|name| is_model(config, name))
}

/// Is `name` a configured model off the rules backend?
pub fn is_model(config: &Config, name: &str) -> bool {
    config
        .models
        .get(name)
        .is_some_and(|m| m.backend != BackendKind::Rules)
}

/// The subjects of an evaluation: those given, else the configured subject
/// role when it is a model, else the three offline baselines. Each must be a
/// baseline or a configured model off the rules backend, and named once.
pub fn subjects(given: &[String], config: &Config) -> Result<Vec<String>> {
    let chosen: Vec<String> = if !given.is_empty() {
        given.to_vec()
    } else if let Some(name) = model_role(config, Role::Subject) {
        vec![name]
    } else {
        BASELINES.iter().map(|s| s.to_string()).collect()
    };
    let mut seen = BTreeSet::new();
    for s in &chosen {
        if !seen.insert(s) {
            bail!("subject {s:?} is named twice");
        }
        check_subject(s, config)?;
    }
    Ok(chosen)
}

/// `name` is an offline baseline or a configured model that answers questions.
pub fn check_subject(name: &str, config: &Config) -> Result<()> {
    if BASELINES.contains(&name) || is_model(config, name) {
        return Ok(());
    }
    if let Some(model) = crate::eval::limp::model_of(name) {
        if is_model(config, model) {
            return Ok(());
        }
        bail!(
            "subject {name:?}: the LIMP solver needs a model that answers, and {model:?} is not \
             one configured in {} off the rules backend",
            config.source.display()
        );
    }
    if config.models.contains_key(name) {
        bail!(
            "subject {name:?} is on the rules backend, which answers no questions; pass an offline \
             baseline ({}) or a model configured in {}",
            BASELINES.join(", "),
            config.source.display()
        );
    }
    bail!(
        "subject {name:?} is neither an offline baseline ({}) nor a model configured in {} \
         (see moviegraph.example.toml)",
        BASELINES.join(", "),
        config.source.display()
    );
}

/// Opens the model layer on its own connection to the store at `store_path`
/// (SQLite in WAL mode lets a stage hold another connection to the same
/// file), so a stage that writes its own tables never waits on the model
/// layer's lock. `run_label` names the run in the store's call records.
pub fn open_llm(
    config: Config,
    store_path: &Path,
    run_label: &str,
    max_cost: Option<f64>,
) -> Result<Llm> {
    let store = Store::open(store_path)
        .with_context(|| format!("opening the store {}", store_path.display()))?;
    Ok(Llm::new(
        config,
        Arc::new(Mutex::new(store)),
        LlmOptions {
            run_label: run_label.to_string(),
            max_cost,
            ..LlmOptions::default()
        },
    )?)
}

/// The models of a run, from its configuration: who serves each role of the
/// graph, trees and eval stages. Any role may be on the offline `rules`
/// backend; with every one there, nothing is called and no network is used.
#[derive(Clone)]
pub struct Cast {
    /// The graph stage's generator, auditors and adjudicator.
    pub graph: GraphRoles,
    /// The trees stage's question writer when it is a model (else the rules templates).
    pub trees: Option<String>,
    /// The judge of open answers when it is a model (else the ROUGE-L fallback).
    pub judge: Option<String>,
    /// The model layer, one for the whole run, so each model's concurrency
    /// limit holds across films; `None` when no role calls a model.
    pub llm: Option<Llm>,
    /// The runtime every model call of the run is driven on (one, so the
    /// model layer's pooled connections stay valid from film to film).
    pub runtime: Arc<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Cast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cast")
            .field("graph", &self.graph)
            .field("trees", &self.trees)
            .field("judge", &self.judge)
            .field("llm", &self.llm.is_some())
            .finish_non_exhaustive()
    }
}

impl Cast {
    /// Every role on the offline backends.
    pub fn offline() -> Result<Cast> {
        Cast::from_config(&Config::offline())
    }

    /// The roles `config` names; the model layer is opened later with
    /// [`Cast::with_llm`] when [`Cast::needs_models`] says so.
    pub fn from_config(config: &Config) -> Result<Cast> {
        Ok(Cast {
            graph: GraphRoles::from_config(config)?,
            trees: model_role(config, Role::Generator),
            judge: model_role(config, Role::Judge),
            llm: None,
            runtime: Arc::new(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .context("starting the async runtime")?,
            ),
        })
    }

    /// Does any role (or one of `subjects`) call a model?
    pub fn needs_models(&self, subjects: &[String]) -> bool {
        self.graph.needs_models()
            || self.trees.is_some()
            || self.judge.is_some()
            || subjects.iter().any(|s| !BASELINES.contains(&s.as_str()))
    }

    /// The cast with its model layer.
    pub fn with_llm(self, llm: Llm) -> Cast {
        Cast {
            llm: Some(llm),
            ..self
        }
    }

    /// Dollars spent on model calls by this run so far (every film).
    pub fn cost(&self) -> f64 {
        self.llm.as_ref().map_or(0.0, Llm::spent)
    }

    /// The model layer, or an error when a role needs it and it is not open.
    pub fn llm(&self) -> Result<&Llm> {
        self.llm
            .as_ref()
            .context("a role needs a model but the model layer is not open")
    }

    /// A model's settings identity, for a stage's fingerprint.
    pub fn identity(&self, name: &str, role: Role) -> Result<String> {
        // `limp:MODEL` is a method over MODEL: its identity is MODEL's, named.
        if let Some(model) = crate::eval::limp::model_of(name) {
            let inner = self.llm()?.model(model, role.name())?.settings_identity();
            return Ok(format!("{}{inner}", crate::eval::limp::PREFIX));
        }
        Ok(self.llm()?.model(name, role.name())?.settings_identity())
    }
}

/// One model's check: its latency and answer, or the exact error.
pub type Ping = Result<(std::time::Duration, String), String>;

/// Sends one tiny request to each model in `names` and gives its latency and
/// answer, or the exact error (shared by `models check` and `doctor`).
pub fn ping(config: &Config, names: &[String]) -> Result<Vec<(String, Ping)>> {
    let store = Arc::new(Mutex::new(Store::open_in_memory()?));
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let llm = Llm::new(
        config.clone(),
        store,
        LlmOptions {
            run_label: "models check".into(),
            ..LlmOptions::default()
        },
    )?;
    Ok(names
        .iter()
        .map(|name| (name.clone(), runtime.block_on(llm.check(name))))
        .collect())
}
