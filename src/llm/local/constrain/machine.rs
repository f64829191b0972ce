//! The byte-level pushdown matcher: a stack of [`Frame`]s per live parse, and
//! a step function that consumes one byte.
//!
//! Stepping mutates a stack in place, reports each successor through a
//! callback and restores the stack before returning, so walking the vocabulary
//! trie allocates nothing per node. Ambiguity (unions, a number or literal that
//! may end or go on) yields several successors; a parse is a small set of stacks.

use super::schema::{Grammar, Node, NodeId, TrieId, MAX_NUMBER_DIGITS};

/// Most digits in a generated exponent (keeps every number finite for serde_json).
const MAX_EXP_DIGITS: u8 = 2;

/// Object / array phase: just opened, after a value, after a comma.
const OPEN: u8 = 0;
const AFTER_VALUE: u8 = 1;
const AFTER_COMMA: u8 = 2;

/// Number states (a JSON number's grammar, digit counts bounded).
const N_START: u8 = 0;
const N_MINUS: u8 = 1;
const N_ZERO: u8 = 2;
const N_INT: u8 = 3;
const N_DOT: u8 = 4;
const N_FRAC: u8 = 5;
const N_E: u8 = 6;
const N_ESIGN: u8 = 7;
const N_EXP: u8 = 8;

/// String escape states: none, after `\`, in the 4 hex digits of `\u`
/// (`U_D2` is the second digit after a first `d`: it must be 0-7, keeping
/// surrogates, which serde_json rejects when lone, out).
const E_NONE: u8 = 0;
const E_BACKSLASH: u8 = 1;
const E_U1: u8 = 2;
const E_U2: u8 = 3;
const E_U3: u8 = 4;
const E_U4: u8 = 5;
const E_U_D2: u8 = 6;

/// One level of the parse stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Frame {
    /// A value of this node is to start.
    Value(NodeId),
    /// Inside an object; `next` is the first property still allowed.
    Obj {
        /// The object node.
        node: NodeId,
        /// Index of the next property to consider.
        next: u16,
        /// OPEN / AFTER_VALUE / AFTER_COMMA.
        phase: u8,
    },
    /// Inside a key literal (`"name":`), at this trie node.
    Key(TrieId),
    /// Inside an array with `count` items started.
    Arr {
        /// The array node.
        node: NodeId,
        /// Items started so far.
        count: u32,
        /// OPEN / AFTER_VALUE / AFTER_COMMA.
        phase: u8,
    },
    /// Inside a string of `len` characters so far.
    Str {
        /// The string node (for its bounds).
        node: NodeId,
        /// Characters so far (an escape counts as one).
        len: u32,
        /// Escape state.
        esc: u8,
        /// UTF-8 continuation bytes still expected.
        cont: u8,
        /// Allowed range of the next continuation byte.
        lo: u8,
        /// Allowed range of the next continuation byte.
        hi: u8,
    },
    /// Inside one of a set of literals, at this trie node.
    Lit(TrieId),
    /// Inside a number.
    Num {
        /// The number node.
        node: NodeId,
        /// Number state.
        st: u8,
        /// Digits in the current part.
        digits: u8,
    },
}

/// Calls `emit` with every stack that results from consuming `b` on `st`;
/// `st` is unchanged on return. An empty stack (complete value) accepts nothing.
pub fn step(g: &Grammar, st: &mut Vec<Frame>, b: u8, emit: &mut dyn FnMut(&[Frame])) {
    let Some(&top) = st.last() else { return };
    let n = st.len();
    match top {
        Frame::Value(node) => match &g.nodes[node as usize] {
            Node::Object { .. } => {
                if b == b'{' {
                    st[n - 1] = Frame::Obj {
                        node,
                        next: 0,
                        phase: OPEN,
                    };
                    emit(st);
                }
            }
            Node::Array { .. } => {
                if b == b'[' {
                    st[n - 1] = Frame::Arr {
                        node,
                        count: 0,
                        phase: OPEN,
                    };
                    emit(st);
                }
            }
            Node::Str { .. } => {
                if b == b'"' {
                    st[n - 1] = Frame::Str {
                        node,
                        len: 0,
                        esc: E_NONE,
                        cont: 0,
                        lo: 0,
                        hi: 0,
                    };
                    emit(st);
                }
            }
            Node::Lits { trie } => {
                st[n - 1] = Frame::Lit(*trie);
                step(g, st, b, emit);
            }
            Node::Num { .. } => {
                st[n - 1] = Frame::Num {
                    node,
                    st: N_START,
                    digits: 0,
                };
                step(g, st, b, emit);
            }
            Node::Union(alts) => {
                for &alt in alts {
                    st[n - 1] = Frame::Value(alt);
                    step(g, st, b, emit);
                }
            }
        },
        Frame::Obj { node, next, phase } => {
            let Node::Object { props } = &g.nodes[node as usize] else {
                unreachable!()
            };
            let more = (next as usize) < props.len();
            if b == b'}' && phase != AFTER_COMMA && !g.required_from(node, next as usize) {
                st.pop();
                emit(st);
                st.push(top);
            } else if b == b',' && phase == AFTER_VALUE && more {
                st[n - 1] = Frame::Obj {
                    node,
                    next,
                    phase: AFTER_COMMA,
                };
                emit(st);
            } else if b == b'"' && phase != AFTER_VALUE && more {
                let trie = props[next as usize].key_trie;
                if let Some(child) = trie_child(g, trie, b) {
                    st[n - 1] = Frame::Obj {
                        node,
                        next,
                        phase: AFTER_VALUE,
                    };
                    st.push(Frame::Key(child));
                    emit(st);
                    st.pop();
                }
            }
        }
        Frame::Key(trie) => {
            if let Some(child) = trie_child(g, trie, b) {
                match g.tries[child as usize].end {
                    Some(j) => {
                        let parent = st[n - 2];
                        let Frame::Obj { node, phase, .. } = parent else {
                            unreachable!()
                        };
                        let Node::Object { props } = &g.nodes[node as usize] else {
                            unreachable!()
                        };
                        st[n - 2] = Frame::Obj {
                            node,
                            next: j as u16 + 1,
                            phase,
                        };
                        st[n - 1] = Frame::Value(props[j as usize].node);
                        emit(st);
                        st[n - 2] = parent;
                    }
                    None => {
                        st[n - 1] = Frame::Key(child);
                        emit(st);
                    }
                }
            }
        }
        Frame::Arr { node, count, phase } => {
            let Node::Array { item, min, max } = g.nodes[node as usize] else {
                unreachable!()
            };
            if b == b']' && phase != AFTER_COMMA && count >= min {
                st.pop();
                emit(st);
                st.push(top);
            } else if b == b',' && phase == AFTER_VALUE && count < max {
                st[n - 1] = Frame::Arr {
                    node,
                    count,
                    phase: AFTER_COMMA,
                };
                emit(st);
            } else if phase != AFTER_VALUE && count < max {
                st[n - 1] = Frame::Arr {
                    node,
                    count: count + 1,
                    phase: AFTER_VALUE,
                };
                st.push(Frame::Value(item));
                step(g, st, b, emit);
                st.pop();
            }
        }
        Frame::Str {
            node,
            len,
            esc,
            cont,
            lo,
            hi,
        } => {
            let Node::Str { min, max } = g.nodes[node as usize] else {
                unreachable!()
            };
            let mut set = |st: &mut Vec<Frame>, len, esc, cont, lo, hi| {
                st[n - 1] = Frame::Str {
                    node,
                    len,
                    esc,
                    cont,
                    lo,
                    hi,
                };
                emit(st);
            };
            if cont > 0 {
                if (lo..=hi).contains(&b) {
                    set(st, len, esc, cont - 1, 0x80, 0xBF);
                }
            } else if esc != E_NONE {
                let hex = b.is_ascii_hexdigit();
                match esc {
                    E_BACKSLASH => match b {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            set(st, len, E_NONE, 0, 0, 0)
                        }
                        b'u' => set(st, len, E_U1, 0, 0, 0),
                        _ => {}
                    },
                    E_U1 if b == b'd' || b == b'D' => set(st, len, E_U_D2, 0, 0, 0),
                    E_U1 if hex => set(st, len, E_U2, 0, 0, 0),
                    E_U_D2 if (b'0'..=b'7').contains(&b) => set(st, len, E_U3, 0, 0, 0),
                    E_U2 if hex => set(st, len, E_U3, 0, 0, 0),
                    E_U3 if hex => set(st, len, E_U4, 0, 0, 0),
                    E_U4 if hex => set(st, len, E_NONE, 0, 0, 0),
                    _ => {}
                }
            } else if b == b'"' {
                if len >= min {
                    st.pop();
                    emit(st);
                    st.push(top);
                }
            } else if len < max {
                match b {
                    b'\\' => set(st, len + 1, E_BACKSLASH, 0, 0, 0),
                    0x20..=0x7F => set(st, len + 1, E_NONE, 0, 0, 0),
                    0xC2..=0xDF => set(st, len + 1, E_NONE, 1, 0x80, 0xBF),
                    0xE0 => set(st, len + 1, E_NONE, 2, 0xA0, 0xBF),
                    0xED => set(st, len + 1, E_NONE, 2, 0x80, 0x9F),
                    0xE1..=0xEF => set(st, len + 1, E_NONE, 2, 0x80, 0xBF),
                    0xF0 => set(st, len + 1, E_NONE, 3, 0x90, 0xBF),
                    0xF1..=0xF3 => set(st, len + 1, E_NONE, 3, 0x80, 0xBF),
                    0xF4 => set(st, len + 1, E_NONE, 3, 0x80, 0x8F),
                    _ => {}
                }
            }
            st[n - 1] = top;
        }
        Frame::Lit(trie) => {
            if let Some(child) = trie_child(g, trie, b) {
                st[n - 1] = Frame::Lit(child);
                emit(st);
            }
            st[n - 1] = top;
            if g.tries[trie as usize].end.is_some() {
                st.pop();
                step(g, st, b, emit);
                st.push(top);
            }
        }
        Frame::Num {
            node,
            st: s,
            digits,
        } => {
            let Node::Num { integer, nonneg } = g.nodes[node as usize] else {
                unreachable!()
            };
            let digit = b.is_ascii_digit();
            let next = match (s, b) {
                (N_START, b'-') if !nonneg => Some((N_MINUS, 0)),
                (N_START | N_MINUS, b'0') => Some((N_ZERO, 1)),
                (N_START | N_MINUS, _) if digit => Some((N_INT, 1)),
                (N_INT, _) if digit && digits < MAX_NUMBER_DIGITS => Some((N_INT, digits + 1)),
                (N_ZERO | N_INT, b'.') if !integer => Some((N_DOT, 0)),
                (N_ZERO | N_INT | N_FRAC, b'e' | b'E') if !integer => Some((N_E, 0)),
                (N_DOT, _) if digit => Some((N_FRAC, 1)),
                (N_FRAC, _) if digit && digits < MAX_NUMBER_DIGITS => Some((N_FRAC, digits + 1)),
                (N_E, b'+' | b'-') => Some((N_ESIGN, 0)),
                (N_E | N_ESIGN, _) if digit => Some((N_EXP, 1)),
                (N_EXP, _) if digit && digits < MAX_EXP_DIGITS => Some((N_EXP, digits + 1)),
                _ => None,
            };
            if let Some((s2, d2)) = next {
                st[n - 1] = Frame::Num {
                    node,
                    st: s2,
                    digits: d2,
                };
                emit(st);
                st[n - 1] = top;
            }
            if matches!(s, N_ZERO | N_INT | N_FRAC | N_EXP) {
                st.pop();
                step(g, st, b, emit);
                st.push(top);
            }
        }
    }
    st[n - 1] = top;
}

/// Can this stack end here (the document complete, perhaps by ending a
/// number or literal that could also go on)?
pub fn can_finish(g: &Grammar, st: &[Frame]) -> bool {
    match st {
        [] => true,
        [Frame::Lit(t)] => g.tries[*t as usize].end.is_some(),
        [Frame::Num { st, .. }] => matches!(*st, N_ZERO | N_INT | N_FRAC | N_EXP),
        _ => false,
    }
}

/// Writes a cache key for `st` into `out`: counters far from their bounds
/// (`slack` or more bytes away, `slack` being the longest token) are replaced
/// by a marker, because no single token can tell such states apart.
pub fn canonical_key(g: &Grammar, st: &[Frame], slack: u32, out: &mut Vec<Frame>) {
    for &f in st {
        out.push(match f {
            Frame::Str {
                node,
                len,
                esc,
                cont,
                lo,
                hi,
            } => {
                let Node::Str { min, max } = g.nodes[node as usize] else {
                    unreachable!()
                };
                let free = len >= min && max - len >= slack;
                Frame::Str {
                    node,
                    len: if free { u32::MAX } else { len },
                    esc,
                    cont,
                    lo,
                    hi,
                }
            }
            Frame::Arr { node, count, phase } => {
                let Node::Array { min, max, .. } = g.nodes[node as usize] else {
                    unreachable!()
                };
                let free = count >= min && max - count >= slack;
                Frame::Arr {
                    node,
                    count: if free { u32::MAX } else { count },
                    phase,
                }
            }
            other => other,
        });
    }
}

fn trie_child(g: &Grammar, trie: TrieId, b: u8) -> Option<TrieId> {
    let children = &g.tries[trie as usize].children;
    children
        .binary_search_by_key(&b, |&(c, _)| c)
        .ok()
        .map(|i| children[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Runs `text` through the matcher from the root; Some(can_finish) if it
    /// stayed alive.
    fn feed(schema: serde_json::Value, text: &str) -> Option<bool> {
        let g = Grammar::compile(&schema).unwrap();
        let mut states = vec![vec![Frame::Value(g.root)]];
        for &b in text.as_bytes() {
            let mut next: Vec<Vec<Frame>> = Vec::new();
            for s in &mut states {
                step(&g, s, b, &mut |x| next.push(x.to_vec()));
            }
            next.dedup();
            if next.is_empty() {
                return None;
            }
            states = next;
        }
        Some(states.iter().any(|s| can_finish(&g, s)))
    }

    #[test]
    fn objects_in_order_with_optional_and_required_fields() {
        let s = json!({"type":"object","properties":{
            "a":{"type":"integer"},"b":{"type":"string","maxLength":3},"c":{"type":"boolean"}},
            "required":["b"]});
        // Required properties first (in `required` order), then optional ones.
        assert_eq!(feed(s.clone(), r#"{"b":"xy","a":12,"c":true}"#), Some(true));
        assert_eq!(feed(s.clone(), r#"{"b":"x"}"#), Some(true));
        assert_eq!(feed(s.clone(), r#"{"b":"x","c":false}"#), Some(true));
        assert_eq!(feed(s.clone(), r#"{"a":1"#), None, "b is required first");
        assert_eq!(
            feed(s.clone(), r#"{"b":"x","c":true,"a""#),
            None,
            "a cannot come after c"
        );
        assert_eq!(feed(s.clone(), r#"{"b":"abcd"#), None, "maxLength");
        assert_eq!(feed(s, r#"{"a":1.5"#), None, "integer");
    }

    #[test]
    fn strings_escapes_and_utf8() {
        let s = json!({"type":"string"});
        assert_eq!(feed(s.clone(), r#""a\"b\\c\n\u00e9\u20AC""#), Some(true));
        assert_eq!(feed(s.clone(), "\"caf\u{e9} \u{1F600}\""), Some(true));
        assert_eq!(feed(s.clone(), r#""\ud800"#), None, "lone surrogate escape");
        assert_eq!(feed(s.clone(), r#""\x"#), None);
        assert_eq!(feed(s.clone(), "\"a\nb\""), None, "raw control character");
        assert_eq!(feed(s, "\"ab"), Some(false));
    }

    #[test]
    fn numbers_literals_arrays_unions() {
        assert_eq!(feed(json!({"type":"number"}), "-0.5e+12"), Some(true));
        assert_eq!(feed(json!({"type":"number"}), "01"), None);
        assert_eq!(
            feed(json!({"type":"number"}), "1e999"),
            None,
            "exponent bounded"
        );
        assert_eq!(feed(json!({"type":"integer","minimum":0}), "-1"), None);
        assert_eq!(feed(json!({"enum":[1,12,"x"]}), "1"), Some(true));
        assert_eq!(feed(json!({"enum":[1,12,"x"]}), "12"), Some(true));
        assert_eq!(feed(json!({"enum":[1,12,"x"]}), "13"), None);
        let arr = json!({"type":"array","items":{"enum":["a","b"]},"minItems":1,"maxItems":2});
        assert_eq!(feed(arr.clone(), r#"["a","b"]"#), Some(true));
        assert_eq!(feed(arr.clone(), "[]"), None);
        assert_eq!(feed(arr, r#"["a","b","#), None);
        let u = json!({"type":["string","null"]});
        assert_eq!(feed(u.clone(), "null"), Some(true));
        assert_eq!(feed(u, r#""n""#), Some(true));
        let nested = json!({"type":"array","items":{"type":"array","items":{"type":"integer"}}});
        assert_eq!(feed(nested, "[[1,2],[],[3]]"), Some(true));
    }
}
