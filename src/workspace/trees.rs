//! Use case: question trees from a film's graph and blocks — written by the
//! rules templates or a model writer (every question checked against the
//! graph), validated, the invalid ones left out, and the trees file with its
//! first line saying how they were made. Only scenes the film contains are a
//! source unless the trees are text-only, and a mismatched alignment stops
//! generation ([`mismatch_stop`]). `moviegraph trees generate` and `run` come here.

use std::path::Path;

use crate::align::{Alignment, Summary, Verdict};
use crate::graph::analysis::analyse;
use crate::graph::build::Settings;
use crate::graph::Graph;
use crate::llm::BlockingModel;
use crate::screenplay::Screenplay;
use crate::trees::facts::Facts;
use crate::trees::generate::rules::RulesWriter;
use crate::trees::generate::{generate_with, GenerateOptions, Mix, QuestionWriter, Rejection};
use crate::trees::in_film::{InFilm, NOT_IN_FILM};
use crate::trees::jsonl::write_tree_file;
use crate::trees::model::ModelWriter;
use crate::trees::provenance::{
    has_keyframes, AlignmentFacts, GraphMakers, Maker, Origin, Provenance,
    Settings as ProvenanceSettings,
};
use crate::trees::schema::Tree;
use crate::trees::source::Source;
use crate::trees::validate::{is_valid, validate, Severity};

use super::{bail, Context, Result};

/// Reads a format mix `open,single,multi` (shares, normalised to sum 1).
pub fn parse_mix(text: &str) -> Result<Mix> {
    let parts: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .ok()
        .with_context(|| format!("--mix {text:?}: expected three numbers open,single,multi"))?;
    let [open, single, multi] = parts[..] else {
        bail!("--mix {text:?}: expected three numbers open,single,multi");
    };
    if [open, single, multi]
        .iter()
        .any(|x| !x.is_finite() || *x < 0.0)
        || open + single + multi <= 0.0
    {
        bail!("--mix {text:?}: shares must be non-negative and not all zero");
    }
    let sum = open + single + multi;
    Ok(Mix {
        open: open / sum,
        single: single / sum,
        multi: multi / sum,
    })
}

/// Trees generated for one film, the invalid ones already left out.
#[derive(Debug, Clone)]
pub struct TreesGenerated {
    /// The valid trees, in anchor order.
    pub trees: Vec<Tree>,
    /// How they were made: the trees file's first line.
    pub provenance: Provenance,
    /// The trees file's bytes (the metadata line, then the trees as JSON lines).
    pub jsonl: Vec<u8>,
    /// Trees left out as invalid.
    pub invalid: usize,
    /// The validation errors of the trees left out, one line each.
    pub problems: Vec<String>,
    /// Questions a writer produced that did not check out, with why.
    pub rejected: Vec<Rejection>,
    /// Questions not asked because the film does not contain what they are
    /// about (their scenes have no timed subtitle cue); 0 for text-only trees
    /// unless a context came back empty.
    pub not_in_film: usize,
    /// Options left without a follow-up above the last level.
    pub leaves_early: usize,
    /// The question writer's name.
    pub writer: String,
    /// The validity audit of the kept trees (default thresholds).
    pub audit: crate::trees::audit::Audit,
}

impl TreesGenerated {
    /// Questions in the kept trees.
    pub fn questions(&self) -> usize {
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }
}

/// A film's inputs to tree generation, and what its trees file records of them.
#[derive(Clone, Copy)]
pub struct TreesInput<'a> {
    /// The verified graph.
    pub graph: &'a Graph,
    /// The settings of the graph build it came from (generator, auditors,
    /// adjudicator), when known.
    pub graph_settings: Option<&'a Settings>,
    /// The screenplay.
    pub play: &'a Screenplay,
    /// Its alignment with the film: blocks, verdict, coverage.
    pub alignment: &'a Alignment,
    /// The film folder, as given on the command line.
    pub film_dir: Option<&'a Path>,
    /// Build script-only trees: every block is a source, timed or not, and a
    /// mismatched alignment is no obstacle. Recorded in the trees file.
    pub text_only: bool,
}

/// Why trees are not generated for a film whose alignment says its script is
/// not the film's (`None` when they may be: any other verdict, or `text_only`).
/// The message names the verdict and the way on.
pub fn mismatch_stop(slug: &str, summary: &Summary, text_only: bool) -> Option<String> {
    if text_only || summary.verdict != Verdict::Mismatch {
        return None;
    }
    Some(format!(
        "film {slug}: the alignment verdict is mismatch ({} of {} dialogue lines matched a \
         subtitle cue, coverage {:.1} %): the script is not this film's (another draft, \
         or the subtitles of another film), so nothing shows which of its scenes the film \
         contains, and no trees are written. Fix the script or the subtitles, or pass \
         --text-only to build script-only trees from the script alone (the trees file and \
         the report then record text_only)",
        summary.matched,
        summary.dialogue_lines,
        f64::from(summary.coverage) * 100.0
    ))
}

/// Generates the trees of a film from its graph and blocks: with the rules
/// templates, or with `model` as the question writer and the templates where
/// its question fails the graph check. Only blocks the film contains (a timed
/// subtitle cue) are a source of contexts unless `input.text_only`. Keyframe
/// paths in the contexts are made relative to the working directory. The
/// trees file's bytes start with the metadata line of [`Provenance`].
pub fn generate_trees(
    input: &TreesInput<'_>,
    model: Option<BlockingModel>,
    opts: &GenerateOptions,
) -> Result<TreesGenerated> {
    let graph = input.graph;
    let mut source = Source::from_play(input.play, &input.alignment.blocks, input.text_only);
    if let Ok(cwd) = std::env::current_dir() {
        source.relative_to(&cwd);
    }
    let facts = Facts::new(graph);
    let analysis = analyse(graph);
    let writer_maker = match &model {
        Some(m) => Maker::from_identities(m.handle().name(), &[m.handle().settings_identity()]),
        None => Maker::baseline(&RulesWriter.name()),
    };
    // Both writers decline what the source cannot show (see `trees::in_film`).
    let rules = InFilm::new(&RulesWriter, &source);
    let (generated, writer) = match model {
        Some(model) => {
            let writer = ModelWriter::new(model);
            let out = generate_with(
                &facts,
                &analysis,
                &source,
                &InFilm::new(&writer, &source),
                Some(&rules),
                opts,
            );
            (out, writer.name())
        }
        None => (
            generate_with(&facts, &analysis, &source, &rules, None, opts),
            RulesWriter.name(),
        ),
    };
    let (not_in_film, rejected): (Vec<Rejection>, Vec<Rejection>) = generated
        .rejected
        .into_iter()
        .partition(|r| r.reason.contains(NOT_IN_FILM));
    let mut kept = Vec::new();
    let (mut invalid, mut problems) = (0, Vec::new());
    for tree in generated.trees {
        let found = validate(&tree);
        problems.extend(
            found
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .map(|p| p.to_string()),
        );
        if is_valid(&found) {
            kept.push(tree);
        } else {
            invalid += 1;
        }
    }
    let provenance = provenance(input, writer_maker, opts, &kept);
    let mut jsonl = Vec::new();
    write_tree_file(&mut jsonl, &provenance, &kept)?;
    let ends = super::audit::state_ends(input.graph, "the graph the trees were made from");
    let layout = super::audit::film_layout(input.play, &input.alignment.blocks, Some(ends));
    let audit =
        super::audit::audit_trees(&kept, Some(&layout), input.text_only, Default::default());
    Ok(TreesGenerated {
        audit,
        trees: kept,
        provenance,
        jsonl,
        invalid,
        problems,
        rejected,
        // One per question: a model's question declined is declined for the templates too.
        not_in_film: not_in_film.iter().filter(|r| r.writer == writer).count(),
        leaves_early: generated.leaves_early,
        writer,
    })
}

/// What a generated trees file records of how it was made.
fn provenance(
    input: &TreesInput<'_>,
    writer: Maker,
    opts: &GenerateOptions,
    trees: &[Tree],
) -> Provenance {
    let mut p = Provenance::new(Origin::Generated);
    p.film = Some(input.graph.film.clone());
    p.film_dir = input.film_dir.map(|d| d.display().to_string());
    p.graph = input.graph_settings.map(|s| {
        GraphMakers::from_settings(
            &s.generator,
            &s.auditors,
            s.adjudicator.as_deref(),
            &s.models,
        )
    });
    p.question_writer = Some(writer);
    let blocks = &input.alignment.blocks;
    p.alignment = Some(AlignmentFacts {
        verdict: input.alignment.summary.verdict,
        coverage: (f64::from(input.alignment.summary.coverage) * 1e4).round() / 1e4,
        blocks: blocks.len(),
        untimed_blocks: blocks.iter().filter(|b| b.start_ms.is_none()).count(),
    });
    p.keyframes = Some(has_keyframes(trees));
    p.text_only = Some(input.text_only);
    p.settings = Some(ProvenanceSettings {
        depth: opts.depth,
        max_trees: opts.max_trees,
        mix: [opts.mix.open, opts.mix.single, opts.mix.multi],
        seed: opts.seed,
        single_options: opts.single_options,
        multi_options: opts.multi_options,
        include_trivia: opts.include_trivia,
    });
    p.collect_models();
    p
}
