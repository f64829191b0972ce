//! The alignment stage's rows (migration 0002): a film's screenplay elements,
//! scenes, cues, shots and keyframes, its line alignments and blocks, and the
//! run's summary with the inputs' fingerprints.
//!
//! [`Store::save_alignment`] replaces everything a film had from a previous
//! alignment in one transaction; [`Store::load_alignment`] gives the
//! [`Alignment`] back as it was saved, and [`Store::load_blocks`] gives the
//! graph stage what it reads: each block with its script segment and keyframes.

use std::path::Path;

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{FilmId, Store, StoreError};
use crate::align::export::segment_line;
use crate::align::{Alignment, Block, BlockKeyframe, ElementTime, LineAlignment, Summary, Verdict};
use crate::media::shots::ShotList;
use crate::media::subtitles::Subtitles;
use crate::screenplay::{ElementKind, Screenplay};

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

/// Everything [`Store::save_alignment`] writes for one film.
#[derive(Debug, Clone, Copy)]
pub struct AlignmentRecord<'a> {
    /// The parsed screenplay.
    pub play: &'a Screenplay,
    /// The parsed subtitles.
    pub subtitles: &'a Subtitles,
    /// The film's shots, when attached.
    pub shots: Option<&'a ShotList>,
    /// The alignment of `play` to `subtitles`.
    pub alignment: &'a Alignment,
    /// The input files' fingerprints.
    pub sources: &'a AlignmentSources,
}

/// A stored screenplay element with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredElement {
    /// Element index in the screenplay.
    pub index: usize,
    /// Its kind.
    pub kind: ElementKind,
    /// Its text.
    pub text: String,
    /// Scene index.
    pub scene: Option<usize>,
    /// Normalized speaker (dialogue, parentheticals, cues).
    pub speaker: Option<String>,
    /// First and last source line (1-based).
    pub lines: [usize; 2],
    /// Its time on the film clock, when known.
    pub time: Option<ElementTime>,
}

/// A block as the graph stage reads it: where it is, what the script says in
/// it, and what is on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredBlock {
    /// 0-based, in script order.
    pub id: usize,
    /// Scene index.
    pub scene: usize,
    /// Element range `[first, last]`, inclusive.
    pub elements: [usize; 2],
    /// Start on the film clock, `None` when the scene has no aligned line.
    pub start_ms: Option<u64>,
    /// End on the film clock (exclusive).
    pub end_ms: Option<u64>,
    /// The block's elements, in order.
    pub segment: Vec<StoredElement>,
    /// Keyframes of the shots it overlaps, ≤ 5 marked representative.
    pub keyframes: Vec<BlockKeyframe>,
}

impl StoredBlock {
    /// The script segment as text, one story element per line (dialogue as
    /// `SPEAKER: words`), the same text as the JSONL export's `block.text`.
    pub fn script_text(&self) -> String {
        let mut out = String::new();
        for e in &self.segment {
            if let Some(line) = segment_line(e.kind, &e.text, e.speaker.as_deref()) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// The representative keyframes' paths (at most five).
    pub fn representative_keyframes(&self) -> impl Iterator<Item = &str> {
        self.keyframes
            .iter()
            .filter(|k| k.representative)
            .map(|k| k.path.as_str())
    }
}

/// A film's stored alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAlignment {
    /// The alignment as saved.
    pub alignment: Alignment,
    /// What it was computed from.
    pub sources: AlignmentSources,
    /// Cues stored (number, start, end, text).
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

fn kind_from_str(s: &str) -> rusqlite::Result<ElementKind> {
    ElementKind::ALL
        .into_iter()
        .find(|k| k.as_str() == s)
        .ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Text,
                format!("unknown element kind `{s}`").into(),
            )
        })
}

fn verdict_from_str(s: &str) -> rusqlite::Result<Verdict> {
    [Verdict::Aligned, Verdict::Partial, Verdict::Mismatch]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Text,
                format!("unknown verdict `{s}`").into(),
            )
        })
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
    /// of its previous alignment; creates the film (slug `film`) if new.
    pub fn save_alignment(&self, film: &str, rec: &AlignmentRecord) -> Result<FilmId, StoreError> {
        let id = self.ensure_film(film, rec.play.title_field("title"))?;
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.sql_error(e))?;
        write_alignment(&tx, id, rec).map_err(|e| self.sql_error(e))?;
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

    /// A film's stored alignment, or `None` when it was never aligned.
    pub fn load_alignment(&self, film: FilmId) -> Result<Option<StoredAlignment>, StoreError> {
        read_alignment(self, film).map_err(|e| self.sql_error(e))
    }

    /// A film's blocks in script order, each with its script segment and
    /// keyframes (empty when the film was never aligned).
    pub fn load_blocks(&self, film: FilmId) -> Result<Vec<StoredBlock>, StoreError> {
        read_blocks(self, film).map_err(|e| self.sql_error(e))
    }

    /// A film's stored screenplay elements with their times, in order.
    pub fn load_elements(&self, film: FilmId) -> Result<Vec<StoredElement>, StoreError> {
        read_elements(self, film, 0, usize::MAX).map_err(|e| self.sql_error(e))
    }
}

fn delete_rows(tx: &Transaction, film: FilmId) -> rusqlite::Result<()> {
    for table in FILM_TABLES {
        tx.execute(&format!("DELETE FROM {table} WHERE film_id = ?1"), [film.0])?;
    }
    Ok(())
}

fn write_alignment(tx: &Transaction, film: FilmId, rec: &AlignmentRecord) -> rusqlite::Result<()> {
    delete_rows(tx, film)?;
    let a = rec.alignment;
    let s = &a.summary;
    let src = rec.sources;
    tx.execute(
        "INSERT INTO alignment_runs (film_id, dialogue_lines, cues, matched, coverage,
             mean_confidence, anchors, dp_cells, moved_lines, embedder, verdict,
             script_path, script_sha256, subtitles_path, subtitles_sha256, shots_path, shots_sha256)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
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
            s.verdict.as_str(),
            src.script.path,
            src.script.sha256,
            src.subtitles.path,
            src.subtitles.sha256,
            src.shots.as_ref().map(|f| f.path.as_str()),
            src.shots.as_ref().map(|f| f.sha256.as_str()),
        ],
    )?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO script_elements (film_id, idx, kind, text, scene, speaker, extension,
                 line_first, line_last, start_ms, end_ms, interpolated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        for (i, e) in rec.play.elements.iter().enumerate() {
            let t = a.element_times.get(i).copied().flatten();
            stmt.execute(params![
                film.0,
                to_i64(i),
                e.kind.as_str(),
                e.text,
                e.scene.map(to_i64),
                e.speaker,
                e.extension,
                to_i64(e.lines.first),
                to_i64(e.lines.last),
                opt_i64(t.map(|t| t.start_ms)),
                opt_i64(t.map(|t| t.end_ms)),
                t.map(|t| t.interpolated),
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO script_scenes (film_id, idx, heading, location, time_of_day,
                 first_element, last_element) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for sc in &rec.play.scenes {
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
        for c in &rec.subtitles.cues {
            stmt.execute(params![
                film.0,
                to_i64(c.index),
                opt_i64(Some(c.start_ms)),
                opt_i64(Some(c.end_ms)),
                c.text,
            ])?;
        }
    }
    if let Some(list) = rec.shots {
        let mut shot = tx.prepare(
            "INSERT INTO shots (film_id, idx, start_frame, end_frame, start_ms, end_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        let mut key = tx.prepare(
            "INSERT INTO keyframes (film_id, shot, slot, frame, path) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for sh in &list.shots {
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
                    k.path.display().to_string(),
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
        for l in &a.alignments {
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
        for b in &a.blocks {
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
) -> rusqlite::Result<Vec<StoredElement>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT idx, kind, text, scene, speaker, line_first, line_last, start_ms, end_ms, interpolated
         FROM script_elements WHERE film_id = ?1 AND idx BETWEEN ?2 AND ?3 ORDER BY idx",
    )?;
    let rows = stmt.query_map(params![film.0, to_i64(first), to_i64(last)], |row| {
        let kind: String = row.get(1)?;
        let scene: Option<i64> = row.get(3)?;
        let time = match (get_opt_u64(row, 7)?, get_opt_u64(row, 8)?) {
            (Some(start_ms), Some(end_ms)) => Some(ElementTime {
                start_ms,
                end_ms,
                interpolated: row.get::<_, Option<bool>>(9)?.unwrap_or(false),
            }),
            _ => None,
        };
        Ok(StoredElement {
            index: get_usize(row, 0)?,
            kind: kind_from_str(&kind)?,
            text: row.get(2)?,
            scene: scene.and_then(|s| usize::try_from(s).ok()),
            speaker: row.get(4)?,
            lines: [get_usize(row, 5)?, get_usize(row, 6)?],
            time,
        })
    })?;
    rows.collect()
}

fn read_blocks(store: &Store, film: FilmId) -> rusqlite::Result<Vec<StoredBlock>> {
    let mut stmt = store.conn.prepare_cached(
        "SELECT idx, scene, first_element, last_element, start_ms, end_ms
         FROM blocks WHERE film_id = ?1 ORDER BY idx",
    )?;
    let heads = stmt
        .query_map([film.0], |row| {
            Ok(StoredBlock {
                id: get_usize(row, 0)?,
                scene: get_usize(row, 1)?,
                elements: [get_usize(row, 2)?, get_usize(row, 3)?],
                start_ms: get_opt_u64(row, 4)?,
                end_ms: get_opt_u64(row, 5)?,
                segment: Vec::new(),
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
        b.segment = read_elements(store, film, b.elements[0], b.elements[1])?;
        b.keyframes = keys
            .query_map(params![film.0, to_i64(b.id)], |row| {
                Ok(BlockKeyframe {
                    path: row.get(0)?,
                    representative: row.get(1)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        blocks.push(b);
    }
    Ok(blocks)
}

fn read_alignment(store: &Store, film: FilmId) -> rusqlite::Result<Option<StoredAlignment>> {
    let run = store
        .conn
        .query_row(
            "SELECT dialogue_lines, cues, matched, coverage, mean_confidence, anchors, dp_cells,
                 moved_lines, embedder, verdict, script_path, script_sha256, subtitles_path,
                 subtitles_sha256, shots_path, shots_sha256
             FROM alignment_runs WHERE film_id = ?1",
            [film.0],
            |row| {
                let verdict: String = row.get(9)?;
                let summary = Summary {
                    dialogue_lines: get_usize(row, 0)?,
                    cues: get_usize(row, 1)?,
                    matched: get_usize(row, 2)?,
                    coverage: row.get::<_, f64>(3)? as f32,
                    mean_confidence: row.get::<_, f64>(4)? as f32,
                    anchors: get_usize(row, 5)?,
                    dp_cells: get_usize(row, 6)?,
                    moved_lines: get_usize(row, 7)?,
                    embedder: row.get(8)?,
                    verdict: verdict_from_str(&verdict)?,
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
                Ok((summary, sources))
            },
        )
        .optional()?;
    let Some((summary, sources)) = run else {
        return Ok(None);
    };
    let element_times = read_elements(store, film, 0, usize::MAX)?
        .into_iter()
        .map(|e| e.time)
        .collect();
    let mut cue_stmt = store.conn.prepare_cached(
        "SELECT cue FROM alignment_cues WHERE film_id = ?1 AND line = ?2 ORDER BY cue",
    )?;
    let mut stmt = store.conn.prepare_cached(
        "SELECT line, element, start_ms, end_ms, confidence, moved
         FROM alignments WHERE film_id = ?1 ORDER BY line",
    )?;
    let mut alignments = stmt
        .query_map([film.0], |row| {
            Ok(LineAlignment {
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
    for a in &mut alignments {
        a.cues = cue_stmt
            .query_map(params![film.0, to_i64(a.line)], |row| get_usize(row, 0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
    }
    let blocks = read_blocks(store, film)?
        .into_iter()
        .map(|b| Block {
            id: b.id,
            elements: b.elements,
            scene: b.scene,
            start_ms: b.start_ms,
            end_ms: b.end_ms,
            keyframes: b.keyframes,
        })
        .collect();
    let count = |table: &str| -> rusqlite::Result<usize> {
        store.conn.query_row(
            &format!("SELECT COUNT(*) FROM {table} WHERE film_id = ?1"),
            [film.0],
            |row| get_usize(row, 0),
        )
    };
    Ok(Some(StoredAlignment {
        alignment: Alignment {
            alignments,
            element_times,
            blocks,
            summary,
        },
        sources,
        cues: count("cues")?,
        shots: count("shots")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{align, attach_shots, AlignOptions};
    use crate::media::shots::MovieNetPaths;
    use crate::media::subtitles;
    use crate::screenplay;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    struct Sample {
        play: Screenplay,
        subs: Subtitles,
        shots: ShotList,
        sources: AlignmentSources,
    }

    fn sample() -> Sample {
        let dir = root().join("screenplays/the-second-key");
        let script = dir.join("script.fountain");
        let srt = dir.join("subtitles.srt");
        let shot_txt = root().join("keyframes/the-second-key/shot_txt/the-second-key.txt");
        Sample {
            play: screenplay::parse_file(&script, None).unwrap(),
            subs: subtitles::parse_file(&srt, None).unwrap(),
            shots: ShotList::load_movienet(&MovieNetPaths::explicit(&shot_txt, None), None)
                .unwrap(),
            sources: AlignmentSources {
                script: InputFile::of_file(&script).unwrap(),
                subtitles: InputFile::of_file(&srt).unwrap(),
                shots: Some(InputFile::of_file(&shot_txt).unwrap()),
            },
        }
    }

    #[test]
    fn an_alignment_round_trips_through_the_store() {
        let s = sample();
        let mut a = align(&s.play, &s.subs, &AlignOptions::default());
        attach_shots(&mut a, &s.shots, 5, 3_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ws.db");
        let store = Store::open(&path).unwrap();
        let rec = AlignmentRecord {
            play: &s.play,
            subtitles: &s.subs,
            shots: Some(&s.shots),
            alignment: &a,
            sources: &s.sources,
        };
        let film = store.save_alignment("the-second-key", &rec).unwrap();
        drop(store);
        // A fresh connection reads back exactly what was saved.
        let store = Store::open(&path).unwrap();
        let back = store.load_alignment(film).unwrap().unwrap();
        assert_eq!(back.alignment, a);
        assert_eq!(back.sources, s.sources);
        assert_eq!(back.cues, s.subs.cues.len());
        assert_eq!(back.shots, s.shots.shots.len());
        assert!(back.sources.script.sha256.starts_with("sha256:"));
        assert_eq!(back.sources.script.sha256.len(), 7 + 64);
        assert_eq!(store.integrity_check().unwrap(), vec!["ok".to_string()]);
    }

    #[test]
    fn blocks_come_back_with_their_script_segment_and_keyframes() {
        let s = sample();
        let mut a = align(&s.play, &s.subs, &AlignOptions::default());
        attach_shots(&mut a, &s.shots, 5, 3_000);
        let store = Store::open_in_memory().unwrap();
        let rec = AlignmentRecord {
            play: &s.play,
            subtitles: &s.subs,
            shots: Some(&s.shots),
            alignment: &a,
            sources: &s.sources,
        };
        let film = store.save_alignment("the-second-key", &rec).unwrap();
        let blocks = store.load_blocks(film).unwrap();
        assert_eq!(blocks.len(), a.blocks.len());
        for (got, want) in blocks.iter().zip(&a.blocks) {
            assert_eq!(got.id, want.id);
            assert_eq!(got.elements, want.elements);
            assert_eq!((got.start_ms, got.end_ms), (want.start_ms, want.end_ms));
            assert_eq!(got.keyframes, want.keyframes);
            assert!(got.representative_keyframes().count() <= 5);
            let indices: Vec<usize> = got.segment.iter().map(|e| e.index).collect();
            let want_indices: Vec<usize> = (want.elements[0]..=want.elements[1]).collect();
            assert_eq!(indices, want_indices);
            for e in &got.segment {
                let src = &s.play.elements[e.index];
                assert_eq!(
                    (e.kind, &e.text, &e.speaker),
                    (src.kind, &src.text, &src.speaker)
                );
                assert_eq!(e.time, a.element_times[e.index]);
            }
            assert_eq!(
                got.script_text(),
                crate::align::export::segment_text(&s.play, want.elements[0], want.elements[1])
            );
        }
        // The sample's first block opens with its scene heading and carries dialogue.
        let first = blocks.iter().find(|b| b.start_ms.is_some()).unwrap();
        assert!(
            first.script_text().contains(": "),
            "{}",
            first.script_text()
        );
        assert!(first.representative_keyframes().count() >= 1);
    }

    #[test]
    fn saving_again_replaces_the_previous_rows() {
        let s = sample();
        let store = Store::open_in_memory().unwrap();
        let with = {
            let mut a = align(&s.play, &s.subs, &AlignOptions::default());
            attach_shots(&mut a, &s.shots, 5, 3_000);
            a
        };
        let without = align(
            &s.play,
            &s.subs,
            &AlignOptions {
                block_max_ms: 20_000,
                ..AlignOptions::default()
            },
        );
        let mut sources = s.sources.clone();
        let film = store
            .save_alignment(
                "f",
                &AlignmentRecord {
                    play: &s.play,
                    subtitles: &s.subs,
                    shots: Some(&s.shots),
                    alignment: &with,
                    sources: &sources,
                },
            )
            .unwrap();
        sources.shots = None;
        let again = store
            .save_alignment(
                "f",
                &AlignmentRecord {
                    play: &s.play,
                    subtitles: &s.subs,
                    shots: None,
                    alignment: &without,
                    sources: &sources,
                },
            )
            .unwrap();
        assert_eq!(film, again);
        let back = store.load_alignment(film).unwrap().unwrap();
        assert_eq!(back.alignment, without);
        assert_eq!(back.shots, 0);
        assert_eq!(back.sources.shots, None);
        // Another film's rows are untouched by a save or a delete.
        let other = store
            .save_alignment(
                "g",
                &AlignmentRecord {
                    play: &s.play,
                    subtitles: &s.subs,
                    shots: None,
                    alignment: &without,
                    sources: &sources,
                },
            )
            .unwrap();
        store.delete_alignment(film).unwrap();
        assert_eq!(store.load_alignment(film).unwrap(), None);
        assert!(store.load_blocks(film).unwrap().is_empty());
        assert_eq!(
            store.load_alignment(other).unwrap().unwrap().alignment,
            without
        );
    }

    #[test]
    fn a_film_never_aligned_has_nothing() {
        let store = Store::open_in_memory().unwrap();
        let film = store.ensure_film("x", None).unwrap();
        assert_eq!(store.load_alignment(film).unwrap(), None);
        assert!(store.load_blocks(film).unwrap().is_empty());
        assert!(store.load_elements(film).unwrap().is_empty());
    }
}
