//! Only what is in the film (docs/audit.md): a question writer
//! that declines, before any wording, a question its [`Source`] cannot show —
//! one whose context came back empty, or whose subject or an option stands
//! for a moment the film does not contain (all its evidence in blocks the
//! source left out: scenes with no timed subtitle cue, see
//! [`Source::from_play`]). Generation then drops the question and the branch
//! it would have opened, as for any rejected wording, and asks no model.
//!
//! With a source that holds every block (text-only trees, or
//! [`Source::from_evidence`]) nothing is declined that has an excerpt.

use super::facts::Facts;
use super::generate::{focus_of, QuestionWriter, Spec, WriteError, Written};
use super::source::Source;

/// The start of the reason every declined question records.
pub const NOT_IN_FILM: &str = "not in the film";

/// `writer`, declining what `source` does not show.
pub struct InFilm<'a> {
    writer: &'a dyn QuestionWriter,
    source: &'a Source,
}

impl<'a> InFilm<'a> {
    /// Guards `writer` with `source`.
    pub fn new(writer: &'a dyn QuestionWriter, source: &'a Source) -> InFilm<'a> {
        InFilm { writer, source }
    }

    /// Why `spec` is not asked, when the source cannot show it.
    pub fn declines(&self, f: &Facts<'_>, spec: &Spec, excerpt: &str) -> Option<String> {
        if excerpt.trim().is_empty() {
            return Some(format!(
                "{NOT_IN_FILM}: no line of the question's evidence is in a scene the film contains"
            ));
        }
        let nodes = focus_of(&spec.ask)
            .into_iter()
            .chain(spec.candidates.iter().filter_map(|c| c.node));
        for n in nodes {
            let node = f.node(n);
            let shown = node
                .evidence
                .iter()
                .any(|ev| self.source.blocks.contains_key(&ev.block));
            if !node.evidence.is_empty() && !shown {
                return Some(format!(
                    "{NOT_IN_FILM}: {:?} is only in scenes the film does not contain",
                    node.name
                ));
            }
        }
        None
    }
}

impl QuestionWriter for InFilm<'_> {
    fn name(&self) -> String {
        self.writer.name()
    }

    fn write(&self, f: &Facts<'_>, spec: &Spec, excerpt: &str) -> Result<Written, WriteError> {
        match self.declines(f, spec, excerpt) {
            Some(why) => Err(WriteError::Rejected(why)),
            None => self.writer.write(f, spec, excerpt),
        }
    }

    fn max_length_ratio(&self) -> Option<f64> {
        self.writer.max_length_ratio()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Block;
    use crate::graph::{Evidence, Graph, Node, NodeKind};
    use crate::screenplay::{parse_text, Format as PlayFormat};
    use crate::trees::facts::Ask;
    use crate::trees::generate::rules::RulesWriter;
    use crate::trees::schema::Format;

    const PLAY: &str = "INT. KITCHEN - DAY\n\nIda kneads the dough.\n\nIDA\nWho took the recipe?\n\n\
                        INT. MILL - NIGHT\n\nFelix counts the money.\n\nFELIX\nShe'll never know.\n";

    /// Scene 1 is in the film (a timed cue), scene 2 was cut (no cue).
    fn blocks(play: &crate::screenplay::Screenplay) -> Vec<Block> {
        let second = play
            .elements
            .iter()
            .rposition(|e| e.text.starts_with("INT. MILL"))
            .unwrap();
        let last = play.elements.len() - 1;
        let block = |id, elements, scene, start_ms: Option<u64>| Block {
            id,
            elements,
            scene,
            start_ms,
            end_ms: start_ms.map(|s| s + 1000),
            keyframes: Vec::new(),
        };
        vec![
            block(0, [0, second - 1], 0, Some(0)),
            block(1, [second, last], 1, None),
        ]
    }

    fn state(id: &str, name: &str, block: usize, element: usize) -> Node {
        let mut n = Node::new(id, NodeKind::MentalState, name);
        n.evidence = vec![Evidence {
            block,
            element,
            start: 0,
            end: 4,
            quote: "line".into(),
            keyframes: Vec::new(),
        }];
        n
    }

    #[test]
    fn untimed_blocks_are_no_source_unless_text_only() {
        let play = parse_text(PLAY, Some(PlayFormat::Fountain), None).unwrap();
        let blocks = blocks(&play);
        let film = Source::from_play(&play, &blocks, false);
        assert_eq!(film.blocks.keys().copied().collect::<Vec<_>>(), vec![0]);
        let script = Source::from_play(&play, &blocks, true);
        assert_eq!(
            script.blocks.keys().copied().collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert!(script.blocks[&1]
            .lines
            .iter()
            .any(|(_, l)| l.contains("She'll never know")));
    }

    #[test]
    fn a_question_about_a_cut_scene_is_declined_and_one_in_the_film_is_not() {
        let play = parse_text(PLAY, Some(PlayFormat::Fountain), None).unwrap();
        let blocks = blocks(&play);
        let graph = Graph {
            film: "t".into(),
            nodes: vec![
                state("mental_state:a", "Ida: Ida suspects Felix", 0, 3),
                state("mental_state:b", "Felix: Felix feels safe", 1, 7),
            ],
            edges: Vec::new(),
        };
        let facts = Facts::new(&graph);
        let spec = |state| Spec {
            ask: Ask::Holder { state },
            format: Format::Open,
            candidates: Vec::new(),
        };
        let film = Source::from_play(&play, &blocks, false);
        let guard = InFilm::new(&RulesWriter, &film);
        assert_eq!(
            guard.declines(&facts, &spec(0), "IDA\nWho took the recipe?"),
            None
        );
        let why = guard.declines(&facts, &spec(1), "IDA\nWho took the recipe?");
        assert!(
            why.as_deref().is_some_and(|w| w.starts_with(NOT_IN_FILM)),
            "{why:?}"
        );
        assert!(guard.declines(&facts, &spec(0), " \n").is_some());
        // The writer is not asked for a declined question.
        let err = guard.write(&facts, &spec(1), "x").unwrap_err().to_string();
        assert!(err.contains(NOT_IN_FILM), "{err}");
        // Text-only: the whole script is the source, nothing is declined.
        let script = Source::from_play(&play, &blocks, true);
        let guard = InFilm::new(&RulesWriter, &script);
        assert_eq!(
            guard.declines(&facts, &spec(1), "FELIX\nShe'll never know."),
            None
        );
    }
}
