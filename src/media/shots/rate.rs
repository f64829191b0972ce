//! Frame rates as exact fractions, the frame ↔ millisecond conventions, and
//! the time stamps manifests are written in.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Highest frame rate accepted. Above 1000 fps a frame lasts less than a
/// millisecond, and two frames could start in the same millisecond.
pub const MAX_FPS: u64 = 1000;

/// Largest frame number accepted (2^40, about 36 years of film at 1000 fps).
/// Bigger numbers are not frame numbers; refusing them keeps every time
/// computation far from overflow.
pub const MAX_FRAME: u64 = 1 << 40;

/// Largest time accepted in a manifest, in milliseconds (about 31 years).
pub const MAX_MS: u64 = 1_000_000_000_000;

/// The largest numerator or denominator kept; a decimal with more than nine
/// places after the point is cut to nine.
const MAX_TERM: u64 = 1_000_000_000_000_000;

/// A frame rate as an exact fraction `num / den` frames per second, reduced.
///
/// Rates are kept exact so that frame ↔ time conversions are exact too: NTSC
/// film is `24000/1001`, not 23.976023976…, and a decimal such as MovieNet's
/// `23.9760000000` is read as exactly 23.976 (`2997/125`). Written and parsed
/// as `24` or `24000/1001` (see [`FrameRate::parse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FrameRate {
    num: u64,
    den: u64,
}

impl FrameRate {
    /// The millisecond clock: 1000 "frames" a second, so frame numbers are milliseconds.
    pub const MILLISECONDS: FrameRate = FrameRate { num: 1000, den: 1 };

    /// `num / den` frames per second, reduced; `None` unless `0 < num / den <= 1000`
    /// (and both terms below 10^15).
    pub fn new(num: u64, den: u64) -> Option<FrameRate> {
        if num == 0 || den == 0 || num > MAX_TERM || den > MAX_TERM {
            return None;
        }
        if u128::from(num) > u128::from(MAX_FPS) * u128::from(den) {
            return None;
        }
        let g = gcd(num, den);
        Some(FrameRate {
            num: num / g,
            den: den / g,
        })
    }

    /// Reads `24`, `23.976`, `23.9760000000` or `24000/1001` (spaces around are
    /// ignored); `None` for anything else, and for rates outside `(0, 1000]`.
    pub fn parse(text: &str) -> Option<FrameRate> {
        let text = text.trim();
        if let Some((a, b)) = text.split_once('/') {
            let num = parse_integer(a.trim())?;
            let den = parse_integer(b.trim())?;
            return FrameRate::new(num, den);
        }
        let (num, den) = parse_decimal(text, 9)?;
        FrameRate::new(num, den)
    }

    /// The rate closest to `fps` with at most nine decimal places; `None` for
    /// rates outside `(0, 1000]`, NaN and infinities.
    pub fn from_f64(fps: f64) -> Option<FrameRate> {
        if !fps.is_finite() || fps <= 0.0 || fps > MAX_FPS as f64 {
            return None;
        }
        // Display gives the shortest decimal that reads back as the same f64,
        // never an exponent, so 23.976 becomes exactly 2997/125.
        FrameRate::parse(&fps.to_string())
    }

    /// The numerator of the reduced fraction.
    pub fn numerator(self) -> u64 {
        self.num
    }

    /// The denominator of the reduced fraction.
    pub fn denominator(self) -> u64 {
        self.den
    }

    /// Frames per second as a float, for display.
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The first whole millisecond at which `frame` (0-based) is on screen:
    /// `ceil(frame × 1000 / fps)`.
    ///
    /// Exact integer arithmetic, so it is strictly increasing in `frame` and
    /// [`FrameRate::ms_to_frame`] undoes it. Saturates at `u64::MAX`.
    pub fn frame_to_ms(self, frame: u64) -> u64 {
        let n = u128::from(frame) * 1000 * u128::from(self.den);
        let d = u128::from(self.num);
        u64::try_from(n.div_ceil(d)).unwrap_or(u64::MAX)
    }

    /// The frame on screen at millisecond `ms`: `floor(ms × fps / 1000)`.
    pub fn ms_to_frame(self, ms: u64) -> u64 {
        let n = u128::from(ms) * u128::from(self.num);
        let d = 1000 * u128::from(self.den);
        u64::try_from(n / d).unwrap_or(u64::MAX)
    }
}

impl fmt::Display for FrameRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

impl FromStr for FrameRate {
    type Err = String;

    /// As [`FrameRate::parse`], with a message fit for a command line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FrameRate::parse(s).ok_or_else(|| {
            format!("`{s}` is not a frame rate: give frames per second, e.g. 24, 23.976 or 24000/1001 (at most {MAX_FPS})")
        })
    }
}

impl TryFrom<String> for FrameRate {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<FrameRate> for String {
    fn from(r: FrameRate) -> String {
        r.to_string()
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// ASCII digits only, no sign, at most 15 of them after leading zeros.
fn parse_integer(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = text.trim_start_matches('0');
    if digits.len() > 15 {
        return None;
    }
    Some(digits.parse().unwrap_or(0))
}

/// `12`, `12.`, `.5`, `12.345`, `+12.5` as the exact fraction `num / 10^k`,
/// keeping at most `places` decimals (the rest are cut). `None` for anything
/// else or an integer part over 15 digits.
fn parse_decimal(text: &str, places: usize) -> Option<(u64, u64)> {
    let text = text.strip_prefix('+').unwrap_or(text);
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let int = if int.is_empty() {
        0
    } else {
        parse_integer(int)?
    };
    let kept = &frac[..frac.len().min(places)];
    let mut num = int;
    let mut den = 1u64;
    for b in kept.bytes() {
        num = num.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        den *= 10;
    }
    Some((num, den))
}

/// Reads a time written in seconds (`12`, `12.5`) or as a clock
/// (`HH:MM:SS.mmm`, `H:MM:SS`, `MM:SS.mmm`) and gives whole milliseconds,
/// rounding sub-millisecond digits half up. Refuses signs, minutes or seconds
/// of 60 and more after a larger unit, and times over [`MAX_MS`].
pub fn parse_seconds(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("no time given".into());
    }
    if text.starts_with('-') {
        return Err(format!("`{text}` is a negative time"));
    }
    let bad = || {
        format!("`{text}` is not a time: write seconds (`83.5`) or `HH:MM:SS.mmm` (`00:01:23.500`)")
    };
    let parts: Vec<&str> = text.splitn(4, ':').collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let (last, units) = parts.split_last().ok_or_else(bad)?;
    let mut ms = decimal_ms(last, 1000).ok_or_else(bad)?;
    if !units.is_empty() && ms >= 60_000 {
        return Err(format!(
            "`{text}`: seconds must be below 60 in a clock time"
        ));
    }
    // Minutes (then hours), from the right.
    for (i, unit) in units.iter().rev().enumerate() {
        let value = parse_integer(unit.trim()).ok_or_else(bad)?;
        if i == 0 && units.len() == 2 && value >= 60 {
            return Err(format!(
                "`{text}`: minutes must be below 60 in a clock time"
            ));
        }
        let scale = if i == 0 { 60_000 } else { 3_600_000 };
        ms = value
            .checked_mul(scale)
            .and_then(|v| v.checked_add(ms))
            .ok_or_else(bad)?;
    }
    if ms > MAX_MS {
        return Err(format!(
            "`{text}` is too late for a film (more than {MAX_MS} ms)"
        ));
    }
    Ok(ms)
}

/// Reads a time in milliseconds (`1500`, `1500.4`), rounding half up.
pub fn parse_millis(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.starts_with('-') {
        return Err(format!("`{text}` is a negative time"));
    }
    let ms = decimal_ms(text, 1)
        .ok_or_else(|| format!("`{text}` is not a time in milliseconds (`83500`)"))?;
    if ms > MAX_MS {
        return Err(format!(
            "`{text}` is too late for a film (more than {MAX_MS} ms)"
        ));
    }
    Ok(ms)
}

/// A decimal number of units of `unit_ms` milliseconds (1000 for seconds, 1
/// for milliseconds), as whole milliseconds rounded half up.
fn decimal_ms(text: &str, unit_ms: u64) -> Option<u64> {
    let (num, den) = parse_decimal(text, 6)?;
    let n = u128::from(num) * u128::from(unit_ms);
    let d = u128::from(den);
    let ms = (2 * n + d) / (2 * d);
    u64::try_from(ms).ok().filter(|ms| *ms <= MAX_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_exactly() {
        let r = FrameRate::parse("23.9760000000").unwrap();
        assert_eq!((r.numerator(), r.denominator()), (2997, 125));
        assert_eq!(r.as_f64(), 23.976);
        let ntsc = FrameRate::parse(" 24000/1001 ").unwrap();
        assert_eq!(ntsc.to_string(), "24000/1001");
        assert_eq!(FrameRate::parse("24").unwrap().to_string(), "24");
        assert_eq!(FrameRate::parse("25.").unwrap().to_string(), "25");
        assert_eq!(FrameRate::from_f64(24.0).unwrap().to_string(), "24");
        assert_eq!(FrameRate::from_f64(23.976).unwrap(), r);
        for bad in [
            "", "0", "-24", "0/0", "24/0", "1001/0", "abc", "2.4e1", "1000.5", "1e400", ".",
            "24 fps",
        ] {
            assert_eq!(FrameRate::parse(bad), None, "{bad:?}");
        }
        assert_eq!(FrameRate::from_f64(f64::NAN), None);
        assert!("24000/1001".parse::<FrameRate>().is_ok());
        assert!("nope"
            .parse::<FrameRate>()
            .unwrap_err()
            .contains("24000/1001"));
    }

    #[test]
    fn frame_and_ms_round_trip() {
        let rates = [
            "24",
            "23.976",
            "24000/1001",
            "30000/1001",
            "25",
            "1000",
            "0.5",
        ];
        for r in rates.map(|r| FrameRate::parse(r).unwrap()) {
            let mut last = None;
            for f in (0..5000).chain([MAX_FRAME - 1, MAX_FRAME]) {
                let ms = r.frame_to_ms(f);
                assert_eq!(r.ms_to_frame(ms), f, "{r} frame {f}");
                if let Some(prev) = last {
                    assert!(ms > prev);
                }
                last = Some(ms);
            }
        }
        let r24 = FrameRate::parse("24").unwrap();
        assert_eq!(r24.frame_to_ms(96), 4000);
        assert_eq!(r24.frame_to_ms(1185), 49375);
        assert_eq!(r24.frame_to_ms(1), 42); // 41.67 ms: the first whole ms of frame 1
        assert_eq!(r24.ms_to_frame(41), 0);
        assert_eq!(r24.ms_to_frame(42), 1);
        // Exact NTSC: frame 24000 starts at exactly 1001 s.
        let ntsc = FrameRate::parse("24000/1001").unwrap();
        assert_eq!(ntsc.frame_to_ms(24000), 1_001_000);
        assert_eq!(FrameRate::MILLISECONDS.frame_to_ms(1234), 1234);
        // Tiny rates saturate instead of overflowing.
        let slow = FrameRate::new(1, MAX_TERM).unwrap();
        assert_eq!(slow.frame_to_ms(MAX_FRAME), u64::MAX);
        assert_eq!(slow.ms_to_frame(u64::MAX), 18);
    }

    #[test]
    fn times_in_seconds_and_clocks() {
        assert_eq!(parse_seconds("12"), Ok(12_000));
        assert_eq!(parse_seconds(" 12.5 "), Ok(12_500));
        assert_eq!(parse_seconds("0.0005"), Ok(1));
        assert_eq!(parse_seconds("0.0004"), Ok(0));
        assert_eq!(parse_seconds("00:01:23.456"), Ok(83_456));
        assert_eq!(parse_seconds("1:02:03"), Ok(3_723_000));
        assert_eq!(parse_seconds("02:03.5"), Ok(123_500));
        assert_eq!(parse_seconds("100:00:00"), Ok(360_000_000));
        assert!(parse_seconds("-1").unwrap_err().contains("negative"));
        assert!(parse_seconds("00:60:00").is_err());
        assert!(parse_seconds("00:00:60").is_err());
        assert!(parse_seconds("1:2:3:4").is_err());
        assert!(parse_seconds("12,5").is_err());
        assert!(parse_seconds("").is_err());
        assert!(parse_seconds("99999999999999999999").is_err());
        assert!(parse_seconds("1e3").is_err());
        assert_eq!(parse_millis("1500"), Ok(1500));
        assert_eq!(parse_millis("1500.5"), Ok(1501));
        assert!(parse_millis("1:00").is_err());
    }
}
