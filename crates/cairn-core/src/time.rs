//! Times and durations: parsing and formatting, in UTC milliseconds.

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};

use crate::memory::Timestamp;
use crate::{Error, Result};

pub use cairn_text::time::now;

/// Parse a TTL or age like `30m`, `24h`, `7d`, `2w` (also `45s`) into
/// milliseconds. A bare number is refused: the unit is never guessed.
pub fn parse_duration(text: &str) -> Result<i64> {
    let t = text.trim();
    let bad = || {
        Error::invalid(format!(
            "`{text}` is not a duration: use a whole number and a unit, like 30m, 24h, 7d or 2w"
        ))
    };
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (num, unit) = t.split_at(split);
    let n: i64 = num.parse().map_err(|_| bad())?;
    let unit_ms: i64 = match unit.trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        "w" | "week" | "weeks" => 604_800_000,
        _ => return Err(bad()),
    };
    if n <= 0 {
        return Err(Error::invalid(format!(
            "duration `{text}` must be positive"
        )));
    }
    n.checked_mul(unit_ms).ok_or_else(bad)
}

/// Format a time as RFC 3339 with milliseconds, e.g.
/// `2026-11-22T09:48:35.123Z`.
pub fn format_timestamp(ts: Timestamp) -> String {
    match Utc.timestamp_millis_opt(ts).single() {
        Some(dt) => dt.to_rfc3339_opts(SecondsFormat::Millis, true),
        None => ts.to_string(),
    }
}

/// Parse a time: RFC 3339 (`2026-11-22T09:48:35Z`, any offset) or a date
/// (`2026-11-22`, midnight UTC). Sub-millisecond digits are dropped.
pub fn parse_timestamp(text: &str) -> Result<Timestamp> {
    let t = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.timestamp_millis());
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        if let Some(dt) = d.and_hms_opt(0, 0, 0) {
            return Ok(dt.and_utc().timestamp_millis());
        }
    }
    Err(Error::invalid(format!(
        "`{text}` is not a time: use RFC 3339 (2026-11-22T09:48:35Z) or a date (2026-11-22)"
    )))
}

/// A short human description of how long ago `ts` was, e.g. `3d ago`.
pub fn ago(ts: Timestamp, now: Timestamp) -> String {
    let secs = (now - ts) / 1000;
    if secs < 0 {
        return "in the future".into();
    }
    match secs {
        0..=59 => format!("{secs}s ago"),
        60..=3599 => format!("{}m ago", secs / 60),
        3600..=86_399 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30m").unwrap(), 1_800_000);
        assert_eq!(parse_duration("24h").unwrap(), 86_400_000);
        assert_eq!(parse_duration("7d").unwrap(), 604_800_000);
        assert_eq!(parse_duration("2w").unwrap(), 1_209_600_000);
        for bad in [
            "",
            "7",
            "d",
            "7x",
            "-1d",
            "0d",
            "1.5h",
            "99999999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn timestamps_round_trip() {
        let ts = 1_763_804_915_123;
        let s = format_timestamp(ts);
        assert_eq!(s, "2025-11-22T09:48:35.123Z");
        assert_eq!(parse_timestamp(&s).unwrap(), ts);
        assert_eq!(
            parse_timestamp("2025-11-22T10:48:35.123+01:00").unwrap(),
            ts
        );
        assert_eq!(parse_timestamp("2025-11-22").unwrap(), 1_763_769_600_000);
        assert!(parse_timestamp("yesterday").is_err());
    }
}
