//! The graph stage with model-backed roles over real HTTP to a loopback
//! OpenAI-compatible server: a scripted generator and two scripted auditors
//! that disagree on a known set of candidates (routing to the adjudicator and
//! the agreement figures checked by hand), and a killed CLI build that resumes
//! without repeating a request and exports the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::common::llm::{client, config_with, LoopbackServer, Reply, Request, ServerOptions};
use moviegraph::align::Block;
use moviegraph::graph::build::{build, BuildOptions, FilmInput, Roles};
use moviegraph::graph::model::{ModelAdjudicator, ModelAuditor, ModelGenerator};
use moviegraph::graph::stats::stats;
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{Item, Role, Status};
use moviegraph::llm::{BlockingModel, LlmOptions, ModelConfig};
use moviegraph::screenplay::{self, Format, Screenplay};
use moviegraph::store::Store;
use serde_json::{json, Value};

/// The first user turn's text (the content is a part list when images ride along).
fn user_text(body: &Value) -> String {
    let Some(messages) = body["messages"].as_array() else {
        return String::new();
    };
    let Some(m) = messages.iter().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn schema_name(body: &Value) -> &str {
    body["response_format"]["json_schema"]["name"]
        .as_str()
        .unwrap_or("")
}

/// The candidate lines (`C1 …`) of an audit prompt.
fn candidate_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (h, rest) = l.split_once(' ')?;
            let digits = h.strip_prefix('C')?;
            (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
                .then(|| (h.to_owned(), rest.to_owned()))
        })
        .collect()
}

fn verdicts(text: &str, reject: impl Fn(&str) -> bool) -> String {
    let v: serde_json::Map<String, Value> = candidate_lines(text)
        .into_iter()
        .map(|(h, line)| {
            let no = reject(&line);
            (
                h,
                json!({"accept": !no, "rationale": if no { "not supported" } else { "supported" }}),
            )
        })
        .collect();
    json!({ "verdicts": v }).to_string()
}

const FILM: &str = "Title: Two Rooms\n\nINT. KITCHEN - DAY\n\nAnn holds the red key. Bob watches her.\n\nANN\nI hid the map under the stove.\n\nBOB\nI believe you.\n\nINT. GARDEN - NIGHT\n\nBob digs by the old well.\n\nBOB\nThe map is not here.\n";

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

fn q(quote: &str) -> Value {
    // Element 0 is deliberately wrong: the validator re-locates the quote in the block.
    json!([{"element": 0, "quote": quote}])
}

/// The scripted generator's answer for the kitchen and the garden blocks.
/// Names are capitalised unlike any script text, so an auditor can match a
/// candidate by its name without matching its quoted evidence.
fn generator_answer(text: &str) -> String {
    if text.contains("red key") {
        json!({
            "entities": [
                {"handle": "N1", "kind": "character", "name": "Ann", "evidence": q("Ann holds")},
                {"handle": "N2", "kind": "character", "name": "Bob", "evidence": q("Bob watches her")},
                {"handle": "N3", "kind": "object", "name": "Red Key", "evidence": q("the red key")},
                {"handle": "N4", "kind": "location", "name": "Kitchen", "evidence": q("KITCHEN")},
                {"handle": "N5", "kind": "mental_state", "name": "Bob Believes the map is under the stove",
                 "attitude": "belief", "holder": "N2", "evidence": q("I believe you.")},
                {"handle": "N6", "kind": "event", "name": "Ann Hides the map", "act": "action",
                 "agent": "N1", "evidence": q("I hid the map under the stove.")},
                {"handle": "N7", "kind": "object", "name": "Ghost", "evidence": q("words nobody says")}
            ],
            "edges": [
                {"kind": "possesses", "source": "N1", "target": "N3", "evidence": q("Ann holds the red key")},
                {"kind": "holds", "source": "N2", "target": "N5", "evidence": q("I believe you.")},
                {"kind": "participates_in", "source": "N1", "target": "N6", "evidence": q("I hid the map")},
                {"kind": "located_at", "source": "N6", "target": "N4", "evidence": q("KITCHEN")}
            ]
        })
        .to_string()
    } else {
        json!({
            "entities": [
                {"handle": "N1", "kind": "character", "name": "Bob", "evidence": q("Bob digs")},
                {"handle": "N2", "kind": "location", "name": "Garden", "evidence": q("GARDEN")},
                {"handle": "N3", "kind": "event", "name": "Bob Digs by the well", "act": "action",
                 "agent": "N1", "evidence": q("Bob digs by the old well.")},
                {"handle": "N4", "kind": "mental_state", "name": "Bob Knows the map is gone",
                 "attitude": "knowledge", "holder": "N1", "evidence": q("The map is not here.")}
            ],
            "edges": [
                {"kind": "located_at", "source": "N3", "target": "N2", "evidence": q("old well")},
                {"kind": "participates_in", "source": "N1", "target": "N3", "evidence": q("Bob digs")}
            ]
        })
        .to_string()
    }
}

#[test]
fn two_model_auditors_disagree_and_exactly_the_split_candidates_reach_the_adjudicator() {
    let adjudicated: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = adjudicated.clone();
    let responder = Arc::new(move |req: &Request| {
        let text = user_text(&req.body);
        match (schema_name(&req.body), req.body["model"].as_str()) {
            ("graph_candidates", _) => Reply::chat(&generator_answer(&text)),
            // Auditor A rejects the red key and the garden; B the red key, the
            // kitchen and Bob's knowledge.
            ("audit_verdicts", Some("aud-a")) => Reply::chat(&verdicts(&text, |l| {
                l.contains("Red Key") || l.contains("Garden")
            })),
            ("audit_verdicts", Some("aud-b")) => Reply::chat(&verdicts(&text, |l| {
                l.contains("Red Key") || l.contains("Kitchen") || l.contains("Knows")
            })),
            ("adjudication", _) => {
                let line = text
                    .lines()
                    .find_map(|l| l.strip_prefix("Candidate: "))
                    .unwrap_or("")
                    .to_owned();
                let accept = !line.contains("Garden");
                seen.lock().unwrap().push(line);
                Reply::chat(&json!({"accept": accept, "rationale": "judged"}).to_string())
            }
            other => Reply::error(400, &format!("unexpected request {other:?}")),
        }
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let url = server.url();
    let mut config = config_with("gen", &[&url], 4, std::time::Duration::from_secs(20));
    for name in ["aud-a", "aud-b", "adj"] {
        config
            .models
            .insert(name.into(), ModelConfig::openai(name, &[&url]));
    }
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let handles = ["gen", "aud-a", "aud-b", "adj"]
        .iter()
        .map(|n| llm.model(n, "graph").unwrap())
        .collect();
    let m = BlockingModel::all(handles).unwrap();
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
    let play = screenplay::parse_text(FILM, Some(Format::Fountain), None).unwrap();
    let blocks = scene_blocks(&play);
    assert_eq!(blocks.len(), 2);
    let store = Store::open_in_memory().unwrap();
    let film = FilmInput {
        slug: "two-rooms",
        title: None,
        play: &play,
        blocks: &blocks,
    };
    let report = build(&store, &film, &roles, &BuildOptions::default()).unwrap();
    assert!(report.complete);
    // The unquotable Ghost is dropped, with its reason in the report.
    assert_eq!(report.totals.dropped, 1, "{:?}", report.dropped);
    assert!(
        report.dropped[0].starts_with("block 0: entity N7 (Ghost)"),
        "{:?}",
        report.dropped
    );
    // One generator call and one call per auditor per block, one per escalation.
    assert_eq!(report.totals.generator_calls, 2);
    assert_eq!(report.totals.auditor_calls, 4);
    assert_eq!(report.totals.adjudicator_calls, 5);
    assert_eq!(server.counters().requests(), 2 + 4 + 5);
    // The build is keyed by the models that served it.
    assert!(
        report.settings.contains(r#"\"model\":\"aud-b\""#),
        "{}",
        report.settings
    );

    let cands = store.graph_candidates(report.build.unwrap()).unwrap();
    assert_eq!(cands.len(), 16, "{cands:#?}");
    let label = |c: &moviegraph::graph::Candidate| match &c.item {
        Item::Node(n) => format!("b{} {} {}", c.block, n.kind.as_str(), n.name),
        Item::Edge(e) => format!("b{} {} {}", c.block, e.kind.as_str(), e.target),
    };
    let escalated: BTreeSet<String> = cands
        .iter()
        .filter(|c| c.votes.iter().any(|v| v.role == Role::Adjudicator))
        .map(label)
        .collect();
    let want: BTreeSet<String> = [
        "b0 location Kitchen",
        "b0 located_at location:kitchen",
        "b1 location Garden",
        "b1 located_at location:garden",
        "b1 mental_state Bob Knows the map is gone",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(escalated, want);
    // The server saw exactly those five, each once, with both auditors' votes.
    let asked = adjudicated.lock().unwrap().clone();
    assert_eq!(asked.len(), 5, "{asked:#?}");
    for marker in ["“Kitchen”", "→ Kitchen", "“Garden”", "→ Garden", "Knows"] {
        assert_eq!(
            asked.iter().filter(|l| l.contains(marker)).count(),
            1,
            "{marker} in {asked:#?}"
        );
    }
    let garden = cands
        .iter()
        .find(|c| label(c) == "b1 location Garden")
        .unwrap();
    assert_eq!(garden.status, Status::Rejected);
    assert_eq!(garden.votes.len(), 3);

    // Agreement over the 16 candidates (A, B):
    //   both accept: Ann, Bob, Bob's belief, Ann hides, holds, participates_in (b0);
    //                Bob, Bob digs, participates_in (b1)                       =  9
    //   both reject: Red Key, possesses → Red Key                             =  2
    //   A rejects, B accepts: Garden, located_at → Garden                     =  2
    //   A accepts, B rejects: Kitchen, located_at → Kitchen, Bob Knows         =  3
    // raw = (9 + 2) / 16 = 0.6875
    // Cohen: pA = 12/16 = 0.75, pB = 11/16 = 0.6875;
    //   pe = 0.75 × 0.6875 + 0.25 × 0.3125 = 0.59375;
    //   κ = (0.6875 − 0.59375) / (1 − 0.59375) = 0.09375 / 0.40625 = 3/13
    // Fleiss (2 raters): P̄ = 11/16; p_yes = (12 + 11) / 32 = 23/32;
    //   Pe = (23/32)² + (9/32)² = 610/1024;
    //   κ = (704/1024 − 610/1024) / (414/1024) = 94/414 = 47/207
    let s = stats(&cands, &[]);
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} != {b}");
    assert_eq!(s.agreement.items, 16);
    close(s.agreement.raw, 0.6875);
    assert_eq!(s.agreement.pairs.len(), 1);
    close(s.agreement.pairs[0].kappa.unwrap(), 3.0 / 13.0);
    close(s.agreement.fleiss.unwrap(), 47.0 / 207.0);
    assert_eq!(s.escalated, 5);
    assert_eq!(s.adjudicated, (3, 2));
}

/// A generic scripted film model for the sample film: the generator proposes
/// each speaker of the block and an event for their first line; auditor A
/// accepts everything, auditor B rejects what its description's length says;
/// the adjudicator accepts the even-length ones. Every body is counted.
fn generic_server(counts: Arc<Mutex<BTreeMap<String, u32>>>) -> LoopbackServer {
    let responder = Arc::new(move |req: &Request| {
        *counts
            .lock()
            .unwrap()
            .entry(req.body.to_string())
            .or_default() += 1;
        let text = user_text(&req.body);
        match (schema_name(&req.body), req.body["model"].as_str()) {
            ("graph_candidates", _) => {
                let mut entities = Vec::new();
                let mut edges = Vec::new();
                let mut speakers = BTreeSet::new();
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
                    let quote: String = said
                        .split_whitespace()
                        .take(3)
                        .collect::<Vec<_>>()
                        .join(" ");
                    if quote.is_empty() || !speakers.insert(speaker.to_owned()) {
                        continue;
                    }
                    let el: u64 = num.parse().unwrap_or(0);
                    let k = entities.len() + 1;
                    let ev = json!([{"element": el, "quote": quote}]);
                    entities.push(json!({"handle": format!("N{k}"), "kind": "character", "name": speaker, "evidence": ev}));
                    entities.push(json!({"handle": format!("N{}", k + 1), "kind": "event", "name": format!("{speaker} speaks"), "act": "action", "agent": format!("N{k}"), "evidence": ev}));
                    edges.push(json!({"kind": "participates_in", "source": format!("N{k}"), "target": format!("N{}", k + 1), "evidence": ev}));
                }
                Reply::chat(&json!({"entities": entities, "edges": edges}).to_string())
            }
            ("audit_verdicts", Some("aud-a")) => Reply::chat(&verdicts(&text, |_| false)),
            ("audit_verdicts", _) => Reply::chat(&verdicts(&text, |l| l.len() % 3 == 0)),
            ("adjudication", _) => Reply::chat(
                &json!({"accept": text.len().is_multiple_of(2), "rationale": "judged"}).to_string(),
            ),
            other => Reply::error(400, &format!("unexpected request {other:?}")),
        }
    });
    LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap()
}

fn write_config(dir: &Path, url: &str) -> PathBuf {
    let mut text = String::from(
        "[roles]\ngenerator = \"gen\"\nauditors = [\"aud-a\", \"aud-b\"]\nadjudicator = \"adj\"\n\n\
         [client]\nmax_retries = 3\nbackoff_base_ms = 5\nbackoff_max_ms = 50\n\n",
    );
    for name in ["gen", "aud-a", "aud-b", "adj"] {
        text.push_str(&format!(
            "[models.{name}]\nbackend = \"openai\"\nbase_url = \"{url}\"\n\n"
        ));
    }
    let path = dir.join("moviegraph.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn cli(args: &[&str]) -> String {
    let out = crate::common::moviegraph_offline()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn a_killed_model_build_resumes_without_repeating_a_request_and_exports_the_same_bytes() {
    let film = "screenplays/the-second-key";
    let counts: Arc<Mutex<BTreeMap<String, u32>>> = Arc::default();
    let server = generic_server(counts.clone());
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), &server.url());
    let config = config.to_str().unwrap();
    let path = |name: &str| tmp.path().join(name).display().to_string();
    let (full_db, part_db, full_out, part_out) =
        (path("full.db"), path("part.db"), path("full"), path("part"));

    let full = cli(&[
        "graph", "build", film, "--store", &full_db, "--config", config,
    ]);
    assert!(full.contains("generator gen [model]"), "{full}");
    assert!(!full.contains("incomplete"), "{full}");
    let after_full = counts.lock().unwrap().clone();
    assert!(
        after_full.values().all(|&n| n == 1),
        "a request was repeated"
    );
    let generator_requests = after_full
        .keys()
        .filter(|k| k.contains("graph_candidates"))
        .count();
    assert!(generator_requests > 3, "{generator_requests} blocks");
    // Keyframes travel as images.
    assert!(after_full
        .keys()
        .any(|k| k.contains("data:image/jpeg;base64,")));

    let first = cli(&[
        "graph",
        "build",
        film,
        "--store",
        &part_db,
        "--config",
        config,
        "--stop-after",
        "3",
    ]);
    assert!(
        first.contains("3 built now, 0 already done (incomplete"),
        "{first}"
    );
    let second = cli(&[
        "graph", "build", film, "--store", &part_db, "--config", config,
    ]);
    assert!(second.contains(", 3 already done\n"), "{second}");

    // The killed-and-resumed build asked every request of the full build
    // exactly once more (a fresh store, so no cache), and nothing else.
    let after_all = counts.lock().unwrap().clone();
    assert_eq!(
        after_all.keys().collect::<Vec<_>>(),
        after_full.keys().collect::<Vec<_>>()
    );
    assert!(
        after_all.values().all(|&n| n == 2),
        "a request was repeated or skipped"
    );

    cli(&[
        "graph", "export", film, "--store", &full_db, "--out", &full_out,
    ]);
    cli(&[
        "graph", "export", film, "--store", &part_db, "--out", &part_out,
    ]);
    let a = std::fs::read(Path::new(&full_out).join("the-second-key.json")).unwrap();
    let b = std::fs::read(Path::new(&part_out).join("the-second-key.json")).unwrap();
    assert!(a == b, "the exports differ");

    // `moviegraph run` with the same configuration builds the graph through the
    // same model roles: the same file, each request asked once more (a fresh
    // store), and a rerun that is current asks nothing.
    let (run_db, run_out) = (path("run.db"), path("run"));
    let run_args = [
        "run", film, "--store", &run_db, "--out", &run_out, "--config", config, "--until", "graph",
    ];
    let ran = cli(&run_args);
    assert!(ran.contains("generator gen [model]"), "{ran}");
    let c = std::fs::read(Path::new(&run_out).join("graphs/the-second-key.json")).unwrap();
    assert!(a == c, "run's graph differs from graph build's export");
    let after_run = counts.lock().unwrap().clone();
    assert_eq!(after_run.len(), after_full.len());
    assert!(
        after_run.values().all(|&n| n == 3),
        "a request was repeated or skipped"
    );
    let again = cli(&run_args);
    assert!(again.contains("graph  skipped"), "{again}");
    assert_eq!(
        *counts.lock().unwrap(),
        after_run,
        "a current run asks nothing"
    );
    let text = String::from_utf8(a).unwrap();
    assert!(
        text.contains("character:mara"),
        "{}",
        &text[..text.len().min(2000)]
    );
}

#[test]
fn a_schema_break_is_repaired_and_a_missing_verdict_is_asked_again() {
    let responder = Arc::new(move |req: &Request| {
        let text = user_text(&req.body);
        let turns = req.body["messages"].as_array().map_or(0, Vec::len);
        match (schema_name(&req.body), req.body["model"].as_str()) {
            // First answer breaks the schema (evidence is not a list): the
            // model layer re-asks with the problem, and the second one fits.
            ("graph_candidates", _) if turns == 2 => Reply::chat(
                r#"{"entities": [{"handle": "N1", "kind": "character", "name": "Ann", "evidence": "Ann holds"}], "edges": []}"#,
            ),
            ("graph_candidates", _) => Reply::chat(&generator_answer(&text)),
            ("audit_verdicts", Some("aud-a")) => Reply::chat(&verdicts(&text, |_| false)),
            // Auditor B first leaves out its last verdict: it is asked again.
            ("audit_verdicts", _) if turns == 2 => {
                let mut v: Value = serde_json::from_str(&verdicts(&text, |_| false)).unwrap();
                let map = v["verdicts"].as_object_mut().unwrap();
                let last = map.keys().next_back().unwrap().clone();
                map.remove(&last);
                Reply::chat(&v.to_string())
            }
            ("audit_verdicts", _) => Reply::chat(&verdicts(&text, |_| false)),
            other => Reply::error(400, &format!("unexpected request {other:?}")),
        }
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let url = server.url();
    let mut config = config_with("gen", &[&url], 4, std::time::Duration::from_secs(20));
    for name in ["aud-a", "aud-b"] {
        config
            .models
            .insert(name.into(), ModelConfig::openai(name, &[&url]));
    }
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let m = BlockingModel::all(
        ["gen", "aud-a", "aud-b"]
            .iter()
            .map(|n| llm.model(n, "graph").unwrap())
            .collect(),
    )
    .unwrap();
    let (g, a1, a2) = (
        ModelGenerator::new(m[0].clone()),
        ModelAuditor::new(m[1].clone()),
        ModelAuditor::new(m[2].clone()),
    );
    let roles = Roles {
        generator: &g,
        auditors: vec![&a1, &a2],
        adjudicator: None,
    };
    let play = screenplay::parse_text(FILM, Some(Format::Fountain), None).unwrap();
    let blocks = scene_blocks(&play);
    let store = Store::open_in_memory().unwrap();
    let film = FilmInput {
        slug: "two-rooms",
        title: None,
        play: &play,
        blocks: &blocks,
    };
    let report = build(&store, &film, &roles, &BuildOptions::default()).unwrap();
    assert!(report.complete);
    // Per block: generator 2 (answer + repair), A 1, B 2 (answer + re-ask). The
    // audit schema requires a verdict for every handle, so B's missing verdict is
    // a schema break too, re-asked by the model layer's repair: 2 repairs a block.
    assert_eq!(server.counters().requests(), 2 * (2 + 1 + 2));
    assert_eq!(llm.stats().repairs, 4);
    let cands = store.graph_candidates(report.build.unwrap()).unwrap();
    assert_eq!(cands.len(), 16);
    assert!(cands.iter().all(|c| c.status == Status::Accepted));
}

const SHOP: &str = "Title: The Shop\n\nINT. SHOP - NIGHT\n\nAnn kneels at the safe. Ann doesn't know the ring has left the safe.\n\nANN\nStill here. Good.\n";

/// The scripted generator's answer for the shop: Ann's knowledge of the
/// ring, negated as the script says, or with its polarity flipped.
fn shop_answer(negated: bool) -> String {
    json!({
        "entities": [
            {"handle": "N1", "kind": "character", "name": "Ann", "evidence": q("Ann kneels")},
            {"handle": "N2", "kind": "mental_state", "name": "Ann: the ring has left the safe",
             "attitude": "knowledge", "holder": "N1", "content": "the ring has left the safe",
             "negated": negated, "explicit": true,
             "evidence": q("Ann doesn't know the ring has left the safe")}
        ],
        "edges": [
            {"kind": "holds", "source": "N1", "target": "N2",
             "evidence": q("Ann doesn't know the ring has left the safe")}
        ]
    })
    .to_string()
}

/// The shop's graph with a scripted model generator over loopback and the
/// rules auditors, scored against a gold file holding Ann's state.
fn shop_score(negated: bool) -> (moviegraph::graph::score::GraphScore, Vec<String>) {
    use moviegraph::graph::audit::{GroundingAuditor, RulesAdjudicator, SchemaTimeAuditor};
    use moviegraph::graph::gold::parse_gold;
    use moviegraph::graph::score::{score, ScoreOptions, Similarity};
    use moviegraph::graph::Graph;
    let responder = Arc::new(move |req: &Request| match schema_name(&req.body) {
        "graph_candidates" => Reply::chat(&shop_answer(negated)),
        other => Reply::error(400, &format!("unexpected request {other:?}")),
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let url = server.url();
    let config = config_with("gen", &[&url], 2, std::time::Duration::from_secs(20));
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let m = BlockingModel::all(vec![llm.model("gen", "graph").unwrap()]).unwrap();
    let g = ModelGenerator::new(m[0].clone());
    let roles = Roles {
        generator: &g,
        auditors: vec![&GroundingAuditor, &SchemaTimeAuditor],
        adjudicator: Some(&RulesAdjudicator),
    };
    let play = screenplay::parse_text(SHOP, Some(Format::Fountain), None).unwrap();
    let blocks = scene_blocks(&play);
    let store = Store::open_in_memory().unwrap();
    let film = FilmInput {
        slug: "the-shop",
        title: None,
        play: &play,
        blocks: &blocks,
    };
    let report = build(&store, &film, &roles, &BuildOptions::default()).unwrap();
    let cands = store.graph_candidates(report.build.unwrap()).unwrap();
    let rationales = cands
        .iter()
        .filter(|c| c.status == Status::Rejected)
        .flat_map(|c| c.votes.iter().filter(|v| !v.accept))
        .map(|v| v.rationale.clone())
        .collect();
    let graph = Graph::assemble("the-shop", &cands);
    let gold = parse_gold(
        r#"{"film": "the-shop", "characters": [{"name": "ANN"}],
        "mental_states": [
          {"id": "m1", "holder": "ANN", "attitude": "knowledge", "content": "the ring has left the safe",
           "negated": true, "scene": 1, "explicit": true,
           "evidence": "Ann doesn't know the ring has left the safe."}],
        "causal_links": [], "chains": []}"#,
    )
    .unwrap();
    let sim = Similarity::Lexical;
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: sim.default_threshold(),
    };
    (score(&graph, &gold, &sim, opts).unwrap(), rationales)
}

#[test]
fn a_model_state_with_its_polarity_flipped_is_caught_by_the_auditors_and_costs_exactly_that() {
    let (right, rejected) = shop_score(true);
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!((right.states.matched_gold, right.states.gold), (1, 1));
    assert_eq!(right.states.precision(), 1.0);
    let (flipped, rejected) = shop_score(false);
    // The quote auditor reads the negation the model dropped.
    assert!(
        rejected.iter().any(|r| r.contains("negates it")),
        "{rejected:?}"
    );
    // Kept out of the graph, it costs its recall and nothing else: no
    // polarity error is asserted.
    assert_eq!((flipped.states.matched_gold, flipped.states.graph), (0, 0));
    assert_eq!(flipped.states.precision(), 1.0);
    assert!(flipped.errors.is_empty(), "{:?}", flipped.errors);
}
