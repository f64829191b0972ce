//! People's decisions in the workspace store (migration 0011), as the graph
//! stage's types: each decision rewrites its candidate by [`super::review::resolve`]
//! in the transaction that stores it.

use std::collections::BTreeMap;

use crate::graph::review::{resolve, Decision, Outcome};
use crate::graph::schema::{Candidate, Item, Status};
use crate::store::{
    CandidateRow, DecisionRow, GraphBuildId, OriginalRow, Store, StoreError, VoteRow,
};

/// A candidate as the models left it (`None` status: a person added it).
#[derive(Debug, Clone, PartialEq)]
pub struct Original {
    /// Its status then; `None` for a candidate a person added.
    pub status: Option<Status>,
    /// Its item then.
    pub item: Item,
}

/// The review's reads and writes in the workspace store.
pub trait ReviewStore {
    /// Stores `decision` under `nonce` (the page's; a second one with the same
    /// nonce stores nothing and returns false) and sets its candidate as the
    /// people's decisions make it.
    fn review_record(
        &self,
        build: GraphBuildId,
        nonce: &str,
        decision: &Decision,
    ) -> Result<bool, StoreError>;

    /// Adds candidates a person made, each with that person's decision (same
    /// order); false when the first nonce is stored already.
    fn review_add_candidates(
        &self,
        build: GraphBuildId,
        added: &[(Candidate, String, Decision)],
    ) -> Result<bool, StoreError>;

    /// Every decision with its nonce, oldest first.
    fn review_all(&self, build: GraphBuildId) -> Result<Vec<(String, Decision)>, StoreError>;

    /// What the models proposed, by candidate, for every candidate a person touched.
    fn review_before(&self, build: GraphBuildId) -> Result<BTreeMap<String, Original>, StoreError>;
}

fn decision_row(store: &Store, nonce: &str, d: &Decision) -> Result<DecisionRow, StoreError> {
    Ok(DecisionRow {
        id: nonce.to_owned(),
        candidate: d.candidate.clone(),
        reviewer: d.reviewer.clone(),
        at_ms: d.at_ms,
        queue: d.queue.clone(),
        decision: serde_json::to_string(&d.verdict).map_err(|e| store.unwritable_value(e))?,
    })
}

fn decision_of(r: &DecisionRow) -> Option<Decision> {
    Some(Decision {
        candidate: r.candidate.clone(),
        reviewer: r.reviewer.clone(),
        at_ms: r.at_ms,
        queue: r.queue.clone(),
        verdict: serde_json::from_str(&r.decision).ok()?,
    })
}

fn vote_row(d: &Decision) -> VoteRow {
    VoteRow {
        judge: d.reviewer.clone(),
        role: "human".to_owned(),
        accept: !matches!(d.verdict, crate::graph::review::Verdict::Reject { .. }),
        rationale: format!("{} (review, queue {})", describe_verdict(d), d.queue),
    }
}

fn describe_verdict(d: &Decision) -> String {
    use crate::graph::review::Verdict;
    match &d.verdict {
        Verdict::Accept => "accept".to_owned(),
        Verdict::Reject { reason } => format!("reject: {}", reason.label()),
        Verdict::Correct { correction } => format!(
            "correct: {}",
            serde_json::to_string(correction).unwrap_or_default()
        ),
    }
}

/// The rule over rows: the original and the decisions parsed, resolved, and
/// written back as (status, item JSON).
fn rule(original: &OriginalRow, rows: &[DecisionRow]) -> (String, String) {
    let Ok(item) = serde_json::from_str::<Item>(&original.item) else {
        return (original.status.clone(), original.item.clone());
    };
    let status = Status::parse(&original.status).unwrap_or(Status::Candidate);
    let candidate = Candidate {
        id: original.candidate.clone(),
        block: 0,
        item,
        reason: String::new(),
        status,
        votes: Vec::new(),
    };
    let decisions: Vec<Decision> = rows.iter().filter_map(decision_of).collect();
    match resolve(&candidate, &decisions) {
        Outcome::Models => (original.status.clone(), original.item.clone()),
        Outcome::People(s, item) => (
            s.as_str().to_owned(),
            serde_json::to_string(&item).unwrap_or_else(|_| original.item.clone()),
        ),
        Outcome::Open => (Status::Escalated.as_str().to_owned(), original.item.clone()),
    }
}

impl ReviewStore for Store {
    fn review_record(
        &self,
        build: GraphBuildId,
        nonce: &str,
        decision: &Decision,
    ) -> Result<bool, StoreError> {
        let row = decision_row(self, nonce, decision)?;
        self.review_decide(build, &row, &vote_row(decision), &rule)
    }

    fn review_add_candidates(
        &self,
        build: GraphBuildId,
        added: &[(Candidate, String, Decision)],
    ) -> Result<bool, StoreError> {
        let mut candidates = Vec::new();
        let mut decisions = Vec::new();
        for (c, nonce, d) in added {
            candidates.push(CandidateRow {
                id: c.id.clone(),
                block: c.block,
                kind: c.item.kind_label(),
                status: c.status.as_str().to_owned(),
                reason: c.reason.clone(),
                item: serde_json::to_string(&c.item).map_err(|e| self.unwritable_value(e))?,
                votes: vec![vote_row(d)],
            });
            decisions.push(decision_row(self, nonce, d)?);
        }
        self.review_add(build, &candidates, &decisions)
    }

    fn review_all(&self, build: GraphBuildId) -> Result<Vec<(String, Decision)>, StoreError> {
        Ok(self
            .review_decisions(build)?
            .iter()
            .filter_map(|r| Some((r.id.clone(), decision_of(r)?)))
            .collect())
    }

    fn review_before(&self, build: GraphBuildId) -> Result<BTreeMap<String, Original>, StoreError> {
        Ok(self
            .review_originals(build)?
            .into_iter()
            .filter_map(|o| {
                Some((
                    o.candidate,
                    Original {
                        status: Status::parse(&o.status),
                        item: serde_json::from_str(&o.item).ok()?,
                    },
                ))
            })
            .collect())
    }
}
