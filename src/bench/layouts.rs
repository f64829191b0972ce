//! `bench parse --layouts N`: the plain-text reader on real-world layouts
//! rendered from scripts whose gold is known (Fountain and FDX), scored per
//! line tag (S N C D E T) as annotated real-script sets are.

use anyhow::Context;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use moviegraph::screenplay::layouts::{render, score, Layout, Tag, TagCounts};
use moviegraph::screenplay::{self, Format, Screenplay};

/// Layout seeds from here on were never looked at while the plain-text
/// reader's rules were written: its held-out measurement. (Seeds 1000 to
/// 1999 were the held-out ones until their layouts were read to find what
/// the reader got wrong; they are development layouts now.)
pub const HELD_OUT: u64 = 2000;

/// The scripts rendered: every `.fountain` and `.fdx` under `roots`
/// (recursively, sorted), skipping files that do not parse or tell no story.
pub fn sources(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for root in roots {
        collect(root, &mut found);
    }
    found.sort();
    found.dedup();
    found
}

/// The Fountain/FDX scripts under `roots` with 20 story elements or more,
/// each with its index among [`sources`] (render seeds mix it in).
pub fn renderable(roots: &[PathBuf]) -> Vec<(usize, PathBuf, Screenplay)> {
    let mut plays = Vec::new();
    for (k, path) in sources(roots).into_iter().enumerate() {
        let Ok(play) = screenplay::parse_file(&path, None) else {
            continue;
        };
        let story = play
            .elements
            .iter()
            .filter(|e| Tag::of(e.kind).is_some())
            .count();
        if story >= 20 {
            plays.push((k, path, play));
        }
    }
    plays
}

/// The per-tag table: gold and predicted lines, P, R and F1.
pub fn tag_table(counts: &TagCounts, out: &mut String) {
    let _ = writeln!(
        out,
        "{:<4} {:<14} {:>8} {:>9} {:>7} {:>7} {:>7}",
        "tag", "", "gold", "predicted", "P", "R", "F1"
    );
    for tag in Tag::ALL {
        let c = counts.get(&tag).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<4} {:<14} {:>8} {:>9} {:>7.1} {:>7.1} {:>7.1}",
            tag.letter(),
            format!("{tag:?}").to_lowercase(),
            c.gold,
            c.predicted,
            100.0 * c.precision(),
            100.0 * c.recall(),
            100.0 * c.f1()
        );
    }
}

fn collect(path: &Path, into: &mut Vec<PathBuf>) {
    if path.is_file() {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "fountain" | "fdx") {
            into.push(path.to_owned());
        }
        return;
    }
    let Ok(dir) = std::fs::read_dir(path) else {
        return;
    };
    for entry in dir.flatten() {
        collect(&entry.path(), into);
    }
}

/// Renders every source in `layouts` layouts (seeds `seed..seed + layouts`),
/// parses each as plain text and prints the per-tag line F1.
/// With `keep`, each rendered text is written there as
/// `<script>.<seed>.txt` beside `<script>.<seed>.tags` (a gold tag letter per
/// line, `-` for blank lines and page furniture).
pub fn bench_layouts(
    roots: &[PathBuf],
    layouts: usize,
    seed: u64,
    keep: Option<&Path>,
) -> anyhow::Result<String> {
    let started = Instant::now();
    let plays: Vec<(PathBuf, Screenplay)> = renderable(roots)
        .into_iter()
        .map(|(_, path, play)| (path, play))
        .collect();
    if plays.is_empty() {
        anyhow::bail!(
            "no Fountain or FDX script with 20 story elements or more under {}",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut total = TagCounts::new();
    let mut lines = 0usize;
    let mut bytes = 0usize;
    let mut worst: Vec<(f64, String)> = Vec::new();
    for (k, (path, play)) in plays.iter().enumerate() {
        for l in 0..layouts as u64 {
            let layout_seed = seed + l;
            let layout = Layout::draw(layout_seed);
            let rendered = render(play, &layout, layout_seed ^ (k as u64) << 32);
            let parsed = screenplay::parse_text(&rendered.text, Some(Format::Text), None)
                .with_context(|| {
                    format!(
                        "{} in layout {layout_seed} did not parse as plain text",
                        path.display()
                    )
                })?;
            if let Some(dir) = keep {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                let stem = format!(
                    "{k:02}-{}.{layout_seed}",
                    path.file_stem()
                        .and_then(|s| s.to_str())
                        .unwrap_or("script")
                );
                let tags: String = rendered
                    .tags
                    .iter()
                    .map(|t| format!("{}\n", t.map_or("-", |t| t.letter())))
                    .collect();
                for (ext, body) in [("txt", &rendered.text), ("tags", &tags)] {
                    let file = dir.join(format!("{stem}.{ext}"));
                    std::fs::write(&file, body)
                        .with_context(|| format!("writing {}", file.display()))?;
                }
            }
            let mut one = TagCounts::new();
            score(&rendered, &parsed, &mut one);
            let agreed: usize = one.values().map(|c| c.agreed).sum();
            let gold: usize = one.values().map(|c| c.gold).sum();
            worst.push((
                agreed as f64 / gold.max(1) as f64,
                format!("{} layout {layout_seed}", path.display()),
            ));
            for (tag, c) in one {
                let t = total.entry(tag).or_default();
                t.gold += c.gold;
                t.predicted += c.predicted;
                t.agreed += c.agreed;
            }
            lines += rendered.tags.len();
            bytes += rendered.text.len();
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "plain-text reader on rendered layouts: {} scripts × {layouts} layouts (seeds {seed}..{}), {lines} lines, {:.1} MB, in {:.1} s",
        plays.len(),
        seed + layouts as u64,
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let _ = if seed >= HELD_OUT {
        writeln!(
            out,
            "(held-out layouts: no layout from seed {HELD_OUT} on was read while the reader's rules were written)"
        )
    } else {
        writeln!(
            out,
            "(development layouts: seeds below {HELD_OUT} were read while the reader's rules were written; --seed {HELD_OUT} for held-out ones)"
        )
    };
    tag_table(&total, &mut out);
    worst.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let _ = writeln!(out, "hardest layouts (share of story lines tagged right):");
    for (share, what) in worst.iter().take(5) {
        let _ = writeln!(out, "  {:>5.1} %  {what}", 100.0 * share);
    }
    Ok(out)
}
