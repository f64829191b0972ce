//! `moviegraph bench graph --gold FILM…`: the offline generator on annotated
//! films, rule family by rule family, and the figure to develop against:
//! leave-one-film-out (each film scored with gates fitted without it).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use moviegraph::graph::generate::gates::{Gates, Measure, MIN_KEPT, MIN_PRECISION};
use moviegraph::graph::score::{ErrorKind, GraphScore, Prf};
use moviegraph::store::Store;
use moviegraph::workspace::gates::{
    auditor_value, fit_gates, measure_film, score_gated, AuditorValue, GatedScore, MeasuredFilm,
};
use serde_json::json;

use super::emit;

/// Figures summed over films.
#[derive(Debug, Default, Clone)]
struct Totals {
    states: Prf,
    explicit: Prf,
    implicit: Prf,
    causal: Prf,
    errors: BTreeMap<ErrorKind, usize>,
    ends_gold: usize,
    ends_recalled: usize,
    ends_right: usize,
    false_gold: usize,
    false_recalled: usize,
    false_right: usize,
}

fn add(a: &mut Prf, b: &Prf) {
    a.matched_graph += b.matched_graph;
    a.graph += b.graph;
    a.matched_gold += b.matched_gold;
    a.gold += b.gold;
}

impl Totals {
    fn of(s: &GraphScore) -> Totals {
        let mut t = Totals::default();
        t.add(s);
        t
    }

    fn add(&mut self, s: &GraphScore) {
        add(&mut self.states, &s.states);
        add(&mut self.explicit, &s.explicit);
        add(&mut self.implicit, &s.implicit);
        add(&mut self.causal, &s.causal);
        for (k, n) in &s.errors {
            *self.errors.entry(*k).or_default() += n;
        }
        self.ends_gold += s.ends.gold;
        self.ends_recalled += s.ends.recalled;
        self.ends_right += s.ends.right_end;
        self.false_gold += s.false_beliefs.gold;
        self.false_recalled += s.false_beliefs.recalled;
        self.false_right += s.false_beliefs.right_end;
    }

    fn error(&self, k: ErrorKind) -> usize {
        self.errors.get(&k).copied().unwrap_or(0)
    }

    fn row(&self, name: &str) -> String {
        let s = &self.states;
        let holder = self.error(ErrorKind::Holder);
        let holder_share = if s.graph == 0 {
            0.0
        } else {
            holder as f64 / s.graph as f64
        };
        format!(
            "  {name:<24} {:>3}/{:<3} {:>5.2}   {:>3}/{:<3} {:>5.2}   {:>2}/{:<3} {:>5.2}   {:>3}   {:>3} {:>5.1}%   {:>2}/{:<3}   {:>2}/{:<3}   {:>2}/{:<2}",
            s.matched_graph,
            s.graph,
            s.precision(),
            self.explicit.matched_gold,
            self.explicit.gold,
            self.explicit.recall(),
            self.implicit.matched_gold,
            self.implicit.gold,
            self.implicit.recall(),
            self.error(ErrorKind::Polarity),
            holder,
            100.0 * holder_share,
            self.ends_right,
            self.ends_gold,
            self.false_right,
            self.false_gold,
            self.causal.matched_graph,
            self.causal.graph,
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "states": self.states,
            "precision": self.states.precision(),
            "explicit_recall": self.explicit.recall(),
            "explicit": self.explicit,
            "implicit": self.implicit,
            "causal": self.causal,
            "errors": self.errors.iter().map(|(k, n)| (format!("{k:?}").to_lowercase(), n)).collect::<BTreeMap<_, _>>(),
            "ends": {"gold": self.ends_gold, "recalled": self.ends_recalled, "right_end": self.ends_right},
            "false_beliefs": {"gold": self.false_gold, "recalled": self.false_recalled, "marked_false": self.false_right},
        })
    }
}

const HEADER: &str = "  film                      states prec.   explicit rec.   implicit rec.  pol. holder (%)   ends right/gold  false bel.  causal";

/// A table of per-film rows and the pooled row.
fn table(out: &mut String, rows: &[(String, GraphScore)]) -> Totals {
    let _ = writeln!(out, "{HEADER}");
    let mut pooled = Totals::default();
    for (name, s) in rows {
        let _ = writeln!(out, "{}", Totals::of(s).row(name));
        pooled.add(s);
    }
    let _ = writeln!(out, "{}", pooled.row("pooled"));
    for (name, s) in rows {
        let _ = writeln!(out, "    {name}: errors {}", s.error_summary());
    }
    pooled
}

/// One family's row: pooled right/kept, precision, gate, and right/kept in
/// each film (`-` where the film has none of it), so that a family one film
/// carries alone shows as such.
fn measure_row(
    out: &mut String,
    family: &str,
    m: &Measure,
    on: bool,
    per_film: &[Option<Measure>],
) {
    let films: Vec<String> = per_film
        .iter()
        .map(|f| {
            f.map_or("  -  ".to_owned(), |f| {
                format!("{:>2}/{:<2}", f.right, f.kept)
            })
        })
        .collect();
    let _ = writeln!(
        out,
        "  {:>3}/{:<3} {:>5.2}  {:<3}  {}  {family}",
        m.right,
        m.kept,
        m.precision(),
        if on { "on" } else { "off" },
        films.join(" "),
    );
}

/// One line per state or link of `film` that `score` counts wrong: its
/// error, the nearest gold state, the families that proposed it, its content.
fn miss_lines(film: &MeasuredFilm, score: &GraphScore) -> Vec<String> {
    score
        .misses
        .iter()
        .map(|m| {
            let families = film.families.get(&m.graph).map_or(String::new(), |fs| {
                fs.iter().cloned().collect::<Vec<_>>().join(", ")
            });
            let kind = format!("{:?}", m.kind).to_lowercase();
            let near = m
                .gold
                .as_deref()
                .map_or(String::new(), |g| format!(" (gold {g})"));
            format!("  {}: {kind}{near} [{families}] {}", film.slug, m.text)
        })
        .collect()
}

/// One line per state of `film` that `score` matched: the families that
/// proposed it, what it says, and the gold state it matched.
fn right_lines(film: &MeasuredFilm, score: &GraphScore) -> Vec<String> {
    score
        .matched_states
        .iter()
        .map(|(graph, gold)| {
            let families = film.families.get(graph).map_or(String::new(), |fs| {
                fs.iter().cloned().collect::<Vec<_>>().join(", ")
            });
            let said = film.graph.node(graph).map_or(String::new(), |n| {
                format!(
                    "{} {}{}: {}",
                    n.holder.as_deref().unwrap_or("?"),
                    if n.negated { "not " } else { "" },
                    n.attitude.map_or("?", |a| a.as_str()),
                    n.content.as_deref().unwrap_or(&n.name)
                )
            });
            format!("  {}: [{families}] {said} = {gold}", film.slug)
        })
        .collect()
}

/// One line per explicit gold state of `film` that no graph state matched,
/// with its evidence: what the generator would have to read.
fn missed_gold_lines(film: &MeasuredFilm, score: &GraphScore) -> Vec<String> {
    let missed: std::collections::BTreeSet<&str> =
        score.missed_gold.iter().map(String::as_str).collect();
    film.gold
        .mental_states
        .iter()
        .filter(|g| g.explicit && missed.contains(g.id.as_str()))
        .map(|g| {
            format!(
                "  {}: {} s{} {} {}{}{}: {} ← {}",
                film.slug,
                g.id,
                g.scene,
                g.holder,
                if g.negated { "not " } else { "" },
                g.attitude.as_str(),
                match g.truth {
                    Some(false) => " (false)",
                    _ => "",
                },
                g.content,
                g.evidence
            )
        })
        .collect()
}

/// Runs the gold mode of `bench graph`.
pub(super) fn bench_gold(
    films: &[PathBuf],
    write_gates: Option<&Path>,
    json_out: bool,
    show_misses: bool,
) -> anyhow::Result<()> {
    let db = std::env::temp_dir().join(format!(
        "moviegraph-bench-graph-gold-{}.db",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&db);
    let result = run_gold(&db, films, write_gates, json_out, show_misses);
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
    }
    result
}

fn run_gold(
    db: &Path,
    films: &[PathBuf],
    write_gates: Option<&Path>,
    json_out: bool,
    show_misses: bool,
) -> anyhow::Result<()> {
    let store = Store::open(db)?;
    let mut measured: Vec<MeasuredFilm> = Vec::new();
    for f in films {
        eprintln!("building {} with every rule family on…", f.display());
        measured.push(measure_film(&store, f).with_context(|| format!("film {}", f.display()))?);
    }
    let slugs: Vec<String> = measured.iter().map(|m| m.slug.clone()).collect();
    if slugs.len() < 2 {
        anyhow::bail!(
            "leave-one-film-out needs at least two films; give --gold two film folders or more"
        );
    }
    let all: Vec<GatedScore> = measured
        .iter()
        .map(|m| score_gated(m, &|_| true))
        .collect::<Result<_, _>>()?;
    let command = format!(
        "moviegraph bench graph --gold {}",
        films
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let gates = fit_gates(&all.iter().collect::<Vec<_>>(), slugs.clone(), command);

    // Leave one film out: gates from the others, scored on it.
    let mut lofo: Vec<(String, GraphScore)> = Vec::new();
    let mut lofo_on: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut lofo_misses: Vec<String> = Vec::new();
    for (i, film) in measured.iter().enumerate() {
        let others: Vec<&GatedScore> = all
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, s)| s)
            .collect();
        let g = fit_gates(&others, Vec::new(), String::new());
        let s = score_gated(film, &|f| g.is_on(f))?;
        lofo_on.insert(
            film.slug.clone(),
            g.on().iter().map(|s| s.to_string()).collect(),
        );
        lofo_misses.extend(miss_lines(film, &s.score));
        lofo.push((film.slug.clone(), s.score));
    }
    let fitted: Vec<(String, GraphScore)> = measured
        .iter()
        .map(|m| Ok((m.slug.clone(), score_gated(m, &|f| gates.is_on(f))?.score)))
        .collect::<anyhow::Result<_>>()?;
    let ungated: Vec<(String, GraphScore)> = slugs
        .iter()
        .cloned()
        .zip(all.iter().map(|s| s.score.clone()))
        .collect();
    let auditors: Vec<AuditorValue> = measured
        .iter()
        .map(auditor_value)
        .collect::<Result<_, _>>()?;

    let mut out = String::new();
    let _ = writeln!(
        out,
        "bench graph --gold: the offline `rules` generator (a lexical baseline) on {} annotated films; content matched lexically (Dice ≥ 0.25), scene ±1",
        slugs.len()
    );
    let _ = writeln!(
        out,
        "(ends: gold states that end, recalled with the right last scene ±1; false bel.: gold false beliefs the graph marks false — a belief whose truth the graph leaves unsaid matches a gold one either way, and is not counted here)"
    );
    let _ = writeln!(
        out,
        "\nrule families, every family on, pooled (on: precision ≥ {MIN_PRECISION} over ≥ {MIN_KEPT} kept):\n  right/kept prec.  gate family"
    );
    let mut rows: Vec<(&String, &Measure)> = gates.families.iter().collect();
    rows.sort_by(|a, b| b.1.kept.cmp(&a.1.kept).then(a.0.cmp(b.0)));
    let _ = writeln!(
        out,
        "  (then right/kept in each film: {})",
        slugs.join(", ")
    );
    for (f, m) in rows {
        let per_film: Vec<Option<Measure>> =
            all.iter().map(|s| s.families.get(f).copied()).collect();
        measure_row(&mut out, f, m, gates.is_on(f), &per_film);
    }
    let _ = writeln!(
        out,
        "\nleave-one-film-out (`rules-gated`, each film scored with gates fitted on the others): the figure to develop against"
    );
    let lofo_total = table(&mut out, &lofo);
    for (slug, on) in &lofo_on {
        let _ = writeln!(out, "    without {slug}: {} families on", on.len());
    }
    if show_misses {
        let _ = writeln!(
            out,
            "  what the held-out films got wrong (error, nearest gold state, [families], content):"
        );
        for m in &lofo_misses {
            let _ = writeln!(out, "  {m}");
        }
    }
    let _ = writeln!(
        out,
        "\ngates fitted on all {} films (`--generator rules-gated`; what scripts/regenerate-gates writes; a fit, not a held-out figure); src/graph/generate/gates.json {}",
        slugs.len(),
        if Gates::measured().families == gates.families {
            "holds these gates"
        } else {
            "is stale: run scripts/regenerate-gates"
        }
    );
    let fitted_total = table(&mut out, &fitted);
    let _ = writeln!(out, "\nevery family on (the default `rules` generator)");
    let ungated_total = table(&mut out, &ungated);
    if show_misses {
        let _ = writeln!(
            out,
            "  what every family on got wrong (error, nearest gold state, [families], content):"
        );
        for (film, s) in measured.iter().zip(&all) {
            for m in miss_lines(film, &s.score) {
                let _ = writeln!(out, "  {m}");
            }
        }
        let _ = writeln!(
            out,
            "  what every family on got right ([families], holder, attitude, content = gold state):"
        );
        for (film, s) in measured.iter().zip(&all) {
            for m in right_lines(film, &s.score) {
                let _ = writeln!(out, "  {m}");
            }
        }
        let _ = writeln!(
            out,
            "  the explicit gold states every family on missed (gold id, scene, holder, attitude: content ← evidence):"
        );
        for (film, s) in measured.iter().zip(&all) {
            for m in missed_gold_lines(film, &s.score) {
                let _ = writeln!(out, "  {m}");
            }
        }
    }
    let mut acc = AuditorValue::default();
    for a in &auditors {
        acc.accepted.kept += a.accepted.kept;
        acc.accepted.right += a.accepted.right;
        acc.rejected.kept += a.rejected.kept;
        acc.rejected.right += a.rejected.right;
    }
    let _ = writeln!(
        out,
        "\nauditors (every family on, pooled): accepted {}/{} = {:.2} precise, rejected {}/{} = {:.2}; difference {:+.2}",
        acc.accepted.right,
        acc.accepted.kept,
        acc.accepted.precision(),
        acc.rejected.right,
        acc.rejected.kept,
        acc.rejected.precision(),
        acc.accepted.precision() - acc.rejected.precision()
    );
    for (slug, a) in slugs.iter().zip(&auditors) {
        let _ = writeln!(
            out,
            "  {slug}: accepted {}/{} = {:.2}, rejected {}/{} = {:.2}",
            a.accepted.right,
            a.accepted.kept,
            a.accepted.precision(),
            a.rejected.right,
            a.rejected.kept,
            a.rejected.precision()
        );
    }
    if let Some(path) = write_gates {
        write_gates_file(path, &gates)?;
        let _ = writeln!(
            out,
            "\nwrote {} ({} of {} families on)",
            path.display(),
            gates.on().len(),
            gates.families.len()
        );
    }
    if json_out {
        let v = json!({
            "films": slugs,
            "gates_file_current": Gates::measured().families == gates.families,
            "families": gates.families.iter().map(|(f, m)| (f.clone(), json!({"kept": m.kept, "right": m.right, "precision": m.precision(), "on": gates.is_on(f)}))).collect::<BTreeMap<_, _>>(),
            "leave_one_film_out": {
                "pooled": lofo_total.json(),
                "films": lofo.iter().map(|(n, s)| (n.clone(), Totals::of(s).json())).collect::<BTreeMap<_, _>>(),
                "families_on": lofo_on,
            },
            "fitted": {"pooled": fitted_total.json(), "films": fitted.iter().map(|(n, s)| (n.clone(), Totals::of(s).json())).collect::<BTreeMap<_, _>>()},
            "every_family": {"pooled": ungated_total.json(), "films": ungated.iter().map(|(n, s)| (n.clone(), Totals::of(s).json())).collect::<BTreeMap<_, _>>()},
            "auditors": {
                "accepted": {"kept": acc.accepted.kept, "right": acc.accepted.right, "precision": acc.accepted.precision()},
                "rejected": {"kept": acc.rejected.kept, "right": acc.rejected.right, "precision": acc.rejected.precision()},
            },
        });
        emit(&(serde_json::to_string_pretty(&v)? + "\n"))
    } else {
        emit(&out)
    }
}

/// Writes the gates as the generator reads them (pretty JSON, families
/// sorted, ending in a newline), replacing the file only once it is whole.
fn write_gates_file(path: &Path, gates: &Gates) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(gates)? + "\n";
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
