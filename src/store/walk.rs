//! Who answered a human run (migration 9).

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

impl Store {
    /// Names the person who answers run `run_id` (the run must exist) unless the run
    /// already has one, and returns the run's annotator: `annotator`, or the name it was
    /// given before (one run is one person; the caller refuses a different name).
    pub fn set_eval_run_annotator(
        &self,
        run_id: &str,
        annotator: &str,
    ) -> Result<String, StoreError> {
        self.conn
            .query_row(
                "INSERT INTO eval_run_annotators (run_id, annotator) VALUES (?1, ?2)
                 ON CONFLICT (run_id) DO UPDATE SET annotator = annotator
                 RETURNING annotator",
                params![run_id, annotator],
                |row| row.get(0),
            )
            .map_err(|source| self.sql_error(source))
    }

    /// The person who answered run `run_id`, if it is a human run.
    pub fn eval_run_annotator(&self, run_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT annotator FROM eval_run_annotators WHERE run_id = ?1",
                [run_id],
                |row| row.get(0),
            )
            .optional()
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{EvalRun, Store};

    #[test]
    fn one_annotator_per_run() {
        let store = Store::open_in_memory().unwrap();
        assert!(
            store.set_eval_run_annotator("r1", "ana").is_err(),
            "the run must exist"
        );
        store
            .create_eval_run(
                &EvalRun {
                    id: "r1".into(),
                    subject: "human".into(),
                    judge: None,
                    text_only: false,
                    seed: 0,
                    source: "t.jsonl".into(),
                },
                &[],
            )
            .unwrap();
        assert_eq!(store.eval_run_annotator("r1").unwrap(), None);
        assert_eq!(store.set_eval_run_annotator("r1", "ana").unwrap(), "ana");
        assert_eq!(store.set_eval_run_annotator("r1", "ana").unwrap(), "ana");
        assert_eq!(store.set_eval_run_annotator("r1", "ben").unwrap(), "ana");
        assert_eq!(
            store.eval_run_annotator("r1").unwrap().as_deref(),
            Some("ana")
        );
    }
}
