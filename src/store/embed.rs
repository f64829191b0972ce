//! The embedding cache: vectors by model id and text hash.

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Store {
    /// The cached vectors of `model_id` for each text hash, in order (`None`
    /// for a miss, or for a row of another length than `dims`), read in one
    /// transaction.
    pub fn cached_embeddings(
        &self,
        model_id: &str,
        dims: usize,
        keys: &[[u8; 32]],
    ) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        let err = |source| self.sql_error(source);
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let mut out = Vec::with_capacity(keys.len());
        {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT dims, vector FROM embedding_cache
                     WHERE model_id = ?1 AND text_sha256 = ?2",
                )
                .map_err(err)?;
            for key in keys {
                let row: Option<(usize, Vec<u8>)> = stmt
                    .query_row(params![model_id, key.as_slice()], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .optional()
                    .map_err(err)?;
                out.push(
                    row.filter(|(d, b)| *d == dims && b.len() == 4 * dims)
                        .map(|(_, b)| from_blob(&b)),
                );
            }
        }
        tx.commit().map_err(err)?;
        Ok(out)
    }

    /// Stores vectors of `model_id` by text hash, all in one transaction
    /// (a row already there is replaced). Every vector must have `dims` values.
    pub fn put_embeddings(
        &self,
        model_id: &str,
        dims: usize,
        rows: &[([u8; 32], &[f32])],
    ) -> Result<(), StoreError> {
        let err = |source| self.sql_error(source);
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO embedding_cache (model_id, text_sha256, dims, vector)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(err)?;
            for (key, v) in rows {
                if v.len() != dims {
                    return Err(
                        self.sql_error(rusqlite::Error::InvalidParameterCount(v.len(), dims))
                    );
                }
                stmt.execute(params![model_id, key.as_slice(), dims, to_blob(v)])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// Number of cached vectors of `model_id`.
    pub fn cached_embedding_count(&self, model_id: &str) -> Result<usize, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM embedding_cache WHERE model_id = ?1",
                [model_id],
                |r| r.get(0),
            )
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_bit_for_bit_per_model() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.db");
        let a = [1u8; 32];
        let b = [2u8; 32];
        let va = [0.25f32, -1.5e-7, f32::MIN_POSITIVE];
        {
            let store = Store::open(&path).unwrap();
            store.put_embeddings("m1", 3, &[(a, &va)]).unwrap();
        }
        // Reopened: the rows were committed.
        let store = Store::open(&path).unwrap();
        let got = store.cached_embeddings("m1", 3, &[a, b]).unwrap();
        assert_eq!(got, vec![Some(va.to_vec()), None]);
        assert_eq!(store.cached_embeddings("m2", 3, &[a]).unwrap(), vec![None]);
        // Another length for the same model reads as a miss.
        assert_eq!(store.cached_embeddings("m1", 4, &[a]).unwrap(), vec![None]);
        assert_eq!(store.cached_embedding_count("m1").unwrap(), 1);
        assert!(store.put_embeddings("m1", 4, &[(b, &va)]).is_err());
        assert_eq!(store.cached_embedding_count("m1").unwrap(), 1);
    }
}
