//! The terminal walker (`moviegraph walk`): ratatui over crossterm.
//!
//! Left, the trees; right, the current question. In test mode the question is the
//! user turn exactly as a model receives it, and the keys answer it (letters choose,
//! Enter confirms, typed text for open questions); nothing shows gold. In explore mode
//! letters follow an option's branch, Backspace goes back, and gold answers, distractor
//! reasons and graph elements are shown. Tab switches modes; Ctrl-P shows the path so
//! far; Esc quits (a test run resumes where it stopped).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Direction, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use super::explore::{child_for_key, gold_text, path_to, reason_text, trigger_text};
use super::preview::{preview, PreviewStyle};
use super::session::{Prompt, SessionError, SessionEvent, TestSession};
use crate::eval::prompt::Phase;
use crate::eval::protocol::RunProgress;
use crate::trees::schema::{Format, Tree};

/// How the terminal walker starts.
#[derive(Debug, Clone)]
pub struct TuiOptions {
    /// The person answering (part of the run id).
    pub annotator: String,
    /// The workspace database.
    pub store_path: PathBuf,
    /// The tree files, for the run's header.
    pub source: String,
    /// Start in explore mode instead of test mode.
    pub explore: bool,
    /// How keyframes are previewed beside their paths.
    pub preview: PreviewStyle,
    /// The graph elements in words, for explore mode.
    pub graph: super::explore::GraphLabels,
}

/// What a terminal session left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuiSummary {
    /// The test run's id, when test mode was used.
    pub run_id: Option<String>,
    /// Answers recorded in this session.
    pub recorded: usize,
    /// Whether the run reached its end.
    pub complete: bool,
    /// Why the run stopped early, if it did for another reason than quitting.
    pub error: Option<String>,
}

/// Why the terminal walker could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal failed.
    #[error("terminal: {0}")]
    Io(#[from] io::Error),
    /// The test session could not start.
    #[error(transparent)]
    Session(#[from] SessionError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Test,
    Explore,
}

struct App {
    trees: Vec<Tree>,
    options: TuiOptions,
    mode: Mode,
    session: Option<TestSession>,
    pending: Option<Prompt>,
    chosen: Vec<String>,
    text: String,
    recorded: HashMap<String, usize>,
    done: HashSet<String>,
    finished: Option<Result<RunProgress, String>>,
    /// This session's answers: (tree, node, phase, reply).
    history: Vec<(String, String, Phase, String)>,
    show_path: bool,
    explore_tree: usize,
    explore_node: String,
    scroll: u16,
    status: String,
    quit: bool,
    /// Drawn previews by (keyframe, columns): decoded once, not on every frame.
    previews: RefCell<HashMap<(String, u16), Vec<Line<'static>>>>,
}

/// Runs the terminal walker on `trees` until the person quits.
pub fn run(trees: Vec<Tree>, options: TuiOptions) -> Result<TuiSummary, TuiError> {
    let explore_node = trees
        .first()
        .and_then(|t| t.root())
        .map(|n| n.id.clone())
        .unwrap_or_default();
    let mut app = App {
        mode: if options.explore {
            Mode::Explore
        } else {
            Mode::Test
        },
        trees,
        options,
        session: None,
        pending: None,
        chosen: Vec::new(),
        text: String::new(),
        recorded: HashMap::new(),
        done: HashSet::new(),
        finished: None,
        history: Vec::new(),
        show_path: false,
        explore_tree: 0,
        explore_node,
        scroll: 0,
        status: String::new(),
        quit: false,
        previews: RefCell::new(HashMap::new()),
    };
    if app.mode == Mode::Test {
        app.start_session()?;
    }
    let mut terminal = ratatui::try_init()?;
    let result = app.event_loop(&mut terminal);
    ratatui::restore();
    result?;
    let summary = TuiSummary {
        run_id: app.session.as_ref().map(|s| s.run_id.clone()),
        recorded: app.recorded.values().sum(),
        complete: matches!(app.finished, Some(Ok(_))),
        error: match &app.finished {
            Some(Err(e)) => Some(e.clone()),
            _ => None,
        },
    };
    drop(app.pending.take());
    drop(app.session.take());
    Ok(summary)
}

impl App {
    fn start_session(&mut self) -> Result<(), SessionError> {
        if self.session.is_none() {
            self.session = Some(TestSession::start(
                self.options.store_path.clone(),
                &self.options.annotator,
                self.trees.clone(),
                self.options.source.clone(),
            )?);
        }
        Ok(())
    }

    fn event_loop(&mut self, terminal: &mut ratatui::DefaultTerminal) -> io::Result<()> {
        while !self.quit {
            self.drain_session();
            terminal.draw(|frame| self.draw(frame))?;
            if event::poll(Duration::from_millis(50))? {
                if let Event::Key(key) = event::read()? {
                    if key.kind != KeyEventKind::Release {
                        self.on_key(key);
                    }
                }
            }
        }
        Ok(())
    }

    fn drain_session(&mut self) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        while let Ok(event) = session.events.try_recv() {
            match event {
                SessionEvent::Ask(prompt) => {
                    self.pending = Some(prompt);
                    self.chosen.clear();
                    self.text.clear();
                    self.scroll = 0;
                }
                SessionEvent::Recorded { tree_id } => {
                    *self.recorded.entry(tree_id).or_default() += 1;
                }
                SessionEvent::TreeDone { tree_id, .. } => {
                    self.done.insert(tree_id);
                }
                SessionEvent::Finished(result) => self.finished = Some(result),
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => self.quit = true,
            KeyCode::Char('c') if ctrl => self.quit = true,
            KeyCode::Char('p') if ctrl => self.show_path = !self.show_path,
            KeyCode::Tab => match self.switch_refused() {
                Some(why) => self.status = why.to_owned(),
                None => {
                    self.mode = match self.mode {
                        Mode::Test => Mode::Explore,
                        Mode::Explore => Mode::Test,
                    };
                    self.scroll = 0;
                    self.status.clear();
                }
            },
            KeyCode::PageDown => self.scroll = self.scroll.saturating_add(10),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            _ => match self.mode {
                Mode::Test => self.on_test_key(key),
                Mode::Explore => self.on_explore_key(key),
            },
        }
    }

    /// Why Tab may not switch modes now, if it may not. Explore mode shows gold
    /// answers, so a person may not see it while their test run has questions
    /// left, nor start a test after seeing it: either would make the recorded
    /// run something other than a blind human baseline.
    fn switch_refused(&self) -> Option<&'static str> {
        match (self.mode, &self.session) {
            (Mode::Test, Some(_)) if !matches!(self.finished, Some(Ok(_))) => Some(
                "explore mode shows gold answers: it opens once this test run is complete \
                 (or run `walk --explore` alone)",
            ),
            (Mode::Test, _) => None,
            (Mode::Explore, Some(_)) => None,
            (Mode::Explore, None) => Some(
                "this walker has shown gold answers, so it records no test; to take the test, \
                 start `moviegraph walk` without --explore",
            ),
        }
    }

    fn on_test_key(&mut self, key: KeyEvent) {
        let Some(prompt) = self.pending.as_ref() else {
            return;
        };
        let format = prompt.view.format;
        match (format, key.code) {
            (Format::Open, KeyCode::Char(c)) => self.text.push(c),
            (Format::Open, KeyCode::Backspace) => {
                self.text.pop();
            }
            (_, KeyCode::Char(c)) => {
                let label = c.to_ascii_uppercase().to_string();
                if !prompt.view.options.iter().any(|(l, _)| *l == label) {
                    self.status = format!("no option {label}");
                    return;
                }
                if format == Format::Single {
                    self.chosen = vec![label];
                } else if let Some(at) = self.chosen.iter().position(|l| *l == label) {
                    self.chosen.remove(at);
                } else {
                    self.chosen.push(label);
                }
                self.status.clear();
            }
            (_, KeyCode::Backspace) => self.chosen.clear(),
            (_, KeyCode::Enter) => {
                let empty = match format {
                    Format::Open => self.text.trim().is_empty(),
                    _ => self.chosen.is_empty(),
                };
                if empty {
                    self.status = "nothing to confirm yet".into();
                    return;
                }
                let Some(prompt) = self.pending.take() else {
                    return;
                };
                let mut chosen: Vec<String> = prompt
                    .view
                    .options
                    .iter()
                    .map(|(l, _)| l.clone())
                    .filter(|l| self.chosen.contains(l))
                    .collect();
                if format == Format::Open {
                    chosen.clear();
                }
                let reply = super::session::reply_text(format, &chosen, &self.text);
                self.history.push((
                    prompt.tree_id.clone(),
                    prompt.node_id.clone(),
                    prompt.phase,
                    reply,
                ));
                prompt.answer(&chosen, &self.text);
                self.chosen.clear();
                self.text.clear();
                self.status = "answer recorded".into();
            }
            _ => {}
        }
    }

    fn on_explore_key(&mut self, key: KeyEvent) {
        let Some(tree) = self.trees.get(self.explore_tree) else {
            return;
        };
        let root = |tree: &Tree| tree.root().map(|n| n.id.clone()).unwrap_or_default();
        match key.code {
            KeyCode::Down | KeyCode::Up => {
                let n = self.trees.len();
                self.explore_tree = if key.code == KeyCode::Down {
                    (self.explore_tree + 1) % n
                } else {
                    (self.explore_tree + n - 1) % n
                };
                self.explore_node = root(&self.trees[self.explore_tree]);
                self.scroll = 0;
            }
            KeyCode::Backspace | KeyCode::Left => {
                if let Some(parent) = tree.node(&self.explore_node).and_then(|n| n.parent.clone()) {
                    self.explore_node = parent;
                    self.scroll = 0;
                }
            }
            KeyCode::Home => self.explore_node = root(tree),
            KeyCode::Char(c) => {
                let next = tree
                    .node(&self.explore_node)
                    .and_then(|n| child_for_key(n, c))
                    .map(str::to_string);
                match next {
                    Some(id) => {
                        self.explore_node = id;
                        self.scroll = 0;
                        self.status.clear();
                    }
                    None => self.status = format!("no branch under {c}"),
                }
            }
            _ => {}
        }
    }

    fn current_tree(&self) -> usize {
        match self.mode {
            Mode::Explore => self.explore_tree,
            Mode::Test => self.pending.as_ref().map_or_else(
                || {
                    self.trees
                        .iter()
                        .position(|t| !self.done.contains(&t.id))
                        .unwrap_or(0)
                },
                |p| p.tree_index,
            ),
        }
    }

    fn draw(&self, frame: &mut Frame) {
        let rows = Layout::default()
            .direction(Direction::Vertical)
            .constraints([
                Constraint::Length(1),
                Constraint::Min(5),
                Constraint::Length(4),
            ])
            .split(frame.area());
        let header = match (self.mode, &self.session) {
            (Mode::Test, Some(s)) => format!(
                " moviegraph walk · TEST mode · annotator {} · run {}",
                self.options.annotator, s.run_id
            ),
            (Mode::Test, None) => " moviegraph walk · TEST mode".to_string(),
            (Mode::Explore, _) => {
                " moviegraph walk · EXPLORE mode (gold answers shown; nothing recorded)".to_string()
            }
        };
        frame.render_widget(
            Paragraph::new(header).style(Style::default().add_modifier(Modifier::REVERSED)),
            rows[0],
        );
        let body = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Length(34), Constraint::Min(20)])
            .split(rows[1]);
        self.draw_trees(frame, body[0]);
        let main = if self.show_path {
            let parts = Layout::default()
                .direction(Direction::Vertical)
                .constraints([Constraint::Min(5), Constraint::Length(10)])
                .split(body[1]);
            frame.render_widget(
                Paragraph::new(self.path_lines())
                    .wrap(Wrap { trim: false })
                    .block(
                        Block::default()
                            .borders(Borders::ALL)
                            .title(" path so far "),
                    ),
                parts[1],
            );
            parts[0]
        } else {
            body[1]
        };
        match self.mode {
            Mode::Test => self.draw_test(frame, main),
            Mode::Explore => frame.render_widget(
                Paragraph::new(self.explore_lines(main.width))
                    .wrap(Wrap { trim: false })
                    .scroll((self.scroll, 0))
                    .block(Block::default().borders(Borders::ALL).title(" node ")),
                main,
            ),
        }
        let help = match self.mode {
            Mode::Test => {
                "letters: choose · type: open answer · Enter: confirm · Backspace: clear · \
                 PgUp/PgDn: scroll · Ctrl-P: path · Tab: explore · Esc: quit"
            }
            Mode::Explore => {
                "letter: follow that option (open: c/i) · Backspace: back · Home: root · \
                 Up/Down: tree · PgUp/PgDn: scroll · Ctrl-P: path · Esc: quit"
            }
        };
        frame.render_widget(
            // The status first: on a narrow terminal the help wraps, and what
            // just happened must stay in view.
            Paragraph::new(vec![Line::from(self.status.clone()), Line::from(help)])
                .wrap(Wrap { trim: true })
                .block(Block::default().borders(Borders::TOP)),
            rows[2],
        );
    }

    fn draw_trees(&self, frame: &mut Frame, area: ratatui::layout::Rect) {
        let items: Vec<ListItem> = self
            .trees
            .iter()
            .map(|t| {
                let mark = if self.done.contains(&t.id) {
                    "done"
                } else {
                    match self.recorded.get(&t.id) {
                        Some(n) => return ListItem::new(format!("{} ({n} new)", t.id)),
                        None => "",
                    }
                };
                ListItem::new(format!("{} {mark}", t.id))
            })
            .collect();
        let mut state = ListState::default().with_selected(Some(self.current_tree()));
        frame.render_stateful_widget(
            List::new(items)
                .highlight_symbol("> ")
                .highlight_style(Style::default().add_modifier(Modifier::BOLD))
                .block(Block::default().borders(Borders::ALL).title(" trees ")),
            area,
            &mut state,
        );
    }

    /// The keyframes' paths, then a preview of the first one in a panel
    /// `width` columns wide (its borders included).
    fn keyframe_lines(&self, paths: &[String], width: u16) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from("Keyframes:")];
        lines.extend(paths.iter().map(|k| Line::from(format!("  {k}"))));
        let Some(first) = paths.first() else {
            return lines;
        };
        if self.options.preview == PreviewStyle::Off {
            return lines;
        }
        let cols = width.saturating_sub(6).min(64);
        let mut cache = self.previews.borrow_mut();
        let drawn = cache.entry((first.clone(), cols)).or_insert_with(|| {
            match preview(Path::new(first), cols, 10, self.options.preview) {
                Ok(rows) => rows
                    .into_iter()
                    .map(|row| {
                        let mut spans = vec![Span::raw("  ")];
                        spans.extend(row.spans);
                        Line::from(spans)
                    })
                    .collect(),
                Err(e) => vec![Line::from(format!("  ({e})"))],
            }
        });
        lines.extend(drawn.iter().cloned());
        lines
    }

    /// Test mode: the question, its options and the answer line in a pane
    /// that never scrolls, the excerpt and keyframes under it in one that
    /// PgUp/PgDn scroll, so a long excerpt never hides what is asked.
    fn draw_test(&self, frame: &mut Frame, area: ratatui::layout::Rect) {
        let (asked, context) = self.test_parts(area.width);
        let question = |lines| {
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .block(Block::default().borders(Borders::ALL).title(" question "))
        };
        if context.is_empty() {
            frame.render_widget(question(asked), area);
            return;
        }
        let inner = usize::from(area.width.saturating_sub(2)).max(1);
        let rows: usize = asked.iter().map(|l| wrapped_rows(l, inner)).sum();
        let height = u16::try_from(rows + 2)
            .unwrap_or(u16::MAX)
            .min(area.height.saturating_mul(3) / 5)
            .max(3);
        let parts = Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Length(height), Constraint::Min(3)])
            .split(area);
        frame.render_widget(question(asked), parts[0]);
        frame.render_widget(
            Paragraph::new(context)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0))
                .block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(" excerpt · PgUp/PgDn scroll "),
                ),
            parts[1],
        );
    }

    /// What test mode shows: what is asked (the position, the premise, the
    /// question, its options, the answer so far), and its context (the
    /// excerpt and the keyframes' previews).
    fn test_parts(&self, width: u16) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
        let mut lines = Vec::new();
        let mut context = Vec::new();
        if let Some(p) = &self.pending {
            let tree_nodes = self.trees.get(p.tree_index).map_or(0, |t| t.nodes.len());
            lines.push(Line::from(Span::styled(
                format!(
                    "tree {} · node {} · {} · {} questions in this tree",
                    p.tree_id,
                    p.node_id,
                    match p.phase {
                        Phase::Path => "phase 1 (your own path)",
                        Phase::Counterfactual => "phase 2 (thought experiment)",
                    },
                    tree_nodes
                ),
                Style::default().add_modifier(Modifier::BOLD),
            )));
            lines.push(Line::from(""));
            // The premise, then the question, its options and the answer
            // line, and only then the excerpt: a long excerpt never pushes
            // the question below the fold (PgUp/PgDn scroll it).
            let (premise, excerpt, question) = split_prompt(&p.text);
            let text_lines = |t: &str| {
                t.lines()
                    .map(|l| Line::from(l.to_string()))
                    .collect::<Vec<_>>()
            };
            if let Some(premise) = premise {
                lines.extend(text_lines(premise));
                lines.push(Line::from(""));
            }
            lines.extend(text_lines(question));
            for (label, text) in &p.view.options {
                lines.push(Line::from(format!("  {label}. {text}")));
            }
            lines.push(Line::from(""));
            let answer = match p.view.format {
                Format::Open => format!("Your answer: {}_", self.text),
                _ => format!("Your answer: {}", self.chosen.join(", ")),
            };
            lines.push(Line::from(Span::styled(
                answer,
                Style::default().add_modifier(Modifier::BOLD),
            )));
            if !excerpt.trim().is_empty() {
                context.extend(text_lines(excerpt.trim_end()));
            }
            if !p.images.is_empty() {
                if !context.is_empty() {
                    context.push(Line::from(""));
                }
                context.extend(self.keyframe_lines(&p.images, width));
            }
        } else {
            match &self.finished {
                Some(Ok(done)) => {
                    let id = self.session.as_ref().map_or("", |s| s.run_id.as_str());
                    lines.push(Line::from(format!(
                        "Run {id} complete: {} trees, {} answers stored ({} in this session).",
                        done.trees, done.answers, done.asked
                    )));
                    lines.push(Line::from(format!("Scores: moviegraph eval report {id}")));
                }
                Some(Err(e)) => lines.push(Line::from(format!("The run stopped: {e}"))),
                None => lines.push(Line::from("Loading the next question…")),
            }
        }
        (lines, context)
    }

    fn explore_lines(&self, width: u16) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        let Some(tree) = self.trees.get(self.explore_tree) else {
            return lines;
        };
        let Some(node) = tree.node(&self.explore_node) else {
            return lines;
        };
        let bold = Style::default().add_modifier(Modifier::BOLD);
        lines.push(Line::from(Span::styled(
            format!(
                "tree {} · node {} · depth {} of {} · {} · {} / {} · {}",
                tree.id,
                node.id,
                node.depth,
                tree.max_depth(),
                node.format.as_str(),
                node.category.level1,
                node.category.level2,
                node.question_type.as_str()
            ),
            bold,
        )));
        if let (Some(parent), Some(trigger)) = (&node.parent, &node.trigger) {
            lines.push(Line::from(format!(
                "reached from {parent} by {}; premise: {}",
                trigger_text(trigger),
                node.premise.as_deref().unwrap_or("-")
            )));
        }
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            format!("Question: {}", node.question),
            bold,
        )));
        for o in &node.options {
            let verdict = if o.correct {
                "GOLD".to_string()
            } else {
                format!(
                    "wrong: {}",
                    o.reason.map_or("no reason recorded", reason_text)
                )
            };
            let child = o
                .child
                .as_deref()
                .map_or(String::new(), |c| format!(" → {c}"));
            lines.push(Line::from(format!(
                "  {}. {}  [{verdict}]{child}",
                o.label, o.text
            )));
        }
        if node.format == Format::Open {
            lines.push(Line::from(format!(
                "  reference (gold): {}",
                gold_text(node)
            )));
            if let Some(c) = &node.open_branches.correct {
                lines.push(Line::from(format!("  c → {c} (after a correct answer)")));
            }
            if let Some(i) = &node.open_branches.incorrect {
                lines.push(Line::from(format!("  i → {i} (after an incorrect answer)")));
            }
        }
        lines.push(Line::from(""));
        let graph = &self.options.graph;
        lines.push(Line::from("What the question rests on:"));
        for id in &node.derived_from {
            lines.push(Line::from(format!("  • {}", graph.describe(id))));
        }
        lines.push(Line::from(format!(
            "Tree anchor ({:?}): {}",
            tree.anchor.kind,
            graph.describe_anchor(tree)
        )));
        lines.push(Line::from(""));
        lines.push(Line::from(format!("{}:", tree.context_heading())));
        lines.extend(
            node.context
                .excerpt
                .lines()
                .map(|l| Line::from(format!("  {l}"))),
        );
        if !node.context.keyframes.is_empty() {
            lines.extend(self.keyframe_lines(&node.context.keyframes, width));
        }
        lines
    }

    fn path_lines(&self) -> Vec<Line<'static>> {
        match self.mode {
            Mode::Explore => {
                let Some(tree) = self.trees.get(self.explore_tree) else {
                    return Vec::new();
                };
                let path = path_to(tree, &self.explore_node);
                path.iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let how = path
                            .get(i + 1)
                            .and_then(|c| c.trigger.as_ref())
                            .map_or(String::new(), |t| format!(" → {}", trigger_text(t)));
                        Line::from(format!("{} {}{how}", n.id, n.question))
                    })
                    .collect()
            }
            Mode::Test => {
                let tree = self.pending.as_ref().map(|p| p.tree_id.clone());
                self.history
                    .iter()
                    .filter(|(t, ..)| Some(t) == tree.as_ref())
                    .map(|(_, node, phase, reply)| {
                        Line::from(format!(
                            "{node} (phase {}): {}",
                            phase.number(),
                            super::session::shown_reply(reply)
                        ))
                    })
                    .collect()
            }
        }
    }
}

/// Rows a line takes when wrapped at word boundaries to `width` columns
/// (as the paragraph wraps it; a word longer than the width is broken).
fn wrapped_rows(line: &Line<'_>, width: usize) -> usize {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let mut rows = 1;
    let mut used = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        let need = if used == 0 { w } else { used + 1 + w };
        if need <= width {
            used = need;
        } else if w <= width {
            rows += 1;
            used = w;
        } else {
            rows += (used + w).div_ceil(width).saturating_sub(1).max(1);
            used = (used + w) % width;
        }
    }
    rows
}

/// A person's prompt ([`crate::eval::prompt::for_people`]) in its three
/// parts: the phase-2 premise (its first paragraph when it is a thought
/// experiment), the rest of the lead (excerpt, keyframe note), and the
/// question with how to answer.
fn split_prompt(text: &str) -> (Option<&str>, &str, &str) {
    let at = text.rfind("Question: ").unwrap_or(0);
    let (lead, question) = text.split_at(at);
    match lead.split_once("\n\n") {
        Some((premise, rest)) if premise.starts_with("Thought experiment") => {
            (Some(premise), rest, question)
        }
        _ => (None, lead, question),
    }
}

#[cfg(test)]
mod prompt_tests {
    use super::split_prompt;

    #[test]
    fn the_premise_comes_first_and_the_excerpt_after_the_question() {
        let (premise, excerpt, question) = split_prompt(
            "Thought experiment. Assume X.\n\nScreenplay excerpt:\nMARA\nNo.\n\nQuestion: Why?\n\nChoose.",
        );
        assert_eq!(premise, Some("Thought experiment. Assume X."));
        assert_eq!(excerpt, "Screenplay excerpt:\nMARA\nNo.\n\n");
        assert_eq!(question, "Question: Why?\n\nChoose.");
        let (premise, excerpt, question) = split_prompt("Question: Who?");
        assert_eq!((premise, excerpt, question), (None, "", "Question: Who?"));
    }
}
