//! The aligner on the sample film against `alignment_gold.json`, on an
//! unrelated script, and on synthetic cases with gold.

use crate::common;

use std::collections::HashSet;
use std::path::PathBuf;

use moviegraph::align::eval::{evaluate, Gold};
use moviegraph::align::synth::{synth, SynthOptions};
use moviegraph::align::{align, attach_shots, AlignOptions, Alignment, Verdict};
use moviegraph::media::shots::{MovieNetPaths, ShotList};
use moviegraph::media::subtitles::{self, Subtitles};
use moviegraph::screenplay::{self, Screenplay};

fn film() -> PathBuf {
    common::root().join("screenplays/the-second-key")
}

fn sample() -> (Screenplay, Subtitles, Gold) {
    let dir = film();
    let play = screenplay::parse_file(&dir.join("script.fountain"), None).unwrap();
    let subs = subtitles::parse_file(&dir.join("subtitles.srt"), None).unwrap();
    let gold = Gold::from_json(&std::fs::read_to_string(dir.join("alignment_gold.json")).unwrap())
        .unwrap();
    (play, subs, gold)
}

fn with_shots(mut a: Alignment) -> Alignment {
    let shots = common::root().join("keyframes/the-second-key/shot_txt/the-second-key.txt");
    let list = ShotList::load_movienet(&MovieNetPaths::explicit(&shots, None), None).unwrap();
    attach_shots(&mut a, &list, 5, 3_000);
    a
}

#[test]
fn sample_lines_align_to_the_gold_cues() {
    let (play, subs, gold) = sample();
    let a = align(&play, &subs, &AlignOptions::default());
    assert_eq!(a.alignments.len(), gold.dialogue.len());
    let mut misses = Vec::new();
    for g in &gold.dialogue {
        let got = &a.alignments[g.index];
        let mut cues = got.cues.clone();
        cues.sort_unstable();
        if cues != g.cues {
            misses.push(format!(
                "line {} ({}): predicted {:?}, gold {:?}",
                g.index, g.status, cues, g.cues
            ));
        }
        if cues.is_empty() {
            assert_eq!(got.start_ms, None);
        } else {
            let first = &subs.cues[cues[0] - 1];
            assert_eq!(got.start_ms, Some(first.start_ms));
            assert!(got.confidence > 0.45 && got.confidence <= 1.0);
        }
    }
    assert!(misses.is_empty(), "misses:\n{}", misses.join("\n"));
    assert_eq!(a.summary.verdict, Verdict::Aligned);
    let report = evaluate(&a, &gold, &subs);
    assert_eq!(report.precision, 1.0);
    assert_eq!(report.recall, 1.0);
    assert_eq!(report.cut_accuracy, 1.0);
}

#[test]
fn cut_scene_and_adlibs_stay_unmatched() {
    let (play, subs, gold) = sample();
    let a = align(&play, &subs, &AlignOptions::default());
    let cut: Vec<_> = gold
        .dialogue
        .iter()
        .filter(|g| g.status == "scene_cut")
        .collect();
    assert_eq!(cut.len(), 6);
    for g in cut {
        let line = &a.alignments[g.index];
        assert!(
            line.cues.is_empty(),
            "cut-scene line {} matched {:?}",
            g.index,
            line.cues
        );
        assert_eq!(play.elements[line.element].scene, Some(6));
    }
    let used: HashSet<usize> = a.alignments.iter().flat_map(|l| l.cues.clone()).collect();
    for c in &gold.adlib_cues {
        assert!(!used.contains(c), "ad-lib cue {c} was matched");
    }
    let block = a.blocks.iter().find(|b| b.scene == 6).unwrap();
    assert_eq!((block.start_ms, block.end_ms), (None, None));
    // Elements of the cut scene get no time.
    let sc = &play.scenes[6];
    assert!((sc.elements[0]..=sc.elements[1]).all(|e| a.element_times[e].is_none()));
}

#[test]
fn blocks_follow_scenes_with_gold_times() {
    let (play, subs, gold) = sample();
    let plain = align(&play, &subs, &AlignOptions::default());
    let shot = with_shots(plain.clone());
    for (a, tolerance) in [(&plain, 6_000u64), (&shot, 5_000)] {
        assert_eq!(a.blocks.len(), play.scenes.len());
        for (i, b) in a.blocks.iter().enumerate() {
            assert_eq!(b.id, i);
            assert_eq!(b.scene, i);
            assert_eq!(b.elements, play.scenes[i].elements);
            let g = &gold.scenes[i];
            match (b.start_ms, g.start_ms) {
                (Some(s), Some(gs)) => {
                    let e = b.end_ms.unwrap();
                    let ge = g.end_ms.unwrap();
                    // The first scene opens after a title card no cue shows.
                    let tol = if i == 0 { 10_000 } else { tolerance };
                    assert!(s.abs_diff(gs) <= tol, "scene {i} start {s} vs gold {gs}");
                    assert!(
                        e.abs_diff(ge) <= tolerance,
                        "scene {i} end {e} vs gold {ge}"
                    );
                }
                (None, None) => {}
                other => panic!("scene {i}: timed {other:?}"),
            }
        }
        let starts: Vec<u64> = a.blocks.iter().filter_map(|b| b.start_ms).collect();
        assert!(
            starts.windows(2).all(|w| w[0] <= w[1]),
            "blocks out of order"
        );
    }
    // With shots: most scene boundaries land exactly on the gold cut, and
    // every timed block has keyframes with at most five representatives.
    let exact = shot
        .blocks
        .iter()
        .filter(|b| b.start_ms.is_some() && b.start_ms == gold.scenes[b.scene].start_ms)
        .count();
    assert!(exact >= 11, "only {exact} scene starts on the gold cut");
    for b in shot.blocks.iter().filter(|b| b.start_ms.is_some()) {
        assert!(!b.keyframes.is_empty());
        let reps = b.keyframes.iter().filter(|k| k.representative).count();
        assert!((1..=5).contains(&reps));
    }
    // Non-dialogue elements of timed scenes get times, in order within a scene.
    for sc in play.scenes.iter().filter(|s| s.index != 6) {
        let times: Vec<u64> = (sc.elements[0]..=sc.elements[1])
            .map(|e| {
                plain.element_times[e]
                    .expect("timed scene element")
                    .start_ms
            })
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "scene {}", sc.index);
    }
}

#[test]
fn long_scenes_split_into_blocks() {
    let (play, subs, _) = sample();
    let opts = AlignOptions {
        block_max_ms: 20_000,
        ..AlignOptions::default()
    };
    let a = align(&play, &subs, &opts);
    assert!(a.blocks.len() > play.scenes.len());
    for w in a.blocks.windows(2) {
        assert!(w[0].elements[1] < w[1].elements[0]);
        assert!(w[0].scene <= w[1].scene);
    }
}

#[test]
fn banded_equals_naive_on_the_sample() {
    let (play, subs, _) = sample();
    let banded = align(&play, &subs, &AlignOptions::default());
    let naive = align(
        &play,
        &subs,
        &AlignOptions {
            naive: true,
            ..AlignOptions::default()
        },
    );
    assert_eq!(banded.alignments, naive.alignments);
    assert!(banded.summary.dp_cells * 3 < naive.summary.dp_cells);
}

fn assert_declined(play: &Screenplay, subs: &Subtitles, label: &str) {
    let a = align(play, subs, &AlignOptions::default());
    assert_eq!(
        a.summary.verdict,
        Verdict::Mismatch,
        "{label}: {:?}",
        a.summary
    );
    assert!(a
        .alignments
        .iter()
        .all(|l| l.cues.is_empty() && l.start_ms.is_none()));
    assert!(a.blocks.iter().all(|b| b.start_ms.is_none()));
}

#[test]
fn an_unrelated_script_is_a_mismatch() {
    let (_, subs, _) = sample();
    for fixture in [
        "speech.fountain",
        "structure.fountain",
        "international.fountain",
    ] {
        let path = common::root().join("tests/fixtures/fountain").join(fixture);
        let play = screenplay::parse_file(&path, None).unwrap();
        assert_declined(&play, &subs, fixture);
    }
    let big_fish =
        common::root().join("../shared/conformance/jumpcut/corpus/big-fish/source/source.fountain");
    if big_fish.is_file() {
        let play = screenplay::parse_file(&big_fish, None).unwrap();
        assert_declined(&play, &subs, "big fish");
        // And the other way round: the sample script against Big Fish's subtitles.
        let case = synth(&play, &SynthOptions::default());
        let (sample_play, _, _) = sample();
        assert_declined(
            &sample_play,
            &case.subtitles,
            "sample vs big fish subtitles",
        );
    } else {
        eprintln!("SKIPPED: {} is absent", big_fish.display());
    }
}

#[test]
fn synthetic_cases_reach_high_precision() {
    let mut plays = vec![("sample", sample().0)];
    let big_fish =
        common::root().join("../shared/conformance/jumpcut/corpus/big-fish/source/source.fountain");
    if big_fish.is_file() {
        plays.push(("big fish", screenplay::parse_file(&big_fish, None).unwrap()));
    }
    for (label, play) in &plays {
        for seed in 1..=4 {
            let case = synth(
                play,
                &SynthOptions {
                    seed,
                    ..SynthOptions::default()
                },
            );
            let a = align(play, &case.subtitles, &AlignOptions::default());
            let r = evaluate(&a, &case.gold, &case.subtitles);
            eprintln!(
                "{label} seed {seed}: precision {:.4} recall {:.4} cut {:.3} adlib {:.3} moved {:?} ({} lines placed)",
                r.precision, r.recall, r.cut_accuracy, r.adlib_accuracy, case.moved_scene, a.summary.moved_lines
            );
            assert_eq!(a.summary.verdict, Verdict::Aligned, "{label} seed {seed}");
            assert!(
                r.precision >= 0.98,
                "{label} seed {seed}: precision {}",
                r.precision
            );
            assert!(r.recall >= 0.95, "{label} seed {seed}: recall {}", r.recall);
        }
    }
}

#[test]
fn synth_is_deterministic() {
    let (play, _, _) = sample();
    let a = synth(&play, &SynthOptions::default());
    let b = synth(&play, &SynthOptions::default());
    assert_eq!(a.srt, b.srt);
    let c = synth(
        &play,
        &SynthOptions {
            seed: 2,
            ..SynthOptions::default()
        },
    );
    assert_ne!(a.srt, c.srt);
    assert!(a.subtitles.diagnostics.is_empty());
}

#[test]
fn a_heavily_cut_film_is_partial_not_aligned() {
    let (play, _, _) = sample();
    let case = synth(
        &play,
        &SynthOptions {
            cut: 0.55,
            move_scene: false,
            ..SynthOptions::default()
        },
    );
    let a = align(&play, &case.subtitles, &AlignOptions::default());
    assert_eq!(a.summary.verdict, Verdict::Partial, "{:?}", a.summary);
    let r = evaluate(&a, &case.gold, &case.subtitles);
    assert!(r.precision >= 0.98, "{}", r.precision);
}
