//! Line classification and timestamps: which lines are timings, and the
//! timestamp parser both readers share.

use std::borrow::Cow;

/// What one source line is, as far as block structure goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LineKind {
    Blank,
    /// Only digits (an SRT cue number, or text that happens to be a number).
    Number,
    Timing(Timing),
    /// Starts with a digit and contains `-->`, but does not parse; the reason.
    BadTiming(String),
    Text,
}

impl LineKind {
    pub(super) fn of(line: &str) -> LineKind {
        let t = line.trim();
        if t.is_empty() {
            LineKind::Blank
        } else if t.bytes().all(|b| b.is_ascii_digit()) {
            LineKind::Number
        } else if t.as_bytes()[0].is_ascii_digit() && t.contains("-->") {
            match parse_timing(t) {
                Ok(timing) => LineKind::Timing(timing),
                Err(reason) => LineKind::BadTiming(reason),
            }
        } else {
            LineKind::Text
        }
    }

    pub(super) fn is_timing(&self) -> bool {
        matches!(self, LineKind::Timing(_) | LineKind::BadTiming(_))
    }
}

/// A parsed timing line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Timing {
    pub(super) start: u64,
    pub(super) end: u64,
    /// What follows the end time, trimmed; empty when nothing.
    pub(super) settings: String,
    /// Some timestamp had fewer than three fraction digits.
    pub(super) short_fraction: bool,
}

pub(super) fn parse_timing(t: &str) -> Result<Timing, String> {
    let Some((left, right)) = t.split_once("-->") else {
        return Err("no `-->` between the times".into());
    };
    let left = left.trim();
    let (start, short_start) =
        parse_time_token(left).map_err(|e| format!("start time `{}`: {e}", quote(left)))?;
    let right = right.trim_start();
    let end_len = right.find(char::is_whitespace).unwrap_or(right.len());
    let (token, settings) = right.split_at(end_len);
    let (end, short_end) =
        parse_time_token(token).map_err(|e| format!("end time `{}`: {e}", quote(token)))?;
    Ok(Timing {
        start,
        end,
        settings: settings.trim().to_string(),
        short_fraction: short_start || short_end,
    })
}

/// A whole token that must be one timestamp; see [`parse_timestamp`].
fn parse_time_token(token: &str) -> Result<(u64, bool), String> {
    match parse_timestamp(token)? {
        (ms, "", short) => Ok((ms, short)),
        _ => Err("not a time of the form `HH:MM:SS,mmm`".into()),
    }
}

/// Parses `[H…:]MM:SS[,.]f{1,3}` (fraction optional) at the start of `s`;
/// returns milliseconds, the rest of `s`, and whether the fraction was short.
pub(super) fn parse_timestamp(s: &str) -> Result<(u64, &str, bool), String> {
    fn digits(s: &str) -> (&str, &str) {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        s.split_at(n)
    }
    let mut groups: Vec<&str> = Vec::with_capacity(3);
    let mut rest = s;
    loop {
        let (d, r) = digits(rest);
        if d.is_empty() {
            return Err(if groups.is_empty() {
                "not a time".into()
            } else {
                "missing digits after `:`".into()
            });
        }
        groups.push(d);
        rest = r;
        if groups.len() < 3
            && rest.starts_with(':')
            && rest[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    if rest.starts_with(':') {
        return Err("not a time of the form `HH:MM:SS,mmm`".into());
    }
    let (h, m, sec) = match groups[..] {
        [m, s] => ("0", m, s),
        [h, m, s] => (h, m, s),
        _ => return Err("expected minutes and seconds (`MM:SS.mmm`)".into()),
    };
    if h.len() > 9 {
        return Err("hours out of range".into());
    }
    if m.len() > 2 || sec.len() > 2 {
        return Err("minutes and seconds take at most two digits".into());
    }
    let num = |d: &str| d.parse::<u64>().unwrap_or(0);
    let (h, m, sec) = (num(h), num(m), num(sec));
    if m > 59 || sec > 59 {
        return Err("minutes and seconds must be below 60".into());
    }
    let mut ms = 0;
    let mut short = false;
    if let Some(r) = rest.strip_prefix([',', '.']) {
        let (f, r) = digits(r);
        if f.is_empty() {
            return Err("missing milliseconds after the separator".into());
        }
        if f.len() > 3 {
            return Err("more than three fraction digits".into());
        }
        ms = num(f);
        short = f.len() < 3;
        rest = r;
    }
    Ok((((h * 60 + m) * 60 + sec) * 1000 + ms, rest, short))
}

/// Input quoted in a diagnostic, cut at 40 characters: a message names the
/// problem, it does not repeat a megabyte of junk.
pub(super) fn quote(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(40) {
        Some((at, _)) => Cow::Owned(format!("{}…", &s[..at])),
        None => Cow::Borrowed(s),
    }
}

pub(super) fn is_webvtt_signature(line: &str) -> bool {
    line.strip_prefix("WEBVTT")
        .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n']))
}

/// `NOTE`, `STYLE` or `REGION` followed by whitespace or nothing.
pub(super) fn is_vtt_non_cue_block(line: &str) -> bool {
    ["NOTE", "STYLE", "REGION"].iter().any(|k| {
        line.strip_prefix(k)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    })
}
