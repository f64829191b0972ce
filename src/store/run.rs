//! `moviegraph run`: per film and stage, the fingerprint of what went in and the
//! files that came out, so a rerun knows what it may skip and what it must redo.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};

use super::{FilmId, Store, StoreError};

/// What the store remembers of one stage of one film.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageRecord {
    /// Stage name (`parse`, `align`, `graph`, `trees`, `eval`, `report`).
    pub stage: String,
    /// sha256 of the stage's inputs and settings.
    pub fingerprint: String,
    /// Each input or setting by name: its value or the sha256 of its bytes.
    pub inputs: BTreeMap<String, String>,
    /// Each output (a file as written, or a run id) with its sha256 or value.
    pub outputs: BTreeMap<String, String>,
    /// The outputs are in place (false: the stage started and did not finish).
    pub done: bool,
}

fn json_err(e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

fn from_json(text: &str) -> rusqlite::Result<BTreeMap<String, String>> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

impl Store {
    /// The record of `stage` of `film`, if it ever started.
    pub fn run_stage(&self, film: FilmId, stage: &str) -> Result<Option<StageRecord>, StoreError> {
        self.conn
            .query_row(
                "SELECT stage, fingerprint, inputs, outputs, state FROM run_stages
                 WHERE film_id = ?1 AND stage = ?2",
                params![film.0, stage],
                |r| {
                    Ok(StageRecord {
                        stage: r.get(0)?,
                        fingerprint: r.get(1)?,
                        inputs: from_json(&r.get::<_, String>(2)?)?,
                        outputs: from_json(&r.get::<_, String>(3)?)?,
                        done: r.get::<_, String>(4)? == "done",
                    })
                },
            )
            .optional()
            .map_err(|e| self.sql_error(e))
    }

    /// Marks `stage` of `film` as started with this fingerprint, replacing any
    /// earlier record (its outputs are forgotten until the stage finishes).
    pub fn run_stage_begin(
        &self,
        film: FilmId,
        stage: &str,
        fingerprint: &str,
        inputs: &BTreeMap<String, String>,
    ) -> Result<(), StoreError> {
        let run = || -> rusqlite::Result<()> {
            let inputs = serde_json::to_string(inputs).map_err(json_err)?;
            self.conn.execute(
                "INSERT INTO run_stages (film_id, stage, fingerprint, inputs, outputs, state)
                 VALUES (?1, ?2, ?3, ?4, '{}', 'running')
                 ON CONFLICT (film_id, stage) DO UPDATE SET
                     fingerprint = excluded.fingerprint, inputs = excluded.inputs,
                     outputs = '{}', state = 'running',
                     updated_at = strftime('%s','now')",
                params![film.0, stage, fingerprint, inputs],
            )?;
            Ok(())
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Marks `stage` of `film` as finished with these outputs. Only a record with
    /// the same fingerprint is updated, so a stale writer cannot bless new inputs;
    /// returns whether a record was updated.
    pub fn run_stage_done(
        &self,
        film: FilmId,
        stage: &str,
        fingerprint: &str,
        outputs: &BTreeMap<String, String>,
    ) -> Result<bool, StoreError> {
        let run = || -> rusqlite::Result<bool> {
            let outputs = serde_json::to_string(outputs).map_err(json_err)?;
            let n = self.conn.execute(
                "UPDATE run_stages SET outputs = ?4, state = 'done', updated_at = strftime('%s','now')
                 WHERE film_id = ?1 AND stage = ?2 AND fingerprint = ?3",
                params![film.0, stage, fingerprint, outputs],
            )?;
            Ok(n == 1)
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Deletes the graph build of `film` under `settings` with everything it holds
    /// (blocks, candidates, votes, merges), so the next build starts from nothing.
    /// Returns whether there was one.
    pub fn graph_discard_build(&self, film: FilmId, settings: &str) -> Result<bool, StoreError> {
        self.conn
            .execute(
                "DELETE FROM graph_builds WHERE film_id = ?1 AND settings = ?2",
                params![film.0, settings],
            )
            .map(|n| n > 0)
            .map_err(|e| self.sql_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_stage_goes_from_running_to_done_and_a_new_start_forgets_its_outputs() {
        let store = Store::open_in_memory().unwrap();
        let film = store.ensure_film("f", None).unwrap();
        assert_eq!(store.run_stage(film, "graph").unwrap(), None);
        let inputs = map(&[("align", "abc"), ("settings", "{}")]);
        store
            .run_stage_begin(film, "graph", "fp1", &inputs)
            .unwrap();
        let r = store.run_stage(film, "graph").unwrap().unwrap();
        assert!(!r.done);
        assert_eq!(r.inputs, inputs);
        assert!(r.outputs.is_empty());
        // A writer holding another fingerprint does not mark this one done.
        assert!(!store
            .run_stage_done(film, "graph", "fp0", &map(&[("x", "1")]))
            .unwrap());
        assert!(store
            .run_stage_done(film, "graph", "fp1", &map(&[("graphs/f.json", "e3b0")]))
            .unwrap());
        let r = store.run_stage(film, "graph").unwrap().unwrap();
        assert!(r.done);
        assert_eq!(r.outputs, map(&[("graphs/f.json", "e3b0")]));
        store
            .run_stage_begin(film, "graph", "fp2", &inputs)
            .unwrap();
        let r = store.run_stage(film, "graph").unwrap().unwrap();
        assert_eq!((r.fingerprint.as_str(), r.done), ("fp2", false));
        assert!(r.outputs.is_empty());
    }

    #[test]
    fn discarding_a_graph_build_removes_its_rows() {
        let store = Store::open_in_memory().unwrap();
        let film = store.ensure_film("f", None).unwrap();
        let build = store.graph_build(film, "{\"k\":1}").unwrap();
        store
            .graph_commit_block_rows(build, &crate::store::BlockProgress::default(), &[], &[])
            .unwrap();
        assert_eq!(store.graph_progress(build).unwrap().len(), 1);
        assert!(store.graph_discard_build(film, "{\"k\":1}").unwrap());
        assert!(!store.graph_discard_build(film, "{\"k\":1}").unwrap());
        let again = store.graph_build(film, "{\"k\":1}").unwrap();
        assert!(store.graph_progress(again).unwrap().is_empty());
    }
}
