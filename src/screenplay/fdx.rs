//! Final Draft FDX reader.
//!
//! An FDX file is XML: `<FinalDraft>` holds the script in `<Content>` as a
//! flat list of `<Paragraph Type="…">` elements, each with its text in one or
//! more styled `<Text>` runs. The title page is a second, untyped paragraph
//! list in `<TitlePage><Content>`. Everything else (page layout, element
//! settings, header and footer, smart-type lists, revision data) describes
//! how Final Draft draws or edits the script and is skipped.
//!
//! Unlike the text readers, this one can fail: XML that is not well formed
//! has no trustworthy structure to read, so it is an [`FdxError`] with the
//! line of the problem (only input that is not a screenplay at
//! all is an error). Anything well formed is read, with [`Diagnostic`]s for
//! what was guessed.
//!
//! # What becomes what
//!
//! | FDX paragraph `Type`                                   | element |
//! |--------------------------------------------------------|---------|
//! | `Scene Heading` (its `Number` → `scene_number`)        | scene heading |
//! | `Action`, `General`                                    | action, or centered with `Alignment="Center"` |
//! | `Character`, `Dialogue`, `Parenthetical`               | the same |
//! | `Transition`, `Shot`                                   | the same |
//! | `New Act`, `End of Act`, `Act Break`, `Cold Opening`   | centered |
//! | `Lyric`, `Lyrics`, `Singing`                           | lyric |
//! | anything else (`Cast List`, …) or no `Type`            | action (centered when centered), with an info diagnostic |
//!
//! Act markers are *centered*, not *sections*: Final Draft prints them on the
//! page (centered, usually underlined) as part of the script, which is what a
//! Fountain `> ACT ONE <` is; a Fountain `# section` is an outline mark that
//! is never printed. Jumpcut's corpus pairs them that way too
//! (`mostly-genius`: `New Act` ↔ `> _ACT THREE_ <`).
//!
//! Other rules:
//! - Text is the concatenation of a paragraph's `<Text>` runs, styles
//!   dropped; line breaks inside runs are kept, trailing spaces of each line
//!   and the whole text are trimmed. `<DynamicLabel>`, tab stops and other
//!   markup inside a paragraph are ignored. Empty paragraphs make no element.
//! - Consecutive `Dialogue` paragraphs are one element, lines joined with
//!   `\n` (an empty one between them leaves a blank line): they are one
//!   speech broken into paragraphs (screenplain writes every line of a speech
//!   that way), and Fountain reads the same speech as one element.
//! - `<DualDialogue>` marks every speech element inside it `dual`.
//! - A `<ScriptNote>` inside a paragraph becomes a note element right after
//!   it; notes in a separate `<ScriptNotes>` block come after the script
//!   (their `Range` anchors are character offsets we do not map back). A
//!   scene's `<SceneProperties><Summary>` becomes a synopsis after its heading.
//! - `StartsNewPage="Yes"` on a script paragraph is a page break before it
//!   (not before the first one: a script always starts on a new page).
//! - The title page has no keys in FDX; they are inferred from order and
//!   wording (`fdx/title.rs` documents the rules).
//! - `lines` are the XML file's lines from `<Paragraph` to `</Paragraph>`.
//!
//! # Entities
//!
//! Nothing is ever expanded from a DTD. A `<!DOCTYPE>` (with or without
//! `<!ENTITY>` declarations) is skipped with an info diagnostic; a reference
//! to any entity other than the five predefined ones (`&amp;` `&lt;` `&gt;`
//! `&quot;` `&apos;`) is an error, so an entity bomb costs one linear scan.
//! Numeric character references (`&#8217;`, `&#x27;`) are decoded.

mod messages;
mod paragraph;
mod title;

use quick_xml::escape::EscapeError;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::element::{Diagnostic, Element, ElementKind, LineSpan};
use super::Reading;
use messages::{escape_message, xml_message};
use paragraph::{paragraph_kind, tidy};

/// A malformed FDX document: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdxError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for FdxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FdxError {}

/// Reads FDX XML into elements: title-page fields first, then the script,
/// then notes kept outside it. Fails only on XML that is not well formed or
/// whose root is not `<FinalDraft>`.
pub fn read(text: &str) -> Result<Reading, FdxError> {
    Parser::new(text).run()
}

/// Byte offsets of line breaks, to turn reader positions into 1-based lines.
/// `\r\n`, `\n` and a lone `\r` each end a line, as in an editor.
struct LineIndex {
    breaks: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut breaks = Vec::with_capacity(bytes.len() / 40);
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                breaks.push(i);
            }
        }
        LineIndex { breaks }
    }

    /// The line holding byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.breaks.partition_point(|&b| b < offset) + 1
    }
}

/// A story paragraph being read.
struct Para {
    kind: ElementKind,
    /// Whether its `Type` was a screenplay element (for the diagnostic).
    typed: Typed,
    dual: bool,
    number: Option<String>,
    text: String,
    /// Notes and synopses found inside it, emitted right after it.
    attached: Vec<Element>,
}

/// How a paragraph's `Type` was recognised.
enum Typed {
    /// A screenplay element type.
    Known,
    /// Some other type, read as action.
    Unknown(String),
    /// No `Type` attribute, read as action.
    Untyped,
}

/// What an open XML element means to the reader. Every element gets a frame,
/// so the stack mirrors the document and closing tags need no lookup.
enum Frame {
    /// `<FinalDraft>`.
    Root,
    /// `<FinalDraft><Content>`: the script.
    Body,
    /// `<TitlePage>`.
    TitlePage,
    /// `<TitlePage><Content>`.
    TitleBody,
    /// `<ScriptNotes>` (or `<UnanchoredScriptNotes>`): notes kept beside the script.
    Notes,
    /// A script paragraph.
    Para(Box<Para>),
    /// `<DualDialogue>`: the paragraphs inside are spoken at once.
    Dual,
    /// A title-page paragraph: its text and alignment.
    TitlePara(String, title::Align),
    /// `<ScriptNote>`: its paragraphs' text.
    Note(String),
    /// A paragraph inside a note or a summary.
    InnerPara(String),
    /// `<SceneProperties>` of a heading.
    SceneProps,
    /// `<Summary>` in scene properties: the scene's synopsis.
    Summary(String),
    /// `<Text>`: its characters go to the paragraph around it.
    Text,
    /// Anything else; its whole subtree is skipped.
    Skip,
}

impl Frame {
    /// The buffer a `<Text>` child appends to, for frames that collect text.
    fn buffer(&mut self) -> Option<&mut String> {
        match self {
            Frame::Para(p) => Some(&mut p.text),
            Frame::TitlePara(s, _) | Frame::InnerPara(s) | Frame::Note(s) => Some(s),
            _ => None,
        }
    }

    /// The buffer an inner paragraph's text joins when it closes.
    fn buffer_for_inner(&mut self) -> Option<&mut String> {
        match self {
            Frame::Note(s) | Frame::Summary(s) => Some(s),
            _ => None,
        }
    }
}

struct Open {
    frame: Frame,
    /// Byte offset of the element's `<`.
    start: usize,
}

/// Where a note or synopsis goes.
enum Target {
    /// Right after the paragraph at this stack index.
    After(usize),
    /// In the script, where it stands.
    Inline,
    /// After the script.
    Trailing,
}

/// The attributes of a paragraph the reader uses.
#[derive(Default)]
struct ParaAttrs {
    kind: Option<String>,
    alignment: Option<String>,
    number: Option<String>,
    new_page: bool,
}

struct Parser<'a> {
    text: &'a str,
    lines: LineIndex,
    stack: Vec<Open>,
    root_seen: bool,
    /// A `<FinalDraft><Content>` was found (a script without one is worth a warning).
    body_seen: bool,
    story: Vec<Element>,
    trailing: Vec<Element>,
    title_lines: Vec<title::TitleLine>,
    diagnostics: Vec<Diagnostic>,
    /// `Type`s read as action: (type, first line, paragraphs).
    unknown_types: Vec<(String, usize, usize)>,
    /// Paragraphs without a `Type` that had text: (first line, count).
    untyped: Option<(usize, usize)>,
    /// The last story element is a dialogue a following dialogue paragraph
    /// joins; `true` when an empty dialogue paragraph came in between.
    merge: Option<bool>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            lines: LineIndex::new(text),
            stack: Vec::new(),
            root_seen: false,
            body_seen: false,
            story: Vec::new(),
            trailing: Vec::new(),
            title_lines: Vec::new(),
            diagnostics: Vec::new(),
            unknown_types: Vec::new(),
            untyped: None,
            merge: None,
        }
    }

    /// The name of the element whose `<` is at byte `start`, for messages.
    fn tag_name(&self, start: usize) -> &str {
        let rest = self.text.get(start + 1..).unwrap_or_default();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        &rest[..end]
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> FdxError {
        FdxError {
            line: self.lines.line(offset.min(self.text.len())),
            message: message.into(),
        }
    }

    fn run(mut self) -> Result<Reading, FdxError> {
        // Defaults kept on purpose: end names are checked (a mismatch is an
        // error), text is not trimmed (spaces between styled runs matter).
        let mut reader = Reader::from_str(self.text);
        loop {
            let start = reader.buffer_position() as usize;
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let at = reader.error_position() as usize;
                    return Err(self.error(at, xml_message(&e)));
                }
            };
            match event {
                Event::Start(e) => self.open(&e, start)?,
                Event::Empty(e) => {
                    self.open(&e, start)?;
                    self.close(reader.buffer_position() as usize)?;
                }
                Event::End(_) => self.close(reader.buffer_position() as usize)?,
                Event::Text(t) => {
                    let raw = t.into_inner();
                    // The reader borrows from `self.text`, so this is valid UTF-8.
                    let raw = std::str::from_utf8(&raw).unwrap_or_default();
                    self.characters(raw, start, true)?;
                }
                Event::CData(c) => {
                    let raw = c.into_inner();
                    let raw = std::str::from_utf8(&raw).unwrap_or_default();
                    self.characters(raw, start, false)?;
                }
                Event::Decl(_) => {
                    if self.root_seen {
                        return Err(self.error(start, "an XML declaration (`<?xml …?>`) inside the document; it may only open the file"));
                    }
                }
                Event::DocType(_) => {
                    if self.root_seen {
                        return Err(self.error(start, "a `<!DOCTYPE>` after the root element; it may only come before `<FinalDraft>`"));
                    }
                    self.diagnostics.push(Diagnostic::info(
                        self.lines.line(start),
                        "<!DOCTYPE> ignored: entities it declares are never expanded",
                    ));
                }
                Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => break,
            }
        }
        if let Some(open) = self.stack.last() {
            let name = self.tag_name(open.start);
            let end_line = self.lines.line(self.text.len());
            return Err(self.error(
                open.start,
                format!("<{name}> opened here is never closed (the file ends at line {end_line})"),
            ));
        }
        if !self.root_seen {
            return Err(self.error(
                self.text.len(),
                "no <FinalDraft> element: the file holds no XML document",
            ));
        }
        Ok(self.finish())
    }

    /// An element starts at byte `start`: decide what it is and push its frame.
    fn open(&mut self, e: &BytesStart, start: usize) -> Result<(), FdxError> {
        let name = e.name();
        let name = name.as_ref();
        let is_para = name == b"Paragraph";
        let attrs = self.attributes(e, start, is_para)?;
        let Some(parent) = self.stack.last() else {
            if self.root_seen {
                return Err(self.error(
                    start,
                    format!(
                        "a second root element <{}> after </FinalDraft>",
                        String::from_utf8_lossy(name)
                    ),
                ));
            }
            if name != b"FinalDraft" {
                return Err(self.error(
                    start,
                    format!(
                        "not a Final Draft document: the root element is <{}>, expected <FinalDraft>",
                        String::from_utf8_lossy(name)
                    ),
                ));
            }
            self.root_seen = true;
            self.stack.push(Open {
                frame: Frame::Root,
                start,
            });
            return Ok(());
        };
        let frame = match (&parent.frame, name) {
            (Frame::Root, b"Content") => {
                self.body_seen = true;
                Frame::Body
            }
            (Frame::Root, b"TitlePage") => Frame::TitlePage,
            (Frame::Root, b"ScriptNotes" | b"UnanchoredScriptNotes") => Frame::Notes,
            (Frame::TitlePage, b"Content") => Frame::TitleBody,
            (Frame::Body, b"Paragraph") => self.paragraph(attrs, false, start),
            (Frame::Dual, b"Paragraph") => self.paragraph(attrs, true, start),
            (Frame::Para(_), b"Paragraph") => {
                // Not valid FDX, but its text is script text: keep it.
                self.diagnostics.push(Diagnostic::warning(
                    self.lines.line(start),
                    "a paragraph nested in a paragraph; read as a paragraph of its own",
                ));
                self.paragraph(attrs, false, start)
            }
            (Frame::Body | Frame::Para(_), b"DualDialogue") => Frame::Dual,
            (Frame::Para(_), b"SceneProperties") => Frame::SceneProps,
            (Frame::SceneProps, b"Summary") => Frame::Summary(String::new()),
            (Frame::TitleBody, b"Paragraph") => {
                Frame::TitlePara(String::new(), title::Align::from_attr(attrs.alignment))
            }
            (Frame::Note(_) | Frame::Summary(_), b"Paragraph") => Frame::InnerPara(String::new()),
            (
                Frame::Body
                | Frame::Para(_)
                | Frame::Dual
                | Frame::Notes
                | Frame::TitleBody
                | Frame::TitlePara(..),
                b"ScriptNote",
            ) => Frame::Note(String::new()),
            (
                Frame::Para(_) | Frame::TitlePara(..) | Frame::InnerPara(_) | Frame::Note(_),
                b"Text",
            ) => Frame::Text,
            _ => Frame::Skip,
        };
        self.stack.push(Open { frame, start });
        Ok(())
    }

    /// The frame of a script paragraph; a page break goes out now, before it.
    fn paragraph(&mut self, attrs: ParaAttrs, dual: bool, start: usize) -> Frame {
        if attrs.new_page && !self.story.is_empty() {
            self.push_story(Element::new(
                ElementKind::PageBreak,
                "",
                LineSpan::line(self.lines.line(start)),
            ));
        }
        let centered = attrs
            .alignment
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case("center"));
        let (kind, known) = paragraph_kind(attrs.kind.as_deref(), centered);
        Frame::Para(Box::new(Para {
            kind,
            typed: match (known, attrs.kind) {
                (true, _) => Typed::Known,
                (false, Some(kind)) => Typed::Unknown(kind),
                (false, None) => Typed::Untyped,
            },
            dual,
            number: attrs.number.filter(|n| !n.is_empty()),
            text: String::new(),
            attached: Vec::new(),
        }))
    }

    /// The element that opened last ends; `after` is the offset just past its `>`.
    fn close(&mut self, after: usize) -> Result<(), FdxError> {
        let Some(open) = self.stack.pop() else {
            return Err(self.error(after, "a closing tag with no element open"));
        };
        let span = LineSpan::new(
            self.lines.line(open.start),
            self.lines.line(after.saturating_sub(1)),
        );
        match open.frame {
            Frame::Para(p) => self.finish_paragraph(*p, span),
            Frame::TitlePara(text, align) => {
                let text = tidy(&text);
                if !text.is_empty() {
                    self.title_lines.push(title::TitleLine {
                        text,
                        lines: span,
                        align,
                    });
                }
            }
            Frame::InnerPara(text) => {
                if let Some(buf) = self
                    .stack
                    .last_mut()
                    .and_then(|o| o.frame.buffer_for_inner())
                {
                    buf.push('\n');
                    buf.push_str(&text);
                }
            }
            Frame::Note(text) => self.attach(ElementKind::Note, &text, span),
            Frame::Summary(text) => self.attach(ElementKind::Synopsis, &text, span),
            _ => {}
        }
        Ok(())
    }

    /// Character data at byte `start`: unescaped (when `escaped`) and added
    /// to the paragraph it belongs to, if any.
    fn characters(&mut self, raw: &str, start: usize, escaped: bool) -> Result<(), FdxError> {
        let collects = matches!(
            self.stack.last().map(|o| &o.frame),
            Some(Frame::Text | Frame::Note(_))
        );
        if !collects && raw.bytes().all(|b| b.is_ascii_whitespace()) {
            return Ok(());
        }
        // Unescaped everywhere, not only where kept: an undefined entity is
        // malformed XML wherever it stands.
        let text = if escaped {
            quick_xml::escape::unescape(raw).map_err(|e| self.escape_error(&e, start))?
        } else {
            raw.into()
        };
        let n = self.stack.len();
        match self.stack.last().map(|o| &o.frame) {
            None => {
                // Point at the stray text itself, not the line break before it.
                let start = start + (raw.len() - raw.trim_start().len());
                let msg = if self.root_seen {
                    "text after the end of the document (</FinalDraft>)".to_string()
                } else {
                    format!(
                        "not a Final Draft document: expected `<FinalDraft>`, found text `{}`",
                        text.trim().chars().take(40).collect::<String>()
                    )
                };
                Err(self.error(start, msg))
            }
            Some(Frame::Text) => {
                if let Some(buf) = self.stack[n - 2].frame.buffer() {
                    buf.push_str(&text);
                }
                Ok(())
            }
            // Text written straight into a note, without paragraphs.
            Some(Frame::Note(_)) => {
                if let Some(buf) = self.stack[n - 1].frame.buffer() {
                    if !text.trim().is_empty() {
                        buf.push_str(&text);
                    }
                }
                Ok(())
            }
            Some(_) => Ok(()),
        }
    }

    /// Reads the attributes of an element, failing on malformed ones; keeps
    /// the ones a paragraph needs when `keep`.
    fn attributes(&self, e: &BytesStart, start: usize, keep: bool) -> Result<ParaAttrs, FdxError> {
        let mut out = ParaAttrs::default();
        for attr in e.attributes() {
            let attr = attr.map_err(|err| self.attr_error(&err, start))?;
            let key = attr.key.as_ref();
            let wanted =
                keep && matches!(key, b"Type" | b"Alignment" | b"Number" | b"StartsNewPage");
            if !wanted && !attr.value.contains(&b'&') {
                continue;
            }
            let raw = std::str::from_utf8(&attr.value).unwrap_or_default();
            // Offsets inside an attribute are not worth tracking: the tag's line it is.
            let value = quick_xml::escape::unescape(raw).map_err(|err| {
                self.error(start, format!("in an attribute: {}", escape_message(&err)))
            })?;
            if !wanted {
                continue;
            }
            let value = value.trim().to_string();
            match key {
                b"Type" => out.kind = Some(value),
                b"Alignment" => out.alignment = Some(value),
                b"Number" => out.number = Some(value),
                _ => out.new_page = value.eq_ignore_ascii_case("yes"),
            }
        }
        Ok(out)
    }

    fn attr_error(&self, err: &AttrError, start: usize) -> FdxError {
        // Attribute positions count from just after the tag's `<`.
        let pos = match *err {
            AttrError::ExpectedEq(p)
            | AttrError::ExpectedValue(p)
            | AttrError::UnquotedValue(p)
            | AttrError::ExpectedQuote(p, _)
            | AttrError::Duplicated(p, _) => p,
        };
        let name = self.tag_name(start);
        let what = match err {
            AttrError::ExpectedEq(_) => "an attribute name must be followed by `=`",
            AttrError::ExpectedValue(_) => "`=` must be followed by a quoted value",
            AttrError::UnquotedValue(_) => "an attribute value must be in quotes",
            AttrError::ExpectedQuote(..) => "an attribute value is missing its closing quote",
            AttrError::Duplicated(..) => "an attribute is given twice",
        };
        self.error(
            start + 1 + pos,
            format!("malformed attributes in <{name}>: {what}"),
        )
    }

    /// An entity error in a text event that starts at byte `start`.
    fn escape_error(&self, err: &EscapeError, start: usize) -> FdxError {
        // Ranges count from the start of the text event.
        let offset = match err {
            EscapeError::UnrecognizedEntity(range, _) | EscapeError::UnterminatedEntity(range) => {
                range.start
            }
            EscapeError::InvalidCharRef(_) => 0,
        };
        self.error(start + offset, escape_message(err))
    }

    /// Where a note or synopsis closing now belongs.
    fn target(&self) -> Target {
        for (i, open) in self.stack.iter().enumerate().rev() {
            match open.frame {
                Frame::Para(_) => return Target::After(i),
                Frame::Body | Frame::Dual => return Target::Inline,
                Frame::Root => return Target::Trailing,
                _ => {}
            }
        }
        Target::Trailing
    }

    /// Adds a note or synopsis (when it has text) where it belongs.
    fn attach(&mut self, kind: ElementKind, text: &str, lines: LineSpan) {
        let text = tidy(text);
        if text.is_empty() {
            return;
        }
        let element = Element::new(kind, text, lines);
        match self.target() {
            Target::After(i) => {
                if let Frame::Para(p) = &mut self.stack[i].frame {
                    p.attached.push(element);
                }
            }
            Target::Inline => self.push_story(element),
            Target::Trailing => self.trailing.push(element),
        }
    }

    fn push_story(&mut self, element: Element) {
        self.merge = None;
        self.story.push(element);
    }

    fn finish_paragraph(&mut self, p: Para, span: LineSpan) {
        let text = tidy(&p.text);
        if text.is_empty() {
            self.merge = match self.merge {
                Some(_) if p.kind == ElementKind::Dialogue => Some(true),
                _ => None,
            };
        } else {
            match p.typed {
                Typed::Known => {}
                Typed::Unknown(kind) => self.note_unknown(Some(kind), span.first),
                Typed::Untyped => self.note_unknown(None, span.first),
            }
            let last = self.story.last_mut();
            match (self.merge, last) {
                (Some(blank), Some(prev))
                    if p.kind == ElementKind::Dialogue
                        && prev.kind == ElementKind::Dialogue
                        && prev.dual == p.dual =>
                {
                    prev.text.push_str(if blank { "\n\n" } else { "\n" });
                    prev.text.push_str(&text);
                    prev.lines = LineSpan::new(prev.lines.first, span.last);
                }
                _ => {
                    let mut element = Element::new(p.kind, text, span);
                    element.dual = p.dual && p.kind.is_speech();
                    if p.kind == ElementKind::SceneHeading {
                        element.scene_number = p.number;
                    }
                    self.push_story(element);
                }
            }
            self.merge = (p.kind == ElementKind::Dialogue).then_some(false);
        }
        for element in p.attached {
            self.push_story(element);
        }
    }

    fn note_unknown(&mut self, kind: Option<String>, line: usize) {
        match kind {
            None => {
                let entry = self.untyped.get_or_insert((line, 0));
                entry.1 += 1;
            }
            Some(kind) => match self.unknown_types.iter_mut().find(|u| u.0 == kind) {
                Some(u) => u.2 += 1,
                None => self.unknown_types.push((kind, line, 1)),
            },
        }
    }

    fn finish(mut self) -> Reading {
        if !self.body_seen {
            self.diagnostics.push(Diagnostic::warning(
                1,
                "no <Content> in <FinalDraft>: the document holds no script",
            ));
        }
        for (kind, line, count) in std::mem::take(&mut self.unknown_types) {
            self.diagnostics.push(Diagnostic::info(
                line,
                format!(
                    "paragraph type \"{kind}\" is not a screenplay element; {count} such paragraph(s) read as action"
                ),
            ));
        }
        if let Some((line, count)) = self.untyped {
            self.diagnostics.push(Diagnostic::info(
                line,
                format!("{count} paragraph(s) without a Type read as action"),
            ));
        }
        let mut elements = title::title_elements(&self.title_lines);
        elements.append(&mut self.story);
        elements.append(&mut self.trailing);
        Reading {
            elements,
            noise: Vec::new(),
            diagnostics: self.diagnostics,
        }
    }
}

#[cfg(test)]
mod tests;
