//! Who may use a web front end (the review app, the web walker): anyone on
//! this machine by name (loopback only), each person by their own link, or
//! anyone with the password under the name they give. A signed-in person
//! holds a random session cookie (HttpOnly, SameSite=Strict); tokens and
//! passwords are compared and dropped, never shown, logged or stored, and the
//! `Debug` form of [`SignIn`] names only its mode.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Path as UrlPath, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use rand::Rng;

use crate::text::escape_html;

/// Who may sign in.
#[derive(Clone)]
pub enum Access {
    /// Anyone who reaches the server, under the name they give (loopback only).
    Open,
    /// Each person by the link with their token: token → name.
    Tokens(HashMap<String, String>),
    /// Anyone with this password, under the name they give.
    Password(String),
}

impl Access {
    /// The access a server on `host` gets: a link per person in `people`,
    /// else the `password`, else open on loopback; beyond loopback with
    /// neither it is refused (the message names the flag `people_flag` and
    /// the variable `password_var` that would allow it).
    pub fn choose(
        host: IpAddr,
        people: &[String],
        password: Option<String>,
        people_flag: &str,
        password_var: &str,
    ) -> Result<Access, String> {
        if !people.is_empty() {
            return Ok(Access::Tokens(
                people.iter().map(|n| (new_token(), n.clone())).collect(),
            ));
        }
        match password.filter(|p| !p.is_empty()) {
            Some(p) => Ok(Access::Password(p)),
            None if host.is_loopback() => Ok(Access::Open),
            None => Err(format!(
                "--host {host} lets anyone who reaches it in; name the people ({people_flag} NAME, \
                 each gets their own link) or set a password in ${password_var}"
            )),
        }
    }
}

/// A random token: 32 hex digits.
pub fn new_token() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a sign-in or a page is refused, with what to tell the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: StatusCode,
    /// What the page says.
    pub message: &'static str,
}

const USE_YOUR_LINK: Refusal = Refusal {
    status: StatusCode::UNAUTHORIZED,
    message: "Open the link you were given (links change when the server restarts).",
};

/// The sign-in state of one server.
pub struct SignIn {
    access: Access,
    cookie: &'static str,
    sessions: Mutex<HashMap<String, String>>,
    owned: Option<&'static str>,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.access {
            Access::Open => "open on loopback".to_owned(),
            Access::Tokens(t) => format!("{} personal links", t.len()),
            Access::Password(_) => "password".to_owned(),
        };
        f.debug_struct("SignIn").field("mode", &mode).finish()
    }
}

impl SignIn {
    /// Sign-in by `access`, its sessions in the cookie named `cookie`.
    pub fn new(access: Access, cookie: &'static str) -> SignIn {
        SignIn {
            access,
            cookie,
            sessions: Mutex::new(HashMap::new()),
            owned: None,
        }
    }

    /// Paths under `prefix` belong to the person named by their next segment
    /// (`/test/ana/…` is ana's): [`guard`] lets nobody else in.
    pub fn with_owned_paths(mut self, prefix: &'static str) -> SignIn {
        self.owned = Some(prefix);
        self
    }

    /// Whether anyone may use the server without signing in (open access).
    pub fn is_open(&self) -> bool {
        matches!(self.access, Access::Open)
    }

    /// Each person's link on a server at `base` (`http://ADDR`), by name.
    pub fn links(&self, base: &str) -> Vec<(String, String)> {
        let Access::Tokens(tokens) = &self.access else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = tokens
            .iter()
            .map(|(t, n)| (n.clone(), format!("{base}/login/{t}")))
            .collect();
        out.sort();
        out
    }

    /// The signed-in person of a request, from its session cookie.
    pub fn person(&self, headers: &HeaderMap) -> Option<String> {
        let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
        let sid = cookies
            .split(';')
            .filter_map(|c| c.trim().split_once('='))
            .find(|(k, _)| *k == self.cookie)?
            .1;
        self.sessions.lock().ok()?.get(sid).cloned()
    }

    /// The sign-in form (a name, and the password when one is set) under the
    /// heading `question`, posting to `/login`; or why there is no form.
    pub fn form(&self, question: &str) -> Result<String, Refusal> {
        let password = match &self.access {
            Access::Tokens(_) => return Err(USE_YOUR_LINK),
            Access::Password(_) => {
                "<label>password <input type=\"password\" name=\"password\"></label> "
            }
            Access::Open => "",
        };
        Ok(format!(
            "<h1>{question}</h1><form method=\"post\" action=\"/login\">\
             <label>your name <input name=\"name\" id=\"name\" autofocus required maxlength=\"64\"></label> \
             {password}<button type=\"submit\">start</button></form>"
        ))
    }

    /// Signs `name` in with `password` (ignored when open): the `Set-Cookie` value.
    pub fn by_name(&self, name: &str, password: &str) -> Result<String, Refusal> {
        let name = name.trim();
        if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
            return Err(Refusal {
                status: StatusCode::BAD_REQUEST,
                message: "A name is 1-64 printable characters.",
            });
        }
        match &self.access {
            Access::Tokens(_) => Err(USE_YOUR_LINK),
            Access::Password(p) if p != password => Err(Refusal {
                status: StatusCode::UNAUTHORIZED,
                message: "Wrong password.",
            }),
            _ => Ok(self.session_for(name)),
        }
    }

    /// Signs in the person whose link holds `token`: the `Set-Cookie` value.
    pub fn by_token(&self, token: &str) -> Result<String, Refusal> {
        match &self.access {
            Access::Tokens(t) => t
                .get(token)
                .map(|name| self.session_for(name))
                .ok_or(USE_YOUR_LINK),
            _ => Err(USE_YOUR_LINK),
        }
    }

    fn session_for(&self, name: &str) -> String {
        let sid = new_token();
        if let Ok(mut s) = self.sessions.lock() {
            s.insert(sid.clone(), name.to_owned());
        }
        format!("{}={sid}; HttpOnly; SameSite=Strict; Path=/", self.cookie)
    }
}

/// How a front end draws a page: (title, body HTML) → the page.
pub type PageFn = fn(&str, &str) -> Html<String>;

#[derive(Clone)]
struct Pages {
    signin: Arc<SignIn>,
    question: &'static str,
    page: PageFn,
}

/// The sign-in routes: `/login` (the form, and its POST) and `/login/{token}`
/// (a person's link), drawn by `page` under the heading `question`.
pub fn routes(signin: Arc<SignIn>, question: &'static str, page: PageFn) -> Router {
    Router::new()
        .route("/login", get(login_page).post(login))
        .route("/login/{token}", get(login_token))
        .with_state(Pages {
            signin,
            question,
            page,
        })
}

fn refused(pages: &Pages, r: Refusal) -> Response {
    (
        r.status,
        (pages.page)("sign in", &format!("<p>{}</p>", escape_html(r.message))),
    )
        .into_response()
}

fn answer(pages: &Pages, result: Result<String, Refusal>) -> Response {
    match result {
        Ok(cookie) => (
            StatusCode::SEE_OTHER,
            [
                (header::SET_COOKIE, cookie),
                (header::LOCATION, "/".to_owned()),
            ],
        )
            .into_response(),
        Err(r) => refused(pages, r),
    }
}

async fn login_page(State(pages): State<Pages>) -> Response {
    match pages.signin.form(pages.question) {
        Ok(form) => (pages.page)("sign in", &form).into_response(),
        Err(r) => refused(&pages, r),
    }
}

#[derive(serde::Deserialize)]
struct LoginForm {
    name: String,
    #[serde(default)]
    password: String,
}

async fn login(State(pages): State<Pages>, Form(form): Form<LoginForm>) -> Response {
    let result = pages.signin.by_name(&form.name, &form.password);
    answer(&pages, result)
}

async fn login_token(State(pages): State<Pages>, UrlPath(token): UrlPath<String>) -> Response {
    let result = pages.signin.by_token(&token);
    answer(&pages, result)
}

/// Middleware: unless access is open, every page but the sign-in ones needs a
/// signed-in person (strangers go to `/login`), and an owned path only its owner.
pub async fn guard(
    State(signin): State<Arc<SignIn>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if signin.is_open() || path == "/login" || path.starts_with("/login/") {
        return next.run(request).await;
    }
    let Some(person) = signin.person(request.headers()) else {
        return Redirect::to("/login").into_response();
    };
    if let Some(rest) = signin.owned.and_then(|p| path.strip_prefix(p)) {
        if percent_decoded(rest.split('/').next().unwrap_or("")) != person {
            return (
                StatusCode::FORBIDDEN,
                Html("<p>This page is another person's.</p>"),
            )
                .into_response();
        }
    }
    next.run(request).await
}

/// `%41b` → `Ab` (invalid escapes kept as they are).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn cookie_of(set: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            set.split(';').next().unwrap().parse().unwrap(),
        );
        h
    }

    #[test]
    fn escapes_decode_and_bad_ones_stay() {
        assert_eq!(percent_decoded("a%20b%C3%A9"), "a bé");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz"), "%zz");
    }

    #[test]
    fn beyond_loopback_someone_must_be_named_or_a_password_set() {
        let any = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
        let local = IpAddr::V4(Ipv4Addr::LOCALHOST);
        assert!(Access::choose(any, &[], None, "--x", "V").is_err());
        assert!(matches!(
            Access::choose(local, &[], None, "--x", "V"),
            Ok(Access::Open)
        ));
        assert!(matches!(
            Access::choose(any, &[], Some("pw".into()), "--x", "V"),
            Ok(Access::Password(_))
        ));
        assert!(matches!(
            Access::choose(any, &["ana".into()], None, "--x", "V"),
            Ok(Access::Tokens(_))
        ));
    }

    #[test]
    fn links_sign_their_person_in_and_nothing_else_does() {
        let access = Access::choose(
            IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            &["ana".into(), "ben".into()],
            None,
            "--x",
            "V",
        )
        .unwrap();
        let s = SignIn::new(access, "c");
        let links = s.links("http://h");
        assert_eq!(links.len(), 2);
        let token = links[0].1.rsplit('/').next().unwrap();
        let set = s.by_token(token).unwrap();
        assert_eq!(s.person(&cookie_of(&set)).as_deref(), Some("ana"));
        assert_eq!(s.by_token("nope"), Err(USE_YOUR_LINK));
        assert_eq!(s.by_name("ana", ""), Err(USE_YOUR_LINK));
        assert_eq!(s.person(&cookie_of("c=forged")), None);
        // The debug form names no token.
        assert!(!format!("{s:?}").contains(token));
    }

    #[test]
    fn the_form_asks_for_the_password_only_when_one_is_set_and_links_have_none() {
        assert!(!SignIn::new(Access::Open, "c")
            .form("who?")
            .unwrap()
            .contains("password"));
        assert!(SignIn::new(Access::Password("p".into()), "c")
            .form("who?")
            .unwrap()
            .contains("password"));
        assert!(SignIn::new(Access::Tokens(HashMap::new()), "c")
            .form("who?")
            .is_err());
    }

    #[test]
    fn a_password_signs_in_any_name_and_a_wrong_one_nobody() {
        let s = SignIn::new(Access::Password("secret".into()), "c");
        assert_eq!(
            s.by_name("ana", "wrong").unwrap_err().status,
            StatusCode::UNAUTHORIZED
        );
        let set = s.by_name(" ana ", "secret").unwrap();
        assert_eq!(s.person(&cookie_of(&set)).as_deref(), Some("ana"));
        assert!(!format!("{s:?}").contains("secret"));
        assert_eq!(
            s.by_name("", "secret").unwrap_err().status,
            StatusCode::BAD_REQUEST
        );
    }
}
