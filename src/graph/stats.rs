//! The construction table (docs/graph-format.md): candidates, verified and
//! verification rate per node and edge kind, auditor agreement, escalations.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::graph::agreement::{agreement, Agreement};
use crate::graph::schema::{Candidate, EdgeKind, Item, Merge, Node, NodeKind, Role, Status};

/// One row of the construction table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindRow {
    /// `node:event`, `edge:causes`…
    pub kind: String,
    /// Candidates proposed (one per item and block).
    pub candidates: usize,
    /// Accepted.
    pub verified: usize,
    /// Rejected.
    pub rejected: usize,
    /// Still escalated (waiting for review).
    pub pending: usize,
    /// verified / candidates.
    pub rate: f64,
    /// The auditors' agreement on this kind's candidates beyond chance
    /// (Fleiss' κ; Cohen's for two auditors); none when undefined.
    #[serde(default)]
    pub kappa: Option<f64>,
}

/// What the verified mental states assert (docs/graph-format.md): polarity,
/// explicitness, false beliefs, higher order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateMix {
    /// Verified mental states.
    pub states: usize,
    /// Held negated (`negated`: "doesn't know X").
    pub negated: usize,
    /// Stated in so many words (`explicit: true`).
    pub explicit: usize,
    /// Inferred by a reader (`explicit: false`).
    pub implicit: usize,
    /// Beliefs marked false.
    pub false_beliefs: usize,
    /// States about another state (higher-order ToM).
    pub higher_order: usize,
}

/// Construction statistics of one build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Per kind, nodes then edges, in schema order; kinds with no candidate left out.
    pub rows: Vec<KindRow>,
    /// All kinds together.
    pub total: KindRow,
    /// Auditor agreement.
    pub agreement: Agreement,
    /// Candidates the auditors split on.
    pub escalated: usize,
    /// Escalations decided by the adjudicator (accepted, rejected).
    pub adjudicated: (usize, usize),
    /// Escalations decided by a person (accepted, rejected).
    pub reviewed: (usize, usize),
    /// Merges per resolution tier.
    pub merges: BTreeMap<String, usize>,
    /// What the verified mental states assert.
    #[serde(default)]
    pub states: StateMix,
}

/// The auditors' votes on candidates, one row per candidate all of them judged.
fn vote_table(cs: &[&Candidate], judges: &[String]) -> Vec<Vec<bool>> {
    cs.iter()
        .filter_map(|c| {
            judges
                .iter()
                .map(|j| {
                    c.votes
                        .iter()
                        .find(|v| v.role == Role::Auditor && &v.judge == j)
                        .map(|v| v.accept)
                })
                .collect::<Option<Vec<bool>>>()
        })
        .collect()
}

fn row(kind: String, cs: &[&Candidate], judges: &[String]) -> KindRow {
    let count = |s: Status| cs.iter().filter(|c| c.status == s).count();
    let verified = count(Status::Accepted);
    let agreed = agreement(judges, &vote_table(cs, judges));
    let kappa = if judges.len() == 2 {
        agreed.pairs.first().and_then(|p| p.kappa)
    } else {
        agreed.fleiss
    };
    KindRow {
        kappa,
        kind,
        candidates: cs.len(),
        verified,
        rejected: count(Status::Rejected),
        pending: count(Status::Escalated),
        rate: if cs.is_empty() {
            0.0
        } else {
            verified as f64 / cs.len() as f64
        },
    }
}

/// Computes the statistics of a build's candidates and merges.
pub fn stats(candidates: &[Candidate], merges: &[Merge]) -> Stats {
    let mut by_kind: BTreeMap<String, Vec<&Candidate>> = BTreeMap::new();
    for c in candidates {
        by_kind.entry(c.item.kind_label()).or_default().push(c);
    }
    let order: Vec<String> = NodeKind::ALL
        .iter()
        .map(|k| format!("node:{}", k.as_str()))
        .chain(EdgeKind::ALL.iter().map(|k| format!("edge:{}", k.as_str())))
        .collect();
    let all: Vec<&Candidate> = candidates.iter().collect();
    let mut judges: Vec<String> = candidates
        .iter()
        .flat_map(|c| c.votes.iter())
        .filter(|v| v.role == Role::Auditor)
        .map(|v| v.judge.clone())
        .collect();
    judges.sort();
    judges.dedup();
    let rows = order
        .into_iter()
        .filter_map(|k| by_kind.get(&k).map(|cs| row(k.clone(), cs, &judges)))
        .collect();
    let table = vote_table(&all, &judges);
    let decided = |role: Role| {
        let mut acc = (0, 0);
        for c in candidates {
            if let Some(v) = c.votes.iter().rev().find(|v| v.role == role) {
                if v.accept {
                    acc.0 += 1;
                } else {
                    acc.1 += 1;
                }
            }
        }
        acc
    };
    let escalated = candidates
        .iter()
        .filter(|c| {
            let a: Vec<bool> = c
                .votes
                .iter()
                .filter(|v| v.role == Role::Auditor)
                .map(|v| v.accept)
                .collect();
            a.iter().any(|&x| x) && a.iter().any(|&x| !x)
        })
        .count();
    let mut tiers = BTreeMap::new();
    for m in merges {
        *tiers.entry(m.tier.clone()).or_insert(0) += 1;
    }
    Stats {
        rows,
        total: row("total".to_owned(), &all, &judges),
        agreement: agreement(&judges, &table),
        escalated,
        adjudicated: decided(Role::Adjudicator),
        reviewed: decided(Role::Human),
        merges: tiers,
        states: state_mix(candidates),
    }
}

fn state_mix(candidates: &[Candidate]) -> StateMix {
    let accepted = || candidates.iter().filter(|c| c.status == Status::Accepted);
    let states: Vec<&Node> = accepted()
        .filter_map(|c| match &c.item {
            Item::Node(n) if n.kind == NodeKind::MentalState => Some(n),
            _ => None,
        })
        .collect();
    let ids: std::collections::BTreeSet<&str> = states.iter().map(|n| n.id.as_str()).collect();
    let higher_order: std::collections::BTreeSet<&str> = accepted()
        .filter_map(|c| match &c.item {
            Item::Edge(e) if e.kind == EdgeKind::About && ids.contains(e.target.as_str()) => {
                Some(e.source.as_str())
            }
            _ => None,
        })
        .collect();
    StateMix {
        states: states.len(),
        negated: states.iter().filter(|n| n.negated).count(),
        explicit: states.iter().filter(|n| n.explicit == Some(true)).count(),
        implicit: states.iter().filter(|n| n.explicit == Some(false)).count(),
        false_beliefs: states.iter().filter(|n| n.truth == Some(false)).count(),
        higher_order: higher_order.len(),
    }
}

/// The table as text.
pub fn render(s: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:>10} {:>9} {:>9} {:>8} {:>7} {:>7}",
        "kind", "candidates", "verified", "rejected", "pending", "rate", "κ"
    );
    let k = |x: Option<f64>| x.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"));
    for r in s.rows.iter().chain(std::iter::once(&s.total)) {
        let _ = writeln!(
            out,
            "{:<24} {:>10} {:>9} {:>9} {:>8} {:>6.1}% {:>7}",
            r.kind,
            r.candidates,
            r.verified,
            r.rejected,
            r.pending,
            r.rate * 100.0,
            k(r.kappa)
        );
    }
    let m = &s.states;
    let _ = writeln!(
        out,
        "mental states verified {}: negated {}, explicit {}, implicit {}, unmarked {}; false beliefs {}; about another state (higher order) {}",
        m.states,
        m.negated,
        m.explicit,
        m.implicit,
        m.states - m.explicit - m.implicit,
        m.false_beliefs,
        m.higher_order
    );
    let a = &s.agreement;
    let _ = writeln!(
        out,
        "auditor agreement over {} candidates: raw {:.3}, Fleiss' κ {}",
        a.items,
        a.raw,
        k(a.fleiss)
    );
    for p in &a.pairs {
        let _ = writeln!(
            out,
            "  Cohen's κ {} / {}: {} (agreement {:.3})",
            p.a,
            p.b,
            k(p.kappa),
            p.agreement
        );
    }
    let _ = writeln!(
        out,
        "escalated {}: adjudicator accepted {}, rejected {}; review accepted {}, rejected {}; pending {}",
        s.escalated, s.adjudicated.0, s.adjudicated.1, s.reviewed.0, s.reviewed.1, s.total.pending
    );
    let merges: Vec<String> = s.merges.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let _ = writeln!(
        out,
        "merges: {}",
        if merges.is_empty() {
            "none".to_owned()
        } else {
            merges.join(", ")
        }
    );
    out
}
