#![no_main]
//! Fuzzes the answer parser, the judge-grade reader and ROUGE-L: any reply parses
//! without panicking, chosen labels are real labels in option order without repeats,
//! an open answer is non-empty, and ROUGE-L F1 stays in 0..=1 and is 1 against itself.
use libfuzzer_sys::fuzz_target;
use moviegraph::eval::parse::{parse_answer, Parsed};
use moviegraph::eval::score::{rouge_l_f1, rouge_tokens};
use moviegraph::eval::subject::parse_judge_grade;
use moviegraph::trees::schema::Format;

const LABELS: &[&str] = &["A", "B", "C", "D", "E"];

fuzz_target!(|text: &str| {
    for format in [Format::Single, Format::Multi] {
        if let Parsed::Choice(chosen) = parse_answer(format, LABELS, text) {
            assert!(!chosen.is_empty());
            let positions: Vec<usize> = chosen
                .iter()
                .map(|c| LABELS.iter().position(|l| l == c).expect("a real label"))
                .collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
        }
    }
    match parse_answer(Format::Open, &[], text) {
        Parsed::Open(answer) => assert!(!answer.trim().is_empty()),
        Parsed::Unparseable => {}
        Parsed::Choice(_) => panic!("an open question has no options"),
    }
    if let Some(grade) = parse_judge_grade(text) {
        assert!((0.0..=1.0).contains(&grade));
    }
    let (first, second) = text.split_at(text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i));
    let f = rouge_l_f1(first, second);
    assert!((0.0..=1.0).contains(&f), "{f}");
    if !rouge_tokens(text).is_empty() {
        assert!((rouge_l_f1(text, text) - 1.0).abs() < 1e-12);
    }
});
