use super::*;

/// Wednesday 2023-05-10 15:00 UTC.
const REF: Timestamp = 1_683_730_800_000;

fn at(s: &str) -> Timestamp {
    if s == "-inf" {
        return TimeRange::UNBOUNDED_START;
    }
    if s == "+inf" {
        return TimeRange::UNBOUNDED_END;
    }
    let full = if s.len() == 10 {
        format!("{s}T00:00:00Z")
    } else {
        format!("{s}:00Z")
    };
    DateTime::parse_from_rfc3339(&full)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .timestamp_millis()
}

#[test]
fn reference_is_a_wednesday_afternoon() {
    assert_eq!(at("2023-05-10T15:00"), REF);
    let d = DateTime::from_timestamp_millis(REF).unwrap();
    assert_eq!(d.weekday(), Weekday::Wed);
}

/// Time expressions: (query, start, end, the text the span covers).
const TIME_EXPRESSIONS: &[(&str, &str, &str, &str)] = &[
    ("what did we do today", "2023-05-10", "2023-05-11", "today"),
    (
        "yesterday's standup notes",
        "2023-05-09",
        "2023-05-10",
        "yesterday",
    ),
    (
        "plans for tomorrow",
        "2023-05-11",
        "2023-05-12",
        "for tomorrow",
    ),
    (
        "what we said tonight",
        "2023-05-10T18:00",
        "2023-05-11",
        "tonight",
    ),
    (
        "the bug from this morning",
        "2023-05-10",
        "2023-05-10T12:00",
        "from this morning",
    ),
    (
        "earlier today we fixed it",
        "2023-05-10",
        "2023-05-10T15:00",
        "earlier today",
    ),
    (
        "yesterday afternoon's call",
        "2023-05-09T12:00",
        "2023-05-09T18:00",
        "yesterday afternoon",
    ),
    (
        "last night",
        "2023-05-09T18:00",
        "2023-05-10T06:00",
        "last night",
    ),
    (
        "the day before yesterday",
        "2023-05-08",
        "2023-05-09",
        "the day before yesterday",
    ),
    ("3 days ago", "2023-05-07", "2023-05-08", "3 days ago"),
    (
        "three days ago",
        "2023-05-07",
        "2023-05-08",
        "three days ago",
    ),
    ("a day ago", "2023-05-09", "2023-05-10", "a day ago"),
    (
        "a couple of days ago",
        "2023-05-08",
        "2023-05-09",
        "a couple of days ago",
    ),
    ("two weeks ago", "2023-04-24", "2023-05-01", "two weeks ago"),
    ("a month ago", "2023-04-01", "2023-05-01", "a month ago"),
    ("6 months ago", "2022-11-01", "2022-12-01", "6 months ago"),
    ("a year ago", "2022-01-01", "2023-01-01", "a year ago"),
    (
        "2 hours ago",
        "2023-05-10T12:00",
        "2023-05-10T14:00",
        "2 hours ago",
    ),
    ("last week", "2023-05-01", "2023-05-08", "last week"),
    ("this week", "2023-05-08", "2023-05-15", "this week"),
    ("next week", "2023-05-15", "2023-05-22", "next week"),
    ("last month", "2023-04-01", "2023-05-01", "last month"),
    ("this month", "2023-05-01", "2023-06-01", "this month"),
    ("last year", "2022-01-01", "2023-01-01", "last year"),
    ("this year", "2023-01-01", "2024-01-01", "this year"),
    ("last weekend", "2023-05-06", "2023-05-08", "last weekend"),
    (
        "in the last 3 days",
        "2023-05-07",
        "2023-05-11",
        "in the last 3 days",
    ),
    (
        "over the past week",
        "2023-05-03",
        "2023-05-11",
        "over the past week",
    ),
    ("past 2 months", "2023-03-10", "2023-05-11", "past 2 months"),
    ("recently", "2023-05-03", "2023-05-11", "recently"),
    (
        "what have we discussed lately?",
        "2023-05-03",
        "2023-05-11",
        "lately",
    ),
    ("last Monday", "2023-05-08", "2023-05-09", "last Monday"),
    (
        "last Wednesday",
        "2023-05-03",
        "2023-05-04",
        "last Wednesday",
    ),
    ("on Monday", "2023-05-08", "2023-05-09", "on Monday"),
    ("on Wednesday", "2023-05-10", "2023-05-11", "on Wednesday"),
    ("on Friday", "2023-05-05", "2023-05-06", "on Friday"),
    ("next Friday", "2023-05-12", "2023-05-13", "next Friday"),
    ("this Friday", "2023-05-12", "2023-05-13", "this Friday"),
    (
        "Monday morning",
        "2023-05-08",
        "2023-05-08T12:00",
        "Monday morning",
    ),
    ("in March", "2023-03-01", "2023-04-01", "in March"),
    ("in May", "2023-05-01", "2023-06-01", "in May"),
    ("in June", "2022-06-01", "2022-07-01", "in June"),
    ("in March 2021", "2021-03-01", "2021-04-01", "in March 2021"),
    ("last March", "2023-03-01", "2023-04-01", "last March"),
    ("last May", "2022-05-01", "2022-06-01", "last May"),
    ("on 8 May 2023", "2023-05-08", "2023-05-09", "on 8 May 2023"),
    ("8 May, 2023", "2023-05-08", "2023-05-09", "8 May, 2023"),
    (
        "the 8th of May",
        "2023-05-08",
        "2023-05-09",
        "the 8th of May",
    ),
    ("May 8, 2023", "2023-05-08", "2023-05-09", "May 8, 2023"),
    ("on May 8th", "2023-05-08", "2023-05-09", "on May 8th"),
    (
        "on December 25",
        "2022-12-25",
        "2022-12-26",
        "on December 25",
    ),
    ("May 2023", "2023-05-01", "2023-06-01", "May 2023"),
    (
        "notes from January",
        "2023-01-01",
        "2023-02-01",
        "from January",
    ),
    ("2023-05-08", "2023-05-08", "2023-05-09", "2023-05-08"),
    (
        "logs on 2022-12-31 please",
        "2022-12-31",
        "2023-01-01",
        "on 2022-12-31",
    ),
    ("2023-02", "2023-02-01", "2023-03-01", "2023-02"),
    ("2023", "2023-01-01", "2024-01-01", "2023"),
    ("in 2021", "2021-01-01", "2022-01-01", "in 2021"),
    ("since Monday", "2023-05-08", "2023-05-11", "since Monday"),
    (
        "since last week",
        "2023-05-01",
        "2023-05-11",
        "since last week",
    ),
    ("since 2021", "2021-01-01", "2023-05-11", "since 2021"),
    ("before yesterday", "-inf", "2023-05-09", "before yesterday"),
    ("after March", "2023-04-01", "+inf", "after March"),
    (
        "until last Friday",
        "-inf",
        "2023-05-06",
        "until last Friday",
    ),
    (
        "between Monday and Wednesday",
        "2023-05-08",
        "2023-05-11",
        "between Monday and Wednesday",
    ),
    (
        "between 1 March and 15 April",
        "2023-03-01",
        "2023-04-16",
        "between 1 March and 15 April",
    ),
    (
        "from March to May",
        "2023-03-01",
        "2023-06-01",
        "from March to May",
    ),
    (
        "from 2021 to 2022",
        "2021-01-01",
        "2023-01-01",
        "from 2021 to 2022",
    ),
    (
        "what did we decide about the database last week?",
        "2023-05-01",
        "2023-05-08",
        "last week",
    ),
];

#[test]
fn reads_time_expressions() {
    let table = TIME_EXPRESSIONS;
    for (query, start, end, covered) in table {
        let e = parse_time(query, REF).unwrap_or_else(|| panic!("{query:?}: no time"));
        assert_eq!(
            e.range,
            range(at(start), at(end)),
            "{query:?} read {:?}",
            &query[e.span.clone()]
        );
        assert_eq!(&query[e.span.clone()], *covered, "{query:?}");
    }
}

#[test]
fn leaves_queries_without_time_alone() {
    let table = [
        "what is the capital of France",
        "May I ask about the cache",
        "may I ask",
        "March on",
        "we march at dawn",
        "the 2023 budget",
        "the last time we talked",
        "in the kitchen",
        "from the docs",
        "a meeting about tests",
        "I may need help",
        "call mom",
        "",
        "   ",
    ];
    for query in table {
        assert_eq!(parse_time(query, REF), None, "{query:?}");
    }
}

#[test]
fn removes_the_time_words() {
    let table = [
        ("what did we decide last week?", "what did we decide?"),
        (
            "notes from yesterday about the cache",
            "notes about the cache",
        ),
        ("since Monday, what broke", "what broke"),
        ("database decisions in March 2023", "database decisions"),
        ("no time here", "no time here"),
        ("tonight's plan", "plan"),
    ];
    for (query, want) in table {
        assert_eq!(split_time(query, REF).0, want, "{query:?}");
    }
}

#[test]
fn reference_can_be_a_past_date() {
    // A conversation from Sunday 2021-01-03 mentioning "yesterday".
    let conv = at("2021-01-03T09:30");
    let e = parse_time("as I said yesterday", conv).unwrap();
    assert_eq!(e.range, range(at("2021-01-02"), at("2021-01-03")));
    let e = parse_time("last week", conv).unwrap();
    assert_eq!(e.range, range(at("2020-12-21"), at("2020-12-28")));
}

#[test]
fn reads_relative_to_now_by_default() {
    let e = parse_time_now("what did we do today").unwrap();
    assert!(e.range.contains(crate::time::now()));
}

#[test]
fn contains_is_half_open() {
    let r = parse_time("today", REF).unwrap().range;
    assert!(r.contains(at("2023-05-10")));
    assert!(r.contains(at("2023-05-11") - 1));
    assert!(!r.contains(at("2023-05-11")));
}
