//! Merging stores: several workspace databases (one per machine of a job array)
//! combined into one, in one transaction on the destination.
//!
//! Rows are matched by natural keys, never by their integer ids, which are
//! remapped: films by slug; a film's alignment by the film; graph builds by
//! (film slug, settings); evaluation runs by their name; cache rows by their
//! key; model runs by (label, start second, budget, first call) and their calls
//! by (role, model, cache key, start ms). What is already in the destination is
//! kept, so merging a store twice, or into itself, changes nothing.
//!
//! A conflict is the same natural key holding different work: a film aligned
//! from different inputs (screenplay, subtitles or shots sha256, or another
//! embedder), a graph build or an evaluation run with other contents. Any
//! conflict refuses the whole merge (the transaction is rolled back) and every
//! conflict is listed, because keeping both would need renamed films or runs
//! that later stages would not know how to find. Two cached answers to one
//! request are not a conflict: both are valid answers, the destination's is kept
//! and the count of differing ones is reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::migrate::{self, MIGRATIONS};
use super::{Store, StoreError};

/// What can stop a merge. Nothing is written when any of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A source store could not be read.
    #[error("cannot merge {path}: {reason}")]
    Source {
        /// The source database file.
        path: PathBuf,
        /// What went wrong, in words.
        reason: String,
    },
    /// A source store was written by a moviegraph with migrations this one lacks.
    #[error(
        "cannot merge {path}: it has schema migration {found}, which this moviegraph does \
         not know (it knows up to {known}); upgrade moviegraph before merging it"
    )]
    TooNew {
        /// The source database file.
        path: PathBuf,
        /// The unknown migration version.
        found: u32,
        /// The highest version this build knows.
        known: u32,
    },
    /// The destination store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Sources disagree; nothing was merged.
    #[error("{} conflict(s), nothing was merged:\n{}", .0.len(), list(.0))]
    Conflicts(Vec<Conflict>),
}

fn list(conflicts: &[Conflict]) -> String {
    conflicts
        .iter()
        .map(|c| format!("  {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The same natural key holding different work in two stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The source store whose row disagrees with the destination (or an earlier source).
    pub source: PathBuf,
    /// What the key names: `film the-second-key`, `eval run gpt`, …
    pub what: String,
    /// How the two differ.
    pub detail: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.source.display(),
            self.what,
            self.detail
        )
    }
}

/// Rows added from one source, and rows it had that were already there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeCounts {
    /// Films new to the destination.
    pub films_added: u64,
    /// Films the destination already had.
    pub films_present: u64,
    /// Film alignments copied.
    pub alignments_added: u64,
    /// Film alignments already there from the same inputs.
    pub alignments_present: u64,
    /// Graph builds copied (with their blocks, candidates, votes and merges).
    pub builds_added: u64,
    /// Graph builds already there with the same contents.
    pub builds_present: u64,
    /// Evaluation runs copied (with their trees and answers).
    pub eval_runs_added: u64,
    /// Evaluation runs already there with the same contents.
    pub eval_runs_present: u64,
    /// Model responses added to the cache.
    pub cache_added: u64,
    /// Model responses whose key was already cached with the same response.
    pub cache_present: u64,
    /// Model responses whose key was already cached with another response (kept).
    pub cache_differing: u64,
    /// Model runs added.
    pub llm_runs_added: u64,
    /// Model runs already there.
    pub llm_runs_present: u64,
    /// Model call log rows added.
    pub llm_calls_added: u64,
    /// Embeddings added to the cache.
    pub embeddings_added: u64,
    /// Embeddings already cached.
    pub embeddings_present: u64,
}

/// What one source contributed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMerge {
    /// The source database file, as given.
    pub path: PathBuf,
    /// The source is the destination itself: nothing to do.
    pub is_destination: bool,
    /// Its rows, added and already present.
    pub counts: MergeCounts,
}

/// Tables of a film's alignment, parents before children (foreign keys).
const ALIGNMENT_TABLES: &[&str] = &[
    "alignment_runs",
    "script_elements",
    "script_scenes",
    "cues",
    "shots",
    "keyframes",
    "alignments",
    "alignment_cues",
    "blocks",
    "block_keyframes",
];

/// Tables of a graph build's work, parents before children.
const BUILD_TABLES: &[&str] = &[
    "graph_blocks",
    "graph_candidates",
    "graph_votes",
    "graph_merges",
];

/// People's review of a build (migration 11), parents before children.
const REVIEW_TABLES: &[&str] = &["review_originals", "review_decisions"];

/// A build's review decisions, in a stable order.
const REVIEW_CONTENT: &[&str] = &["SELECT id, candidate, reviewer, decided_at, queue, decision
     FROM review_decisions WHERE build_id = ?1 ORDER BY id"];

/// A build's contents without its id or timings, in a stable order (what must be
/// equal for two builds to be the same work).
const BUILD_CONTENT: &[&str] = &[
    "SELECT block, generator_calls, auditor_calls, adjudicator_calls, dropped
     FROM graph_blocks WHERE build_id = ?1 ORDER BY block",
    "SELECT id, block, kind, status, reason, item
     FROM graph_candidates WHERE build_id = ?1 ORDER BY id",
    "SELECT candidate, seq, judge, role, accept, rationale
     FROM graph_votes WHERE build_id = ?1 ORDER BY candidate, seq",
    "SELECT block, name, proposed, into_id, tier, score
     FROM graph_merges WHERE build_id = ?1 ORDER BY block, proposed",
];

/// An evaluation run's contents without where its trees were read from.
const EVAL_CONTENT: &[&str] = &[
    "SELECT subject, judge, text_only, seed FROM eval_runs WHERE id = ?1",
    "SELECT tree_id, ord, film, tree_json FROM eval_trees WHERE run_id = ?1 ORDER BY ord",
    "SELECT tree_id, node_id, phase, seq, raw, parsed, correct, score, rouge, judge
     FROM eval_answers WHERE run_id = ?1 ORDER BY tree_id, node_id",
];

impl Store {
    /// Merges every store in `sources` into this one, in one transaction: all
    /// of them or nothing. Sources are opened read-only and never changed.
    pub fn merge_from(&mut self, sources: &[PathBuf]) -> Result<Vec<SourceMerge>, MergeError> {
        let me = self.path.canonicalize().ok();
        let mut opened = Vec::new();
        for path in sources {
            let same = me.is_some() && path.canonicalize().ok() == me;
            let conn = if same { None } else { Some(open_source(path)?) };
            opened.push((path, conn));
        }
        let out_path = self.path.clone();
        let tx = self.conn.transaction().map_err(|source| StoreError::Sql {
            path: out_path.clone(),
            source,
        })?;
        let mut conflicts = Vec::new();
        let mut report = Vec::new();
        for (path, conn) in &opened {
            let mut counts = MergeCounts::default();
            if let Some((conn, versions)) = conn {
                let mut m = Merger {
                    src: conn,
                    tx: &tx,
                    path,
                    counts: &mut counts,
                    conflicts: &mut conflicts,
                };
                m.merge(versions).map_err(|source| MergeError::Source {
                    path: path.to_path_buf(),
                    reason: source.to_string(),
                })?;
            }
            report.push(SourceMerge {
                path: path.to_path_buf(),
                is_destination: conn.is_none(),
                counts,
            });
        }
        if !conflicts.is_empty() {
            return Err(MergeError::Conflicts(conflicts));
        }
        tx.commit().map_err(|source| StoreError::Sql {
            path: out_path,
            source,
        })?;
        Ok(report)
    }
}

/// Opens a source read-only and checks its schema: every migration it has
/// must be one this build knows.
fn open_source(path: &Path) -> Result<(Connection, Vec<u32>), MergeError> {
    let fail = |reason: String| MergeError::Source {
        path: path.to_path_buf(),
        reason,
    };
    if !path.is_file() {
        return Err(fail("no such file".into()));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| fail(e.to_string()))?;
    let versions =
        migrate::applied(&conn).map_err(|e| fail(format!("not a moviegraph store ({e})")))?;
    let known = MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0);
    if let Some(&found) = versions
        .iter()
        .find(|v| !MIGRATIONS.iter().any(|m| m.version == **v))
    {
        return Err(MergeError::TooNew {
            path: path.to_path_buf(),
            found,
            known,
        });
    }
    Ok((conn, versions))
}

struct Merger<'a> {
    src: &'a Connection,
    tx: &'a Connection,
    path: &'a Path,
    counts: &'a mut MergeCounts,
    conflicts: &'a mut Vec<Conflict>,
}

impl Merger<'_> {
    fn conflict(&mut self, what: String, detail: String) {
        self.conflicts.push(Conflict {
            source: self.path.to_path_buf(),
            what,
            detail,
        });
    }

    /// Merges the stages whose migrations the source has (an older store simply
    /// lacks the later tables).
    fn merge(&mut self, versions: &[u32]) -> rusqlite::Result<()> {
        let has = |v: u32| versions.contains(&v);
        let films = if has(1) {
            self.films()?
        } else {
            BTreeMap::new()
        };
        if has(2) {
            for (&src, (out, slug)) in &films {
                self.alignment(src, *out, slug)?;
            }
        }
        if has(3) {
            self.embeddings()?;
        }
        if has(4) {
            self.llm_cache()?;
            self.llm_runs()?;
        }
        if has(5) {
            // People's review decisions on a build since migration 11.
            self.graph_builds(&films, has(11))?;
        }
        if has(7) {
            // Human runs (walk) carry their annotator's name since migration 9.
            self.eval_runs(has(9))?;
        }
        // Migration 8 (`run`'s stage fingerprints) is bookkeeping of the store
        // it was written in, keyed by that store's film ids; it is not merged, so
        // the first `moviegraph run` on a merged store re-checks every stage.
        Ok(())
    }

    /// Films by slug: source id → (destination id, slug).
    fn films(&mut self) -> rusqlite::Result<BTreeMap<i64, (i64, String)>> {
        let mut map = BTreeMap::new();
        let mut stmt = self
            .src
            .prepare("SELECT id, slug, title, created_at FROM films ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (id, slug): (i64, String) = (row.get(0)?, row.get(1)?);
            let title: Option<String> = row.get(2)?;
            let created: i64 = row.get(3)?;
            let out = self
                .tx
                .query_row("SELECT id FROM films WHERE slug = ?1", [&slug], |r| {
                    r.get(0)
                })
                .optional()?;
            let out = match out {
                Some(out) => {
                    self.counts.films_present += 1;
                    out
                }
                None => {
                    self.tx.execute(
                        "INSERT INTO films (slug, title, created_at) VALUES (?1, ?2, ?3)",
                        params![slug, title, created],
                    )?;
                    self.counts.films_added += 1;
                    self.tx.last_insert_rowid()
                }
            };
            map.insert(id, (out, slug));
        }
        Ok(map)
    }

    /// A film's alignment: copied when the destination has none, kept when it
    /// has one from the same inputs and embedder, a conflict otherwise.
    fn alignment(&mut self, src: i64, out: i64, slug: &str) -> rusqlite::Result<()> {
        const IDENTITY: &str = "SELECT script_sha256, subtitles_sha256, shots_sha256, embedder
                                FROM alignment_runs WHERE film_id = ?1";
        let ident = |c: &Connection, id: i64| {
            c.query_row(IDENTITY, [id], |r| {
                Ok([
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, Option<String>>(3)?,
                ])
            })
            .optional()
        };
        let Some(theirs) = ident(self.src, src)? else {
            return Ok(());
        };
        if let Some(ours) = ident(self.tx, out)? {
            if ours == theirs {
                self.counts.alignments_present += 1;
            } else {
                let show = |v: &[Option<String>; 4]| {
                    format!(
                        "script {}, subtitles {}, shots {}, embedder {}",
                        short(&v[0]),
                        short(&v[1]),
                        short(&v[2]),
                        v[3].as_deref().unwrap_or("-")
                    )
                };
                self.conflict(
                    format!("film {slug}"),
                    format!(
                        "aligned from different inputs: here {}; already merged {}. \
                         Re-run one machine's film on the other's inputs, or leave one \
                         store out",
                        show(&theirs),
                        show(&ours)
                    ),
                );
            }
            return Ok(());
        }
        for table in ALIGNMENT_TABLES {
            copy(
                self.src,
                self.tx,
                table,
                "film_id",
                src,
                &Value::Integer(out),
            )?;
        }
        self.counts.alignments_added += 1;
        Ok(())
    }

    /// Graph builds by (film slug, settings).
    fn graph_builds(
        &mut self,
        films: &BTreeMap<i64, (i64, String)>,
        reviews: bool,
    ) -> rusqlite::Result<()> {
        let builds: Vec<(i64, i64, String)> = {
            let mut stmt = self
                .src
                .prepare("SELECT id, film_id, settings FROM graph_builds ORDER BY id")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        for (id, film, settings) in builds {
            let Some((out_film, slug)) = films.get(&film) else {
                continue; // a foreign key makes this impossible in a sound store
            };
            let existing: Option<i64> = self
                .tx
                .query_row(
                    "SELECT id FROM graph_builds WHERE film_id = ?1 AND settings = ?2",
                    params![out_film, settings],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(out) = existing {
                let (mut theirs, mut ours) = (
                    contents(self.src, BUILD_CONTENT, &Value::Integer(id))?,
                    contents(self.tx, BUILD_CONTENT, &Value::Integer(out))?,
                );
                // The same build reviewed differently is different work.
                ours.extend(contents(self.tx, REVIEW_CONTENT, &Value::Integer(out))?);
                if reviews {
                    theirs.extend(contents(self.src, REVIEW_CONTENT, &Value::Integer(id))?);
                } else {
                    theirs.push(Vec::new());
                }
                if theirs == ours {
                    self.counts.builds_present += 1;
                } else {
                    self.conflict(
                        format!("graph build of film {slug} (settings {settings})"),
                        format!(
                            "different work under the same settings: {} finished blocks and \
                             {} candidates here, {} and {} already merged",
                            theirs[0].len(),
                            theirs[1].len(),
                            ours[0].len(),
                            ours[1].len()
                        ),
                    );
                }
                continue;
            }
            self.tx.execute(
                "INSERT INTO graph_builds (film_id, settings) VALUES (?1, ?2)",
                params![out_film, settings],
            )?;
            let out = Value::Integer(self.tx.last_insert_rowid());
            for table in BUILD_TABLES {
                copy(self.src, self.tx, table, "build_id", id, &out)?;
            }
            if reviews {
                for table in REVIEW_TABLES {
                    copy(self.src, self.tx, table, "build_id", id, &out)?;
                }
            }
            self.counts.builds_added += 1;
        }
        Ok(())
    }

    /// Evaluation runs by name, with their annotators when the source has them.
    fn eval_runs(&mut self, annotators: bool) -> rusqlite::Result<()> {
        let ids: Vec<String> = {
            let mut stmt = self.src.prepare("SELECT id FROM eval_runs ORDER BY id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        for id in ids {
            let key = Value::Text(id.clone());
            let ours = contents(self.tx, EVAL_CONTENT, &key)?;
            if !ours[0].is_empty() {
                let theirs = contents(self.src, EVAL_CONTENT, &key)?;
                if theirs == ours {
                    self.counts.eval_runs_present += 1;
                } else {
                    self.conflict(
                        format!("eval run {id}"),
                        format!(
                            "another run of that name: {} trees and {} answers here, {} and {} \
                             already merged; rename one run (--run) and evaluate again",
                            theirs[1].len(),
                            theirs[2].len(),
                            ours[1].len(),
                            ours[2].len()
                        ),
                    );
                }
                continue;
            }
            for (table, column) in [
                ("eval_runs", "id"),
                ("eval_trees", "run_id"),
                ("eval_answers", "run_id"),
            ] {
                copy_where(self.src, self.tx, table, column, &key, &key)?;
            }
            if annotators {
                copy_where(
                    self.src,
                    self.tx,
                    "eval_run_annotators",
                    "run_id",
                    &key,
                    &key,
                )?;
            }
            self.counts.eval_runs_added += 1;
        }
        Ok(())
    }

    /// The response cache by key; the destination's answer wins.
    fn llm_cache(&mut self) -> rusqlite::Result<()> {
        let mut stmt = self.src.prepare("SELECT * FROM llm_cache")?;
        let cols = names(&stmt);
        let key_at = cols.iter().position(|c| c == "key").unwrap_or(0);
        let response_at = cols.iter().position(|c| c == "response").unwrap_or(0);
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let values = values(row, cols.len())?;
            if insert(self.tx, "llm_cache", &cols, &values, true)? == 1 {
                self.counts.cache_added += 1;
                continue;
            }
            let ours: Value = self.tx.query_row(
                "SELECT response FROM llm_cache WHERE key = ?1",
                [&values[key_at]],
                |r| r.get(0),
            )?;
            if ours == values[response_at] {
                self.counts.cache_present += 1;
            } else {
                self.counts.cache_differing += 1;
            }
        }
        Ok(())
    }

    /// Model runs and their call logs. A run already merged gets only the calls
    /// it lacks, so a store merged again after its run went on adds just those.
    fn llm_runs(&mut self) -> rusqlite::Result<()> {
        const FIRST_CALL: &str = "SELECT started_at_ms, cache_key FROM llm_calls
                                  WHERE run_id = ?1 ORDER BY id LIMIT 1";
        type First = Option<(i64, String)>;
        let first = |c: &Connection, run: i64| -> rusqlite::Result<First> {
            c.query_row(FIRST_CALL, [run], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
        };
        let runs: Vec<(i64, String, Option<f64>, i64)> = {
            let mut stmt = self
                .src
                .prepare("SELECT id, label, max_cost, started_at FROM llm_runs ORDER BY id")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        for (id, label, max_cost, started_at) in runs {
            let theirs = first(self.src, id)?;
            let same_head: Vec<i64> = {
                let mut stmt = self.tx.prepare(
                    "SELECT id FROM llm_runs WHERE label = ?1 AND started_at = ?2
                     AND max_cost IS ?3 ORDER BY id",
                )?;
                let rows = stmt.query_map(params![label, started_at, max_cost], |r| r.get(0))?;
                rows.collect::<Result<_, _>>()?
            };
            let mut out = None;
            for candidate in same_head {
                if first(self.tx, candidate)? == theirs {
                    out = Some(candidate);
                    break;
                }
            }
            let (out, known) = match out {
                Some(out) => {
                    self.counts.llm_runs_present += 1;
                    (out, true)
                }
                None => {
                    self.tx.execute(
                        "INSERT INTO llm_runs (label, max_cost, started_at) VALUES (?1, ?2, ?3)",
                        params![label, max_cost, started_at],
                    )?;
                    self.counts.llm_runs_added += 1;
                    (self.tx.last_insert_rowid(), false)
                }
            };
            let mut stmt = self
                .src
                .prepare("SELECT * FROM llm_calls WHERE run_id = ?1 ORDER BY id")?;
            let mut cols = names(&stmt);
            let id_at = cols.iter().position(|c| c == "id");
            let run_at = cols.iter().position(|c| c == "run_id").unwrap_or(0);
            let at = |name: &str| cols.iter().position(|c| c == name).unwrap_or(0);
            let key_cols = [
                at("role"),
                at("model"),
                at("cache_key"),
                at("started_at_ms"),
            ];
            if let Some(i) = id_at {
                cols.remove(i);
            }
            let mut rows = stmt.query([id])?;
            while let Some(row) = rows.next()? {
                let mut values = values(row, cols.len() + usize::from(id_at.is_some()))?;
                if known {
                    let k = |i: usize| &values[i];
                    let seen = self
                        .tx
                        .query_row(
                            "SELECT 1 FROM llm_calls WHERE run_id = ?1 AND role = ?2
                             AND model = ?3 AND cache_key = ?4 AND started_at_ms = ?5",
                            params![
                                out,
                                k(key_cols[0]),
                                k(key_cols[1]),
                                k(key_cols[2]),
                                k(key_cols[3])
                            ],
                            |_| Ok(()),
                        )
                        .optional()?;
                    if seen.is_some() {
                        continue;
                    }
                }
                values[run_at] = Value::Integer(out);
                if let Some(i) = id_at {
                    values.remove(i);
                }
                insert(self.tx, "llm_calls", &cols, &values, false)?;
                self.counts.llm_calls_added += 1;
            }
        }
        Ok(())
    }

    /// The embedding cache by (model id, text hash).
    fn embeddings(&mut self) -> rusqlite::Result<()> {
        let mut stmt = self.src.prepare("SELECT * FROM embedding_cache")?;
        let cols = names(&stmt);
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let values = values(row, cols.len())?;
            if insert(self.tx, "embedding_cache", &cols, &values, true)? == 1 {
                self.counts.embeddings_added += 1;
            } else {
                self.counts.embeddings_present += 1;
            }
        }
        Ok(())
    }
}

fn short(v: &Option<String>) -> String {
    match v {
        Some(s) => s.chars().take(19).collect(),
        None => "none".into(),
    }
}

fn names(stmt: &rusqlite::Statement<'_>) -> Vec<String> {
    stmt.column_names().into_iter().map(String::from).collect()
}

fn values(row: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<Vec<Value>> {
    (0..n).map(|i| row.get::<_, Value>(i)).collect()
}

/// Inserts one row by column name; returns the rows changed (0 when ignored).
fn insert(
    tx: &Connection,
    table: &str,
    cols: &[String],
    values: &[Value],
    or_ignore: bool,
) -> rusqlite::Result<usize> {
    let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT {}INTO {table} ({}) VALUES ({})",
        if or_ignore { "OR IGNORE " } else { "" },
        cols.join(", "),
        marks.join(", ")
    );
    tx.prepare_cached(&sql)?
        .execute(rusqlite::params_from_iter(values.iter()))
}

/// Copies the rows of `table` whose `column` is `id`, with `column` set to `to`.
fn copy(
    src: &Connection,
    tx: &Connection,
    table: &str,
    column: &str,
    id: i64,
    to: &Value,
) -> rusqlite::Result<()> {
    copy_where(src, tx, table, column, &Value::Integer(id), to)
}

fn copy_where(
    src: &Connection,
    tx: &Connection,
    table: &str,
    column: &str,
    id: &Value,
    to: &Value,
) -> rusqlite::Result<()> {
    // Column lists come from the source, so a destination with columns added by
    // later migrations fills them with their defaults.
    let mut stmt = src.prepare(&format!("SELECT * FROM {table} WHERE {column} = ?1"))?;
    let cols = names(&stmt);
    let at = cols.iter().position(|c| c == column).unwrap_or(0);
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let mut values = values(row, cols.len())?;
        values[at] = to.clone();
        insert(tx, table, &cols, &values, false)?;
    }
    Ok(())
}

/// The rows of each query, for comparing two stores' work under one key.
fn contents(
    conn: &Connection,
    queries: &[&str],
    key: &Value,
) -> rusqlite::Result<Vec<Vec<Vec<Value>>>> {
    queries
        .iter()
        .map(|sql| {
            let mut stmt = conn.prepare(sql)?;
            let n = stmt.column_count();
            let mut rows = stmt.query([key])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(values(row, n)?);
            }
            Ok(out)
        })
        .collect()
}
