//! `moviegraph models`: the resolved roles, and a live check of every model.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use moviegraph::llm::{Config, Role, RoleOverrides};
use moviegraph::workspace::models::list_models;

use super::{emit, Outcome};

/// The configuration file and per-role overrides, shared by every command that
/// calls models.
#[derive(Debug, Clone, Args)]
pub struct ModelFlags {
    /// The configuration (default: ./moviegraph.toml if present, else every role
    /// on the offline `rules` backend).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Model for the generator role.
    #[arg(long, value_name = "MODEL")]
    generator: Option<String>,
    /// Models for the auditors role (comma-separated, two or more).
    #[arg(long, value_name = "MODELS", value_delimiter = ',')]
    auditors: Option<Vec<String>>,
    /// Model for the adjudicator role.
    #[arg(long, value_name = "MODEL")]
    adjudicator: Option<String>,
    /// Model for the subject role (the model under test); `eval run` also
    /// takes an offline baseline, and `run` several subjects (repeat the flag).
    #[arg(long = "subject", value_name = "MODEL")]
    subject: Vec<String>,
    /// Model for the judge role.
    #[arg(long, value_name = "MODEL")]
    judge: Option<String>,
    /// Model for the embedder role. `run` also takes auto (all-MiniLM-L6-v2
    /// when its files are installed, else the hashed baseline, said so; the
    /// default unless the configuration's embedder role is a model), minilm or
    /// hashed, as `align --embedder` does.
    #[arg(long, value_name = "MODEL")]
    embedder: Option<String>,
}

/// The configuration file and the generator role alone: the flags of a
/// command that calls no other role (`trees generate`), so its `--help`
/// lists no flag that would do nothing.
#[derive(Debug, Clone, Args)]
pub struct GeneratorFlags {
    /// The configuration (default: ./moviegraph.toml if present, else every role
    /// on the offline `rules` backend).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Model for the generator role (the question writer).
    #[arg(long, value_name = "MODEL")]
    generator: Option<String>,
}

impl GeneratorFlags {
    /// Loads the configuration and applies `--generator`.
    pub fn load(&self) -> anyhow::Result<Config> {
        load_with(
            self.config.as_deref(),
            &[(Role::Generator, self.generator.as_ref())],
            None,
        )
    }
}

/// Loads the configuration at `config` with each given role flag applied.
fn load_with(
    config: Option<&std::path::Path>,
    roles: &[(Role, Option<&String>)],
    auditors: Option<&Vec<String>>,
) -> anyhow::Result<Config> {
    let mut overrides = RoleOverrides::default();
    for (role, name) in roles {
        if let Some(name) = name {
            overrides.roles.push((*role, vec![(*name).clone()]));
        }
    }
    if let Some(names) = auditors {
        overrides.roles.push((Role::Auditors, names.clone()));
    }
    Ok(Config::load(config, &overrides)?)
}

/// The configuration file and the graph-building roles: the flags of
/// `graph build`, which calls no subject, judge or embedder.
#[derive(Debug, Clone, Args)]
pub struct GraphRoleFlags {
    /// The configuration (default: ./moviegraph.toml if present, else every role
    /// on the offline `rules` backend).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Model for the generator role (proposes graph elements).
    #[arg(long, value_name = "MODEL")]
    generator: Option<String>,
    /// Models for the auditors role (comma-separated, two or more).
    #[arg(long, value_name = "MODELS", value_delimiter = ',')]
    auditors: Option<Vec<String>>,
    /// Model for the adjudicator role (settles what the auditors split on).
    #[arg(long, value_name = "MODEL")]
    adjudicator: Option<String>,
}

impl GraphRoleFlags {
    /// Loads the configuration and applies the role flags.
    pub fn load(&self) -> anyhow::Result<Config> {
        load_with(
            self.config.as_deref(),
            &[
                (Role::Generator, self.generator.as_ref()),
                (Role::Adjudicator, self.adjudicator.as_ref()),
            ],
            self.auditors.as_ref(),
        )
    }
}

/// The configuration file and the evaluation roles: the flags of `eval run`,
/// which calls no generator, auditor, adjudicator or embedder.
#[derive(Debug, Clone, Args)]
pub struct EvalRoleFlags {
    /// The configuration (default: ./moviegraph.toml if present, else every role
    /// on the offline `rules` backend).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The subject (the model under test): an offline baseline (random,
    /// first-option, lexical) or a configured model.
    #[arg(long = "subject", value_name = "MODEL")]
    subject: Vec<String>,
    /// Model for the judge role (scores open answers).
    #[arg(long, value_name = "MODEL")]
    judge: Option<String>,
}

impl EvalRoleFlags {
    /// Loads the configuration and applies `--judge` (`--subject` may name a
    /// baseline, which the configuration does not know, so it is not applied).
    pub fn load_without_subject(&self) -> anyhow::Result<Config> {
        load_with(
            self.config.as_deref(),
            &[(Role::Judge, self.judge.as_ref())],
            None,
        )
    }

    /// Every `--subject` value, in the order given.
    pub fn subjects(&self) -> &[String] {
        &self.subject
    }

    /// The `--judge` value, if given.
    pub fn judge(&self) -> Option<&str> {
        self.judge.as_deref()
    }
}

/// The configuration file alone: for commands that name their model
/// themselves (`llm run-batch --model`).
#[derive(Debug, Clone, Args)]
pub struct ConfigFlag {
    /// The configuration (default: ./moviegraph.toml if present, else every role
    /// on the offline `rules` backend).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl ConfigFlag {
    /// Loads the configuration.
    pub fn load(&self) -> anyhow::Result<Config> {
        load_with(self.config.as_deref(), &[], None)
    }
}

impl ModelFlags {
    /// Loads the configuration and applies the role flags.
    pub fn load(&self) -> anyhow::Result<Config> {
        load_with(
            self.config.as_deref(),
            &[
                (Role::Generator, self.generator.as_ref()),
                (Role::Adjudicator, self.adjudicator.as_ref()),
                (Role::Subject, self.subject.first()),
                (Role::Judge, self.judge.as_ref()),
                (Role::Embedder, self.embedder.as_ref()),
            ],
            self.auditors.as_ref(),
        )
    }

    /// Every `--subject` value, in the order given.
    pub fn subjects(&self) -> &[String] {
        &self.subject
    }

    /// The `--embedder` value, if given.
    pub fn embedder(&self) -> Option<&str> {
        self.embedder.as_deref()
    }

    /// The `--config` value, if given.
    pub fn config_path(&self) -> Option<&std::path::Path> {
        self.config.as_deref()
    }

    /// These flags without `--embedder`, for `run`, where it may name an
    /// embedder other than a configured model (auto, minilm, hashed).
    pub fn without_embedder(&self) -> ModelFlags {
        ModelFlags {
            embedder: None,
            ..self.clone()
        }
    }

    /// These flags without `--subject`, for commands where it may name something
    /// other than a configured model (an offline baseline of `eval run`).
    pub fn without_subject(&self) -> ModelFlags {
        ModelFlags {
            subject: Vec::new(),
            ..self.clone()
        }
    }
}

/// Show or check the configured models (moviegraph.toml; see
/// moviegraph.example.toml).
#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Print every role with the model that serves it, then every model.
    List(ModelFlags),
    /// Send one tiny request to each configured model and print its latency or
    /// the exact error (exit 1 if any fails).
    Check(ModelFlags),
}

/// Runs `models list` or `models check`.
pub fn models(cmd: ModelsCommand) -> anyhow::Result<Outcome> {
    match cmd {
        ModelsCommand::List(flags) => list(&flags.load()?),
        ModelsCommand::Check(flags) => check(&flags.load()?),
    }
}

fn list(config: &Config) -> anyhow::Result<Outcome> {
    emit(&list_models(config))?;
    Ok(Outcome::Success)
}

fn check(config: &Config) -> anyhow::Result<Outcome> {
    let names: Vec<String> = config.models.keys().cloned().collect();
    let mut failed = 0;
    for (name, result) in moviegraph::workspace::cast::ping(config, &names)? {
        let line = match result {
            Ok((latency, text)) => {
                let text: String = text.chars().take(60).collect();
                format!(
                    "ok      {name}: {} ms, answered {text:?}\n",
                    latency.as_millis()
                )
            }
            Err(err) => {
                failed += 1;
                format!("FAILED  {name}: {err}\n")
            }
        };
        emit(&line)?;
    }
    Ok(if failed == 0 {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}
