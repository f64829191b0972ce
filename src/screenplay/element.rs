//! The typed element model every screenplay reader produces.
//!
//! A reader emits [`Element`]s in story order; [`crate::screenplay::assemble`]
//! then fills in scene indices, normalized speakers, the scene list and the
//! character list, so those rules live in one place for all formats.

use serde::{Deserialize, Serialize};

pub use crate::text::source::{Diagnostic, LineSpan, Severity};

/// The kind of a screenplay element, serialized in snake_case (`scene_heading`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    /// `INT. KITCHEN - NIGHT`.
    SceneHeading,
    /// Description of what is seen and heard.
    Action,
    /// A character cue introducing a speech (`MARA (V.O.)`).
    Character,
    /// The words of a speech.
    Dialogue,
    /// A wryly inside a speech (`(lying)`).
    Parenthetical,
    /// `CUT TO:` and the like.
    Transition,
    /// A camera direction outside a scene heading (`CLOSE ON THE KEY`).
    Shot,
    /// Centered text (`>THE END<`).
    Centered,
    /// A lyric line (`~` in Fountain).
    Lyric,
    /// A structural section (`# Act One`); not part of the story.
    Section,
    /// A synopsis line (`= ...`); not part of the story.
    Synopsis,
    /// A writer's note (`[[...]]`, FDX ScriptNote); not part of the story.
    Note,
    /// An explicit page break (`===`).
    PageBreak,
    /// A title-page field; its key is in [`Element::key`].
    Title,
}

impl ElementKind {
    /// Every kind, in declaration order (for tables and metrics).
    pub const ALL: [ElementKind; 14] = [
        ElementKind::SceneHeading,
        ElementKind::Action,
        ElementKind::Character,
        ElementKind::Dialogue,
        ElementKind::Parenthetical,
        ElementKind::Transition,
        ElementKind::Shot,
        ElementKind::Centered,
        ElementKind::Lyric,
        ElementKind::Section,
        ElementKind::Synopsis,
        ElementKind::Note,
        ElementKind::PageBreak,
        ElementKind::Title,
    ];

    /// The snake_case name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ElementKind::SceneHeading => "scene_heading",
            ElementKind::Action => "action",
            ElementKind::Character => "character",
            ElementKind::Dialogue => "dialogue",
            ElementKind::Parenthetical => "parenthetical",
            ElementKind::Transition => "transition",
            ElementKind::Shot => "shot",
            ElementKind::Centered => "centered",
            ElementKind::Lyric => "lyric",
            ElementKind::Section => "section",
            ElementKind::Synopsis => "synopsis",
            ElementKind::Note => "note",
            ElementKind::PageBreak => "page_break",
            ElementKind::Title => "title",
        }
    }

    /// True for kinds that belong to a speech (cue, words, wrylies).
    pub fn is_speech(self) -> bool {
        matches!(
            self,
            ElementKind::Character | ElementKind::Dialogue | ElementKind::Parenthetical
        )
    }

    /// True for kinds that are part of what happens on screen, as opposed to
    /// structure and writer's apparatus (sections, synopses, notes, page breaks, title page).
    pub fn is_story(self) -> bool {
        !matches!(
            self,
            ElementKind::Section
                | ElementKind::Synopsis
                | ElementKind::Note
                | ElementKind::PageBreak
                | ElementKind::Title
        )
    }
}

impl std::fmt::Display for ElementKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One typed element of a screenplay, in story order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// What the element is.
    pub kind: ElementKind,
    /// Its text: emphasis markers kept as written, noise lines removed,
    /// lines of a multi-line element joined with `\n`.
    pub text: String,
    /// Source lines it came from; may enclose noise lines (listed in `noise`).
    pub lines: LineSpan,
    /// Index into [`Screenplay::scenes`](crate::screenplay::Screenplay::scenes) of the scene it belongs to; `None` before the first heading.
    pub scene: Option<usize>,
    /// Normalized speaker for character cues, dialogue and parentheticals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// Normalized voice extension of the cue (`V.O.`, `O.S.`, `O.C.`, `FILTERED`, …),
    /// or `CONT'D` when that is the only extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
    /// The cue carried `(CONT'D)` (the speech continues one interrupted by action).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contd: bool,
    /// Part of a dual-dialogue pair (the two speeches spoken at once).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dual: bool,
    /// Scene number written on a heading (`#12A#`, FDX `Number`, margin numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_number: Option<String>,
    /// Section depth (number of `#`) for sections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u8>,
    /// Title-page key (lowercase, e.g. `title`, `author`, `draft date`) for title elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl Element {
    /// A new element of `kind` with `text` over `lines`; everything else empty.
    pub fn new(kind: ElementKind, text: impl Into<String>, lines: LineSpan) -> Self {
        Element {
            kind,
            text: text.into(),
            lines,
            scene: None,
            speaker: None,
            extension: None,
            contd: false,
            dual: false,
            scene_number: None,
            depth: None,
            key: None,
        }
    }
}

/// Interior or exterior, from a scene heading's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntExt {
    /// `INT.`
    Int,
    /// `EXT.`
    Ext,
    /// `INT./EXT.`, `I/E`, `EXT./INT.`
    IntExt,
}

/// A scene: a heading and the elements up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scene {
    /// 0-based index in story order.
    pub index: usize,
    /// The heading text as written (without scene numbers).
    pub heading: String,
    /// Interior/exterior, when the heading says.
    pub int_ext: Option<IntExt>,
    /// The location part of the heading (`KITCHEN`, `HARBOUR OFFICE`).
    pub location: String,
    /// Time of day (`NIGHT`, `CONTINUOUS`), when the heading says.
    pub time_of_day: Option<String>,
    /// Scene number written in the script, if any.
    pub number: Option<String>,
    /// Element index range `[first, last]` (inclusive) of the scene, heading included.
    pub elements: [usize; 2],
    /// Source lines the scene spans.
    pub lines: LineSpan,
}

/// One character identity: a normalized name and the spellings that map to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Character {
    /// Normalized name (upper case, no extensions).
    pub name: String,
    /// Other spellings seen in cues that resolve to this name (`MOM (O. S.)`, `@McCLANE`).
    pub aliases: Vec<String>,
    /// Number of speeches (character cues) the character has.
    pub lines: usize,
}

/// The kind of a noise line kept out of the story in plain-text scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseKind {
    /// A page number (`12.`, `- 12 -`, `Page 12`).
    PageNumber,
    /// `CONTINUED:`, `(CONTINUED)`, `CONTINUED: (2)`.
    Continued,
    /// `(MORE)` at the foot of a page inside a speech.
    More,
    /// A revision asterisk in the margin (reported for lines whose text was kept, too).
    RevisionMark,
    /// A scene number in the margin of a heading.
    SceneNumber,
    /// A running header or footer repeated on every page.
    HeaderFooter,
}

/// A source line (or part of one) recognised as noise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Noise {
    /// 1-based source line.
    pub line: usize,
    /// What it is.
    pub kind: NoiseKind,
    /// The noise text as found (trimmed).
    pub text: String,
}
