//! Agreement: raw agreement, Cohen's κ per pair and Fleiss' κ overall over the
//! auditors' binary verdicts (one row per candidate every auditor judged, one
//! column per auditor); and, for people whose decisions have more than two
//! values and who do not all judge every unit, Cohen's κ over nominal values
//! ([`cohen_nominal`]) and Krippendorff's α for nominal data ([`krippendorff_nominal`]).

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

/// Cohen's κ of two coders over nominal values, from the units both coded
/// (`(a, b)` per unit); `None` when there is no unit or chance agreement is 1.
pub fn cohen_nominal<T: Ord>(pairs: &[(T, T)]) -> Option<f64> {
    use std::collections::BTreeMap;
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut left: BTreeMap<&T, f64> = BTreeMap::new();
    let mut right: BTreeMap<&T, f64> = BTreeMap::new();
    let mut agree = 0.0;
    for (a, b) in pairs {
        *left.entry(a).or_default() += 1.0;
        *right.entry(b).or_default() += 1.0;
        agree += f64::from(u8::from(a == b));
    }
    let po = agree / n;
    let pe: f64 = left
        .iter()
        .map(|(v, l)| l / n * right.get(v).copied().unwrap_or(0.0) / n)
        .sum();
    (pe < 1.0).then(|| (po - pe) / (1.0 - pe))
}

/// Krippendorff's α for nominal data. `units` holds, per unit, the values the
/// coders gave it (coders who did not code it are simply absent); units
/// with fewer than two values carry no information and are skipped. `None`
/// when fewer than two values are pairable or every pairable value is the
/// same (α is undefined).
pub fn krippendorff_nominal<T: Ord>(units: &[Vec<T>]) -> Option<f64> {
    use std::collections::BTreeMap;
    // The coincidence matrix, o[c][k], and its margins n_c.
    let mut o: BTreeMap<(&T, &T), f64> = BTreeMap::new();
    let mut margins: BTreeMap<&T, f64> = BTreeMap::new();
    for values in units.iter().filter(|u| u.len() >= 2) {
        let weight = 1.0 / (values.len() - 1) as f64;
        for (i, c) in values.iter().enumerate() {
            for (j, k) in values.iter().enumerate() {
                if i != j {
                    *o.entry((c, k)).or_default() += weight;
                    *margins.entry(c).or_default() += weight;
                }
            }
        }
    }
    let n: f64 = margins.values().sum();
    if n < 2.0 {
        return None;
    }
    let observed: f64 = o.iter().filter(|((c, k), _)| c != k).map(|(_, v)| v).sum();
    let expected: f64 = margins
        .iter()
        .flat_map(|(c, nc)| {
            margins
                .iter()
                .filter(move |(k, _)| k != &c)
                .map(move |(_, nk)| nc * nk)
        })
        .sum();
    (expected > 0.0).then(|| 1.0 - (n - 1.0) * observed / expected)
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

    #[test]
    fn krippendorffs_published_example_gives_nominal_alpha_0_743() {
        // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":
        // 4 coders × 12 units with missing values; nominal α = 0.743.
        let coders: [[u8; 12]; 4] = [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ];
        let units: Vec<Vec<u8>> = (0..12)
            .map(|u| coders.iter().map(|c| c[u]).filter(|&v| v != 0).collect())
            .collect();
        let alpha = krippendorff_nominal(&units).unwrap();
        assert!((alpha - 0.743).abs() < 0.0005, "{alpha}");
    }

    #[test]
    fn alpha_is_one_on_agreement_and_undefined_on_one_value() {
        let units = vec![vec!["a", "a"], vec!["b", "b", "b"], vec!["a"]];
        close(krippendorff_nominal(&units).unwrap(), 1.0);
        assert_eq!(
            krippendorff_nominal(&[vec!["a", "a"], vec!["a", "a"]]),
            None
        );
        assert_eq!(krippendorff_nominal::<&str>(&[vec!["a"]]), None);
    }

    #[test]
    fn nominal_cohen_by_hand_and_equal_to_the_binary_one_on_two_values() {
        // accept/reject/correct: agree on 3 of 5.
        let pairs = [
            ("accept", "accept"),
            ("accept", "reject"),
            ("reject", "reject"),
            ("correct", "accept"),
            ("correct", "correct"),
        ];
        // po = .6; left: a .4, r .2, c .4; right: a .4, r .4, c .2;
        // pe = .16 + .08 + .08 = .32; κ = .28 / .68.
        close(cohen_nominal(&pairs).unwrap(), 0.28 / 0.68);
        let binary: Vec<(bool, bool)> = (0..10).map(|i| (i <= 6, i <= 4 || i == 7)).collect();
        close(cohen_nominal(&binary).unwrap(), 0.16 / 0.46);
        assert_eq!(cohen_nominal::<bool>(&[]), None);
    }
}
