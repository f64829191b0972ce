-- The model layer (DESIGN.md §5): runs, the response cache, and one log row per call.

-- A run groups calls for accounting (per run and per role) and carries its budget.
CREATE TABLE llm_runs (
    id         INTEGER PRIMARY KEY,
    label      TEXT NOT NULL,
    max_cost   REAL,
    started_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);

-- One row per distinct request ever answered successfully. `key` is the hex SHA-256 of
-- (backend, endpoint group, model, messages, parameters, schema), so a rerun finds
-- every paid answer here and repeats no call. The request is kept for inspection and
-- batch export; it never contains an API key (keys travel only in HTTP headers).
CREATE TABLE llm_cache (
    key           TEXT PRIMARY KEY,
    backend       TEXT NOT NULL,
    model         TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('chat', 'embed')),
    request       TEXT NOT NULL,
    response      TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL NOT NULL,
    created_at    INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);

-- One row per call as the caller saw it (a cache hit is a call too, with no cost).
-- `raw_text` keeps the model's last answer when structured output finally failed.
CREATE TABLE llm_calls (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES llm_runs(id),
    role          TEXT NOT NULL,
    model         TEXT NOT NULL,
    cache_key     TEXT NOT NULL,
    started_at_ms INTEGER NOT NULL,
    latency_ms    INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL NOT NULL,
    cache_hit     INTEGER NOT NULL,
    attempts      INTEGER NOT NULL,
    repairs       INTEGER NOT NULL,
    finish_reason TEXT,
    error         TEXT,
    raw_text      TEXT
);
CREATE INDEX llm_calls_by_run ON llm_calls (run_id, role);
