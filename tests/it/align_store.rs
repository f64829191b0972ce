//! `moviegraph align --store/--jsonl/--shots MANIFEST` and `moviegraph run`'s
//! alignment stage: what reaches the store and the export.

use crate::common;

use std::path::Path;
use std::process::Output;

use moviegraph::align::store::AlignmentStore;
use moviegraph::store::Store;

const SCRIPT: &str = "screenplays/the-second-key/script.fountain";
const SUBS: &str = "screenplays/the-second-key/subtitles.srt";

fn moviegraph(args: &[&str]) -> Output {
    crate::common::moviegraph_offline()
        .args(args)
        .current_dir(common::root())
        .env_remove("MOVIEGRAPH_STORE")
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn align_stores_the_result_and_exports_jsonl() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("ws.db");
    let out = tmp.path().join("out.jsonl");
    let o = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--shots",
        "keyframes/the-second-key",
        "--store",
        db.to_str().unwrap(),
        "--jsonl",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = jsonl(&out);
    assert_eq!(rows[0]["type"], "summary");
    assert_eq!(rows[0]["film"], "the-second-key");
    assert_eq!(rows[0]["verdict"], "aligned");
    let lines: Vec<_> = rows.iter().filter(|r| r["type"] == "alignment").collect();
    let blocks: Vec<_> = rows.iter().filter(|r| r["type"] == "block").collect();
    assert_eq!(lines.len(), 107);
    assert_eq!(lines.len() + blocks.len() + 1, rows.len());
    assert_eq!(lines[0]["cues"], serde_json::json!([1]));
    assert_eq!(lines[0]["speaker"], "QUINTON");

    let store = Store::open(&db).unwrap();
    let film = store.film_id("the-second-key").unwrap().unwrap();
    let stored = store.load_alignment(film).unwrap().unwrap();
    assert_eq!(stored.alignment.summary.verdict.as_str(), "aligned");
    assert_eq!(stored.shots, 140);
    assert!(stored
        .sources
        .shots
        .unwrap()
        .path
        .ends_with("shot_txt/the-second-key.txt"));
    let stored_blocks = store.load_blocks(film).unwrap();
    assert_eq!(stored_blocks.len(), blocks.len());
    for (b, row) in stored_blocks.iter().zip(&blocks) {
        assert_eq!(row["id"], b.id);
        assert_eq!(row["text"], b.script_text());
        assert_eq!(
            row["keyframes"],
            serde_json::to_value(&b.keyframes).unwrap()
        );
        if b.start_ms.is_some() {
            assert!(b.representative_keyframes().count() >= 1);
        }
    }

    // Aligning again with --film stores a second film; the first is unchanged.
    let o = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--store",
        db.to_str().unwrap(),
        "--film",
        "copy",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let store = Store::open(&db).unwrap();
    let copy = store.film_id("copy").unwrap().unwrap();
    assert_eq!(store.load_alignment(copy).unwrap().unwrap().shots, 0);
    assert_eq!(store.load_alignment(film).unwrap().unwrap().shots, 140);
}

/// A film folder with a manifest over three fake keyframes, one row that
/// climbs out of the folder and, on Unix, one symlink that points outside.
fn manifest_film(tmp: &Path) -> std::path::PathBuf {
    let film = tmp.join("film");
    std::fs::create_dir_all(film.join("kf")).unwrap();
    std::fs::write(tmp.join("secret.jpg"), "x").unwrap();
    for name in ["a.jpg", "b.jpg", "c.jpg"] {
        std::fs::write(film.join("kf").join(name), "img").unwrap();
    }
    let mut csv = String::from("path,time\nkf/a.jpg,0\n../secret.jpg,00:01:00.000\nkf/b.jpg,00:01:30.000\nkf/c.jpg,00:03:00.000\n");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(tmp.join("secret.jpg"), film.join("kf/link.jpg")).unwrap();
        csv.push_str("kf/link.jpg,00:04:00.000\n");
    }
    std::fs::write(film.join("keyframes.csv"), csv).unwrap();
    film
}

#[test]
fn align_takes_a_manifest_confined_to_the_film_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let film = manifest_film(tmp.path());
    let manifest = film.join("keyframes.csv");
    let o = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--shots",
        manifest.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The refused rows are reported with their line.
    let err = stderr(&o);
    assert!(err.contains("keyframes.csv:3:"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let root = film.canonicalize().unwrap();
    let mut seen = 0;
    for b in v["blocks"].as_array().unwrap() {
        for k in b["keyframes"].as_array().unwrap() {
            let p = Path::new(k["path"].as_str().unwrap());
            assert!(
                p.starts_with(&root),
                "{} escapes the film folder",
                p.display()
            );
            assert!(!p.ends_with("secret.jpg") && !p.ends_with("link.jpg"));
            seen += 1;
        }
    }
    assert!(seen >= 3, "{seen} keyframes attached");

    // JSON manifests are read too, and a malformed one is an error naming file and line.
    let json = film.join("keyframes.json");
    std::fs::write(
        &json,
        "[{\"path\": \"kf/a.jpg\", \"time_ms\": 0},\n {\"path\": \"kf/b.jpg\", \"time_ms\": 90000}]\n",
    )
    .unwrap();
    let o = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--shots",
        json.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!v["blocks"][0]["keyframes"].as_array().unwrap().is_empty());
    std::fs::write(&json, "[{\"path\": \"kf/a.jpg\",\n \"time_ms\": }]\n").unwrap();
    let o = moviegraph(&[
        "align",
        "--script",
        SCRIPT,
        "--subtitles",
        SUBS,
        "--shots",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("keyframes.json") && err.contains("line 2"),
        "{err}"
    );
}

#[test]
fn run_aligns_a_film_folder_with_subtitles_and_stores_it() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("ws.db");
    // `run` writes graphs/, trees/ and reports/: keep them out of the project.
    let out_dir = tmp.path().join("out");
    let o = moviegraph(&[
        "run",
        "screenplays/the-second-key",
        "--store",
        db.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("stage align: aligned"), "{out}");
    assert!(
        out.contains("embedder hashed-char-ngram-512, the offline baseline"),
        "{out}"
    );
    assert!(out.contains("140 shots"), "{out}");
    let store = Store::open(&db).unwrap();
    let film = store.film_id("the-second-key").unwrap().unwrap();
    assert_eq!(store.load_blocks(film).unwrap().len(), 16);

    // A copied folder with a manifest: the manifest gives the shots.
    let film_dir = manifest_film(tmp.path());
    let root = common::root().join("screenplays/the-second-key");
    for f in ["script.fountain", "subtitles.srt"] {
        std::fs::copy(root.join(f), film_dir.join(f)).unwrap();
    }
    let o = moviegraph(&[
        "run",
        film_dir.to_str().unwrap(),
        "--store",
        db.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("stage align: aligned") && out.contains("keyframes.csv"),
        "{out}"
    );
    let store = Store::open(&db).unwrap();
    let film = store.film_id("film").unwrap().unwrap();
    assert!(store.load_alignment(film).unwrap().unwrap().shots >= 3);

    // Without subtitles there is no alignment stage.
    std::fs::remove_file(film_dir.join("subtitles.srt")).unwrap();
    let o = moviegraph(&[
        "run",
        film_dir.to_str().unwrap(),
        "--store",
        db.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("stage align"));
}
