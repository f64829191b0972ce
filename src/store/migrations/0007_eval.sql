-- Evaluation runs (DESIGN.md §4). A run is one subject on one set of trees; its trees
-- are copied in as JSON so a report needs nothing but the store, and every answer is
-- committed as it arrives so a killed run resumes without asking anything twice.
CREATE TABLE eval_runs (
    id         TEXT PRIMARY KEY,
    subject    TEXT NOT NULL,
    -- NULL: no judge; open answers scored by the ROUGE-L fallback.
    judge      TEXT,
    text_only  INTEGER NOT NULL,
    seed       INTEGER NOT NULL,
    -- Where the trees came from (file paths), for the report header.
    source     TEXT NOT NULL,
    created_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);

CREATE TABLE eval_trees (
    run_id    TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
    tree_id   TEXT NOT NULL,
    -- Position in the run, which fixes the report's order.
    ord       INTEGER NOT NULL,
    film      TEXT NOT NULL,
    tree_json TEXT NOT NULL,
    PRIMARY KEY (run_id, tree_id)
);
-- Reading a run's trees in order walks this index instead of sorting wide rows.
CREATE UNIQUE INDEX eval_trees_order ON eval_trees (run_id, ord);

CREATE TABLE eval_answers (
    run_id  TEXT NOT NULL,
    tree_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    phase   INTEGER NOT NULL CHECK (phase IN (1, 2)),
    -- Position of the question in the tree's conversation, from 0.
    seq     INTEGER NOT NULL,
    -- The reply verbatim, and what the parser read from it (JSON).
    raw     TEXT NOT NULL,
    parsed  TEXT NOT NULL,
    correct INTEGER NOT NULL,
    score   REAL NOT NULL,
    rouge   REAL,
    judge   REAL,
    PRIMARY KEY (run_id, tree_id, node_id),
    FOREIGN KEY (run_id, tree_id) REFERENCES eval_trees(run_id, tree_id) ON DELETE CASCADE
);
