//! An embedder in front of the store's embedding cache.

use sha2::{Digest, Sha256};

use super::{EmbedError, Embedder};
use crate::store::Store;

/// Wraps an embedder with the store's cache: a batch is looked up at once,
/// only the misses are embedded, and they are written in one transaction.
/// Keys are the inner embedder's [`Embedder::model_id`] and the sha256 of the
/// text, so a different model or setting never reads another's vectors.
pub struct CachedEmbedder<'a> {
    inner: &'a dyn Embedder,
    store: &'a Store,
}

impl<'a> CachedEmbedder<'a> {
    /// Caches `inner`'s vectors in `store`.
    pub fn new(inner: &'a dyn Embedder, store: &'a Store) -> CachedEmbedder<'a> {
        CachedEmbedder { inner, store }
    }
}

/// The cache key of a text: its UTF-8 bytes' sha256.
pub fn text_key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl Embedder for CachedEmbedder<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dims(&self) -> usize {
        self.inner.dims()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let keys: Vec<[u8; 32]> = texts.iter().map(|t| text_key(t)).collect();
        let model = self.inner.model_id();
        let dims = self.inner.dims();
        let mut found = self.store.cached_embeddings(model, dims, &keys)?;
        let misses: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        if !misses.is_empty() {
            // A text repeated within the batch is embedded once.
            let mut unique: Vec<usize> = Vec::new();
            let mut seen = std::collections::HashMap::new();
            for &i in &misses {
                seen.entry(keys[i]).or_insert_with(|| {
                    unique.push(i);
                    unique.len() - 1
                });
            }
            let batch: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();
            let vectors = self.inner.embed_batch(&batch)?;
            let rows: Vec<([u8; 32], &[f32])> = unique
                .iter()
                .zip(&vectors)
                .map(|(&i, v)| (keys[i], v.as_slice()))
                .collect();
            self.store.put_embeddings(model, dims, &rows)?;
            for &i in &misses {
                found[i] = Some(vectors[seen[&keys[i]]].clone());
            }
        }
        Ok(found.into_iter().map(Option::unwrap_or_default).collect())
    }

    fn additive(&self, text: &str) -> Option<Vec<f32>> {
        self.inner.additive(text)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::embed::HashedNgramEmbedder;

    /// Counts the texts it is asked to embed.
    struct Counting {
        calls: Cell<usize>,
        texts: Cell<usize>,
    }

    impl Embedder for Counting {
        fn name(&self) -> &str {
            "counting"
        }
        fn model_id(&self) -> &str {
            "counting-v1"
        }
        fn dims(&self) -> usize {
            HashedNgramEmbedder.dims()
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls.set(self.calls.get() + 1);
            self.texts.set(self.texts.get() + texts.len());
            HashedNgramEmbedder.embed_batch(texts)
        }
    }

    #[test]
    fn only_misses_are_embedded_and_hits_equal_the_model() {
        let store = Store::open_in_memory().unwrap();
        let inner = Counting {
            calls: Cell::new(0),
            texts: Cell::new(0),
        };
        let cached = CachedEmbedder::new(&inner, &store);
        let first = cached
            .embed_batch(&["a boat", "the key", "a boat"])
            .unwrap();
        assert_eq!((inner.calls.get(), inner.texts.get()), (1, 2));
        let second = cached
            .embed_batch(&["the key", "new text", "a boat"])
            .unwrap();
        assert_eq!((inner.calls.get(), inner.texts.get()), (2, 3));
        assert_eq!(second[0], first[1]);
        assert_eq!(second[2], first[0]);
        assert_eq!(second[1], HashedNgramEmbedder.vector("new text"));
        // All hits: the model is not called at all.
        cached.embed_batch(&["a boat", "new text"]).unwrap();
        assert_eq!(inner.calls.get(), 2);
    }
}
