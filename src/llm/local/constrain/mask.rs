//! Token masks: which vocabulary tokens can extend the current parse.
//!
//! The vocabulary's byte strings form a trie; the matcher's state set is walked
//! down it once, so a prefix shared by thousands of tokens is stepped once and a
//! dead prefix prunes its whole subtree. Masks are cached per canonical state
//! (see [`machine::canonical_key`]), so the inside of a long string, or a
//! position seen in an earlier generation with the same schema, costs a lookup.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::machine::{self, Frame};
use super::schema::Grammar;

/// Bound on cached masks per schema; the cache is cleared when it is full.
const MAX_CACHED_MASKS: usize = 4096;

/// A set of token ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSet {
    words: Vec<u64>,
}

impl TokenSet {
    /// The empty set over `n` ids.
    pub fn new(n: usize) -> Self {
        TokenSet {
            words: vec![0; n.div_ceil(64)],
        }
    }
    /// Adds `id`.
    pub fn insert(&mut self, id: u32) {
        self.words[id as usize / 64] |= 1 << (id % 64);
    }
    /// Is `id` in the set?
    pub fn contains(&self, id: u32) -> bool {
        self.words
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
    /// Number of ids in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// Is the set empty?
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    /// The ids in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| (i * 64 + b) as u32)
        })
    }
}

#[derive(Debug, Default)]
struct TrieNode {
    children: Vec<(u8, u32)>,
    tokens: Vec<u32>,
}

/// The vocabulary as a byte trie. Tokens with no bytes (specials, EOS) are
/// left out: they are never allowed by a mask.
#[derive(Debug)]
pub struct VocabTrie {
    nodes: Vec<TrieNode>,
    n_tokens: usize,
    max_len: usize,
    bytes: Vec<Vec<u8>>,
}

impl VocabTrie {
    /// Builds the trie from each token's bytes (index = token id). Give an
    /// empty byte string for tokens generation must never produce as text.
    pub fn new(token_bytes: Vec<Vec<u8>>) -> Self {
        let mut nodes = vec![TrieNode::default()];
        let mut max_len = 0;
        for (id, bytes) in token_bytes.iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            max_len = max_len.max(bytes.len());
            let mut at = 0usize;
            for &b in bytes {
                at = match nodes[at].children.binary_search_by_key(&b, |&(c, _)| c) {
                    Ok(i) => nodes[at].children[i].1 as usize,
                    Err(i) => {
                        nodes.push(TrieNode::default());
                        let child = nodes.len() - 1;
                        nodes[at].children.insert(i, (b, child as u32));
                        child
                    }
                };
            }
            nodes[at].tokens.push(id as u32);
        }
        VocabTrie {
            nodes,
            n_tokens: token_bytes.len(),
            max_len,
            bytes: token_bytes,
        }
    }
    /// Number of token ids (including byteless ones).
    pub fn n_tokens(&self) -> usize {
        self.n_tokens
    }
    /// Bytes of a token (empty for specials).
    pub fn bytes(&self, id: u32) -> &[u8] {
        self.bytes.get(id as usize).map_or(&[], |b| b.as_slice())
    }
    /// Number of trie nodes (for reports).
    pub fn n_nodes(&self) -> usize {
        self.nodes.len()
    }
}

/// Flat storage of a set of stacks at one trie depth.
#[derive(Debug, Default)]
struct Level {
    frames: Vec<Frame>,
    ends: Vec<usize>,
}

impl Level {
    fn clear(&mut self) {
        self.frames.clear();
        self.ends.clear();
    }
    fn stack(&self, i: usize) -> &[Frame] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.frames[start..self.ends[i]]
    }
    fn push_unique(&mut self, st: &[Frame]) {
        // Sets are almost always of size one; dedup only while they are small.
        if self.ends.len() <= 8 && (0..self.ends.len()).any(|i| self.stack(i) == st) {
            return;
        }
        self.frames.extend_from_slice(st);
        self.ends.push(self.frames.len());
    }
}

/// A compiled schema bound to a vocabulary, with its mask cache. Shared by
/// every generation that uses the same schema and model.
#[derive(Debug)]
pub struct SchemaMasks {
    grammar: Arc<Grammar>,
    vocab: Arc<VocabTrie>,
    cache: HashMap<Vec<Frame>, Arc<TokenSet>>,
    levels: Vec<Level>,
    scratch: Vec<Frame>,
    /// Masks computed by walking the trie.
    pub misses: u64,
    /// Masks served from the cache.
    pub hits: u64,
}

impl SchemaMasks {
    /// Binds a grammar to a vocabulary.
    pub fn new(grammar: Arc<Grammar>, vocab: Arc<VocabTrie>) -> Self {
        SchemaMasks {
            grammar,
            vocab,
            cache: HashMap::new(),
            levels: Vec::new(),
            scratch: Vec::new(),
            misses: 0,
            hits: 0,
        }
    }

    /// The grammar.
    pub fn grammar(&self) -> &Arc<Grammar> {
        &self.grammar
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &Arc<VocabTrie> {
        &self.vocab
    }

    /// Tokens whose bytes can extend the parse `m` (EOS not included).
    pub fn allowed(&mut self, m: &Matcher) -> Arc<TokenSet> {
        let mut key = Vec::with_capacity(16);
        for st in &m.states {
            machine::canonical_key(&self.grammar, st, self.vocab.max_len as u32, &mut key);
            // A separator no real frame equals: a union frame of an impossible id.
            key.push(Frame::Key(u32::MAX));
        }
        if let Some(mask) = self.cache.get(&key) {
            self.hits += 1;
            return mask.clone();
        }
        self.misses += 1;
        let mask = Arc::new(self.walk(&m.states));
        if self.cache.len() >= MAX_CACHED_MASKS {
            self.cache.clear();
        }
        self.cache.insert(key, mask.clone());
        mask
    }

    fn walk(&mut self, states: &[Vec<Frame>]) -> TokenSet {
        let mut set = TokenSet::new(self.vocab.n_tokens);
        let depth = self.vocab.max_len + 1;
        if self.levels.len() < depth {
            self.levels.resize_with(depth, Level::default);
        }
        self.levels[0].clear();
        for st in states {
            self.levels[0].push_unique(st);
        }
        let vocab = self.vocab.clone();
        let grammar = self.grammar.clone();
        let mut ctx = Walk {
            g: &grammar,
            vocab: &vocab,
            levels: &mut self.levels,
            scratch: &mut self.scratch,
            set: &mut set,
        };
        ctx.dfs(0, 0);
        set
    }
}

struct Walk<'a> {
    g: &'a Grammar,
    vocab: &'a VocabTrie,
    levels: &'a mut [Level],
    scratch: &'a mut Vec<Frame>,
    set: &'a mut TokenSet,
}

impl Walk<'_> {
    fn dfs(&mut self, node: usize, depth: usize) {
        let vocab = self.vocab;
        for &(b, child) in &vocab.nodes[node].children {
            let (cur, rest) = self.levels[depth..]
                .split_first_mut()
                .expect("depth in range");
            let next = &mut rest[0];
            next.clear();
            for i in 0..cur.ends.len() {
                self.scratch.clear();
                self.scratch.extend_from_slice(cur.stack(i));
                machine::step(self.g, self.scratch, b, &mut |s| next.push_unique(s));
            }
            if next.ends.is_empty() {
                continue;
            }
            for &t in &vocab.nodes[child as usize].tokens {
                self.set.insert(t);
            }
            self.dfs(child as usize, depth + 1);
        }
    }
}

/// The parse of one generation: the set of live stacks.
#[derive(Debug, Clone)]
pub struct Matcher {
    states: Vec<Vec<Frame>>,
}

impl Matcher {
    /// A parse at the start of the document.
    pub fn new(g: &Grammar) -> Self {
        Matcher {
            states: vec![vec![Frame::Value(g.root)]],
        }
    }

    /// Consumes `bytes`; false (and the state unchanged) if they cannot extend the parse.
    pub fn advance(&mut self, g: &Grammar, bytes: &[u8]) -> bool {
        let mut states = self.states.clone();
        for &b in bytes {
            let mut next: Vec<Vec<Frame>> = Vec::with_capacity(states.len());
            for st in &mut states {
                machine::step(g, st, b, &mut |s| {
                    if !next.iter().any(|x| x == s) {
                        next.push(s.to_vec())
                    }
                });
            }
            if next.is_empty() {
                return false;
            }
            states = next;
        }
        self.states = states;
        true
    }

    /// May the document end here?
    pub fn can_finish(&self, g: &Grammar) -> bool {
        self.states.iter().any(|s| machine::can_finish(g, s))
    }

    /// Is the document complete, with nothing more allowed but the end?
    pub fn is_complete(&self) -> bool {
        self.states.iter().all(|s| s.is_empty())
    }

    /// The shortest bytes that finish the document from here (breadth-first
    /// over the parse states, over an alphabet of structural characters, a
    /// filler letter and digit, and every byte of the schema's literals).
    /// Used to close a document cut off by the token budget. None only if the
    /// search exceeds its bound.
    pub fn shortest_completion(&self, g: &Grammar) -> Option<Vec<u8>> {
        const MAX_VISITED: usize = 200_000;
        if self.can_finish(g) {
            return Some(Vec::new());
        }
        let mut alphabet: Vec<u8> = b"\"}],{[:0a-n".to_vec();
        alphabet.extend([0x80, 0xA0]);
        for t in &g.tries {
            alphabet.extend(t.children.iter().map(|c| c.0));
        }
        alphabet.sort_unstable();
        alphabet.dedup();
        let mut seen: HashSet<Vec<Vec<Frame>>> = HashSet::new();
        // (state, parent index, byte)
        let mut nodes: Vec<(Matcher, usize, u8)> = vec![(self.clone(), usize::MAX, 0)];
        seen.insert(self.states.clone());
        let mut head = 0;
        while head < nodes.len() {
            if nodes.len() > MAX_VISITED {
                return None;
            }
            let cur = nodes[head].0.clone();
            for &b in &alphabet {
                let mut next = cur.clone();
                if !next.advance(g, &[b]) || seen.contains(&next.states) {
                    continue;
                }
                seen.insert(next.states.clone());
                let done = next.can_finish(g);
                nodes.push((next, head, b));
                if done {
                    let mut path = Vec::new();
                    let mut at = nodes.len() - 1;
                    while at != 0 {
                        path.push(nodes[at].2);
                        at = nodes[at].1;
                    }
                    path.reverse();
                    return Some(path);
                }
            }
            head += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vocab(tokens: &[&str]) -> Arc<VocabTrie> {
        Arc::new(VocabTrie::new(
            tokens.iter().map(|t| t.as_bytes().to_vec()).collect(),
        ))
    }

    #[test]
    fn mask_matches_checking_each_token_separately() {
        let toks = [
            "",
            "{",
            "}",
            "\"",
            "\"name\":",
            "\"na",
            "me\":\"",
            "a",
            "ab",
            "\"}",
            "\",",
            "1",
            "12",
            ".5",
            "[",
            "]",
            ",",
            "true",
            "tr",
            "ue",
            "\"age\":",
            "\\n",
            "\\",
            "null",
            "\"x",
            "é",
        ];
        let v = vocab(&toks);
        let g = Arc::new(
            Grammar::compile(&json!({"type":"object","properties":{
                "name":{"type":"string"},"age":{"type":"number"},"ok":{"type":"boolean"}},
                "required":["name"]}))
            .unwrap(),
        );
        let mut masks = SchemaMasks::new(g.clone(), v.clone());
        let mut m = Matcher::new(&g);
        for piece in [
            "{",
            "\"name\":",
            "\"",
            "ab",
            "\\n",
            "é",
            "\",",
            "\"age\":",
            "12",
            ".5",
            "}",
        ] {
            let mask = masks.allowed(&m);
            for (id, t) in toks.iter().enumerate() {
                let mut probe = m.clone();
                let ok = !t.is_empty() && probe.advance(&g, t.as_bytes());
                assert_eq!(
                    mask.contains(id as u32),
                    ok,
                    "token {t:?} after state {m:?}"
                );
            }
            assert!(m.advance(&g, piece.as_bytes()), "piece {piece:?}");
        }
        assert!(m.is_complete());
        assert!(masks.allowed(&m).is_empty());
    }

    #[test]
    fn shortest_completion_closes_any_prefix_validly() {
        let schema = json!({"type":"object","properties":{
            "name":{"type":"string","minLength":2},
            "tags":{"type":"array","items":{"enum":["alpha","be\\\"ta"]},"minItems":2},
            "n":{"type":"number"}},
            "required":["name","tags","n"]});
        let g = Grammar::compile(&schema).unwrap();
        // Properties come in `required` order.
        let full = r#"{"name":"caf\u00e9 é","tags":["alpha","be\\\"ta","alpha"],"n":-1.5e3}"#;
        assert!(serde_json::from_str::<serde_json::Value>(full).is_ok());
        for cut in 0..full.len() {
            let mut m = Matcher::new(&g);
            assert!(m.advance(&g, &full.as_bytes()[..cut]), "prefix {cut}");
            let tail = m.shortest_completion(&g).expect("completion found");
            let mut text = full.as_bytes()[..cut].to_vec();
            text.extend(tail);
            let text = String::from_utf8(text).unwrap();
            let v: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            super::super::validate(&schema, &v).unwrap_or_else(|e| panic!("{e}: {text}"));
        }
    }

    #[test]
    fn long_strings_hit_the_cache() {
        let v = vocab(&["\"", "a", "b", "ab"]);
        let g = Arc::new(Grammar::compile(&json!({"type":"string","maxLength":100})).unwrap());
        let mut masks = SchemaMasks::new(g.clone(), v);
        let mut m = Matcher::new(&g);
        assert!(m.advance(&g, b"\""));
        for _ in 0..50 {
            masks.allowed(&m);
            assert!(m.advance(&g, b"a"));
        }
        assert_eq!(
            masks.misses, 1,
            "one walk for the free inside of the string"
        );
        assert_eq!(masks.hits, 49);
    }
}
