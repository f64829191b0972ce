//! The binary's contract: exit codes (0 ok, 1 check failed, 2 error), errors
//! that name the file and line, the JSON shape, and quiet broken pipes.

use crate::common;

use std::io::Read;
use std::path::Path;
use std::process::{Output, Stdio};

fn moviegraph(args: &[&str]) -> Output {
    crate::common::moviegraph_offline()
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

const SAMPLE: &str = "screenplays/the-second-key";

#[test]
fn missing_file_is_an_error_naming_it() {
    let o = moviegraph(&["parse", "no/such/script.fountain"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no/such/script.fountain"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn binary_file_is_refused_with_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "x.fountain",
        b"INT. HOUSE - DAY\n\n\x00\x01\x02\x03PK",
    );
    let o = moviegraph(&["parse", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(&format!("{p}:3:")), "{err}");
    assert!(err.contains("not a text file"), "{err}");
}

#[test]
fn empty_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "empty.txt", b"");
    let o = moviegraph(&["parse", &p]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
}

#[test]
fn huge_file_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.fountain");
    // Sparse: 500 MB of apparent size, no disk used, and never read.
    std::fs::File::create(&p)
        .unwrap()
        .set_len(500 * 1024 * 1024)
        .unwrap();
    let o = moviegraph(&["parse", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("too large"), "{}", stderr(&o));
}

#[test]
fn directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = moviegraph(&["parse", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("directory"), "{}", stderr(&o));
}

#[test]
fn malformed_fdx_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let fdx = b"<?xml version=\"1.0\"?>\n<FinalDraft>\n<Content>\n<Paragraph Type=\"Action\">\n<Text>Hi</Txt>\n</Paragraph>\n</Content>\n</FinalDraft>\n";
    let p = write(dir.path(), "bad.fdx", fdx);
    let o = moviegraph(&["parse", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(&format!("{p}:5:")), "{err}");
    assert!(err.contains("malformed FDX"), "{err}");
}

#[test]
fn latin1_and_utf16_are_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let latin1 = write(
        dir.path(),
        "latin1.fountain",
        b"INT. CAF\xC9 - DAY\n\nJOS\xC9\nBonjour.\n",
    );
    let o = moviegraph(&["parse", &latin1, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["encoding"], "Windows-1252");
    assert_eq!(v["scenes"][0]["heading"], "INT. CAFÉ - DAY");
    assert_eq!(v["characters"][0]["name"], "JOSÉ");

    let text = "INT. CAFÉ - DAY\n\nJOSÉ\nBonjour.\n";
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let p = write(dir.path(), "utf16.fountain", &utf16);
    let o = moviegraph(&["parse", &p, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["encoding"], "UTF-16LE");
    assert_eq!(v["characters"][0]["name"], "JOSÉ");
}

#[test]
fn json_has_the_documented_shape() {
    let o = moviegraph(&["parse", &format!("{SAMPLE}/script.fountain"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["elements", "scenes", "characters", "noise", "diagnostics"] {
        assert!(v[key].is_array(), "missing {key}");
    }
    let first_dialogue = v["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "dialogue")
        .expect("the sample has dialogue");
    assert!(first_dialogue["speaker"].is_string());
    assert!(first_dialogue["lines"].as_array().unwrap().len() == 2);
    assert!(first_dialogue["scene"].is_u64());
    let scene = &v["scenes"][0];
    for key in ["heading", "int_ext", "location", "time_of_day", "elements"] {
        assert!(scene.get(key).is_some(), "scene lacks {key}");
    }
}

#[test]
fn run_summarises_the_sample_film() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ws.db");
    let out_dir = dir.path().join("out");
    let o = moviegraph(&[
        "run",
        SAMPLE,
        "--store",
        db.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("film the-second-key"), "{out}");
    assert!(out.contains("scenes"), "{out}");
    assert!(out.contains("agreement of the other versions"), "{out}");
}

#[test]
fn run_on_a_folder_without_a_script_says_what_it_expects() {
    let dir = tempfile::tempdir().unwrap();
    let o = moviegraph(&["run", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("script.fountain"), "{}", stderr(&o));
}

#[test]
fn against_below_the_bar_exits_one() {
    let dir = tempfile::tempdir().unwrap();
    let reference = write(
        dir.path(),
        "ref.fountain",
        b"INT. A - DAY\n\nMARA\nHello.\n\nCUT TO:\n\nEXT. B - NIGHT\n\nRain.\n",
    );
    let wrong = write(dir.path(), "wrong.fountain", b"EXT. B - NIGHT\n\nRain.\n");
    let o = moviegraph(&["parse", &wrong, "--against", &reference]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = moviegraph(&["parse", &reference, "--against", &reference]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn broken_pipe_ends_quietly() {
    let mut child = crate::common::moviegraph_offline()
        .args(["parse", &format!("{SAMPLE}/script.fountain"), "--json"])
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // stdout is dropped here: the next write gets EPIPE.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
}

#[test]
fn help_teaches() {
    let o = moviegraph(&["parse", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Examples:"), "{out}");
    assert!(out.contains("--against"), "{out}");
}

#[test]
fn each_command_offers_only_the_role_flags_it_calls() {
    const ROLES: [&str; 6] = [
        "--generator",
        "--auditors",
        "--adjudicator",
        "--subject",
        "--judge",
        "--embedder",
    ];
    for (command, offered) in [
        (
            &["graph", "build"][..],
            &["--generator", "--auditors", "--adjudicator"][..],
        ),
        (&["eval", "run"][..], &["--subject", "--judge"][..]),
        (&["llm", "run-batch"][..], &[][..]),
        (&["run"][..], &ROLES[..]),
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let help = String::from_utf8_lossy(&moviegraph(&args).stdout).into_owned();
        assert!(help.contains("--config"), "{command:?}:\n{help}");
        for flag in ROLES {
            assert_eq!(
                help.contains(&format!("{flag} <")),
                offered.contains(&flag),
                "{command:?} and {flag}:\n{help}"
            );
        }
    }
}

#[test]
fn trees_generate_offers_only_the_role_it_calls() {
    let help =
        String::from_utf8_lossy(&moviegraph(&["trees", "generate", "--help"]).stdout).into_owned();
    assert!(help.contains("--generator"), "{help}");
    for flag in [
        "--auditors",
        "--adjudicator",
        "--subject",
        "--judge",
        "--embedder",
    ] {
        assert!(
            !help.contains(flag),
            "{flag} does nothing for trees generate:\n{help}"
        );
    }
    let o = moviegraph(&[
        "trees",
        "generate",
        "screenplays/the-second-key",
        "--judge",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn align_prints_json_eval_and_keyframes() {
    let film = "screenplays/the-second-key";
    let script = format!("{film}/script.fountain");
    let subs = format!("{film}/subtitles.srt");
    let gold = format!("{film}/alignment_gold.json");
    let shots = "keyframes/the-second-key/shot_txt/the-second-key.txt";
    let out = moviegraph(&[
        "align",
        "--script",
        &script,
        "--subtitles",
        &subs,
        "--json",
        "--eval",
        &gold,
        "--shots",
        shots,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["verdict"], "aligned");
    assert_eq!(v["alignments"].as_array().unwrap().len(), 107);
    assert_eq!(v["alignments"][0]["cues"], serde_json::json!([1]));
    assert_eq!(v["eval"]["precision"], 1.0);
    assert!(v["blocks"][0]["keyframes"].as_array().unwrap().len() > 1);

    let text = moviegraph(&[
        "align",
        "--script",
        &script,
        "--subtitles",
        &subs,
        "--eval",
        &gold,
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("verdict: ALIGNED") && text.contains("precision 1.0000"),
        "{text}"
    );
}

#[test]
fn align_mismatch_exits_zero_and_says_so() {
    let out = moviegraph(&[
        "align",
        "--script",
        "tests/fixtures/fountain/speech.fountain",
        "--subtitles",
        "screenplays/the-second-key/subtitles.srt",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict: MISMATCH"));
    let missing = moviegraph(&[
        "align",
        "--script",
        "nope.fountain",
        "--subtitles",
        "nope.srt",
    ]);
    assert_eq!(missing.status.code(), Some(2));
}
