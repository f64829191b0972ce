-- People verifying a graph (`moviegraph graph review --serve`, issue 42). Every
-- decision a reviewer makes is a row, never updated: who, when, from which queue,
-- and what (accept, reject with a reason, or a correction, as JSON). `id` is the
-- nonce of the page the decision came from, so a form sent twice is stored once.
-- The candidate's status and item in graph_candidates are what the decisions
-- make of it (the rule in docs/review.md), rewritten in the decision's
-- transaction; review_originals keeps what the models had proposed, written the
-- first time a person decides on a candidate or adds one ('added').
CREATE TABLE review_decisions (
    id         TEXT PRIMARY KEY,
    build_id   INTEGER NOT NULL REFERENCES graph_builds(id) ON DELETE CASCADE,
    candidate  TEXT NOT NULL,
    reviewer   TEXT NOT NULL,
    decided_at INTEGER NOT NULL,
    queue      TEXT NOT NULL,
    decision   TEXT NOT NULL
);
CREATE INDEX review_decisions_candidate ON review_decisions (build_id, candidate);

CREATE TABLE review_originals (
    build_id  INTEGER NOT NULL,
    candidate TEXT NOT NULL,
    status    TEXT NOT NULL,
    item      TEXT NOT NULL,
    PRIMARY KEY (build_id, candidate),
    FOREIGN KEY (build_id, candidate) REFERENCES graph_candidates(build_id, id) ON DELETE CASCADE
);
