//! Graph builds: candidates, votes, merges and per-block progress.
//!
//! The rows are plain values (a candidate's item is its JSON text); the graph
//! stage turns its schema types into them and back (`graph::store`).

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};

use super::{FilmId, Store, StoreError};

/// A graph build's row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GraphBuildId(pub i64);

/// What one finished block cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockProgress {
    /// Block id.
    pub block: usize,
    /// Generator calls.
    pub generator_calls: u64,
    /// Auditor calls (one per auditor per block).
    pub auditor_calls: u64,
    /// Adjudicator calls (one per escalated candidate).
    pub adjudicator_calls: u64,
    /// Proposed items dropped by validation.
    pub dropped: u64,
    /// Wall time spent on the block, microseconds.
    pub elapsed_us: u64,
}

/// A candidate's row (`graph_candidates`) with its votes (`graph_votes`).
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateRow {
    /// The candidate id.
    pub id: String,
    /// The block that proposed it.
    pub block: usize,
    /// The item's kind label.
    pub kind: String,
    /// Its status's name.
    pub status: String,
    /// The generator's reason.
    pub reason: String,
    /// The item as JSON.
    pub item: String,
    /// Every vote, in order.
    pub votes: Vec<VoteRow>,
}

/// A vote's row (`graph_votes`, without its candidate and position).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoteRow {
    /// The judge's name.
    pub judge: String,
    /// The judge's role's name.
    pub role: String,
    /// Accept (true) or reject.
    pub accept: bool,
    /// Why.
    pub rationale: String,
}

/// A merge's row (`graph_merges`).
#[derive(Debug, Clone, PartialEq)]
pub struct MergeRow {
    /// The block whose candidate was merged.
    pub block: usize,
    /// The name the generator proposed.
    pub name: String,
    /// The id the generator proposed.
    pub proposed: String,
    /// The existing node it was merged into.
    pub into: String,
    /// Which tier matched.
    pub tier: String,
    /// The tier's similarity.
    pub score: f64,
}

impl Store {
    /// The build of `film` under `settings`, created if new.
    pub fn graph_build(&self, film: FilmId, settings: &str) -> Result<GraphBuildId, StoreError> {
        let run = || -> rusqlite::Result<GraphBuildId> {
            self.conn.execute(
                "INSERT OR IGNORE INTO graph_builds (film_id, settings) VALUES (?1, ?2)",
                params![film.0, settings],
            )?;
            self.conn.query_row(
                "SELECT id FROM graph_builds WHERE film_id = ?1 AND settings = ?2",
                params![film.0, settings],
                |r| r.get(0).map(GraphBuildId),
            )
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// The most recent build of a film, with its settings.
    pub fn graph_latest_build(
        &self,
        film: FilmId,
    ) -> Result<Option<(GraphBuildId, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, settings FROM graph_builds WHERE film_id = ?1 ORDER BY id DESC LIMIT 1",
                [film.0],
                |r| Ok((GraphBuildId(r.get(0)?), r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql_error(e))
    }

    /// Progress rows of the finished blocks, by block.
    pub fn graph_progress(&self, build: GraphBuildId) -> Result<Vec<BlockProgress>, StoreError> {
        let run = || -> rusqlite::Result<Vec<BlockProgress>> {
            let mut stmt = self.conn.prepare(
                "SELECT block, generator_calls, auditor_calls, adjudicator_calls, dropped, elapsed_us
                 FROM graph_blocks WHERE build_id = ?1 ORDER BY block",
            )?;
            let rows = stmt.query_map([build.0], |r| {
                Ok(BlockProgress {
                    block: r.get::<_, i64>(0)? as usize,
                    generator_calls: r.get::<_, i64>(1)? as u64,
                    auditor_calls: r.get::<_, i64>(2)? as u64,
                    adjudicator_calls: r.get::<_, i64>(3)? as u64,
                    dropped: r.get::<_, i64>(4)? as u64,
                    elapsed_us: r.get::<_, i64>(5)? as u64,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Commits one finished block: its candidates with their votes, its merges
    /// and its progress row, in one transaction.
    pub fn graph_commit_block_rows(
        &self,
        build: GraphBuildId,
        progress: &BlockProgress,
        candidates: &[CandidateRow],
        merges: &[MergeRow],
    ) -> Result<(), StoreError> {
        let run = || -> rusqlite::Result<()> {
            let tx = self.conn.unchecked_transaction()?;
            {
                let mut cand = tx.prepare(
                    "INSERT INTO graph_candidates (build_id, id, block, kind, status, reason, item)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?;
                let mut vote = tx.prepare(
                    "INSERT INTO graph_votes (build_id, candidate, seq, judge, role, accept, rationale)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?;
                for c in candidates {
                    cand.execute(params![
                        build.0,
                        c.id,
                        c.block as i64,
                        c.kind,
                        c.status,
                        c.reason,
                        c.item
                    ])?;
                    for (seq, v) in c.votes.iter().enumerate() {
                        vote.execute(params![
                            build.0,
                            c.id,
                            seq as i64,
                            v.judge,
                            v.role,
                            v.accept,
                            v.rationale
                        ])?;
                    }
                }
                let mut merge = tx.prepare(
                    "INSERT OR REPLACE INTO graph_merges (build_id, block, name, proposed, into_id, tier, score)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?;
                for m in merges {
                    merge.execute(params![
                        build.0,
                        m.block as i64,
                        m.name,
                        m.proposed,
                        m.into,
                        m.tier,
                        m.score
                    ])?;
                }
                tx.execute(
                    "INSERT INTO graph_blocks (build_id, block, generator_calls, auditor_calls, adjudicator_calls, dropped, elapsed_us)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        build.0,
                        progress.block as i64,
                        progress.generator_calls as i64,
                        progress.auditor_calls as i64,
                        progress.adjudicator_calls as i64,
                        progress.dropped as i64,
                        progress.elapsed_us as i64
                    ],
                )?;
            }
            tx.commit()
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Every candidate row of a build with its votes, by block then id.
    pub fn graph_candidate_rows(
        &self,
        build: GraphBuildId,
    ) -> Result<Vec<CandidateRow>, StoreError> {
        let run = || -> rusqlite::Result<Vec<CandidateRow>> {
            let mut votes: BTreeMap<String, Vec<VoteRow>> = BTreeMap::new();
            let mut stmt = self.conn.prepare(
                "SELECT candidate, judge, role, accept, rationale FROM graph_votes
                 WHERE build_id = ?1 ORDER BY candidate, seq",
            )?;
            let rows = stmt.query_map([build.0], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    VoteRow {
                        judge: r.get(1)?,
                        role: r.get(2)?,
                        accept: r.get(3)?,
                        rationale: r.get(4)?,
                    },
                ))
            })?;
            for row in rows {
                let (c, v) = row?;
                votes.entry(c).or_default().push(v);
            }
            let mut stmt = self.conn.prepare(
                "SELECT id, block, status, reason, item, kind FROM graph_candidates
                 WHERE build_id = ?1 ORDER BY block, id",
            )?;
            let rows = stmt.query_map([build.0], |r| {
                Ok(CandidateRow {
                    id: r.get(0)?,
                    block: r.get::<_, i64>(1)? as usize,
                    kind: r.get(5)?,
                    status: r.get(2)?,
                    reason: r.get(3)?,
                    item: r.get(4)?,
                    votes: Vec::new(),
                })
            })?;
            let mut out = Vec::new();
            for row in rows {
                let mut c = row?;
                c.votes = votes.remove(&c.id).unwrap_or_default();
                out.push(c);
            }
            Ok(out)
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Every merge row of a build, by block.
    pub fn graph_merge_rows(&self, build: GraphBuildId) -> Result<Vec<MergeRow>, StoreError> {
        let run = || -> rusqlite::Result<Vec<MergeRow>> {
            let mut stmt = self.conn.prepare(
                "SELECT block, name, proposed, into_id, tier, score FROM graph_merges
                 WHERE build_id = ?1 ORDER BY block, proposed",
            )?;
            let rows = stmt.query_map([build.0], |r| {
                Ok(MergeRow {
                    block: r.get::<_, i64>(0)? as usize,
                    name: r.get(1)?,
                    proposed: r.get(2)?,
                    into: r.get(3)?,
                    tier: r.get(4)?,
                    score: r.get(5)?,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.sql_error(e))
    }

    /// Records a person's vote on a candidate and sets its status (by name),
    /// in one transaction.
    pub fn graph_review_row(
        &self,
        build: GraphBuildId,
        candidate: &str,
        vote: &VoteRow,
        status: &str,
    ) -> Result<(), StoreError> {
        let run = || -> rusqlite::Result<()> {
            let tx = self.conn.unchecked_transaction()?;
            let seq: i64 = tx.query_row(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM graph_votes WHERE build_id = ?1 AND candidate = ?2",
                params![build.0, candidate],
                |r| r.get(0),
            )?;
            tx.execute(
                "INSERT INTO graph_votes (build_id, candidate, seq, judge, role, accept, rationale)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    build.0,
                    candidate,
                    seq,
                    vote.judge,
                    vote.role,
                    vote.accept,
                    vote.rationale
                ],
            )?;
            tx.execute(
                "UPDATE graph_candidates SET status = ?3 WHERE build_id = ?1 AND id = ?2",
                params![build.0, candidate, status],
            )?;
            tx.commit()
        };
        run().map_err(|e| self.sql_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, status: &str, votes: Vec<VoteRow>) -> CandidateRow {
        CandidateRow {
            id: format!("{id}@b000"),
            block: 0,
            kind: "node:object".into(),
            status: status.into(),
            reason: "prop".into(),
            item: format!("{{\"id\":\"{id}\"}}"),
            votes,
        }
    }

    fn vote(judge: &str, accept: bool) -> VoteRow {
        VoteRow {
            judge: judge.into(),
            role: "auditor".into(),
            accept,
            rationale: format!("{judge} {accept}"),
        }
    }

    #[test]
    fn a_block_of_rows_round_trips_with_votes_merges_and_review() {
        let store = Store::open_in_memory().unwrap();
        let film = store.ensure_film("f", None).unwrap();
        let build = store.graph_build(film, "{\"s\":1}").unwrap();
        assert_eq!(store.graph_build(film, "{\"s\":1}").unwrap(), build);
        assert_ne!(store.graph_build(film, "{\"s\":2}").unwrap(), build);
        let cands = vec![
            cand(
                "object:key",
                "accepted",
                vec![vote("a", true), vote("b", true)],
            ),
            cand(
                "object:safe",
                "escalated",
                vec![vote("a", true), vote("b", false)],
            ),
        ];
        let merge = MergeRow {
            block: 0,
            name: "key".into(),
            proposed: "object:key-2".into(),
            into: "object:key".into(),
            tier: "exact".into(),
            score: 1.0,
        };
        let progress = BlockProgress {
            block: 0,
            generator_calls: 1,
            auditor_calls: 2,
            ..BlockProgress::default()
        };
        store
            .graph_commit_block_rows(build, &progress, &cands, std::slice::from_ref(&merge))
            .unwrap();
        assert_eq!(store.graph_candidate_rows(build).unwrap(), cands);
        assert_eq!(store.graph_merge_rows(build).unwrap(), vec![merge]);
        assert_eq!(store.graph_progress(build).unwrap(), vec![progress]);
        // The same block cannot be committed twice.
        assert!(store
            .graph_commit_block_rows(build, &progress, &[], &[])
            .is_err());
        let human = VoteRow {
            judge: "human".into(),
            role: "human".into(),
            accept: false,
            rationale: "no".into(),
        };
        store
            .graph_review_row(build, &cands[1].id, &human, "rejected")
            .unwrap();
        let after = store.graph_candidate_rows(build).unwrap();
        assert_eq!(after[1].status, "rejected");
        assert_eq!(after[1].votes.last(), Some(&human));
        assert_eq!(
            store.graph_latest_build(film).unwrap().map(|b| b.1),
            Some("{\"s\":2}".into())
        );
    }
}
