-- Sentence embeddings already computed, by model and text. `model_id` names the
-- model and every setting that changes its vectors (embed::Embedder::model_id);
-- `text_sha256` is the sha256 of the embedded text's UTF-8 bytes; `vector` is
-- `dims` little-endian f32 values.
CREATE TABLE embedding_cache (
    model_id    TEXT NOT NULL,
    text_sha256 BLOB NOT NULL CHECK (length(text_sha256) = 32),
    dims        INTEGER NOT NULL CHECK (dims > 0),
    vector      BLOB NOT NULL CHECK (length(vector) = 4 * dims),
    created_at  INTEGER NOT NULL DEFAULT (strftime('%s','now')),
    PRIMARY KEY (model_id, text_sha256)
) WITHOUT ROWID;
