//! `moviegraph doctor`'s checks: is this workspace ready to run? Films,
//! configuration, keys, model files, endpoints and the store, each an
//! ok/warn/fail finding that says what to do.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::embed::model_dir::resolve_minilm;
use crate::embed::MINILM_FILES;
use crate::llm::local::{default_model_dir, resolve_model_path};
use crate::llm::{BackendKind, Config, Role, RoleOverrides};
use crate::media::subtitles;
use crate::media::video::ffmpeg_version;
use crate::screenplay;
use crate::store;

use super::cast::ping;
use super::film::{SCRIPT_VERSIONS, SUBTITLE_FILES};
use super::Result;

/// Runs every check: film folders under `workspace/screenplays`, the
/// configuration at `config` (or the default), model files, each configured
/// endpoint (one tiny request), and the store named by `store`.
pub fn check(workspace: &Path, config: Option<&Path>, store: Option<&Path>) -> Result<Findings> {
    let mut f = Findings {
        text: String::new(),
        failed: 0,
        warned: 0,
    };
    films(&mut f, workspace);
    let loaded = config_check(&mut f, config);
    model_files(&mut f, loaded.as_ref());
    video_tools(&mut f);
    if let Some(loaded) = &loaded {
        endpoints(&mut f, loaded)?;
    }
    store_check(&mut f, store);
    let _ = writeln!(f.text, "\n{} failed, {} warnings", f.failed, f.warned);
    Ok(f)
}

/// How a finding went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Ready.
    Ok,
    /// Works, with a caveat.
    Warn,
    /// Needs fixing.
    Fail,
}

/// Every finding of a check, as text, with counts.
pub struct Findings {
    /// One line per finding (`ok`, `warn`, `FAIL`), with the fix on the next.
    pub text: String,
    /// Findings that failed.
    pub failed: usize,
    /// Warnings.
    pub warned: usize,
}

impl Findings {
    /// Records one finding.
    pub fn add(&mut self, level: Level, what: &str, fix: Option<&str>) {
        let tag = match level {
            Level::Ok => "ok  ",
            Level::Warn => {
                self.warned += 1;
                "warn"
            }
            Level::Fail => {
                self.failed += 1;
                "FAIL"
            }
        };
        let _ = write!(self.text, "{tag}  {what}");
        if let Some(fix) = fix {
            let _ = write!(self.text, "\n      fix: {fix}");
        }
        self.text.push('\n');
    }
}

fn films(f: &mut Findings, root: &Path) {
    let dir = root.join("screenplays");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        f.add(
            Level::Warn,
            &format!("workspace: no {} folder", dir.display()),
            Some("run from the workspace root (or --workspace DIR), or pass film folders to `moviegraph run` directly"),
        );
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    if folders.is_empty() {
        f.add(
            Level::Warn,
            &format!("workspace: {} holds no film folder", dir.display()),
            Some("add one folder per film with script.fountain|fdx|txt and subtitles.srt|vtt"),
        );
    }
    for film in folders {
        let slug = film
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let find = |names: &mut dyn Iterator<Item = &str>| {
            names.map(|n| film.join(n)).find(|p| p.is_file())
        };
        let Some(script) = find(&mut SCRIPT_VERSIONS.iter().map(|(n, _)| *n)) else {
            f.add(
                Level::Fail,
                &format!("film {slug}: no screenplay in {}", film.display()),
                Some("add script.fountain, script.fdx or script.txt"),
            );
            continue;
        };
        match screenplay::parse_file(&script, None) {
            Ok(play) => f.add(
                Level::Ok,
                &format!(
                    "film {slug}: {} parses ({} elements, {} scenes, {} diagnostics)",
                    script.display(),
                    play.elements.len(),
                    play.scenes.len(),
                    play.diagnostics.len()
                ),
                None,
            ),
            Err(err) => f.add(
                Level::Fail,
                &format!("film {slug}: {err}"),
                Some("fix or replace the screenplay file"),
            ),
        }
        match find(&mut SUBTITLE_FILES.iter().copied()) {
            None => f.add(
                Level::Fail,
                &format!("film {slug}: no subtitles in {}", film.display()),
                Some("add subtitles.srt or subtitles.vtt"),
            ),
            Some(subs) => match subtitles::parse_file(&subs, None) {
                Ok(s) => f.add(
                    Level::Ok,
                    &format!(
                        "film {slug}: {} parses ({} cues)",
                        subs.display(),
                        s.cues.len()
                    ),
                    None,
                ),
                Err(err) => f.add(
                    Level::Fail,
                    &format!("film {slug}: {err}"),
                    Some("fix or replace the subtitle file"),
                ),
            },
        }
        let keyframes = root.join("keyframes").join(&slug);
        if keyframes.is_dir() {
            f.add(
                Level::Ok,
                &format!("film {slug}: keyframes in {}", keyframes.display()),
                None,
            );
        } else {
            f.add(
                Level::Warn,
                &format!("film {slug}: no keyframes folder {}", keyframes.display()),
                Some("optional: without it blocks carry no keyframes; put the MovieNet shot_txt/ and keyframes there"),
            );
        }
    }
}

fn config_check(f: &mut Findings, path: Option<&Path>) -> Option<Config> {
    let config = match Config::load(path, &RoleOverrides::default()) {
        Ok(c) => c,
        Err(err) => {
            f.add(
                Level::Fail,
                &format!("config: {err}"),
                Some("fix the file (see moviegraph.example.toml)"),
            );
            return None;
        }
    };
    let roles: Vec<String> = Role::ALL
        .iter()
        .map(|r| format!("{} = {}", r.name(), config.role(*r).join(", ")))
        .collect();
    f.add(
        Level::Ok,
        &format!(
            "config: {} parses; every role resolves ({})",
            config.source.display(),
            roles.join("; ")
        ),
        None,
    );
    for (name, model) in &config.models {
        let Some(var) = &model.api_key_env else {
            continue;
        };
        let used = Role::ALL
            .iter()
            .any(|r| config.role(*r).iter().any(|n| n == name));
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            f.add(
                Level::Ok,
                &format!("config: model {name}: key variable ${var} is set"),
                None,
            );
        } else {
            f.add(
                if used { Level::Fail } else { Level::Warn },
                &format!(
                    "config: model {name}: key variable ${var} is not set{}",
                    if used { "" } else { " (no role uses it)" }
                ),
                Some(&format!("export {var}=…")),
            );
        }
    }
    Some(config)
}

/// ffmpeg (for films given as a video), the shot detectors, and whether
/// TransNetV2's weights are installed and verify.
fn video_tools(f: &mut Findings) {
    match super::shots::transnet_dir() {
        None => f.add(
            Level::Warn,
            "video: TransNetV2: no models folder to look in (neither HOME nor XDG_CACHE_HOME is set)",
            Some("set MOVIEGRAPH_MODELS and run scripts/setup-models --only transnetv2"),
        ),
        Some(dir) => match crate::media::video::transnet::TransNet::load(&dir) {
            Ok(_) => f.add(
                Level::Ok,
                &format!("video: TransNetV2 weights in {} verify", dir.display()),
                None,
            ),
            Err(err) => f.add(
                Level::Warn,
                &format!("video: TransNetV2: {err}; shots fall back to the robust detector"),
                Some("scripts/setup-models --only transnetv2"),
            ),
        },
    }
    match ffmpeg_version() {
        Ok(version) => f.add(
            Level::Ok,
            &format!(
                "video: {version}; shot detectors: {} (default {})",
                super::shots::DETECTORS.join(", "),
                super::shots::default_detector().0.name()
            ),
            None,
        ),
        Err(err) => f.add(
            Level::Warn,
            &format!("video: {err}"),
            Some("only needed for films given as a video file (`moviegraph shots`, or a video in a film folder)"),
        ),
    }
}

fn model_files(f: &mut Findings, config: Option<&Config>) {
    match resolve_minilm(None) {
        None => f.add(
            Level::Warn,
            "models: MiniLM: no folder to look in (neither HOME nor XDG_CACHE_HOME is set)",
            Some("set MOVIEGRAPH_MODELS and run scripts/setup-models"),
        ),
        Some((dir, source)) => {
            let missing: Vec<&str> = MINILM_FILES
                .iter()
                .map(|(name, _)| *name)
                .filter(|name| !dir.join(name).is_file())
                .collect();
            if missing.is_empty() {
                f.add(
                    Level::Ok,
                    &format!(
                        "models: MiniLM in {} ({})",
                        dir.display(),
                        source.describe()
                    ),
                    None,
                );
            } else {
                f.add(
                    Level::Warn,
                    &format!(
                        "models: MiniLM: {} lacks {} (alignment falls back to hashed embeddings)",
                        dir.display(),
                        missing.join(", ")
                    ),
                    Some("run scripts/setup-models"),
                );
            }
        }
    }
    match resolve_model_path(None) {
        Ok(path) => f.add(
            Level::Ok,
            &format!("models: SmolLM2 (local) at {}", path.display()),
            None,
        ),
        Err(err) => f.add(
            Level::Warn,
            &format!(
                "models: SmolLM2 (local): {err}{}",
                default_model_dir()
                    .map(|d| format!(" (looked in {})", d.display()))
                    .unwrap_or_default()
            ),
            Some("run scripts/setup-models (only needed for the local backend)"),
        ),
    }
    let Some(config) = config else { return };
    for (name, model) in &config.models {
        if model.backend != BackendKind::Local {
            continue;
        }
        match &model.path {
            Some(p) if p.is_file() => f.add(
                Level::Ok,
                &format!("models: {name} (local) at {}", p.display()),
                None,
            ),
            Some(p) => f.add(
                Level::Fail,
                &format!("models: {name} (local): {} is not a file", p.display()),
                Some("fix `path` in the configuration, or run scripts/setup-models"),
            ),
            None => {}
        }
    }
}

fn endpoints(f: &mut Findings, config: &Config) -> Result<()> {
    let names: Vec<String> = config
        .models
        .iter()
        .filter(|(_, m)| m.backend == BackendKind::Openai)
        .map(|(n, _)| n.clone())
        .collect();
    if names.is_empty() {
        f.add(
            Level::Ok,
            "endpoints: none configured (offline backends only)",
            None,
        );
        return Ok(());
    }
    for (name, result) in ping(config, &names)? {
        let urls = config.models[&name].urls().join(", ");
        match result {
            Ok((latency, _)) => f.add(
                Level::Ok,
                &format!(
                    "endpoint {name} at {urls}: answered in {} ms",
                    latency.as_millis()
                ),
                None,
            ),
            Err(err) => f.add(
                Level::Fail,
                &format!("endpoint {name} at {urls}: {err}"),
                Some("start the server or fix base_url; `moviegraph models check` retries one request"),
            ),
        }
    }
    Ok(())
}

fn store_check(f: &mut Findings, flag: Option<&Path>) {
    let path = store::resolve_path(flag);
    if !path.exists() {
        f.add(
            Level::Warn,
            &format!("store: {} does not exist yet", path.display()),
            Some("nothing to do: the first `moviegraph run` or `align --store` creates it"),
        );
        return;
    }
    match store::inspect(&path) {
        Err(err) => f.add(
            Level::Fail,
            &format!("store: {err}"),
            Some("restore the file from a copy, or move it away and rebuild"),
        ),
        Ok(h) if h.integrity != ["ok"] => f.add(
            Level::Fail,
            &format!(
                "store: {} fails its integrity check: {}",
                path.display(),
                h.integrity
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Some("restore the file from a copy, or try `sqlite3 FILE .recover`"),
        ),
        Ok(h) if !h.unknown.is_empty() => f.add(
            Level::Fail,
            &format!(
                "store: {} has schema migrations {:?} this moviegraph does not know",
                path.display(),
                h.unknown
            ),
            Some("upgrade moviegraph, or use another --store"),
        ),
        Ok(h) => {
            let version = h.applied.iter().max().copied().unwrap_or(0);
            if h.pending.is_empty() {
                f.add(
                    Level::Ok,
                    &format!(
                        "store: {} is sound, schema version {version}",
                        path.display()
                    ),
                    None,
                );
            } else {
                f.add(
                    Level::Warn,
                    &format!(
                        "store: {} is sound, schema version {version}; migrations {:?} pending",
                        path.display(),
                        h.pending
                    ),
                    Some("nothing to do: the next command that opens the store applies them"),
                );
            }
        }
    }
}
