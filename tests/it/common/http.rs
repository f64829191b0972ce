//! Plain HTTP/1.1 requests to the loopback servers the tests start (the web
//! walker, the review app), one fresh connection each.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response: status, headers (names lower-cased) and body.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Every header, in order.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

impl Response {
    /// The first value of header `name` (lower case), or "".
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// Sends `method path` to `addr` with an optional url-encoded `form` body and
/// `cookie` header.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    form: Option<&str>,
    cookie: Option<&str>,
) -> Response {
    try_request(addr, method, path, form, cookie)
        .unwrap_or_else(|e| panic!("{method} {path} on {addr}: {e}"))
}

/// [`request`], with a failed connection as an error (a server killed on purpose).
pub fn try_request(
    addr: &str,
    method: &str,
    path: &str,
    form: Option<&str>,
    cookie: Option<&str>,
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = form.unwrap_or("");
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(c) = cookie {
        request.push_str(&format!("Cookie: {c}\r\n"));
    }
    if form.is_some() {
        request.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {head:?}")))?;
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_owned()))
        .collect();
    Ok(Response {
        status,
        headers,
        body: body.to_string(),
    })
}
