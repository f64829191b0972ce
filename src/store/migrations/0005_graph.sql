-- The Social-Causal Graph (issue 5). A build is one film under one set of
-- settings (generator, auditors, consensus rule…, as canonical JSON); a rebuild
-- with the same settings resumes it. Every block commits its candidates, votes
-- and merges in one transaction with its progress row, so a killed build
-- resumes after the last finished block without repeating a model call.
CREATE TABLE graph_builds (
    id       INTEGER PRIMARY KEY,
    film_id  INTEGER NOT NULL REFERENCES films(id) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    UNIQUE (film_id, settings)
);

CREATE TABLE graph_blocks (
    build_id         INTEGER NOT NULL REFERENCES graph_builds(id) ON DELETE CASCADE,
    block            INTEGER NOT NULL,
    generator_calls  INTEGER NOT NULL,
    auditor_calls    INTEGER NOT NULL,
    adjudicator_calls INTEGER NOT NULL,
    dropped          INTEGER NOT NULL,
    elapsed_us       INTEGER NOT NULL,
    PRIMARY KEY (build_id, block)
);

-- One row per proposed node or edge per block; `item` is the node or edge as
-- JSON (the exchange format's node/edge object).
CREATE TABLE graph_candidates (
    build_id INTEGER NOT NULL REFERENCES graph_builds(id) ON DELETE CASCADE,
    id       TEXT NOT NULL,
    block    INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('candidate', 'accepted', 'rejected', 'escalated')),
    reason   TEXT NOT NULL,
    item     TEXT NOT NULL,
    PRIMARY KEY (build_id, id)
);
CREATE INDEX graph_candidates_status ON graph_candidates (build_id, status);

-- Every vote: auditors, the adjudicator, and people reviewing.
CREATE TABLE graph_votes (
    build_id  INTEGER NOT NULL,
    candidate TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    judge     TEXT NOT NULL,
    role      TEXT NOT NULL CHECK (role IN ('auditor', 'adjudicator', 'human')),
    accept    INTEGER NOT NULL,
    rationale TEXT NOT NULL,
    PRIMARY KEY (build_id, candidate, seq),
    FOREIGN KEY (build_id, candidate) REFERENCES graph_candidates(build_id, id) ON DELETE CASCADE
);

-- Entity-resolution merges, for audit of the resolver.
CREATE TABLE graph_merges (
    build_id INTEGER NOT NULL REFERENCES graph_builds(id) ON DELETE CASCADE,
    block    INTEGER NOT NULL,
    name     TEXT NOT NULL,
    proposed TEXT NOT NULL,
    into_id  TEXT NOT NULL,
    tier     TEXT NOT NULL,
    score    REAL NOT NULL,
    PRIMARY KEY (build_id, block, proposed)
);
