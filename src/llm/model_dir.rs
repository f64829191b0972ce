//! Where the MiniLM model files are: `--model-dir` flag, then
//! `MOVIEGRAPH_MINILM_DIR`, then `$MOVIEGRAPH_MODELS/all-MiniLM-L6-v2`, then
//! `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models/all-MiniLM-L6-v2` (where
//! `scripts/setup-models` installs by default).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable naming the MiniLM folder itself.
pub const MINILM_DIR_ENV: &str = "MOVIEGRAPH_MINILM_DIR";
/// Environment variable naming the folder that holds every model's folder.
pub const MODELS_ENV: &str = "MOVIEGRAPH_MODELS";
/// The MiniLM folder's name under a models folder.
pub const MINILM_FOLDER: &str = "all-MiniLM-L6-v2";

/// Which rule chose the folder (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The `--model-dir` flag.
    Flag,
    /// `MOVIEGRAPH_MINILM_DIR`.
    MinilmEnv,
    /// `MOVIEGRAPH_MODELS`.
    ModelsEnv,
    /// The default cache path.
    Default,
}

impl Source {
    /// How the source reads in a message.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Flag => "--model-dir",
            Source::MinilmEnv => MINILM_DIR_ENV,
            Source::ModelsEnv => MODELS_ENV,
            Source::Default => "the default cache path",
        }
    }
}

/// The MiniLM folder from the process environment.
pub fn resolve_minilm(flag: Option<&Path>) -> Option<(PathBuf, Source)> {
    resolve_minilm_with(flag, |k| std::env::var_os(k))
}

/// The MiniLM folder, reading variables through `var` (so tests need not
/// touch the process environment). `None` only when no rule applies (no home
/// folder and no variables).
pub fn resolve_minilm_with(
    flag: Option<&Path>,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<(PathBuf, Source)> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = flag {
        return Some((dir.to_path_buf(), Source::Flag));
    }
    if let Some(dir) = set(MINILM_DIR_ENV) {
        return Some((dir, Source::MinilmEnv));
    }
    if let Some(models) = set(MODELS_ENV) {
        return Some((models.join(MINILM_FOLDER), Source::ModelsEnv));
    }
    let cache = set("XDG_CACHE_HOME").or_else(|| set("HOME").map(|h| h.join(".cache")))?;
    Some((
        cache.join("moviegraph").join("models").join(MINILM_FOLDER),
        Source::Default,
    ))
}

/// The folder that holds every model's folder: `$MOVIEGRAPH_MODELS`, else
/// `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models`, reading variables through
/// `var`. `None` only when no rule applies.
pub fn models_root_with(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(models) = set(MODELS_ENV) {
        return Some(models);
    }
    let cache = set("XDG_CACHE_HOME").or_else(|| set("HOME").map(|h| h.join(".cache")))?;
    Some(cache.join("moviegraph").join("models"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn precedence_is_flag_env_models_cache() {
        let all = env(&[
            (MINILM_DIR_ENV, "/m"),
            (MODELS_ENV, "/models"),
            ("XDG_CACHE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ]);
        assert_eq!(
            resolve_minilm_with(Some(Path::new("/f")), &all),
            Some((PathBuf::from("/f"), Source::Flag))
        );
        assert_eq!(
            resolve_minilm_with(None, &all),
            Some((PathBuf::from("/m"), Source::MinilmEnv))
        );
        assert_eq!(
            resolve_minilm_with(None, env(&[(MODELS_ENV, "/models"), ("HOME", "/h")])),
            Some((PathBuf::from("/models/all-MiniLM-L6-v2"), Source::ModelsEnv))
        );
        assert_eq!(
            resolve_minilm_with(None, env(&[("XDG_CACHE_HOME", "/xdg"), ("HOME", "/h")])),
            Some((
                PathBuf::from("/xdg/moviegraph/models/all-MiniLM-L6-v2"),
                Source::Default
            ))
        );
        assert_eq!(
            resolve_minilm_with(None, env(&[("HOME", "/h"), (MINILM_DIR_ENV, "")])),
            Some((
                PathBuf::from("/h/.cache/moviegraph/models/all-MiniLM-L6-v2"),
                Source::Default
            ))
        );
        assert_eq!(resolve_minilm_with(None, env(&[])), None);
    }
}
