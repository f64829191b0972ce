//! Use case: `moviegraph models list` — what the configuration casts in each
//! role and how each model is reached.

use std::fmt::Write as _;

use crate::eval::subject::BASELINES;
use crate::llm::local::backend::resolve_configured;
use crate::llm::{BackendKind, Config, Role};

use super::cast::check_subject;

/// One configured model as `models list` shows it: backend, endpoint or
/// file, key state (never the key), limits and prices.
fn describe(config: &Config, name: &str) -> String {
    let m = &config.models[name];
    let mut s = format!("{name} [{}]", m.backend.name());
    match m.backend {
        BackendKind::Openai => {
            let _ = write!(
                s,
                " {} at {}",
                m.model.as_deref().unwrap_or(name),
                m.urls().join(", ")
            );
            if let Some(var) = &m.api_key_env {
                let state = if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
                    "set"
                } else {
                    "NOT SET"
                };
                let _ = write!(s, ", key from ${var} ({state})");
            }
        }
        BackendKind::Replay => {
            let _ = write!(s, " of {}", m.replay_of.as_deref().unwrap_or("?"));
            if let Some(p) = &m.replay_store {
                let _ = write!(s, " from {}", p.display());
            }
        }
        BackendKind::Local => match resolve_configured(name, m.path.as_deref(), &config.source) {
            Ok(p) => {
                let _ = write!(s, " {}", p.display());
            }
            Err(why) => {
                let _ = write!(s, " MISSING ({why})");
            }
        },
        BackendKind::Rules => {}
    }
    let _ = write!(
        s,
        "; concurrency {}, timeout {} s",
        m.concurrency, m.timeout_s
    );
    if let Some(t) = m.temperature {
        let _ = write!(s, ", temperature {t}");
    }
    if let Some(n) = m.max_tokens {
        let _ = write!(s, ", max_tokens {n}");
    }
    if let Some(seed) = m.seed {
        let _ = write!(s, ", seed {seed}");
    }
    if m.price_input_per_1k > 0.0 || m.price_output_per_1k > 0.0 {
        let _ = write!(
            s,
            ", price {}/{} per 1K in/out",
            m.price_input_per_1k, m.price_output_per_1k
        );
    }
    s
}

/// `models list`: the configuration's roles, models and client settings.
pub fn list_models(config: &Config) -> String {
    let mut out = format!("configuration: {}\n\nroles:\n", config.source.display());
    for role in Role::ALL {
        let names = config.role(role);
        let _ = write!(out, "  {:<12} {}", role.name(), names.join(", "));
        // A subject on the rules backend is listed, and `eval run` refuses
        // it: say so here, where it is read.
        if role == Role::Subject && names.iter().any(|n| check_subject(n, config).is_err()) {
            let _ = write!(
                out,
                "  (the rules backend answers no questions: eval run needs --subject with an \
                 offline baseline, {}, or an answering model)",
                BASELINES.join(", ")
            );
        }
        out.push('\n');
    }
    out.push_str("\nmodels:\n");
    for name in config.models.keys() {
        let _ = writeln!(out, "  {}", describe(config, name));
    }
    let c = &config.client;
    let _ = writeln!(
        out,
        "\nclient: {} retries, backoff {}..{} ms, deadline {} s, {} repairs",
        c.max_retries, c.backoff_base_ms, c.backoff_max_ms, c.deadline_s, c.max_repairs
    );
    out
}
