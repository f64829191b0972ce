//! The graph stage in the workspace store: candidates with their votes and
//! merges, to the store's rows (migration 0005) and back. A candidate's item
//! is stored as its JSON (the exchange format's node or edge object).
//!
//! Builds and per-block progress carry no stage types and stay on [`Store`]
//! itself ([`Store::graph_build`], [`Store::graph_progress`]); the SQL stays in
//! the store.

use crate::graph::schema::{Candidate, Item, Merge, Role, Status, Vote};
use crate::store::{
    BlockProgress, CandidateRow, GraphBuildId, MergeRow, Store, StoreError, VoteRow,
};

/// The graph stage's reads and writes in the workspace store.
pub trait GraphStore {
    /// Commits one finished block: its candidates with their votes, its merges
    /// and its progress row, in one transaction.
    fn graph_commit_block(
        &self,
        build: GraphBuildId,
        progress: &BlockProgress,
        candidates: &[Candidate],
        merges: &[Merge],
    ) -> Result<(), StoreError>;

    /// Every candidate of a build with its votes, by block then id.
    fn graph_candidates(&self, build: GraphBuildId) -> Result<Vec<Candidate>, StoreError>;

    /// Every merge of a build, by block.
    fn graph_merges(&self, build: GraphBuildId) -> Result<Vec<Merge>, StoreError>;

    /// Records a person's decision on an escalated candidate and settles it.
    fn graph_review(
        &self,
        build: GraphBuildId,
        candidate: &str,
        vote: &Vote,
    ) -> Result<Status, StoreError>;
}

impl GraphStore for Store {
    fn graph_commit_block(
        &self,
        build: GraphBuildId,
        progress: &BlockProgress,
        candidates: &[Candidate],
        merges: &[Merge],
    ) -> Result<(), StoreError> {
        let candidates = candidates
            .iter()
            .map(|c| {
                Ok(CandidateRow {
                    id: c.id.clone(),
                    block: c.block,
                    kind: c.item.kind_label(),
                    status: c.status.as_str().to_owned(),
                    reason: c.reason.clone(),
                    item: serde_json::to_string(&c.item).map_err(|e| self.unwritable_value(e))?,
                    votes: c.votes.iter().map(vote_row).collect(),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let merges: Vec<MergeRow> = merges
            .iter()
            .map(|m| MergeRow {
                block: m.block,
                name: m.name.clone(),
                proposed: m.proposed.clone(),
                into: m.into.clone(),
                tier: m.tier.clone(),
                score: m.score,
            })
            .collect();
        self.graph_commit_block_rows(build, progress, &candidates, &merges)
    }

    fn graph_candidates(&self, build: GraphBuildId) -> Result<Vec<Candidate>, StoreError> {
        self.graph_candidate_rows(build)?
            .into_iter()
            .map(|c| {
                let item: Item =
                    serde_json::from_str(&c.item).map_err(|e| self.invalid_value(4, e))?;
                Ok(Candidate {
                    block: c.block,
                    item,
                    reason: c.reason,
                    status: Status::parse(&c.status).unwrap_or(Status::Candidate),
                    votes: c.votes.into_iter().map(vote_of).collect(),
                    id: c.id,
                })
            })
            .collect()
    }

    fn graph_merges(&self, build: GraphBuildId) -> Result<Vec<Merge>, StoreError> {
        Ok(self
            .graph_merge_rows(build)?
            .into_iter()
            .map(|m| Merge {
                block: m.block,
                name: m.name,
                proposed: m.proposed,
                into: m.into,
                tier: m.tier,
                score: m.score,
            })
            .collect())
    }

    fn graph_review(
        &self,
        build: GraphBuildId,
        candidate: &str,
        vote: &Vote,
    ) -> Result<Status, StoreError> {
        let status = if vote.accept {
            Status::Accepted
        } else {
            Status::Rejected
        };
        self.graph_review_row(build, candidate, &vote_row(vote), status.as_str())?;
        Ok(status)
    }
}

fn role_str(role: Role) -> &'static str {
    match role {
        Role::Auditor => "auditor",
        Role::Adjudicator => "adjudicator",
        Role::Human => "human",
    }
}

fn role_parse(s: &str) -> Role {
    match s {
        "adjudicator" => Role::Adjudicator,
        "human" => Role::Human,
        _ => Role::Auditor,
    }
}

fn vote_row(v: &Vote) -> VoteRow {
    VoteRow {
        judge: v.judge.clone(),
        role: role_str(v.role).to_owned(),
        accept: v.accept,
        rationale: v.rationale.clone(),
    }
}

fn vote_of(v: VoteRow) -> Vote {
    Vote {
        judge: v.judge,
        role: role_parse(&v.role),
        accept: v.accept,
        rationale: v.rationale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::{Evidence, Node, NodeKind};
    use crate::store::BlockProgress;

    fn cand(id: &str, status: Status, votes: Vec<Vote>) -> Candidate {
        let mut n = Node::new(id, NodeKind::Object, "Key");
        n.evidence = vec![Evidence {
            block: 0,
            element: 3,
            start: 0,
            end: 3,
            quote: "KEY".into(),
            keyframes: vec![],
        }];
        Candidate {
            id: Candidate::make_id(id, 0),
            block: 0,
            item: Item::Node(n),
            reason: "prop".into(),
            status,
            votes,
        }
    }

    fn vote(judge: &str, accept: bool) -> Vote {
        Vote {
            judge: judge.into(),
            role: Role::Auditor,
            accept,
            rationale: format!("{judge} {accept}"),
        }
    }

    #[test]
    fn a_block_round_trips_with_votes_merges_and_review() {
        let store = Store::open_in_memory().unwrap();
        let film = store.ensure_film("f", None).unwrap();
        let build = store.graph_build(film, "{\"s\":1}").unwrap();
        assert_eq!(store.graph_build(film, "{\"s\":1}").unwrap(), build);
        assert_ne!(store.graph_build(film, "{\"s\":2}").unwrap(), build);
        let cands = vec![
            cand(
                "object:key",
                Status::Accepted,
                vec![vote("a", true), vote("b", true)],
            ),
            cand(
                "object:safe",
                Status::Escalated,
                vec![vote("a", true), vote("b", false)],
            ),
        ];
        let merge = Merge {
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
            .graph_commit_block(build, &progress, &cands, std::slice::from_ref(&merge))
            .unwrap();
        assert_eq!(store.graph_candidates(build).unwrap(), cands);
        assert_eq!(store.graph_merges(build).unwrap(), vec![merge]);
        assert_eq!(store.graph_progress(build).unwrap(), vec![progress]);
        // The same block cannot be committed twice.
        assert!(store
            .graph_commit_block(build, &progress, &[], &[])
            .is_err());
        let human = Vote {
            judge: "human".into(),
            role: Role::Human,
            accept: false,
            rationale: "no".into(),
        };
        let status = store.graph_review(build, &cands[1].id, &human).unwrap();
        assert_eq!(status, Status::Rejected);
        let after = store.graph_candidates(build).unwrap();
        assert_eq!(after[1].status, Status::Rejected);
        assert_eq!(after[1].votes.last(), Some(&human));
        assert_eq!(
            store.graph_latest_build(film).unwrap().map(|b| b.1),
            Some("{\"s\":2}".into())
        );
    }
}
