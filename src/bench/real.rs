//! `bench parse --real DIR`: the plain-text reader on real screenplays whose
//! lines people tagged (`DIR/scripts/<script>.txt` and `DIR/tags.csv` of
//! `script,line,tag`, as `../shared/realscripts-dev/` holds them): per-tag
//! precision, recall and F1 over the tagged lines, the confusion matrix,
//! the largest confusions and the hardest scripts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use moviegraph::screenplay::layouts::{line_tags, Tag, TagCount, TagCounts};
use moviegraph::screenplay::{self, Format};

/// The classes of the annotation: the six story tags, then `O` (page
/// furniture, blank and stray lines), which a reader gives by leaving a
/// line out of every element.
const CLASSES: [&str; 7] = ["S", "N", "C", "D", "E", "T", "O"];

/// A class's row in [`CLASSES`]: a story tag, or `None` for `O`.
fn class(tag: Option<Tag>) -> usize {
    tag.and_then(|t| Tag::ALL.iter().position(|&a| a == t))
        .unwrap_or(Tag::ALL.len())
}

/// One script with its tagged stretch.
#[derive(Debug)]
pub struct TaggedScript {
    /// The script's name in `tags.csv`.
    pub name: String,
    /// The script file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Gold class per tagged line (1-based line → tag, `None` for `O`).
    pub gold: BTreeMap<usize, Option<Tag>>,
}

/// A tag letter of the annotation: a story tag, `None` for `O`.
fn parse_letter(letter: &str) -> Option<Option<Tag>> {
    match letter {
        "O" => Some(None),
        l => Tag::ALL.iter().find(|t| t.letter() == l).map(|&t| Some(t)),
    }
}

/// Reads `dir/tags.csv` and every script it names from `dir/scripts/`.
pub fn read_tagged(dir: &Path) -> anyhow::Result<Vec<TaggedScript>> {
    let csv = dir.join("tags.csv");
    let text = std::fs::read_to_string(&csv)
        .with_context(|| format!("{}: cannot read the line tags", csv.display()))?;
    let mut by_script: BTreeMap<String, BTreeMap<usize, Option<Tag>>> = BTreeMap::new();
    for (i, row) in text.lines().enumerate() {
        let n = i + 1;
        let row = row.trim();
        if row.is_empty() || (n == 1 && row.starts_with("script,")) {
            continue;
        }
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        let [script, line, letter] = fields[..] else {
            bail!(
                "{}:{n}: expected `script,line,tag`, found {} field(s)",
                csv.display(),
                fields.len()
            );
        };
        let line: usize = match line.parse() {
            Ok(l) if l >= 1 => l,
            _ => bail!(
                "{}:{n}: line {line:?} is not a line number (1 or more)",
                csv.display()
            ),
        };
        let Some(tag) = parse_letter(letter) else {
            bail!(
                "{}:{n}: tag {letter:?} is none of {}",
                csv.display(),
                CLASSES.join(" ")
            );
        };
        if by_script
            .entry(script.to_owned())
            .or_default()
            .insert(line, tag)
            .is_some()
        {
            bail!(
                "{}:{n}: line {line} of {script} is tagged twice",
                csv.display()
            );
        }
    }
    if by_script.is_empty() {
        bail!("{}: no tagged line", csv.display());
    }
    let mut scripts = Vec::new();
    for (name, gold) in by_script {
        let path = dir.join("scripts").join(format!("{name}.txt"));
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!("{}: cannot read the script tags.csv names", path.display())
        })?;
        let lines = text.split('\n').count();
        if let Some((&last, _)) = gold.iter().next_back().filter(|(&l, _)| l > lines) {
            bail!(
                "{}: tags.csv tags line {last}, but the script has {lines} lines",
                path.display()
            );
        }
        scripts.push(TaggedScript {
            name,
            path,
            text,
            gold,
        });
    }
    Ok(scripts)
}

/// Per-line classes the plain-text reader gives `text` (its first `n`
/// lines). A blank line is never a story line, even inside an element the
/// reader joined across a page break: it reads as furniture (`O`).
pub fn reader_classes(text: &str, n: usize) -> anyhow::Result<Vec<Option<Tag>>> {
    let parsed = screenplay::parse_text(text, Some(Format::Text), None)
        .context("the plain-text reader refused the script")?;
    Ok(blank_lines_as_furniture(line_tags(&parsed, n), text))
}

/// `classes` with every blank line of `text` set to furniture (`None`): an
/// element joined across a page break spans the break's blank lines, but
/// they are no story line.
pub fn blank_lines_as_furniture(mut classes: Vec<Option<Tag>>, text: &str) -> Vec<Option<Tag>> {
    for (class, line) in classes.iter_mut().zip(text.split('\n')) {
        if line.trim().is_empty() {
            *class = None;
        }
    }
    classes
}

/// A 7 × 7 confusion matrix, gold rows by predicted columns, in [`CLASSES`] order.
pub type Confusion = [[usize; 7]; 7];

/// Adds one script's tagged lines to `matrix`; returns the script's own matrix.
pub fn confuse(
    gold: &BTreeMap<usize, Option<Tag>>,
    predicted: &[Option<Tag>],
    matrix: &mut Confusion,
) -> Confusion {
    let mut own = [[0; 7]; 7];
    for (&line, &g) in gold {
        let p = predicted.get(line - 1).copied().flatten();
        own[class(g)][class(p)] += 1;
        matrix[class(g)][class(p)] += 1;
    }
    own
}

/// Per-tag line counts of a confusion matrix (the six story tags).
pub fn counts(matrix: &Confusion) -> TagCounts {
    let mut out = TagCounts::new();
    for (k, &tag) in Tag::ALL.iter().enumerate() {
        out.insert(
            tag,
            TagCount {
                gold: matrix[k].iter().sum(),
                predicted: matrix.iter().map(|row| row[k]).sum(),
                agreed: matrix[k][k],
            },
        );
    }
    out
}

/// The per-tag table, the confusion matrix and the largest confusions.
pub fn render_matrix(matrix: &Confusion, out: &mut String) {
    super::layouts::tag_table(&counts(matrix), out);
    let _ = writeln!(out, "confusion (rows gold, columns read):");
    let _ = writeln!(out, "      {}", CLASSES.map(|c| format!("{c:>6}")).join(""));
    for (g, row) in matrix.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:<4}{}",
            CLASSES[g],
            row.map(|n| format!("{n:>6}")).join("")
        );
    }
    let mut cells: Vec<(usize, usize, usize)> = (0..7)
        .flat_map(|g| (0..7).map(move |p| (g, p)))
        .filter(|(g, p)| g != p)
        .map(|(g, p)| (matrix[g][p], g, p))
        .filter(|(n, _, _)| *n > 0)
        .collect();
    cells.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let _ = writeln!(out, "largest confusions (gold read as):");
    for (n, g, p) in cells.iter().take(8) {
        let _ = writeln!(out, "  {:>5}  {} as {}", n, CLASSES[*g], CLASSES[*p]);
    }
}

/// Share of a matrix's story lines (gold not `O`) read right.
pub fn story_accuracy(matrix: &Confusion) -> f64 {
    let gold: usize = matrix[..6].iter().flatten().sum();
    let right: usize = (0..6).map(|k| matrix[k][k]).sum();
    right as f64 / gold.max(1) as f64
}

/// `bench parse --real DIR`: the reader on every tagged script of `dir`.
pub fn bench_real(dir: &Path) -> anyhow::Result<String> {
    let scripts = read_tagged(dir)?;
    let started = Instant::now();
    let mut matrix: Confusion = [[0; 7]; 7];
    let mut per_script = Vec::new();
    let mut bytes = 0usize;
    for s in &scripts {
        let n = s.text.split('\n').count();
        let predicted =
            reader_classes(&s.text, n).with_context(|| format!("{}", s.path.display()))?;
        let own = confuse(&s.gold, &predicted, &mut matrix);
        per_script.push((story_accuracy(&own), s.name.clone(), own));
        bytes += s.text.len();
    }
    let elapsed = started.elapsed();
    let tagged: usize = scripts.iter().map(|s| s.gold.len()).sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "plain-text reader on real scripts ({}): {} scripts, {tagged} tagged lines, {:.1} MB read in {:.2} s",
        dir.display(),
        scripts.len(),
        bytes as f64 / 1e6,
        elapsed.as_secs_f64()
    );
    render_matrix(&matrix, &mut out);
    per_script.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let _ = writeln!(
        out,
        "hardest scripts (share of tagged story lines read right; worst confusion):"
    );
    for (share, name, own) in per_script.iter().take(6) {
        let worst = (0..7)
            .flat_map(|g| (0..7).map(move |p| (g, p)))
            .filter(|(g, p)| g != p)
            .max_by_key(|&(g, p)| (own[g][p], std::cmp::Reverse((g, p))))
            .filter(|&(g, p)| own[g][p] > 0)
            .map(|(g, p)| format!("{} {} as {}", own[g][p], CLASSES[g], CLASSES[p]))
            .unwrap_or_default();
        let _ = writeln!(out, "  {:>5.1} %  {name}  {worst}", 100.0 * share);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tags: &str, scripts: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("scripts")).unwrap();
        std::fs::write(dir.path().join("tags.csv"), tags).unwrap();
        for (name, text) in scripts {
            std::fs::write(dir.path().join("scripts").join(format!("{name}.txt")), text).unwrap();
        }
        dir
    }

    #[test]
    fn a_bad_row_of_tags_csv_is_named_by_line() {
        let dir = folder("script,line,tag\na,1,S\na,x,N\n", &[("a", "X\n")]);
        let err = format!("{:#}", read_tagged(dir.path()).unwrap_err());
        assert!(err.contains("tags.csv:3: line \"x\""), "{err}");
        let dir = folder("script,line,tag\na,1,Q\n", &[("a", "X\n")]);
        let err = format!("{:#}", read_tagged(dir.path()).unwrap_err());
        assert!(err.contains("tags.csv:2: tag \"Q\""), "{err}");
        let dir = folder("script,line,tag\na,9,S\n", &[("a", "X\n")]);
        let err = format!("{:#}", read_tagged(dir.path()).unwrap_err());
        assert!(
            err.contains("tags line 9, but the script has 2 lines"),
            "{err}"
        );
    }

    #[test]
    fn the_matrix_counts_each_tagged_line_once_and_scores_from_it() {
        let mut gold = BTreeMap::new();
        gold.insert(1, Some(Tag::Character));
        gold.insert(2, Some(Tag::Dialogue));
        gold.insert(3, None);
        gold.insert(4, Some(Tag::Action));
        let predicted = vec![
            Some(Tag::Character),
            Some(Tag::Action),
            None,
            Some(Tag::Action),
            Some(Tag::Heading),
        ];
        let mut matrix = [[0; 7]; 7];
        confuse(&gold, &predicted, &mut matrix);
        assert_eq!(matrix[2][2], 1);
        assert_eq!(matrix[3][1], 1);
        assert_eq!(matrix[6][6], 1);
        assert_eq!(matrix[1][1], 1);
        let c = counts(&matrix);
        let action = c[&Tag::Action];
        assert_eq!((action.gold, action.predicted, action.agreed), (1, 2, 1));
        assert!((story_accuracy(&matrix) - 2.0 / 3.0).abs() < 1e-12);
    }
}
