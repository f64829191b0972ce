//! Content similarity for `graph score`: lexical (Dice of lightly stemmed
//! content words), MiniLM cosine, or either, every graph text against every
//! gold text.

use std::collections::BTreeSet;

use super::{Similarity, COSINE_SHIFT};
use crate::embed::Embedder;
use crate::text::content_words;

/// Content similarities, every graph text against every gold text.
pub(super) struct Sims {
    rows: Vec<Vec<f64>>,
}

impl Sims {
    pub(super) fn new(
        sim: &Similarity<'_>,
        graph: &[&str],
        gold: &[&str],
    ) -> Result<Sims, crate::embed::EmbedError> {
        let lexical = || -> Vec<Vec<f64>> {
            let g: Vec<_> = graph.iter().map(|t| stems(t)).collect();
            let d: Vec<_> = gold.iter().map(|t| stems(t)).collect();
            g.iter()
                .map(|a| d.iter().map(|b| dice(a, b)).collect())
                .collect()
        };
        let cosine = |e: &dyn Embedder| -> Result<Vec<Vec<f64>>, crate::embed::EmbedError> {
            let g = e.embed_batch(graph)?;
            let d = e.embed_batch(gold)?;
            Ok(g.iter()
                .map(|a| d.iter().map(|b| dot(a, b)).collect())
                .collect())
        };
        let rows = match sim {
            Similarity::Lexical => lexical(),
            Similarity::Embedded(e) => cosine(*e)?,
            Similarity::Either(e) => lexical()
                .into_iter()
                .zip(cosine(*e)?)
                .map(|(l, c)| {
                    l.into_iter()
                        .zip(c)
                        .map(|(l, c)| l.max(c - COSINE_SHIFT))
                        .collect()
                })
                .collect(),
        };
        Ok(Sims { rows })
    }

    pub(super) fn get(&self, graph: usize, gold: usize) -> f64 {
        self.rows[graph][gold]
    }
}

/// Content words with a light stemming (plural and tense endings cut).
pub(crate) fn stems(text: &str) -> BTreeSet<String> {
    // `Mum's` is Mum, `it's` it and `we're` we (stop words): a contraction's
    // tail is no content.
    let mut text = text.replace('’', "'").replace("n't", " not");
    for tail in ["'s", "'re", "'ve", "'ll", "'d", "'m"] {
        text = text.replace(tail, "");
    }
    // Auxiliaries and modals say how, not what (`doesn't know` is `know`).
    const AUXILIARIES: &[&str] = &[
        "does", "are", "were", "am", "been", "being", "will", "would", "can", "could", "should",
        "shall", "may", "might", "must", "don", "doesn", "didn", "won", "wouldn", "couldn",
    ];
    content_words(&text)
        .into_iter()
        .filter(|w| !AUXILIARIES.contains(&w.as_str()))
        .map(|w| {
            let mut stem = w.as_str();
            for end in ["ing", "ed", "es", "s"] {
                // `jealous`, `glass`, `thus`, `this`: an s that is no plural.
                let no_plural = end == "s"
                    && (stem.ends_with("ss") || stem.ends_with("us") || stem.ends_with("is"));
                if stem.len() >= end.len() + 3 && !no_plural {
                    if let Some(s) = stem.strip_suffix(end) {
                        stem = s;
                        break;
                    }
                }
            }
            // `give` and `giving`, `surprise` and `surprised`, `jealousy`
            // and `jealous`.
            if stem.len() >= 4 {
                stem = stem.strip_suffix('e').unwrap_or(stem);
            }
            if stem.len() >= 5 {
                stem = stem.strip_suffix('y').unwrap_or(stem);
            }
            stem.to_owned()
        })
        .collect()
}

/// The dot product of two embeddings (their cosine: embeddings are unit
/// length).
pub(super) fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
}

pub(super) fn dice(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    2.0 * a.intersection(b).count() as f64 / (a.len() + b.len()) as f64
}
