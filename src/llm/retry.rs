//! Backoff: exponential with full jitter, or the server's own delay when it gives one.

use std::time::Duration;

use rand::Rng;

use super::config::ClientConfig;

/// The wait before retry number `retry` (0-based) when the server named no delay:
/// uniform in `[0, min(max, base × 2^retry)]` ("full jitter"), so many callers that
/// failed together do not come back together.
pub fn backoff(policy: &ClientConfig, retry: u32) -> Duration {
    let cap = policy
        .backoff_base_ms
        .saturating_mul(1u64 << retry.min(30))
        .min(policy.backoff_max_ms);
    Duration::from_millis(rand::rng().random_range(0..=cap))
}

/// The wait when the server named one: that delay plus up to 10% (at most 1 s) of
/// jitter, never less than asked.
pub fn honour(delay: Duration) -> Duration {
    let extra = (delay / 10).min(Duration::from_secs(1));
    delay + extra.mul_f64(rand::rng().random_range(0.0..=1.0))
}

/// The delay a rate-limited response asks for: `retry-after-ms` when present (it is
/// the precise form of `Retry-After`, which servers round up to whole seconds), else
/// the longest of `Retry-After` (seconds) and `x-ratelimit-reset-requests`/`-tokens`
/// (`1s`, `6m0s`, `250ms`). A `Retry-After` given as an HTTP date counts from now
/// (a date already past asks for no wait).
pub fn server_delay<'a>(headers: impl Iterator<Item = (&'a str, &'a str)>) -> Option<Duration> {
    let mut best: Option<Duration> = None;
    let mut precise: Option<Duration> = None;
    for (name, value) in headers {
        let value = value.trim();
        let lower = name.to_ascii_lowercase();
        if lower == "retry-after-ms" {
            precise = value
                .parse::<f64>()
                .ok()
                .filter(|ms| ms.is_finite() && *ms >= 0.0 && *ms < 86_400_000.0)
                .map(|ms| Duration::from_secs_f64(ms / 1000.0));
            continue;
        }
        let d = match lower.as_str() {
            "retry-after" => value.parse::<f64>().ok().or_else(|| {
                let until = httpdate::parse_http_date(value).ok()?;
                Some(
                    until
                        .duration_since(std::time::SystemTime::now())
                        .unwrap_or_default()
                        .as_secs_f64(),
                )
            }),
            "x-ratelimit-reset-requests" | "x-ratelimit-reset-tokens" => go_duration(value),
            _ => None,
        };
        if let Some(secs) = d.filter(|s| s.is_finite() && *s >= 0.0 && *s < 86_400.0) {
            let d = Duration::from_secs_f64(secs);
            best = Some(best.map_or(d, |b| b.max(d)));
        }
    }
    precise.or(best)
}

/// Seconds in a Go-style duration (`1h2m3.5s`, `20ms`); a bare number is seconds.
fn go_duration(s: &str) -> Option<f64> {
    if let Ok(secs) = s.parse::<f64>() {
        return Some(secs);
    }
    let mut total = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let n: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += n * scale;
        rest = &rest[unit_end..];
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = ClientConfig {
            backoff_base_ms: 100,
            backoff_max_ms: 1000,
            ..ClientConfig::default()
        };
        for _ in 0..200 {
            assert!(backoff(&policy, 0) <= Duration::from_millis(100));
            assert!(backoff(&policy, 3) <= Duration::from_millis(800));
            assert!(backoff(&policy, 40) <= Duration::from_millis(1000));
        }
        // Full jitter spreads the waits: 200 draws are not all equal.
        let draws: std::collections::BTreeSet<_> = (0..200).map(|_| backoff(&policy, 5)).collect();
        assert!(draws.len() > 10);
    }

    #[test]
    fn server_delays_are_read_from_every_header() {
        let d = |h: &[(&str, &str)]| server_delay(h.iter().copied());
        assert_eq!(d(&[("Retry-After", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            d(&[("retry-after-ms", "250"), ("retry-after", "1")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            d(&[("x-ratelimit-reset-requests", "1m30s")]),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            d(&[("x-ratelimit-reset-tokens", "20ms"), ("retry-after", "0")]),
            Some(Duration::from_millis(20))
        );
        // An HTTP date: in the past asks for no wait, in the future for the time until it.
        assert_eq!(
            d(&[("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            Some(Duration::ZERO)
        );
        let later = std::time::SystemTime::now() + Duration::from_secs(30);
        let wait = d(&[("Retry-After", httpdate::fmt_http_date(later).as_str())]).unwrap();
        assert!(
            wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert_eq!(d(&[("Retry-After", "soon")]), None);
        assert_eq!(d(&[("content-type", "text/plain")]), None);
    }

    #[test]
    fn honouring_never_waits_less_than_asked() {
        for _ in 0..100 {
            let w = honour(Duration::from_millis(500));
            assert!(w >= Duration::from_millis(500) && w <= Duration::from_millis(550));
        }
    }
}
