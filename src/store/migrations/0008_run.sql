-- `moviegraph run` (issue 9): per film and stage, the fingerprint of the stage's
-- inputs and settings, what went into it (so a rerun can say *why* a stage runs
-- again), and the sha256 of each file it wrote. `state` is 'running' from the
-- moment a stage starts until its outputs are in place, then 'done': a rerun with
-- the same fingerprint resumes a 'running' stage and skips a 'done' one whose
-- files are intact.
CREATE TABLE run_stages (
    film_id     INTEGER NOT NULL REFERENCES films(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    -- JSON object: input or setting name -> its value or sha256.
    inputs      TEXT NOT NULL,
    -- JSON object: output file (as written) or run id -> its sha256 or value.
    outputs     TEXT NOT NULL DEFAULT '{}',
    state       TEXT NOT NULL CHECK (state IN ('running', 'done')),
    updated_at  INTEGER NOT NULL DEFAULT (strftime('%s','now')),
    PRIMARY KEY (film_id, stage)
);
