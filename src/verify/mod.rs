//! The review app (`moviegraph graph review FILM --serve`): people verify a
//! film's graph in the browser. axum, server-rendered HTML and one inline
//! script (keyboard keys, and the quote a reviewer selects when adding a
//! state); nothing is fetched from elsewhere. Every page and decision goes
//! through [`crate::workspace::review::ReviewApp`].
//!
//! Routes: `/` (progress, agreement, precision, the queues), `/next?q=QUEUE`
//! (the reviewer's next candidate), `POST /decide`, `/add?scene=N` and
//! `POST /add` (a state the generator missed, its quote selected in the
//! scene), `/decisions.csv` and `/decisions.jsonl`, and the sign-in routes
//! `/login` (a name, with the password when one is set) and
//! `/login/{token}` (a reviewer's own link). Who signed in is kept in a
//! session cookie; tokens and passwords never reach a log or a page.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

use crate::graph::review::{Correction, RejectReason, Truth, Verdict};
use crate::graph::schema::{Attitude, EdgeKind};
use crate::signin::{new_token, SignIn};
use crate::text::escape_html;
use crate::workspace::review::{CandidateView, NewLink, NewState, Queue, ReviewApp, SceneLine};
use crate::workspace::review_figures::render_summary;

struct AppState {
    app: Mutex<ReviewApp>,
    signin: Arc<SignIn>,
}

type Shared = Arc<AppState>;

/// Serves the review app on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: ReviewApp,
    signin: SignIn,
) -> std::io::Result<()> {
    let signin = Arc::new(signin);
    let state = Arc::new(AppState {
        app: Mutex::new(app),
        signin: signin.clone(),
    });
    let routes = Router::new()
        .route("/", get(home))
        .route("/next", get(next))
        .route("/decide", post(decide))
        .route("/add", get(add_page).post(add))
        .route("/add-link", post(add_link))
        .route("/keyframe", get(keyframe))
        .route("/decisions.csv", get(decisions_csv))
        .route("/decisions.jsonl", get(decisions_jsonl))
        .with_state(state)
        .merge(crate::signin::routes(signin, "Who is reviewing?", page));
    axum::serve(listener, routes).await
}

const STYLE: &str = "body{font-family:sans-serif;max-width:64em;margin:1em auto;padding:0 1em;\
color:#222;background:#fafafa}h1{font-size:1.3em}h2{font-size:1.1em}\
.claim{font-size:1.25em;background:#fff;border:1px solid #ccc;padding:.6em}\
.scene{position:relative;background:#fff;border:1px solid #ddd;padding:.4em .8em;max-height:24em;overflow:auto}\
img{max-width:220px;margin:.2em;border:1px solid #ccc}\
.scene p{margin:.25em 0}.scene .dialogue{margin-left:3em}.scene .speaker{font-weight:bold;margin-left:10em}\
mark{background:#ffe066}.meta{color:#666;font-size:.9em}nav a{margin-right:1em}\
button{font-size:1em;padding:.3em 1em;margin:.2em}kbd{border:1px solid #aaa;border-radius:3px;padding:0 .3em}\
fieldset{margin:.6em 0}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd}";

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\
         <nav><a href=\"/\">queues</a></nav>{body}</body></html>",
        escape_html(title)
    ))
}

fn refuse(status: StatusCode, text: &str) -> Response {
    (
        status,
        page("review", &format!("<p>{}</p>", escape_html(text))),
    )
        .into_response()
}

fn failed(e: impl std::fmt::Display) -> Response {
    refuse(StatusCode::BAD_REQUEST, &e.to_string())
}

/// The signed-in reviewer, or the response that sends a stranger to sign in.
fn who(state: &AppState, headers: &HeaderMap) -> Result<String, Box<Response>> {
    state
        .signin
        .person(headers)
        .ok_or_else(|| Box::new(Redirect::to("/login").into_response()))
}

async fn home(State(state): State<Shared>, headers: HeaderMap) -> Response {
    let me = match who(&state, &headers) {
        Ok(me) => me,
        Err(r) => return *r,
    };
    let app = state.app.lock().expect("review app");
    let (summary, scenes) = match app.summary() {
        Ok(s) => (s, app.scenes()),
        Err(e) => return failed(e),
    };
    let mut body = format!(
        "<h1>Review of {} <span class=\"meta\">({}, each candidate to {} reviewer(s))</span></h1>\
         <p>Signed in as <b id=\"me\">{}</b>.</p><pre>{}</pre>",
        escape_html(&app.slug),
        escape_html(&app.generator),
        app.overlap,
        escape_html(&me),
        escape_html(&render_summary(&summary))
    );
    body.push_str("<h2>Queues</h2><ul><li><a id=\"q-escalated\" href=\"/next?q=escalated\">candidates the auditors disagree on</a></li>");
    body.push_str("<li><form method=\"get\" action=\"/next\">a random sample of the accepted states, ToM edges and causal links (for the precision estimate): \
        <input name=\"size\" value=\"50\" size=\"4\"> candidates, seed <input name=\"seed\" value=\"0\" size=\"4\"> \
        <button name=\"q\" value=\"sample\">start</button></form></li>");
    body.push_str("<li>every candidate of a kind: ");
    for k in [
        "belief",
        "knowledge",
        "desire",
        "intention",
        "emotion",
        "suspicion",
        "pretense",
        "social_goal",
        "edge:causes",
        "node:event",
    ] {
        let _ = write!(body, "<a href=\"/next?q=kind:{k}\">{k}</a> ");
    }
    body.push_str("</li><li>everything in a scene, or add what is missing:<ul>");
    for (n, heading) in scenes {
        let _ = write!(
            body,
            "<li>scene {n} {} — <a id=\"scene-{n}\" href=\"/next?q=scene:{n}\">review</a> · <a id=\"add-{n}\" href=\"/add?scene={n}\">add a state</a></li>",
            escape_html(&heading)
        );
    }
    body.push_str("</ul></li></ul><p>Decisions: <a href=\"/decisions.csv\">CSV</a> · <a href=\"/decisions.jsonl\">JSON lines</a></p>");
    page("review", &body).into_response()
}

#[derive(Deserialize)]
struct NextQuery {
    q: String,
    #[serde(default)]
    size: Option<usize>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    skip: Option<String>,
}

fn queue_of(q: &NextQuery) -> Option<Queue> {
    if q.q == "sample" {
        return Some(Queue::Sample {
            size: q.size.unwrap_or(50).max(1),
            seed: q.seed.unwrap_or(0),
        });
    }
    Queue::parse(&q.q)
}

fn lines_html(lines: &[SceneLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let text: Vec<char> = l.text.chars().collect();
        let inner = match l.highlight {
            Some((s, e)) if s < e && e <= text.len() => format!(
                "{}<mark>{}</mark>{}",
                escape_html(&text[..s].iter().collect::<String>()),
                escape_html(&text[s..e].iter().collect::<String>()),
                escape_html(&text[e..].iter().collect::<String>())
            ),
            _ => escape_html(&l.text),
        };
        let _ = write!(
            out,
            "<p class=\"{}\" data-element=\"{}\">{inner}</p>",
            escape_html(&l.kind),
            l.element
        );
    }
    out
}

fn options<T: PartialEq>(items: &[(T, &str)], chosen: Option<&T>) -> String {
    let mut out = String::from("<option value=\"\">(unchanged)</option>");
    for (v, label) in items {
        let sel = if chosen == Some(v) { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{label}\"{sel}>{label}</option>");
    }
    out
}

const ATTITUDES: [(Attitude, &str); 8] = [
    (Attitude::Belief, "belief"),
    (Attitude::Knowledge, "knowledge"),
    (Attitude::Desire, "desire"),
    (Attitude::Intention, "intention"),
    (Attitude::Emotion, "emotion"),
    (Attitude::Suspicion, "suspicion"),
    (Attitude::Pretense, "pretense"),
    (Attitude::SocialGoal, "social_goal"),
];

fn candidate_html(
    c: &CandidateView,
    queue: &str,
    skip: &str,
    left: usize,
    characters: &[(String, String)],
    ends: &[(String, String)],
) -> String {
    let nonce = new_token();
    let q = escape_html(queue);
    let mut votes = String::new();
    for v in &c.votes {
        let _ = write!(
            votes,
            "<li>{} ({:?}) says <b>{}</b>: {}</li>",
            escape_html(&v.judge),
            v.role,
            if v.accept { "accept" } else { "reject" },
            escape_html(&v.rationale)
        );
    }
    let mut reasons = String::new();
    for (i, r) in RejectReason::ALL.iter().enumerate() {
        let _ = write!(
            reasons,
            "<button type=\"submit\" name=\"reason\" value=\"{}\" id=\"reject-{}\"><kbd>{}</kbd> {}</button>",
            r.as_str(),
            r.as_str(),
            i + 1,
            r.label()
        );
    }
    let correction = c.state.as_ref().map_or(String::new(), |s| {
        let holders: Vec<(String, &str)> = characters.iter().map(|(id, name)| (id.clone(), name.as_str())).collect();
        let mut holder_opts = String::from("<option value=\"\">(unchanged)</option>");
        for (id, name) in &holders {
            let _ = write!(holder_opts, "<option value=\"{}\">{}</option>", escape_html(id), escape_html(name));
        }
        format!(
            "<form method=\"post\" action=\"/decide\" id=\"correct\"><fieldset><legend><kbd>c</kbd> correct it</legend>\
             <input type=\"hidden\" name=\"nonce\" value=\"{nonce}c\"><input type=\"hidden\" name=\"candidate\" value=\"{id}\">\
             <input type=\"hidden\" name=\"q\" value=\"{q}\"><input type=\"hidden\" name=\"decision\" value=\"correct\">\
             <label>holder <select name=\"holder\" id=\"holder\">{holder_opts}</select></label> \
             <label>attitude <select name=\"attitude\">{}</select></label> \
             <label>polarity <select name=\"negated\"><option value=\"\">(unchanged)</option><option value=\"no\">holds it</option><option value=\"yes\">holds its negation</option></select></label> \
             <label>truth <select name=\"truth\"><option value=\"\">(unchanged)</option><option>true</option><option>false</option><option>unknown</option></select></label><br>\
             <label>content <input name=\"content\" size=\"60\" placeholder=\"{}\"></label><br>\
             <label>first scene <input name=\"scene\" size=\"3\"></label> <label>last scene it holds <input name=\"until_scene\" size=\"3\"></label> \
             <button type=\"submit\" id=\"save-correction\">save correction</button></fieldset></form>",
            options(&ATTITUDES, None),
            escape_html(s.content.as_deref().unwrap_or(&s.name)),
            id = escape_html(&c.id),
        )
    });
    let correction = match &c.about {
        Some((source, target)) if correction.is_empty() => {
            let mut opts = String::new();
            if !ends.iter().any(|(id, _)| id == target) {
                let _ = write!(
                    opts,
                    "<option value=\"{0}\" selected>(now) {0}</option>",
                    escape_html(target)
                );
            }
            for (id, label) in ends.iter().filter(|(id, _)| id != source) {
                let _ = write!(
                    opts,
                    "<option value=\"{}\"{}>{}</option>",
                    escape_html(id),
                    if id == target { " selected" } else { "" },
                    escape_html(label)
                );
            }
            format!(
                "<form method=\"post\" action=\"/decide\" id=\"correct\"><fieldset><legend><kbd>c</kbd> correct what it is about</legend>\
                 <input type=\"hidden\" name=\"nonce\" value=\"{nonce}c\"><input type=\"hidden\" name=\"candidate\" value=\"{}\">\
                 <input type=\"hidden\" name=\"q\" value=\"{q}\"><input type=\"hidden\" name=\"decision\" value=\"correct\">\
                 <label>about <select name=\"about\" id=\"holder\">{opts}</select></label> \
                 <button type=\"submit\" id=\"save-correction\">save correction</button></fieldset></form>",
                escape_html(&c.id)
            )
        }
        _ => correction,
    };
    format!(
        "<h1>{left} left in {q}</h1><p class=\"claim\" id=\"claim\">{}</p>\
         <p class=\"meta\">{} · scene {} · {} · proposed because: {}</p>\
         <form method=\"post\" action=\"/decide\" id=\"decide\">\
         <input type=\"hidden\" name=\"nonce\" value=\"{nonce}\"><input type=\"hidden\" name=\"candidate\" value=\"{id}\">\
         <input type=\"hidden\" name=\"q\" value=\"{q}\"><input type=\"hidden\" name=\"decision\" value=\"reject\">\
         <button type=\"submit\" formaction=\"/decide?accept=1\" id=\"accept\"><kbd>a</kbd> accept</button> {reasons} \
         <a id=\"skip\" href=\"/next?q={q}&amp;skip={}\"><kbd>s</kbd> skip</a></form>{correction}\
         <h2>Scene {}</h2><div class=\"scene\">{}</div>\
         <h2>Keyframes</h2><p>{}</p><h2>Votes</h2><ul>{votes}</ul>\
         <script>document.addEventListener('keydown',function(e){{\
         if(e.target.tagName==='INPUT'||e.target.tagName==='SELECT')return;\
         var k=e.key;if(k==='a'){{document.getElementById('accept').click();}}\
         else if(k>='1'&&k<='6'){{document.querySelectorAll('#decide button[name=reason]')[k-1].click();}}\
         else if(k==='s'){{document.getElementById('skip').click();}}\
         else if(k==='c'){{var h=document.getElementById('holder');if(h){{h.focus();e.preventDefault();}}}}}});\
         var m=document.querySelector('mark'),sc=document.querySelector('.scene');\
         if(m&&sc){{sc.scrollTop=m.parentElement.offsetTop-sc.clientHeight/3;}}</script>",
        escape_html(&c.sentence),
        escape_html(&c.kind),
        c.scene,
        escape_html(c.status.as_str()),
        escape_html(&c.reason),
        escape_html(&format!("{skip}{}{}", if skip.is_empty() { "" } else { "," }, c.id)),
        c.scene,
        lines_html(&c.lines),
        if c.keyframes.is_empty() { "none for this block".to_owned() } else { keyframe_imgs(&c.keyframes) },
        id = escape_html(&c.id),
    )
}

async fn next(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<NextQuery>,
) -> Response {
    let me = match who(&state, &headers) {
        Ok(me) => me,
        Err(r) => return *r,
    };
    let Some(queue) = queue_of(&query) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Unknown queue: use escalated, scene:N, kind:K or sample.",
        );
    };
    let app = state.app.lock().expect("review app");
    let skip = query.skip.clone().unwrap_or_default();
    let skipped: Vec<&str> = skip.split(',').collect();
    let ((next, left), characters) = match (app.take_next(&me, &queue, &skipped), app.characters())
    {
        (Ok(n), Ok(c)) => (n, c),
        (Err(e), _) | (_, Err(e)) => return failed(e),
    };
    // An `about` edge is corrected by choosing what its state is about.
    let ends = match next.as_ref().and_then(|c| c.about.as_ref()) {
        // Characters, then the accepted events and states.
        Some(_) => match app.link_ends() {
            Ok(ends) => characters.iter().cloned().chain(ends).collect(),
            Err(e) => return failed(e),
        },
        None => Vec::new(),
    };
    match next {
        None => page(
            "done",
            &format!(
                "<h1 id=\"done\">Nothing left for you in {}</h1><p><a href=\"/\">back to the queues</a></p>",
                escape_html(&queue.name())
            ),
        )
        .into_response(),
        Some(c) => page("review", &candidate_html(&c, &queue.name(), &skip, left, &characters, &ends)).into_response(),
    }
}

#[derive(Deserialize)]
struct DecideForm {
    nonce: String,
    candidate: String,
    q: String,
    decision: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    holder: String,
    #[serde(default)]
    attitude: String,
    #[serde(default)]
    negated: String,
    #[serde(default)]
    truth: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    scene: String,
    #[serde(default)]
    until_scene: String,
    #[serde(default)]
    about: String,
}

#[derive(Deserialize)]
struct DecideQuery {
    #[serde(default)]
    accept: Option<u8>,
}

fn attitude_of(s: &str) -> Option<Attitude> {
    ATTITUDES.iter().find(|(_, n)| *n == s).map(|(a, _)| *a)
}

/// A 1-based scene typed in a form, as the graph's 0-based one.
fn scene_field(s: &str) -> Result<Option<usize>, String> {
    match s.trim() {
        "" => Ok(None),
        t => t
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .map(|n| Some(n - 1))
            .ok_or_else(|| format!("scene {t:?} is not a scene number (1, 2, …)")),
    }
}

fn verdict_of(form: &DecideForm, accept: bool) -> Result<Verdict, String> {
    if accept {
        return Ok(Verdict::Accept);
    }
    match form.decision.as_str() {
        "reject" => RejectReason::parse(&form.reason)
            .map(|reason| Verdict::Reject { reason })
            .ok_or_else(|| format!("unknown reason {:?}", form.reason)),
        "correct" => Ok(Verdict::Correct {
            correction: Correction {
                holder: Some(form.holder.clone()).filter(|h| !h.is_empty()),
                attitude: attitude_of(&form.attitude),
                negated: match form.negated.as_str() {
                    "yes" => Some(true),
                    "no" => Some(false),
                    _ => None,
                },
                truth: match form.truth.as_str() {
                    "true" => Some(Truth::True),
                    "false" => Some(Truth::False),
                    "unknown" => Some(Truth::Unknown),
                    _ => None,
                },
                content: Some(form.content.trim().to_owned()).filter(|c| !c.is_empty()),
                scene: scene_field(&form.scene)?,
                until_scene: scene_field(&form.until_scene)?,
                about: Some(form.about.trim().to_owned()).filter(|a| !a.is_empty()),
            },
        }),
        other => Err(format!("unknown decision {other:?}")),
    }
}

async fn decide(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<DecideQuery>,
    Form(form): Form<DecideForm>,
) -> Response {
    let me = match who(&state, &headers) {
        Ok(me) => me,
        Err(r) => return *r,
    };
    let verdict = match verdict_of(&form, query.accept == Some(1)) {
        Ok(v) => v,
        Err(e) => return failed(e),
    };
    let app = state.app.lock().expect("review app");
    if let Err(e) = app.decide(&me, &form.nonce, &form.candidate, &form.q, verdict) {
        return failed(e);
    }
    let q = form.q.replace('&', "%26").replace('#', "%23");
    Redirect::to(&format!("/next?q={q}")).into_response()
}

#[derive(Deserialize)]
struct AddQuery {
    scene: usize,
    #[serde(default)]
    added: Option<String>,
}

async fn add_page(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<AddQuery>,
) -> Response {
    if let Err(r) = who(&state, &headers) {
        return *r;
    }
    let app = state.app.lock().expect("review app");
    let characters = match app.characters() {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    let lines = app.scene_lines(query.scene, &[]);
    if lines.is_empty() {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!("The film has no scene {}.", query.scene),
        );
    }
    let mut holders = String::new();
    for (id, name) in &characters {
        let _ = write!(
            holders,
            "<option value=\"{}\">{}</option>",
            escape_html(id),
            escape_html(name)
        );
    }
    let mut attitudes = String::new();
    for (_, a) in ATTITUDES {
        let _ = write!(attitudes, "<option>{a}</option>");
    }
    let mut ends = String::new();
    for (id, label) in app.link_ends().unwrap_or_default() {
        let _ = write!(
            ends,
            "<option value=\"{}\">{}</option>",
            escape_html(&id),
            escape_html(&label)
        );
    }
    let added = query.added.map_or(String::new(), |id| {
        format!(
            "<p id=\"added\">Added <code>{}</code>.</p>",
            escape_html(&id)
        )
    });
    let body = format!(
        "<h1>Add a state in scene {n}</h1>{added}<p>Select the words that show it in one line of the scene, then say what is held.</p>\
         <div class=\"scene\" id=\"scene\">{}</div>\
         <form method=\"post\" action=\"/add\" id=\"add\"><input type=\"hidden\" name=\"nonce\" value=\"{}\">\
         <input type=\"hidden\" name=\"scene\" value=\"{n}\">\
         <input type=\"hidden\" name=\"element\" id=\"element\"><input type=\"hidden\" name=\"start\" id=\"start\"><input type=\"hidden\" name=\"end\" id=\"end\">\
         <p>quote: <q id=\"quote\">(select it in the scene)</q></p>\
         <label>holder <select name=\"holder\" id=\"holder\">{holders}</select></label> \
         <label>attitude <select name=\"attitude\" id=\"attitude\">{attitudes}</select></label> \
         <label><input type=\"checkbox\" name=\"negated\" value=\"yes\"> holds its negation</label> \
         <label>truth <select name=\"truth\"><option value=\"unknown\">unknown</option><option>true</option><option>false</option></select></label><br>\
         <label>content <input name=\"content\" id=\"content\" size=\"60\" required></label> \
         <button type=\"submit\" id=\"save\">add</button></form>\
         <h2>Or a causal link</h2><p>Between two things the graph already holds, with the selected words as its evidence.</p>\
         <form method=\"post\" action=\"/add-link\" id=\"add-link\"><input type=\"hidden\" name=\"nonce\" value=\"{}\">\
         <input type=\"hidden\" name=\"scene\" value=\"{n}\">\
         <input type=\"hidden\" name=\"element\"><input type=\"hidden\" name=\"start\"><input type=\"hidden\" name=\"end\">\
         <label>cause <select name=\"cause\" id=\"cause\">{ends}</select></label><br>\
         <label>link <select name=\"kind\" id=\"kind\"><option>causes</option><option>enables</option><option>prevents</option><option>motivates</option><option>triggers</option></select></label><br>\
         <label>effect <select name=\"effect\" id=\"effect\">{ends}</select></label> \
         <button type=\"submit\" id=\"save-link\">add link</button></form>\
         <script>function pick(){{var s=window.getSelection();if(!s.rangeCount||s.isCollapsed)return;\
         var r=s.getRangeAt(0);var p=r.startContainer.parentElement.closest('p[data-element]');\
         var q=r.endContainer.parentElement.closest('p[data-element]');if(!p||p!==q)return;\
         var pre=document.createRange();pre.selectNodeContents(p);pre.setEnd(r.startContainer,r.startOffset);\
         var start=Array.from(pre.toString()).length;var text=Array.from(r.toString());\
         var set=function(n,v){{document.querySelectorAll('input[name='+n+']').forEach(function(i){{i.value=v;}});}};\
         set('element',p.dataset.element);set('start',start);set('end',start+text.length);\
         document.getElementById('quote').textContent=r.toString();}}\
         document.getElementById('scene').addEventListener('mouseup',pick);document.addEventListener('selectionchange',pick);</script>",
        lines_html(&lines),
        new_token(),
        new_token(),
        n = query.scene,
    );
    page("add a state or a link", &body).into_response()
}

#[derive(Deserialize)]
struct AddForm {
    nonce: String,
    scene: usize,
    element: String,
    start: String,
    end: String,
    holder: String,
    attitude: String,
    #[serde(default)]
    negated: String,
    #[serde(default)]
    truth: String,
    content: String,
}

async fn add(
    State(state): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<AddForm>,
) -> Response {
    let me = match who(&state, &headers) {
        Ok(me) => me,
        Err(r) => return *r,
    };
    let (Ok(element), Ok(start), Ok(end)) =
        (form.element.parse(), form.start.parse(), form.end.parse())
    else {
        return failed("Select the quote in the scene first.");
    };
    let Some(attitude) = attitude_of(&form.attitude) else {
        return failed(format!("unknown attitude {:?}", form.attitude));
    };
    let new = NewState {
        holder: form.holder,
        attitude,
        content: form.content,
        negated: form.negated == "yes",
        truth: match form.truth.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        element,
        start,
        end,
    };
    let app = state.app.lock().expect("review app");
    match app.add_state(&me, &form.nonce, &new) {
        Ok(id) => Redirect::to(&format!(
            "/add?scene={}&added={}",
            form.scene,
            id.replace('#', "%23")
        ))
        .into_response(),
        Err(e) => failed(e),
    }
}

/// The `<img>`s of a block's keyframes, served by `/keyframe`.
fn keyframe_imgs(paths: &[String]) -> String {
    let mut out = String::new();
    for p in paths {
        let q: String = p
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        let _ = write!(
            out,
            "<img src=\"/keyframe?path={q}\" alt=\"{}\" title=\"{}\">",
            escape_html(p),
            escape_html(p)
        );
    }
    out
}

#[derive(Deserialize)]
struct KeyframeQuery {
    path: String,
}

async fn keyframe(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<KeyframeQuery>,
) -> Response {
    if let Err(r) = who(&state, &headers) {
        return *r;
    }
    let found = {
        let app = state.app.lock().expect("review app");
        app.keyframe(&q.path)
    };
    match found {
        Ok(Ok((file, kind))) => match std::fs::read(&file) {
            Ok(bytes) => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
            Err(_) => refuse(StatusCode::NOT_FOUND, "The keyframe file cannot be read."),
        },
        Ok(Err(refusal)) => refuse(StatusCode::NOT_FOUND, &refusal.to_string()),
        Err(e) => failed(e),
    }
}

#[derive(Deserialize)]
struct AddLinkForm {
    nonce: String,
    scene: usize,
    element: String,
    start: String,
    end: String,
    cause: String,
    effect: String,
    kind: String,
}

async fn add_link(
    State(state): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<AddLinkForm>,
) -> Response {
    let me = match who(&state, &headers) {
        Ok(me) => me,
        Err(r) => return *r,
    };
    let (Ok(element), Ok(start), Ok(end)) =
        (form.element.parse(), form.start.parse(), form.end.parse())
    else {
        return failed("Select the quote in the scene first.");
    };
    let Some(kind) = LINKS.iter().find(|k| k.as_str() == form.kind).copied() else {
        return failed(format!("unknown link {:?}", form.kind));
    };
    let new = NewLink {
        cause: form.cause,
        effect: form.effect,
        kind,
        element,
        start,
        end,
    };
    let app = state.app.lock().expect("review app");
    match app.add_link(&me, &form.nonce, &new) {
        Ok(id) => Redirect::to(&format!(
            "/add?scene={}&added={}",
            form.scene,
            id.replace('#', "%23").replace('&', "%26")
        ))
        .into_response(),
        Err(e) => failed(e),
    }
}

/// The causal links a reviewer may add.
const LINKS: [EdgeKind; 5] = [
    EdgeKind::Causes,
    EdgeKind::Enables,
    EdgeKind::Prevents,
    EdgeKind::Motivates,
    EdgeKind::Triggers,
];

fn download(state: &AppState, headers: &HeaderMap, csv: bool) -> Response {
    if let Err(r) = who(state, headers) {
        return *r;
    }
    let app = state.app.lock().expect("review app");
    match app.decisions(csv) {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                if csv {
                    "text/csv; charset=utf-8"
                } else {
                    "application/jsonl; charset=utf-8"
                },
            )],
            text,
        )
            .into_response(),
        Err(e) => failed(e),
    }
}

async fn decisions_csv(State(state): State<Shared>, headers: HeaderMap) -> Response {
    download(&state, &headers, true)
}

async fn decisions_jsonl(State(state): State<Shared>, headers: HeaderMap) -> Response {
    download(&state, &headers, false)
}
