//! The construction table (DESIGN.md §2): candidates, verified and
//! verification rate per node and edge kind, auditor agreement, escalations.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::graph::agreement::{agreement, Agreement};
use crate::graph::schema::{Candidate, EdgeKind, Merge, NodeKind, Role, Status};

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
}

fn row(kind: String, cs: &[&Candidate]) -> KindRow {
    let count = |s: Status| cs.iter().filter(|c| c.status == s).count();
    let verified = count(Status::Accepted);
    KindRow {
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
    let rows = order
        .into_iter()
        .filter_map(|k| by_kind.get(&k).map(|cs| row(k.clone(), cs)))
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
    let table: Vec<Vec<bool>> = candidates
        .iter()
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
        .collect();
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
        total: row("total".to_owned(), &all),
        agreement: agreement(&judges, &table),
        escalated,
        adjudicated: decided(Role::Adjudicator),
        reviewed: decided(Role::Human),
        merges: tiers,
    }
}

/// The table as text.
pub fn render(s: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:>10} {:>9} {:>9} {:>8} {:>7}",
        "kind", "candidates", "verified", "rejected", "pending", "rate"
    );
    for r in s.rows.iter().chain(std::iter::once(&s.total)) {
        let _ = writeln!(
            out,
            "{:<24} {:>10} {:>9} {:>9} {:>8} {:>6.1}%",
            r.kind,
            r.candidates,
            r.verified,
            r.rejected,
            r.pending,
            r.rate * 100.0
        );
    }
    let a = &s.agreement;
    let k = |x: Option<f64>| x.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"));
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
