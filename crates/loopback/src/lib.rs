//! A scriptable OpenAI-compatible HTTP server on 127.0.0.1, for tests and benchmarks.
//!
//! It is a small hand-written HTTP/1.1 server (keep-alive, `Content-Length` bodies)
//! on its own tokio runtime thread, so it serves synchronous tests, survives a client
//! process the test kills, and can misbehave in ways a framework would not let it:
//! reset connections, cut bodies short, answer late. A [`Responder`] closure turns
//! each request into a reply; a [`FaultPlan`] closure may replace the reply with a
//! [`Fault`], by schedule or (seeded) chance; [`Counters`] record what happened,
//! including how many times each logical request was answered successfully.
//! It never listens beyond loopback.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The path (`/v1/chat/completions`).
    pub path: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
    /// The logical request it belongs to (see [`request_key`]).
    pub key: String,
    /// 1 for the first time this key arrives, 2 for the next, …
    pub attempt: u64,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What to answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
}

impl Reply {
    /// A 200 with this JSON body.
    pub fn ok(body: Value) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body,
        }
    }

    /// A chat completion whose message content is `text`.
    pub fn chat(text: &str) -> Reply {
        Reply::ok(json!({
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": 0,
            "model": "loopback",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop"
            }],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": text.len().div_ceil(4),
                "total_tokens": 10 + text.len().div_ceil(4)
            }
        }))
    }

    /// An error status with an OpenAI-style error body.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: json!({"error": {"message": message, "type": "loopback"}}),
        }
    }
}

/// A misbehaviour injected instead of the normal reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// 429 with `retry-after-ms` and `Retry-After` (whole seconds, rounded up) when
    /// `Some`, or no delay header at all when `None`.
    RateLimited(Option<Duration>),
    /// 429 with only `Retry-After: n` (seconds).
    RateLimitedSeconds(u64),
    /// 429 with `x-ratelimit-reset-requests: <ms>ms`.
    RateLimitedReset(Duration),
    /// This 5xx status.
    ServerError(u16),
    /// The connection is reset (RST) without a reply.
    Reset,
    /// The normal reply, but only after this delay (past the client's timeout).
    Slow(Duration),
    /// A 200 whose body stops half-way (the connection then closes).
    Truncated,
    /// A 200 whose body is not JSON.
    InvalidJson,
    /// A well-formed chat completion whose content breaks any object schema.
    SchemaViolation,
}

impl Fault {
    /// A short label for counters.
    pub fn label(&self) -> &'static str {
        match self {
            Fault::RateLimited(Some(_)) => "429-retry-after-ms",
            Fault::RateLimited(None) => "429-bare",
            Fault::RateLimitedSeconds(_) => "429-retry-after",
            Fault::RateLimitedReset(_) => "429-reset",
            Fault::ServerError(_) => "5xx",
            Fault::Reset => "reset",
            Fault::Slow(_) => "slow",
            Fault::Truncated => "truncated",
            Fault::InvalidJson => "invalid-json",
            Fault::SchemaViolation => "schema-violation",
        }
    }

    /// The delay this fault imposes by itself on the client (the server's asked
    /// delay, or the time the client waits before giving up on a slow reply is the
    /// client's timeout and not known here, so `Slow` reports its own delay).
    pub fn delay(&self) -> Duration {
        match self {
            Fault::RateLimited(Some(d)) | Fault::RateLimitedReset(d) | Fault::Slow(d) => *d,
            Fault::RateLimitedSeconds(s) => Duration::from_secs(*s),
            _ => Duration::ZERO,
        }
    }
}

/// Turns a request into a reply.
pub type Responder = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;
/// Decides whether a request gets a fault instead.
pub type FaultPlan = Arc<dyn Fn(&Request) -> Option<Fault> + Send + Sync>;

/// A seeded fault plan: each (key, attempt) fails with probability `rate`, with a
/// fault drawn from `kinds`. Deterministic: the same seed injects the same faults.
pub fn fault_mix(seed: u64, rate: f64, kinds: Vec<Fault>) -> FaultPlan {
    Arc::new(move |req: &Request| {
        if kinds.is_empty() {
            return None;
        }
        let h = Sha256::digest(format!("{seed}\u{0}{}\u{0}{}", req.key, req.attempt).as_bytes());
        let a = u64::from_le_bytes(h[0..8].try_into().expect("8 bytes"));
        let b = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
        ((a as f64 / u64::MAX as f64) < rate)
            .then(|| kinds[(b % kinds.len() as u64) as usize].clone())
    })
}

/// The logical request a body belongs to: the first user message's text for chat
/// (repairs and retries keep it), the joined input for embeddings.
pub fn request_key(body: &Value) -> String {
    if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        for m in messages {
            if m["role"] == "user" {
                return match &m["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
            }
        }
    }
    if let Some(input) = body.get("input") {
        return input.to_string();
    }
    body.to_string()
}

/// The default responder: chat answers `echo: <first user text>`; embeddings answer
/// an 8-dimensional vector derived from each input's hash.
pub fn echo_responder() -> Responder {
    Arc::new(|req: &Request| {
        if req.path.ends_with("/embeddings") {
            let inputs: Vec<String> = match &req.body["input"] {
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect(),
                Value::String(s) => vec![s.clone()],
                _ => return Reply::error(400, "input must be a string or a list of strings"),
            };
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": fake_vector(text)}))
                .collect();
            return Reply::ok(json!({
                "object": "list",
                "data": data,
                "model": req.body["model"],
                "usage": {"prompt_tokens": inputs.len() * 4, "total_tokens": inputs.len() * 4}
            }));
        }
        Reply::chat(&format!("echo: {}", req.key))
    })
}

/// The vector [`echo_responder`] gives `text`.
pub fn fake_vector(text: &str) -> Vec<f32> {
    let h = Sha256::digest(text.as_bytes());
    h[..8].iter().map(|b| f32::from(*b) / 255.0).collect()
}

/// What the server saw and did.
#[derive(Debug, Default)]
pub struct Counters {
    requests: AtomicU64,
    successes: AtomicU64,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    faults: Mutex<HashMap<&'static str, u64>>,
    injected_ms: AtomicU64,
    per_key: Mutex<HashMap<String, KeyCount>>,
}

/// Per logical request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyCount {
    /// Times it arrived.
    pub attempts: u64,
    /// Times a normal (non-fault) reply was written in full.
    pub successes: u64,
}

impl Counters {
    /// Requests read.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// The most requests that were being answered at the same time.
    pub fn max_in_flight(&self) -> u64 {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Normal replies written in full.
    pub fn successes(&self) -> u64 {
        self.successes.load(Ordering::SeqCst)
    }

    /// Faults injected, by label.
    pub fn faults(&self) -> HashMap<&'static str, u64> {
        self.faults.lock().expect("lock").clone()
    }

    /// Sum of the delays the injected faults imposed.
    pub fn injected_delay(&self) -> Duration {
        Duration::from_millis(self.injected_ms.load(Ordering::SeqCst))
    }

    /// Per logical request.
    pub fn per_key(&self) -> HashMap<String, KeyCount> {
        self.per_key.lock().expect("lock").clone()
    }
}

/// Server settings.
#[derive(Clone)]
pub struct ServerOptions {
    /// Builds replies.
    pub responder: Responder,
    /// Injects faults (none by default).
    pub faults: Option<FaultPlan>,
    /// Delay before every normal reply.
    pub latency: Duration,
    /// Threads of the server's runtime.
    pub threads: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            responder: echo_responder(),
            faults: None,
            latency: Duration::ZERO,
            threads: 1,
        }
    }
}

struct Shared {
    options: ServerOptions,
    counters: Arc<Counters>,
    hold_after: Mutex<Option<u64>>,
    closing: AtomicBool,
}

/// A running server; dropping it stops it.
pub struct LoopbackServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LoopbackServer {
    /// Starts a server on 127.0.0.1 at a free port.
    pub fn start(options: ServerOptions) -> std::io::Result<LoopbackServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.threads.max(1))
            .enable_all()
            .build()?;
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            options,
            counters: Arc::new(Counters::default()),
            hold_after: Mutex::new(None),
            closing: AtomicBool::new(false),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let accept_shared = shared.clone();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                tokio::select! {
                    _ = stopped => {}
                    _ = accept_loop(listener, accept_shared) => {}
                }
            });
            runtime.shutdown_background();
        });
        Ok(LoopbackServer {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The base URL clients use (`http://127.0.0.1:PORT/v1`).
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The counters.
    pub fn counters(&self) -> &Arc<Counters> {
        &self.shared.counters
    }

    /// From now on, once `n` normal replies have been written in total, requests that
    /// arrive are held: never answered (and never counted as successes). `None`
    /// answers everything again (requests already held stay unanswered).
    pub fn hold_after(&self, n: Option<u64>) {
        *self.shared.hold_after.lock().expect("lock") = n;
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            let _ = serve(stream, shared).await;
        });
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Serves one connection until the client closes it or a fault ends it.
async fn serve(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    let mut chunk = vec![0u8; 65536];
    loop {
        let head_end = loop {
            if let Some(i) = find(&buf, b"\r\n\r\n") {
                break i;
            }
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or("");
        let path = request_line.split(' ').nth(1).unwrap_or("/").to_string();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let body_start = head_end + 4;
        while buf.len() < body_start + length {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let body: Value =
            serde_json::from_slice(&buf[body_start..body_start + length]).unwrap_or(Value::Null);
        buf.drain(..body_start + length);
        let close = headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));

        let counters = &shared.counters;
        counters.requests.fetch_add(1, Ordering::SeqCst);
        let key = request_key(&body);
        let attempt = {
            let mut map = counters.per_key.lock().expect("lock");
            let entry = map.entry(key.clone()).or_default();
            entry.attempts += 1;
            entry.attempts
        };
        let held = shared
            .hold_after
            .lock()
            .expect("lock")
            .is_some_and(|n| counters.successes() >= n);
        if held {
            // Never answer; wait for the client to go away.
            loop {
                if stream.read(&mut chunk).await? == 0 {
                    return Ok(());
                }
            }
        }
        let request = Request {
            path,
            headers,
            body,
            key,
            attempt,
        };
        let now = counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        counters.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let result = answer(&mut stream, &shared, request, close).await;
        counters.in_flight.fetch_sub(1, Ordering::SeqCst);
        if !result? || close {
            return Ok(());
        }
    }
}

/// Answers one request; false when the connection must end.
async fn answer(
    stream: &mut TcpStream,
    shared: &Shared,
    request: Request,
    close: bool,
) -> std::io::Result<bool> {
    let counters = &shared.counters;
    {
        let fault = shared
            .options
            .faults
            .as_ref()
            .and_then(|plan| plan(&request));
        if let Some(f) = &fault {
            *counters
                .faults
                .lock()
                .expect("lock")
                .entry(f.label())
                .or_default() += 1;
            counters
                .injected_ms
                .fetch_add(f.delay().as_millis() as u64, Ordering::SeqCst);
        }
        match fault {
            None => {
                if !shared.options.latency.is_zero() {
                    tokio::time::sleep(shared.options.latency).await;
                }
                let reply = (shared.options.responder)(&request);
                let success = (200..300).contains(&reply.status);
                write_reply(stream, &reply, close).await?;
                if success {
                    counters.successes.fetch_add(1, Ordering::SeqCst);
                    counters
                        .per_key
                        .lock()
                        .expect("lock")
                        .entry(request.key.clone())
                        .or_default()
                        .successes += 1;
                }
            }
            Some(Fault::RateLimited(delay)) => {
                let mut reply = Reply::error(429, "rate limited (injected)");
                if let Some(d) = delay {
                    reply
                        .headers
                        .push(("retry-after-ms".into(), d.as_millis().to_string()));
                    reply
                        .headers
                        .push(("retry-after".into(), d.as_secs_f64().ceil().to_string()));
                }
                write_reply(stream, &reply, close).await?;
            }
            Some(Fault::RateLimitedSeconds(s)) => {
                let mut reply = Reply::error(429, "rate limited (injected)");
                reply.headers.push(("retry-after".into(), s.to_string()));
                write_reply(stream, &reply, close).await?;
            }
            Some(Fault::RateLimitedReset(d)) => {
                let mut reply = Reply::error(429, "rate limited (injected)");
                reply.headers.push((
                    "x-ratelimit-reset-requests".into(),
                    format!("{}ms", d.as_millis()),
                ));
                write_reply(stream, &reply, close).await?;
            }
            Some(Fault::ServerError(status)) => {
                write_reply(
                    stream,
                    &Reply::error(status, "server error (injected)"),
                    close,
                )
                .await?;
            }
            Some(Fault::Reset) => {
                let _ = stream.set_zero_linger();
                return Ok(false);
            }
            Some(Fault::Slow(d)) => {
                tokio::time::sleep(d).await;
                if shared.closing.load(Ordering::SeqCst) {
                    return Ok(false);
                }
                // Late on purpose: the client has given up; this is not a success.
                let reply = (shared.options.responder)(&request);
                write_reply(stream, &reply, close).await?;
            }
            Some(Fault::Truncated) => {
                let body = serde_json::to_vec(&(shared.options.responder)(&request).body)
                    .unwrap_or_default();
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(&body[..body.len() / 2]).await?;
                stream.flush().await?;
                return Ok(false);
            }
            Some(Fault::InvalidJson) => {
                let body = b"{\"choices\": [{\"message\": {\"content\": \"oops\"";
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(body).await?;
                stream.flush().await?;
            }
            Some(Fault::SchemaViolation) => {
                write_reply(
                    stream,
                    &Reply::chat("[\"not\", \"the object you asked for\"]"),
                    close,
                )
                .await?;
            }
        }
    }
    Ok(true)
}

async fn write_reply(stream: &mut TcpStream, reply: &Reply, close: bool) -> std::io::Result<()> {
    let body = serde_json::to_vec(&reply.body).unwrap_or_default();
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        reply.status,
        body.len()
    );
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if close {
        out.push_str("connection: close\r\n");
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&body);
    stream.write_all(&bytes).await?;
    stream.flush().await
}
