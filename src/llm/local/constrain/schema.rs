//! Compiles the supported JSON-schema subset into a grammar of nodes that the
//! byte-level pushdown matcher ([`super::machine`]) walks.
//!
//! Objects are generated with their properties in `properties` map order (optional
//! ones may be skipped) and no extra properties; JSON is compact (no
//! whitespace). Both restrict the *form* of the output, never its validity.

use serde_json::{Map, Value};

/// Default `maxLength` of a string schema without one: bounds generation.
pub const DEFAULT_MAX_STRING_CHARS: u32 = 1024;
/// Default `maxItems` of an array schema without one: bounds generation.
pub const DEFAULT_MAX_ITEMS: u32 = 256;
/// Most digits in the integer part, fraction or exponent of a generated number.
pub const MAX_NUMBER_DIGITS: u8 = 15;
/// Deepest schema nesting accepted.
pub const MAX_DEPTH: usize = 32;
/// Largest `maxItems` / `maxLength` honoured (larger values are clamped).
const MAX_BOUND: u32 = 1 << 20;

/// Why a schema cannot be compiled. `path` is a JSON pointer into the schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schema {path}: {problem}")]
pub struct SchemaError {
    /// JSON pointer of the offending sub-schema (`""` is the root).
    pub path: String,
    /// What is wrong or unsupported there.
    pub problem: String,
}

/// Index of a node in [`Grammar::nodes`].
pub type NodeId = u32;
/// Index of a node in [`Grammar::tries`].
pub type TrieId = u32;

/// One property of an object node.
#[derive(Debug, Clone)]
pub struct Prop {
    /// The property's value schema.
    pub node: NodeId,
    /// Must it appear?
    pub required: bool,
    /// Trie of the key literals (`"name":`) allowed when this property is the
    /// next one to consider: this one and the optional ones after it up to and
    /// including the next required one.
    pub key_trie: TrieId,
}

/// A compiled sub-schema.
#[derive(Debug, Clone)]
pub enum Node {
    /// `{...}` with properties in `properties` map order.
    Object {
        /// Properties, in order.
        props: Vec<Prop>,
    },
    /// `[...]` of `item`, between `min` and `max` items.
    Array {
        /// Item schema.
        item: NodeId,
        /// `minItems`.
        min: u32,
        /// `maxItems` (or the default bound).
        max: u32,
    },
    /// A free string of `min..=max` characters (escapes count as one).
    Str {
        /// `minLength`.
        min: u32,
        /// `maxLength` (or the default bound).
        max: u32,
    },
    /// One of a finite set of JSON texts (enum, const, true/false/null).
    Lits {
        /// Trie of the serialized literals.
        trie: TrieId,
    },
    /// A JSON number.
    Num {
        /// Only integers (no fraction or exponent).
        integer: bool,
        /// No minus sign (`minimum >= 0`).
        nonneg: bool,
    },
    /// Any of several alternatives (`anyOf`, `type: [..]`).
    Union(Vec<NodeId>),
}

/// A byte trie of literals; `end` marks a complete literal (its tag).
#[derive(Debug, Clone, Default)]
pub struct Trie {
    /// Outgoing edges, sorted by byte.
    pub children: Vec<(u8, TrieId)>,
    /// Set when a literal ends here; for key tries, the property index.
    pub end: Option<u32>,
}

/// A compiled schema: nodes plus the literal tries they use.
#[derive(Debug, Clone)]
pub struct Grammar {
    /// All nodes; `root` is the top-level value.
    pub nodes: Vec<Node>,
    /// All literal tries.
    pub tries: Vec<Trie>,
    /// The node of the whole document.
    pub root: NodeId,
}

impl Grammar {
    /// Compiles a JSON schema (the subset documented in [`super`]).
    pub fn compile(schema: &Value) -> Result<Grammar, SchemaError> {
        let mut g = Grammar {
            nodes: Vec::new(),
            tries: Vec::new(),
            root: 0,
        };
        g.root = g.compile_node(schema, "", 0)?;
        Ok(g)
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    fn new_trie(&mut self) -> TrieId {
        self.tries.push(Trie::default());
        (self.tries.len() - 1) as TrieId
    }

    /// Inserts `text` into trie `root`; returns false if it was already there.
    fn trie_insert(&mut self, root: TrieId, text: &[u8], tag: u32) -> bool {
        let mut at = root;
        for &b in text {
            let found = self.tries[at as usize]
                .children
                .binary_search_by_key(&b, |&(c, _)| c);
            at = match found {
                Ok(i) => self.tries[at as usize].children[i].1,
                Err(i) => {
                    let child = self.new_trie();
                    self.tries[at as usize].children.insert(i, (b, child));
                    child
                }
            };
        }
        let node = &mut self.tries[at as usize];
        if node.end.is_some() {
            return false;
        }
        node.end = Some(tag);
        true
    }

    fn lits(&mut self, values: &[Value], path: &str) -> Result<NodeId, SchemaError> {
        if values.is_empty() {
            return Err(err(path, "enum has no values: nothing can be generated"));
        }
        let trie = self.new_trie();
        for v in values {
            let text = serde_json::to_string(v).expect("a JSON value serializes");
            self.trie_insert(trie, text.as_bytes(), 0);
        }
        Ok(self.push(Node::Lits { trie }))
    }

    fn compile_node(&mut self, s: &Value, path: &str, depth: usize) -> Result<NodeId, SchemaError> {
        if depth > MAX_DEPTH {
            return Err(err(path, format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let obj = match s {
            Value::Object(o) => o,
            Value::Bool(true) => {
                return Err(err(
                    path,
                    "`true` (any value) cannot be generated; give a type",
                ))
            }
            _ => return Err(err(path, "a schema must be an object")),
        };
        for key in obj.keys() {
            if !KNOWN.contains(&key.as_str()) && !IGNORED.contains(&key.as_str()) {
                return Err(err(path, format!("unsupported keyword `{key}`")));
            }
        }
        if let Some(c) = obj.get("const") {
            return self.lits(std::slice::from_ref(c), path);
        }
        if let Some(e) = obj.get("enum") {
            let Value::Array(values) = e else {
                return Err(err(path, "`enum` must be an array"));
            };
            return self.lits(values, path);
        }
        if let Some(any) = obj.get("anyOf") {
            let Value::Array(alts) = any else {
                return Err(err(path, "`anyOf` must be an array"));
            };
            if alts.is_empty() {
                return Err(err(path, "`anyOf` is empty"));
            }
            let mut ids = Vec::with_capacity(alts.len());
            for (i, alt) in alts.iter().enumerate() {
                ids.push(self.compile_node(alt, &format!("{path}/anyOf/{i}"), depth + 1)?);
            }
            return Ok(self.push(Node::Union(ids)));
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.compile_typed(t, obj, path, depth),
            Some(Value::Array(ts)) => {
                if ts.is_empty() {
                    return Err(err(path, "`type` is an empty list"));
                }
                let mut ids = Vec::with_capacity(ts.len());
                for t in ts {
                    let Value::String(t) = t else {
                        return Err(err(path, "`type` entries must be strings"));
                    };
                    ids.push(self.compile_typed(t, obj, path, depth)?);
                }
                Ok(if ids.len() == 1 {
                    ids[0]
                } else {
                    self.push(Node::Union(ids))
                })
            }
            Some(_) => Err(err(path, "`type` must be a string or a list of strings")),
            None if obj.contains_key("properties") => {
                self.compile_typed("object", obj, path, depth)
            }
            None if obj.contains_key("items") => self.compile_typed("array", obj, path, depth),
            None => Err(err(path, "no `type`, `enum`, `const` or `anyOf`")),
        }
    }

    fn compile_typed(
        &mut self,
        t: &str,
        obj: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<NodeId, SchemaError> {
        match t {
            "object" => self.compile_object(obj, path, depth),
            "array" => {
                let item = match obj.get("items") {
                    Some(items) => self.compile_node(items, &format!("{path}/items"), depth + 1)?,
                    None => return Err(err(path, "an array needs `items`")),
                };
                let min = bound(obj, "minItems", path)?.unwrap_or(0);
                let max = bound(obj, "maxItems", path)?.unwrap_or(DEFAULT_MAX_ITEMS.max(min));
                if min > max {
                    return Err(err(path, "minItems > maxItems"));
                }
                Ok(self.push(Node::Array { item, min, max }))
            }
            "string" => {
                let min = bound(obj, "minLength", path)?.unwrap_or(0);
                let max =
                    bound(obj, "maxLength", path)?.unwrap_or(DEFAULT_MAX_STRING_CHARS.max(min));
                if min > max {
                    return Err(err(path, "minLength > maxLength"));
                }
                Ok(self.push(Node::Str { min, max }))
            }
            "number" | "integer" => {
                let integer = t == "integer";
                let min = number(obj, "minimum", path)?;
                let max = number(obj, "maximum", path)?;
                if obj.contains_key("exclusiveMinimum") || obj.contains_key("exclusiveMaximum") {
                    return Err(err(
                        path,
                        "exclusiveMinimum/exclusiveMaximum are not supported",
                    ));
                }
                match (min, max) {
                    (None, None) => Ok(self.push(Node::Num {
                        integer,
                        nonneg: false,
                    })),
                    (Some(0.0), None) => Ok(self.push(Node::Num {
                        integer,
                        nonneg: true,
                    })),
                    // A small integer range is exactly an enum of its members.
                    (Some(lo), Some(hi))
                        if integer
                            && lo.fract() == 0.0
                            && hi.fract() == 0.0
                            && lo <= hi
                            && hi - lo <= 1000.0 =>
                    {
                        let values: Vec<Value> = (lo as i64..=hi as i64).map(Value::from).collect();
                        self.lits(&values, path)
                    }
                    _ => Err(err(
                        path,
                        "only `minimum: 0` or an integer range of at most 1001 values is supported",
                    )),
                }
            }
            "boolean" => self.lits(&[Value::Bool(false), Value::Bool(true)], path),
            "null" => self.lits(&[Value::Null], path),
            other => Err(err(path, format!("unknown type `{other}`"))),
        }
    }

    fn compile_object(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<NodeId, SchemaError> {
        let empty = Map::new();
        let props = match obj.get("properties") {
            Some(Value::Object(p)) => p,
            Some(_) => return Err(err(path, "`properties` must be an object")),
            None => &empty,
        };
        let mut required: Vec<&str> = match obj.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| err(path, "`required` entries must be strings"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err(path, "`required` must be an array")),
            None => Vec::new(),
        };
        for r in &required {
            if !props.contains_key(*r) {
                return Err(err(
                    path,
                    format!("required property `{r}` is not in `properties`"),
                ));
            }
        }
        // Required properties come first, in the order `required` lists them,
        // then the optional ones. serde_json's maps are sorted by key, so the
        // schema's own `properties` order is lost; `required` is the only order
        // a schema author can still give (a generator schema lists `entities`
        // before the `edges` that refer to them).
        let mut seen = std::collections::HashSet::new();
        required.retain(|r| seen.insert(*r));
        let ordered = required.iter().map(|r| (*r, &props[*r])).chain(
            props
                .iter()
                .filter(|(name, _)| !required.contains(&name.as_str()))
                .map(|(name, sub)| (name.as_str(), sub)),
        );
        let mut compiled = Vec::with_capacity(props.len());
        for (name, sub) in ordered {
            let node = self.compile_node(
                sub,
                &format!("{path}/properties/{}", escape_ptr(name)),
                depth + 1,
            )?;
            compiled.push((name.to_owned(), node, required.contains(&name)));
        }
        let mut out = Vec::with_capacity(compiled.len());
        for i in 0..compiled.len() {
            let trie = self.new_trie();
            for (j, (name, _, req)) in compiled.iter().enumerate().skip(i) {
                let mut key = serde_json::to_string(name).expect("a string serializes");
                key.push(':');
                self.trie_insert(trie, key.as_bytes(), j as u32);
                if *req {
                    break;
                }
            }
            out.push(Prop {
                node: compiled[i].1,
                required: compiled[i].2,
                key_trie: trie,
            });
        }
        Ok(self.push(Node::Object { props: out }))
    }

    /// Is any property at index `from` or later required?
    pub(crate) fn required_from(&self, node: NodeId, from: usize) -> bool {
        match &self.nodes[node as usize] {
            Node::Object { props } => props.iter().skip(from).any(|p| p.required),
            _ => false,
        }
    }
}

/// Keywords that shape generation.
const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "enum",
    "const",
    "anyOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
];
/// Annotations with no effect on validity (or, for `format`, not asserted by
/// default in JSON Schema 2020-12).
const IGNORED: &[&str] = &[
    "title",
    "description",
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "format",
    "strict",
    "name",
];

fn err(path: &str, problem: impl Into<String>) -> SchemaError {
    SchemaError {
        path: if path.is_empty() {
            "(root)".into()
        } else {
            path.into()
        },
        problem: problem.into(),
    }
}

fn escape_ptr(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn bound(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<u32>, SchemaError> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) => Ok(Some(n.min(MAX_BOUND as u64) as u32)),
            None => Err(err(path, format!("`{key}` must be a non-negative integer"))),
        },
    }
}

fn number(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<f64>, SchemaError> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| err(path, format!("`{key}` must be a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rejects_unsupported_keywords_with_their_path() {
        let e = Grammar::compile(
            &json!({"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}),
        )
        .unwrap_err();
        assert_eq!(e.path, "/properties/a");
        assert!(e.problem.contains("pattern"), "{e}");
    }

    #[test]
    fn rejects_unsatisfiable_bounds() {
        assert!(Grammar::compile(&json!({"type":"string","minLength":5,"maxLength":2})).is_err());
        assert!(Grammar::compile(
            &json!({"type":"array","items":{"type":"null"},"minItems":3,"maxItems":1})
        )
        .is_err());
        assert!(Grammar::compile(&json!({"enum":[]})).is_err());
        assert!(Grammar::compile(&json!({"type":"object","required":["x"]})).is_err());
    }

    #[test]
    fn required_properties_first_in_their_order_and_key_tries_stop_at_the_next_required() {
        let g = Grammar::compile(&json!({
            "type":"object",
            "properties":{"a":{"type":"null"},"b":{"type":"null"},"c":{"type":"null"},"d":{"type":"null"}},
            "required":["c","a","c"]
        }))
        .unwrap();
        let Node::Object { props } = &g.nodes[g.root as usize] else {
            panic!()
        };
        let keys = |t: TrieId| {
            let mut out = Vec::new();
            let mut todo = vec![(t, Vec::new())];
            while let Some((n, path)) = todo.pop() {
                if let Some(j) = g.tries[n as usize].end {
                    out.push((String::from_utf8(path.clone()).unwrap(), j));
                }
                for &(b, c) in &g.tries[n as usize].children {
                    let mut p = path.clone();
                    p.push(b);
                    todo.push((c, p));
                }
            }
            out.sort();
            out
        };
        // Order: c, a (required, as listed, duplicates once), then b, d.
        assert_eq!(props.len(), 4);
        assert_eq!(keys(props[0].key_trie), vec![("\"c\":".into(), 0)]);
        assert_eq!(keys(props[1].key_trie), vec![("\"a\":".into(), 1)]);
        assert_eq!(
            keys(props[2].key_trie),
            vec![("\"b\":".into(), 2), ("\"d\":".into(), 3)]
        );
        assert_eq!(keys(props[3].key_trie), vec![("\"d\":".into(), 3)]);
        assert!(props[0].required && props[1].required);
        assert!(!props[2].required && !props[3].required);
    }
}
