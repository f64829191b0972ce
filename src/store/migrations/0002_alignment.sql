-- Alignment (issue 3, DESIGN.md §1 step 2): one film's screenplay elements, scenes,
-- subtitle cues, shots and keyframes, the line-to-cue alignments, the synchronized
-- blocks and a summary with the inputs' fingerprints. Every table hangs off `films`
-- and is replaced as a whole when the film is aligned again (one transaction), so
-- the rows of one film always come from one run.

-- The alignment run of a film: figures, verdict and what it was computed from.
CREATE TABLE alignment_runs (
    film_id          INTEGER PRIMARY KEY REFERENCES films(id) ON DELETE CASCADE,
    dialogue_lines   INTEGER NOT NULL,
    cues             INTEGER NOT NULL,
    matched          INTEGER NOT NULL,
    coverage         REAL    NOT NULL,
    mean_confidence  REAL    NOT NULL,
    anchors          INTEGER NOT NULL,
    dp_cells         INTEGER NOT NULL,
    moved_lines      INTEGER NOT NULL,
    embedder         TEXT    NOT NULL,
    verdict          TEXT    NOT NULL CHECK (verdict IN ('aligned', 'partial', 'mismatch')),
    -- Inputs: path as given and "sha256:<hex>" of the bytes read.
    script_path      TEXT    NOT NULL,
    script_sha256    TEXT    NOT NULL,
    subtitles_path   TEXT    NOT NULL,
    subtitles_sha256 TEXT    NOT NULL,
    shots_path       TEXT,
    shots_sha256     TEXT,
    created_at       INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);

-- Screenplay elements in story order, with their film-clock time when known.
CREATE TABLE script_elements (
    film_id      INTEGER NOT NULL REFERENCES alignment_runs(film_id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    kind         TEXT    NOT NULL,
    text         TEXT    NOT NULL,
    scene        INTEGER,
    speaker      TEXT,
    extension    TEXT,
    line_first   INTEGER NOT NULL,
    line_last    INTEGER NOT NULL,
    start_ms     INTEGER,
    end_ms       INTEGER,
    interpolated INTEGER,
    PRIMARY KEY (film_id, idx)
) WITHOUT ROWID;

CREATE TABLE script_scenes (
    film_id       INTEGER NOT NULL REFERENCES alignment_runs(film_id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    heading       TEXT    NOT NULL,
    location      TEXT    NOT NULL,
    time_of_day   TEXT,
    first_element INTEGER NOT NULL,
    last_element  INTEGER NOT NULL,
    PRIMARY KEY (film_id, idx)
) WITHOUT ROWID;

-- Subtitle cues; `idx` is the 1-based cue number the alignments refer to.
CREATE TABLE cues (
    film_id  INTEGER NOT NULL REFERENCES alignment_runs(film_id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    start_ms INTEGER NOT NULL,
    end_ms   INTEGER NOT NULL,
    text     TEXT    NOT NULL,
    PRIMARY KEY (film_id, idx)
) WITHOUT ROWID;

CREATE TABLE shots (
    film_id     INTEGER NOT NULL REFERENCES alignment_runs(film_id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    start_frame INTEGER NOT NULL,
    end_frame   INTEGER NOT NULL,
    start_ms    INTEGER NOT NULL,
    end_ms      INTEGER NOT NULL,
    PRIMARY KEY (film_id, idx)
) WITHOUT ROWID;

CREATE TABLE keyframes (
    film_id INTEGER NOT NULL,
    shot    INTEGER NOT NULL,
    slot    INTEGER NOT NULL,
    frame   INTEGER,
    path    TEXT    NOT NULL,
    PRIMARY KEY (film_id, shot, slot),
    FOREIGN KEY (film_id, shot) REFERENCES shots(film_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;

-- One row per dialogue element (`line` = position among dialogue elements).
CREATE TABLE alignments (
    film_id    INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    element    INTEGER NOT NULL,
    start_ms   INTEGER,
    end_ms     INTEGER,
    confidence REAL    NOT NULL,
    moved      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (film_id, line),
    FOREIGN KEY (film_id, element) REFERENCES script_elements(film_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE alignment_cues (
    film_id INTEGER NOT NULL,
    line    INTEGER NOT NULL,
    cue     INTEGER NOT NULL,
    PRIMARY KEY (film_id, line, cue),
    FOREIGN KEY (film_id, line) REFERENCES alignments(film_id, line) ON DELETE CASCADE,
    FOREIGN KEY (film_id, cue) REFERENCES cues(film_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE blocks (
    film_id       INTEGER NOT NULL REFERENCES alignment_runs(film_id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    first_element INTEGER NOT NULL,
    last_element  INTEGER NOT NULL,
    scene         INTEGER NOT NULL,
    start_ms      INTEGER,
    end_ms        INTEGER,
    PRIMARY KEY (film_id, idx)
) WITHOUT ROWID;

-- A block's keyframes in film order; at most five per block are representative.
CREATE TABLE block_keyframes (
    film_id        INTEGER NOT NULL,
    block          INTEGER NOT NULL,
    pos            INTEGER NOT NULL,
    path           TEXT    NOT NULL,
    representative INTEGER NOT NULL,
    PRIMARY KEY (film_id, block, pos),
    FOREIGN KEY (film_id, block) REFERENCES blocks(film_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;
