//! Keyframe manifests: keyframes from sources other than MovieNet, as CSV
//! (`path,time`) or JSON (`[{"path": …, "time": …}]`), and the confinement of
//! their paths to the film's folder.
//!
//! Parsing ([`parse_manifest`]) is pure: it checks paths lexically (no
//! absolute paths, no `..`) and never touches the file system, so it can be
//! fuzzed. [`confine`] is the file-system half: it resolves symlinks and
//! refuses anything that lands outside the film's folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::rate::{parse_millis, parse_seconds, FrameRate};
use crate::screenplay::Diagnostic;

/// How a manifest is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestFormat {
    /// One keyframe a line: `path,time`, an optional header naming the columns.
    Csv,
    /// An array of `{path, time}` / `{path, time_ms}` objects, or an object
    /// holding one as `keyframes` beside an optional `fps` and `duration_ms`.
    Json,
}

impl ManifestFormat {
    /// JSON when the file is named `*.json` or its text starts with `[` or `{`;
    /// CSV otherwise.
    pub fn detect(path: Option<&Path>, text: &str) -> ManifestFormat {
        let json_ext = path
            .and_then(Path::extension)
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let json_text = matches!(text.trim_start().as_bytes().first(), Some(b'[' | b'{'));
        if json_ext || json_text {
            ManifestFormat::Json
        } else {
            ManifestFormat::Csv
        }
    }
}

/// One keyframe listed in a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// 1-based line of the manifest it is on (where its JSON object starts).
    pub line: usize,
    /// The path as a clean relative path: normal components only, no root,
    /// no `.` or `..`. `/` and `\` both separate components.
    pub path: PathBuf,
    /// When the keyframe is shown, in milliseconds.
    pub time_ms: u64,
}

/// A parsed manifest: its keyframes in file order, and what was wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The frame rate the manifest states (JSON `fps`), if any.
    pub fps: Option<FrameRate>,
    /// The film's length in milliseconds (JSON `duration_ms`), if stated; it
    /// ends the last shot.
    pub duration_ms: Option<u64>,
    /// The keyframes whose path and time could be read, in file order.
    pub entries: Vec<ManifestEntry>,
    /// Rows skipped or repaired, by manifest line.
    pub diagnostics: Vec<Diagnostic>,
}

/// A JSON manifest that is not JSON, or not shaped like a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestSyntaxError {
    /// 1-based line of the problem.
    pub line: usize,
    /// 1-based column of the problem (0 when unknown).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a manifest's text. CSV never fails (bad rows become diagnostics);
/// JSON fails only when it is not JSON or not an array or object of keyframes.
pub fn parse_manifest(text: &str, format: ManifestFormat) -> Result<Manifest, ManifestSyntaxError> {
    match format {
        ManifestFormat::Csv => Ok(parse_csv(text)),
        ManifestFormat::Json => parse_json(text),
    }
}

/// Checks a manifest path without the file system: relative, no `..`, no
/// drive letter or URL, no NUL. Gives the path as clean components.
pub fn clean_relative(raw: &str) -> Result<PathBuf, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err("the path is empty".into());
    }
    if raw.contains('\0') {
        return Err("the path holds a NUL character".into());
    }
    if raw.contains("://") {
        return Err(format!(
            "`{raw}` is a URL; give a path inside the film folder"
        ));
    }
    if raw.starts_with(['/', '\\']) {
        return Err(format!(
            "`{raw}` is an absolute path; paths must be relative to the film folder"
        ));
    }
    let b = raw.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Err(format!(
            "`{raw}` names a drive; paths must be relative to the film folder"
        ));
    }
    let mut path = PathBuf::new();
    for part in raw.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                return Err(format!(
                    "`{raw}` climbs out with `..`; paths must stay inside the film folder"
                ))
            }
            _ => path.push(part),
        }
    }
    if path.as_os_str().is_empty() {
        return Err(format!("`{raw}` names no file"));
    }
    Ok(path)
}

/// What became of a manifest path on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A file inside the film folder; the path is canonical (symlinks resolved).
    Found(PathBuf),
    /// Not there (or not a file); the keyframe is dropped, its time kept.
    Missing(String),
    /// Resolves outside the film folder; the row is refused entirely.
    Refused(String),
}

/// Resolves `rel` (from [`clean_relative`]) under `root`, which must already be
/// canonical. Symlinks are followed only to find where they land: a path that
/// resolves outside `root` is [`Resolution::Refused`] and is never opened.
pub fn confine(root: &Path, rel: &Path) -> Resolution {
    let joined = root.join(rel);
    let canonical = match joined.canonicalize() {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Resolution::Missing(format!(
                "keyframe `{}` does not exist (or is a dangling link)",
                rel.display()
            ))
        }
        Err(e) => {
            return Resolution::Missing(format!("keyframe `{}`: {e}", rel.display()));
        }
    };
    if !canonical.starts_with(root) {
        return Resolution::Refused(format!(
            "`{}` resolves to {}, outside the film folder {}; refused",
            rel.display(),
            canonical.display(),
            root.display()
        ));
    }
    match std::fs::metadata(&canonical) {
        Ok(m) if m.is_file() => Resolution::Found(canonical),
        Ok(_) => Resolution::Missing(format!("keyframe `{}` is not a file", rel.display())),
        Err(e) => Resolution::Missing(format!("keyframe `{}`: {e}", rel.display())),
    }
}

/// Which unit a time column is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Seconds,
    Millis,
}

fn parse_time(text: &str, unit: Unit) -> Result<u64, String> {
    match unit {
        Unit::Seconds => parse_seconds(text),
        Unit::Millis => parse_millis(text),
    }
}

const PATH_NAMES: [&str; 6] = [
    "path",
    "file",
    "filename",
    "image",
    "keyframe",
    "frame_path",
];
const SECONDS_NAMES: [&str; 4] = ["time", "seconds", "timestamp", "time_s"];
const MILLIS_NAMES: [&str; 2] = ["time_ms", "ms"];

fn parse_csv(text: &str) -> Manifest {
    let mut out = Manifest::default();
    let mut columns: Option<(usize, usize, Unit)> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let row = raw.trim_end_matches('\r').trim_start_matches('\u{feff}');
        if row.trim().is_empty() || row.trim_start().starts_with('#') {
            continue;
        }
        let fields = match split_csv(row) {
            Ok(f) => f,
            Err(why) => {
                out.diagnostics
                    .push(Diagnostic::warning(line, format!("{why}; row skipped")));
                continue;
            }
        };
        let (path_col, time_col, unit) = match columns {
            Some(c) => c,
            None => {
                let header = read_header(&fields);
                let default = (0, 1, Unit::Seconds);
                match header {
                    Some(Ok(c)) => {
                        columns = Some(c);
                        continue;
                    }
                    Some(Err(why)) => {
                        out.diagnostics.push(Diagnostic::warning(
                            line,
                            format!("{why}; reading rows as `path,time` (seconds)"),
                        ));
                        columns = Some(default);
                        continue;
                    }
                    None => {
                        columns = Some(default);
                        default
                    }
                }
            }
        };
        let (Some(path), Some(time)) = (fields.get(path_col), fields.get(time_col)) else {
            out.diagnostics.push(Diagnostic::warning(
                line,
                format!(
                    "expected `path,time`, found {} field{}; row skipped",
                    fields.len(),
                    if fields.len() == 1 { "" } else { "s" }
                ),
            ));
            continue;
        };
        push_entry(&mut out, line, path, parse_time(time, unit));
    }
    out
}

/// `Some(Ok(columns))` for a header naming a path and a time column,
/// `Some(Err(_))` for a header that lacks one, `None` for a data row.
fn read_header(fields: &[String]) -> Option<Result<(usize, usize, Unit), String>> {
    let names: Vec<String> = fields
        .iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let known = |n: &str| {
        PATH_NAMES.contains(&n) || SECONDS_NAMES.contains(&n) || MILLIS_NAMES.contains(&n)
    };
    if !names.iter().any(|n| known(n)) {
        return None;
    }
    let path = names.iter().position(|n| PATH_NAMES.contains(&n.as_str()));
    let time = names.iter().enumerate().find_map(|(i, n)| {
        if SECONDS_NAMES.contains(&n.as_str()) {
            Some((i, Unit::Seconds))
        } else if MILLIS_NAMES.contains(&n.as_str()) {
            Some((i, Unit::Millis))
        } else {
            None
        }
    });
    match (path, time) {
        (Some(p), Some((t, unit))) => Some(Ok((p, t, unit))),
        (None, _) => Some(Err("the header names no path column (`path`)".into())),
        (_, None) => Some(Err(
            "the header names no time column (`time` in seconds or `time_ms`)".into(),
        )),
    }
}

/// Splits one CSV row on commas; double-quoted fields may hold commas and
/// `""` for a quote. Fields are trimmed.
fn split_csv(row: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = row.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' && field.trim().is_empty() && !was_quoted {
            field.clear();
            quoted = true;
            was_quoted = true;
        } else if c == ',' {
            fields.push(finish(&mut field, was_quoted));
            was_quoted = false;
        } else {
            field.push(c);
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    fields.push(finish(&mut field, was_quoted));
    Ok(fields)
}

fn finish(field: &mut String, quoted: bool) -> String {
    let f = std::mem::take(field);
    if quoted {
        // Keep a quoted field as written, apart from blanks after the quote.
        f.trim_end().to_string()
    } else {
        f.trim().to_string()
    }
}

fn push_entry(out: &mut Manifest, line: usize, path: &str, time: Result<u64, String>) {
    let path = match clean_relative(path) {
        Ok(p) => p,
        Err(why) => {
            out.diagnostics
                .push(Diagnostic::warning(line, format!("{why}; row refused")));
            return;
        }
    };
    match time {
        Ok(time_ms) => out.entries.push(ManifestEntry {
            line,
            path,
            time_ms,
        }),
        Err(why) => out
            .diagnostics
            .push(Diagnostic::warning(line, format!("{why}; row skipped"))),
    }
}

#[derive(Deserialize)]
struct JsonObject<'a> {
    #[serde(borrow)]
    keyframes: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    fps: Option<&'a RawValue>,
    #[serde(borrow, default)]
    duration_ms: Option<&'a RawValue>,
}

fn parse_json(text: &str) -> Result<Manifest, ManifestSyntaxError> {
    let syntax = |e: serde_json::Error| ManifestSyntaxError {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let mut out = Manifest::default();
    let items: Vec<&RawValue> = match text.trim_start().as_bytes().first() {
        Some(b'[') => serde_json::from_str(text).map_err(syntax)?,
        Some(b'{') => {
            let obj: JsonObject = serde_json::from_str(text).map_err(syntax)?;
            if let Some(raw) = obj.fps {
                let line = LineCounter::new(text).line_of(raw.get());
                match rate_from_json(raw) {
                    Some(r) => out.fps = Some(r),
                    None => out.diagnostics.push(Diagnostic::warning(
                        line,
                        format!("`fps` {} is not a frame rate (e.g. 24 or \"24000/1001\"); ignored", raw.get()),
                    )),
                }
            }
            if let Some(raw) = obj.duration_ms {
                let line = LineCounter::new(text).line_of(raw.get());
                match time_from_json(raw, Unit::Millis) {
                    Ok(ms) => out.duration_ms = Some(ms),
                    Err(why) => out.diagnostics.push(Diagnostic::warning(
                        line,
                        format!("`duration_ms`: {why}; ignored"),
                    )),
                }
            }
            obj.keyframes
        }
        _ => {
            return Err(ManifestSyntaxError {
                line: 1,
                column: 1,
                message: "expected a JSON array of {\"path\", \"time\"} objects, or an object with `keyframes`".into(),
            })
        }
    };
    // Items come in text order, so their lines are found in one pass.
    let mut lines = LineCounter::new(text);
    for raw in items {
        let line = lines.line_of(raw.get());
        let value: Value = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                out.diagnostics
                    .push(Diagnostic::warning(line, format!("{e}; entry skipped")));
                continue;
            }
        };
        let Value::Object(map) = value else {
            out.diagnostics.push(Diagnostic::warning(
                line,
                "expected an object {\"path\": …, \"time\": …}; entry skipped",
            ));
            continue;
        };
        let Some(Value::String(path)) = map.get("path") else {
            out.diagnostics.push(Diagnostic::warning(
                line,
                "the entry has no `path` string; entry skipped",
            ));
            continue;
        };
        let time = match (map.get("time_ms"), map.get("time")) {
            (Some(ms), _) => value_time(ms, Unit::Millis),
            (None, Some(t)) => value_time(t, Unit::Seconds),
            (None, None) => Err("the entry has no `time` (seconds) or `time_ms`".into()),
        };
        push_entry(&mut out, line, path, time);
    }
    Ok(out)
}

fn rate_from_json(raw: &RawValue) -> Option<FrameRate> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => FrameRate::parse(&s),
        Value::Number(n) => rate_from_number(&n),
        _ => None,
    }
}

/// A JSON number as a frame rate: exact for integers, via the shortest
/// decimal for floats.
pub(crate) fn rate_from_number(n: &serde_json::Number) -> Option<FrameRate> {
    match n.as_u64() {
        Some(i) => FrameRate::new(i, 1),
        None => FrameRate::from_f64(n.as_f64()?),
    }
}

fn time_from_json(raw: &RawValue, unit: Unit) -> Result<u64, String> {
    let v: Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    value_time(&v, unit)
}

fn value_time(v: &Value, unit: Unit) -> Result<u64, String> {
    match v {
        Value::String(s) => parse_time(s, unit),
        // A number's own digits, so 12.345 s is 12345 ms exactly; floats in
        // exponent form fall back to arithmetic.
        Value::Number(n) => {
            let digits = n.to_string();
            parse_time(&digits, unit).or_else(|e| match n.as_f64() {
                Some(f) if f.is_finite() && f >= 0.0 => {
                    let scale = if unit == Unit::Seconds { 1000.0 } else { 1.0 };
                    let ms = (f * scale).round();
                    if ms <= super::rate::MAX_MS as f64 {
                        Ok(ms as u64)
                    } else {
                        Err(e)
                    }
                }
                _ => Err(e),
            })
        }
        other => Err(format!("a time must be a number or a string, not {other}")),
    }
}

/// Finds the 1-based line of sub-slices of one text, asked in increasing
/// order, in one pass over the text.
struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter {
            text,
            offset: 0,
            line: 1,
        }
    }

    /// The line where `part` (a slice of the text) starts.
    fn line_of(&mut self, part: &str) -> usize {
        let start = (part.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        if start < self.offset || start > self.text.len() {
            return self.line;
        }
        let between = self.text.as_bytes().get(self.offset..start).unwrap_or(&[]);
        self.line += between.iter().filter(|b| **b == b'\n').count();
        self.offset = start;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_relative_refuses_escapes() {
        assert_eq!(
            clean_relative("kf/a.jpg").unwrap(),
            PathBuf::from("kf/a.jpg")
        );
        assert_eq!(
            clean_relative("./kf//a.jpg").unwrap(),
            PathBuf::from("kf/a.jpg")
        );
        assert_eq!(
            clean_relative("kf\\a.jpg").unwrap(),
            PathBuf::from("kf/a.jpg")
        );
        for bad in [
            "../x.jpg",
            "kf/../../x.jpg",
            "kf\\..\\x.jpg",
            "/etc/passwd",
            "\\\\server\\share\\x.jpg",
            "C:\\x.jpg",
            "c:x.jpg",
            "file:///etc/passwd",
            "",
            ".",
            "./",
            "a\0b",
        ] {
            assert!(clean_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn csv_with_and_without_header() {
        let m = parse_manifest(
            "path,time\nkf/a.jpg,0\nkf/b.jpg,00:00:02.500\n\n# note\n\"kf/c,d.jpg\", 3.25\n",
            ManifestFormat::Csv,
        )
        .unwrap();
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        let got: Vec<(usize, &str, u64)> = m
            .entries
            .iter()
            .map(|e| (e.line, e.path.to_str().unwrap(), e.time_ms))
            .collect();
        assert_eq!(
            got,
            [
                (2, "kf/a.jpg", 0),
                (3, "kf/b.jpg", 2500),
                (6, "kf/c,d.jpg", 3250)
            ]
        );
        let m = parse_manifest("a.jpg,1\r\nb.jpg,2\r\n", ManifestFormat::Csv).unwrap();
        assert_eq!(m.entries.len(), 2);
        let m = parse_manifest("time_ms,image\n1500,a.jpg\n", ManifestFormat::Csv).unwrap();
        assert_eq!(m.entries[0].time_ms, 1500);
        assert_eq!(m.entries[0].path, PathBuf::from("a.jpg"));
    }

    #[test]
    fn csv_bad_rows_are_diagnosed_by_line() {
        let m = parse_manifest(
            "path,time\na.jpg\nb.jpg,soon\n../c.jpg,3\n\"d.jpg,4\ne.jpg,5\n",
            ManifestFormat::Csv,
        )
        .unwrap();
        let lines: Vec<usize> = m.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, [2, 3, 4, 5]);
        assert!(m.diagnostics[2].message.contains(".."));
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].line, 6);
        let m = parse_manifest("path,when\na.jpg,1\n", ManifestFormat::Csv).unwrap();
        assert_eq!(m.diagnostics[0].line, 1);
        assert_eq!(m.entries[0].time_ms, 1000);
    }

    #[test]
    fn json_array_and_object() {
        let text = "[\n  {\"path\": \"a.jpg\", \"time\": 1.5},\n  {\"path\": \"b.jpg\", \"time_ms\": 2000},\n  {\"path\": \"c.jpg\", \"time\": \"00:00:03.000\"}\n]";
        let m = parse_manifest(text, ManifestFormat::Json).unwrap();
        let got: Vec<(usize, u64)> = m.entries.iter().map(|e| (e.line, e.time_ms)).collect();
        assert_eq!(got, [(2, 1500), (3, 2000), (4, 3000)]);
        let text = "{\"fps\": \"24000/1001\", \"duration_ms\": 9000,\n \"keyframes\": [{\"path\": \"a.jpg\", \"time\": 12.345}]}";
        let m = parse_manifest(text, ManifestFormat::Json).unwrap();
        assert_eq!(m.fps, FrameRate::parse("24000/1001"));
        assert_eq!(m.duration_ms, Some(9000));
        assert_eq!(m.entries[0].time_ms, 12345);
        assert_eq!(m.entries[0].line, 2);
    }

    #[test]
    fn json_bad_entries_and_syntax() {
        let text = "[\n 1,\n {\"path\": 2, \"time\": 1},\n {\"path\": \"/etc/passwd\", \"time\": 1},\n {\"path\": \"a.jpg\"},\n {\"path\": \"a.jpg\", \"time\": -1},\n {\"path\": \"ok.jpg\", \"time\": 1e2}\n]";
        let m = parse_manifest(text, ManifestFormat::Json).unwrap();
        let lines: Vec<usize> = m.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6]);
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].time_ms, 100_000);
        let err = parse_manifest("[\n{\"path\": \"a\",\n", ManifestFormat::Json).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(parse_manifest("\"hi\"", ManifestFormat::Json).is_err());
        assert!(parse_manifest("{\"fps\": 24}", ManifestFormat::Json).is_err());
    }

    #[test]
    fn format_detection() {
        assert_eq!(ManifestFormat::detect(None, " [1]"), ManifestFormat::Json);
        assert_eq!(
            ManifestFormat::detect(Some(Path::new("m.JSON")), "a"),
            ManifestFormat::Json
        );
        assert_eq!(
            ManifestFormat::detect(None, "path,time"),
            ManifestFormat::Csv
        );
    }
}
