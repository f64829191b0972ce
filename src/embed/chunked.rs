//! An embedder that hands its inner embedder a few texts at a time and says
//! how far it has got, so a long embedding pass (MiniLM on a feature film:
//! thousands of texts, tens of seconds) can show progress.

use super::{EmbedError, Embedder};

/// Texts handed to the inner embedder at once by [`Chunked`].
pub const CHUNK: usize = 256;

/// Wraps `inner`: `embed_batch` embeds [`CHUNK`] texts at a time, in order,
/// and calls `progress(done, total)` after each chunk. The vectors are the
/// inner embedder's; an additive embedder (the hashed baseline) is passed
/// through untouched, as it embeds nothing in batches.
pub struct Chunked<'a> {
    inner: &'a dyn Embedder,
    progress: Box<dyn Fn(usize, usize) + 'a>,
}

impl<'a> Chunked<'a> {
    /// `inner`, reporting each chunk to `progress(done, total)`.
    pub fn new(inner: &'a dyn Embedder, progress: impl Fn(usize, usize) + 'a) -> Chunked<'a> {
        Chunked {
            inner,
            progress: Box::new(progress),
        }
    }
}

impl Embedder for Chunked<'_> {
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
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(CHUNK) {
            out.extend(self.inner.embed_batch(chunk)?);
            (self.progress)(out.len(), texts.len());
        }
        Ok(out)
    }
    fn additive(&self, text: &str) -> Option<Vec<f32>> {
        self.inner.additive(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::HashedNgramEmbedder;
    use std::cell::RefCell;

    /// The hashed embedder seen as a batch embedder (no additive form).
    struct Batched;
    impl Embedder for Batched {
        fn name(&self) -> &str {
            "batched"
        }
        fn model_id(&self) -> &str {
            "batched"
        }
        fn dims(&self) -> usize {
            HashedNgramEmbedder.dims()
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            HashedNgramEmbedder.embed_batch(texts)
        }
    }

    #[test]
    fn chunks_give_the_same_vectors_in_order_and_report_each_step() {
        let texts: Vec<String> = (0..600).map(|i| format!("line number {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let seen = RefCell::new(Vec::new());
        let chunked = Chunked::new(&Batched, |done, total| {
            seen.borrow_mut().push((done, total))
        });
        let vectors = chunked.embed_batch(&refs).unwrap();
        assert_eq!(vectors, Batched.embed_batch(&refs).unwrap());
        assert_eq!(*seen.borrow(), [(256, 600), (512, 600), (600, 600)]);
        assert_eq!(chunked.model_id(), "batched");
    }
}
