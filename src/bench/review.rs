//! `moviegraph bench review`: how fast the review app lets people decide.
//! A scripted reviewer works through a random sample of a film's accepted
//! claims over real HTTP on loopback (the page, the decision, the next page),
//! then several reviewers at once; the baseline is the same decisions made
//! in-process through `ReviewApp`, in the same run. A person's reading time
//! is not in these figures: they measure what the app adds to it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::graph::build::BuildOptions;
use moviegraph::graph::review::{RejectReason, Verdict};
use moviegraph::llm::config::Config;
use moviegraph::signin::{Access, SignIn};
use moviegraph::util::report::Silent;
use moviegraph::workspace::graph_build::{build_film_graph, BuildRequest};
use moviegraph::workspace::lock::Wait;
use moviegraph::workspace::review::{Queue, ReviewApp};

use super::emit;

/// Options of `bench review`.
#[derive(Debug, Args)]
pub struct BenchReviewArgs {
    /// The film whose offline (rules) graph is reviewed.
    #[arg(long, default_value = "screenplays/the-second-key")]
    film: PathBuf,
    /// Candidates in the sample queue, and decisions each measurement makes.
    #[arg(long, default_value_t = 100)]
    decisions: usize,
    /// Reviewers working at once in the last measurement (they share the
    /// decisions between them).
    #[arg(long, default_value_t = 10)]
    reviewers: usize,
}

/// Times of one measurement's decisions.
struct Timed {
    each: Vec<Duration>,
    wall: Duration,
}

impl Timed {
    fn line(&self, what: &str) -> String {
        let mut ms: Vec<f64> = self.each.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let per_minute = n as f64 / self.wall.as_secs_f64().max(1e-9) * 60.0;
        format!(
            "  {what:<44} {n:>4} decisions in {:>7.2} s = {per_minute:>8.0} a minute; per decision ms min {:.1} / median {:.1} / max {:.1}\n",
            self.wall.as_secs_f64(),
            ms.first().copied().unwrap_or(0.0),
            ms.get(n / 2).copied().unwrap_or(0.0),
            ms.last().copied().unwrap_or(0.0),
        )
    }

    fn median(&self) -> f64 {
        let mut s: Vec<Duration> = self.each.clone();
        s.sort();
        s.get(s.len() / 2).map_or(0.0, Duration::as_secs_f64)
    }
}

/// The verdict the script gives its `i`th candidate: mostly accept, a reject
/// with a reason every fifth.
fn verdict(i: usize) -> Verdict {
    if i % 5 == 4 {
        Verdict::Reject {
            reason: RejectReason::NotSupported,
        }
    } else {
        Verdict::Accept
    }
}

/// Builds the film's offline graph into a fresh store at `db`.
fn build(film: &Path, db: &Path) -> anyhow::Result<()> {
    let request = BuildRequest {
        film_dir: film.to_path_buf(),
        store: db.to_path_buf(),
        keyframes: None,
        options: BuildOptions::default(),
        wait: Wait::No,
        config: Config::offline(),
    };
    build_film_graph(&request, &Silent).with_context(|| format!("building {}", film.display()))?;
    Ok(())
}

fn open(film: &Path, db: &Path) -> anyhow::Result<ReviewApp> {
    let root = std::env::current_dir().context("reading the current folder")?;
    Ok(ReviewApp::open(film, db, &root, 1, Wait::No, &Silent)?)
}

/// The baseline: the same decisions through `ReviewApp`, no HTTP, no page.
fn in_process(app: &ReviewApp, queue: &Queue, n: usize) -> anyhow::Result<Timed> {
    let start = Instant::now();
    let mut each = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        let (Some(c), _) = app.take_next("baseline", queue, &[])? else {
            break;
        };
        app.decide(
            "baseline",
            &format!("b{i}"),
            &c.id,
            &queue.name(),
            verdict(i),
        )?;
        each.push(t.elapsed());
    }
    Ok(Timed {
        each,
        wall: start.elapsed(),
    })
}

/// The value of the first `name="FIELD" value="…"` on a page.
fn field(page: &str, name: &str) -> Option<String> {
    let key = format!("name=\"{name}\" value=\"");
    let at = page.find(&key)? + key.len();
    let raw = &page[at..at + page[at..].find('"')?];
    Some(
        raw.replace("&gt;", ">")
            .replace("&lt;", "<")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

fn encode(s: &str) -> String {
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

/// A response of [`request`]: status, the headers' lines, body.
struct Response {
    status: u16,
    head: String,
    body: String,
}

impl Response {
    /// The value of header `name` (lower case).
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// One plain HTTP/1.1 request on a fresh loopback connection (the review
/// app answers with a length, and `Connection: close` ends the body).
fn request(
    addr: &str,
    method: &str,
    path: &str,
    form: Option<&str>,
    cookie: Option<&str>,
) -> anyhow::Result<Response> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(c) = cookie {
        text.push_str(&format!("Cookie: {c}\r\n"));
    }
    if let Some(body) = form {
        text.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        text.push_str("\r\n");
    }
    stream.write_all(text.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("{method} {path}: no status in {head:?}"))?;
    Ok(Response {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    })
}

/// One scripted reviewer: signs in, then reads a page and decides, up to `n`
/// times (fewer when the queue runs out); each decision is timed from the
/// form sent to the next candidate's page read.
fn reviewer(addr: &str, name: &str, queue: &str, n: usize) -> anyhow::Result<Vec<Duration>> {
    let login = request(addr, "POST", "/login", Some(&format!("name={name}")), None)?;
    let cookie = login
        .header("set-cookie")
        .and_then(|v| v.split(';').next())
        .context("the sign-in set no session cookie")?
        .to_owned();
    let get = |path: &str| request(addr, "GET", path, None, Some(&cookie));
    let mut page = get(&format!("/next?q={}", encode(queue)))?.body;
    let mut each = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(nonce), Some(candidate)) = (field(&page, "nonce"), field(&page, "candidate"))
        else {
            break;
        };
        let t = Instant::now();
        let verdict = match verdict(i) {
            Verdict::Accept => "accept=1",
            _ => "",
        };
        let form = format!(
            "nonce={}&candidate={}&q={}&decision=reject&reason=not_supported",
            encode(&nonce),
            encode(&candidate),
            encode(queue)
        );
        let r = request(
            addr,
            "POST",
            &format!("/decide?{verdict}"),
            Some(&form),
            Some(&cookie),
        )?;
        if r.status != 303 {
            bail!("a decision answered {}: {}", r.status, r.body);
        }
        let next = r
            .header("location")
            .context("a decision gave no next page")?
            .to_owned();
        page = get(&next)?.body;
        each.push(t.elapsed());
    }
    Ok(each)
}

/// `reviewers` scripted reviewers at once over HTTP, sharing `n` decisions.
fn over_http(app: ReviewApp, queue: &Queue, n: usize, reviewers: usize) -> anyhow::Result<Timed> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?.to_string();
    let signin = SignIn::new(
        Access::choose(
            "127.0.0.1".parse()?,
            &[],
            None,
            "--reviewer",
            "MOVIEGRAPH_REVIEW_PASSWORD",
        )
        .map_err(anyhow::Error::msg)?,
        "mg_bench",
    );
    runtime.spawn(moviegraph::verify::serve(listener, app, signin));
    let queue = queue.name();
    let start = Instant::now();
    let each = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..reviewers)
            .map(|r| {
                let share = n / reviewers + usize::from(r < n % reviewers);
                let (addr, queue) = (&addr, &queue);
                scope.spawn(move || reviewer(addr, &format!("reviewer{r}"), queue, share))
            })
            .collect();
        let mut each = Vec::new();
        for w in workers {
            each.extend(
                w.join()
                    .map_err(|_| anyhow::anyhow!("a reviewer panicked"))??,
            );
        }
        anyhow::Ok(each)
    })?;
    let wall = start.elapsed();
    // The server (and the app's writer lock) goes with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(5));
    Ok(Timed { each, wall })
}

/// Runs the benchmark and prints its figures.
pub fn bench_review(args: BenchReviewArgs) -> anyhow::Result<()> {
    if args.decisions == 0 || args.reviewers == 0 {
        bail!("--decisions and --reviewers must be at least 1");
    }
    let dir = std::env::temp_dir().join(format!("moviegraph-bench-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("making {}", dir.display()))?;
    let figures = measure(&args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    emit(&figures?)
}

/// The three measurements, each on a fresh store under `dir`.
fn measure(args: &BenchReviewArgs, dir: &Path) -> anyhow::Result<String> {
    let queue = Queue::Sample {
        size: args.decisions,
        seed: 0,
    };
    let mut text = format!(
        "bench review: {} (offline rules graph), a sample queue of {} accepted claims; one fresh store per measurement\n",
        args.film.display(),
        args.decisions
    );
    let mut measured = Vec::new();
    for (k, what) in [
        "in-process ReviewApp (baseline, no HTTP)",
        "one reviewer over HTTP",
        "reviewers at once over HTTP",
    ]
    .iter()
    .enumerate()
    {
        let db = dir.join(format!("review{k}.db"));
        build(&args.film, &db)?;
        let app = open(&args.film, &db)?;
        let timed = match k {
            // The app (and its writer lock) goes before the count below.
            0 => {
                let app = app;
                in_process(&app, &queue, args.decisions)?
            }
            1 => over_http(app, &queue, args.decisions, 1)?,
            _ => over_http(app, &queue, args.decisions, args.reviewers)?,
        };
        // Every decision made is in the store once.
        let stored = {
            let app = open(&args.film, &db)?;
            app.decisions(false)?.lines().count()
        };
        let what = if k == 2 {
            format!("{} {what}", args.reviewers)
        } else {
            (*what).to_owned()
        };
        text.push_str(&timed.line(&what));
        text.push_str(&format!(
            "  {:<44} {stored} decisions stored, {} made\n",
            "",
            timed.each.len()
        ));
        measured.push(timed);
    }
    let base = measured[0].median().max(1e-9);
    text.push_str(&format!(
        "  median per decision over HTTP (page served and read back) / in-process: {:.1}× (one reviewer), {:.1}× ({} at once)\n",
        measured[1].median() / base,
        measured[2].median() / base,
        args.reviewers
    ));
    text.push_str(
        "  (the app's goal: a scripted reviewer makes ≥ 30 decisions a minute end to end; the browser test in tests/it/review_web.rs prints the same figure through headless Chromium)\n",
    );
    Ok(text)
}
