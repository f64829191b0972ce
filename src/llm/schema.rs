//! Structured output: finding the JSON in a model's text and checking it against
//! a JSON schema.
//!
//! Local models wrap JSON in code fences or prose more often than they break it, so
//! extraction tries the whole text, then a fenced block, then the first balanced
//! object or array. Validation covers the JSON-schema subset that structured-output
//! APIs accept (`type`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `const`, `anyOf`/`oneOf`, length, count and range bounds); other keywords
//! are ignored rather than guessed at.

use serde_json::Value;

/// Parses the JSON answer in `text`, tolerating code fences and surrounding prose.
pub fn extract_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    let first_error = match serde_json::from_str::<Value>(trimmed) {
        Ok(v) => return Ok(v),
        Err(e) => e.to_string(),
    };
    if let Some(start) = trimmed.find("```") {
        let after = &trimmed[start + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let body = &after[body_start..];
        if let Some(end) = body.find("```") {
            if let Ok(v) = serde_json::from_str::<Value>(body[..end].trim()) {
                return Ok(v);
            }
        }
    }
    for (i, c) in trimmed.char_indices() {
        if c == '{' || c == '[' {
            if let Some(end) = balanced_end(&trimmed[i..]) {
                if let Ok(v) = serde_json::from_str::<Value>(&trimmed[i..i + end]) {
                    return Ok(v);
                }
            }
        }
    }
    Err(format!("the answer is not JSON ({first_error})"))
}

/// Byte length of the balanced `{…}` or `[…]` at the start of `s`, skipping strings.
fn balanced_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Checks `value` against `schema`; the error names the first violation's JSON path.
pub fn validate(value: &Value, schema: &Value) -> Result<(), String> {
    check(value, schema, "$")
}

fn type_matches(value: &Value, ty: &str) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn check(value: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        // `true`/`{}` accept anything; `false` accepts nothing.
        return if schema == &Value::Bool(false) {
            Err(format!("{path}: no value is allowed here"))
        } else {
            Ok(())
        };
    };
    match s.get("type") {
        Some(Value::String(ty)) if !type_matches(value, ty) => {
            return Err(format!("{path}: expected {ty}, found {}", kind_of(value)));
        }
        Some(Value::Array(types))
            if !types
                .iter()
                .any(|t| t.as_str().is_some_and(|t| type_matches(value, t))) =>
        {
            return Err(format!(
                "{path}: expected one of {types:?}, found {}",
                kind_of(value)
            ));
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        if !options.contains(value) {
            return Err(format!(
                "{path}: {value} is not one of {}",
                Value::Array(options.clone())
            ));
        }
    }
    if let Some(c) = s.get("const") {
        if c != value {
            return Err(format!("{path}: expected {c}"));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = s.get(key) {
            let passing = options
                .iter()
                .filter(|o| check(value, o, path).is_ok())
                .count();
            let ok = if key == "anyOf" {
                passing >= 1
            } else {
                passing == 1
            };
            if !ok {
                return Err(format!(
                    "{path}: matches {passing} of the {key} alternatives"
                ));
            }
        }
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(required)) = s.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if !map.contains_key(name) {
                        return Err(format!("{path}: missing required property \"{name}\""));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (name, v) in map {
                let sub = format!("{path}.{name}");
                match props.and_then(|p| p.get(name)) {
                    Some(prop_schema) => check(v, prop_schema, &sub)?,
                    None => match s.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            return Err(format!("{path}: unexpected property \"{name}\""));
                        }
                        Some(extra @ Value::Object(_)) => check(v, extra, &sub)?,
                        _ => {}
                    },
                }
            }
        }
        Value::Array(items) => {
            bound(s, "minItems", "maxItems", items.len(), path, "items")?;
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item, item_schema, &format!("{path}[{i}]"))?;
                }
            }
        }
        Value::String(text) => {
            bound(
                s,
                "minLength",
                "maxLength",
                text.chars().count(),
                path,
                "characters",
            )?;
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
                if x < min {
                    return Err(format!("{path}: {x} is below the minimum {min}"));
                }
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
                if x > max {
                    return Err(format!("{path}: {x} is above the maximum {max}"));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn bound(
    s: &serde_json::Map<String, Value>,
    min_key: &str,
    max_key: &str,
    n: usize,
    path: &str,
    what: &str,
) -> Result<(), String> {
    if let Some(min) = s.get(min_key).and_then(Value::as_u64) {
        if (n as u64) < min {
            return Err(format!("{path}: {n} {what}, fewer than {min}"));
        }
    }
    if let Some(max) = s.get(max_key).and_then(Value::as_u64) {
        if (n as u64) > max {
            return Err(format!("{path}: {n} {what}, more than {max}"));
        }
    }
    Ok(())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string", "enum": ["A", "B"]},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "evidence": {"type": "array", "items": {"type": "integer"}, "minItems": 1}
            },
            "required": ["answer", "evidence"],
            "additionalProperties": false
        })
    }

    #[test]
    fn json_is_found_in_fences_and_prose() {
        let want = json!({"a": 1});
        assert_eq!(extract_json(" {\"a\": 1} ").unwrap(), want);
        assert_eq!(extract_json("```json\n{\"a\": 1}\n```").unwrap(), want);
        assert_eq!(
            extract_json("Sure! Here it is: {\"a\": 1}. Done.").unwrap(),
            want
        );
        assert_eq!(
            extract_json("x {\"s\": \"}{\"} y").unwrap(),
            json!({"s": "}{"})
        );
        assert!(extract_json("no json here {").is_err());
    }

    #[test]
    fn valid_answers_pass() {
        let v = json!({"answer": "A", "confidence": 0.5, "evidence": [1, 2]});
        validate(&v, &schema()).unwrap();
    }

    #[test]
    fn each_violation_is_named_with_its_path() {
        let cases = [
            (json!({"answer": "C", "evidence": [1]}), "$.answer"),
            (
                json!({"answer": "A"}),
                "missing required property \"evidence\"",
            ),
            (json!({"answer": "A", "evidence": []}), "fewer than 1"),
            (
                json!({"answer": "A", "evidence": ["x"]}),
                "$.evidence[0]: expected integer",
            ),
            (
                json!({"answer": "A", "evidence": [1], "confidence": 2}),
                "above the maximum",
            ),
            (
                json!({"answer": "A", "evidence": [1], "extra": 1}),
                "unexpected property",
            ),
            (json!([1]), "$: expected object"),
        ];
        for (value, want) in cases {
            let err = validate(&value, &schema()).unwrap_err();
            assert!(err.contains(want), "{value}: {err}");
        }
    }

    #[test]
    fn any_of_and_one_of_count_alternatives() {
        let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        validate(&json!(3), &s).unwrap();
        assert!(validate(&json!(true), &s).is_err());
        let one = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
        assert!(validate(&json!(3), &one).is_err());
        validate(&json!(3.5), &one).unwrap();
    }
}
