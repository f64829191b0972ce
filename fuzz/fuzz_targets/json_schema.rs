#![no_main]
//! Fuzzes the JSON-schema compiler of constrained decoding: any JSON compiles
//! or fails with an error, never a panic. When it compiles, the bytes after
//! the first NUL are fed to the matcher byte by byte; whatever it accepts as a
//! finished document must parse with serde_json and validate against the schema.
use libfuzzer_sys::fuzz_target;
use moviegraph::llm::local::constrain::{validate, Grammar, Matcher};

fuzz_target!(|data: &[u8]| {
    let (schema, doc) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(schema) else { return };
    let Ok(g) = Grammar::compile(&schema) else { return };
    let mut m = Matcher::new(&g);
    for &b in doc {
        if !m.advance(&g, &[b]) {
            return;
        }
    }
    if m.can_finish(&g) {
        let text = std::str::from_utf8(doc).expect("accepted bytes are UTF-8");
        let v: serde_json::Value = serde_json::from_str(text).expect("accepted document parses");
        validate(&schema, &v).expect("accepted document validates");
    }
});
