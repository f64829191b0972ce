//! Evaluation runs, their trees and their answers (migration 7).

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

/// One evaluation run's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalRun {
    /// The run id (chosen by the user or derived from subject and trees).
    pub id: String,
    /// The subject's name.
    pub subject: String,
    /// The judge's name; `None` when open answers use the ROUGE-L fallback.
    pub judge: Option<String>,
    /// Keyframes withheld.
    pub text_only: bool,
    /// The run's seed (baselines).
    pub seed: u64,
    /// Where the trees came from.
    pub source: String,
}

/// One recorded answer.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalAnswer {
    /// The tree.
    pub tree_id: String,
    /// The node asked.
    pub node_id: String,
    /// 1 (dynamic path) or 2 (counterfactual).
    pub phase: u8,
    /// Position in the tree's conversation, from 0.
    pub seq: u32,
    /// The reply verbatim.
    pub raw: String,
    /// What the parser read (JSON of `eval::parse::Parsed`).
    pub parsed: String,
    /// Strict correctness.
    pub correct: bool,
    /// Partial credit, 0..=1.
    pub score: f64,
    /// ROUGE-L F1 (open answers).
    pub rouge: Option<f64>,
    /// The judge's grade (open answers with a judge).
    pub judge: Option<f64>,
}

impl Store {
    /// Records a new run with its trees, `(tree id, film, tree JSON)` in run order,
    /// in one transaction: a run is never stored without its trees (a run killed
    /// between the two could not be resumed: "exists with other trees").
    pub fn create_eval_run(
        &self,
        run: &EvalRun,
        trees: &[(String, String, String)],
    ) -> Result<(), StoreError> {
        let err = |source| self.sql_error(source);
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        tx.execute(
            "INSERT INTO eval_runs (id, subject, judge, text_only, seed, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                run.id,
                run.subject,
                run.judge,
                run.text_only,
                run.seed as i64,
                run.source
            ],
        )
        .map_err(err)?;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO eval_trees (run_id, tree_id, ord, film, tree_json)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            for (ord, (tree_id, film, json)) in trees.iter().enumerate() {
                stmt.execute(params![run.id, tree_id, ord as i64, film, json])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// The run with this id.
    pub fn eval_run(&self, id: &str) -> Result<Option<EvalRun>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, subject, judge, text_only, seed, source FROM eval_runs WHERE id = ?1",
                [id],
                |row| {
                    Ok(EvalRun {
                        id: row.get(0)?,
                        subject: row.get(1)?,
                        judge: row.get(2)?,
                        text_only: row.get(3)?,
                        seed: row.get::<_, i64>(4)? as u64,
                        source: row.get(5)?,
                    })
                },
            )
            .optional()
            .map_err(|source| self.sql_error(source))
    }

    /// Every run id, sorted.
    pub fn eval_run_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM eval_runs ORDER BY id")
            .map_err(|source| self.sql_error(source))?;
        let rows = stmt
            .query_map([], |row| row.get(0))
            .map_err(|source| self.sql_error(source))?;
        rows.collect::<Result<_, _>>()
            .map_err(|source| self.sql_error(source))
    }

    /// The run's trees as JSON, in run order.
    pub fn eval_trees(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT tree_json FROM eval_trees WHERE run_id = ?1 ORDER BY ord")
            .map_err(|source| self.sql_error(source))?;
        let rows = stmt
            .query_map([run_id], |row| row.get(0))
            .map_err(|source| self.sql_error(source))?;
        rows.collect::<Result<_, _>>()
            .map_err(|source| self.sql_error(source))
    }

    /// Records answers in one transaction (one answer: committed before returning).
    pub fn record_eval_answers(
        &self,
        run_id: &str,
        answers: &[EvalAnswer],
    ) -> Result<(), StoreError> {
        let err = |source| self.sql_error(source);
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO eval_answers
                     (run_id, tree_id, node_id, phase, seq, raw, parsed, correct, score, rouge, judge)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )
                .map_err(err)?;
            for a in answers {
                stmt.execute(params![
                    run_id, a.tree_id, a.node_id, a.phase, a.seq, a.raw, a.parsed, a.correct,
                    a.score, a.rouge, a.judge
                ])
                .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// The run's answers, by tree (run order) then conversation position.
    pub fn eval_answers(&self, run_id: &str) -> Result<Vec<EvalAnswer>, StoreError> {
        let err = |source| self.sql_error(source);
        let mut order: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT tree_id, ord FROM eval_trees WHERE run_id = ?1")
                .map_err(err)?;
            let rows = stmt
                .query_map([run_id], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(err)?;
            for row in rows {
                let (tree, ord) = row.map_err(err)?;
                order.insert(tree, ord);
            }
        }
        // Sorted here rather than by SQL: an ORDER BY over a join of wide rows makes
        // SQLite spill its sorter to temporary files, several times slower for a large run.
        let mut stmt = self
            .conn
            .prepare(
                "SELECT tree_id, node_id, phase, seq, raw, parsed, correct, score, rouge, judge
                 FROM eval_answers WHERE run_id = ?1",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([run_id], |row| {
                Ok(EvalAnswer {
                    tree_id: row.get(0)?,
                    node_id: row.get(1)?,
                    phase: row.get(2)?,
                    seq: row.get(3)?,
                    raw: row.get(4)?,
                    parsed: row.get(5)?,
                    correct: row.get(6)?,
                    score: row.get(7)?,
                    rouge: row.get(8)?,
                    judge: row.get(9)?,
                })
            })
            .map_err(err)?;
        let mut answers = rows.collect::<Result<Vec<_>, _>>().map_err(err)?;
        answers.sort_by_cached_key(|a| (order.get(&a.tree_id).copied().unwrap_or(i64::MAX), a.seq));
        Ok(answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that could not store its trees is not stored either, so a resume
    /// never finds a run without them (the SIGKILL test's "exists with other
    /// trees" when a kill landed between two separate writes).
    #[test]
    fn a_run_is_stored_with_all_its_trees_or_not_at_all() {
        let store = Store::open_in_memory().unwrap();
        let run = EvalRun {
            id: "r1".into(),
            subject: "random".into(),
            judge: None,
            text_only: false,
            seed: 0,
            source: "t.jsonl".into(),
        };
        let twice = [
            ("t1".into(), "f".into(), "{}".into()),
            ("t1".into(), "f".into(), "{}".into()),
        ];
        assert!(store.create_eval_run(&run, &twice).is_err());
        assert_eq!(store.eval_run("r1").unwrap(), None);
        assert!(store.eval_trees("r1").unwrap().is_empty());
    }

    #[test]
    fn runs_trees_and_answers_round_trip() {
        let store = Store::open_in_memory().unwrap();
        let run = EvalRun {
            id: "r1".into(),
            subject: "random".into(),
            judge: None,
            text_only: true,
            seed: u64::MAX,
            source: "trees/a.jsonl".into(),
        };
        let trees = [
            ("t2".into(), "f".into(), "{\"b\":1}".into()),
            ("t1".into(), "f".into(), "{\"a\":1}".into()),
        ];
        store.create_eval_run(&run, &trees).unwrap();
        assert_eq!(store.eval_run("r1").unwrap(), Some(run.clone()));
        assert!(
            store.create_eval_run(&run, &trees).is_err(),
            "ids are unique"
        );
        assert_eq!(
            store.eval_trees("r1").unwrap(),
            vec!["{\"b\":1}", "{\"a\":1}"]
        );
        let answer = |tree: &str, seq: u32| EvalAnswer {
            tree_id: tree.into(),
            node_id: format!("n{seq}"),
            phase: 1,
            seq,
            raw: "[[A]]".into(),
            parsed: "{}".into(),
            correct: true,
            score: 1.0,
            rouge: None,
            judge: Some(0.5),
        };
        store
            .record_eval_answers("r1", &[answer("t1", 1), answer("t1", 0), answer("t2", 0)])
            .unwrap();
        let got = store.eval_answers("r1").unwrap();
        let order: Vec<(&str, u32)> = got.iter().map(|a| (a.tree_id.as_str(), a.seq)).collect();
        assert_eq!(order, vec![("t2", 0), ("t1", 0), ("t1", 1)]);
        assert_eq!(got[1], answer("t1", 0));
        // An answer is recorded once.
        assert!(store.record_eval_answers("r1", &[answer("t1", 0)]).is_err());
        // An answer for a tree the run does not have is refused.
        assert!(store.record_eval_answers("r1", &[answer("t9", 0)]).is_err());
        assert_eq!(store.eval_run_ids().unwrap(), vec!["r1"]);
    }
}
