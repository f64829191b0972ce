//! The local GGUF backend against a real model (SmolLM2-135M-Instruct, as
//! `scripts/setup-models` installs it, or `$MOVIEGRAPH_LOCAL_MODEL`). Every
//! test skips with a message when no model is installed.

use std::sync::{Arc, OnceLock};

use moviegraph::llm::local::constrain::validate;
use moviegraph::llm::local::{
    resolve_model_path, ChatTurn, FinishReason, GenParams, LoadOptions, LocalModel,
};
use serde_json::{json, Value};

fn model() -> Option<Arc<LocalModel>> {
    static MODEL: OnceLock<Option<Arc<LocalModel>>> = OnceLock::new();
    MODEL
        .get_or_init(|| match resolve_model_path(None) {
            Ok(path) => Some(Arc::new(
                LocalModel::load(&path, &LoadOptions::default()).expect("model loads"),
            )),
            Err(e) => {
                eprintln!("skipping local model tests: {e}");
                None
            }
        })
        .clone()
}

fn user(text: &str) -> Vec<ChatTurn> {
    vec![ChatTurn::new("user", text)]
}

#[test]
fn tokenizer_round_trips() {
    let Some(m) = model() else { return };
    for text in [
        "Hello, world!",
        "INT. KITCHEN - NIGHT\n\nANNA (30s) drops the key.  \"Where's Tom?\"",
        "digits 1234567 and 3.14159, tabs\tand unicode: café, naïve, 東京, 😀",
        "  leading and trailing spaces  ",
        "<|im_start|>user\nhi<|im_end|>\n",
    ] {
        let ids = m.tokenize(text).unwrap();
        assert!(!ids.is_empty());
        let special_free = !text.contains("<|");
        if special_free {
            assert_eq!(m.detokenize(&ids), text, "round trip of {text:?}");
        }
    }
    // Special tokens in rendered templates are single tokens.
    let ids = m.tokenize("<|im_start|>").unwrap();
    assert_eq!(ids.len(), 1, "{ids:?}");
}

#[test]
fn greedy_is_deterministic_and_seeds_reproduce() {
    let Some(m) = model() else { return };
    let turns = user("Name three colours.");
    let p = GenParams {
        max_tokens: 8,
        temperature: 0.0,
        seed: 0,
        top_logprobs: 0,
    };
    let a = m.generate(&turns, &p, None).unwrap();
    let b = m.generate(&turns, &p, None).unwrap();
    assert_eq!(a.text, b.text);
    assert!(!a.text.trim().is_empty());
    assert!(a.prompt_tokens > 5 && a.completion_tokens > 0 && a.completion_tokens <= 8);
    let s = GenParams {
        max_tokens: 8,
        temperature: 0.9,
        seed: 42,
        top_logprobs: 0,
    };
    assert_eq!(
        m.generate(&turns, &s, None).unwrap().text,
        m.generate(&turns, &s, None).unwrap().text
    );
    println!("greedy: {:?}", a.text);
}

#[test]
fn constrained_output_always_validates() {
    let Some(m) = model() else { return };
    let schemas = [
        json!({"type":"object","properties":{
            "name":{"type":"string","maxLength":30},
            "mood":{"enum":["happy","sad","angry","afraid"]},
            "age":{"type":"integer","minimum":0},
            "friends":{"type":"array","items":{"type":"string","maxLength":20},"maxItems":3},
            "alive":{"type":"boolean"}},
            "required":["name","mood","age","friends","alive"]}),
        json!({"type":"array","items":{"type":"object","properties":{
            "who":{"type":"string","minLength":1,"maxLength":20},
            "believes":{"type":"object","properties":{"what":{"type":"string","maxLength":60},"true":{"type":["boolean","null"]}},"required":["what","true"]}},
            "required":["who","believes"]},"minItems":1,"maxItems":2}),
        json!({"enum":["yes","no","unsure"]}),
    ];
    let prompts = [
        "Describe Anna, a nervous 30-year-old baker with two friends, as JSON.",
        "Who believes what in this scene? Tom thinks the key is lost; Anna knows it is in her pocket.",
        "Is the sky green? Answer yes, no or unsure.",
    ];
    for (i, (schema, prompt)) in schemas.iter().zip(prompts).enumerate() {
        // Greedy for the first, sampled for the others: different paths through the masks.
        let p = GenParams {
            max_tokens: 48,
            temperature: if i == 0 { 0.0 } else { 1.0 },
            seed: i as u64,
            top_logprobs: 0,
        };
        let g = m.generate(&user(prompt), &p, Some(schema)).unwrap();
        println!(
            "{prompt}\n  -> {} ({:?}, {} tokens)",
            g.text, g.finish_reason, g.completion_tokens
        );
        assert_eq!(g.closed, g.finish_reason == FinishReason::Length);
        let v: Value = serde_json::from_str(&g.text).unwrap_or_else(|e| panic!("{e}: {}", g.text));
        validate(schema, &v).unwrap();
    }
}

/// Greedy constrained decoding computes a mask only when the grammar rejects
/// the unmasked choice; asking for logprobs masks every step. Both must pick
/// the same tokens.
#[test]
fn greedy_constrained_output_is_the_same_with_or_without_skipped_masks() {
    let Some(m) = model() else { return };
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 30},
        "feeling": {"enum": ["happy", "sad", "afraid", "angry"]},
        "certain": {"type": "boolean"}},
        "required": ["name", "feeling", "certain"]});
    let prompt = user("MARA waits on the pier in the rain. Describe her as JSON.");
    let lazy_params = GenParams {
        max_tokens: 40,
        ..GenParams::default()
    };
    let lazy = m.generate(&prompt, &lazy_params, Some(&schema)).unwrap();
    let masked = m
        .generate(
            &prompt,
            &GenParams {
                top_logprobs: 1,
                ..lazy_params
            },
            Some(&schema),
        )
        .unwrap();
    assert_eq!(lazy.text, masked.text);
    assert!(lazy.timing.masks_skipped > 0, "some steps needed no mask");
    assert_eq!(
        masked.timing.masks_skipped, 0,
        "with logprobs every step is masked"
    );
}

#[test]
fn long_conversations_drop_their_oldest_turns() {
    let Ok(path) = resolve_model_path(None) else {
        eprintln!("skipping: no local model");
        return;
    };
    let m = LocalModel::load(
        &path,
        &LoadOptions {
            context_len: Some(256),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let mut turns = vec![ChatTurn::new("system", "Be brief.")];
    for i in 0..12 {
        turns.push(ChatTurn::new(
            "user",
            format!("Message {i}: the quick brown fox jumps over the lazy dog again."),
        ));
        turns.push(ChatTurn::new("assistant", "Noted."));
    }
    turns.push(ChatTurn::new("user", "What was my last message?"));
    let g = m
        .generate(
            &turns,
            &GenParams {
                max_tokens: 4,
                ..GenParams::default()
            },
            None,
        )
        .unwrap();
    assert!(g.dropped_turns > 0);
    assert!(g.prompt_tokens + 4 <= 256, "{}", g.prompt_tokens);
    // A single turn too long for the context is an error, not a panic.
    let huge = "word ".repeat(600);
    let e = m
        .generate(&user(&huge), &GenParams::default(), None)
        .unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
}

#[test]
fn concurrent_generations_queue() {
    let Some(m) = model() else { return };
    let schema = json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]});
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let m = m.clone();
            let schema = schema.clone();
            std::thread::spawn(move || {
                m.generate(
                    &user(&format!("Give the number {i} as JSON.")),
                    &GenParams {
                        max_tokens: 10,
                        ..GenParams::default()
                    },
                    Some(&schema),
                )
                .unwrap()
            })
        })
        .collect();
    for h in handles {
        let g = h.join().unwrap();
        let v: Value = serde_json::from_str(&g.text).unwrap();
        assert!(v["n"].is_i64() || v["n"].is_u64(), "{}", g.text);
    }
}

#[test]
fn cut_off_constrained_output_is_closed_validly() {
    let Some(m) = model() else { return };
    let schema = json!({"type":"object","properties":{
        "story":{"type":"string","minLength":200},
        "tags":{"type":"array","items":{"type":"string"},"minItems":2}},
        "required":["story","tags"]});
    let g = m
        .generate(
            &user("Tell a long story as JSON."),
            &GenParams {
                max_tokens: 6,
                ..GenParams::default()
            },
            Some(&schema),
        )
        .unwrap();
    assert_eq!(g.finish_reason, FinishReason::Length);
    assert!(g.closed);
    let v: Value = serde_json::from_str(&g.text).unwrap_or_else(|e| panic!("{e}: {}", g.text));
    validate(&schema, &v).unwrap();
    println!("closed: {}", g.text);
}

/// Greedy replies to fixed prompts, recorded with the engine before its
/// speed work (issue 22): a faster engine must give the same tokens.
const PINNED_GREEDY: &[(&str, &str)] = &[
    (
        "Name three colours.",
        "1. Red: This is the most obvious colour, but it's also the most versatile. Red is a colour that can be used in many different ways.",
    ),
    (
        "In one sentence, why would a woman hide her brother's key from him?",
        "To add to the original message, a woman hides her brother's key from him by using a hidden key to conceal her brother's identity.",
    ),
    (
        "INT. HARBOUR - NIGHT\n\nMARA waits on the pier. QUINTON arrives late.\n\nWhat does Mara feel?",
        "(SmolLM, a warm smile) Ah, the night is young, my friend. I'm not sure what to say. I'm not sure",
    ),
];

#[test]
fn greedy_output_of_fixed_prompts_is_pinned() {
    let Some(m) = model() else { return };
    let prompts = [
        "Name three colours.",
        "In one sentence, why would a woman hide her brother's key from him?",
        "INT. HARBOUR - NIGHT\n\nMARA waits on the pier. QUINTON arrives late.\n\nWhat does Mara feel?",
    ];
    let p = GenParams {
        max_tokens: 32,
        ..GenParams::default()
    };
    let got: Vec<(String, String)> = prompts
        .iter()
        .map(|q| (q.to_string(), m.generate(&user(q), &p, None).unwrap().text))
        .collect();
    let pinned: Vec<(String, String)> = PINNED_GREEDY
        .iter()
        .map(|(q, t)| (q.to_string(), t.to_string()))
        .collect();
    assert_eq!(got, pinned);
}

#[test]
fn requantizing_leaves_a_q4_1_llama_as_it_is_and_its_output_validates() {
    let Some(own) = model() else { return };
    let m = LocalModel::load(
        &own.info().path,
        &LoadOptions {
            requantize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    // The llama pass multiplies Q4_1 with SIMD code: nothing to re-encode.
    assert!(
        !m.info().requantized,
        "the Q4_1 llama file is left as it is"
    );
    let schema = json!({"type": "object", "properties": {"colour": {"enum": ["red", "blue"]}},
        "required": ["colour"], "additionalProperties": false});
    let g = m
        .generate(
            &user("Pick a colour."),
            &GenParams {
                max_tokens: 12,
                ..GenParams::default()
            },
            Some(&schema),
        )
        .unwrap();
    let value: Value = serde_json::from_str(&g.text).unwrap();
    assert!(validate(&value, &schema).is_ok(), "{}", g.text);
}
