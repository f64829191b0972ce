-- A film is the unit of work: every stage's rows hang off it.
-- `slug` is the film folder's name (e.g. "the-second-key"), stable across machines,
-- so stores built on different machines merge by slug.
CREATE TABLE films (
    id         INTEGER PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    title      TEXT,
    created_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);
