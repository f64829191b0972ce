//! `moviegraph doctor` through the binary: an endpoint that answers and one that
//! is down (loopback only), a missing key variable, a corrupted store, missing
//! model files; and a healthy workspace that passes without showing its key.

use std::path::Path;
use std::process::{Command, Output};

use moviegraph::store::Store;
use moviegraph_loopback::{LoopbackServer, ServerOptions};

const SCRIPT: &str = "INT. HARBOUR OFFICE - NIGHT\n\nANNA sorts the mail.\n\nBEN\nDid the ferry come in?\n\nANNA\nAn hour ago.\n";
const SUBTITLES: &str =
    "1\n00:00:05,000 --> 00:00:07,000\nDid the ferry come in?\n\n2\n00:00:07,500 --> 00:00:09,000\nAn hour ago.\n";
const KEY_VAR: &str = "MOVIEGRAPH_DOCTOR_TEST_KEY";

fn doctor(dir: &Path, args: &[&str], key: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_moviegraph"));
    cmd.arg("doctor")
        .args(args)
        .current_dir(dir)
        // Model files are looked for under this empty home only.
        .env("HOME", dir.join("home"))
        .env_remove("XDG_CACHE_HOME")
        .env_remove("MOVIEGRAPH_MODELS")
        .env_remove("MOVIEGRAPH_MINILM_DIR")
        .env_remove("MOVIEGRAPH_LOCAL_MODEL")
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove(KEY_VAR);
    if let Some(key) = key {
        cmd.env(KEY_VAR, key);
    }
    let out: Output = cmd.output().expect("the binary runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

fn workspace(dir: &Path) {
    let film = dir.join("screenplays/harbour-night");
    std::fs::create_dir_all(&film).unwrap();
    std::fs::write(film.join("script.fountain"), SCRIPT).unwrap();
    std::fs::write(film.join("subtitles.srt"), SUBTITLES).unwrap();
    std::fs::create_dir_all(dir.join("keyframes/harbour-night")).unwrap();
}

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn every_problem_is_a_finding_with_its_fix() {
    let server = LoopbackServer::start(ServerOptions::default()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    workspace(dir);
    std::fs::write(
        dir.join("m.toml"),
        format!(
            "[roles]\nsubject = \"up\"\njudge = \"keyed\"\n\
             [models.up]\nbackend = \"openai\"\nbase_url = \"{url}\"\n\
             [models.keyed]\nbackend = \"openai\"\nbase_url = \"{url}\"\napi_key_env = \"{KEY_VAR}\"\n\
             [models.down]\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\ntimeout_s = 2\n",
            url = server.url(),
            port = closed_port()
        ),
    )
    .unwrap();
    // A store whose second page is overwritten with garbage.
    {
        let store = Store::open(&dir.join("ws.db")).unwrap();
        store.ensure_film("harbour-night", None).unwrap();
    }
    let mut bytes = std::fs::read(dir.join("ws.db")).unwrap();
    assert!(bytes.len() > 3 * 4096);
    bytes[4096..8192].fill(0xA5);
    std::fs::write(dir.join("ws.db"), bytes).unwrap();

    let (code, out) = doctor(dir, &["--config", "m.toml", "--store", "ws.db"], None);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("ok    film harbour-night: screenplays/harbour-night/script.fountain parses")
            || out.contains(
                "ok    film harbour-night: ./screenplays/harbour-night/script.fountain parses"
            ),
        "{out}"
    );
    assert!(out.contains("(2 cues)"), "{out}");
    assert!(
        out.contains("ok    endpoint up at http://127.0.0.1:"),
        "{out}"
    );
    assert!(out.contains(": answered in "), "{out}");
    assert!(
        out.contains("FAIL  endpoint down at http://127.0.0.1:"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "FAIL  config: model keyed: key variable ${KEY_VAR} is not set\n      fix: export {KEY_VAR}=…"
        )),
        "{out}"
    );
    assert!(out.contains("FAIL  store: "), "{out}");
    assert!(out.contains("warn  models: MiniLM:"), "{out}");
    assert!(out.contains("fix: run scripts/setup-models"), "{out}");

    // The same workspace with the key set, a sound store and no dead endpoint.
    std::fs::write(
        dir.join("ok.toml"),
        format!(
            "[roles]\njudge = \"keyed\"\n\
             [models.keyed]\nbackend = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\n",
            server.url()
        ),
    )
    .unwrap();
    drop(Store::open(&dir.join("good.db")).unwrap());
    let secret = "sk-doctor-secret-4242";
    let (code, out) = doctor(
        dir,
        &["--config", "ok.toml", "--store", "good.db"],
        Some(secret),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains(&format!(
        "ok    config: model keyed: key variable ${KEY_VAR} is set"
    )));
    assert!(
        out.contains("ok    store: good.db is sound, schema version"),
        "{out}"
    );
    assert!(out.contains("0 failed"), "{out}");
    assert!(!out.contains(secret), "the key is never shown");
}

#[test]
fn a_missing_store_is_not_created_and_junk_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (code, out) = doctor(dir, &["--store", "none.db"], None);
    assert_eq!(
        code,
        Some(0),
        "offline defaults with nothing set up only warn: {out}"
    );
    assert!(
        out.contains("warn  workspace: no ./screenplays folder"),
        "{out}"
    );
    assert!(
        out.contains("warn  store: none.db does not exist yet"),
        "{out}"
    );
    assert!(out.contains("ok    endpoints: none configured"), "{out}");
    assert!(!dir.join("none.db").exists());

    std::fs::write(dir.join("junk.db"), "not a database, just some text here").unwrap();
    std::fs::write(dir.join("bad.toml"), "[roles]\njudge = \"nobody\"\n").unwrap();
    let (code, out) = doctor(dir, &["--store", "junk.db", "--config", "bad.toml"], None);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("FAIL  store: "), "{out}");
    assert!(out.contains("FAIL  config: bad.toml"), "{out}");
}

#[test]
fn ffmpeg_is_reported_found_or_missing_with_its_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    workspace(dir);
    let missing = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .arg("doctor")
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env_remove("MOVIEGRAPH_STORE")
        .env("MOVIEGRAPH_FFMPEG", dir.join("no-such-ffmpeg"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&missing.stdout).into_owned();
    assert!(text.contains("warn  video: ffmpeg not found ("), "{text}");
    assert!(text.contains("apt-get install ffmpeg"), "{text}");
    assert!(
        text.contains("fix: only needed for films given as a video file"),
        "{text}"
    );
    if crate::common::video::have_ffmpeg() {
        let (_, text) = doctor(dir, &[], None);
        assert!(text.contains("ok    video: ffmpeg version "), "{text}");
        assert!(
            text.contains("shot detectors: adaptive, content, robust, transnet (default robust)"),
            "{text}"
        );
    }
    // No weights under this HOME: said, with the fix, and robust is the default.
    let (_, text) = doctor(dir, &[], None);
    assert!(
        text.contains("warn  video: TransNetV2: ")
            && text.contains("weights are not installed")
            && text.contains("shots fall back to the robust detector"),
        "{text}"
    );
    assert!(
        text.contains("fix: scripts/setup-models --only transnetv2"),
        "{text}"
    );
}
