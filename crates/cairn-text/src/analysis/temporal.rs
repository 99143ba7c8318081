//! Time expressions in a search query ("last week", "3 days ago",
//! "in March", "between Monday and Wednesday") read as a range of time,
//! relative to a reference time: now for a live query, a conversation's own
//! date when reading what was said in it.
//!
//! ## Rules
//! - Calendar units are UTC: a day runs from midnight to midnight UTC, a
//!   week from Monday 00:00 to the next Monday, a month from its first day to
//!   the first day of the next. Ranges are half-open, `[start, end)`.
//! - Parts of a day: morning 00:00–12:00, afternoon 12:00–18:00, evening
//!   and "tonight" 18:00–24:00, "last night" 18:00 the day before to 06:00;
//!   "earlier today" is midnight to the reference time.
//! - "N days/weeks/months/years ago" is the calendar day, the Monday-started
//!   week, the calendar month or the calendar year that lies N units before
//!   the reference. "N hours/minutes ago" is a window of ±1 unit around that
//!   instant.
//! - Rolling windows ("the last 3 days", "the past week", "past 2 months")
//!   run from midnight N units before the reference day to the end of the
//!   reference day, so they include today. "last week", "last month" and
//!   "last year" (no number) are the previous calendar unit instead; "the
//!   past week" is the rolling 7 days.
//! - "recently" and "lately" are the rolling last 7 days.
//! - A bare weekday ("on Monday") is the most recent such day on or before
//!   the reference day; "last Monday" is the most recent strictly before it;
//!   "this Monday" is the one in the reference's week; "next Monday" the
//!   first strictly after.
//! - A month without a year ("in March") is the most recent March that has
//!   begun by the reference; "last March" the most recent before the
//!   reference's month. A day without a year ("8 May") is the most recent
//!   one on or before the reference day.
//! - "since X" runs from the start of X to the end of the reference day (or
//!   of X, if later); "after X" from the end of X and "before X" up to the
//!   start of X are open-ended ([`TimeRange::UNBOUNDED_START`],
//!   [`TimeRange::UNBOUNDED_END`]); "until X" includes X. "between X and Y"
//!   and "from X to Y" run from the start of X to the end of Y; a bare
//!   weekday or month Y that would fall before X is taken in the following
//!   week or year ("from Friday to Monday").
//! - A preposition before an expression ("in", "on", "during", "over",
//!   "within", "for", "of", "from") belongs to its span, so that
//!   [`remove_time`] leaves no dangling "in".
//! - The words "may" and "march", and month abbreviations ("mar", "dec"),
//!   count only in a date-like context: a preceding preposition ("in May",
//!   "since March"), "last/this/next", a day number or a year. Other full
//!   month names count alone.
//! - A bare year ("2023") counts only right after a preposition or operator
//!   ("in 2023", "since 2021") or as the whole query, never as a modifier
//!   ("the 2023 budget").
//! - Numeric dates other than ISO (`05/08/2023`) are ambiguous between
//!   day-first and month-first and are not read.
//!
//! Only the first expression of a query is read.

use std::ops::Range;

use chrono::{DateTime, Datelike, Days, Months, NaiveDate, Weekday};
use serde::{Deserialize, Serialize};

use crate::kind::Timestamp;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// A half-open range of time, `[start, end)`, in milliseconds since the
/// Unix epoch (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeRange {
    /// The first millisecond in the range.
    pub start: Timestamp,
    /// The first millisecond after the range.
    pub end: Timestamp,
}

impl TimeRange {
    /// The start of a range open towards the past ("before May").
    pub const UNBOUNDED_START: Timestamp = i64::MIN;
    /// The end of a range open towards the future ("after May").
    pub const UNBOUNDED_END: Timestamp = i64::MAX;

    /// Whether `t` lies in the range.
    pub fn contains(&self, t: Timestamp) -> bool {
        self.start <= t && t < self.end
    }
}

/// A time expression found in a query: the range it denotes and the bytes
/// of the query it was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeExpression {
    /// The time the expression denotes.
    pub range: TimeRange,
    /// The byte range of the query holding the expression, including its
    /// preposition or operator ("in March", "since last week").
    pub span: Range<usize>,
}

/// Reads the first time expression in `query`, relative to `reference`
/// (usually now), or `None` when the query names no time. The rules are in
/// the module documentation.
pub fn parse_time(query: &str, reference: Timestamp) -> Option<TimeExpression> {
    let tokens = tokenize(query);
    let today = DateTime::from_timestamp_millis(reference)?.date_naive();
    let p = Parser {
        t: &tokens,
        today,
        reference,
    };
    (0..tokens.len()).find_map(|i| {
        let (range, end) = p.expression(i)?;
        Some(TimeExpression {
            range,
            span: tokens[i].start..tokens[end - 1].end,
        })
    })
}

/// Reads the first time expression in `query` relative to the current
/// time: [`parse_time`] for a live query.
pub fn parse_time_now(query: &str) -> Option<TimeExpression> {
    parse_time(query, crate::time::now())
}

/// `query` without the words of `expression`, with whitespace collapsed and
/// no space left before punctuation: the part of the query to search by
/// content.
pub fn remove_time(query: &str, expression: &TimeExpression) -> String {
    let (Some(before), Some(after)) = (
        query.get(..expression.span.start),
        query.get(expression.span.end..),
    ) else {
        return query.to_string();
    };
    let after = after
        .strip_prefix("'s")
        .or_else(|| after.strip_prefix("’s"))
        .unwrap_or(after);
    let joined = format!("{before} {after}");
    let mut out = String::with_capacity(joined.len());
    for word in joined.split_whitespace() {
        let glued = word.starts_with(['?', '.', '!', ',', ';', ':']);
        if !out.is_empty() && !glued {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.trim_matches(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .to_string()
}

/// Splits `query` into the text left to search and its first time
/// expression, read relative to `reference`.
pub fn split_time(query: &str, reference: Timestamp) -> (String, Option<TimeExpression>) {
    match parse_time(query, reference) {
        Some(e) => (remove_time(query, &e), Some(e)),
        None => (query.trim().to_string(), None),
    }
}

/// A word of the query, lowercased, with its byte range.
struct Token {
    word: String,
    start: usize,
    end: usize,
}

/// Runs of letters and digits; a `-` between two digits stays inside a
/// token so that `2023-05-08` is one.
fn tokenize(query: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut chars = query.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let inside = c.is_alphanumeric()
            || (c == '-'
                && prev.is_some_and(|p| p.is_ascii_digit())
                && next.is_some_and(|n| n.is_ascii_digit())
                && start.is_some());
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Token {
                    word: query[s..i].to_lowercase(),
                    start: s,
                    end: i,
                });
                start = None;
            }
            _ => {}
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        out.push(Token {
            word: query[s..].to_lowercase(),
            start: s,
            end: query.len(),
        });
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "minute" | "minutes" | "min" | "mins" => Unit::Minute,
        "hour" | "hours" | "hr" | "hrs" => Unit::Hour,
        "day" | "days" => Unit::Day,
        "week" | "weeks" => Unit::Week,
        "month" | "months" => Unit::Month,
        "year" | "years" => Unit::Year,
        _ => return None,
    })
}

fn number_word(word: &str) -> Option<i64> {
    const WORDS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    WORDS
        .iter()
        .position(|w| *w == word)
        .map(|p| p as i64 + 1)
        .or(match word {
            "fifteen" => Some(15),
            "twenty" => Some(20),
            "thirty" => Some(30),
            _ => None,
        })
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" => Weekday::Mon,
        "tuesday" => Weekday::Tue,
        "wednesday" => Weekday::Wed,
        "thursday" => Weekday::Thu,
        "friday" => Weekday::Fri,
        "saturday" => Weekday::Sat,
        "sunday" => Weekday::Sun,
        _ => return None,
    })
}

/// A month's number and whether the word needs date-like context to count
/// ("may", "march" and abbreviations do).
fn month_name(word: &str) -> Option<(u32, bool)> {
    Some(match word {
        "january" => (1, false),
        "february" => (2, false),
        "march" => (3, true),
        "april" => (4, false),
        "may" => (5, true),
        "june" => (6, false),
        "july" => (7, false),
        "august" => (8, false),
        "september" => (9, false),
        "october" => (10, false),
        "november" => (11, false),
        "december" => (12, false),
        "jan" => (1, true),
        "feb" => (2, true),
        "mar" => (3, true),
        "apr" => (4, true),
        "jun" => (6, true),
        "jul" => (7, true),
        "aug" => (8, true),
        "sep" | "sept" => (9, true),
        "oct" => (10, true),
        "nov" => (11, true),
        "dec" => (12, true),
        _ => return None,
    })
}

/// A day of the month: `8`, `08`, `8th`, `1st`, `22nd`, `23rd`.
fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    let d: u32 = digits.parse().ok()?;
    (1..=31).contains(&d).then_some(d)
}

/// A four-digit year from 1900 to 2100.
fn year_number(word: &str) -> Option<i32> {
    if word.len() != 4 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let y: i32 = word.parse().ok()?;
    (1900..=2100).contains(&y).then_some(y)
}

fn midnight(d: NaiveDate) -> Option<Timestamp> {
    Some(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
}

fn days(first: NaiveDate, end: NaiveDate) -> Option<TimeRange> {
    Some(TimeRange {
        start: midnight(first)?,
        end: midnight(end)?,
    })
}

fn day(d: NaiveDate) -> Option<TimeRange> {
    days(d, d.succ_opt()?)
}

fn hours_of(d: NaiveDate, from: i64, to: i64) -> Option<TimeRange> {
    let m = midnight(d)?;
    Some(TimeRange {
        start: m + from * HOUR_MS,
        end: m + to * HOUR_MS,
    })
}

fn month(year: i32, month: u32) -> Option<TimeRange> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    days(first, first.checked_add_months(Months::new(1))?)
}

fn year(y: i32) -> Option<TimeRange> {
    days(
        NaiveDate::from_ymd_opt(y, 1, 1)?,
        NaiveDate::from_ymd_opt(y + 1, 1, 1)?,
    )
}

fn week_start(d: NaiveDate) -> Option<NaiveDate> {
    d.checked_sub_days(Days::new(d.weekday().num_days_from_monday().into()))
}

fn sub_days(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    if n >= 0 {
        d.checked_sub_days(Days::new(n as u64))
    } else {
        d.checked_add_days(Days::new(n.unsigned_abs()))
    }
}

fn sub_months(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    let n = u32::try_from(n).ok()?;
    d.checked_sub_months(Months::new(n))
}

/// The recursive-descent reader over a query's tokens. Each rule returns
/// the range it read and the index of the token after it.
struct Parser<'a> {
    t: &'a [Token],
    today: NaiveDate,
    reference: Timestamp,
}

type Read = (TimeRange, usize);

impl Parser<'_> {
    fn w(&self, i: usize) -> Option<&str> {
        self.t.get(i).map(|t| t.word.as_str())
    }

    fn end_of_today(&self) -> Option<Timestamp> {
        midnight(self.today.succ_opt()?)
    }

    /// An operator ("since", "between … and …") or a point in time.
    fn expression(&self, i: usize) -> Option<Read> {
        match self.w(i)? {
            "since" => {
                let (r, j) = self.point(i + 1, true)?;
                let end = self.end_of_today()?.max(r.end);
                Some((
                    TimeRange {
                        start: r.start,
                        end,
                    },
                    j,
                ))
            }
            "before" => {
                let (r, j) = self.point(i + 1, true)?;
                Some((range(TimeRange::UNBOUNDED_START, r.start), j))
            }
            "until" | "till" | "til" => {
                let (r, j) = self.point(i + 1, true)?;
                Some((range(TimeRange::UNBOUNDED_START, r.end), j))
            }
            "after" => {
                let (r, j) = self.point(i + 1, true)?;
                Some((range(r.end, TimeRange::UNBOUNDED_END), j))
            }
            "between" => {
                let (a, j) = self.point(i + 1, true)?;
                if self.w(j) != Some("and") {
                    return None;
                }
                let (b, k) = self.second(a, j + 1)?;
                Some((span_of(a, b), k))
            }
            "from" => {
                let (a, j) = self.point(i + 1, true)?;
                if matches!(
                    self.w(j),
                    Some("to" | "until" | "till" | "through" | "thru")
                ) {
                    if let Some((b, k)) = self.second(a, j + 1) {
                        return Some((span_of(a, b), k));
                    }
                }
                Some((a, j))
            }
            _ => self.point(i, false),
        }
    }

    /// The second end of "between X and Y" or "from X to Y". A bare weekday
    /// or month that would fall before X is taken in the following week or
    /// year instead ("from Friday to Monday", "from November to February").
    fn second(&self, first: TimeRange, i: usize) -> Option<Read> {
        let (mut b, k) = self.point(i, true)?;
        let j = if matches!(self.w(i), Some("on" | "in")) {
            i + 1
        } else {
            i
        };
        let word = self.w(j)?;
        if b.end <= first.start && k == j + 1 {
            if weekday(word).is_some() {
                let weeks = (first.start - b.start).div_euclid(7 * DAY_MS) + 1;
                b = range(b.start + weeks * 7 * DAY_MS, b.end + weeks * 7 * DAY_MS);
            } else if month_name(word).is_some() {
                let start = DateTime::from_timestamp_millis(b.start)?.date_naive();
                let years = first.start.saturating_sub(b.start) / (365 * DAY_MS) + 1;
                let later =
                    start.checked_add_months(Months::new(12 * u32::try_from(years).ok()?))?;
                b = month(later.year(), later.month())?;
            }
        }
        Some((b, k))
    }

    /// A point in time with an optional preposition and "the", refined by
    /// a following part of the day ("yesterday morning").
    fn point(&self, i: usize, context: bool) -> Option<Read> {
        let mut j = i;
        let mut context = context;
        if matches!(
            self.w(j),
            Some("in" | "on" | "during" | "over" | "within" | "for" | "of")
        ) {
            j += 1;
            context = true;
        }
        if self.w(j) == Some("the") {
            j += 1;
            context = false;
        }
        let (r, end) = self.core(j, context)?;
        Some(self.part_of_day(r, end))
    }

    fn part_of_day(&self, r: TimeRange, end: usize) -> Read {
        if r.end - r.start != DAY_MS {
            return (r, end);
        }
        let (from, to) = match self.w(end) {
            Some("morning") => (0, 12),
            Some("afternoon") => (12, 18),
            Some("evening" | "night") => (18, 24),
            _ => return (r, end),
        };
        (
            range(r.start + from * HOUR_MS, r.start + to * HOUR_MS),
            end + 1,
        )
    }

    fn core(&self, j: usize, context: bool) -> Option<Read> {
        let today = self.today;
        let w0 = self.w(j)?;
        match w0 {
            "today" => return Some((day(today)?, j + 1)),
            "tonight" => return Some((hours_of(today, 18, 24)?, j + 1)),
            "yesterday" => return Some((day(today.pred_opt()?)?, j + 1)),
            "tomorrow" => return Some((day(today.succ_opt()?)?, j + 1)),
            "recently" | "lately" => return Some((self.rolling(Unit::Day, 7)?, j + 1)),
            "earlier" if self.w(j + 1) == Some("today") => {
                return Some((range(midnight(today)?, self.reference), j + 2));
            }
            "day" if self.w(j + 1) == Some("before") && self.w(j + 2) == Some("yesterday") => {
                return Some((day(sub_days(today, 2)?)?, j + 3));
            }
            "this" | "last" | "past" | "previous" | "next" => return self.relative(j),
            _ => {}
        }
        if let Some((n, k)) = self.quantity(j) {
            if let Some(u) = self.w(k).and_then(unit) {
                if self.w(k + 1) == Some("ago") {
                    return Some((self.ago(u, n)?, k + 2));
                }
            }
        }
        if let Some(wd) = weekday(w0) {
            let back = (today.weekday().num_days_from_monday() + 7 - wd.num_days_from_monday()) % 7;
            return Some((day(sub_days(today, back.into())?)?, j + 1));
        }
        if let Some(r) = iso(w0) {
            return Some((r, j + 1));
        }
        if let Some(read) = self.calendar_date(j, context) {
            return Some(read);
        }
        let alone = self.t.len() == 1;
        if let Some(y) = year_number(w0).filter(|_| context || alone) {
            return Some((year(y)?, j + 1));
        }
        None
    }

    /// "this/last/past/previous/next" followed by a unit, a number of
    /// units, a weekday, a month or "night".
    fn relative(&self, j: usize) -> Option<Read> {
        let today = self.today;
        let which = self.w(j)?;
        let offset: i64 = match which {
            "this" => 0,
            "next" => 1,
            _ => -1,
        };
        if which != "this" && which != "next" {
            if let Some((n, k)) = self.quantity(j + 1) {
                if let Some(u) = self.w(k).and_then(unit) {
                    return Some((self.rolling(u, n)?, k + 1));
                }
            }
        }
        let w1 = self.w(j + 1)?;
        let r = match w1 {
            "morning" if which == "this" => hours_of(today, 0, 12)?,
            "afternoon" if which == "this" => hours_of(today, 12, 18)?,
            "evening" if which == "this" => hours_of(today, 18, 24)?,
            "night" if which == "last" => range(
                midnight(today)? - 6 * HOUR_MS,
                midnight(today)? + 6 * HOUR_MS,
            ),
            "hour" if which == "past" || which == "last" => {
                range(self.reference - HOUR_MS, self.end_of_today()?)
            }
            "week" | "month" | "year" if which == "past" => self.rolling(unit(w1)?, 1)?,
            "week" => {
                let ws = sub_days(week_start(today)?, -7 * offset)?;
                days(ws, sub_days(ws, -7)?)?
            }
            "weekend" => {
                let ws = sub_days(week_start(today)?, -7 * offset)?;
                days(sub_days(ws, -5)?, sub_days(ws, -7)?)?
            }
            "month" => {
                let first = today.with_day(1)?;
                let m = if offset >= 0 {
                    first.checked_add_months(Months::new(offset as u32))?
                } else {
                    first.checked_sub_months(Months::new(1))?
                };
                month(m.year(), m.month())?
            }
            "year" => year(today.year() + offset as i32)?,
            _ => {
                if let Some(wd) = weekday(w1) {
                    let t = today.weekday().num_days_from_monday() as i64;
                    let d = wd.num_days_from_monday() as i64;
                    let date = match which {
                        "this" => sub_days(week_start(today)?, -d)?,
                        "next" => sub_days(today, -((d - t + 6).rem_euclid(7) + 1))?,
                        _ => sub_days(today, (t - d + 6).rem_euclid(7) + 1)?,
                    };
                    day(date)?
                } else if let Some((m, _)) = month_name(w1) {
                    let cur = today.month();
                    let y = today.year()
                        + match which {
                            "this" => 0,
                            "next" => i32::from(m <= cur),
                            _ => -i32::from(m >= cur),
                        };
                    month(y, m)?
                } else {
                    return None;
                }
            }
        };
        Some((r, j + 2))
    }

    /// A count: digits, "one" to "twelve", "a", "an", "a couple of",
    /// "a few", "several".
    fn quantity(&self, i: usize) -> Option<(i64, usize)> {
        let w = self.w(i)?;
        let after_of = |k: usize| if self.w(k) == Some("of") { k + 1 } else { k };
        match w {
            "a" | "an" => match self.w(i + 1) {
                Some("couple") => Some((2, after_of(i + 2))),
                Some("few") => Some((3, i + 2)),
                _ => Some((1, i + 1)),
            },
            "couple" => Some((2, after_of(i + 1))),
            "few" | "several" => Some((3, i + 1)),
            _ if w.len() <= 5 && w.bytes().all(|b| b.is_ascii_digit()) => {
                Some((w.parse().ok()?, i + 1))
            }
            _ => number_word(w).map(|n| (n, i + 1)),
        }
    }

    /// The calendar unit N units before the reference.
    fn ago(&self, u: Unit, n: i64) -> Option<TimeRange> {
        let today = self.today;
        let around = |unit_ms: i64| {
            let at = self.reference - n * unit_ms;
            range(at - unit_ms, at + unit_ms)
        };
        Some(match u {
            Unit::Minute => around(60_000),
            Unit::Hour => around(HOUR_MS),
            Unit::Day => day(sub_days(today, n)?)?,
            Unit::Week => {
                let ws = week_start(sub_days(today, 7 * n)?)?;
                days(ws, sub_days(ws, -7)?)?
            }
            Unit::Month => {
                let m = sub_months(today.with_day(1)?, n)?;
                month(m.year(), m.month())?
            }
            Unit::Year => year(today.year() - i32::try_from(n).ok()?)?,
        })
    }

    /// From N units before the reference day (or instant, for hours and
    /// minutes) to the end of the reference day.
    fn rolling(&self, u: Unit, n: i64) -> Option<TimeRange> {
        let today = self.today;
        let start = match u {
            Unit::Minute => self.reference - n * 60_000,
            Unit::Hour => self.reference - n * HOUR_MS,
            Unit::Day => midnight(sub_days(today, n)?)?,
            Unit::Week => midnight(sub_days(today, 7 * n)?)?,
            Unit::Month => midnight(sub_months(today, n)?)?,
            Unit::Year => midnight(sub_months(today, n.checked_mul(12)?)?)?,
        };
        Some(range(start, self.end_of_today()?))
    }

    /// "8 May 2023", "8th of May", "May 8, 2023", "May 8", "May 2023",
    /// "March" (with context where the month word needs it).
    fn calendar_date(&self, j: usize, context: bool) -> Option<Read> {
        let w0 = self.w(j)?;
        // Day first: "8 May 2023", "8th of May".
        if let Some(d) = day_number(w0) {
            let k = if self.w(j + 1) == Some("of") {
                j + 2
            } else {
                j + 1
            };
            let (m, _) = month_name(self.w(k)?)?;
            return self.dated(m, d, k + 1);
        }
        let (m, needs_context) = month_name(w0)?;
        if let Some(d) = self.w(j + 1).and_then(day_number) {
            return self.dated(m, d, j + 2);
        }
        if let Some(y) = self.w(j + 1).and_then(year_number) {
            return Some((month(y, m)?, j + 2));
        }
        if needs_context && !context {
            return None;
        }
        let y = self.today.year() - i32::from(m > self.today.month());
        Some((month(y, m)?, j + 1))
    }

    /// The day `d` of month `m`, in the year at token `k` if there is one,
    /// else the most recent such day on or before the reference day.
    fn dated(&self, m: u32, d: u32, k: usize) -> Option<Read> {
        if let Some(y) = self.w(k).and_then(year_number) {
            return Some((day(NaiveDate::from_ymd_opt(y, m, d)?)?, k + 1));
        }
        let this_year = NaiveDate::from_ymd_opt(self.today.year(), m, d);
        let date = match this_year {
            Some(date) if date <= self.today => date,
            _ => NaiveDate::from_ymd_opt(self.today.year() - 1, m, d)?,
        };
        Some((day(date)?, k))
    }
}

/// `2023-05-08` (a day) or `2023-05` (a month).
fn iso(word: &str) -> Option<TimeRange> {
    let mut parts = word.split('-');
    let y = year_number(parts.next()?)?;
    let m_part = parts.next()?;
    if m_part.len() != 2 {
        return None;
    }
    let m: u32 = m_part.parse().ok()?;
    match parts.next() {
        None => month(y, m),
        Some(d_part) if d_part.len() == 2 && parts.next().is_none() => {
            day(NaiveDate::from_ymd_opt(y, m, d_part.parse().ok()?)?)
        }
        Some(_) => None,
    }
}

fn range(start: Timestamp, end: Timestamp) -> TimeRange {
    TimeRange { start, end }
}

/// From the earlier start to the later end of two ranges.
fn span_of(a: TimeRange, b: TimeRange) -> TimeRange {
    range(a.start.min(b.start), a.end.max(b.end))
}

#[cfg(test)]
mod tests;
