//! Schema migrations: numbered SQL scripts applied once each, in order, each in
//! its own transaction.
//!
//! Each pipeline stage owns its own migration file under `migrations/`; versions
//! are assigned per stage so that work on different stages never collides. A
//! database records every applied version, so a migration added with a lower
//! number than one already applied (two branches merged) is still applied.

use std::path::Path;

use rusqlite::{params, Connection};

use super::StoreError;

/// One schema change.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Unique, increasing version number.
    pub version: u32,
    /// Short name, recorded in the database.
    pub name: &'static str,
    /// The SQL script (several statements).
    pub sql: &'static str,
}

/// Every migration this build knows, in version order.
pub const MIGRATIONS: &[Migration] = &[
    migration(1, "films", include_str!("migrations/0001_films.sql")),
    migration(
        2,
        "alignment",
        include_str!("migrations/0002_alignment.sql"),
    ),
    migration(
        3,
        "embedding_cache",
        include_str!("migrations/0003_embedding_cache.sql"),
    ),
    migration(4, "llm", include_str!("migrations/0004_llm.sql")),
    migration(5, "graph", include_str!("migrations/0005_graph.sql")),
    migration(7, "eval", include_str!("migrations/0007_eval.sql")),
    migration(8, "run", include_str!("migrations/0008_run.sql")),
    migration(9, "walk", include_str!("migrations/0009_walk.sql")),
    migration(
        10,
        "alignment_calibration",
        include_str!("migrations/0010_alignment_calibration.sql"),
    ),
    migration(11, "review", include_str!("migrations/0011_review.sql")),
];

/// One line per migration keeps the list easy to extend.
const fn migration(version: u32, name: &'static str, sql: &'static str) -> Migration {
    Migration { version, name, sql }
}

/// Applies the migrations the database has not seen yet.
pub(super) fn apply(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let sql_err = |source| StoreError::Sql {
        path: path.to_path_buf(),
        source,
    };
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             name       TEXT NOT NULL,
             applied_at INTEGER NOT NULL
         );",
    )
    .map_err(sql_err)?;
    let done = applied(conn).map_err(sql_err)?;
    let known = MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0);
    if let Some(&found) = done.iter().max() {
        if found > known {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                known,
            });
        }
    }
    for migration in MIGRATIONS.iter().filter(|m| !done.contains(&m.version)) {
        let migration_err = |source| StoreError::Migration {
            path: path.to_path_buf(),
            version: migration.version,
            name: migration.name,
            source,
        };
        let tx = conn.transaction().map_err(migration_err)?;
        tx.execute_batch(migration.sql).map_err(migration_err)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at)
             VALUES (?1, ?2, strftime('%s','now'))",
            params![migration.version, migration.name],
        )
        .map_err(migration_err)?;
        tx.commit().map_err(migration_err)?;
        tracing::debug!(
            version = migration.version,
            name = migration.name,
            "applied migration"
        );
    }
    Ok(())
}

/// The applied versions, ascending.
pub(super) fn applied(conn: &Connection) -> rusqlite::Result<Vec<u32>> {
    let mut stmt = conn.prepare("SELECT version FROM schema_migrations ORDER BY version")?;
    let rows = stmt.query_map([], |row| row.get::<_, u32>(0))?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_unique_and_increasing() {
        for pair in MIGRATIONS.windows(2) {
            assert!(pair[0].version < pair[1].version, "{pair:?}");
        }
    }
}
