//! A read-only look at a store for `moviegraph doctor`: does it open, is it
//! sound, which schema does it have. Nothing is created or migrated.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::migrate::{self, MIGRATIONS};
use super::StoreError;

/// What a read-only look at a store found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreHealth {
    /// `PRAGMA integrity_check`'s findings (`["ok"]` when sound).
    pub integrity: Vec<String>,
    /// Migrations applied to the database.
    pub applied: Vec<u32>,
    /// Migrations this build knows that the database lacks (applied at next open).
    pub pending: Vec<u32>,
    /// Migrations the database has that this build does not know (a newer moviegraph).
    pub unknown: Vec<u32>,
}

/// Opens the store at `path` read-only and inspects it. An unreadable or
/// corrupt file is an error naming it.
pub fn inspect(path: &Path) -> Result<StoreHealth, StoreError> {
    let sql_err = |source| StoreError::Sql {
        path: PathBuf::from(path),
        source,
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let integrity = {
        let mut stmt = conn.prepare("PRAGMA integrity_check").map_err(sql_err)?;
        let rows = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(sql_err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql_err)?
    };
    let applied = migrate::applied(&conn).map_err(sql_err)?;
    let pending = MIGRATIONS
        .iter()
        .map(|m| m.version)
        .filter(|v| !applied.contains(v))
        .collect();
    let unknown = applied
        .iter()
        .copied()
        .filter(|v| !MIGRATIONS.iter().any(|m| m.version == *v))
        .collect();
    Ok(StoreHealth {
        integrity,
        applied,
        pending,
        unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_fresh_store_is_sound_and_current() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.db");
        drop(Store::open(&path).unwrap());
        let h = inspect(&path).unwrap();
        assert_eq!(h.integrity, vec!["ok".to_string()]);
        assert!(h.pending.is_empty() && h.unknown.is_empty());
        assert_eq!(h.applied.len(), MIGRATIONS.len());
    }

    #[test]
    fn a_text_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.db");
        std::fs::write(&path, "this is not a database, only some text").unwrap();
        assert!(inspect(&path).is_err());
    }
}
