-- Alignment calibration (issue 23): where the embedder put this film's unrelated
-- line-cue pairs (median and 99th percentile cosine, and how many pairs were
-- measured; NULL when the film was too short to measure or was aligned before this
-- migration), and how many lines the lone-gap pass matched on that evidence.
ALTER TABLE alignment_runs ADD COLUMN unrelated_median REAL;
ALTER TABLE alignment_runs ADD COLUMN unrelated_high REAL;
ALTER TABLE alignment_runs ADD COLUMN unrelated_pairs INTEGER;
ALTER TABLE alignment_runs ADD COLUMN lone_pairs INTEGER NOT NULL DEFAULT 0;
