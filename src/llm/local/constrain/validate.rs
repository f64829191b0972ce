//! A validator for the schema subset the compiler accepts, used to check
//! constrained output after the fact (and by the tests, independently of the
//! matcher).

use serde_json::Value;

/// Checks `value` against `schema`; the error names the JSON pointer of the
/// first violation.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "")
}

fn check(s: &Value, v: &Value, at: &str) -> Result<(), String> {
    let fail = |why: String| {
        Err(format!(
            "{}: {why}",
            if at.is_empty() { "(root)" } else { at }
        ))
    };
    let Some(s) = s.as_object() else {
        return if s == &Value::Bool(true) {
            Ok(())
        } else {
            fail("schema is not an object".into())
        };
    };
    if let Some(c) = s.get("const") {
        if c != v {
            return fail(format!("{v} is not the constant {c}"));
        }
    }
    if let Some(Value::Array(e)) = s.get("enum") {
        if !e.contains(v) {
            return fail(format!("{v} is not one of the enum values"));
        }
    }
    if let Some(Value::Array(alts)) = s.get("anyOf") {
        if !alts.iter().any(|a| check(a, v, at).is_ok()) {
            return fail("matches no anyOf alternative".into());
        }
    }
    match s.get("type") {
        Some(Value::String(t)) => check_type(t, s, v, at)?,
        Some(Value::Array(ts)) => {
            let ok = ts
                .iter()
                .any(|t| t.as_str().is_some_and(|t| check_type(t, s, v, at).is_ok()));
            if !ok {
                return fail(format!(
                    "{v} has none of the types {}",
                    Value::Array(ts.clone())
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_type(
    t: &str,
    s: &serde_json::Map<String, Value>,
    v: &Value,
    at: &str,
) -> Result<(), String> {
    let fail = |why: String| {
        Err(format!(
            "{}: {why}",
            if at.is_empty() { "(root)" } else { at }
        ))
    };
    let uint = |k: &str| s.get(k).and_then(Value::as_u64);
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    match (t, v) {
        ("object", Value::Object(o)) => {
            let props = s.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(req)) = s.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    if !o.contains_key(r) {
                        return fail(format!("missing required property `{r}`"));
                    }
                }
            }
            for (k, x) in o {
                match props.and_then(|p| p.get(k)) {
                    Some(sub) => check(sub, x, &format!("{at}/{k}"))?,
                    None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return fail(format!("property `{k}` is not allowed"));
                    }
                    None => {}
                }
            }
            Ok(())
        }
        ("array", Value::Array(a)) => {
            if uint("minItems").is_some_and(|m| (a.len() as u64) < m) {
                return fail(format!("{} items, fewer than minItems", a.len()));
            }
            if uint("maxItems").is_some_and(|m| (a.len() as u64) > m) {
                return fail(format!("{} items, more than maxItems", a.len()));
            }
            if let Some(items) = s.get("items") {
                for (i, x) in a.iter().enumerate() {
                    check(items, x, &format!("{at}/{i}"))?;
                }
            }
            Ok(())
        }
        ("string", Value::String(x)) => {
            let n = x.chars().count() as u64;
            if uint("minLength").is_some_and(|m| n < m) {
                return fail(format!(
                    "string of {n} characters is shorter than minLength"
                ));
            }
            if uint("maxLength").is_some_and(|m| n > m) {
                return fail(format!("string of {n} characters is longer than maxLength"));
            }
            Ok(())
        }
        ("number" | "integer", Value::Number(x)) => {
            let f = x.as_f64().unwrap_or(f64::NAN);
            if t == "integer" && !(x.is_i64() || x.is_u64() || f.fract() == 0.0) {
                return fail(format!("{x} is not an integer"));
            }
            if num("minimum").is_some_and(|m| f < m) {
                return fail(format!("{x} is below minimum"));
            }
            if num("maximum").is_some_and(|m| f > m) {
                return fail(format!("{x} is above maximum"));
            }
            Ok(())
        }
        ("boolean", Value::Bool(_)) | ("null", Value::Null) => Ok(()),
        _ => fail(format!("{v} is not of type {t}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn catches_each_kind_of_violation() {
        let s = json!({"type":"object","properties":{
            "k":{"enum":["a","b"]},"n":{"type":"integer","minimum":0},
            "l":{"type":"array","items":{"type":"string","maxLength":2},"maxItems":2}},
            "required":["k"],"additionalProperties":false});
        assert!(validate(&s, &json!({"k":"a","n":3,"l":["ab"]})).is_ok());
        assert!(validate(&s, &json!({"n":3}))
            .unwrap_err()
            .contains("required"));
        assert!(validate(&s, &json!({"k":"c"})).is_err());
        assert!(validate(&s, &json!({"k":"a","n":-1})).is_err());
        assert!(validate(&s, &json!({"k":"a","n":1.5})).is_err());
        assert!(validate(&s, &json!({"k":"a","l":["abc"]}))
            .unwrap_err()
            .contains("/l/0"));
        assert!(validate(&s, &json!({"k":"a","l":["a","b","c"]})).is_err());
        assert!(validate(&s, &json!({"k":"a","z":1})).is_err());
    }
}
