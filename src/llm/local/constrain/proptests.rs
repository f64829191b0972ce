//! Property tests: random schemas × random walks through the masks over a
//! fake vocabulary. Every finished output must parse and validate, every mask
//! must agree with checking each token on its own, and no reachable state may
//! be a dead end.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::{validate, Grammar, Matcher, SchemaMasks, VocabTrie};

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("ab".to_string()),
        Just("name".to_string()),
        Just("q\"uote".to_string()),
        Just("ü".to_string()),
        Just("a\\b".to_string()),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u32..3, 0u32..6).prop_map(
            |(min, extra)| json!({"type":"string","minLength":min,"maxLength":min+extra})
        ),
        Just(json!({"type":"integer"})),
        Just(json!({"type":"integer","minimum":0})),
        Just(json!({"type":"integer","minimum":-2,"maximum":12})),
        Just(json!({"type":"number"})),
        Just(json!({"type":"boolean"})),
        Just(json!({"type":"null"})),
        Just(json!({"enum":["x","x y","say \"hi\"","é",1,12,null,true]})),
        Just(json!({"const":{"k":[1,"two"]}})),
        Just(json!({"type":["string","null"],"maxLength":3})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            (prop::collection::vec((key(), inner.clone(), any::<bool>()), 0..4)).prop_map(|props| {
                let mut p = Map::new();
                let mut req = Vec::new();
                for (k, s, r) in props {
                    if p.insert(k.clone(), s).is_none() && r {
                        req.push(Value::String(k));
                    }
                }
                json!({"type":"object","properties":p,"required":req,"additionalProperties":false})
            }),
            (inner.clone(), 0u32..2, 0u32..3).prop_map(|(items, min, extra)| {
                json!({"type":"array","items":items,"minItems":min,"maxItems":min+extra})
            }),
            (inner.clone(), inner).prop_map(|(a, b)| json!({"anyOf":[a,b]})),
        ]
    })
}

/// Every single byte (so no valid state is a dead end) plus multi-byte
/// fragments that cross structure boundaries.
fn fake_vocab() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![Vec::new()]; // id 0: EOS, no bytes
    v.extend((0u8..=255).map(|b| vec![b]));
    for s in [
        "{\"",
        "\":",
        "\",\"",
        "\"}",
        "}}",
        "]}",
        "[\"",
        "\",",
        "\"]",
        "true",
        "null",
        "false",
        "12",
        "-0",
        ".5e+3",
        "\\u00e9",
        "\\\"",
        "é",
        "ü\"",
        "x y",
        "name\":",
        "\"a\":",
        "\"ab\":1",
        ",\"",
        "[]",
        "{}",
        "\\ud83d",
        "1}",
        "0,",
        "\"q\\\"uote\":",
    ] {
        v.push(s.as_bytes().to_vec());
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn random_walks_yield_valid_json(schema in schema(), picks in prop::collection::vec(any::<u32>(), 1..120)) {
        let g = Arc::new(Grammar::compile(&schema).expect("generated schemas are supported"));
        let toks = fake_vocab();
        let vocab = Arc::new(VocabTrie::new(toks.clone()));
        let mut masks = SchemaMasks::new(g.clone(), vocab);
        let mut m = Matcher::new(&g);
        let mut out = Vec::new();
        let mut finished = false;
        for (step, pick) in picks.iter().enumerate() {
            if m.is_complete() {
                finished = true;
                break;
            }
            let mask = masks.allowed(&m);
            // The mask agrees with checking each token on its own (sampled ids keep this fast).
            for id in (1 + step % 7..toks.len()).step_by(7) {
                let mut probe = m.clone();
                prop_assert_eq!(mask.contains(id as u32), probe.advance(&g, &toks[id]), "token {:?}", String::from_utf8_lossy(&toks[id]));
            }
            let can_end = m.can_finish(&g);
            prop_assert!(!mask.is_empty() || can_end, "dead end after {:?}", String::from_utf8_lossy(&out));
            let allowed: Vec<u32> = mask.iter().collect();
            // Prefer ending when allowed half of the time, so many walks finish.
            if can_end && (allowed.is_empty() || pick % 2 == 0) {
                finished = true;
                break;
            }
            // Bias toward single bytes that close structures, so walks end.
            let closers: Vec<u32> = allowed.iter().copied().filter(|&t| matches!(toks[t as usize].as_slice(), b"\"" | b"}" | b"]" | b"1" | b"n" | b"t")).collect();
            let id = if !closers.is_empty() && pick % 3 != 0 { closers[*pick as usize % closers.len()] } else { allowed[*pick as usize % allowed.len()] };
            prop_assert!(m.advance(&g, &toks[id as usize]));
            out.extend_from_slice(&toks[id as usize]);
        }
        if finished || m.is_complete() {
            let text = String::from_utf8(out).expect("constrained output is UTF-8");
            let value: Value = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert!(validate(&schema, &value).is_ok(), "{} against {}: {:?}", text, schema, validate(&schema, &value));
        }
    }

    #[test]
    fn compiler_never_panics(schema in any::<Vec<u8>>()) {
        if let Ok(v) = serde_json::from_slice::<Value>(&schema) {
            let _ = Grammar::compile(&v);
        }
    }
}
