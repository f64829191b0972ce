//! Use cases over tree files: `trees validate`, `stats`, `import` and
//! `export` — each reads the files, checks or converts them, and returns
//! what the command prints.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::trees::import;
use crate::trees::jsonl::{read_tree_file, read_trees, save_trees_with, TreeFile};
use crate::trees::provenance::{BenchmarkImport, Provenance};
use crate::trees::schema::Tree;
use crate::trees::stats::{render, stats};
use crate::trees::validate::{is_valid, validate};

use super::{bail, Context, Result};

/// Every tree of `files`, in order.
pub fn read_all(files: &[PathBuf]) -> Result<Vec<Tree>> {
    let mut all = Vec::new();
    for f in files {
        all.extend(read_trees(f)?);
    }
    Ok(all)
}

/// Writes each problem of `trees` (read from `file`) to `out`; returns how
/// many trees are invalid.
fn check(file: &Path, trees: &[Tree], out: &mut String) -> usize {
    let mut bad = 0;
    for tree in trees {
        let problems = validate(tree);
        for p in &problems {
            let _ = writeln!(out, "{}: {p}", file.display());
        }
        if !is_valid(&problems) {
            bad += 1;
        }
    }
    bad
}

/// Checks every tree of `files`: the problems and a count line, and whether
/// every tree is valid.
pub fn validate_files(files: &[PathBuf]) -> Result<(String, bool)> {
    let mut out = String::new();
    let (mut total, mut bad) = (0, 0);
    for f in files {
        let trees = read_trees(f)?;
        total += trees.len();
        bad += check(f, &trees, &mut out);
    }
    writeln!(
        out,
        "{total} trees checked: {} valid, {bad} invalid",
        total - bad
    )?;
    Ok((out, bad == 0))
}

/// The statistics of every tree of `files`, as a table or JSON.
pub fn stats_text(files: &[PathBuf], json: bool) -> Result<String> {
    let s = stats(&read_all(files)?);
    Ok(if json {
        serde_json::to_string_pretty(&s)? + "\n"
    } else {
        render(&s)
    })
}

/// The formats `trees import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSource {
    /// moviegraph's trees JSONL.
    Trees,
    /// The MuMA-ToM release (questions.json, with texts.json).
    MumaTom,
    /// Flat items, one JSON object a line.
    Items,
}

/// What `trees import` was asked to do.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// The file to import.
    pub file: PathBuf,
    /// What it is.
    pub from: ImportSource,
    /// MuMA-ToM's texts.json.
    pub texts: Option<PathBuf>,
    /// The benchmark's name (default: `muma-tom`, or the item file's stem).
    pub name: Option<String>,
    /// The output folder.
    pub out: PathBuf,
}

/// What an import printed, and whether it wrote the trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The lines the command prints.
    pub text: String,
    /// The trees were valid and written.
    pub imported: bool,
}

/// Imports `request.file` into `<out>/<name>.jsonl`, unless its trees are invalid.
pub fn import_trees(request: &ImportRequest) -> Result<Imported> {
    let a = request;
    if a.texts.is_some() && a.from != ImportSource::MumaTom {
        bail!("--texts is read only with --from muma-tom");
    }
    if a.from == ImportSource::Trees {
        if a.name.is_some() {
            bail!("--name is for benchmark imports; a tree file names its own film");
        }
        return import_tree_file(a);
    }
    let name = match (&a.name, a.from) {
        (Some(name), _) => name.clone(),
        (None, ImportSource::MumaTom) => import::muma::NAME.to_owned(),
        (None, _) => a
            .file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || name.starts_with('.')
    {
        bail!("the benchmark name {name:?} must be letters, digits, '-', '_' or '.' (give --name)");
    }
    let (trees, format, mut files) = match a.from {
        ImportSource::MumaTom => (
            import::muma::read(&a.file, a.texts.as_deref())?,
            "muma-tom",
            vec![a.file.display().to_string()],
        ),
        _ => (
            import::items::read(&a.file, &name)?,
            "items",
            vec![a.file.display().to_string()],
        ),
    };
    let trees: Vec<Tree> = match a.from {
        // MuMA-ToM's trees are built under its own name; a chosen --name renames them.
        ImportSource::MumaTom if name != import::muma::NAME => trees
            .into_iter()
            .map(|mut t| {
                t.id = format!("{name}{}", &t.id[import::muma::NAME.len()..]);
                t.film = name.clone();
                t
            })
            .collect(),
        _ => trees,
    };
    if let Some(texts) = &a.texts {
        files.push(texts.display().to_string());
    }
    let mut out = String::new();
    if check(&a.file, &trees, &mut out) > 0 {
        out.push_str("not imported: the questions above do not make valid trees\n");
        return Ok(Imported {
            text: out,
            imported: false,
        });
    }
    let path = a.out.join(format!("{name}.jsonl"));
    let provenance = Provenance::benchmark(
        &trees,
        BenchmarkImport {
            format: format.into(),
            files,
            questions: trees.len(),
        },
    );
    save_trees_with(&path, Some(&provenance), &trees)?;
    let by_label = import::count_by(&trees, |n| n.tags.belief_goal.clone());
    let by_format = import::count_by(&trees, |n| Some(n.format.as_str().to_owned()));
    let list = |m: &std::collections::BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(
        out,
        "imported {} questions of {name} into {} (one single-node tree each; {})",
        trees.len(),
        path.display(),
        list(&by_format)
    )?;
    if !by_label.is_empty() {
        writeln!(out, "  by label: {}", list(&by_label))?;
    }
    let relabelled = import::count_by(&trees, |n| {
        n.tags
            .other
            .get(import::muma::RELEASE_LABEL_TAG)
            .map(|l| format!("{l} → {}", n.tags.belief_goal.as_deref().unwrap_or("?")))
    });
    if !relabelled.is_empty() {
        writeln!(
            out,
            "  relabelled by their wording, where the file's label contradicts the question's \
             template (the file's label kept as tag {}): {}",
            import::muma::RELEASE_LABEL_TAG,
            list(&relabelled)
        )?;
    }
    writeln!(
        out,
        "  evaluate: moviegraph eval run --trees {} --subject random",
        path.display()
    )?;
    Ok(Imported {
        text: out,
        imported: true,
    })
}

fn import_tree_file(a: &ImportRequest) -> Result<Imported> {
    let TreeFile { provenance, trees } = read_tree_file(&a.file)?;
    let mut out = String::new();
    if check(&a.file, &trees, &mut out) > 0 {
        out.push_str("not imported: fix the invalid trees first\n");
        return Ok(Imported {
            text: out,
            imported: false,
        });
    }
    let Some(film) = trees.first().map(|t| t.film.clone()) else {
        bail!("{}: no trees", a.file.display());
    };
    if let Some(t) = trees.iter().find(|t| t.film != film) {
        bail!(
            "{}: tree {} is of film {:?}, the first of {film:?}; import one film per file",
            a.file.display(),
            t.id,
            t.film
        );
    }
    let path = a.out.join(format!("{film}.jsonl"));
    save_trees_with(&path, Some(&Provenance::import(&trees, provenance)), &trees)?;
    let _ = writeln!(
        out,
        "imported {} trees into {}",
        trees.len(),
        path.display()
    );
    Ok(Imported {
        text: out,
        imported: true,
    })
}

/// The forms `trees export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportForm {
    /// Flat items (read back by `trees import --from items`).
    Items,
    /// The Inspect AI dataset JSONL.
    Inspect,
}

/// The trees of `files` in `form`: written whole to `out` (returning the
/// line to tell), or returned as bytes for standard output.
pub fn export_trees(
    files: &[PathBuf],
    form: ExportForm,
    out: Option<&Path>,
) -> Result<(Vec<u8>, Option<String>)> {
    let trees = read_all(files)?;
    let mut buffer = Vec::new();
    let n = match form {
        ExportForm::Items => import::items::write_items(&mut buffer, &trees),
        ExportForm::Inspect => import::items::write_inspect(&mut buffer, &trees),
    }
    .context("writing the export")?;
    let Some(path) = out else {
        return Ok((buffer, None));
    };
    crate::util::fs::write_atomic(path, &buffer)
        .with_context(|| format!("writing {}", path.display()))?;
    let told = format!(
        "wrote {n} items of {} trees to {}",
        trees.len(),
        path.display()
    );
    Ok((Vec::new(), Some(told)))
}
