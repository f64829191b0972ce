// Invariants of every ShotList, and its queries checked against a linear scan.
use moviegraph::media::shots::ShotList;

pub fn check(list: &ShotList, seed: &[u8]) {
    let mut prev_end = 0u64;
    for (i, s) in list.shots.iter().enumerate() {
        assert!(s.start_frame <= s.end_frame, "shot {i}: frames backwards");
        assert!(s.start_ms < s.end_ms, "shot {i}: empty time span");
        assert!(i == 0 || s.start_ms >= prev_end, "shot {i}: overlaps its predecessor");
        assert_eq!(s.start_ms, list.frame_to_ms(s.start_frame));
        assert_eq!(s.end_ms, list.frame_to_ms(s.end_frame.saturating_add(1)));
        assert_eq!(list.ms_to_frame(s.start_ms), s.start_frame);
        assert!(s.lines.first <= s.lines.last);
        for k in &s.keyframes {
            assert!(k.slot < s.slot_count().max(1));
        }
        prev_end = s.end_ms;
    }
    // Query intervals from shot boundaries and from the seed bytes.
    let mut points: Vec<u64> = list
        .shots
        .iter()
        .take(8)
        .flat_map(|s| [s.start_ms, s.end_ms, s.end_ms.saturating_sub(1)])
        .collect();
    points.extend(seed.chunks(4).take(8).map(|c| {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        u64::from(u32::from_le_bytes(b))
    }));
    points.extend([0, u64::MAX]);
    for w in points.windows(2).take(24) {
        let (a, b) = (w[0], w[1]);
        let got = list.shots_overlapping(a, b);
        let want: Vec<usize> = list
            .shots
            .iter()
            .enumerate()
            .filter(|(_, s)| a < b && s.start_ms < b && s.end_ms > a)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(got.len(), want.len(), "[{a}, {b})");
        if let (Some(first), Some(g)) = (want.first(), got.first()) {
            assert_eq!(&list.shots[*first], g);
        }
        let max = (a % 7) as usize;
        let reps = list.representative_keyframes(a, b, max);
        assert!(reps.len() <= max);
        for r in reps {
            assert!(got.iter().any(|s| s.keyframes.iter().any(|k| std::ptr::eq(k, r))));
        }
    }
}
