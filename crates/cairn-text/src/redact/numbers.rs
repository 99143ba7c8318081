//! The redaction rules that read numbers: phone numbers, payment cards
//! (Luhn-checked) and IBANs (mod-97-checked), with the checks that keep
//! other numbers (ISBNs, ids, versions) out.

use regex::Captures;

/// Whether a number at `start..end` stands alone: not glued to a letter,
/// digit or `_`, and not part of a longer number through a separator
/// (`1.415-555-0132`, `2024-01-15`).
pub(super) fn number_stands_alone(text: &str, start: usize, end: usize) -> bool {
    clear_before(text, start) && clear_after(text, end)
}

/// Nothing before `start` continues the number: no letter, digit, `_` or
/// `+`, nor a separator after a digit.
pub(super) fn clear_before(text: &str, start: usize) -> bool {
    let mut before = text[..start].chars().rev();
    match before.next() {
        Some(c) if c.is_alphanumeric() || c == '_' || c == '+' => false,
        Some('.' | '-' | '/' | ':' | ',') => !before.next().is_some_and(|c| c.is_ascii_digit()),
        _ => true,
    }
}

/// Nothing after `end` continues the number: no letter, digit or `_`, nor
/// a separator before a digit.
pub(super) fn clear_after(text: &str, end: usize) -> bool {
    let mut after = text[end..].chars();
    match after.next() {
        Some(c) if c.is_alphanumeric() || c == '_' => false,
        Some('.' | '-' | '/' | ':' | ',') => !after.next().is_some_and(|c| c.is_ascii_digit()),
        _ => true,
    }
}

/// Whether the character before `start` is a letter, a digit or `_`.
pub(super) fn glued_before(text: &str, start: usize) -> bool {
    text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether the text just before `start` names an ISBN.
pub(super) fn follows_isbn(text: &str, start: usize) -> bool {
    let mut from = start.saturating_sub(16);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    text[from..start].to_ascii_lowercase().contains("isbn")
}

pub(super) fn digit_count(s: &str) -> usize {
    s.bytes().filter(u8::is_ascii_digit).count()
}

/// Whether every separator between digit groups is the same character.
pub(super) fn uniform_separators(s: &str) -> bool {
    let mut seps = s.chars().filter(|c| !c.is_ascii_digit());
    match seps.next() {
        Some(first) => seps.all(|c| c == first),
        None => true,
    }
}

/// `+`, a country code and 8 to 15 digits in all (E.164 allows 15).
pub(super) fn phone_international(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    if glued_before(text, m.start())
        || !(8..=15).contains(&digit_count(m.as_str()))
        || !clear_after(text, m.end())
    {
        return;
    }
    out.push((m.start(), m.end()));
}

/// A ten-digit North American number, area code and exchange starting 2
/// to 9, the same separator throughout unless the area code is in
/// parentheses.
pub(super) fn phone_north_american(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let s = m.as_str();
    let alone = if s.starts_with('(') {
        !glued_before(text, m.start()) && clear_after(text, m.end())
    } else {
        uniform_separators(s) && number_stands_alone(text, m.start(), m.end())
    };
    if alone && !follows_isbn(text, m.start()) {
        out.push((m.start(), m.end()));
    }
}

/// A national number with a trunk `0`, 9 to 12 digits in groups.
pub(super) fn phone_national(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let s = m.as_str();
    let alone = if s.starts_with('(') {
        !glued_before(text, m.start()) && clear_after(text, m.end())
    } else {
        uniform_separators(s) && number_stands_alone(text, m.start(), m.end())
    };
    if alone && (9..=12).contains(&digit_count(s)) && !follows_isbn(text, m.start()) {
        out.push((m.start(), m.end()));
    }
}

/// Card numbers within a run of digit groups. A card is a window of
/// consecutive groups: one group of 13 to 19 digits, or a first group of 4,
/// middle groups of 4 to 6 and a last of 1 to 6, with one separator
/// throughout; it starts with 2 to 6 (Mastercard, Amex, Visa, Discover and
/// the like; never 0, 1, 7 to 9, which timestamps and ids often do), is not
/// one digit repeated and passes the Luhn check. The longest window from
/// each group wins.
pub(super) fn card_numbers(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let run = m.as_str().as_bytes();
    if run.len() < 13 || follows_isbn(text, m.start()) {
        return;
    }
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for (i, b) in run.iter().enumerate() {
        if !b.is_ascii_digit() {
            groups.push((from, i));
            from = i + 1;
        }
    }
    groups.push((from, run.len()));
    let n = groups.len();
    let sep_after = |k: usize| run[groups[k].1];
    let window_ok = |i: usize, j: usize| -> bool {
        let left_ok = if i == 0 {
            clear_before(text, m.start())
        } else {
            sep_after(i - 1) == b' '
        };
        let right_ok = if j + 1 == n {
            clear_after(text, m.end())
        } else {
            sep_after(j) == b' '
        };
        let len = |k: usize| groups[k].1 - groups[k].0;
        let shape_ok = i == j
            || (len(i) == 4
                && (i + 1..j).all(|k| (4..=6).contains(&len(k)))
                && (1..=6).contains(&len(j))
                && (i..j).all(|k| sep_after(k) == sep_after(i)));
        if !(left_ok && right_ok && shape_ok) {
            return false;
        }
        let digits: Vec<u8> = run[groups[i].0..groups[j].1]
            .iter()
            .filter(|b| b.is_ascii_digit())
            .map(|b| b - b'0')
            .collect();
        (13..=19).contains(&digits.len())
            && (2..=6).contains(&digits[0])
            && digits.iter().any(|&d| d != digits[0])
            && luhn_valid(&digits)
    };
    let mut i = 0;
    'groups: while i < n {
        for j in (i..n).rev() {
            if window_ok(i, j) {
                out.push((m.start() + groups[i].0, m.start() + groups[j].1));
                i = j + 1;
                continue 'groups;
            }
        }
        i += 1;
    }
}

/// The Luhn checksum: from the rightmost digit, double every second digit
/// (subtracting 9 when the double exceeds 9); the sum is a multiple of 10.
pub(super) fn luhn_valid(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            match i % 2 {
                0 => d,
                _ if d * 2 > 9 => d * 2 - 9,
                _ => d * 2,
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Country codes of the IBAN registry.
pub(super) const IBAN_COUNTRIES: &[&str] = &[
    "AD", "AE", "AL", "AT", "AZ", "BA", "BE", "BG", "BH", "BI", "BR", "BY", "CH", "CR", "CY", "CZ",
    "DE", "DJ", "DK", "DO", "EE", "EG", "ES", "FI", "FK", "FO", "FR", "GB", "GE", "GI", "GL", "GR",
    "GT", "HN", "HR", "HU", "IE", "IL", "IQ", "IS", "IT", "JO", "KW", "KZ", "LB", "LC", "LI", "LT",
    "LU", "LV", "LY", "MC", "MD", "ME", "MK", "MN", "MR", "MT", "MU", "NI", "NL", "NO", "OM", "PK",
    "PL", "PS", "PT", "QA", "RO", "RS", "RU", "SA", "SC", "SD", "SE", "SI", "SK", "SM", "SO", "ST",
    "SV", "TL", "TN", "TR", "UA", "VA", "VG", "XK", "YE",
];

/// An IBAN at the start of the match: a registry country, 15 to 34
/// characters, either one word or groups of four (the last shorter) split
/// by single spaces, passing mod-97. When the whole match fails, it is
/// shortened a group at a time, so a word that follows is not taken in.
pub(super) fn ibans(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let s = m.as_str();
    if !IBAN_COUNTRIES.contains(&&s[..2]) {
        return;
    }
    let chunks: Vec<&str> = s.split(' ').collect();
    for k in (1..=chunks.len()).rev() {
        let grouped =
            k == 1 || (chunks[0].len() == 4 && chunks[1..k - 1].iter().all(|c| c.len() == 4));
        let last_ok = k == 1 || (1..=4).contains(&chunks[k - 1].len());
        let end = m.start() + chunks[..k].iter().map(|c| c.len() + 1).sum::<usize>() - 1;
        let compact: String = chunks[..k].concat();
        let after_ok = !text[end..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if grouped
            && last_ok
            && after_ok
            && (15..=34).contains(&compact.len())
            && iban_checksum_valid(&compact)
        {
            out.push((m.start(), end));
            return;
        }
    }
}

/// ISO 13616 mod-97: the first four characters moved to the end, letters
/// read as 10 to 35, the number modulo 97 is 1.
pub(super) fn iban_checksum_valid(iban: &str) -> bool {
    let (head, tail) = iban.split_at(4);
    let mut rest = 0u32;
    for c in tail.chars().chain(head.chars()) {
        let Some(v) = c.to_digit(36) else {
            return false;
        };
        rest = if v < 10 {
            (rest * 10 + v) % 97
        } else {
            (rest * 100 + v) % 97
        };
    }
    rest == 1
}
