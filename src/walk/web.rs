//! The web walker (`moviegraph walk --serve`): axum, server-rendered HTML with plain
//! forms and inline CSS only (no scripts, fonts or styles from anywhere), so it works
//! offline and shows nothing a page could fetch from elsewhere.
//!
//! Routes: `/` (trees, start a test), `/test/{annotator}` (the question waiting for
//! that person, answered by a POST to `/test/{annotator}/answer`), `/explore/{tree}/{node}`
//! (gold, distractor reasons, graph elements, branches) and `/keyframes/{path}` (only the
//! images the trees reference, see [`super::keyframes`]). A walker serves test mode or,
//! started with `--explore`, explore mode, never both: the other mode's routes answer
//! 403 with how to start the right walker. Each annotator's test is a
//! [`TestSession`] (a protocol thread and a store connection); at most
//! [`MAX_LIVE_SESSIONS`] are live, the least recently used closed first; one unused
//! for [`WebOptions::session_idle`] is closed too; and a closed or restarted
//! session resumes from the store on its annotator's next page.

use crate::signin::{self, SignIn};
use crate::text::escape_html;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use axum::extract::{Form, Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Mutex;

use super::explore::GraphLabels;
use super::explore::{gold_text, path_to, reason_text, trigger_text};
use super::session::{check_annotator, reply_text, shown_reply, Prompt, SessionEvent, TestSession};
use crate::eval::prompt::Phase;
use crate::eval::protocol::RunProgress;
use crate::trees::schema::{Format, Tree};
use crate::workspace::keyframes::{KeyframeRefusal, Keyframes};

/// How the web walker serves.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// The workspace root: keyframe paths in the trees are relative to it.
    pub root: PathBuf,
    /// The workspace database.
    pub store_path: PathBuf,
    /// The tree files, for the run's header.
    pub source: String,
    /// The annotator name the start form suggests.
    pub annotator: Option<String>,
    /// Serve explore mode (gold answers) instead of test mode. One walker never
    /// serves both, so nobody taking a test can open a page with the answers.
    pub explore: bool,
    /// The graph elements in words, for explore mode.
    pub graph: GraphLabels,
    /// How long a test session may go unused before it is closed (its answers
    /// are all stored; the annotator's next page resumes it).
    pub session_idle: Duration,
    /// Who may use the walker: anyone on loopback, or people signed in by
    /// their link or the password (each then takes only their own test).
    pub signin: Arc<SignIn>,
}

/// The default of [`WebOptions::session_idle`]: half an hour without a page.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// The page a test walker answers for `/explore/…`, and an explore walker for `/test…`.
fn wrong_walker(state: &WebState) -> Response {
    let text = if state.options.explore {
        "This walker serves explore mode, which shows gold answers, so it records no test. \
         To take the test, start another walker without <code>--explore</code>: \
         <code>moviegraph walk --serve TREES</code>."
    } else {
        "Explore mode shows gold answers, so a walker that people take tests on does not serve it. \
         To browse the trees with their answers, start a separate walker: \
         <code>moviegraph walk --serve --explore --port 8081 TREES</code>."
    };
    (
        StatusCode::FORBIDDEN,
        page("not in this walker", &format!("<p>{text}</p>")),
    )
        .into_response()
}

struct WebSession {
    /// The question waiting for an answer, holding the protocol's reply
    /// channel. Declared before `session` so that it is dropped first:
    /// closing the session joins a protocol thread that waits on this
    /// channel while it is open.
    pending: Option<Prompt>,
    session: TestSession,
    finished: Option<Result<RunProgress, String>>,
    recorded: usize,
    /// This session's answers: (tree, node, phase, reply).
    history: Vec<(String, String, Phase, String)>,
    /// When a page of it was last served.
    last_used: Instant,
}

/// The most test sessions kept live at once. Each holds a protocol thread and
/// a store connection; past this the least recently used is closed (every
/// answer it took is stored, and its annotator's next page resumes it).
pub const MAX_LIVE_SESSIONS: usize = 16;

/// Removes the sessions unused for longer than `idle` at `now`.
fn take_idle<V>(
    sessions: &mut HashMap<String, V>,
    when: impl Fn(&V) -> Instant,
    now: Instant,
    idle: Duration,
) -> Vec<V> {
    let stale: Vec<String> = sessions
        .iter()
        .filter(|(_, s)| now.saturating_duration_since(when(s)) > idle)
        .map(|(k, _)| k.clone())
        .collect();
    stale
        .into_iter()
        .filter_map(|k| sessions.remove(&k))
        .collect()
}

/// Closes `sessions`. Closing joins their protocol threads, so it runs off
/// the async workers; the question each waited on is dropped first, which
/// lets its thread end.
fn close(sessions: Vec<WebSession>) {
    if sessions.is_empty() {
        return;
    }
    tokio::task::spawn_blocking(move || {
        for mut session in sessions {
            session.pending = None;
            drop(session);
        }
    });
}

/// The key of the entry `when` says was used longest ago.
fn least_recent<K: Clone, V>(map: &HashMap<K, V>, when: impl Fn(&V) -> Instant) -> Option<K> {
    map.iter()
        .min_by_key(|(_, v)| when(v))
        .map(|(k, _)| k.clone())
}

struct WebState {
    trees: Vec<Tree>,
    keyframes: Keyframes,
    options: WebOptions,
    sessions: Mutex<HashMap<String, WebSession>>,
}

/// The walker's routes over `trees`.
pub fn router(trees: Vec<Tree>, options: WebOptions) -> Router {
    routes(state(trees, options))
}

fn state(trees: Vec<Tree>, options: WebOptions) -> Arc<WebState> {
    Arc::new(WebState {
        keyframes: Keyframes::new(&options.root, &trees),
        trees,
        options,
        sessions: Mutex::new(HashMap::new()),
    })
}

fn routes(state: Arc<WebState>) -> Router {
    let signin = state.options.signin.clone();
    Router::new()
        .route("/", get(index))
        .route("/test", post(start_test))
        .route("/test/{annotator}", get(test_page))
        .route("/test/{annotator}/answer", post(answer))
        .route("/explore/{tree}/{node}", get(explore_page))
        .route("/keyframes/{*path}", get(keyframe))
        .with_state(state)
        .merge(signin::routes(signin.clone(), "Who is walking?", page))
        .layer(axum::middleware::from_fn_with_state(signin, signin::guard))
}

/// Serves the walker on `listener` until the process ends, closing idle test
/// sessions as it goes (also while no page is asked for).
pub async fn serve(
    listener: tokio::net::TcpListener,
    trees: Vec<Tree>,
    options: WebOptions,
) -> std::io::Result<()> {
    let state = state(trees, options);
    let sweeper = Arc::downgrade(&state);
    let every =
        (state.options.session_idle / 2).clamp(Duration::from_millis(100), Duration::from_secs(60));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            let Some(state) = sweeper.upgrade() else {
                break;
            };
            let idle = state.options.session_idle;
            let stale = take_idle(
                &mut *state.sessions.lock().await,
                |s| s.last_used,
                Instant::now(),
                idle,
            );
            close(stale);
        }
    });
    axum::serve(listener, routes(state)).await
}

const STYLE: &str = "body{font-family:sans-serif;max-width:62em;margin:1em auto;padding:0 1em;\
color:#222;background:#fafafa}h1{font-size:1.3em}h2{font-size:1.1em}\
pre{white-space:pre-wrap;background:#fff;border:1px solid #ccc;padding:.6em}\
.opt{display:block;margin:.3em 0;padding:.3em;background:#fff;border:1px solid #ddd}\
.gold{border-color:#2a2;background:#efe}.wrong{color:#733}.meta{color:#666;font-size:.9em}\
nav a{margin-right:1em}img{max-width:220px;margin:.2em;border:1px solid #ccc}\
textarea{width:100%;height:5em}button{font-size:1em;padding:.3em 1.2em}";

/// A path segment or keyframe path in a URL: unreserved bytes kept, the rest escaped.
fn url_part(text: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~')
            || (keep_slash && b == b'/')
        {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\
         <nav><a href=\"/\">trees</a></nav>{body}</body></html>",
        escape_html(title)
    ))
}

fn keyframe_imgs(paths: &[String], keyframes: &Keyframes) -> String {
    let mut out = String::new();
    for path in paths {
        if let Some(rest) = path.strip_prefix("keyframes/") {
            if keyframes.is_referenced(path) {
                let _ = write!(
                    out,
                    "<img src=\"/keyframes/{}\" alt=\"{}\">",
                    url_part(rest, true),
                    escape_html(path)
                );
                continue;
            }
        }
        let _ = write!(out, "<div class=meta>{}</div>", escape_html(path));
    }
    out
}

async fn index(State(state): State<Arc<WebState>>) -> Html<String> {
    let mut body = String::from("<h1>moviegraph walk</h1>");
    if !state.options.explore {
        test_index(&state, &mut body);
        return page("moviegraph walk", &body);
    }
    explore_index(&state, &mut body);
    page("moviegraph walk", &body)
}

fn test_index(state: &WebState, body: &mut String) {
    let _ = write!(
        body,
        "<h2>Test mode</h2><p>The two-phase protocol exactly as <code>eval run</code> runs it; \
         no gold is shown and every answer is stored as a human run. Coming back with the same \
         name resumes where you stopped.</p><form method=post action=\"/test\">\
         <label>Annotator <input name=annotator value=\"{}\" required></label> \
         <button type=submit>Start or resume</button></form>",
        escape_html(state.options.annotator.as_deref().unwrap_or(""))
    );
    let _ = write!(
        body,
        "<p class=meta>{} trees. Explore mode (gold answers) is served by a separate walker, \
         <code>moviegraph walk --serve --explore</code>, never by this one.</p>",
        state.trees.len()
    );
}

fn explore_index(state: &WebState, body: &mut String) {
    body.push_str("<h2>Explore mode</h2><p>Any branch, with gold answers, why each distractor is wrong, and the graph elements behind each question. Nothing is recorded; this walker takes no test.</p><ul>");
    for (i, tree) in state.trees.iter().enumerate() {
        let root = tree.root().map(|n| n.id.as_str()).unwrap_or("");
        let first = tree.root().map(|n| n.question.as_str()).unwrap_or("");
        let _ = write!(
            body,
            "<li><a href=\"/explore/{i}/{}\">{}</a> <span class=meta>{} questions, depth {}</span><br>{}</li>",
            url_part(root, false),
            escape_html(&tree.id),
            tree.nodes.len(),
            tree.max_depth(),
            escape_html(first)
        );
    }
    body.push_str("</ul>");
}

#[derive(serde::Deserialize)]
struct StartForm {
    annotator: String,
}

async fn start_test(
    State(state): State<Arc<WebState>>,
    headers: axum::http::HeaderMap,
    Form(form): Form<StartForm>,
) -> Response {
    if state.options.explore {
        return wrong_walker(&state);
    }
    // A signed-in person walks under their own name.
    let person = state.options.signin.person(&headers);
    let name = person.as_deref().unwrap_or(form.annotator.trim());
    if let Err(e) = check_annotator(name) {
        return (
            StatusCode::BAD_REQUEST,
            page(
                "bad name",
                &format!("<p>{}</p>", escape_html(&e.to_string())),
            ),
        )
            .into_response();
    }
    Redirect::to(&format!("/test/{}", url_part(name, false))).into_response()
}

/// Takes events until a question is waiting or the run ended (or a few seconds passed,
/// which only a very slow store would need).
async fn settle(session: &mut WebSession) {
    while session.pending.is_none() && session.finished.is_none() {
        let next =
            tokio::time::timeout(Duration::from_secs(5), session.session.events.recv()).await;
        match next {
            Ok(Some(SessionEvent::Ask(prompt))) => session.pending = Some(prompt),
            Ok(Some(SessionEvent::Recorded { .. })) => session.recorded += 1,
            Ok(Some(SessionEvent::TreeDone { .. })) => {}
            Ok(Some(SessionEvent::Finished(result))) => session.finished = Some(result),
            Ok(None) => session.finished = Some(Err("the session ended".into())),
            Err(_) => break,
        }
    }
}

async fn test_page(
    State(state): State<Arc<WebState>>,
    UrlPath(annotator): UrlPath<String>,
) -> Response {
    if state.options.explore {
        return wrong_walker(&state);
    }
    if let Err(e) = check_annotator(&annotator) {
        return (
            StatusCode::BAD_REQUEST,
            page(
                "bad name",
                &format!("<p>{}</p>", escape_html(&e.to_string())),
            ),
        )
            .into_response();
    }
    let mut sessions = state.sessions.lock().await;
    let now = Instant::now();
    if let Some(own) = sessions.get_mut(&annotator) {
        own.last_used = now;
    }
    let mut closed = take_idle(
        &mut sessions,
        |s| s.last_used,
        now,
        state.options.session_idle,
    );
    if !sessions.contains_key(&annotator) {
        while sessions.len() >= MAX_LIVE_SESSIONS {
            match least_recent(&sessions, |s| s.last_used).and_then(|k| sessions.remove(&k)) {
                Some(old) => closed.push(old),
                None => break,
            }
        }
    }
    close(closed);
    if !sessions.contains_key(&annotator) {
        let started = TestSession::start(
            state.options.store_path.clone(),
            &annotator,
            state.trees.clone(),
            state.options.source.clone(),
        );
        match started {
            Ok(session) => {
                sessions.insert(
                    annotator.clone(),
                    WebSession {
                        session,
                        pending: None,
                        finished: None,
                        recorded: 0,
                        history: Vec::new(),
                        last_used: Instant::now(),
                    },
                );
            }
            Err(e) => {
                return (
                    StatusCode::BAD_REQUEST,
                    page("error", &format!("<p>{}</p>", escape_html(&e.to_string()))),
                )
                    .into_response()
            }
        }
    }
    let Some(session) = sessions.get_mut(&annotator) else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    session.last_used = Instant::now();
    settle(session).await;
    let mut body = format!(
        "<h1>Test mode · {}</h1><p class=meta>run <code>{}</code> · {} answers stored in this session</p>",
        escape_html(&annotator),
        escape_html(&session.session.run_id),
        session.recorded
    );
    match (&session.pending, &session.finished) {
        (Some(p), _) => {
            let tree_nodes = state.trees.get(p.tree_index).map_or(0, |t| t.nodes.len());
            let _ = write!(
                body,
                "<p class=meta>tree {} of {} (<code>{}</code>, {} questions) · question <code>{}</code> · {}</p>",
                p.tree_index + 1,
                state.trees.len(),
                escape_html(&p.tree_id),
                tree_nodes,
                escape_html(&p.node_id),
                match p.phase {
                    Phase::Path => "phase 1: your own path",
                    Phase::Counterfactual => "phase 2: thought experiment",
                }
            );
            let _ = write!(body, "<pre class=prompt>{}</pre>", escape_html(&p.text));
            body.push_str(&keyframe_imgs(&p.images, &state.keyframes));
            let _ = write!(
                body,
                "<form method=post action=\"/test/{}/answer\"><input type=hidden name=tree value=\"{}\"><input type=hidden name=node value=\"{}\">",
                url_part(&annotator, false),
                escape_html(&p.tree_id),
                escape_html(&p.node_id)
            );
            match p.view.format {
                Format::Open => body
                    .push_str("<label>Your answer<textarea name=text required></textarea></label>"),
                format => {
                    for (label, text) in &p.view.options {
                        let input = if format == Format::Single {
                            format!(
                                "<input type=radio name=choice value=\"{}\" required>",
                                escape_html(label)
                            )
                        } else {
                            format!(
                                "<input type=checkbox name=\"choice_{}\" value=on>",
                                escape_html(label)
                            )
                        };
                        let _ = write!(
                            body,
                            "<label class=opt>{input} <b>{}.</b> {}</label>",
                            escape_html(label),
                            escape_html(text)
                        );
                    }
                }
            }
            body.push_str("<p><button type=submit>Confirm</button></p></form>");
            let path: Vec<String> = session
                .history
                .iter()
                .filter(|(t, ..)| *t == p.tree_id)
                .map(|(_, node, phase, reply)| {
                    format!(
                        "<li><code>{}</code> (phase {}): {}</li>",
                        escape_html(node),
                        phase.number(),
                        escape_html(shown_reply(reply))
                    )
                })
                .collect();
            if !path.is_empty() {
                let _ = write!(body, "<h2>Path so far</h2><ul>{}</ul>", path.concat());
            }
        }
        (None, Some(Ok(done))) => {
            let _ = write!(
                body,
                "<p id=complete>Run complete: {} trees, {} answers stored ({} in this session). \
                 Scores: <code>moviegraph eval report {}</code></p>",
                done.trees,
                done.answers,
                done.asked,
                escape_html(&session.session.run_id)
            );
        }
        (None, Some(Err(e))) => {
            let _ = write!(body, "<p>The run stopped: {}</p>", escape_html(e));
        }
        (None, None) => body.push_str("<p>Waiting for the next question; reload the page.</p>"),
    }
    page("moviegraph walk · test", &body).into_response()
}

async fn answer(
    State(state): State<Arc<WebState>>,
    UrlPath(annotator): UrlPath<String>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if state.options.explore {
        return wrong_walker(&state);
    }
    let back = Redirect::to(&format!("/test/{}", url_part(&annotator, false)));
    let mut sessions = state.sessions.lock().await;
    let Some(session) = sessions.get_mut(&annotator) else {
        return back.into_response();
    };
    session.last_used = Instant::now();
    settle(session).await;
    let fits = session.pending.as_ref().is_some_and(|p| {
        form.get("tree") == Some(&p.tree_id) && form.get("node") == Some(&p.node_id)
    });
    if !fits {
        // A repeated or stale form (a reload, the back button): the waiting question
        // is shown again rather than answered with an answer meant for another one.
        return back.into_response();
    }
    let Some(prompt) = session.pending.take() else {
        return back.into_response();
    };
    let chosen: Vec<String> = prompt
        .view
        .options
        .iter()
        .map(|(label, _)| label.clone())
        .filter(|label| {
            form.get("choice") == Some(label) || form.contains_key(&format!("choice_{label}"))
        })
        .collect();
    let text = form.get("text").cloned().unwrap_or_default();
    let empty = match prompt.view.format {
        Format::Open => text.trim().is_empty(),
        _ => chosen.is_empty(),
    };
    if empty {
        session.pending = Some(prompt);
        return back.into_response();
    }
    session.history.push((
        prompt.tree_id.clone(),
        prompt.node_id.clone(),
        prompt.phase,
        reply_text(prompt.view.format, &chosen, &text),
    ));
    prompt.answer(&chosen, &text);
    // The redirect acknowledges the answer: wait until the protocol has stored it
    // and moved on (its next question or its end), so a walker killed right after
    // the reply loses nothing the person was told was taken.
    settle(session).await;
    back.into_response()
}

async fn explore_page(
    State(state): State<Arc<WebState>>,
    UrlPath((tree_index, node_id)): UrlPath<(usize, String)>,
) -> Response {
    if !state.options.explore {
        return wrong_walker(&state);
    }
    let Some(tree) = state.trees.get(tree_index) else {
        return (
            StatusCode::NOT_FOUND,
            page("not found", "<p>No such tree.</p>"),
        )
            .into_response();
    };
    let Some(node) = tree.node(&node_id) else {
        return (
            StatusCode::NOT_FOUND,
            page("not found", "<p>No such question.</p>"),
        )
            .into_response();
    };
    let link = |id: &str| format!("/explore/{tree_index}/{}", url_part(id, false));
    let mut body = format!(
        "<h1>Explore · {}</h1><p class=meta>gold answers shown; nothing is recorded</p><p>path: ",
        escape_html(&tree.id)
    );
    let path = path_to(tree, &node.id);
    for (i, n) in path.iter().enumerate() {
        if i > 0 {
            let how = n.trigger.as_ref().map(trigger_text).unwrap_or_default();
            let _ = write!(body, " → <span class=meta>({})</span> ", escape_html(&how));
        }
        let _ = write!(
            body,
            "<a href=\"{}\">{}</a>",
            link(&n.id),
            escape_html(&n.id)
        );
    }
    body.push_str("</p>");
    let _ = write!(
        body,
        "<p class=meta>depth {} of {} · {} · {} / {} · {}</p>",
        node.depth,
        tree.max_depth(),
        node.format.as_str(),
        escape_html(&node.category.level1),
        escape_html(&node.category.level2),
        node.question_type.as_str()
    );
    if let Some(premise) = &node.premise {
        let _ = write!(
            body,
            "<p><i>Premise (phase 2):</i> {}</p>",
            escape_html(premise)
        );
    }
    let _ = write!(body, "<h2>{}</h2>", escape_html(&node.question));
    for o in &node.options {
        let verdict = if o.correct {
            "<b>gold</b>".to_string()
        } else {
            format!(
                "<span class=wrong>wrong: {}</span>",
                escape_html(o.reason.map_or("no reason recorded", reason_text))
            )
        };
        let child = o.child.as_deref().map_or(String::new(), |c| {
            format!(" · <a href=\"{}\">follow → {}</a>", link(c), escape_html(c))
        });
        let _ = write!(
            body,
            "<div class=\"opt{}\"><b>{}.</b> {} <span class=meta>[{verdict}]{child}</span></div>",
            if o.correct { " gold" } else { "" },
            escape_html(&o.label),
            escape_html(&o.text)
        );
    }
    if node.format == Format::Open {
        let _ = write!(
            body,
            "<div class=\"opt gold\">reference (gold): {}</div>",
            escape_html(&gold_text(node))
        );
        for (what, child) in [
            ("after a correct answer", &node.open_branches.correct),
            ("after an incorrect answer", &node.open_branches.incorrect),
        ] {
            if let Some(c) = child {
                let _ = write!(
                    body,
                    "<p><a href=\"{}\">{what} → {}</a></p>",
                    link(c),
                    escape_html(c)
                );
            }
        }
    }
    let graph = &state.options.graph;
    body.push_str("<h2>What the question rests on</h2><ul>");
    for id in &node.derived_from {
        let _ = write!(
            body,
            "<li title=\"{}\">{}</li>",
            escape_html(id),
            escape_html(graph.describe(id))
        );
    }
    let _ = write!(
        body,
        "</ul><p class=meta>tree anchor ({:?}): {}</p>",
        tree.anchor.kind,
        escape_html(&graph.describe_anchor(tree))
    );
    let _ = write!(
        body,
        "<h2>Context</h2><pre>{}</pre>",
        escape_html(&node.context.excerpt)
    );
    body.push_str(&keyframe_imgs(&node.context.keyframes, &state.keyframes));
    page(&format!("explore {}", tree.id), &body).into_response()
}

async fn keyframe(State(state): State<Arc<WebState>>, UrlPath(path): UrlPath<String>) -> Response {
    let referenced = format!("keyframes/{path}");
    match state.keyframes.resolve(&referenced) {
        // Keyframes are small files; a blocking read is shorter than a hand-off to a thread.
        Ok((file, content_type)) => match std::fs::read(&file) {
            Ok(bytes) => ([(header::CONTENT_TYPE, content_type)], bytes).into_response(),
            Err(_) => StatusCode::NOT_FOUND.into_response(),
        },
        Err(KeyframeRefusal::Outside) => StatusCode::FORBIDDEN.into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_least_recently_used_session_is_the_one_closed() {
        let t0 = Instant::now();
        let map: HashMap<&str, Instant> = [
            ("ann", t0 + Duration::from_secs(5)),
            ("ben", t0),
            ("cy", t0 + Duration::from_secs(9)),
        ]
        .into_iter()
        .collect();
        assert_eq!(least_recent(&map, |t| *t), Some("ben"));
        assert_eq!(least_recent(&HashMap::<&str, Instant>::new(), |t| *t), None);
    }

    #[test]
    fn sessions_unused_past_the_idle_limit_are_taken_and_the_rest_kept() {
        let t0 = Instant::now();
        let mut map: HashMap<String, Instant> = [
            ("old".to_string(), t0),
            ("edge".to_string(), t0 + Duration::from_secs(40)),
            ("new".to_string(), t0 + Duration::from_secs(90)),
        ]
        .into();
        let now = t0 + Duration::from_secs(100);
        let taken = take_idle(&mut map, |t| *t, now, Duration::from_secs(60));
        assert_eq!(taken, [t0], "only the one unused for 100 s > 60 s");
        let mut left: Vec<&String> = map.keys().collect();
        left.sort();
        assert_eq!(left, ["edge", "new"], "60 s exactly is not past the limit");
    }
}
