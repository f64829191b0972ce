use std::path::PathBuf;

use super::*;

/// One frame whose every byte is `value`.
fn flat(value: u8) -> Vec<u8> {
    vec![value; FRAME_BYTES]
}

/// A runner that "predicts" each frame's own first byte, so a test can see
/// which frame each kept prediction came from.
fn echo(windows: &mut usize) -> impl FnMut(&[u8]) -> Result<Predictions, VideoError> + '_ {
    move |w: &[u8]| {
        *windows += 1;
        assert_eq!(w.len(), WINDOW * FRAME_BYTES);
        let values: Vec<f32> = w
            .chunks_exact(FRAME_BYTES)
            .map(|f| f32::from(f[0]))
            .collect();
        Ok(Predictions {
            single: values.clone(),
            many: values,
        })
    }
}

#[test]
fn every_frame_gets_its_own_prediction_in_the_references_windows() {
    for n in [1usize, 24, 25, 49, 50, 51, 75, 99, 100, 101, 137, 250] {
        let mut plan = WindowPlan::new();
        let mut windows = 0;
        let mut got = Vec::new();
        for i in 0..n {
            let p = plan
                .push(&flat((i % 251) as u8), echo(&mut windows))
                .unwrap();
            got.extend(p.single);
        }
        got.extend(plan.finish(echo(&mut windows)).unwrap().single);
        let want: Vec<f32> = (0..n).map(|i| (i % 251) as f32).collect();
        assert_eq!(got, want, "{n} frames");
        // The reference runs ceil(n / 50) windows.
        assert_eq!(windows, n.div_ceil(50), "{n} frames");
    }
}

#[test]
fn an_empty_video_has_no_predictions_and_runs_no_window() {
    let mut windows = 0;
    let p = WindowPlan::new().finish(echo(&mut windows)).unwrap();
    assert!(p.single.is_empty() && p.many.is_empty());
    assert_eq!(windows, 0);
}

#[test]
fn the_first_window_starts_with_copies_of_the_first_frame() {
    let mut plan = WindowPlan::new();
    let mut first = Vec::new();
    let run = |w: &[u8]| {
        if first.is_empty() {
            first = w.chunks_exact(FRAME_BYTES).map(|f| f[0]).collect();
        }
        Ok(Predictions {
            single: vec![0.0; WINDOW],
            many: vec![0.0; WINDOW],
        })
    };
    let mut run = run;
    for i in 0..75u8 {
        plan.push(&flat(i + 1), &mut run).unwrap();
    }
    assert_eq!(&first[..26], &[1u8; 26][..]);
    assert_eq!(first[26], 2);
    assert_eq!(first[99], 75);
}

#[test]
fn a_run_above_the_threshold_is_one_transition_and_the_next_shot_starts_after_it() {
    let p = |v: &[f32]| cuts_of_predictions(v, 0.5);
    // A cut: one frame marks the last frame of the shot.
    assert_eq!(p(&[0.0, 0.1, 0.9, 0.0, 0.0]), vec![3]);
    // A dissolve over three frames: the new shot starts after it.
    assert_eq!(p(&[0.0, 0.6, 0.8, 0.7, 0.2, 0.0]), vec![4]);
    // Exactly the threshold is not above it (as the reference's `>`).
    assert_eq!(p(&[0.0, 0.5, 0.0]), Vec::<u64>::new());
    // A fade-in at the start starts no shot; a transition at the end none either.
    assert_eq!(p(&[0.9, 0.9, 0.1, 0.0, 0.8]), Vec::<u64>::new());
    assert_eq!(p(&[0.0, 0.9, 0.0, 0.9, 0.0]), vec![2, 4]);
}

#[test]
fn colour_bins_take_the_top_three_bits_of_each_channel() {
    assert_eq!(color_bin(0, 0, 0), 0);
    assert_eq!(color_bin(255, 255, 255), 511);
    assert_eq!(color_bin(32, 0, 0), 64);
    assert_eq!(color_bin(0, 31, 224), 7);
}

#[test]
fn banded_similarities_hold_each_frames_neighbours_and_zero_past_the_ends() {
    let x = Tensor::from_vec(vec![1f32, 0., 0., 2., 3., 3.], (3, 2), &Device::Cpu).unwrap();
    let band = banded_similarities(&x).unwrap().to_vec2::<f32>().unwrap();
    let half = (LOOKUP - 1) / 2;
    assert_eq!(band.len(), 3);
    // Itself: 1 after normalization.
    for row in &band {
        assert!((row[half] - 1.0).abs() < 1e-6);
    }
    // Frame 0 against frame 1 (orthogonal) and frame 2 (45°).
    assert!(band[0][half + 1].abs() < 1e-6);
    assert!((band[0][half + 2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    assert!((band[2][half - 2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    // Nothing before the first frame or after the last.
    assert_eq!(band[0][half - 1], 0.0);
    assert_eq!(band[2][half + 1], 0.0);
}

/// The synthetic window of `tools/transnet_reference.py`.
fn synthetic_window() -> Vec<u8> {
    let mut frames = Vec::with_capacity(WINDOW * FRAME_BYTES);
    for f in 0..WINDOW {
        let shot = if f < 40 {
            0
        } else if f < 70 {
            1
        } else {
            2
        };
        for y in 0..FRAME_HEIGHT {
            for x in 0..FRAME_WIDTH {
                for c in 0..3 {
                    let v = (x * (3 + shot) + y * (5 + 2 * shot) + c * 40 + f * (shot + 1))
                        * (7 + shot * 13);
                    frames.push((v % 256) as u8);
                }
            }
        }
    }
    frames
}

/// The installed weights' folder, or `None` (and a printed reason).
fn installed() -> Option<PathBuf> {
    let root = crate::llm::model_dir::models_root_with(|k| std::env::var_os(k))?;
    let dir = root.join(TRANSNET_FOLDER);
    if weights_in(&dir).is_none() {
        eprintln!(
            "skipped: TransNetV2's weights are not in {} (scripts/setup-models --only transnetv2)",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

#[test]
fn predictions_equal_the_pytorch_reference_within_1e_3() {
    let Some(dir) = installed() else { return };
    let net = TransNet::load(&dir).unwrap();
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/transnet/reference.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let got = net.predict_window(&synthetic_window()).unwrap();
    for (head, ours) in [("single", &got.single), ("many", &got.many)] {
        let theirs: Vec<f32> = reference[head]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(ours.len(), theirs.len());
        let worst = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        eprintln!("{head}: largest difference from PyTorch {worst:.2e}");
        assert!(worst < 1e-3, "{head}: largest difference {worst}");
    }
    // The feature maps are kept and written over by the next window: another
    // window in between changes nothing.
    let mut reversed: Vec<u8> = synthetic_window()
        .chunks_exact(FRAME_BYTES)
        .rev()
        .flatten()
        .copied()
        .collect();
    reversed[..FRAME_BYTES].fill(255);
    let other = net.predict_window(&reversed).unwrap();
    assert_ne!(other, got);
    assert_eq!(net.predict_window(&synthetic_window()).unwrap(), got);
}

#[test]
fn weights_that_are_not_the_expected_file_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let err = TransNet::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("scripts/setup-models --only transnetv2"),
        "{err}"
    );
    std::fs::write(dir.path().join(TRANSNET_WEIGHTS.0), b"not weights").unwrap();
    let err = TransNet::load(dir.path()).unwrap_err().to_string();
    assert!(err.contains("sha256") && err.contains("11 bytes"), "{err}");
}

#[test]
#[ignore]
fn time_one_window() {
    let Some(dir) = installed() else { return };
    let net = TransNet::load(&dir).unwrap();
    let w = synthetic_window();
    net.predict_window(&w).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..3 {
        net.predict_window(&w).unwrap();
    }
    eprintln!("window: {:?}", t.elapsed() / 3);
}
