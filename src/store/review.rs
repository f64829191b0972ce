//! People's decisions on a graph build's candidates (`review_decisions`,
//! `review_originals`; migration 0011). The store keeps rows as text; what a
//! decision means and what several make of a candidate is the graph stage's
//! rule, passed in as a function so that the decision and its effect on the
//! candidate land in one transaction.

use rusqlite::{params, OptionalExtension};

use super::{CandidateRow, GraphBuildId, Store, StoreError, VoteRow};

/// A reviewer's decision as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionRow {
    /// The nonce of the page it came from: a decision sent twice is stored once.
    pub id: String,
    /// The candidate decided.
    pub candidate: String,
    /// The reviewer's name.
    pub reviewer: String,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The queue the reviewer worked through.
    pub queue: String,
    /// The decision as JSON.
    pub decision: String,
}

/// A candidate as the models left it, before any person decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalRow {
    /// The candidate id.
    pub candidate: String,
    /// Its status then (`added` for one a person added).
    pub status: String,
    /// Its item then, as JSON.
    pub item: String,
}

/// What the decisions make of a candidate: its (status, item JSON); given the
/// original and every decision on it, the new one last.
pub type Resolver<'a> = &'a dyn Fn(&OriginalRow, &[DecisionRow]) -> (String, String);

impl Store {
    /// Records `decision` (with `vote`, its line among the candidate's votes)
    /// and rewrites the candidate's status and item as `resolve` says, in one
    /// transaction. Returns false, writing nothing, when a decision with the
    /// same id is stored already.
    pub fn review_decide(
        &self,
        build: GraphBuildId,
        decision: &DecisionRow,
        vote: &VoteRow,
        resolve: Resolver<'_>,
    ) -> Result<bool, StoreError> {
        let run = || -> rusqlite::Result<bool> {
            let tx = self.conn.unchecked_transaction()?;
            let inserted = tx.execute(
                "INSERT OR IGNORE INTO review_decisions
                 (id, build_id, candidate, reviewer, decided_at, queue, decision)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    decision.id,
                    build.0,
                    decision.candidate,
                    decision.reviewer,
                    decision.at_ms,
                    decision.queue,
                    decision.decision
                ],
            )?;
            if inserted == 0 {
                return Ok(false);
            }
            tx.execute(
                "INSERT OR IGNORE INTO review_originals (build_id, candidate, status, item)
                 SELECT build_id, id, status, item FROM graph_candidates
                 WHERE build_id = ?1 AND id = ?2",
                params![build.0, decision.candidate],
            )?;
            let original = tx
                .query_row(
                    "SELECT candidate, status, item FROM review_originals
                     WHERE build_id = ?1 AND candidate = ?2",
                    params![build.0, decision.candidate],
                    |r| {
                        Ok(OriginalRow {
                            candidate: r.get(0)?,
                            status: r.get(1)?,
                            item: r.get(2)?,
                        })
                    },
                )
                .optional()?
                .ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            let decisions = decision_rows(&tx, build, Some(&decision.candidate))?;
            let (status, item) = resolve(&original, &decisions);
            let seq: i64 = tx.query_row(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM graph_votes WHERE build_id = ?1 AND candidate = ?2",
                params![build.0, decision.candidate],
                |r| r.get(0),
            )?;
            tx.execute(
                "INSERT INTO graph_votes (build_id, candidate, seq, judge, role, accept, rationale)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    build.0,
                    decision.candidate,
                    seq,
                    vote.judge,
                    vote.role,
                    vote.accept,
                    vote.rationale
                ],
            )?;
            tx.execute(
                "UPDATE graph_candidates SET status = ?3, item = ?4 WHERE build_id = ?1 AND id = ?2",
                params![build.0, decision.candidate, status, item],
            )?;
            tx.commit()?;
            Ok(true)
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Adds candidates a person made (their originals marked `added`) with the
    /// person's decisions on them, in one transaction. Returns false, writing
    /// nothing, when the first decision's id is stored already (the form was
    /// sent twice).
    pub fn review_add(
        &self,
        build: GraphBuildId,
        candidates: &[CandidateRow],
        decisions: &[DecisionRow],
    ) -> Result<bool, StoreError> {
        let run = || -> rusqlite::Result<bool> {
            let tx = self.conn.unchecked_transaction()?;
            if let Some(first) = decisions.first() {
                let seen: Option<i64> = tx
                    .query_row(
                        "SELECT 1 FROM review_decisions WHERE id = ?1",
                        [&first.id],
                        |r| r.get(0),
                    )
                    .optional()?;
                if seen.is_some() {
                    return Ok(false);
                }
            }
            for c in candidates {
                tx.execute(
                    "INSERT INTO graph_candidates (build_id, id, block, kind, status, reason, item)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        build.0,
                        c.id,
                        c.block as i64,
                        c.kind,
                        c.status,
                        c.reason,
                        c.item
                    ],
                )?;
                for (seq, v) in c.votes.iter().enumerate() {
                    tx.execute(
                        "INSERT INTO graph_votes (build_id, candidate, seq, judge, role, accept, rationale)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![build.0, c.id, seq as i64, v.judge, v.role, v.accept, v.rationale],
                    )?;
                }
                tx.execute(
                    "INSERT INTO review_originals (build_id, candidate, status, item)
                     VALUES (?1, ?2, 'added', ?3)",
                    params![build.0, c.id, c.item],
                )?;
            }
            for d in decisions {
                tx.execute(
                    "INSERT INTO review_decisions
                     (id, build_id, candidate, reviewer, decided_at, queue, decision)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        d.id,
                        build.0,
                        d.candidate,
                        d.reviewer,
                        d.at_ms,
                        d.queue,
                        d.decision
                    ],
                )?;
            }
            tx.commit()?;
            Ok(true)
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Every decision on the build, oldest first.
    pub fn review_decisions(&self, build: GraphBuildId) -> Result<Vec<DecisionRow>, StoreError> {
        decision_rows(&self.conn, build, None).map_err(|e| self.sql_error(e))
    }

    /// What the models had proposed, for every candidate a person decided or added.
    pub fn review_originals(&self, build: GraphBuildId) -> Result<Vec<OriginalRow>, StoreError> {
        let run = || -> rusqlite::Result<Vec<OriginalRow>> {
            let mut stmt = self.conn.prepare(
                "SELECT candidate, status, item FROM review_originals
                 WHERE build_id = ?1 ORDER BY candidate",
            )?;
            let rows = stmt.query_map([build.0], |r| {
                Ok(OriginalRow {
                    candidate: r.get(0)?,
                    status: r.get(1)?,
                    item: r.get(2)?,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.sql_error(e))
    }
}

/// The decisions of a build (of one candidate when given), oldest first.
fn decision_rows(
    conn: &rusqlite::Connection,
    build: GraphBuildId,
    candidate: Option<&str>,
) -> rusqlite::Result<Vec<DecisionRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, candidate, reviewer, decided_at, queue, decision FROM review_decisions
         WHERE build_id = ?1 AND (?2 IS NULL OR candidate = ?2)
         ORDER BY decided_at, rowid",
    )?;
    let rows = stmt.query_map(params![build.0, candidate], |r| {
        Ok(DecisionRow {
            id: r.get(0)?,
            candidate: r.get(1)?,
            reviewer: r.get(2)?,
            at_ms: r.get(3)?,
            queue: r.get(4)?,
            decision: r.get(5)?,
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::BlockProgress;

    fn setup() -> (tempfile::TempDir, Store, GraphBuildId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let film = store.ensure_film("f", None).unwrap();
        let build = store.graph_build(film, "{}").unwrap();
        let cand = CandidateRow {
            id: "x@b000".into(),
            block: 0,
            kind: "node:object".into(),
            status: "accepted".into(),
            reason: "r".into(),
            item: "{\"v\":1}".into(),
            votes: Vec::new(),
        };
        store
            .graph_commit_block_rows(build, &BlockProgress::default(), &[cand], &[])
            .unwrap();
        (dir, store, build)
    }

    fn decision(id: &str, reviewer: &str, at_ms: i64, what: &str) -> DecisionRow {
        DecisionRow {
            id: id.into(),
            candidate: "x@b000".into(),
            reviewer: reviewer.into(),
            at_ms,
            queue: "sample".into(),
            decision: what.into(),
        }
    }

    fn vote(reviewer: &str) -> VoteRow {
        VoteRow {
            judge: reviewer.into(),
            role: "human".into(),
            accept: false,
            rationale: "r".into(),
        }
    }

    #[test]
    fn a_decision_rewrites_its_candidate_keeps_the_original_and_is_stored_once() {
        let (_dir, store, build) = setup();
        // The rule: rejected once two decisions are in, the item marked.
        let rule = |o: &OriginalRow, ds: &[DecisionRow]| {
            assert_eq!(
                o.item, "{\"v\":1}",
                "the original is what the models proposed"
            );
            let status = if ds.len() >= 2 {
                "rejected"
            } else {
                "escalated"
            };
            (status.to_owned(), format!("{{\"v\":{}}}", ds.len() + 1))
        };
        assert!(store
            .review_decide(build, &decision("n1", "ana", 10, "a"), &vote("ana"), &rule)
            .unwrap());
        // The same page sent again: nothing stored twice.
        assert!(!store
            .review_decide(build, &decision("n1", "ana", 11, "a"), &vote("ana"), &rule)
            .unwrap());
        assert!(store
            .review_decide(build, &decision("n2", "ben", 12, "b"), &vote("ben"), &rule)
            .unwrap());
        let rows = store.graph_candidate_rows(build).unwrap();
        assert_eq!(rows[0].status, "rejected");
        assert_eq!(rows[0].item, "{\"v\":3}");
        assert_eq!(rows[0].votes.len(), 2);
        let ds = store.review_decisions(build).unwrap();
        assert_eq!(
            ds.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
            ["n1", "n2"]
        );
        let originals = store.review_originals(build).unwrap();
        assert_eq!(originals.len(), 1);
        assert_eq!(originals[0].status, "accepted");
    }

    #[test]
    fn an_added_candidate_is_stored_once_with_its_decision() {
        let (_dir, store, build) = setup();
        let added = CandidateRow {
            id: "y@b000".into(),
            block: 0,
            kind: "node:mental_state".into(),
            status: "accepted".into(),
            reason: "added by ana".into(),
            item: "{}".into(),
            votes: vec![vote("ana")],
        };
        let mut d = decision("n9", "ana", 5, "{\"decision\":\"accept\"}");
        d.candidate = "y@b000".into();
        assert!(store
            .review_add(
                build,
                std::slice::from_ref(&added),
                std::slice::from_ref(&d)
            )
            .unwrap());
        assert!(!store.review_add(build, &[added], &[d]).unwrap());
        assert_eq!(store.graph_candidate_rows(build).unwrap().len(), 2);
        assert_eq!(store.review_originals(build).unwrap()[0].status, "added");
    }

    #[test]
    fn a_merged_store_brings_its_review_and_a_different_review_is_a_conflict() {
        let (dir, store, build) = setup();
        let keep = |o: &OriginalRow, _: &[DecisionRow]| (o.status.clone(), o.item.clone());
        store
            .review_decide(build, &decision("n1", "ana", 10, "a"), &vote("ana"), &keep)
            .unwrap();
        drop(store);
        let source = dir.path().join("db");
        let mut dest = Store::open(&dir.path().join("dest")).unwrap();
        dest.merge_from(std::slice::from_ref(&source)).unwrap();
        let film = dest.ensure_film("f", None).unwrap();
        let merged = dest.graph_build(film, "{}").unwrap();
        assert_eq!(dest.review_decisions(merged).unwrap().len(), 1);
        assert_eq!(dest.review_originals(merged).unwrap().len(), 1);
        // Merging it again changes nothing; another review of the same build conflicts.
        dest.merge_from(std::slice::from_ref(&source)).unwrap();
        dest.review_decide(merged, &decision("n2", "ben", 11, "b"), &vote("ben"), &keep)
            .unwrap();
        assert!(dest.merge_from(&[source]).is_err());
    }
}
