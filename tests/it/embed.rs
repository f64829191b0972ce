//! all-MiniLM-L6-v2 on candle against sentence-transformers' vectors
//! (tests/fixtures/embed/minilm_reference.json, from tools/embed_reference.py),
//! and the aligner with MiniLM on the sample film against its gold.
//!
//! These need the model files (scripts/setup-models); without them each test
//! prints why it is skipped and passes.

use std::path::PathBuf;

use moviegraph::align::eval::{evaluate, Gold};
use moviegraph::align::{align_with, AlignOptions};
use moviegraph::embed::model_dir::resolve_minilm;
use moviegraph::embed::{CachedEmbedder, Embedder, MiniLmEmbedder, MINILM_DIMS, MINILM_FILES};
use moviegraph::media::subtitles;
use moviegraph::screenplay;
use moviegraph::store::Store;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The model, or `None` with a printed reason when its files are not installed.
fn minilm(test: &str) -> Option<MiniLmEmbedder> {
    let Some((dir, source)) = resolve_minilm(None) else {
        eprintln!("SKIP {test}: no model folder (no HOME, no MOVIEGRAPH_MINILM_DIR)");
        return None;
    };
    if let Some((name, _)) = MINILM_FILES.iter().find(|(n, _)| !dir.join(n).is_file()) {
        eprintln!(
            "SKIP {test}: {} has no {name} ({}); run scripts/setup-models",
            dir.display(),
            source.describe()
        );
        return None;
    }
    // Files present but wrong is a failure, not a skip.
    Some(MiniLmEmbedder::load(&dir).expect("the installed model files load"))
}

struct Reference {
    sentences: Vec<String>,
    vectors: Vec<Vec<f32>>,
    untruncated_tokens: Vec<usize>,
}

fn reference() -> Reference {
    let path = root().join("tests/fixtures/embed/minilm_reference.json");
    let text = std::fs::read_to_string(&path).expect("reference fixture");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let strings = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    Reference {
        sentences: strings("sentences"),
        vectors: v["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect()
            })
            .collect(),
        untruncated_tokens: v["untruncated_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect(),
    }
}

fn max_abs_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).map(|(p, q)| (p - q).abs())
        })
        .fold(0.0, f32::max)
}

#[test]
fn minilm_matches_sentence_transformers_to_1e4() {
    let Some(model) = minilm("minilm_matches_sentence_transformers_to_1e4") else {
        return;
    };
    let r = reference();
    assert!(r.sentences.len() >= 12);
    assert!(
        r.untruncated_tokens.iter().any(|&t| t > 256),
        "the fixture must exercise truncation"
    );
    let refs: Vec<&str> = r.sentences.iter().map(String::as_str).collect();
    let got = model.embed_batch(&refs).unwrap();
    assert!(got.iter().all(|v| v.len() == MINILM_DIMS));
    let diff = max_abs_diff(&got, &r.vectors);
    eprintln!("MiniLM vs sentence-transformers: max abs diff {diff:e}");
    assert!(diff <= 1e-4, "max abs diff {diff}");
    // Two batches at once (batch size 32: 40 texts make two) give the same vectors.
    let many: Vec<&str> = refs.iter().cycle().take(40).copied().collect();
    let two = MiniLmEmbedder::load(model.dir())
        .unwrap()
        .with_workers(2)
        .embed_batch(&many)
        .unwrap();
    let expected: Vec<Vec<f32>> = r.vectors.iter().cycle().take(40).cloned().collect();
    let diff = max_abs_diff(&two, &expected);
    assert!(diff <= 1e-4, "two workers: max abs diff {diff}");
    // One at a time (no padding) gives the same vectors as the padded batch.
    let single: Vec<Vec<f32>> = refs.iter().map(|t| model.embed(t).unwrap()).collect();
    let diff = max_abs_diff(&single, &r.vectors);
    assert!(diff <= 1e-4, "unbatched: max abs diff {diff}");
}

#[test]
fn minilm_knows_paraphrase_from_unrelated() {
    let Some(model) = minilm("minilm_knows_paraphrase_from_unrelated") else {
        return;
    };
    let v = model
        .embed_batch(&[
            "take the money and leave",
            "grab the cash and go",
            "the weather is lovely by the sea",
        ])
        .unwrap();
    let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(cos(&v[0], &v[1]) > cos(&v[0], &v[2]) + 0.2);
}

#[test]
fn minilm_aligns_the_sample_film_through_the_cache() {
    let Some(model) = minilm("minilm_aligns_the_sample_film_through_the_cache") else {
        return;
    };
    let film = root().join("screenplays/the-second-key");
    let play = screenplay::parse_file(&film.join("script.fountain"), None).unwrap();
    let subs = subtitles::parse_file(&film.join("subtitles.srt"), None).unwrap();
    let gold = Gold::from_json(&std::fs::read_to_string(film.join("alignment_gold.json")).unwrap())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ws.db")).unwrap();
    let cached = CachedEmbedder::new(&model, &store);
    let opts = AlignOptions::default();
    let first = align_with(&play, &subs, &opts, &cached).unwrap();
    assert_eq!(first.summary.embedder, "all-MiniLM-L6-v2");
    let stored = store.cached_embedding_count(model.model_id()).unwrap();
    assert!(stored > 100, "{stored} vectors cached");
    // The second run reads every vector from the cache and aligns identically.
    let second = align_with(&play, &subs, &opts, &cached).unwrap();
    assert_eq!(
        store.cached_embedding_count(model.model_id()).unwrap(),
        stored
    );
    assert_eq!(
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&second).unwrap()
    );
    let report = evaluate(&first, &gold, &subs);
    eprintln!(
        "MiniLM on the sample film: precision {:.4} recall {:.4}",
        report.precision, report.recall
    );
    assert!(report.precision >= 0.95, "precision {}", report.precision);
    assert!(report.recall >= 0.95, "recall {}", report.recall);
}

fn moviegraph(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(args)
        .current_dir(root())
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove("MOVIEGRAPH_EMBEDDER")
        .output()
        .unwrap()
}

const SCRIPT: &str = "screenplays/the-second-key/script.fountain";
const SUBS: &str = "screenplays/the-second-key/subtitles.srt";

#[test]
fn auto_without_model_files_says_it_runs_the_hashed_baseline() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    let out = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--model-dir",
        dir,
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hashed character-n-gram"), "{err}");
    assert!(err.contains("offline baseline"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("embedder: hashed-char-ngram-512"), "{text}");
}

#[test]
fn minilm_without_model_files_is_an_error_naming_file_and_setup() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    let out = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--embedder",
        "minilm",
        "--model-dir",
        dir,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.json: missing"), "{err}");
    assert!(err.contains("scripts/setup-models"), "{err}");
    // A folder with some files that do not verify is an error under auto too.
    std::fs::write(empty.path().join("config.json"), "{}").unwrap();
    let out = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--model-dir",
        dir,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sha256"), "{err}");
}

#[test]
fn hashed_json_summary_names_the_embedder() {
    let out = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--embedder",
        "hashed",
        "--json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["embedder"], "hashed-char-ngram-512");
}

/// `run` with the embedder it was given or found, named in its summary.
fn run_sample(embedder: Option<&str>, minilm_dir: &std::path::Path) -> std::process::Output {
    let ws = tempfile::tempdir().unwrap();
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"));
    c.args([
        "run",
        "screenplays/the-second-key",
        "--until",
        "align",
        "--store",
    ])
    .arg(ws.path().join("w.db"))
    .arg("--out")
    .arg(ws.path())
    .current_dir(root())
    .env_remove("MOVIEGRAPH_STORE")
    .env_remove("MOVIEGRAPH_EMBEDDER")
    .env("MOVIEGRAPH_MINILM_DIR", minilm_dir);
    if let Some(e) = embedder {
        c.args(["--embedder", e]);
    }
    c.output().unwrap()
}

#[test]
fn run_chooses_the_embedder_as_align_does() {
    let empty = tempfile::tempdir().unwrap();
    // auto without the model files: the hashed baseline, with a note, said so.
    let out = run_sample(None, empty.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("all-MiniLM-L6-v2 files not found"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("embedder hashed-char-ngram-512, the offline baseline"),
        "{text}"
    );
    // Asked for MiniLM without its files: an error naming the setup script.
    let out = run_sample(Some("minilm"), empty.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("setup-models"), "{err}");
}
