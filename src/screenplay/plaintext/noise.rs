//! Layout noise: what the page added to the story, found before the story is
//! read so that no column statistic or element counts it.
//!
//! `(MORE)`, `CONTINUED` and margin scene numbers have shapes nothing else
//! has. Bare page numbers (`12.`) and running headers need the page: a number
//! alone on a line is a page number when it stands apart at a page's edge or
//! far right; a line is a header or footer when, digits masked, it repeats
//! at page edges.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::lexical::{
    continued_like, interior_in_out, is_upper, mask_digits, mask_key, more_like, opens_heading,
    page_number_shape, split_margin_numbers, squeeze, transition_like, PageShape,
};
use super::Line;
use crate::screenplay::element::{Diagnostic, Noise, NoiseKind};

/// Marks noise lines in place (`Line::noise`), splits margin scene numbers
/// off headings (`Line::number`), and reports each in `noise`.
pub(super) fn mark(
    lines: &mut [Line<'_>],
    noise: &mut Vec<Noise>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let report = |noise: &mut Vec<Noise>, line: &Line<'_>, kind| {
        noise.push(Noise {
            line: line.no,
            kind,
            text: line.text.to_string(),
        })
    };
    for line in lines.iter_mut() {
        if line.text.is_empty() {
            continue;
        }
        if more_like(&line.text) {
            line.noise = Some(NoiseKind::More);
            report(noise, line, NoiseKind::More);
            continue;
        }
        if let Some(m) = split_margin_numbers(line.indent, &line.text) {
            if continued_like(&m.rest) {
                line.noise = Some(NoiseKind::Continued);
                report(noise, line, NoiseKind::Continued);
                continue;
            }
            if m.rest.eq_ignore_ascii_case("OMITTED")
                || m.rest.eq_ignore_ascii_case("SCENE OMITTED")
            {
                line.noise = Some(NoiseKind::SceneNumber);
                report(noise, line, NoiseKind::SceneNumber);
                diagnostics.push(Diagnostic::info(
                    line.no,
                    format!("scene {} is marked OMITTED; nothing to read", m.number),
                ));
                continue;
            }
            // The same number on both margins makes a line a heading
            // (`7  THE VAULT - NIGHT  7`, in any case: `7  the vault - night  7`);
            // on one margin only a line that opens like a heading, since
            // action may start with a number.
            let both = m.left
                && m.right
                && m.rest.chars().any(char::is_alphabetic)
                && (is_upper(&m.rest) || m.rest.chars().count() <= 60);
            let heading = opens_heading(&m.rest) || both || (m.left && interior_in_out(&m.rest));
            if heading {
                noise.push(Noise {
                    line: line.no,
                    kind: NoiseKind::SceneNumber,
                    text: m.number.clone(),
                });
                line.indent = m.indent;
                line.text = Cow::Owned(m.rest);
                line.number = Some(m.number);
                continue;
            }
        }
        if continued_like(&line.text) {
            line.noise = Some(NoiseKind::Continued);
            report(noise, line, NoiseKind::Continued);
        }
    }

    mark_numbers_in_sequence(lines, noise);
    mark_page_numbers(lines, noise);
    mark_running_lines(lines, noise, diagnostics);
}

/// Splits a left scene number off an upper-case line that does not open
/// like a heading (`15KITCHEN`, `27 INSIDE`) when the number is the next in
/// the script's own sequence of numbered headings, and the line stands
/// alone: a converter glued the number to a heading with no INT./EXT.
/// A number out of sequence (`3 MEN ENTER.`) is left to the story.
fn mark_numbers_in_sequence(lines: &mut [Line<'_>], noise: &mut Vec<Noise>) {
    let mut last: Option<u32> = None;
    for i in 0..lines.len() {
        if let Some(n) = lines[i].number.as_deref() {
            last = n.parse().ok().or(last);
            continue;
        }
        let Some(prev) = last else { continue };
        if lines[i].noise.is_some() || !open_before(lines, i) || !open_after(lines, i) {
            continue;
        }
        let text = &lines[i].text;
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=4).contains(&digits) {
            continue;
        }
        let Ok(number) = text[..digits].parse::<u32>() else {
            continue;
        };
        let rest = text[digits..]
            .strip_prefix([' ', '.'])
            .unwrap_or(&text[digits..]);
        let next_in_line = number > prev && number <= prev + 2;
        if !next_in_line
            || !rest.starts_with(|c: char| c.is_ascii_uppercase())
            || !is_upper(rest)
            || rest.chars().count() > 60
        {
            continue;
        }
        let (rest, cut) = (rest.to_string(), text.len() - rest.len());
        let line = &mut lines[i];
        noise.push(Noise {
            line: line.no,
            kind: NoiseKind::SceneNumber,
            text: number.to_string(),
        });
        line.indent += cut;
        line.text = Cow::Owned(rest);
        line.number = Some(number.to_string());
        last = Some(number);
    }
}

/// The fewest lines between two page numbers: a page of a screenplay holds
/// about 55, so consecutive numbers closer than this are not pages.
const MIN_PAGE_LINES: usize = 20;

/// True when line `i` has nothing story-like beside it on that side.
fn open_before(lines: &[Line<'_>], i: usize) -> bool {
    lines[i].page_start || i == 0 || !lines[i - 1].is_content()
}

fn open_after(lines: &[Line<'_>], i: usize) -> bool {
    i + 1 >= lines.len() || lines[i + 1].page_start || !lines[i + 1].is_content()
}

fn mark_page_numbers(lines: &mut [Line<'_>], noise: &mut Vec<Noise>) {
    let n = lines.len();
    // The next and previous non-blank lines, to tell a page's first and last line.
    let mut next_text = vec![None; n];
    let mut seen = None;
    for i in (0..n).rev() {
        next_text[i] = seen;
        if !lines[i].text.is_empty() {
            seen = Some(i);
        }
    }
    let first_text = lines.iter().position(|l| !l.text.is_empty());
    let last_text = lines.iter().rposition(|l| !l.text.is_empty());
    // Bare numbers standing alone that count up page by page are page
    // numbers wherever they stand (`12.` flush left, with no form feeds).
    // (First and last line each value stands on: enough to tell whether
    // `v - 1` comes somewhere before a line and `v + 1` somewhere after.)
    let mut alone: HashMap<u32, (usize, usize)> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_content()
            && line.number.is_none()
            && open_before(lines, i)
            && open_after(lines, i)
        {
            if let Some(v) = bare_value(&line.text) {
                alone
                    .entry(v)
                    .and_modify(|(_, last)| *last = i)
                    .or_insert((i, i));
            }
        }
    }
    // Bare numbers anywhere, glued to the page's last line or not: a number
    // set against the page's text is a page number only in a run of counting
    // numbers a page apart (below).
    let mut anywhere: HashMap<u32, (usize, usize)> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_content() && line.number.is_none() {
            if let Some(v) = bare_value(&line.text) {
                anywhere
                    .entry(v)
                    .and_modify(|(_, last)| *last = i)
                    .or_insert((i, i));
            }
        }
    }
    // (A number is a page's when it stands in a run of three counting up,
    // each a page from the next: `v-1 … v … v+1`, or the run's first or
    // last two.)
    let counted_by_pages = |i: usize, v: u32| {
        let earlier = |v: Option<u32>, than: usize| {
            v.and_then(|v| anywhere.get(&v))
                .is_some_and(|(first, _)| first + MIN_PAGE_LINES <= than)
        };
        let later = |v: u32, than: usize| {
            anywhere
                .get(&v)
                .is_some_and(|(_, last)| *last >= than + MIN_PAGE_LINES)
        };
        let at = |v: u32| anywhere.get(&v).map(|(first, _)| *first);
        let before = earlier(v.checked_sub(1), i);
        let after = later(v + 1, i);
        let two_before = before && at(v - 1).is_some_and(|j| earlier(v.checked_sub(2), j));
        let two_after = after && at(v + 1).is_some_and(|j| later(v + 2, j));
        (before && after) || two_before || two_after
    };
    let in_sequence = |i: usize, v: u32| {
        let before = v
            .checked_sub(1)
            .and_then(|p| alone.get(&p))
            .is_some_and(|(first, _)| *first < i);
        let after = alone.get(&(v + 1)).is_some_and(|(_, last)| *last > i);
        before || after
    };
    for i in 0..n {
        let line = &lines[i];
        if line.noise.is_some() || line.number.is_some() || line.text.is_empty() {
            continue;
        }
        let Some(shape) = page_number_shape(&line.text) else {
            continue;
        };
        let ok = match shape {
            PageShape::Sure => true,
            PageShape::Bare => {
                let edge = line.page_start
                    || next_text[i].is_some_and(|j| lines[j].page_start)
                    || Some(i) == first_text
                    || Some(i) == last_text;
                let isolated = open_before(lines, i) && open_after(lines, i);
                line.page_start
                    || (isolated && (line.indent >= 20 || edge))
                    || (edge && line.indent >= 40)
                    || (isolated && bare_value(&line.text).is_some_and(|v| in_sequence(i, v)))
                    || bare_value(&line.text).is_some_and(|v| counted_by_pages(i, v))
            }
        };
        if ok {
            let line = &mut lines[i];
            line.noise = Some(NoiseKind::PageNumber);
            noise.push(Noise {
                line: line.no,
                kind: NoiseKind::PageNumber,
                text: line.text.to_string(),
            });
        }
    }
}

/// Finds running headers and footers: lines that, digits masked, repeat on
/// at least three pages, stand apart, and sit at a page's edge (or, when the
/// text has no page marks at all, carry a date or revision word).
fn mark_running_lines(
    lines: &mut [Line<'_>],
    noise: &mut Vec<Noise>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let n = lines.len();
    let has_pages = lines
        .iter()
        .any(|l| l.page_start || l.noise == Some(NoiseKind::PageNumber));
    // Content lines between each line and the nearest page edge, each way.
    let mut before = vec![usize::MAX; n];
    let mut after = vec![usize::MAX; n];
    let mut count = 0usize;
    for i in 0..n {
        if lines[i].page_start || lines[i].noise == Some(NoiseKind::PageNumber) {
            count = 0;
        }
        if lines[i].is_content() {
            before[i] = count;
            count += 1;
        }
    }
    count = 0;
    for i in (0..n).rev() {
        if lines[i].noise == Some(NoiseKind::PageNumber) {
            count = 0;
        }
        if lines[i].is_content() {
            after[i] = count;
            count += 1;
        }
        if lines[i].page_start {
            count = 0;
        }
    }

    // Only lines that stand apart can be headers. Count each masked form
    // first, then gather the lines of the few that repeat.
    let keys: Vec<Option<u64>> = (0..n)
        .map(|i| {
            let line = &lines[i];
            let apart = line.is_content()
                && line.number.is_none()
                && line.text.len() >= 3
                && open_before(lines, i)
                && open_after(lines, i);
            apart.then(|| mask_key(&line.text))
        })
        .collect();
    let mut counts: HashMap<u64, u32, KeyHash> = HashMap::default();
    for key in keys.iter().flatten() {
        *counts.entry(*key).or_default() += 1;
    }
    let mut groups: HashMap<u64, Vec<usize>, KeyHash> = HashMap::default();
    for (i, key) in keys.iter().enumerate() {
        if let Some(key) = key {
            if counts[key] >= 3 {
                groups.entry(*key).or_default().push(i);
            }
        }
    }
    let mut found: Vec<(usize, Vec<usize>)> = Vec::new();
    for idxs in groups.into_values() {
        let cnt = idxs.len();
        if cnt < 3 {
            continue;
        }
        let text = &lines[idxs[0]].text;
        if transition_like(text) || opens_heading(text) {
            continue;
        }
        let digit = text.chars().any(|c| c.is_ascii_digit());
        let lower = text.chars().any(char::is_lowercase);
        let accept = if has_pages {
            let edge = idxs
                .iter()
                .filter(|&&i| before[i].min(after[i]) <= 1)
                .count();
            edge * 5 >= cnt * 4 && (digit || lower || cnt >= 4)
        } else {
            // No page marks to check positions against: only a line that
            // says what it is (a draft or revision word, a date) will do.
            let l = text.to_lowercase();
            let word = ["draft", "revision", "revised", "page", "copyright", "©"]
                .iter()
                .any(|w| l.contains(w));
            let masked = mask_digits(text);
            let date = masked.contains("#/#/#") || masked.contains("#.#.#");
            digit && (word || date || numbers_pages(lines, &idxs))
        };
        if accept {
            found.push((idxs[0], idxs));
        }
    }
    // The first script page often carries the header without a page number
    // (`THE SECOND KEY - Blue Revision 03/14/26` over `... 03/14/26   2.`).
    let stems: HashSet<u64> = found
        .iter()
        .filter_map(|(first, _)| without_page_number(&mask_digits(&lines[*first].text)))
        .map(|stem| mask_key(&stem))
        .collect();
    if !stems.is_empty() {
        let mut extra: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, line) in lines.iter().enumerate() {
            if line.is_content() && open_before(lines, i) && open_after(lines, i) {
                let key = mask_key(&line.text);
                if stems.contains(&key) {
                    extra.entry(key).or_default().push(i);
                }
            }
        }
        for idxs in extra.into_values() {
            found.push((idxs[0], idxs));
        }
    }
    found.sort();
    for (first, idxs) in found {
        diagnostics.push(Diagnostic::info(
            lines[first].no,
            format!(
                "running header/footer `{}` found on {} page(s); kept out of the story",
                squeeze(&lines[first].text),
                idxs.len()
            ),
        ));
        for i in idxs {
            let line = &mut lines[i];
            line.noise = Some(NoiseKind::HeaderFooter);
            noise.push(Noise {
                line: line.no,
                kind: NoiseKind::HeaderFooter,
                text: line.text.to_string(),
            });
            // A header that carries the page number (`TITLE - Draft   12.`)
            // also reports the number, so page numbers are listed as such
            // whether or not they have a line of their own.
            if let Some((_, last)) = line.text.trim_end().rsplit_once(' ') {
                if page_number_shape(last).is_some() {
                    noise.push(Noise {
                        line: line.no,
                        kind: NoiseKind::PageNumber,
                        text: last.to_string(),
                    });
                }
            }
        }
    }
}

/// Whether the lines end in a number that counts up page by page (`TITLE
/// 12.`, then `TITLE 13.` a page later): a header carrying its page number.
/// Every line must end in one, the numbers must rise, and most steps be one.
fn numbers_pages(lines: &[Line<'_>], idxs: &[usize]) -> bool {
    let values: Option<Vec<u32>> = idxs
        .iter()
        .map(|&i| {
            let (_, last) = lines[i].text.trim_end().rsplit_once(' ')?;
            page_number_shape(last)?;
            bare_value(last)
        })
        .collect();
    let Some(values) = values else {
        return false;
    };
    let rising = values.windows(2).all(|w| w[0] < w[1]);
    let ones = values.windows(2).filter(|w| w[1] == w[0] + 1).count();
    let spaced = idxs.windows(2).all(|w| w[1] >= w[0] + MIN_PAGE_LINES);
    rising && spaced && ones * 3 >= (values.len() - 1) * 2
}

/// A masked header line without the page number at its end (`... #.`), if it has one.
fn without_page_number(masked: &str) -> Option<String> {
    let (stem, last) = masked.rsplit_once(' ')?;
    page_number_shape(&last.replace('#', "1"))?;
    Some(stem.to_string())
}

/// The value of a bare page number (`12`, `12.`).
fn bare_value(text: &str) -> Option<u32> {
    let t = text.strip_suffix('.').unwrap_or(text);
    if t.is_empty() || t.len() > 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Hashing for keys that are hashes already ([`mask_key`]): used as they are.
type KeyHash = std::hash::BuildHasherDefault<KeyHasher>;

/// See [`KeyHash`].
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys come here; fold anything else in just in case.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
