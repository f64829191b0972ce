//! The alignment stage in the workspace store: its types to the store's rows
//! (migration 0002) and back.
//!
//! [`AlignmentStore::save_alignment`] replaces everything a film had from a
//! previous alignment in one transaction; [`AlignmentStore::load_alignment`]
//! gives the [`Alignment`] back as it was saved, and
//! [`AlignmentStore::load_blocks`] gives the graph stage what it reads: each
//! block with its script segment and keyframes. The SQL stays in the store
//! ([`Store::save_alignment_rows`], [`Store::alignment_rows`]).

use serde::{Deserialize, Serialize};

use crate::align::export::segment_line;
use crate::align::{Alignment, Block, BlockKeyframe, ElementTime, LineAlignment, Summary, Verdict};
use crate::media::shots::ShotList;
use crate::media::subtitles::Subtitles;
use crate::screenplay::{ElementKind, Screenplay};
use crate::store::{
    AlignmentRows, AlignmentSources, BlockKeyframeRow, BlockRow, CueRow, ElementRow, FilmId,
    KeyframeRow, LineRow, RunRow, SceneRow, ShotRow, Store, StoreError,
};

/// Everything [`AlignmentStore::save_alignment`] writes for one film.
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

/// The alignment stage's reads and writes in the workspace store.
pub trait AlignmentStore {
    /// Saves a film's whole alignment in one transaction, replacing the rows
    /// of its previous alignment; creates the film (slug `film`) if new.
    fn save_alignment(&self, film: &str, rec: &AlignmentRecord) -> Result<FilmId, StoreError>;

    /// A film's stored alignment, or `None` when it was never aligned.
    fn load_alignment(&self, film: FilmId) -> Result<Option<StoredAlignment>, StoreError>;

    /// A film's blocks in script order, each with its script segment and
    /// keyframes (empty when the film was never aligned).
    fn load_blocks(&self, film: FilmId) -> Result<Vec<StoredBlock>, StoreError>;

    /// A film's stored screenplay elements with their times, in order.
    fn load_elements(&self, film: FilmId) -> Result<Vec<StoredElement>, StoreError>;
}

impl AlignmentStore for Store {
    fn save_alignment(&self, film: &str, rec: &AlignmentRecord) -> Result<FilmId, StoreError> {
        self.save_alignment_rows(film, rec.play.title_field("title"), &rows_of(rec))
    }

    fn load_alignment(&self, film: FilmId) -> Result<Option<StoredAlignment>, StoreError> {
        let Some(rows) = self.alignment_rows(film)? else {
            return Ok(None);
        };
        let verdict = verdict_of(self, &rows.run.verdict)?;
        let element_times = rows
            .elements
            .into_iter()
            .map(|e| element_of(self, e).map(|e| e.time))
            .collect::<Result<_, _>>()?;
        let alignments = rows.lines.into_iter().map(line_of).collect();
        let blocks = rows
            .blocks
            .into_iter()
            .map(|b| Block {
                id: b.id,
                elements: b.elements,
                scene: b.scene,
                start_ms: b.start_ms,
                end_ms: b.end_ms,
                keyframes: b.keyframes.into_iter().map(block_keyframe_of).collect(),
            })
            .collect();
        let r = rows.run;
        Ok(Some(StoredAlignment {
            alignment: Alignment {
                alignments,
                element_times,
                blocks,
                summary: Summary {
                    dialogue_lines: r.dialogue_lines,
                    cues: r.cues,
                    matched: r.matched,
                    coverage: r.coverage,
                    mean_confidence: r.mean_confidence,
                    anchors: r.anchors,
                    dp_cells: r.dp_cells,
                    moved_lines: r.moved_lines,
                    embedder: r.embedder,
                    verdict,
                    unrelated: r.unrelated.map(|(median, high, pairs)| {
                        super::similarity::UnrelatedLevel {
                            median,
                            high,
                            pairs,
                        }
                    }),
                    lone_pairs: r.lone_pairs,
                },
            },
            sources: rows.sources,
            cues: rows.cues,
            shots: rows.shots,
        }))
    }

    fn load_blocks(&self, film: FilmId) -> Result<Vec<StoredBlock>, StoreError> {
        let heads = self.block_rows(film)?;
        let mut blocks = Vec::with_capacity(heads.len());
        for b in heads {
            let segment = self
                .element_rows(film, b.elements[0], b.elements[1])?
                .into_iter()
                .map(|e| element_of(self, e))
                .collect::<Result<_, _>>()?;
            blocks.push(StoredBlock {
                id: b.id,
                scene: b.scene,
                elements: b.elements,
                start_ms: b.start_ms,
                end_ms: b.end_ms,
                segment,
                keyframes: b.keyframes.into_iter().map(block_keyframe_of).collect(),
            });
        }
        Ok(blocks)
    }

    fn load_elements(&self, film: FilmId) -> Result<Vec<StoredElement>, StoreError> {
        self.element_rows(film, 0, usize::MAX)?
            .into_iter()
            .map(|e| element_of(self, e))
            .collect()
    }
}

/// The rows of an alignment record.
fn rows_of(rec: &AlignmentRecord) -> AlignmentRows {
    let a = rec.alignment;
    let s = &a.summary;
    AlignmentRows {
        run: RunRow {
            dialogue_lines: s.dialogue_lines,
            cues: s.cues,
            matched: s.matched,
            coverage: s.coverage,
            mean_confidence: s.mean_confidence,
            anchors: s.anchors,
            dp_cells: s.dp_cells,
            moved_lines: s.moved_lines,
            embedder: s.embedder.clone(),
            verdict: s.verdict.as_str().to_owned(),
            unrelated: s.unrelated.map(|u| (u.median, u.high, u.pairs)),
            lone_pairs: s.lone_pairs,
        },
        sources: rec.sources.clone(),
        elements: rec
            .play
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let t = a.element_times.get(i).copied().flatten();
                ElementRow {
                    index: i,
                    kind: e.kind.as_str().to_owned(),
                    text: e.text.clone(),
                    scene: e.scene,
                    speaker: e.speaker.clone(),
                    extension: e.extension.clone(),
                    lines: [e.lines.first, e.lines.last],
                    start_ms: t.map(|t| t.start_ms),
                    end_ms: t.map(|t| t.end_ms),
                    interpolated: t.map(|t| t.interpolated),
                }
            })
            .collect(),
        scenes: rec
            .play
            .scenes
            .iter()
            .map(|sc| SceneRow {
                index: sc.index,
                heading: sc.heading.clone(),
                location: sc.location.clone(),
                time_of_day: sc.time_of_day.clone(),
                elements: sc.elements,
            })
            .collect(),
        cues: rec
            .subtitles
            .cues
            .iter()
            .map(|c| CueRow {
                index: c.index,
                start_ms: c.start_ms,
                end_ms: c.end_ms,
                text: c.text.clone(),
            })
            .collect(),
        shots: rec
            .shots
            .map(|list| {
                list.shots
                    .iter()
                    .map(|sh| ShotRow {
                        index: sh.index,
                        start_frame: sh.start_frame,
                        end_frame: sh.end_frame,
                        start_ms: sh.start_ms,
                        end_ms: sh.end_ms,
                        keyframes: sh
                            .keyframes
                            .iter()
                            .map(|k| KeyframeRow {
                                slot: k.slot,
                                frame: k.frame,
                                path: k.path.display().to_string(),
                            })
                            .collect(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        lines: a
            .alignments
            .iter()
            .map(|l| LineRow {
                line: l.line,
                element: l.element,
                cues: l.cues.clone(),
                start_ms: l.start_ms,
                end_ms: l.end_ms,
                confidence: l.confidence,
                moved: l.moved,
            })
            .collect(),
        blocks: a
            .blocks
            .iter()
            .map(|b| BlockRow {
                id: b.id,
                scene: b.scene,
                elements: b.elements,
                start_ms: b.start_ms,
                end_ms: b.end_ms,
                keyframes: b
                    .keyframes
                    .iter()
                    .map(|k| BlockKeyframeRow {
                        path: k.path.clone(),
                        representative: k.representative,
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn element_of(store: &Store, e: ElementRow) -> Result<StoredElement, StoreError> {
    let kind = ElementKind::ALL
        .into_iter()
        .find(|k| k.as_str() == e.kind)
        .ok_or_else(|| store.invalid_value(0, format!("unknown element kind `{}`", e.kind)))?;
    let time = match (e.start_ms, e.end_ms) {
        (Some(start_ms), Some(end_ms)) => Some(ElementTime {
            start_ms,
            end_ms,
            interpolated: e.interpolated.unwrap_or(false),
        }),
        _ => None,
    };
    Ok(StoredElement {
        index: e.index,
        kind,
        text: e.text,
        scene: e.scene,
        speaker: e.speaker,
        lines: e.lines,
        time,
    })
}

fn verdict_of(store: &Store, s: &str) -> Result<Verdict, StoreError> {
    [Verdict::Aligned, Verdict::Partial, Verdict::Mismatch]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| store.invalid_value(0, format!("unknown verdict `{s}`")))
}

fn line_of(l: LineRow) -> LineAlignment {
    LineAlignment {
        line: l.line,
        element: l.element,
        cues: l.cues,
        start_ms: l.start_ms,
        end_ms: l.end_ms,
        confidence: l.confidence,
        moved: l.moved,
    }
}

fn block_keyframe_of(k: BlockKeyframeRow) -> BlockKeyframe {
    BlockKeyframe {
        path: k.path,
        representative: k.representative,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{align, attach_shots, AlignOptions};
    use crate::media::shots::MovieNetPaths;
    use crate::media::subtitles;
    use crate::screenplay;
    use crate::store::InputFile;
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

    #[test]
    fn an_unknown_element_kind_is_an_error() {
        let s = sample();
        let a = align(&s.play, &s.subs, &AlignOptions::default());
        let store = Store::open_in_memory().unwrap();
        let rec = AlignmentRecord {
            play: &s.play,
            subtitles: &s.subs,
            shots: None,
            alignment: &a,
            sources: &s.sources,
        };
        let mut rows = rows_of(&rec);
        for e in &mut rows.elements {
            e.kind = "chorus".into();
        }
        let film = store.save_alignment_rows("f", None, &rows).unwrap();
        let err = store.load_elements(film).unwrap_err().to_string();
        assert!(err.contains("unknown element kind `chorus`"), "{err}");
        let err = store.load_alignment(film).unwrap_err().to_string();
        assert!(err.contains("unknown element kind `chorus`"), "{err}");
        assert!(!rows.blocks.is_empty());
        assert!(store.load_blocks(film).is_err());
    }
}
