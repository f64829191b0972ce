//! The alignment stage's rows (migration 0002): a film's screenplay elements,
//! scenes, cues, shots and keyframes, its line alignments and blocks, and the
//! run's summary with the inputs' fingerprints.
//!
//! The rows are plain values; the alignment stage turns its own types into
//! them and back (`align::store`). [`Store::save_alignment_rows`]
//! replaces everything a film had from a previous alignment in one
//! transaction; [`Store::alignment_rows`] gives the rows back as they were
//! saved, and [`Store::block_rows`] with [`Store::element_rows`] give each
//! block and its script segment.

use std::path::Path;

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{FilmId, Store, StoreError};

/// One input file of an alignment: the path as given and the digest of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as the user gave it.
    pub path: String,
    /// `sha256:<hex>` of the bytes read.
    pub sha256: String,
}

impl InputFile {
    /// The fingerprint of `bytes` read from `path`.
    pub fn of_bytes(path: &Path, bytes: &[u8]) -> InputFile {
        let digest = Sha256::digest(bytes);
        let mut hex = String::with_capacity(7 + 64);
        hex.push_str("sha256:");
        for b in digest {
            hex.push_str(&format!("{b:02x}"));
        }
        InputFile {
            path: path.display().to_string(),
            sha256: hex,
        }
    }

    /// Reads `path` and fingerprints it.
    pub fn of_file(path: &Path) -> std::io::Result<InputFile> {
        Ok(InputFile::of_bytes(path, &std::fs::read(path)?))
    }
}

/// What an alignment was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlignmentSources {
    /// The screenplay.
    pub script: InputFile,
    /// The subtitles.
    pub subtitles: InputFile,
    /// The shot list or keyframe manifest, when shots were attached.
    pub shots: Option<InputFile>,
}

/// The summary row of an alignment run (`alignment_runs`, without the sources).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// Dialogue elements in the script.
    pub dialogue_lines: usize,
    /// Cues in the subtitles.
    pub cues: usize,
    /// Dialogue elements matched.
    pub matched: usize,
    /// `matched / dialogue_lines`.
    pub coverage: f32,
    /// Mean confidence of matched lines.
    pub mean_confidence: f32,
    /// Anchors in the monotone chain.
    pub anchors: usize,
    /// Cells the dynamic programme evaluated.
    pub dp_cells: usize,
    /// Lines placed by the moved-scene pass.
    pub moved_lines: usize,
    /// The embedder used.
    pub embedder: String,
    /// The verdict's name.
    pub verdict: String,
    /// Median, 99th percentile and count of the film's unrelated pairs'
    /// cosines with that embedder (`None`: too short to measure, or aligned
    /// before the calibration was recorded).
    pub unrelated: Option<(f32, f32, usize)>,
    /// Lines matched by the lone-gap pass.
    pub lone_pairs: usize,
}

/// A screenplay element's row (`script_elements`), with its time when known.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementRow {
    /// Element index in the screenplay.
    pub index: usize,
    /// The kind's name.
    pub kind: String,
    /// Its text.
    pub text: String,
    /// Scene index.
    pub scene: Option<usize>,
    /// Normalized speaker.
    pub speaker: Option<String>,
    /// The cue's extension (`V.O.`, `CONT'D`).
    pub extension: Option<String>,
    /// First and last source line (1-based).
    pub lines: [usize; 2],
    /// Start on the film clock.
    pub start_ms: Option<u64>,
    /// End on the film clock.
    pub end_ms: Option<u64>,
    /// Whether the time was interpolated.
    pub interpolated: Option<bool>,
}

/// A scene's row (`script_scenes`).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneRow {
    /// Scene index.
    pub index: usize,
    /// The heading as written.
    pub heading: String,
    /// The location part of the heading.
    pub location: String,
    /// The time-of-day part of the heading.
    pub time_of_day: Option<String>,
    /// Element range `[first, last]`, inclusive.
    pub elements: [usize; 2],
}

/// A subtitle cue's row (`cues`).
#[derive(Debug, Clone, PartialEq)]
pub struct CueRow {
    /// 1-based cue number.
    pub index: usize,
    /// Start in milliseconds.
    pub start_ms: u64,
    /// End in milliseconds.
    pub end_ms: u64,
    /// The cue's text.
    pub text: String,
}

/// A shot's row (`shots`) with its keyframes' rows (`keyframes`).
#[derive(Debug, Clone, PartialEq)]
pub struct ShotRow {
    /// Shot index.
    pub index: usize,
    /// First frame.
    pub start_frame: u64,
    /// Last frame.
    pub end_frame: u64,
    /// Start in milliseconds.
    pub start_ms: u64,
    /// End in milliseconds.
    pub end_ms: u64,
    /// The shot's keyframes.
    pub keyframes: Vec<KeyframeRow>,
}

/// A shot keyframe's row (`keyframes`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyframeRow {
    /// Slot within the shot.
    pub slot: usize,
    /// Frame number, when known.
    pub frame: Option<u64>,
    /// Path of the image.
    pub path: String,
}

/// A dialogue line's alignment row (`alignments`) with its cues (`alignment_cues`).
#[derive(Debug, Clone, PartialEq)]
pub struct LineRow {
    /// Position among dialogue elements.
    pub line: usize,
    /// Element index in the screenplay.
    pub element: usize,
    /// Matched cue numbers, in order.
    pub cues: Vec<usize>,
    /// Start of the first matched cue.
    pub start_ms: Option<u64>,
    /// End of the last matched cue.
    pub end_ms: Option<u64>,
    /// Similarity of the matched group.
    pub confidence: f32,
    /// Placed by the moved-scene pass.
    pub moved: bool,
}

/// A block's row (`blocks`) with its keyframes (`block_keyframes`).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockRow {
    /// 0-based, in script order.
    pub id: usize,
    /// Scene index.
    pub scene: usize,
    /// Element range `[first, last]`, inclusive.
    pub elements: [usize; 2],
    /// Start on the film clock.
    pub start_ms: Option<u64>,
    /// End on the film clock (exclusive).
    pub end_ms: Option<u64>,
    /// Keyframes of the shots it overlaps, in order.
    pub keyframes: Vec<BlockKeyframeRow>,
}

/// A block keyframe's row (`block_keyframes`).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockKeyframeRow {
    /// Path of the image.
    pub path: String,
    /// One of the block's representatives.
    pub representative: bool,
}

/// Everything [`Store::save_alignment_rows`] writes for one film.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignmentRows {
    /// The run's summary.
    pub run: RunRow,
    /// The input files' fingerprints.
    pub sources: AlignmentSources,
    /// Every screenplay element, in order.
    pub elements: Vec<ElementRow>,
    /// Every scene, in order.
    pub scenes: Vec<SceneRow>,
    /// Every subtitle cue, in order.
    pub cues: Vec<CueRow>,
    /// Every shot (empty when no shots were attached).
    pub shots: Vec<ShotRow>,
    /// One per dialogue line.
    pub lines: Vec<LineRow>,
    /// Blocks in script order.
    pub blocks: Vec<BlockRow>,
}

/// What [`Store::alignment_rows`] reads back of a film's alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedAlignmentRows {
    /// The run's summary.
    pub run: RunRow,
    /// The input files' fingerprints.
    pub sources: AlignmentSources,
    /// Every screenplay element, in order.
    pub elements: Vec<ElementRow>,
    /// One per dialogue line, in order.
    pub lines: Vec<LineRow>,
    /// Blocks in script order.
    pub blocks: Vec<BlockRow>,
    /// Cues stored.
    pub cues: usize,
    /// Shots stored.
    pub shots: usize,
}

fn to_i64(x: usize) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

fn opt_i64(x: Option<u64>) -> Option<i64> {
    x.map(|v| i64::try_from(v).unwrap_or(i64::MAX))
}

/// The tables of migration 0002 whose rows hang off a film, children first.
const FILM_TABLES: [&str; 10] = [
    "block_keyframes",
    "blocks",
    "alignment_cues",
    "alignments",
    "keyframes",
    "shots",
    "cues",
    "script_scenes",
    "script_elements",
    "alignment_runs",
];

impl Store {
    /// Saves a film's whole alignment in one transaction, replacing the rows
    /// of its previous alignment; creates the film (slug `film`, with `title`)
    /// if new.
    pub fn save_alignment_rows(
        &self,
        film: &str,
        title: Option<&str>,
        rows: &AlignmentRows,
    ) -> Result<FilmId, StoreError> {
        let id = self.ensure_film(film, title)?;
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.sql_error(e))?;
        write_alignment(&tx, id, rows).map_err(|e| self.sql_error(e))?;
        tx.commit().map_err(|e| self.sql_error(e))?;
        Ok(id)
    }

    /// Removes a film's alignment rows (the film itself stays).
    pub fn delete_alignment(&self, film: FilmId) -> Result<(), StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.sql_error(e))?;
        delete_rows(&tx, film).map_err(|e| self.sql_error(e))?;
        tx.commit().map_err(|e| self.sql_error(e))
    }

    /// A film's stored alignment rows, or `None` when it was never aligned.
    pub fn alignment_rows(&self, film: FilmId) -> Result<Option<SavedAlignmentRows>, StoreError> {
        read_alignment(self, film).map_err(|e| self.sql_error(e))
    }

    /// A film's block rows in script order, each with its keyframes (empty
    /// when the film was never aligned).
    pub fn block_rows(&self, film: FilmId) -> Result<Vec<BlockRow>, StoreError> {
        read_blocks(self, film).map_err(|e| self.sql_error(e))
    }

    /// A film's element rows with indices in `first..=last`, in order.
    pub fn element_rows(
        &self,
        film: FilmId,
        first: usize,
        last: usize,
    ) -> Result<Vec<ElementRow>, StoreError> {
        read_elements(self, film, first, last).map_err(|e| self.sql_error(e))
    }
}

fn delete_rows(tx: &Transaction, film: FilmId) -> rusqlite::Result<()> {
    for table in FILM_TABLES {
        tx.execute(&format!("DELETE FROM {table} WHERE film_id = ?1"), [film.0])?;
    }
    Ok(())
}

fn write_alignment(tx: &Transaction, film: FilmId, rows: &AlignmentRows) -> rusqlite::Result<()> {
    delete_rows(tx, film)?;
    let s = &rows.run;
    let src = &rows.sources;
    tx.execute(
        "INSERT INTO alignment_runs (film_id, dialogue_lines, cues, matched, coverage,
             mean_confidence, anchors, dp_cells, moved_lines, embedder, verdict,
             script_path, script_sha256, subtitles_path, subtitles_sha256, shots_path, shots_sha256,
             unrelated_median, unrelated_high, unrelated_pairs, lone_pairs)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21)",
        params![
            film.0,
            to_i64(s.dialogue_lines),
            to_i64(s.cues),
            to_i64(s.matched),
            f64::from(s.coverage),
            f64::from(s.mean_confidence),
            to_i64(s.anchors),
            to_i64(s.dp_cells),
            to_i64(s.moved_lines),
            s.embedder,
            s.verdict,
            src.script.path,
            src.script.sha256,
            src.subtitles.path,
            src.subtitles.sha256,
            src.shots.as_ref().map(|f| f.path.as_str()),
            src.shots.as_ref().map(|f| f.sha256.as_str()),
            s.unrelated.map(|u| f64::from(u.0)),
            s.unrelated.map(|u| f64::from(u.1)),
            s.unrelated.map(|u| to_i64(u.2)),
            to_i64(s.lone_pairs),
        ],
    )?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO script_elements (film_id, idx, kind, text, scene, speaker, extension,
                 line_first, line_last, start_ms, end_ms, interpolated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        for e in &rows.elements {
            stmt.execute(params![
                film.0,
                to_i64(e.index),
                e.kind,
                e.text,
                e.scene.map(to_i64),
                e.speaker,
                e.extension,
                to_i64(e.lines[0]),
                to_i64(e.lines[1]),
                opt_i64(e.start_ms),
                opt_i64(e.end_ms),
                e.interpolated,
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO script_scenes (film_id, idx, heading, location, time_of_day,
                 first_element, last_element) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for sc in &rows.scenes {
            stmt.execute(params![
                film.0,
                to_i64(sc.index),
                sc.heading,
                sc.location,
                sc.time_of_day,
                to_i64(sc.elements[0]),
                to_i64(sc.elements[1]),
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO cues (film_id, idx, start_ms, end_ms, text) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for c in &rows.cues {
            stmt.execute(params![
                film.0,
                to_i64(c.index),
                opt_i64(Some(c.start_ms)),
                opt_i64(Some(c.end_ms)),
                c.text,
            ])?;
        }
    }
    if !rows.shots.is_empty() {
        let mut shot = tx.prepare(
            "INSERT INTO shots (film_id, idx, start_frame, end_frame, start_ms, end_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        let mut key = tx.prepare(
            "INSERT INTO keyframes (film_id, shot, slot, frame, path) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for sh in &rows.shots {
            shot.execute(params![
                film.0,
                to_i64(sh.index),
                opt_i64(Some(sh.start_frame)),
                opt_i64(Some(sh.end_frame)),
                opt_i64(Some(sh.start_ms)),
                opt_i64(Some(sh.end_ms)),
            ])?;
            for k in &sh.keyframes {
                key.execute(params![
                    film.0,
                    to_i64(sh.index),
                    to_i64(k.slot),
                    opt_i64(k.frame),
                    k.path,
                ])?;
            }
        }
    }
    {
        let mut line = tx.prepare(
            "INSERT INTO alignments (film_id, line, element, start_ms, end_ms, confidence, moved)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut cue =
            tx.prepare("INSERT INTO alignment_cues (film_id, line, cue) VALUES (?1, ?2, ?3)")?;
        for l in &rows.lines {
            line.execute(params![
                film.0,
                to_i64(l.line),
                to_i64(l.element),
                opt_i64(l.start_ms),
                opt_i64(l.end_ms),
                f64::from(l.confidence),
                l.moved,
            ])?;
            for &c in &l.cues {
                cue.execute(params![film.0, to_i64(l.line), to_i64(c)])?;
            }
        }
    }
    {
        let mut block = tx.prepare(
            "INSERT INTO blocks (film_id, idx, first_element, last_element, scene, start_ms, end_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut key = tx.prepare(
            "INSERT INTO block_keyframes (film_id, block, pos, path, representative)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for b in &rows.blocks {
            block.execute(params![
                film.0,
                to_i64(b.id),
                to_i64(b.elements[0]),
                to_i64(b.elements[1]),
                to_i64(b.scene),
                opt_i64(b.start_ms),
                opt_i64(b.end_ms),
            ])?;
            for (pos, k) in b.keyframes.iter().enumerate() {
                key.execute(params![
                    film.0,
                    to_i64(b.id),
                    to_i64(pos),
                    k.path,
                    k.representative
                ])?;
            }
        }
    }
    Ok(())
}

fn get_usize(row: &rusqlite::Row, i: usize) -> rusqlite::Result<usize> {
    let v: i64 = row.get(i)?;
    usize::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(i, v))
}

fn get_opt_u64(row: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<u64>> {
    let v: Option<i64> = row.get(i)?;
    v.map(|v| u64::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(i, v)))
        .transpose()
}

fn read_elements(
    store: &Store,
    film: FilmId,
    first: usize,
    last: usize,
) -> rusqlite::Result<Vec<ElementRow>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT idx, kind, text, scene, speaker, line_first, line_last, start_ms, end_ms, interpolated,
             extension
         FROM script_elements WHERE film_id = ?1 AND idx BETWEEN ?2 AND ?3 ORDER BY idx",
    )?;
    let rows = stmt.query_map(params![film.0, to_i64(first), to_i64(last)], |row| {
        let scene: Option<i64> = row.get(3)?;
        let start_ms = get_opt_u64(row, 7)?;
        let end_ms = get_opt_u64(row, 8)?;
        // The flag means something only beside a time.
        let interpolated = match (start_ms, end_ms) {
            (Some(_), Some(_)) => row.get::<_, Option<bool>>(9)?,
            _ => None,
        };
        Ok(ElementRow {
            index: get_usize(row, 0)?,
            kind: row.get(1)?,
            text: row.get(2)?,
            scene: scene.and_then(|s| usize::try_from(s).ok()),
            speaker: row.get(4)?,
            extension: row.get(10)?,
            lines: [get_usize(row, 5)?, get_usize(row, 6)?],
            start_ms,
            end_ms,
            interpolated,
        })
    })?;
    rows.collect()
}

fn read_blocks(store: &Store, film: FilmId) -> rusqlite::Result<Vec<BlockRow>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT idx, scene, first_element, last_element, start_ms, end_ms
         FROM blocks WHERE film_id = ?1 ORDER BY idx",
    )?;
    let heads = stmt
        .query_map([film.0], |row| {
            Ok(BlockRow {
                id: get_usize(row, 0)?,
                scene: get_usize(row, 1)?,
                elements: [get_usize(row, 2)?, get_usize(row, 3)?],
                start_ms: get_opt_u64(row, 4)?,
                end_ms: get_opt_u64(row, 5)?,
                keyframes: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut keys = store.conn.prepare_cached(
        "SELECT path, representative FROM block_keyframes
         WHERE film_id = ?1 AND block = ?2 ORDER BY pos",
    )?;
    let mut blocks = Vec::with_capacity(heads.len());
    for mut b in heads {
        b.keyframes = keys
            .query_map(params![film.0, to_i64(b.id)], |row| {
                Ok(BlockKeyframeRow {
                    path: row.get(0)?,
                    representative: row.get(1)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        blocks.push(b);
    }
    Ok(blocks)
}

fn read_alignment(store: &Store, film: FilmId) -> rusqlite::Result<Option<SavedAlignmentRows>> {
    let run = store
        .conn
        .query_row(
            "SELECT dialogue_lines, cues, matched, coverage, mean_confidence, anchors, dp_cells,
                 moved_lines, embedder, verdict, script_path, script_sha256, subtitles_path,
                 subtitles_sha256, shots_path, shots_sha256, unrelated_median, unrelated_high,
                 unrelated_pairs, lone_pairs
             FROM alignment_runs WHERE film_id = ?1",
            [film.0],
            |row| {
                let run = RunRow {
                    dialogue_lines: get_usize(row, 0)?,
                    cues: get_usize(row, 1)?,
                    matched: get_usize(row, 2)?,
                    coverage: row.get::<_, f64>(3)? as f32,
                    mean_confidence: row.get::<_, f64>(4)? as f32,
                    anchors: get_usize(row, 5)?,
                    dp_cells: get_usize(row, 6)?,
                    moved_lines: get_usize(row, 7)?,
                    embedder: row.get(8)?,
                    verdict: row.get(9)?,
                    unrelated: match (
                        row.get::<_, Option<f64>>(16)?,
                        row.get::<_, Option<f64>>(17)?,
                        row.get::<_, Option<i64>>(18)?,
                    ) {
                        (Some(median), Some(high), Some(pairs)) => Some((
                            median as f32,
                            high as f32,
                            usize::try_from(pairs).unwrap_or(0),
                        )),
                        _ => None,
                    },
                    lone_pairs: get_usize(row, 19)?,
                };
                let shots = match (row.get::<_, Option<String>>(14)?, row.get(15)?) {
                    (Some(path), Some(sha256)) => Some(InputFile { path, sha256 }),
                    _ => None,
                };
                let sources = AlignmentSources {
                    script: InputFile {
                        path: row.get(10)?,
                        sha256: row.get(11)?,
                    },
                    subtitles: InputFile {
                        path: row.get(12)?,
                        sha256: row.get(13)?,
                    },
                    shots,
                };
                Ok((run, sources))
            },
        )
        .optional()?;
    let Some((run, sources)) = run else {
        return Ok(None);
    };
    let elements = read_elements(store, film, 0, usize::MAX)?;
    let mut cue_stmt = store.conn.prepare_cached(
        "SELECT cue FROM alignment_cues WHERE film_id = ?1 AND line = ?2 ORDER BY cue",
    )?;
    let mut stmt = store.conn.prepare_cached(
        "SELECT line, element, start_ms, end_ms, confidence, moved
         FROM alignments WHERE film_id = ?1 ORDER BY line",
    )?;
    let mut lines = stmt
        .query_map([film.0], |row| {
            Ok(LineRow {
                line: get_usize(row, 0)?,
                element: get_usize(row, 1)?,
                cues: Vec::new(),
                start_ms: get_opt_u64(row, 2)?,
                end_ms: get_opt_u64(row, 3)?,
                confidence: row.get::<_, f64>(4)? as f32,
                moved: row.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for l in &mut lines {
        l.cues = cue_stmt
            .query_map(params![film.0, to_i64(l.line)], |row| get_usize(row, 0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
    }
    let blocks = read_blocks(store, film)?;
    let count = |table: &str| -> rusqlite::Result<usize> {
        store.conn.query_row(
            &format!("SELECT COUNT(*) FROM {table} WHERE film_id = ?1"),
            [film.0],
            |row| get_usize(row, 0),
        )
    };
    Ok(Some(SavedAlignmentRows {
        run,
        sources,
        elements,
        lines,
        blocks,
        cues: count("cues")?,
        shots: count("shots")?,
    }))
}

#[cfg(test)]
#[path = "align_tests.rs"]
mod tests;
