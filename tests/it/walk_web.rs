//! `moviegraph walk --serve`: a person answers a hand-made tree in test mode with plain
//! HTTP requests; the run lands in the store as a human run, scored by the eval code;
//! two annotators get an agreement table; keyframe requests outside what the trees
//! reference are refused; headless chromium renders a page (skipped without chromium).

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use moviegraph::store::Store;
use moviegraph::trees::jsonl::read_trees;
use moviegraph::walk::session::human_run_id;

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The workspace of the hand-made tree: trees/tiny.jsonl, keyframes/tiny/k1.png, and
/// keyframes/tiny/k2.png, a symlink to a file outside the keyframes folder.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("trees")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/walk/tiny.jsonl"),
        root.join("trees/tiny.jsonl"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("keyframes/tiny")).unwrap();
    std::fs::write(root.join("keyframes/tiny/k1.png"), PNG).unwrap();
    std::fs::write(root.join("keyframes/tiny/unreferenced.png"), PNG).unwrap();
    std::fs::write(root.join("outside.png"), PNG).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("outside.png"), root.join("keyframes/tiny/k2.png"))
        .unwrap();
    dir
}

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(root: &Path) -> Server {
    serve_with(root, &[])
}

fn serve_with(root: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args([
            "walk",
            "--serve",
            "--port",
            "0",
            "trees/tiny.jsonl",
            "--store",
            "ws.db",
        ])
        .args(extra)
        .current_dir(root)
        .env_remove("MOVIEGRAPH_STORE")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|s| s.strip_suffix('/'))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "bound to loopback: {addr}");
    Server { child, addr }
}

/// One HTTP/1.1 request over a fresh connection: (status, location header, body).
fn http(addr: &str, method: &str, path: &str, form: Option<&str>) -> (u16, String, String) {
    let r = common::http::request(addr, method, path, form, None);
    (r.status, r.header("location").to_owned(), r.body)
}

/// Answers the question the test page shows, checking it is `node`.
fn answer(addr: &str, annotator: &str, node: &str, fields: &str) {
    let (status, _, page) = http(addr, "GET", &format!("/test/{annotator}"), None);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(&format!("name=node value=\"{node}\"")),
        "expected question {node}:\n{page}"
    );
    // The shared inline stylesheet names a `.gold` class; what the page shows
    // comes after it.
    let shown = page.split("</style>").last().unwrap_or(&page);
    assert!(
        !shown.contains("GOLD") && !shown.contains("gold"),
        "test mode shows no gold:\n{shown}"
    );
    // The options once, as choices; no instruction written for models.
    let prompt = shown.split("<form").next().unwrap_or("");
    assert!(
        !shown.contains("square brackets") && !prompt.contains("\nA. "),
        "{shown}"
    );
    let form = format!("tree=tiny%2Ft1&node={}&{fields}", node);
    let (status, location, _) = http(
        addr,
        "POST",
        &format!("/test/{annotator}/answer"),
        Some(&form),
    );
    assert_eq!(status, 303);
    assert_eq!(location, format!("/test/{annotator}"));
}

#[test]
fn a_person_answers_a_tree_over_http_and_the_run_is_stored_and_scored() {
    let ws = workspace();
    let root = ws.path();
    let server = serve(root);
    let addr = server.addr.as_str();
    // An explore walker beside it: gold answers live only there.
    let explorer = serve_with(root, &["--explore"]);
    let explore_addr = explorer.addr.as_str();

    // Index and explore pages: plain HTML, no external reference.
    let (status, _, index) = http(addr, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(
        index.contains("1 trees") && index.contains("Annotator"),
        "{index}"
    );
    assert!(!index.contains("/explore/"), "a test walker links no gold");
    let (status, _, refused) = http(addr, "GET", "/explore/0/n1", None);
    assert_eq!(status, 403, "a test walker serves no gold");
    assert!(refused.contains("--explore") && !refused.contains("plausible motive"));
    let (status, _, explore_index) = http(explore_addr, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(explore_index.contains("tiny/t1") && !explore_index.contains("Annotator"));
    for (method, path, body) in [
        ("POST", "/test", Some("annotator=eve")),
        ("GET", "/test/eve", None),
        (
            "POST",
            "/test/eve/answer",
            Some("tree=tiny%2Ft1&node=n1&choice=A"),
        ),
    ] {
        let (status, _, _) = http(explore_addr, method, path, body);
        assert_eq!(
            status, 403,
            "an explore walker records no test: {method} {path}"
        );
    }
    let (status, _, explore) = http(explore_addr, "GET", "/explore/0/n1", None);
    assert_eq!(status, 200);
    assert!(
        explore.contains("gold") && explore.contains("plausible motive the film does not support")
    );
    assert!(
        explore.contains("mental_state:mara-believes-key-lost"),
        "without the film's graph, graph elements are shown by id"
    );
    // With the film's graph beside the trees (graphs/tiny.json, as `run` writes
    // it), a new explorer names them in words and quotes.
    std::fs::create_dir_all(root.join("graphs")).unwrap();
    std::fs::write(
        root.join("graphs/tiny.json"),
        r#"{"format":"moviegraph.graph","nodes":[{"id":"mental_state:mara-believes-key-lost",
            "kind":"mental_state","name":"Mara believes she lost the key",
            "evidence":[{"quote":"I must have dropped it off the pier."}]}],"edges":[]}"#,
    )
    .unwrap();
    let named = serve_with(root, &["--explore"]);
    let (_, _, words) = http(named.addr.as_str(), "GET", "/explore/0/n1", None);
    assert!(
        words.contains(
            "Mara believes she lost the key (mental state) — “I must have dropped it off the pier.”"
        ),
        "{words}"
    );
    for page in [&index, &explore_index, &explore] {
        assert!(
            !page.contains("http://") && !page.contains("https://") && !page.contains("<script")
        );
    }

    // Test mode: ana takes the path A → n2 (multi, answers A and C), then n3 in phase 2.
    answer(addr, "ana", "n1", "choice=A");
    // A stale form for n1 again is not taken as the answer to n2.
    let (status, _, _) = http(
        addr,
        "POST",
        "/test/ana/answer",
        Some("tree=tiny%2Ft1&node=n1&choice=B"),
    );
    assert_eq!(status, 303);
    answer(addr, "ana", "n2", "choice_A=on&choice_C=on");
    let (_, _, page) = http(addr, "GET", "/test/ana", None);
    assert!(page.contains("phase 2: thought experiment"), "{page}");
    assert!(
        page.contains("Thought experiment. Assuming the previous answer was"),
        "{page}"
    );
    answer(addr, "ana", "n3", "text=she+believes+someone+took+the+key");
    let (_, _, done) = http(addr, "GET", "/test/ana", None);
    assert!(done.contains("Run complete: 1 trees, 3 answers"), "{done}");

    // Ben walks the same tree differently: B (→ n3 open, wrong), then n2 in phase 2.
    answer(addr, "ben", "n1", "choice=B");
    answer(addr, "ben", "n3", "text=the+sea");
    answer(addr, "ben", "n2", "choice_A=on&choice_B=on");

    // Keyframes: the referenced image, nothing else.
    let (status, _, body) = http(addr, "GET", "/keyframes/tiny/k1.png", None);
    assert_eq!(status, 200);
    assert!(body.as_bytes().starts_with(&PNG[..4]) || body.starts_with("\u{fffd}PNG"));
    for (path, refused) in [
        ("/keyframes/tiny/unreferenced.png", 404),
        ("/keyframes/../../etc/passwd", 404),
        ("/../../etc/passwd", 404),
        ("/keyframes/..%2F..%2Fetc%2Fpasswd", 404),
        ("/keyframes/%2e%2e/%2e%2e/etc/passwd", 404),
        ("/keyframes/tiny/..%2F..%2Foutside.png", 404),
        ("/keyframes/%2Fetc%2Fpasswd", 404),
        ("/keyframes/tiny/", 404),
        ("/keyframes/tiny", 404),
    ] {
        let (status, _, _) = http(addr, "GET", path, None);
        assert_eq!(status, refused, "{path}");
    }
    #[cfg(unix)]
    {
        let (status, _, _) = http(addr, "GET", "/keyframes/tiny/k2.png", None);
        assert_eq!(
            status, 403,
            "a symlink out of the keyframes folder is refused"
        );
    }

    // Headless chromium renders the explore page.
    match which("chromium") {
        None => println!("skipping the chromium screenshot: no chromium on PATH"),
        Some(chromium) => {
            let profile = tempfile::tempdir().unwrap();
            let shot = root.join("explore.png");
            let ok = screenshot(
                &chromium,
                profile.path(),
                &shot,
                &format!("http://{explore_addr}/explore/0/n1"),
            );
            assert!(ok, "chromium ran");
            let bytes = std::fs::read(&shot).unwrap();
            assert!(
                bytes.starts_with(&PNG[..8]) && bytes.len() > 1000,
                "a PNG screenshot"
            );
        }
    }
    // SIGKILL, no shutdown: every answer the walker acknowledged with its redirect is
    // already stored (the reply used to go out before the store had it).
    drop(server);
    drop(explorer);
    {
        let trees = read_trees(&root.join("trees/tiny.jsonl")).unwrap();
        let store = Store::open(&root.join("ws.db")).unwrap();
        let ben = store.eval_answers(&human_run_id("ben", &trees)).unwrap();
        assert_eq!(ben.len(), 3, "ben's three acknowledged answers are stored");
    }

    // The stored runs: subject human, annotators named, scored by the eval code.
    let trees = read_trees(&root.join("trees/tiny.jsonl")).unwrap();
    let ana = common::walk::check_anas_run(root);

    // The report labels both human runs and reports their agreement.
    let ben = human_run_id("ben", &trees);
    let out = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args([
            "eval",
            "report",
            &ana,
            &ben,
            "--store",
            "ws.db",
            "--bootstrap",
            "0",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        report.contains("subject human (ana)") && report.contains("subject human (ben)"),
        "{report}"
    );
    // Shared: all three questions. Choices: n1 A/B (differ), n2 {A,C}/{A,B} (differ):
    // same answer 0/2, and no category in common, so chance is 0 and κ = 0. Correctness: ana (1,0,1), ben (0,1,0): 0/3 agree, κ = -0.8
    // (po = 0, pe = 2/3·1/3 + 1/3·2/3 = 4/9, κ = -4/9 / (5/9)).
    let line = report
        .lines()
        .find(|l| l.starts_with("ana / ben"))
        .unwrap_or_else(|| panic!("no agreement row:\n{report}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        cells[3..],
        ["2", "0.000", "0.000", "3", "0.000", "-0.800"],
        "{line}"
    );
}

/// A figure of a process's /proc status (`Threads:`, `VmRSS:` in kB), or None
/// where there is no /proc.
fn proc_status(pid: u32, field: &str) -> Option<usize> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
}

/// Starts a test for `name` as the start form does, and opens its page.
fn start_as(addr: &str, name: &str) {
    let (status, location, page) = http(addr, "POST", "/test", Some(&format!("annotator={name}")));
    assert_eq!(
        (status, location.as_str()),
        (303, format!("/test/{name}").as_str()),
        "{page}"
    );
    let (status, _, page) = http(addr, "GET", &location, None);
    assert_eq!(status, 200, "{page}");
}

#[test]
fn five_hundred_annotators_keep_memory_and_threads_bounded_and_a_closed_session_resumes() {
    let ws = workspace();
    let server = serve(ws.path());
    let addr = server.addr.as_str();
    let pid = server.child.id();
    for k in 0..20 {
        start_as(addr, &format!("person{k}"));
    }
    let rss_20 = proc_status(pid, "VmRSS:");
    for k in 20..500 {
        start_as(addr, &format!("person{k}"));
    }
    match (
        proc_status(pid, "Threads:"),
        rss_20,
        proc_status(pid, "VmRSS:"),
    ) {
        // Before: one protocol thread and one store connection per name ever
        // seen (304 threads and 712 MB after 300 names). Now at most
        // MAX_LIVE_SESSIONS (16) sessions, and the runtime's threads.
        (Some(threads), Some(before), Some(after)) => {
            eprintln!("500 annotators: {threads} threads, {before} kB after 20 names, {after} kB after 500");
            assert!(threads <= 16 + 12, "{threads} threads for 500 annotators");
            assert!(
                after < before + 64 * 1024,
                "memory grew from {before} kB to {after} kB over 480 more annotators"
            );
        }
        _ => eprintln!("skipped the thread and memory figures: no /proc on this system"),
    }
    // The first annotator's session was closed; their page resumes it.
    let (status, _, page) = http(addr, "GET", "/test/person0", None);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Test mode · person0"), "{page}");
}

#[test]
fn idle_sessions_are_closed_without_a_request_and_resume_with_their_answers() {
    let ws = workspace();
    let server = serve_with(ws.path(), &["--session-idle", "1s"]);
    let addr = server.addr.as_str();
    let pid = server.child.id();
    start_as(addr, "idle0");
    answer(addr, "idle0", "n1", "choice=A");
    let quiet = proc_status(pid, "Threads:");
    for k in 1..12 {
        start_as(addr, &format!("idle{k}"));
    }
    let busy = proc_status(pid, "Threads:");
    // No request for a while: the walker's own sweep closes the sessions.
    std::thread::sleep(Duration::from_millis(2500));
    let after = proc_status(pid, "Threads:");
    if let (Some(quiet), Some(busy), Some(after)) = (quiet, busy, after) {
        eprintln!("threads: {quiet} with one session, {busy} with 12, {after} after 2.5 s idle");
        assert!(
            busy >= quiet + 11,
            "each session holds a thread: {quiet} -> {busy}"
        );
        // The twelve protocol threads end; the closing itself may leave one
        // thread of the runtime's blocking pool waiting for work.
        assert!(
            after + 11 <= busy && after <= quiet,
            "idle sessions closed: {busy} -> {after} (one session: {quiet})"
        );
    }
    // The answer given before the session was closed is kept: a new session
    // resumes at the question after it.
    let (status, _, page) = http(addr, "GET", "/test/idle0", None);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("name=node value=\"n2\""),
        "resumed after n1:\n{page}"
    );
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

/// Runs headless chromium to screenshot `url` into `out`, killed after 90 s.
fn screenshot(chromium: &Path, profile: &Path, out: &Path, url: &str) -> bool {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.display()),
            &format!("--screenshot={}", out.display()),
            "--window-size=1200,900",
            url,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.success() && out.is_file();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn beyond_loopback_the_walker_needs_links_or_a_password_and_a_person_takes_only_their_test() {
    let dir = workspace();
    let refused = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args([
            "walk",
            "--serve",
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "trees/tiny.jsonl",
            "--store",
            "ws.db",
        ])
        .current_dir(dir.path())
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove("MOVIEGRAPH_WALK_PASSWORD")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        common::said(&refused).contains("--person"),
        "{}",
        common::said(&refused)
    );

    let mut child = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args([
            "walk",
            "--serve",
            "--port",
            "0",
            "trees/tiny.jsonl",
            "--store",
            "ws.db",
        ])
        .args(["--person", "ana", "--person", "ben"])
        .current_dir(dir.path())
        .env_remove("MOVIEGRAPH_STORE")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l.trim().to_owned());
    }
    let server = Server {
        addr: lines[0]
            .strip_prefix("listening on http://")
            .and_then(|s| s.strip_suffix('/'))
            .unwrap()
            .to_owned(),
        child,
    };
    let ana_link = lines[1]
        .strip_prefix("person ana: ")
        .expect("ana's link")
        .to_owned();
    // Nobody gets in without a link.
    let (status, location, _) = http(&server.addr, "GET", "/", None);
    assert_eq!((status, location.as_str()), (303, "/login"));
    assert_eq!(http(&server.addr, "GET", "/test/ana", None).0, 303);
    assert_eq!(
        http(&server.addr, "POST", "/login", Some("name=ana")).0,
        401
    );
    let path = &ana_link[ana_link.find("/login/").unwrap()..];
    let r = common::http::request(&server.addr, "GET", path, None, None);
    assert_eq!(r.status, 303);
    let cookie = r.header("set-cookie").split(';').next().unwrap().to_owned();
    // Ana walks as ana, whatever name the form sends, and never as ben.
    let r = common::http::request(
        &server.addr,
        "POST",
        "/test",
        Some("annotator=ben"),
        Some(&cookie),
    );
    assert_eq!((r.status, r.header("location")), (303, "/test/ana"));
    let r = common::http::request(&server.addr, "GET", "/test/ben", None, Some(&cookie));
    assert_eq!(r.status, 403);
    let r = common::http::request(&server.addr, "GET", "/test/ana", None, Some(&cookie));
    assert_eq!(r.status, 200, "{}", r.body);
}
