//! `moviegraph walk` in a real terminal: tmux runs it on a hand-made tree, the test
//! types the answers (quitting after the first question and coming back, which resumes
//! the run), and then checks the run and its scores in the store. Skipped with a
//! printed reason when tmux is absent.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "walk"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    fn text(&self, text: &str) {
        assert!(self
            .run(&["send-keys", "-t", "walk", "-l", text])
            .status
            .success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-J", "-t", "walk"]).stdout)
            .into_owned()
    }

    /// Waits until the pane shows `text`, returning the screen.
    fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the pane never showed {text:?}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn new_session(&self, command: &str) -> Output {
        self.run(&[
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            "walk",
            command,
        ])
    }

    /// Starts the walker in a fresh 120×40 session; the shell stays to show its exit.
    fn start(&self, dir: &Path) {
        // A fresh server each time: killing the last session makes the server exit, and a
        // `new-session` sent while it is exiting fails with "server exited unexpectedly"
        // (seen in CI), so wait until no server answers, then retry the start briefly.
        let _ = self.run(&["kill-server"]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.run(&["list-sessions"]).status.success() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let command = format!(
            "cd '{}' && env -u MOVIEGRAPH_STORE '{}' walk trees/tiny.jsonl --annotator ana --store ws.db --preview ascii; echo EXITED $?; sleep 600",
            dir.display(),
            env!("CARGO_BIN_EXE_moviegraph")
        );
        let mut out = self.new_session(&command);
        for _ in 0..20 {
            if out.status.success() {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
            out = self.new_session(&command);
        }
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn a_person_walks_a_tree_in_the_terminal_and_the_run_is_stored() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("trees")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/walk/tiny.jsonl"),
        dir.path().join("trees/tiny.jsonl"),
    )
    .unwrap();
    // The tree's keyframe: black on the left, white on the right, 4:1.
    std::fs::create_dir_all(dir.path().join("keyframes/tiny")).unwrap();
    image::RgbImage::from_fn(64, 16, |x, _| {
        image::Rgb(if x < 32 { [0, 0, 0] } else { [255, 255, 255] })
    })
    .save(dir.path().join("keyframes/tiny/k1.png"))
    .unwrap();
    let tmux = Tmux {
        socket: format!("moviegraph-walk-test-{}", std::process::id()),
    };

    tmux.start(dir.path());
    let screen = tmux.wait_for("node n1");
    assert!(screen.contains("TEST mode") && screen.contains("What does Mara believe"));
    assert!(!screen.contains("GOLD"), "test mode shows no gold");
    // People read how to answer in words for them, not the models' format.
    assert!(
        !screen.contains("square brackets") && screen.contains("Choose"),
        "{screen}"
    );
    // The keyframe's ASCII preview: dark cells, then bright ones.
    assert!(screen.contains("keyframes/tiny/k1.png"), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("     @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@")),
        "{screen}"
    );
    tmux.keys(&["b"]);
    tmux.wait_for("Your answer: B");
    // Backspace clears an unconfirmed choice; A is the answer given.
    tmux.keys(&["BSpace", "a"]);
    tmux.wait_for("Your answer: A");
    // Explore mode (gold) stays locked while the run has questions left.
    tmux.keys(&["Tab"]);
    let screen = tmux.wait_for("it opens once this test run is complete");
    assert!(
        screen.contains("TEST mode") && !screen.contains("[GOLD]"),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("node n2");
    // Quit in the middle: the answer to n1 is stored, the walker says how to resume.
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("EXITED 0");
    assert!(
        screen.contains("1 answers recorded in this session"),
        "{screen}"
    );
    assert!(
        screen.contains("run the same command to resume"),
        "{screen}"
    );

    // Back again: the run resumes at n2 (phase 1, after the correct A).
    tmux.start(dir.path());
    tmux.wait_for("node n2 · phase 1");
    tmux.keys(&["a", "c"]);
    tmux.wait_for("Your answer: A, C");
    tmux.keys(&["C-p"]);
    tmux.wait_for("path so far");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("node n3 · phase 2");
    assert!(screen.contains("Thought experiment"), "{screen}");
    // The path shows the answers as given, never the models' [[…]] format.
    assert!(
        screen.contains("n2 (phase 1): A, C") && !screen.contains("[["),
        "{screen}"
    );
    tmux.text("she believes someone took the key");
    tmux.wait_for("Your answer: she believes someone took the key_");
    tmux.keys(&["Enter"]);
    tmux.wait_for("complete: 1 trees, 3 answers stored (2 in this session)");
    // Explore mode shows gold and the reasons.
    tmux.keys(&["Tab"]);
    let screen = tmux.wait_for("EXPLORE mode");
    assert!(
        screen.contains("[GOLD]") && screen.contains("plausible motive"),
        "{screen}"
    );
    tmux.keys(&["b"]);
    tmux.wait_for("node n3 · depth 2");
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("EXITED 0");
    assert!(
        screen.contains("complete (moviegraph eval report human-ana-"),
        "{screen}"
    );

    common::walk::check_anas_run(dir.path());
}

#[test]
fn with_a_long_excerpt_the_question_and_options_stay_on_screen_and_no_model_format_shows() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("trees")).unwrap();
    // The tiny tree with an excerpt of 120 lines: three screens of a 40-row terminal.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/walk/tiny.jsonl"),
    )
    .unwrap();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(nodes) = v["nodes"].as_array_mut() {
            let long: Vec<String> = (1..=120)
                .map(|i| format!("MARA: line {i} of a scene that goes on and on."))
                .collect();
            nodes[0]["context"]["excerpt"] = serde_json::Value::String(long.join("\n"));
        }
        lines.push(v.to_string());
    }
    std::fs::write(dir.path().join("trees/tiny.jsonl"), lines.join("\n") + "\n").unwrap();
    let tmux = Tmux {
        socket: format!("moviegraph-walk-long-{}", std::process::id()),
    };
    tmux.start(dir.path());
    let screen = tmux.wait_for("node n1");
    assert!(screen.contains("What does Mara believe"), "{screen}");
    for option in ["A. That someone took it", "B. That she lost it at sea"] {
        assert!(screen.contains(option), "option on screen: {screen}");
    }
    assert!(screen.contains("line 1 of a scene"), "{screen}");
    assert!(
        !screen.contains("line 120 of a scene"),
        "the excerpt scrolls: {screen}"
    );
    assert!(
        !screen.contains("[["),
        "no model answer format reaches a person: {screen}"
    );
    assert!(
        screen.contains("PgUp") && screen.contains("PgDn"),
        "{screen}"
    );
    // Scrolling the excerpt keeps the question where it was.
    tmux.keys(&["PgDn", "PgDn", "PgDn", "PgDn", "PgDn"]);
    let screen = tmux.wait_for("What does Mara believe");
    assert!(!screen.contains("line 1 of a scene "), "{screen}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("EXITED 0");
}
