-- Human runs collected by `moviegraph walk` (DESIGN.md §4, the human baseline). A human
-- run is an ordinary eval run (subject `human`); this table names the person who
-- answered, so reports can label the run and compare annotators. Kept apart from
-- eval_runs so model runs and their code are untouched.
CREATE TABLE eval_run_annotators (
    run_id    TEXT PRIMARY KEY REFERENCES eval_runs(id) ON DELETE CASCADE,
    annotator TEXT NOT NULL
);
