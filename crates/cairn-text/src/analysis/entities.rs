//! Named things in a message: people and other names, identifiers, paths,
//! URLs, e-mail addresses, code symbols, error codes, versions, dates and
//! amounts. Rule-based (regular expressions compiled once, and a
//! capitalisation rule for names), so it runs on every ingested message.
//!
//! Recognisers run from the most specific to the least (URL before path,
//! UUID before hash, date before amount, …); a stretch of text claimed by
//! one is not read again by a later one. Entities are deduplicated by
//! normalised text (lowercase, whitespace collapsed) and listed in order of
//! first appearance.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// What kind of thing an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    /// A capitalised name: a person, place, product or organisation, one or
    /// more words ("Alice", "New York", "GitHub", "AWS").
    Name,
    /// An identifier: `snake_case`, `camelCase`, a ticket like `JIRA-123`,
    /// a UUID, a commit hash, an issue number like `#1234`.
    Identifier,
    /// A file path: `/etc/hosts`, `./src/main.rs`, `C:\Users\me`,
    /// `Cargo.toml`.
    Path,
    /// A web address.
    Url,
    /// An e-mail address.
    Email,
    /// Code: `foo::bar`, `foo.bar()`, `run()`, or anything in backticks.
    CodeSymbol,
    /// An error code: `E0382`, `HTTP 404`, `ERR_SOCKET_TIMEOUT`, `ENOENT`,
    /// an exception name like `TypeError`.
    ErrorCode,
    /// A version: `v1.2.3`, `1.2.0-rc1`, `Python 3.11`.
    Version,
    /// A date: `2023-05-08`, `8 May 2023`, `May 8`, a weekday, a month in a
    /// date-like context.
    Date,
    /// An amount: money, a percentage, a number with a unit.
    Amount,
}

impl EntityKind {
    /// Every kind, in declaration order.
    pub const ALL: [EntityKind; 10] = [
        EntityKind::Name,
        EntityKind::Identifier,
        EntityKind::Path,
        EntityKind::Url,
        EntityKind::Email,
        EntityKind::CodeSymbol,
        EntityKind::ErrorCode,
        EntityKind::Version,
        EntityKind::Date,
        EntityKind::Amount,
    ];

    /// The lowercase name, as serialised and as accepted by `entity:`
    /// filters.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Name => "name",
            EntityKind::Identifier => "identifier",
            EntityKind::Path => "path",
            EntityKind::Url => "url",
            EntityKind::Email => "email",
            EntityKind::CodeSymbol => "codesymbol",
            EntityKind::ErrorCode => "errorcode",
            EntityKind::Version => "version",
            EntityKind::Date => "date",
            EntityKind::Amount => "amount",
        }
    }

    /// The base salience of an entity of this kind, before frequency: how
    /// specific and recall-worthy such a mention usually is. Error codes,
    /// identifiers, paths and e-mail addresses pin a fact down; names and
    /// amounts are common in small talk.
    pub fn weight(self) -> f32 {
        match self {
            EntityKind::ErrorCode => 0.9,
            EntityKind::Identifier | EntityKind::Path | EntityKind::Email => 0.8,
            EntityKind::CodeSymbol => 0.75,
            EntityKind::Url | EntityKind::Version | EntityKind::Name => 0.7,
            EntityKind::Date | EntityKind::Amount => 0.6,
        }
    }
}

impl std::fmt::Display for EntityKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a string that names no [`EntityKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an entity kind: use one of name, identifier, path, url, email, codesymbol, errorcode, version, date, amount")]
pub struct UnknownEntityKind(pub String);

impl FromStr for EntityKind {
    type Err = UnknownEntityKind;

    /// Parses a kind name, ignoring case, `_` and `-` (`error_code`,
    /// `ErrorCode` and `errorcode` are the same).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key: String = s
            .trim()
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        EntityKind::ALL
            .into_iter()
            .find(|k| k.as_str() == key)
            .ok_or_else(|| UnknownEntityKind(s.to_string()))
    }
}

/// A thing named in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    /// The text as first written in the message.
    pub text: String,
    /// What kind of thing it is.
    pub kind: EntityKind,
    /// How much the entity stands out, in [0, 1]: see [`extract_entities`].
    pub salience: f32,
}

/// The entities named in `text`, deduplicated by normalised text, in order
/// of first appearance.
///
/// Salience is `min(1, w(kind) + 0.1 · (mentions − 1))`, where `w` is
/// [`EntityKind::weight`] (0.6 to 0.9): a kind's base weight, raised by 0.1
/// for each repeated mention.
pub fn extract_entities(text: &str) -> Vec<Entity> {
    let mut found = Found::new(text);
    for (re, kind) in RECOGNISERS.iter() {
        let mut take = |m: regex::Match| {
            let (start, end) = trim_match(text, m.start(), m.end(), *kind);
            let nonblank = text[start..end].chars().any(|c| !c.is_whitespace());
            if nonblank && accept(&text[start..end], *kind) {
                found.claim(start, end, *kind);
            }
        };
        if re.captures_len() > 1 {
            for caps in re.captures_iter(text) {
                if let Some(m) = caps.get(1) {
                    take(m);
                }
            }
        } else {
            re.find_iter(text).for_each(take);
        }
    }
    names(text, &mut found);
    found.into_entities()
}

/// Matches collected so far, with the bytes they claim.
struct Found<'a> {
    text: &'a str,
    claimed: Vec<(usize, usize)>,
    hits: Vec<(usize, usize, EntityKind)>,
}

impl<'a> Found<'a> {
    fn new(text: &'a str) -> Self {
        Found {
            text,
            claimed: Vec::new(),
            hits: Vec::new(),
        }
    }

    fn is_free(&self, start: usize, end: usize) -> bool {
        self.claimed.iter().all(|&(s, e)| end <= s || e <= start)
    }

    fn claim(&mut self, start: usize, end: usize, kind: EntityKind) {
        if self.is_free(start, end) {
            self.claimed.push((start, end));
            self.hits.push((start, end, kind));
        }
    }

    fn into_entities(mut self) -> Vec<Entity> {
        self.hits.sort_by_key(|h| h.0);
        let mut out: Vec<(String, Entity, u32)> = Vec::new();
        for (s, e, kind) in self.hits {
            let surface = self.text[s..e].trim();
            let key = normalise(surface);
            match out.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, n)) => *n += 1,
                None => out.push((
                    key,
                    Entity {
                        text: surface.split_whitespace().collect::<Vec<_>>().join(" "),
                        kind,
                        salience: 0.0,
                    },
                    1,
                )),
            }
        }
        out.into_iter()
            .map(|(_, mut entity, n)| {
                entity.salience = (entity.kind.weight() + 0.1 * (n - 1) as f32).min(1.0);
                entity
            })
            .collect()
    }
}

fn normalise(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Drops punctuation a match swallowed at its end ("see /etc/hosts." or
/// "(https://x.y/z)").
fn trim_match(text: &str, start: usize, mut end: usize, kind: EntityKind) -> (usize, usize) {
    if matches!(kind, EntityKind::Url | EntityKind::Path | EntityKind::Email) {
        while end > start {
            let c = text[..end].chars().next_back().expect("non-empty");
            let unbalanced_paren = c == ')' && !text[start..end].contains('(');
            if matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"') || unbalanced_paren {
                end -= c.len_utf8();
            } else {
                break;
            }
        }
    }
    (start, end)
}

/// Checks a recogniser cannot express as a regular expression.
fn accept(m: &str, kind: EntityKind) -> bool {
    match kind {
        // A hash has both letters and digits ("deadbeef" and "1234567" are
        // not hashes); an identifier with digits has letters too.
        EntityKind::Identifier if m.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            m.bytes().any(|b| b.is_ascii_digit()) && m.bytes().any(|b| b.is_ascii_alphabetic())
                || m.bytes().any(|b| b.is_ascii_uppercase())
        }
        // `192.168.1.20` is an address, not a version.
        EntityKind::Version => {
            m.bytes().filter(|b| *b == b'.').count() < 3
                || !m.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        }
        _ => true,
    }
}

const MONTHS: &str = "January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec";
const WEEKDAYS: &str = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday";
const ERRNO: &str = "ENOENT|EACCES|EPERM|EEXIST|ENOTDIR|EISDIR|ENOTEMPTY|EINVAL|EBADF|EAGAIN|EWOULDBLOCK|EINTR|EIO|ENOMEM|ENOSPC|EROFS|EMFILE|ENFILE|EPIPE|EBUSY|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ECONNABORTED|EADDRINUSE|EADDRNOTAVAIL|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|ENOTCONN|EDEADLK|ENOSYS|ENOTSUP|EOVERFLOW|ERANGE|EDOM|ESRCH|ECHILD|EXDEV|ENODEV|ENXIO|E2BIG|ENOEXEC|ELOOP|ENAMETOOLONG|EPROTO|ESHUTDOWN";
const PRODUCTS: &str = "Python|Rust|Node|Node\\.js|Java|Go|Ruby|PHP|Perl|Postgres|PostgreSQL|MySQL|SQLite|Redis|Ubuntu|Debian|Fedora|macOS|Windows|iOS|Android|Kotlin|Swift|Scala|TypeScript|React|Django|Rails|Vue|Angular|\\.NET|GCC|Clang|LLVM|Deno|Bun|Docker|Kubernetes|Elixir|Erlang|Haskell|Julia|Lua|Terraform|Chrome|Firefox|Safari|Xcode|Gradle|Maven|Spring|Laravel|Next\\.js|Nuxt|Svelte|Flutter|Dart|C\\+\\+|CUDA|GPT|Claude|Llama";
const FILE_EXTENSIONS: &str = "rs|toml|md|txt|json|yaml|yml|py|js|ts|tsx|jsx|go|java|kt|c|h|cpp|hpp|cc|cs|rb|php|sh|bash|zsh|sql|html|css|scss|xml|csv|lock|log|cfg|conf|ini|env|swift|proto|dockerfile|gradle|vue|svelte|ipynb|pdf|png|jpg|jpeg|gif|svg|zip|gz|tar|wasm";
const UNITS: &str = "ms|milliseconds?|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|[kKMGTP]i?B|bytes?|[kMG]bps|px|em|rem|pt|km|m|cm|mm|mi|miles?|kg|g|mg|lbs?|ft|°[CF]|[kMG]?Hz|fps|rps|qps|req/s|tokens?|cores?|threads?|users?|requests?|rows?|records?|items?|x|[kKmM]W|V|mAh";

/// Recognisers in priority order. When a regex has a capture group 1, the
/// group is the entity; otherwise the whole match is.
static RECOGNISERS: LazyLock<Vec<(Regex, EntityKind)>> = LazyLock::new(|| {
    use EntityKind::*;
    let table: Vec<(String, EntityKind)> = vec![
        (r"`([^`\n]+)`".into(), CodeSymbol),
        (r#"\b(?:https?|ftp)://[^\s<>"'`]+|\bwww\.[A-Za-z0-9-]+\.[^\s<>"'`]+"#.into(), Url),
        (r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b".into(), Email),
        (
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b".into(),
            Identifier,
        ),
        (r#"\b[A-Za-z]:\\[^\s<>"'|?*]*"#.into(), Path),
        (
            r"(?:^|[\s(\[=:])((?:~|\.\.?)?(?:/[\w.@+-]+)+/?|(?:[\w.-]+/)+[\w.-]+\.\w{1,10})".into(),
            Path,
        ),
        (
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b".into(),
            Date,
        ),
        (
            format!(r"\b\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+(?:{MONTHS})\.?(?:,?\s+\d{{4}})?\b"),
            Date,
        ),
        (
            format!(r"\b(?:{MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?"),
            Date,
        ),
        (format!(r"\b(?:{MONTHS})\s+\d{{4}}\b"), Date),
        (r"\b\d{1,2}/\d{1,2}/\d{2,4}\b".into(), Date),
        (format!(r"\b(?:{WEEKDAYS})\b"), Date),
        (
            r"\b(?:January|February|April|June|July|August|September|October|November|December)\b".into(),
            Date,
        ),
        (
            r"(?i:\b(?:in|since|until|till|during|before|after|by|last|next|this|early|late|mid|end\s+of|of)\s+)((?:March|May)\b)".into(),
            Date,
        ),
        (r"\b(?:E|TS|CS|C|SQLSTATE\s?)\d{4,5}\b".into(), ErrorCode),
        (r"\bHTTP\s?[1-5]\d\d\b".into(), ErrorCode),
        (
            r"\b[1-5]\d\d\s+(?:Internal Server Error|Not Found|Bad Request|Unauthorized|Forbidden|Method Not Allowed|Conflict|Gone|Payload Too Large|Unprocessable Entity|Too Many Requests|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)\b".into(),
            ErrorCode,
        ),
        (r"(?i:\b(?:status|status code|error|error code|returned|returns|got a?)\s+)([1-5]\d\d)\b".into(), ErrorCode),
        (r"\bERR_[A-Z0-9_]+\b".into(), ErrorCode),
        (format!(r"\b(?:{ERRNO})\b"), ErrorCode),
        (r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b".into(), ErrorCode),
        (r"\b[vV]\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.]+)?\b".into(), Version),
        (r"\b\d+\.\d+\.\d+(?:\.\d+)*(?:-[0-9A-Za-z.]+)?(?:\+[0-9A-Za-z.]+)?\b".into(), Version),
        (format!(r"(?:^|[^\w.])((?:{PRODUCTS})\s+v?\d+(?:\.\d+)*)\b"), Version),
        (r"\b[A-Z][A-Z0-9]+-\d+\b".into(), Identifier),
        (r"(?:^|\s)(#\d{2,})\b".into(), Identifier),
        (r"\b[0-9a-f]{7,64}\b".into(), Identifier),
        (
            r"\b[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:!|\(\))?".into(),
            CodeSymbol,
        ),
        (r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\(\)".into(), CodeSymbol),
        (
            format!(r"\b[\w-]+\.(?:{FILE_EXTENSIONS})\b|\b(?:Dockerfile|Makefile|Justfile|README|LICENSE|CHANGELOG)\b"),
            Path,
        ),
        (r"[$€£¥]\s?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?(?:k|K|m|M|bn|million|billion|thousand)\b)?".into(), Amount),
        (
            r"\b\d+(?:,\d{3})*(?:\.\d+)?\s?(?:USD|EUR|GBP|JPY|CHF|dollars|euros|pounds|yen|bucks|cents)\b".into(),
            Amount,
        ),
        (r"\b\d+(?:\.\d+)?\s?(?:%|percent\b)".into(), Amount),
        (format!(r"\b\d+(?:,\d{{3}})*(?:\.\d+)?\s?(?:{UNITS})(?:\b|$)"), Amount),
        (r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b".into(), Identifier),
        (r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b".into(), Identifier),
        (r"\b[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+\b".into(), Identifier),
        (r"\b[A-Za-z]+[0-9]+[A-Za-z0-9]*\b".into(), Identifier),
    ];
    table
        .into_iter()
        .map(|(re, kind)| {
            let compiled = Regex::new(&re).unwrap_or_else(|e| panic!("entity regex {re}: {e}"));
            (compiled, kind)
        })
        .collect()
});

/// Capitalised words that open sentences or fill them without naming
/// anything (lowercase, separated by whitespace): never a name alone, and
/// dropped from the edges of a run.
const NOT_NAMES: &str = "\
    a about absolutely actually add after again agree agreed ah all alright also although \
     always an and another answer any anyone anyway apply are as asap ask assume at avoid \
     awesome bad be because before besides best better both btw build but by bye call can can't \
     check cheers choose clone come commit compare configure congrats congratulations consider \
     context cool copy correct could create dear debug delete deploy did didn't disable do does \
     doesn't don't done each edit either enable ensure error even every everyone everything \
     exactly example explain false find fine first fix for from fyi get give go good goodbye \
     got great ha had haha has have he he's hello her here here's hey hi his hm hmm hold how \
     how's however huh i i'd i'll i'm i've if imagine imo important in indeed info install \
     instead interesting is isn't it it'll it's its just keep last later let let's list lmao \
     lol look looks make many may maybe me meanwhile merge mine more most move much my neither \
     never next nice no nobody none nope not note notes nothing notice now null of often oh ok \
     okay omg on once one only oops open option or other otherwise our ours paste perfect pick \
     please print pull push put question read regards remember remove rename replace restart \
     return revert review right run same see seems send set she she's should show since so some \
     someone something sometimes soon sorry sounds start step steps still stop such summary \
     suppose sure take tell test thank thanks that that's the their them then there there's \
     these they they're this those though thx tip to today todo tomorrow tonight too true try \
     ty ugh um unless until update use wait warning was we we'd we'll we're welcome well were \
     what what's whatever when where where's whether which while who who's why will with won't \
     worse would wow wrap write wrong yeah yes yesterday yet you you'd you'll you're your yours";

static NOT_NAME_SET: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| NOT_NAMES.split_whitespace().collect());

/// Abbreviated titles that a name may follow after a dot ("Dr. Smith").
const TITLES: &[&str] = &[
    "Dr", "Mr", "Mrs", "Ms", "Prof", "St", "Sr", "Jr", "Gen", "Capt",
];

/// Lowercase words that may join the words of a name ("Bank of America",
/// "Ludwig van Beethoven").
const NAME_JOINERS: &[&str] = &[
    "of", "de", "van", "von", "der", "da", "di", "la", "le", "du",
];

static WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\p{L}][\p{L}\p{N}'’&.-]*[\p{L}\p{N}]|[\p{L}]").expect("word regex")
});

/// Runs of capitalised words not claimed by another recogniser. A run's
/// edge words from [`NOT_NAMES`] are dropped. A single word opening a
/// sentence is a name unless it is in [`NOT_NAMES`], looks like a verb or
/// adverb (ends in "ing", "ed" or "ly") or appears in lowercase elsewhere
/// in the text: "Running the tests…" names nothing, "Alice said…" names
/// Alice.
fn names(text: &str, found: &mut Found) {
    let words: Vec<(usize, usize, bool)> = WORD
        .find_iter(text)
        .map(|m| {
            let w = m.as_str();
            let w = w
                .strip_suffix("'s")
                .or_else(|| w.strip_suffix("’s"))
                .unwrap_or(w);
            (m.start(), m.start() + w.len(), is_capitalised(w))
        })
        .collect();
    let word = |k: usize| &text[words[k].0..words[k].1];
    let free = |found: &Found, k: usize| found.is_free(words[k].0, words[k].1);
    let spaced = |a: usize, b: usize| {
        let gap = &text[words[a].1..words[b].0];
        gap.chars().all(|c| c == ' ') || (gap == ". " && TITLES.contains(&word(a)))
    };
    let mut i = 0;
    while i < words.len() {
        if !words[i].2 || !free(found, i) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        loop {
            if j < words.len() && words[j].2 && spaced(j - 1, j) && free(found, j) {
                j += 1;
            } else if j + 1 < words.len()
                && NAME_JOINERS.contains(&word(j))
                && spaced(j - 1, j)
                && spaced(j, j + 1)
                && words[j + 1].2
                && free(found, j + 1)
            {
                j += 2;
            } else {
                break;
            }
        }
        let (mut a, mut b) = (i, j);
        i = j;
        let is_filler = |k: usize| NOT_NAME_SET.contains(word(k).to_lowercase().as_str());
        while a < b && is_filler(a) {
            a += 1;
        }
        while b > a && (is_filler(b - 1) || NAME_JOINERS.contains(&word(b - 1))) {
            b -= 1;
        }
        if a == b {
            continue;
        }
        let (start, end) = (words[a].0, words[b - 1].1);
        if b - a == 1 && opens_sentence(text, start) {
            let lower = word(a).to_lowercase();
            let verb_like = ["ing", "ed", "ly"].iter().any(|s| lower.ends_with(s));
            let lowercase_elsewhere = (0..words.len()).any(|k| !words[k].2 && word(k) == lower);
            if verb_like || lowercase_elsewhere {
                continue;
            }
        }
        found.claim(start, end, EntityKind::Name);
    }
}

fn is_capitalised(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase)
}

/// Whether the byte at `at` starts a sentence: nothing but spaces and
/// quotes before it since the start, a line break or `.`, `!`, `?`, `:`.
fn opens_sentence(text: &str, at: usize) -> bool {
    for c in text[..at].chars().rev() {
        match c {
            ' ' | '\t' | '"' | '\'' | '(' | '*' | '-' | '>' | '“' => continue,
            '.' | '!' | '?' | ':' | '\n' | '\r' => return true,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use EntityKind::*;

    fn pairs(text: &str) -> Vec<(String, EntityKind)> {
        extract_entities(text)
            .into_iter()
            .map(|e| (e.text, e.kind))
            .collect()
    }

    #[test]
    fn extracts_entities() {
        let table: &[(&str, &[(&str, EntityKind)])] = &[
            (
                "Alice met Bob in New York.",
                &[("Alice", Name), ("Bob", Name), ("New York", Name)],
            ),
            ("The meeting is with Carol.", &[("Carol", Name)]),
            ("Yes, I think so.", &[]),
            (
                "I moved to Bank of America last year",
                &[("Bank of America", Name)],
            ),
            (
                "We use AWS and GitHub for CI",
                &[("AWS", Name), ("GitHub", Name), ("CI", Name)],
            ),
            ("Running the tests took a while", &[]),
            (
                "set max_retries in the config",
                &[("max_retries", Identifier)],
            ),
            ("call getUserName first", &[("getUserName", Identifier)]),
            (
                "see JIRA-123 and #4521",
                &[("JIRA-123", Identifier), ("#4521", Identifier)],
            ),
            (
                "id 123e4567-e89b-12d3-a456-426614174000 failed",
                &[("123e4567-e89b-12d3-a456-426614174000", Identifier)],
            ),
            (
                "reverted commit 9fceb02d0ae5",
                &[("9fceb02d0ae5", Identifier)],
            ),
            (
                "edit /etc/nginx/nginx.conf now",
                &[("/etc/nginx/nginx.conf", Path)],
            ),
            ("it is in ./src/main.rs.", &[("./src/main.rs", Path)]),
            (
                r"open C:\Users\me\notes.txt please",
                &[(r"C:\Users\me\notes.txt", Path)],
            ),
            ("bump the version in Cargo.toml", &[("Cargo.toml", Path)]),
            (
                "docs at https://docs.rs/regex/latest/regex/.",
                &[("https://docs.rs/regex/latest/regex/", Url)],
            ),
            (
                "mail bob.smith@example.com today",
                &[("bob.smith@example.com", Email)],
            ),
            (
                "use `cargo test --lib` here",
                &[("cargo test --lib", CodeSymbol)],
            ),
            (
                "std::sync::LazyLock compiles once",
                &[("std::sync::LazyLock", CodeSymbol)],
            ),
            (
                "then client.connect() fails",
                &[("client.connect()", CodeSymbol)],
            ),
            ("error E0382 again", &[("E0382", ErrorCode)]),
            (
                "got HTTP 404 and ENOENT",
                &[("HTTP 404", ErrorCode), ("ENOENT", ErrorCode)],
            ),
            (
                "ERR_CONNECTION_REFUSED in Chrome",
                &[("ERR_CONNECTION_REFUSED", ErrorCode), ("Chrome", Name)],
            ),
            ("it raised a TypeError", &[("TypeError", ErrorCode)]),
            (
                "upgrade to v1.2.3 from 1.2.0-rc1",
                &[("v1.2.3", Version), ("1.2.0-rc1", Version)],
            ),
            ("we need Python 3.11", &[("Python 3.11", Version)]),
            ("due on 8 May 2023", &[("8 May 2023", Date)]),
            (
                "ship by May 8, 2023 or 2023-06-01",
                &[("May 8, 2023", Date), ("2023-06-01", Date)],
            ),
            ("see you on Friday", &[("Friday", Date)]),
            ("launch in March", &[("March", Date)]),
            ("May I ask something?", &[]),
            (
                "it cost $1,200 and 15% more",
                &[("$1,200", Amount), ("15%", Amount)],
            ),
            (
                "latency is 250 ms on 16 GB",
                &[("250 ms", Amount), ("16 GB", Amount)],
            ),
            ("ok thanks lol", &[]),
            (
                "Perfect, that works. Exactly what Sam wanted.",
                &[("Sam", Name)],
            ),
            (
                "Dr. Smith joins on Tuesday",
                &[("Dr. Smith", Name), ("Tuesday", Date)],
            ),
            (
                "it returned 500 Internal Server Error, then status 503",
                &[("500 Internal Server Error", ErrorCode), ("503", ErrorCode)],
            ),
            ("``` ` ` ```", &[]),
            ("we shipped 3 features", &[]),
            ("see 192.168.1.20 for details", &[]),
            ("", &[]),
            (
                "Alice asked Alice's manager; alice agreed.",
                &[("Alice", Name)],
            ),
        ];
        for (text, want) in table {
            let got = pairs(text);
            let want: Vec<(String, EntityKind)> =
                want.iter().map(|(t, k)| (t.to_string(), *k)).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn salience_grows_with_kind_and_mentions() {
        let es = extract_entities("E0382 in foo_bar, foo_bar again, foo_bar; ask Dana");
        let get = |t: &str| es.iter().find(|e| e.text == t).unwrap().salience;
        assert!((get("E0382") - 0.9).abs() < 1e-6);
        assert!((get("foo_bar") - 1.0).abs() < 1e-6);
        assert!((get("Dana") - 0.7).abs() < 1e-6);
        assert!(es.iter().all(|e| (0.0..=1.0).contains(&e.salience)));
    }

    #[test]
    fn kinds_round_trip() {
        for kind in EntityKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
            assert_eq!(kind.as_str().parse::<EntityKind>().unwrap(), kind);
        }
        assert_eq!("error_code".parse::<EntityKind>().unwrap(), ErrorCode);
        assert_eq!("CodeSymbol".parse::<EntityKind>().unwrap(), CodeSymbol);
        assert!("person".parse::<EntityKind>().is_err());
    }
}
