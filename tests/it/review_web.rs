//! `moviegraph graph review FILM --serve`: people verify the sample film's
//! offline graph. Over plain HTTP, ten reviewers at once lose nothing and
//! store nothing twice, and a server killed mid-decision keeps every decision
//! it acknowledged. In headless Chromium (driven through chromiumoxide;
//! skipped without chromium): accept, reject with a reason, correct a holder,
//! add a state by selecting its quote, and two reviewers who disagree — the
//! store, `graph stats`, `graph export --format gold` and `graph score`
//! reflect exactly those decisions.

use crate::common;
use crate::common::http::request;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use moviegraph::graph::review::Verdict;
use moviegraph::graph::review_store::ReviewStore;
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{Item, Status};
use moviegraph::store::{GraphBuildId, Store};

pub(crate) struct Server {
    child: Child,
    pub(crate) addr: String,
    links: Vec<(String, String)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn film() -> PathBuf {
    common::root().join("screenplays/the-second-key")
}

/// The sample film's offline graph built into a fresh store.
pub(crate) fn built() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ws.db");
    let out = common::moviegraph_offline()
        .args(["graph", "build"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::said(&out));
    (dir, db)
}

/// `graph review --serve` on `db` with `extra` flags; reads its address and
/// the reviewers' links from its first lines.
pub(crate) fn serve(db: &Path, extra: &[&str]) -> Server {
    let reviewers = extra.iter().filter(|a| **a == "--reviewer").count();
    let mut child = common::moviegraph_offline()
        .args(["graph", "review"])
        .arg(film())
        .arg("--store")
        .arg(db)
        .args(["--serve", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|s| s.strip_suffix('/'))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    let mut links = Vec::new();
    for _ in 0..reviewers {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        let (name, link) = l
            .trim()
            .strip_prefix("reviewer ")
            .unwrap()
            .split_once(": ")
            .unwrap();
        links.push((name.to_owned(), link.to_owned()));
    }
    Server { child, addr, links }
}

/// The value of the first `name="FIELD" value="…"` on a page.
pub(crate) fn field(page: &str, name: &str) -> String {
    let key = format!("name=\"{name}\" value=\"");
    let at = page
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {page}"))
        + key.len();
    let raw = &page[at..at + page[at..].find('"').unwrap()];
    raw.replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
        .replace("&#39;", "'")
}

pub(crate) fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Signs `name` in (open access) and returns the session cookie.
pub(crate) fn sign_in(addr: &str, name: &str) -> String {
    let r = request(addr, "POST", "/login", Some(&format!("name={name}")), None);
    assert_eq!(r.status, 303, "{}", r.body);
    r.header("set-cookie").split(';').next().unwrap().to_owned()
}

pub(crate) fn latest_build(store: &Store) -> GraphBuildId {
    moviegraph::workspace::graph::latest_build(store, "the-second-key")
        .unwrap()
        .0
}

#[test]
fn ten_reviewers_at_once_lose_nothing_store_nothing_twice_and_a_kill_keeps_what_was_acknowledged() {
    let (_dir, db) = built();
    let server = serve(&db, &[]);
    let acknowledged: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..10)
            .map(|r| {
                let addr = server.addr.clone();
                s.spawn(move || {
                    let cookie = sign_in(&addr, &format!("reviewer{r}"));
                    let mut nonces = Vec::new();
                    for _ in 0..5 {
                        let page = request(&addr, "GET", "/next?q=sample:80:3", None, Some(&cookie)).body;
                        let (nonce, candidate) = (field(&page, "nonce"), field(&page, "candidate"));
                        let form = format!("nonce={nonce}&candidate={}&q=sample%3A80%3A3&decision=reject&reason=not_supported", encode(&candidate));
                        // The same form twice, as a double click sends it.
                        for _ in 0..2 {
                            let r = request(&addr, "POST", "/decide", Some(&form), Some(&cookie));
                            assert_eq!(r.status, 303, "{}", r.body);
                        }
                        nonces.push(nonce);
                    }
                    nonces
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    drop(server);
    let store = Store::open(&db).unwrap();
    let stored = store.review_all(latest_build(&store)).unwrap();
    assert_eq!(stored.len(), 50, "every decision once");
    let mut ids: Vec<&str> = stored.iter().map(|(n, _)| n.as_str()).collect();
    ids.sort_unstable();
    let mut sent: Vec<&str> = acknowledged.iter().map(String::as_str).collect();
    sent.sort_unstable();
    assert_eq!(ids, sent);
    // Precision from the sample: every reviewed accepted candidate was rejected.
    let mut decided: Vec<&str> = stored.iter().map(|(_, d)| d.candidate.as_str()).collect();
    decided.sort_unstable();
    decided.dedup();
    drop(store);
    let stats = common::moviegraph_offline()
        .args(["graph", "stats"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .arg("--json")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let all = v["review"]["precision"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == "all")
        .unwrap()[1]
        .clone();
    assert_eq!(all["right"], 0, "{all}");
    assert_eq!(all["of"], decided.len(), "{all}");
    let expected = moviegraph::graph::review::wilson(0, decided.len()).unwrap();
    assert!(
        (all["high"].as_f64().unwrap() - expected.high).abs() < 1e-9,
        "{all}"
    );
    // Reviewers working at once get different candidates (each shown one is theirs for a while).
    assert!(
        decided.len() >= 45,
        "{} distinct candidates for 50 decisions",
        decided.len()
    );

    // Killed while decisions stream in: every acknowledged one is stored.
    let mut server = serve(&db, &[]);
    let cookie = sign_in(&server.addr, "kim");
    let mut acked = Vec::new();
    let started = Instant::now();
    loop {
        let page = request(&server.addr, "GET", "/next?q=scene:2", None, Some(&cookie)).body;
        let nonce = field(&page, "nonce");
        let form = format!(
            "nonce={nonce}&candidate={}&q=scene%3A2&decision=reject&reason=unreadable",
            encode(&field(&page, "candidate"))
        );
        if acked.len() == 8 {
            // Kill it while this decision is on its way.
            let addr = server.addr.clone();
            let pending = std::thread::spawn(move || {
                common::http::try_request(&addr, "POST", "/decide", Some(&form), Some(&cookie))
                    .ok()
                    .map(|r| r.status)
            });
            server.child.kill().unwrap();
            server.child.wait().unwrap();
            if pending.join().unwrap() == Some(303) {
                acked.push(nonce);
            }
            break;
        }
        assert_eq!(
            request(&server.addr, "POST", "/decide", Some(&form), Some(&cookie)).status,
            303
        );
        acked.push(nonce);
        assert!(started.elapsed() < Duration::from_secs(60));
    }
    let store = Store::open(&db).unwrap();
    let kims: Vec<String> = store
        .review_all(latest_build(&store))
        .unwrap()
        .into_iter()
        .filter(|(_, d)| d.reviewer == "kim")
        .map(|(n, _)| n)
        .collect();
    for n in &acked {
        assert!(kims.contains(n), "acknowledged decision {n} lost");
    }
    assert!(kims.len() <= acked.len() + 1);
}

#[test]
fn beyond_loopback_the_app_needs_reviewer_links_or_a_password_and_links_sign_in() {
    let (_dir, db) = built();
    let out = common::moviegraph_offline()
        .args(["graph", "review"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .args(["--serve", "--port", "0", "--host", "0.0.0.0"])
        .env_remove("MOVIEGRAPH_REVIEW_PASSWORD")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        common::said(&out).contains("--reviewer"),
        "{}",
        common::said(&out)
    );
    let server = serve(&db, &["--reviewer", "ana", "--reviewer", "ben"]);
    // Nobody signs in by name, and a wrong link is refused.
    let r = request(&server.addr, "POST", "/login", Some("name=ana"), None);
    assert_eq!(r.status, 401);
    assert_eq!(
        request(&server.addr, "GET", "/login/0123", None, None).status,
        401
    );
    assert_eq!(
        request(&server.addr, "GET", "/next?q=escalated", None, None).status,
        303
    );
    let (name, link) = &server.links[0];
    assert_eq!(name, "ana");
    let path = &link[link.find("/login/").unwrap()..];
    let r = request(&server.addr, "GET", path, None, None);
    assert_eq!(r.status, 303);
    let cookie = r.header("set-cookie").split(';').next().unwrap().to_owned();
    let home = request(&server.addr, "GET", "/", None, Some(&cookie)).body;
    assert!(home.contains("<b id=\"me\">ana</b>"), "{home}");
    // The token is in no page.
    assert!(!home.contains(&path["/login/".len()..]));
    // Only keyframes the graph's evidence names are served.
    for bad in [
        "../Cargo.toml",
        "keyframes/the-second-key/../../Cargo.toml",
        "Cargo.toml",
    ] {
        let r = request(
            &server.addr,
            "GET",
            &format!("/keyframe?path={}", encode(bad)),
            None,
            Some(&cookie),
        );
        assert_eq!(r.status, 404, "{bad}");
    }
}

/// The browser part: chromium driven through the DevTools protocol.
mod browser {
    use super::*;
    use chromiumoxide::browser::{Browser, BrowserConfig};
    use chromiumoxide::Page;
    use futures::StreamExt;

    pub async fn open(chromium: &Path, profile: &Path) -> (Browser, tokio::task::JoinHandle<()>) {
        let config = BrowserConfig::builder()
            .chrome_executable(chromium)
            .user_data_dir(profile)
            .no_sandbox()
            .window_size(1100, 1150)
            .viewport(chromiumoxide::handler::viewport::Viewport {
                width: 1100,
                height: 1150,
                ..Default::default()
            })
            .arg("--disable-gpu")
            .arg("--disable-dev-shm-usage")
            .build()
            .unwrap();
        let (browser, mut handler) = Browser::launch(config).await.expect("chromium starts");
        let events = tokio::spawn(async move { while handler.next().await.is_some() {} });
        (browser, events)
    }

    pub async fn text(page: &Page, selector: &str) -> String {
        page.find_element(selector)
            .await
            .unwrap_or_else(|e| panic!("{selector}: {e}"))
            .inner_text()
            .await
            .unwrap()
            .unwrap_or_default()
    }

    pub async fn value(page: &Page, js: &str) -> String {
        page.evaluate(js)
            .await
            .unwrap()
            .into_value::<String>()
            .unwrap()
    }

    /// When the current document was loaded: a new page has a new one.
    async fn loaded(page: &Page) -> String {
        value(page, "String(performance.timeOrigin)").await
    }

    /// Waits (up to 20 s) until a document newer than `before` has loaded.
    async fn next_page(page: &Page, before: &str) {
        let started = Instant::now();
        loop {
            if let Ok(r) = page
                .evaluate(
                    "document.readyState === 'complete' ? String(performance.timeOrigin) : ''",
                )
                .await
            {
                let now = r.into_value::<String>().unwrap_or_default();
                if !now.is_empty() && now != before {
                    return;
                }
            }
            assert!(started.elapsed() < Duration::from_secs(20), "no new page");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Presses `key` on the page and waits for the page it leads to.
    pub async fn press(page: &Page, key: &str) {
        let before = loaded(page).await;
        page.find_element("body")
            .await
            .unwrap()
            .press_key(key)
            .await
            .unwrap();
        next_page(page, &before).await;
    }

    /// Clicks `selector` and waits for the page it leads to.
    pub async fn click(page: &Page, selector: &str) {
        let before = loaded(page).await;
        page.find_element(selector)
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        next_page(page, &before).await;
    }

    pub async fn goto(page: &Page, url: &str) {
        page.goto(url).await.unwrap();
        page.wait_for_navigation().await.unwrap();
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

#[test]
fn two_reviewers_in_the_browser_accept_reject_correct_add_and_disagree() {
    let Some(chromium) = which("chromium") else {
        println!("skipping the review app in the browser: no chromium on PATH");
        return;
    };
    let (dir, db) = built();
    let server = serve(
        &db,
        &["--reviewer", "ana", "--reviewer", "ben", "--overlap", "2"],
    );
    let base = format!("http://{}", server.addr);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (accepted, rejected, corrected, added, disputed, rate) = runtime.block_on(async {
        use browser::*;
        let (ana_browser, ana_events) = open(&chromium, &dir.path().join("ana")).await;
        let ana = ana_browser.new_page("about:blank").await.unwrap();
        goto(&ana, &server.links[0].1).await;
        assert_eq!(text(&ana, "#me").await, "ana");

        // Accept (key a), then reject as not supported (key 5).
        goto(&ana, &format!("{base}/next?q=scene:2")).await;
        let accepted = value(&ana, "document.querySelector('input[name=candidate]').value").await;
        press(&ana, "a").await;
        let rejected = value(&ana, "document.querySelector('input[name=candidate]').value").await;
        assert_ne!(accepted, rejected);
        press(&ana, "5").await;

        // Correct a belief's holder with the form.
        goto(&ana, &format!("{base}/next?q=kind:belief")).await;
        if let Some(out) = std::env::var_os("MOVIEGRAPH_REVIEW_SCREENSHOT") {
            // The README's picture: `MOVIEGRAPH_REVIEW_SCREENSHOT=docs/review-web.png
            // cargo test --release --test it review_web::two`.
            let params = chromiumoxide::page::ScreenshotParams::builder().build();
            ana.save_screenshot(params, Path::new(&out)).await.unwrap();
        }
        let corrected = value(&ana, "document.querySelector('input[name=candidate]').value").await;
        let holder = value(
            &ana,
            "(function(){var s=document.getElementById('holder');var c=document.querySelector('.claim').textContent;\
             for(var i=1;i<s.options.length;i++){if(c.indexOf(s.options[i].text)!==0){s.selectedIndex=i;return s.value;}}return '';})()",
        )
        .await;
        assert!(!holder.is_empty());
        click(&ana, "#save-correction").await;

        // Add a state: select words of one line of scene 2 as its quote.
        goto(&ana, &format!("{base}/add?scene=2")).await;
        let quote = value(
            &ana,
            "(function(){var p=[...document.querySelectorAll('#scene p.dialogue')].find(p=>p.textContent.indexOf('Until Friday')>=0);\
             var t=p.firstChild;var r=document.createRange();r.setStart(t,0);r.setEnd(t,12);\
             var s=window.getSelection();s.removeAllRanges();s.addRange(r);\
             p.dispatchEvent(new MouseEvent('mouseup',{bubbles:true}));return document.getElementById('quote').textContent;})()",
        )
        .await;
        assert_eq!(quote, "Until Friday");
        ana.find_element("#content").await.unwrap().click().await.unwrap().type_str("sell the ring on Friday").await.unwrap();
        value(&ana, "(function(){var s=document.getElementById('attitude');s.value='intention';return s.value;})()").await;
        click(&ana, "#save").await;
        let added = text(&ana, "#added code").await;

        // Ben sees what ana accepted (overlap 2) and rejects it: people disagree.
        let (ben_browser, ben_events) = open(&chromium, &dir.path().join("ben")).await;
        let ben = ben_browser.new_page("about:blank").await.unwrap();
        goto(&ben, &server.links[1].1).await;
        goto(&ben, &format!("{base}/next?q=scene:2")).await;
        let first = value(&ben, "document.querySelector('input[name=candidate]').value").await;
        assert_eq!(first, accepted, "ben gets the scene in the same order");
        press(&ben, "1").await;
        // Then ben agrees with ana on the one she rejected.
        press(&ben, "5").await;

        // A scripted reviewer's pace, end to end (printed, not asserted).
        let started = Instant::now();
        goto(&ben, &format!("{base}/next?q=scene:5")).await;
        let mut n = 0;
        while n < 20 && ben.find_element("#accept").await.is_ok() {
            press(&ben, "a").await;
            n += 1;
        }
        let rate = f64::from(n) / started.elapsed().as_secs_f64() * 60.0;
        let disputed = accepted.clone();
        drop((ana_browser, ben_browser));
        ana_events.abort();
        ben_events.abort();
        (accepted, rejected, corrected, added, disputed, rate)
    });
    println!("scripted reviewer in chromium: {rate:.0} decisions a minute");
    drop(server);

    // The store: exactly those decisions.
    let store = Store::open(&db).unwrap();
    let build = latest_build(&store);
    let decisions = store.review_all(build).unwrap();
    let of = |who: &str, c: &str| -> Vec<&Verdict> {
        decisions
            .iter()
            .filter(|(_, d)| d.reviewer == who && d.candidate == c)
            .map(|(_, d)| &d.verdict)
            .collect()
    };
    assert_eq!(of("ana", &accepted), [&Verdict::Accept]);
    assert!(matches!(of("ana", &rejected)[..], [Verdict::Reject { .. }]));
    assert!(matches!(
        of("ana", &corrected)[..],
        [Verdict::Correct { .. }]
    ));
    assert!(matches!(of("ben", &accepted)[..], [Verdict::Reject { .. }]));
    let candidates = store.graph_candidates(build).unwrap();
    let status = |id: &str| candidates.iter().find(|c| c.id == id).unwrap().status;
    assert_eq!(
        status(&disputed),
        Status::Escalated,
        "two people disagree: open for a third"
    );
    assert_eq!(status(&rejected), Status::Rejected);
    assert_eq!(status(&corrected), Status::Accepted);
    let new = candidates
        .iter()
        .find(|c| c.id == added)
        .expect("the added state");
    let Item::Node(n) = &new.item else { panic!() };
    assert_eq!(n.evidence[0].quote, "Until Friday");
    drop(store);

    // graph stats: agreement on the two candidates both decided (one agreed
    // reject, one accept vs reject): α by hand, values r,r | a,r:
    // o(r,r)=2, o(a,r)=o(r,a)=1; n=4, n_r=3, n_a=1; α = 1 - 3·2/(2·3·1) = 0.
    let stats = common::moviegraph_offline()
        .args(["graph", "stats"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .arg("--json")
        .output()
        .unwrap();
    assert!(stats.status.success(), "{}", common::said(&stats));
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let all = v["review"]["agreement"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "all")
        .unwrap()
        .clone();
    assert_eq!(all["units"], 2);
    assert!((all["alpha"].as_f64().unwrap() - 0.0).abs() < 1e-9, "{all}");
    // κ: pairs (a,r), (r,r): po = .5; ana a .5 r .5, ben r 1 → pe = .5 → κ = 0.
    assert!((all["kappa"].as_f64().unwrap() - 0.0).abs() < 1e-9, "{all}");
    assert_eq!(v["review"]["added"], 1);

    // graph export --format gold: the added state with its exact quote, the
    // corrected holder, and neither the rejected nor the disputed candidate.
    let out_dir = dir.path().join("out");
    let export = common::moviegraph_offline()
        .args(["graph", "export"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .args(["--format", "gold", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", common::said(&export));
    let gold_path = out_dir.join("the-second-key.gold.json");
    let gold = moviegraph::graph::gold::read_gold(&gold_path).unwrap();
    let bare = |c: &str| {
        c.split('@')
            .next()
            .unwrap()
            .trim_start_matches("mental_state:")
            .to_owned()
    };
    let state = gold
        .mental_states
        .iter()
        .find(|s| s.id == bare(&added))
        .expect("added state exported");
    assert_eq!(state.evidence, "Until Friday");
    assert_eq!(state.content, "sell the ring on Friday");
    if rejected.starts_with("mental_state:") {
        assert!(gold.mental_states.iter().all(|s| s.id != bare(&rejected)));
    }
    // graph score of the verified graph against its own export: every state found.
    let score = common::moviegraph_offline()
        .args(["graph", "score"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .arg("--gold")
        .arg(&gold_path)
        .args(["--similarity", "lexical", "--json"])
        .output()
        .unwrap();
    assert!(score.status.success(), "{}", common::said(&score));
    let s: serde_json::Value = serde_json::from_slice(&score.stdout).unwrap();
    assert_eq!(s["states"]["matched_graph"], s["states"]["graph"], "{s}");
}

#[test]
fn a_reviewer_adds_a_causal_link_with_the_words_they_selected_and_it_is_exported() {
    let (dir, db) = built();
    let server = serve(&db, &[]);
    let cookie = sign_in(&server.addr, "ana");
    let page = request(&server.addr, "GET", "/add?scene=2", None, Some(&cookie)).body;
    // Two things the graph holds, and one line of the scene.
    let ends: Vec<String> = page
        .split("<select name=\"cause\" id=\"cause\">")
        .nth(1)
        .unwrap()
        .split("</select>")
        .next()
        .unwrap()
        .split("<option value=\"")
        .skip(1)
        .map(|o| o.split('"').next().unwrap().replace("&gt;", ">"))
        .collect();
    assert!(ends.len() >= 2, "{page}");
    let marker = "data-element=\"";
    let at = page.find(marker).unwrap() + marker.len();
    let element: usize = page[at..at + page[at..].find('"').unwrap()]
        .parse()
        .unwrap();
    let nonce = field(&page, "nonce");
    let form = |kind: &str| {
        format!(
            "nonce={nonce}&scene=2&element={element}&start=0&end=4&cause={}&effect={}&kind={kind}",
            encode(&ends[0]),
            encode(&ends[1])
        )
    };
    // Not a causal kind: refused, nothing stored.
    let r = request(
        &server.addr,
        "POST",
        "/add-link",
        Some(&form("precedes")),
        Some(&cookie),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = request(
        &server.addr,
        "POST",
        "/add-link",
        Some(&form("enables")),
        Some(&cookie),
    );
    assert_eq!(r.status, 303, "{}", r.body);
    // Sent twice: stored once.
    assert_eq!(
        request(
            &server.addr,
            "POST",
            "/add-link",
            Some(&form("enables")),
            Some(&cookie)
        )
        .status,
        303
    );
    drop(server);
    let store = Store::open(&db).unwrap();
    let build = latest_build(&store);
    let added: Vec<_> = store
        .graph_candidates(build)
        .unwrap()
        .into_iter()
        .filter(|c| c.reason == "added by ana")
        .collect();
    assert_eq!(added.len(), 1);
    let Item::Edge(e) = &added[0].item else {
        panic!("an edge")
    };
    assert_eq!(
        (e.source.as_str(), e.target.as_str()),
        (ends[0].as_str(), ends[1].as_str())
    );
    assert_eq!(e.evidence[0].quote.chars().count(), 4);
    assert_eq!(added[0].status, Status::Accepted);
    let name_of = |id: &str| {
        store
            .graph_candidates(build)
            .unwrap()
            .into_iter()
            .find_map(|c| match c.item {
                Item::Node(n) if n.id == id => Some(n.name),
                _ => None,
            })
            .unwrap()
    };
    let (cause, effect) = (name_of(&ends[0]), name_of(&ends[1]));
    drop(store);
    let out_dir = dir.path().join("out");
    let export = common::moviegraph_offline()
        .args(["graph", "export"])
        .arg(film())
        .arg("--store")
        .arg(&db)
        .args(["--gold", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", common::said(&export));
    let gold =
        moviegraph::graph::gold::read_gold(&out_dir.join("the-second-key.gold.json")).unwrap();
    assert!(
        gold.causal_links
            .iter()
            .any(|l| l.cause == cause && l.effect == effect),
        "the added link ({cause} → {effect}) is a causal link of the export"
    );
}
