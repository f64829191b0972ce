//! Auditor agreement: raw agreement, Cohen's κ per pair, Fleiss' κ overall.
//!
//! Input is a table of binary verdicts (accept = true), one row per candidate
//! that every auditor judged, one column per auditor.

use serde::{Deserialize, Serialize};

/// Cohen's κ of one pair of auditors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairKappa {
    /// First auditor.
    pub a: String,
    /// Second auditor.
    pub b: String,
    /// Share of items they agree on.
    pub agreement: f64,
    /// Cohen's κ; `None` when chance agreement is 1 (both always say the same thing).
    pub kappa: Option<f64>,
}

/// Agreement figures over all auditors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Items judged by every auditor.
    pub items: usize,
    /// Share of items on which all auditors agree.
    pub raw: f64,
    /// Per pair.
    pub pairs: Vec<PairKappa>,
    /// Fleiss' κ over all auditors; `None` when undefined.
    pub fleiss: Option<f64>,
}

/// Computes agreement for `judges` over `rows` (each row one vote per judge).
pub fn agreement(judges: &[String], rows: &[Vec<bool>]) -> Agreement {
    let n = rows.len();
    let raters = judges.len();
    let raw = if n == 0 {
        0.0
    } else {
        rows.iter().filter(|r| r.iter().all(|&v| v == r[0])).count() as f64 / n as f64
    };
    let mut pairs = Vec::new();
    for i in 0..raters {
        for j in i + 1..raters {
            pairs.push(cohen(
                &judges[i],
                &judges[j],
                rows.iter().map(|r| (r[i], r[j])),
            ));
        }
    }
    Agreement {
        items: n,
        raw,
        pairs,
        fleiss: fleiss(rows, raters),
    }
}

fn cohen(a: &str, b: &str, pairs: impl Iterator<Item = (bool, bool)>) -> PairKappa {
    let (mut n, mut agree, mut a1, mut b1) = (0f64, 0f64, 0f64, 0f64);
    for (x, y) in pairs {
        n += 1.0;
        agree += f64::from(u8::from(x == y));
        a1 += f64::from(u8::from(x));
        b1 += f64::from(u8::from(y));
    }
    let (po, kappa) = if n == 0.0 {
        (0.0, None)
    } else {
        let po = agree / n;
        let (pa, pb) = (a1 / n, b1 / n);
        let pe = pa * pb + (1.0 - pa) * (1.0 - pb);
        (po, (pe < 1.0).then(|| (po - pe) / (1.0 - pe)))
    };
    PairKappa {
        a: a.to_owned(),
        b: b.to_owned(),
        agreement: po,
        kappa,
    }
}

fn fleiss(rows: &[Vec<bool>], raters: usize) -> Option<f64> {
    if rows.is_empty() || raters < 2 {
        return None;
    }
    let n = raters as f64;
    let items = rows.len() as f64;
    let mut accept_total = 0.0;
    let mut p_bar = 0.0;
    for r in rows {
        let yes = r.iter().filter(|&&v| v).count() as f64;
        let no = n - yes;
        accept_total += yes;
        p_bar += (yes * yes + no * no - n) / (n * (n - 1.0));
    }
    p_bar /= items;
    let p_yes = accept_total / (items * n);
    let pe = p_yes * p_yes + (1.0 - p_yes) * (1.0 - p_yes);
    (pe < 1.0).then(|| (p_bar - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn two_auditors_match_hand_computed_values() {
        // A accepts items 0-6, B accepts 0-4 and 7: they agree on 0-4, 8, 9.
        let rows: Vec<Vec<bool>> = (0..10).map(|i| vec![i <= 6, i <= 4 || i == 7]).collect();
        let g = agreement(&["A".into(), "B".into()], &rows);
        close(g.raw, 0.7);
        // po = .7; pe = .7*.6 + .3*.4 = .54; κ = .16/.46.
        close(g.pairs[0].kappa.unwrap(), 0.16 / 0.46);
        // Fleiss: p_yes = 13/20; Pe = .65² + .35² = .545; P̄ = .7; κ = .155/.455.
        close(g.fleiss.unwrap(), 0.155 / 0.455);
    }

    #[test]
    fn three_auditors_fleiss_by_hand() {
        // Rows (yes counts): 3,3,2,1,0 of 3 raters.
        let rows = vec![
            vec![true, true, true],
            vec![true, true, true],
            vec![true, true, false],
            vec![true, false, false],
            vec![false, false, false],
        ];
        let g = agreement(&["a".into(), "b".into(), "c".into()], &rows);
        close(g.raw, 3.0 / 5.0);
        // P_i = 1,1,1/3,1/3,1 → P̄ = 11/15; p_yes = 9/15 = .6; Pe = .52.
        close(g.fleiss.unwrap(), (11.0 / 15.0 - 0.52) / 0.48);
        assert_eq!(g.pairs.len(), 3);
        // a,b agree on rows 0,1,2,4: 4/5; pa = .8, pb = .6 → pe = .56.
        close(g.pairs[0].agreement, 0.8);
        close(g.pairs[0].kappa.unwrap(), (0.8 - 0.56) / 0.44);
    }

    #[test]
    fn perfect_agreement_on_one_class_has_no_kappa() {
        let rows = vec![vec![true, true]; 4];
        let g = agreement(&["a".into(), "b".into()], &rows);
        close(g.raw, 1.0);
        assert_eq!(g.pairs[0].kappa, None);
        assert_eq!(g.fleiss, None);
    }
}
