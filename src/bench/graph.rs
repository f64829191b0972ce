//! `moviegraph bench graph`: the graph stage on a synthetic corpus.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use moviegraph::align::Block;
use moviegraph::graph::analysis::analyse;
use moviegraph::graph::audit::{GroundingAuditor, RulesAdjudicator, SchemaTimeAuditor};
use moviegraph::graph::build::{build, BuildOptions, FilmInput, Roles};
use moviegraph::graph::export::to_json;
use moviegraph::graph::generate::RulesGenerator;
use moviegraph::graph::model::{ModelAdjudicator, ModelAuditor, ModelGenerator};
use moviegraph::graph::stats::stats;
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{BlockContext, Generator, Graph};
use moviegraph::llm::{BlockingModel, Config, Llm, LlmOptions, ModelConfig};
use moviegraph::screenplay::{self, Format, Screenplay};
use moviegraph::store::Store;
use moviegraph_loopback::{LoopbackServer, Reply, Request, Responder, ServerOptions};
use serde_json::{json, Value};

use super::emit;

/// Options of `bench graph`.
#[derive(Debug, Args)]
pub struct BenchGraphArgs {
    /// The film whose script.fountain seeds the corpus.
    #[arg(long, default_value = "screenplays/the-second-key")]
    film: PathBuf,
    /// Films in the synthetic corpus.
    #[arg(long, default_value_t = 30)]
    films: usize,
    /// Times each film repeats the seed story (≈600 candidates per copy).
    #[arg(long, default_value_t = 6)]
    copies: usize,
    /// Films of the corpus also built with model-backed roles against a
    /// scripted loopback server (0 skips that pass).
    #[arg(long, default_value_t = 2)]
    model_films: usize,
    /// Instead of the speed corpus: annotated film folders (script,
    /// subtitles, gold.json), each built with every rule family on and
    /// scored; prints each rule family's precision, the leave-one-film-out
    /// figures (gates fitted without the film, scored on it), the fitted and
    /// ungated figures, and what the auditors' verdicts are worth.
    #[arg(long, value_name = "FILM_DIR", num_args = 1..)]
    gold: Vec<PathBuf>,
    /// With --gold: write the gates fitted on all the films to this file
    /// (the generator's data is src/graph/generate/gates.json;
    /// scripts/regenerate-gates does this).
    #[arg(long, value_name = "GATES.json", requires = "gold")]
    write_gates: Option<PathBuf>,
    /// With --gold: print JSON instead of tables.
    #[arg(long, requires = "gold")]
    json: bool,
    /// With --gold: list every state and link the leave-one-film-out graphs
    /// got wrong, and those the ungated graphs got wrong, with its error,
    /// families and content.
    #[arg(long, requires = "gold")]
    misses: bool,
}

const NAMES: [&str; 5] = ["MARA", "QUINTON", "JUNE", "TEO", "HOLLIS"];
const POOL: [&str; 15] = [
    "ADA", "BRAM", "CLEO", "DEV", "ESME", "FINN", "GRETA", "HUGO", "IRIS", "JONAS", "KIRA", "LEO",
    "MINA", "NICO", "OPAL",
];

fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_string() + &c.as_str().to_lowercase())
        .unwrap_or_default()
}

/// Film `i`: the seed story `copies` times, its five names replaced by names
/// from a pool rotated per film, so no two films share a cast.
pub(super) fn synth_film(seed: &str, i: usize, copies: usize) -> String {
    let body = seed.split_once("FADE IN:").map_or(seed, |(_, b)| b);
    let mut text = String::from("Title: Synthetic\n\n");
    for _ in 0..copies {
        text.push_str(body);
        text.push_str("\n\n");
    }
    for (k, name) in NAMES.iter().enumerate() {
        let new = POOL[(i + k * 3) % POOL.len()];
        text = text.replace(name, new).replace(&title(name), &title(new));
    }
    text
}

fn scene_blocks(play: &Screenplay) -> Vec<Block> {
    play.scenes
        .iter()
        .enumerate()
        .map(|(id, s)| Block {
            id,
            elements: s.elements,
            scene: s.index,
            start_ms: None,
            end_ms: None,
            keyframes: Vec::new(),
        })
        .collect()
}

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Builds, analyses and exports every film of the corpus with the rules backend.
pub fn bench_graph(args: BenchGraphArgs) -> anyhow::Result<()> {
    if !args.gold.is_empty() {
        return super::graph_gold::bench_gold(
            &args.gold,
            args.write_gates.as_deref(),
            args.json,
            args.misses,
        );
    }
    let seed_path = args.film.join("script.fountain");
    let seed = std::fs::read_to_string(&seed_path)
        .with_context(|| format!("reading {}", seed_path.display()))?;
    let plays: Vec<Screenplay> = (0..args.films)
        .map(|i| {
            screenplay::parse_text(
                &synth_film(&seed, i, args.copies),
                Some(Format::Fountain),
                None,
            )
        })
        .collect::<Result<_, _>>()?;
    let db = std::env::temp_dir().join(format!("moviegraph-bench-graph-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let store = Store::open(&db)?;
    let (g, a1, a2, adj) = (
        RulesGenerator::default(),
        GroundingAuditor,
        SchemaTimeAuditor,
        RulesAdjudicator,
    );
    let roles = Roles {
        generator: &g,
        auditors: vec![&a1, &a2],
        adjudicator: Some(&adj),
    };
    // Baseline in the same run: the generator alone, no resolution, audit or store.
    let started = Instant::now();
    let mut proposed = 0usize;
    let empty = std::collections::BTreeMap::new();
    for play in &plays {
        for block in &scene_blocks(play) {
            let ctx = BlockContext {
                film: "synthetic",
                block,
                play,
                entities: &empty,
                max_keyframes: 5,
            };
            proposed += g.generate(&ctx)?.items.len();
        }
    }
    let baseline = started.elapsed();
    let started = Instant::now();
    let mut last_table = String::new();
    let (mut blocks, mut candidates, mut calls, mut json_bytes, mut nodes) =
        (0usize, 0usize, [0u64; 3], 0usize, 0usize);
    for (i, play) in plays.iter().enumerate() {
        let bl = scene_blocks(play);
        let slug = format!("synthetic-{i:02}");
        let film = FilmInput {
            slug: &slug,
            title: None,
            play,
            blocks: &bl,
        };
        let report = build(&store, &film, &roles, &BuildOptions::default())?;
        let id = report.build.context("no build")?;
        let cands = store.graph_candidates(id)?;
        let graph = Graph::assemble(&slug, &cands);
        let s = stats(&cands, &store.graph_merges(id)?);
        json_bytes += to_json(&graph, &report.settings, &s, &analyse(&graph)).len();
        last_table = moviegraph::graph::stats::render(&s);
        blocks += report.processed;
        candidates += cands.len();
        nodes += graph.nodes.len();
        calls[0] += report.totals.generator_calls;
        calls[1] += report.totals.auditor_calls;
        calls[2] += report.totals.adjudicator_calls;
    }
    let total = started.elapsed();
    drop(store);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let per_block = |x: u64| x as f64 / blocks.max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "bench graph (rules backend): {} synthetic films × {} copies of {}\n\
         blocks {blocks}, candidates {candidates} (generator-only pass proposed {proposed}), graph nodes {nodes}, JSON {:.1} MB\n\
         whole pipeline (generate, resolve, audit ×2, consensus, adjudicate, store, assemble, analyse, export): {:.2} s, {:.3} ms per block, {:.1} µs per candidate\n\
         baseline, same run: generator alone {:.2} s ({:.0}% of the pipeline)\n\
         calls per block: generator {:.2}, auditors {:.2}, adjudicator {:.2}\n\
         peak memory (VmHWM): {}",
        args.films,
        args.copies,
        seed_path.display(),
        json_bytes as f64 / 1e6,
        total.as_secs_f64(),
        total.as_secs_f64() * 1000.0 / blocks.max(1) as f64,
        total.as_secs_f64() * 1e6 / candidates.max(1) as f64,
        baseline.as_secs_f64(),
        100.0 * baseline.as_secs_f64() / total.as_secs_f64().max(1e-9),
        per_block(calls[0]),
        per_block(calls[1]),
        per_block(calls[2]),
        peak_rss_kb().map_or_else(|| "n/a (no /proc)".to_owned(), |kb| format!("{:.1} MB", kb as f64 / 1024.0)),
    );
    if args.model_films > 0 {
        let n = args.model_films.min(plays.len());
        let m = model_pass(&plays[..n])?;
        let rules_ms = total.as_secs_f64() * 1000.0 / blocks.max(1) as f64;
        let per = |x: u64| x as f64 / m.blocks.max(1) as f64;
        let _ = writeln!(
            out,
            "model-backed roles (openai backend, scripted loopback server on 127.0.0.1; generator, 2 auditors, adjudicator), first {n} film(s):\n\
             blocks {}, candidates {}, dropped {}; {:.3} ms per block (rules pass above: {rules_ms:.3} ms per block; ratio {:.2})\n\
             model calls per block: generator {:.2}, auditors {:.2}, adjudicator {:.2} (total {:.2}; goal 1 + 1 per auditor + escalations); HTTP requests at the server {} for {} calls",
            m.blocks,
            m.candidates,
            m.dropped,
            m.elapsed.as_secs_f64() * 1000.0 / m.blocks.max(1) as f64,
            m.elapsed.as_secs_f64() * 1000.0 / m.blocks.max(1) as f64 / rules_ms.max(1e-9),
            per(m.calls[0]),
            per(m.calls[1]),
            per(m.calls[2]),
            per(m.calls.iter().sum()),
            m.requests,
            m.calls.iter().sum::<u64>(),
        );
    }
    let _ = write!(out, "construction table of the last film:\n{last_table}");
    emit(&out)?;
    Ok(())
}

/// What the model-backed pass measured.
struct ModelPass {
    blocks: usize,
    candidates: usize,
    dropped: u64,
    calls: [u64; 3],
    requests: u64,
    elapsed: std::time::Duration,
}

/// The first user turn's text of a request body.
fn user_text(body: &Value) -> String {
    let user = body["messages"]
        .as_array()
        .and_then(|ms| ms.iter().find(|m| m["role"] == "user"));
    match user.map(|m| &m["content"]) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A scripted film model: the generator proposes each speaker of the block,
/// an event for their first line and the edge between them; auditor `aud-a`
/// accepts all, `aud-b` rejects about one candidate in five (by the length of
/// its description), so some are escalated; the adjudicator decides by parity.
fn scripted_responder() -> Responder {
    Arc::new(|req: &Request| {
        let text = user_text(&req.body);
        let verdicts = |reject: &dyn Fn(&str) -> bool| {
            let v: serde_json::Map<String, Value> = text
                .lines()
                .filter_map(|l| {
                    let (h, rest) = l.split_once(' ')?;
                    let d = h.strip_prefix('C')?;
                    (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())).then(|| {
                        (
                            h.to_owned(),
                            json!({"accept": !reject(rest), "rationale": "scripted"}),
                        )
                    })
                })
                .collect();
            Reply::chat(&json!({ "verdicts": v }).to_string())
        };
        let schema = req.body["response_format"]["json_schema"]["name"]
            .as_str()
            .unwrap_or("");
        match (schema, req.body["model"].as_str()) {
            ("graph_candidates", _) => {
                let (mut entities, mut edges, mut seen) = (Vec::new(), Vec::new(), Vec::new());
                for line in text.lines() {
                    let Some((head, said)) = line.split_once(": ") else {
                        continue;
                    };
                    let Some((num, rest)) = head.strip_prefix('[').and_then(|h| h.split_once("] "))
                    else {
                        continue;
                    };
                    let Some(speaker) = rest.strip_prefix("dialogue ") else {
                        continue;
                    };
                    let quote = said
                        .split_whitespace()
                        .take(3)
                        .collect::<Vec<_>>()
                        .join(" ");
                    if quote.is_empty() || seen.contains(&speaker) {
                        continue;
                    }
                    seen.push(speaker);
                    let k = entities.len() + 1;
                    let ev = json!([{"element": num.parse::<u64>().unwrap_or(0), "quote": quote}]);
                    entities.push(json!({"handle": format!("N{k}"), "kind": "character", "name": speaker, "evidence": ev}));
                    entities.push(json!({"handle": format!("N{}", k + 1), "kind": "event", "name": format!("{speaker} speaks"), "act": "action", "agent": format!("N{k}"), "evidence": ev}));
                    edges.push(json!({"kind": "participates_in", "source": format!("N{k}"), "target": format!("N{}", k + 1), "evidence": ev}));
                }
                Reply::chat(&json!({"entities": entities, "edges": edges}).to_string())
            }
            ("audit_verdicts", Some("aud-a")) => verdicts(&|_: &str| false),
            ("audit_verdicts", _) => verdicts(&|l: &str| l.len().is_multiple_of(5)),
            ("adjudication", _) => Reply::chat(
                &json!({"accept": text.len().is_multiple_of(2), "rationale": "scripted"})
                    .to_string(),
            ),
            _ => Reply::error(400, "unexpected request"),
        }
    })
}

/// Builds `plays` with model-backed roles over HTTP to a loopback server, in
/// a fresh store (so no answer comes from the cache).
fn model_pass(plays: &[Screenplay]) -> anyhow::Result<ModelPass> {
    let server = LoopbackServer::start(ServerOptions {
        responder: scripted_responder(),
        ..ServerOptions::default()
    })?;
    let url = server.url();
    let mut config = Config::offline();
    for name in ["gen", "aud-a", "aud-b", "adj"] {
        config
            .models
            .insert(name.to_owned(), ModelConfig::openai(name, &[&url]));
    }
    let db = std::env::temp_dir().join(format!(
        "moviegraph-bench-graph-model-{}.db",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&db);
    let store = Store::open(&db)?;
    let llm = Llm::new(
        config,
        Arc::new(Mutex::new(Store::open(&db)?)),
        LlmOptions {
            run_label: "bench graph".to_owned(),
            ..LlmOptions::default()
        },
    )?;
    let handles = [
        ("gen", "generator"),
        ("aud-a", "auditor"),
        ("aud-b", "auditor"),
        ("adj", "adjudicator"),
    ]
    .iter()
    .map(|(n, r)| llm.model(n, r))
    .collect::<Result<Vec<_>, _>>()?;
    let m = BlockingModel::all(handles)?;
    let (g, a1, a2, adj) = (
        ModelGenerator::new(m[0].clone()),
        ModelAuditor::new(m[1].clone()),
        ModelAuditor::new(m[2].clone()),
        ModelAdjudicator::new(m[3].clone()),
    );
    let roles = Roles {
        generator: &g,
        auditors: vec![&a1, &a2],
        adjudicator: Some(&adj),
    };
    let mut pass = ModelPass {
        blocks: 0,
        candidates: 0,
        dropped: 0,
        calls: [0; 3],
        requests: 0,
        elapsed: std::time::Duration::ZERO,
    };
    let started = Instant::now();
    for (i, play) in plays.iter().enumerate() {
        let bl = scene_blocks(play);
        let slug = format!("synthetic-model-{i:02}");
        let film = FilmInput {
            slug: &slug,
            title: None,
            play,
            blocks: &bl,
        };
        let report = build(&store, &film, &roles, &BuildOptions::default())?;
        pass.blocks += report.processed;
        pass.candidates += report.candidates;
        pass.dropped += report.totals.dropped;
        pass.calls[0] += report.totals.generator_calls;
        pass.calls[1] += report.totals.auditor_calls;
        pass.calls[2] += report.totals.adjudicator_calls;
    }
    pass.elapsed = started.elapsed();
    pass.requests = server.counters().requests();
    drop((store, llm, m));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    Ok(pass)
}
