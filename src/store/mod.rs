//! The workspace store: one SQLite database per workspace (ARCHITECTURE.md, `src/store/`).
//!
//! The store is the only module that knows SQL. It opens the database in WAL mode
//! with foreign keys on, applies the migrations in [`MIGRATIONS`], and offers typed
//! reads and writes per pipeline stage in sibling files (one file per stage, so
//! stages do not share tables by accident).
//!
//! The store sits below the stages and knows none of their types: it reads and
//! writes its own rows (plain strings and numbers, or a stage's serde form as
//! JSON text), and each stage turns its types into rows and back in its own
//! `store` module (`align::store`, `graph::store`), an extension
//! trait on [`Store`].
//!
//! Every write that records work a stage paid for (a model response, an
//! alignment) is committed before the caller moves on, so a killed process loses
//! at most the item it was working on.

mod align;
mod embed;
mod eval;
mod films;
mod graph;
mod health;
mod llm;
mod merge;
mod migrate;
mod review;
mod run;
mod walk;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

pub use align::{
    AlignmentRows, AlignmentSources, BlockKeyframeRow, BlockRow, CueRow, ElementRow, InputFile,
    KeyframeRow, LineRow, RunRow, SavedAlignmentRows, SceneRow, ShotRow,
};
pub use eval::{EvalAnswer, EvalRun};
pub use films::FilmId;
pub use graph::{BlockProgress, CandidateRow, GraphBuildId, MergeRow, VoteRow};
pub use health::{inspect, StoreHealth};
pub use llm::{CacheEntry, CachedResponse, CallRecord, LabelTotals, RoleTotals, RunId};
pub use merge::{Conflict, MergeCounts, MergeError, SourceMerge};
pub use migrate::{Migration, MIGRATIONS};
pub use review::{DecisionRow, OriginalRow};
pub use run::StageRecord;

/// The default file name of a workspace's database, in the working directory.
pub const DEFAULT_STORE_FILE: &str = "moviegraph.db";

/// Environment variable that names the store when `--store` is not given.
pub const STORE_ENV: &str = "MOVIEGRAPH_STORE";

/// What can go wrong opening or using the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file could not be opened or created.
    #[error("cannot open the store {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// A migration failed; the store is left at the previous version.
    #[error("store {path}: migration {version} ({name}) failed: {source}")]
    Migration {
        /// The database file.
        path: PathBuf,
        /// The migration's version number.
        version: u32,
        /// The migration's name.
        name: &'static str,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The database was written by a newer moviegraph with migrations this one lacks.
    #[error(
        "store {path} has schema version {found}, newer than this moviegraph knows ({known}); \
         upgrade moviegraph or use another --store"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The highest version recorded in the database.
        found: u32,
        /// The highest version this build knows.
        known: u32,
    },
    /// Any other SQLite failure.
    #[error("store {path}: {source}")]
    Sql {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
}

/// An open workspace database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            // A missing parent folder is reported by SQLite as "unable to open", which
            // hides the cause; creating it is what the user wants anyway.
            let _ = std::fs::create_dir_all(parent);
        }
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Store::init(conn, path.to_path_buf())
    }

    /// Opens a private in-memory database (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        Store::init(conn, path)
    }

    fn init(mut conn: Connection, path: PathBuf) -> Result<Store, StoreError> {
        let sql_err = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        conn.busy_timeout(Duration::from_secs(30))
            .map_err(sql_err)?;
        // WAL lets readers (a report, `walk`) run beside a writer, and a commit is one
        // append, which keeps per-response commits cheap. NORMAL sync is durable
        // against process crashes (SIGKILL), which is the failure we promise to survive.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql_err)?;
        migrate::apply(&mut conn, &path)?;
        Ok(Store { conn, path })
    }

    /// The database file (`:memory:` for an in-memory store).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The versions of the migrations applied to this database, in order.
    pub fn applied_migrations(&self) -> Result<Vec<u32>, StoreError> {
        migrate::applied(&self.conn).map_err(|source| self.sql_error(source))
    }

    /// Runs `PRAGMA integrity_check` and returns SQLite's findings (`["ok"]` when sound).
    pub fn integrity_check(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|source| self.sql_error(source))?;
        let rows = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(|source| self.sql_error(source))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|source| self.sql_error(source))
    }

    /// A stored text value its reader does not accept (an unknown name, JSON
    /// that does not parse) in column `column` of a row, reported as SQLite
    /// reports a failed conversion from SQL.
    pub fn invalid_value(
        &self,
        column: usize,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> StoreError {
        self.sql_error(rusqlite::Error::FromSqlConversionFailure(
            column,
            rusqlite::types::Type::Text,
            cause.into(),
        ))
    }

    /// A value that could not be turned into a row's column (a failed
    /// serialization), reported as SQLite reports a failed conversion to SQL.
    pub fn unwritable_value(
        &self,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> StoreError {
        self.sql_error(rusqlite::Error::ToSqlConversionFailure(cause.into()))
    }

    /// Wraps a SQLite error with this store's path.
    fn sql_error(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sql {
            path: self.path.clone(),
            source,
        }
    }
}

/// Resolves the store path: the flag, then `MOVIEGRAPH_STORE`, then `moviegraph.db`.
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    if let Some(path) = flag {
        return path.to_path_buf();
    }
    match std::env::var_os(STORE_ENV) {
        Some(value) if !value.is_empty() => PathBuf::from(value),
        _ => PathBuf::from(DEFAULT_STORE_FILE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_store_applies_every_migration_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/ws.db");
        let store = Store::open(&path).unwrap();
        let all: Vec<u32> = MIGRATIONS.iter().map(|m| m.version).collect();
        assert_eq!(store.applied_migrations().unwrap(), all);
        drop(store);
        // Reopening applies nothing twice.
        let store = Store::open(&path).unwrap();
        assert_eq!(store.applied_migrations().unwrap(), all);
        assert_eq!(store.integrity_check().unwrap(), vec!["ok".to_string()]);
    }

    #[test]
    fn the_store_runs_in_wal_mode_with_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("ws.db")).unwrap();
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = store
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
    }

    #[test]
    fn a_store_from_a_newer_moviegraph_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.db");
        drop(Store::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)",
            [],
        )
        .unwrap();
        drop(conn);
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found: 9999, .. }),
            "{err}"
        );
    }

    #[test]
    fn resolve_path_prefers_the_flag() {
        assert_eq!(resolve_path(Some(Path::new("x.db"))), PathBuf::from("x.db"));
    }
}
