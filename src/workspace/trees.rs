//! Use case: question trees from a film's graph and blocks — written by the
//! rules templates or a model writer (every question checked against the
//! graph), validated, the invalid ones left out. `moviegraph trees generate`
//! and `run` come here.

use crate::align::Block;
use crate::graph::analysis::analyse;
use crate::graph::Graph;
use crate::llm::BlockingModel;
use crate::screenplay::Screenplay;
use crate::trees::facts::Facts;
use crate::trees::generate::{generate_with, GenerateOptions, Mix, QuestionWriter, Rejection};
use crate::trees::jsonl::write_trees;
use crate::trees::model::ModelWriter;
use crate::trees::rules::RulesWriter;
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
    /// The trees file's bytes (JSON lines).
    pub jsonl: Vec<u8>,
    /// Trees left out as invalid.
    pub invalid: usize,
    /// The validation errors of the trees left out, one line each.
    pub problems: Vec<String>,
    /// Questions a writer produced that did not check out, with why.
    pub rejected: Vec<Rejection>,
    /// Options left without a follow-up above the last level.
    pub leaves_early: usize,
    /// The question writer's name.
    pub writer: String,
}

impl TreesGenerated {
    /// Questions in the kept trees.
    pub fn questions(&self) -> usize {
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }
}

/// Generates the trees of a film from its graph and blocks: with the rules
/// templates, or with `model` as the question writer and the templates where
/// its question fails the graph check. Keyframe paths in the contexts are
/// made relative to the working directory.
pub fn generate_trees(
    graph: &Graph,
    play: &Screenplay,
    blocks: &[Block],
    model: Option<BlockingModel>,
    opts: &GenerateOptions,
) -> Result<TreesGenerated> {
    let mut source = Source::from_play(play, blocks);
    if let Ok(cwd) = std::env::current_dir() {
        source.relative_to(&cwd);
    }
    let facts = Facts::new(graph);
    let analysis = analyse(graph);
    let (generated, writer) = match model {
        Some(model) => {
            let writer = ModelWriter::new(model);
            let out = generate_with(
                &facts,
                &analysis,
                &source,
                &writer,
                Some(&RulesWriter),
                opts,
            );
            (out, writer.name())
        }
        None => (
            generate_with(&facts, &analysis, &source, &RulesWriter, None, opts),
            RulesWriter.name(),
        ),
    };
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
    let mut jsonl = Vec::new();
    write_trees(&mut jsonl, &kept)?;
    Ok(TreesGenerated {
        trees: kept,
        jsonl,
        invalid,
        problems,
        rejected: generated.rejected,
        leaves_early: generated.leaves_early,
        writer,
    })
}
