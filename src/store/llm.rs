//! The model layer's tables: runs, the response cache, and the per-call log.

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

/// A run's row id: the unit of accounting for model calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(pub i64);

/// A cached answer, as read back from the store.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedResponse {
    /// The response as the layer serialised it (JSON).
    pub response: String,
    /// Input tokens the original call used.
    pub input_tokens: u64,
    /// Output tokens the original call used.
    pub output_tokens: u64,
    /// What the original call cost.
    pub cost: f64,
}

/// A successful answer to store in the cache.
#[derive(Debug, Clone)]
pub struct CacheEntry<'a> {
    /// Hex SHA-256 of the request's identity.
    pub key: &'a str,
    /// Backend kind (`openai`, `rules`, …).
    pub backend: &'a str,
    /// Model name as sent to the backend.
    pub model: &'a str,
    /// `chat` or `embed`.
    pub kind: &'a str,
    /// The request as JSON (never holds a key).
    pub request: &'a str,
    /// The response as JSON.
    pub response: &'a str,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost of the call.
    pub cost: f64,
}

/// One call as the caller saw it.
#[derive(Debug, Clone, Default)]
pub struct CallRecord {
    /// The run it belongs to.
    pub run: i64,
    /// The role it served (`generator`, `judge`, …) or a free label.
    pub role: String,
    /// The configured model name.
    pub model: String,
    /// The request's cache key.
    pub cache_key: String,
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Time until the caller got its answer.
    pub latency_ms: u64,
    /// Input tokens (0 for a cache hit).
    pub input_tokens: u64,
    /// Output tokens (0 for a cache hit).
    pub output_tokens: u64,
    /// Cost (0 for a cache hit).
    pub cost: f64,
    /// Answered from the cache.
    pub cache_hit: bool,
    /// HTTP attempts made (0 for a cache hit).
    pub attempts: u32,
    /// Repair re-asks made after invalid structured output.
    pub repairs: u32,
    /// The backend's finish reason.
    pub finish_reason: Option<String>,
    /// The final error, when the call failed.
    pub error: Option<String>,
    /// The model's last text, when structured output finally failed.
    pub raw_text: Option<String>,
}

/// Per (role, model) sums over a label's calls, with the first call's start
/// and the last call's end in ms since the epoch (`None` without calls).
pub type LabelTotals = (Vec<RoleTotals>, Option<(i64, i64)>);

/// Sums over one run's calls for one (role, model).
#[derive(Debug, Clone, PartialEq)]
pub struct RoleTotals {
    /// The role.
    pub role: String,
    /// The model.
    pub model: String,
    /// Calls made.
    pub calls: u64,
    /// Of which answered from the cache.
    pub cache_hits: u64,
    /// Of which failed.
    pub errors: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost.
    pub cost: f64,
    /// HTTP attempts.
    pub attempts: u64,
}

impl Store {
    /// Starts a run for accounting.
    pub fn llm_begin_run(&self, label: &str, max_cost: Option<f64>) -> Result<RunId, StoreError> {
        self.conn
            .execute(
                "INSERT INTO llm_runs (label, max_cost) VALUES (?1, ?2)",
                params![label, max_cost],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    /// The cached answer for `key`, if any.
    pub fn llm_cache_get(&self, key: &str) -> Result<Option<CachedResponse>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT response, input_tokens, output_tokens, cost FROM llm_cache WHERE key = ?1",
            )
            .and_then(|mut stmt| {
                stmt.query_row([key], |row| {
                    Ok(CachedResponse {
                        response: row.get(0)?,
                        input_tokens: row.get::<_, i64>(1)? as u64,
                        output_tokens: row.get::<_, i64>(2)? as u64,
                        cost: row.get(3)?,
                    })
                })
                .optional()
            })
            .map_err(|source| self.sql_error(source))
    }

    /// Records a call and, for a fresh success, its cache entry, in one transaction,
    /// so a crash never leaves a paid answer without its log row or vice versa. A key
    /// already cached (two callers raced) keeps its first answer.
    pub fn llm_record(
        &mut self,
        call: &CallRecord,
        cache: Option<&CacheEntry<'_>>,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql_err = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sql_err)?;
        if let Some(c) = cache {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO llm_cache
                   (key, backend, model, kind, request, response, input_tokens, output_tokens, cost)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![
                    c.key,
                    c.backend,
                    c.model,
                    c.kind,
                    c.request,
                    c.response,
                    c.input_tokens as i64,
                    c.output_tokens as i64,
                    c.cost
                ])
            })
            .map_err(sql_err)?;
        }
        tx.prepare_cached(
            "INSERT INTO llm_calls
               (run_id, role, model, cache_key, started_at_ms, latency_ms, input_tokens,
                output_tokens, cost, cache_hit, attempts, repairs, finish_reason, error, raw_text)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )
        .and_then(|mut stmt| {
            stmt.execute(params![
                call.run,
                call.role,
                call.model,
                call.cache_key,
                call.started_at_ms,
                call.latency_ms as i64,
                call.input_tokens as i64,
                call.output_tokens as i64,
                call.cost,
                call.cache_hit,
                call.attempts,
                call.repairs,
                call.finish_reason,
                call.error,
                call.raw_text
            ])
        })
        .map_err(sql_err)?;
        tx.commit().map_err(sql_err)
    }

    /// Per (role, model) sums over one run's calls, ordered by role then model.
    pub fn llm_run_totals(&self, run: RunId) -> Result<Vec<RoleTotals>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT role, model, COUNT(*), SUM(cache_hit), SUM(error IS NOT NULL),
                        SUM(input_tokens), SUM(output_tokens), SUM(cost), SUM(attempts)
                 FROM llm_calls WHERE run_id = ?1 GROUP BY role, model ORDER BY role, model",
            )
            .map_err(|source| self.sql_error(source))?;
        let rows = stmt
            .query_map([run.0], |row| {
                Ok(RoleTotals {
                    role: row.get(0)?,
                    model: row.get(1)?,
                    calls: row.get::<_, i64>(2)? as u64,
                    cache_hits: row.get::<_, i64>(3)? as u64,
                    errors: row.get::<_, i64>(4)? as u64,
                    input_tokens: row.get::<_, i64>(5)? as u64,
                    output_tokens: row.get::<_, i64>(6)? as u64,
                    cost: row.get(7)?,
                    attempts: row.get::<_, i64>(8)? as u64,
                })
            })
            .map_err(|source| self.sql_error(source))?;
        rows.collect::<Result<_, _>>()
            .map_err(|source| self.sql_error(source))
    }

    /// Per (role, model) sums over the calls of every run labelled `label`
    /// (a resumed job adds runs under the same label), with their time span
    /// (see [`LabelTotals`]).
    pub fn llm_label_totals(&self, label: &str) -> Result<LabelTotals, StoreError> {
        let err = |source| self.sql_error(source);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT c.role, c.model, COUNT(*), SUM(c.cache_hit), SUM(c.error IS NOT NULL),
                        SUM(c.input_tokens), SUM(c.output_tokens), SUM(c.cost), SUM(c.attempts),
                        MIN(c.started_at_ms), MAX(c.started_at_ms + c.latency_ms)
                 FROM llm_calls c JOIN llm_runs r ON r.id = c.run_id
                 WHERE r.label = ?1 GROUP BY c.role, c.model ORDER BY c.role, c.model",
            )
            .map_err(err)?;
        let mut span: Option<(i64, i64)> = None;
        let rows = stmt
            .query_map([label], |row| {
                Ok((
                    RoleTotals {
                        role: row.get(0)?,
                        model: row.get(1)?,
                        calls: row.get::<_, i64>(2)? as u64,
                        cache_hits: row.get::<_, i64>(3)? as u64,
                        errors: row.get::<_, i64>(4)? as u64,
                        input_tokens: row.get::<_, i64>(5)? as u64,
                        output_tokens: row.get::<_, i64>(6)? as u64,
                        cost: row.get(7)?,
                        attempts: row.get::<_, i64>(8)? as u64,
                    },
                    row.get::<_, i64>(9)?,
                    row.get::<_, i64>(10)?,
                ))
            })
            .map_err(err)?;
        let mut totals = Vec::new();
        for row in rows {
            let (t, first, last) = row.map_err(err)?;
            span = Some(span.map_or((first, last), |(a, b)| (a.min(first), b.max(last))));
            totals.push(t);
        }
        Ok((totals, span))
    }

    /// Every call row of a run, in the order they were recorded.
    pub fn llm_calls(&self, run: RunId) -> Result<Vec<CallRecord>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT run_id, role, model, cache_key, started_at_ms, latency_ms, input_tokens,
                        output_tokens, cost, cache_hit, attempts, repairs, finish_reason, error,
                        raw_text
                 FROM llm_calls WHERE run_id = ?1 ORDER BY id",
            )
            .map_err(|source| self.sql_error(source))?;
        let rows = stmt
            .query_map([run.0], |row| {
                Ok(CallRecord {
                    run: row.get(0)?,
                    role: row.get(1)?,
                    model: row.get(2)?,
                    cache_key: row.get(3)?,
                    started_at_ms: row.get(4)?,
                    latency_ms: row.get::<_, i64>(5)? as u64,
                    input_tokens: row.get::<_, i64>(6)? as u64,
                    output_tokens: row.get::<_, i64>(7)? as u64,
                    cost: row.get(8)?,
                    cache_hit: row.get(9)?,
                    attempts: row.get(10)?,
                    repairs: row.get(11)?,
                    finish_reason: row.get(12)?,
                    error: row.get(13)?,
                    raw_text: row.get(14)?,
                })
            })
            .map_err(|source| self.sql_error(source))?;
        rows.collect::<Result<_, _>>()
            .map_err(|source| self.sql_error(source))
    }

    /// The number of cached answers.
    pub fn llm_cache_len(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM llm_cache", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(|source| self.sql_error(source))
    }

    /// The latest run, if any.
    pub fn llm_last_run(&self) -> Result<Option<RunId>, StoreError> {
        self.conn
            .query_row("SELECT MAX(id) FROM llm_runs", [], |row| {
                row.get::<_, Option<i64>>(0)
            })
            .map(|id| id.map(RunId))
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(key: &'a str, response: &'a str) -> CacheEntry<'a> {
        CacheEntry {
            key,
            backend: "openai",
            model: "m",
            kind: "chat",
            request: "{}",
            response,
            input_tokens: 3,
            output_tokens: 4,
            cost: 0.5,
        }
    }

    #[test]
    fn a_labels_totals_sum_every_run_under_it_and_no_other() {
        let mut store = Store::open_in_memory().unwrap();
        let call = |run: RunId, started: i64| CallRecord {
            run: run.0,
            role: "subject".into(),
            model: "m".into(),
            cache_key: "k".into(),
            started_at_ms: started,
            latency_ms: 10,
            input_tokens: 3,
            output_tokens: 4,
            cost: 0.5,
            attempts: 1,
            ..CallRecord::default()
        };
        // A run stopped and resumed: two runs under one label.
        let first = store.llm_begin_run("eval run r", None).unwrap();
        let resumed = store.llm_begin_run("eval run r", None).unwrap();
        let other = store.llm_begin_run("eval run r2", None).unwrap();
        store.llm_record(&call(first, 100), None).unwrap();
        store.llm_record(&call(resumed, 500), None).unwrap();
        store.llm_record(&call(other, 50), None).unwrap();
        let (totals, span) = store.llm_label_totals("eval run r").unwrap();
        assert_eq!(totals.len(), 1);
        assert_eq!(
            (
                totals[0].calls,
                totals[0].input_tokens,
                totals[0].output_tokens
            ),
            (2, 6, 8)
        );
        assert!((totals[0].cost - 1.0).abs() < 1e-12);
        assert_eq!(span, Some((100, 510)));
        assert_eq!(
            store.llm_label_totals("nothing").unwrap(),
            (Vec::new(), None)
        );
    }

    #[test]
    fn a_recorded_answer_is_cached_once_and_logged_per_call() {
        let mut store = Store::open_in_memory().unwrap();
        let run = store.llm_begin_run("t", Some(2.0)).unwrap();
        let call = CallRecord {
            run: run.0,
            role: "judge".into(),
            model: "m".into(),
            cache_key: "k".into(),
            input_tokens: 3,
            output_tokens: 4,
            cost: 0.5,
            attempts: 2,
            ..CallRecord::default()
        };
        store.llm_record(&call, Some(&entry("k", "first"))).unwrap();
        store
            .llm_record(&call, Some(&entry("k", "second")))
            .unwrap();
        assert_eq!(store.llm_cache_len().unwrap(), 1);
        assert_eq!(store.llm_cache_get("k").unwrap().unwrap().response, "first");
        assert_eq!(store.llm_cache_get("other").unwrap(), None);
        let totals = store.llm_run_totals(run).unwrap();
        assert_eq!(totals.len(), 1);
        assert_eq!(totals[0].calls, 2);
        assert_eq!(totals[0].attempts, 4);
        assert!((totals[0].cost - 1.0).abs() < 1e-9);
        assert_eq!(store.llm_calls(run).unwrap().len(), 2);
        assert_eq!(store.llm_last_run().unwrap(), Some(run));
    }
}
