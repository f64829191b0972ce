//! `run` on subtitles with malformed cues: each reported by file and line, a few
//! read past, more than 5 % stopping the film unless `--allow-bad-cues`.

use crate::run::{command, workspace, FILM};

#[test]
fn malformed_subtitle_cues_are_warned_of_by_line_and_a_mostly_broken_file_stops_the_film() {
    let ws = workspace();
    let srt = ws.path().join(FILM).join("subtitles.srt");
    let text = std::fs::read_to_string(&srt).unwrap();
    // Break the start time of every `every`-th cue.
    let broken = |every: usize| -> String {
        let mut k = 0;
        text.lines()
            .map(|l| {
                if l.contains(" --> ") {
                    k += 1;
                    if k % every == 0 {
                        return l.replacen(',', "x", 1);
                    }
                }
                l.to_owned()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    std::fs::write(&srt, broken(20)).unwrap();
    let o = command(ws.path(), &["run", FILM, "--store", "w.db"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("subtitles.srt:") && err.contains("cue skipped"),
        "each problem with its file and line: {err}"
    );
    assert!(err.contains("5 of 106 cues skipped as malformed"), "{err}");
    // Redirected, the log has no colour codes.
    assert!(!err.contains('\u{1b}'), "{err}");
    // One cue in ten broken (10 of 106): more than 5 %, so the film stops before
    // align, naming the first bad line and the flag that aligns it anyway.
    std::fs::write(&srt, broken(10)).unwrap();
    let o = command(ws.path(), &["run", FILM, "--store", "w.db"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("10 of 106 cues (9.4 %) are malformed") && err.contains("--allow-bad-cues"),
        "{err}"
    );
    assert!(err.contains("subtitles.srt: 10 of 106"), "{err}");
    let o = command(
        ws.path(),
        &["run", FILM, "--store", "w.db", "--allow-bad-cues"],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("10 of 106 cues skipped as malformed"), "{err}");
    std::fs::write(&srt, broken(1).replacen('x', ",", 20)).unwrap();
    let o = command(ws.path(), &["run", FILM, "--store", "w.db"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("86 of 106 cues are malformed"), "{err}");
}
