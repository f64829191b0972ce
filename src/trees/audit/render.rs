//! The audit as text: a summary line and a table a researcher reads beside
//! the metrics.

use std::fmt::Write;

use super::Audit;

/// "passed" or "FAILED (n)", then the strongest shortcut per format.
pub(super) fn summary(a: &Audit) -> String {
    let verdict = if a.passed() {
        "passed".to_owned()
    } else {
        format!("FAILED ({} thresholds broken)", a.failures.len())
    };
    let strongest: Vec<String> = a
        .strongest
        .iter()
        .map(|s| {
            format!(
                "{}: {} {:.2} vs chance {:.2}",
                s.format, s.reader, s.accuracy, s.chance
            )
        })
        .collect();
    if strongest.is_empty() {
        format!("validity audit {verdict} (no choice questions)")
    } else {
        format!(
            "validity audit {verdict}; strongest shortcut {}",
            strongest.join("; ")
        )
    }
}

/// The full table.
pub(super) fn render(a: &Audit) -> String {
    let mut s = String::new();
    let q: Vec<String> = a
        .questions
        .iter()
        .map(|(f, n)| format!("{n} {f}"))
        .collect();
    let _ = writeln!(
        s,
        "validity audit: {} trees, {} questions ({}){}",
        a.trees,
        a.questions.values().sum::<usize>(),
        q.join(", "),
        if a.text_only { ", text-only" } else { "" }
    );
    let _ = writeln!(s, "{}\n", summary(a));
    if !a.readers.is_empty() {
        let _ = writeln!(
            s,
            "shortcut readers (a score is only worth its distance above the strongest of these)"
        );
        let _ = writeln!(
            s,
            "  {:<22} {:<8} {:<6} {:>4} {:>6} {:>15} {:>6} {:>7}",
            "reader", "sees", "format", "n", "acc", "95% CI", "chance", "excess"
        );
        for r in &a.readers {
            let flag = if r.excess > a.thresholds.max_excess + 1e-9 {
                "  <- above chance"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  {:<22} {:<8} {:<6} {:>4} {:>6.3} {:>15} {:>6.3} {:>+7.3}{flag}",
                r.reader,
                r.sees,
                r.format,
                r.questions,
                r.accuracy,
                format!("[{:.3}, {:.3}]", r.ci[0], r.ci[1]),
                r.chance,
                r.excess
            );
        }
        s.push('\n');
    }
    let b = &a.balance;
    let letters: Vec<String> = b
        .single_gold_letters
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    let counts: Vec<String> = b
        .multi_correct_counts
        .iter()
        .map(|(c, n)| format!("{c} correct: {n}"))
        .collect();
    let _ = writeln!(s, "balance");
    let _ = writeln!(s, "  single-choice gold letters: {}", or_none(&letters));
    let _ = writeln!(s, "  multiple-choice correct counts: {}", or_none(&counts));
    let _ = writeln!(
        s,
        "  mean option length: gold {:.0} chars, distractors {:.0} chars\n",
        b.gold_chars, b.distractor_chars
    );
    let r = &a.redundancy;
    let _ = writeln!(s, "redundancy");
    let _ = writeln!(
        s,
        "  {} questions, {} distinct question texts; {} duplicates, {} near-duplicates, {} follow-ups re-asking their parent",
        r.questions,
        r.distinct_texts,
        r.duplicates.len(),
        r.near_duplicates.len(),
        r.reasks.len()
    );
    let k = &a.asks;
    let share = |n: usize| 100.0 * n as f64 / k.questions.max(1) as f64;
    let _ = writeln!(
        s,
        "what the questions ask: {} of {} test a mental state or a cause ({:.0}%), {} are trivia (speaker, participants, line order: {:.0}%); the largest category is {:.0}% of them",
        k.minds_or_causes,
        k.questions,
        share(k.minds_or_causes),
        k.trivia,
        share(k.trivia),
        100.0 * k.largest_share
    );
    let mut cats: Vec<(&String, &usize)> = k.by_category.iter().collect();
    cats.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
    for (c, n) in cats {
        let _ = writeln!(s, "  {n:>4} {:>4.0}%  {c}", share(*n));
    }
    let types: Vec<String> = k.by_type.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let _ = writeln!(s, "  by type: {}", types.join(", "));
    if !k.by_kind.is_empty() {
        let mut kinds: Vec<(&String, &usize)> = k.by_kind.iter().collect();
        kinds.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let kinds: Vec<String> = kinds
            .iter()
            .map(|(t, n)| format!("{t} {n} ({:.0}%)", share(**n)))
            .collect();
        let _ = writeln!(
            s,
            "  by kind: {}; the largest kind is {:.0}% of the questions",
            kinds.join(", "),
            100.0 * k.largest_kind_share
        );
    }
    if let Some((opening, n)) = &k.top_opening {
        let _ = writeln!(
            s,
            "  most used opening: “{opening} …” in {n} questions ({:.0}%)",
            share(*n)
        );
    }
    if let Some(e) = a.ended.as_ref().filter(|e| e.states_with_end == 0) {
        let _ = writeln!(
            s,
            "ended states: not measured; the graph ({}) knows no state's end (0 of {} states)",
            e.source, e.states
        );
    } else if let Some(e) = &a.ended {
        let _ = writeln!(
            s,
            "ended states: {} of {} questions ({:.0}%) rest on a state the graph ends before the question's scene; {} ask about the change itself (graph: {}, {} of {} states with a known end)",
            e.on_ended.len(),
            e.placed.saturating_sub(e.about_the_change),
            100.0 * e.share(),
            e.about_the_change,
            e.source,
            e.states_with_end,
            e.states
        );
    }
    let _ = writeln!(s, "give-aways: {}", a.giveaways.len());
    match &a.coverage {
        Some(c) => {
            let _ = writeln!(
                s,
                "coverage: anchors in {} of {} scenes, spanning {:.0}% of the scenes{}; {} questions about blocks the film does not contain{}",
                c.anchor_scenes,
                c.scenes,
                c.scene_span * 100.0,
                c.time_span
                    .map(|t| format!(" and {:.0}% of the running time", t * 100.0))
                    .unwrap_or_default(),
                c.outside_film.len(),
                if a.text_only { " (text-only: allowed)" } else { "" }
            );
        }
        None => {
            let _ = writeln!(s, "coverage: not measured (no film layout given)");
        }
    }
    let findings: Vec<&super::Finding> = a
        .giveaways
        .iter()
        .chain(&r.duplicates)
        .chain(&r.near_duplicates)
        .chain(&r.reasks)
        .chain(a.coverage.iter().flat_map(|c| &c.outside_film))
        .chain(a.ended.iter().flat_map(|e| &e.on_ended))
        .collect();
    if !findings.is_empty() {
        let _ = writeln!(s, "\nflagged questions");
        for f in findings.iter().take(40) {
            let _ = writeln!(s, "  {} [{}] {}", f.at, f.kind, f.detail);
        }
        if findings.len() > 40 {
            let _ = writeln!(s, "  … and {} more (--json lists all)", findings.len() - 40);
        }
    }
    if !a.failures.is_empty() {
        let _ = writeln!(s, "\nthresholds broken");
        for f in &a.failures {
            let _ = writeln!(s, "  {f}");
        }
    }
    s
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
