//! The consensus policy: how auditors' votes become a status.

use serde::{Deserialize, Serialize};

use crate::graph::schema::{Role, Status, Vote};

/// How auditor votes decide (configurable per build).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Unanimous accept → accepted; unanimous reject → rejected; else escalated.
    #[default]
    Unanimous,
    /// More than half decide; a tie is escalated.
    Majority,
}

impl Rule {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Unanimous => "unanimous",
            Rule::Majority => "majority",
        }
    }
}

/// The status the auditors' votes give (other roles' votes are ignored here).
pub fn decide(rule: Rule, votes: &[Vote]) -> Status {
    let auditors: Vec<&Vote> = votes.iter().filter(|v| v.role == Role::Auditor).collect();
    if auditors.is_empty() {
        return Status::Candidate;
    }
    let accepts = auditors.iter().filter(|v| v.accept).count();
    let rejects = auditors.len() - accepts;
    match rule {
        Rule::Unanimous if rejects == 0 => Status::Accepted,
        Rule::Unanimous if accepts == 0 => Status::Rejected,
        Rule::Unanimous => Status::Escalated,
        Rule::Majority if accepts * 2 > auditors.len() => Status::Accepted,
        Rule::Majority if rejects * 2 > auditors.len() => Status::Rejected,
        Rule::Majority => Status::Escalated,
    }
}

/// The status after an adjudicator's or a person's final vote.
pub fn settle(final_vote: &Vote) -> Status {
    if final_vote.accept {
        Status::Accepted
    } else {
        Status::Rejected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(accept: bool) -> Vote {
        Vote {
            judge: "a".into(),
            role: Role::Auditor,
            accept,
            rationale: String::new(),
        }
    }

    #[test]
    fn unanimity_accepts_or_rejects_and_splits_escalate() {
        assert_eq!(
            decide(Rule::Unanimous, &[v(true), v(true)]),
            Status::Accepted
        );
        assert_eq!(
            decide(Rule::Unanimous, &[v(false), v(false)]),
            Status::Rejected
        );
        assert_eq!(
            decide(Rule::Unanimous, &[v(true), v(false)]),
            Status::Escalated
        );
        assert_eq!(
            decide(Rule::Majority, &[v(true), v(true), v(false)]),
            Status::Accepted
        );
        assert_eq!(
            decide(Rule::Majority, &[v(true), v(false)]),
            Status::Escalated
        );
        assert_eq!(
            decide(Rule::Majority, &[v(false), v(false), v(true)]),
            Status::Rejected
        );
        assert_eq!(decide(Rule::Unanimous, &[]), Status::Candidate);
    }
}
