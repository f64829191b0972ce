//! [`Cast`]: who serves each model role of a run, from its configuration.

use super::*;

/// The models of a run, from its configuration: who serves each role of the
/// graph, trees and eval stages. Any role may be on the offline `rules`
/// backend; with every one there, nothing is called and no network is used.
#[derive(Clone)]
pub struct Cast {
    /// The graph stage's generator, auditors and adjudicator.
    pub graph: Chosen,
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
    pub fn offline() -> anyhow::Result<Cast> {
        Cast::from_config(&Config::offline())
    }

    /// The roles `config` names; the model layer is opened later with
    /// [`Cast::with_llm`] when [`Cast::needs_models`] says so.
    pub fn from_config(config: &Config) -> anyhow::Result<Cast> {
        let model = |role: Role| {
            config.role(role).first().cloned().filter(|name| {
                config
                    .models
                    .get(name)
                    .is_some_and(|m| m.backend != BackendKind::Rules)
            })
        };
        Ok(Cast {
            graph: choose_roles(config)?,
            trees: model(Role::Generator),
            judge: model(Role::Judge),
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

    pub(super) fn llm(&self) -> anyhow::Result<&Llm> {
        self.llm
            .as_ref()
            .context("a role needs a model but the model layer is not open")
    }

    /// A model's settings identity, for a stage's fingerprint.
    pub(super) fn identity(&self, name: &str, role: Role) -> anyhow::Result<String> {
        Ok(self.llm()?.model(name, role.name())?.settings_identity())
    }
}
