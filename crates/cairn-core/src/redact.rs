//! Secrets and personal data replaced before anything is stored or embedded.
//!
//! [`Redactor::redact`] finds credentials, keys and personal data in a text
//! and replaces each with `[REDACTED:kind]`, where `kind` is the
//! [`SecretKind`]'s snake_case name. It is pure and offline: rules are
//! regular expressions compiled once, plus the checksums and context checks a
//! regular expression cannot express. It runs on content before it reaches a
//! [`Store`](crate::Store) or an [`Embedder`](crate::Embedder), so that
//! neither the database nor an embedding model ever sees the secret.
//!
//! ## Rules, one per kind
//! - `private_key`: a whole `-----BEGIN … PRIVATE KEY-----` block to its
//!   `-----END … PRIVATE KEY-----` line (PGP `… PRIVATE KEY BLOCK` too); a
//!   block without an end loses its base64 lines.
//! - `jwt`: three base64url parts joined by dots, the header starting `eyJ`.
//! - `aws_access_key`: `AKIA` or `ASIA` and 16 uppercase letters or digits.
//! - `aws_secret_key`: 40 base64 characters assigned to a key named
//!   `aws_secret_access_key`, `SecretAccessKey` or the like.
//! - `google_api_key`: `AIza` and 35 base64url characters.
//! - `azure_storage_key`: the `AccountKey=` value of an Azure connection
//!   string.
//! - `anthropic_key`: `sk-ant-` and at least 20 characters.
//! - `openai_key`: `sk-` (`sk-proj-`, `sk-svcacct-`, …) and at least 20
//!   characters with letters and digits.
//! - `github_token`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 or more
//!   letters or digits; `github_pat_` and 22 or more.
//! - `gitlab_token`: `glpat-` (or `gldt-`, `glrt-`, `glptt-`, `glsoat-`)
//!   and at least 20 characters.
//! - `slack_token`: `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxo-`
//!   or `xapp-` tokens with digits.
//! - `slack_webhook`: a `https://hooks.slack.com/services/…` (or
//!   `workflows`, `triggers`) URL, whole.
//! - `stripe_key`: `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` keys and
//!   `whsec_` webhook secrets.
//! - `bearer_token`: the credential after `Bearer`, or after
//!   `Authorization: Basic|Digest|Token`, when it has a digit, a symbol or
//!   an inner capital.
//! - `url_password`: the password of `scheme://user:password@host`, alone.
//! - `credential`: the value, alone, of a pair whose key ends in `password`,
//!   `passwd`, `passphrase`, `pwd`, `secret`, `api_key`, `apikey`,
//!   `secret_key`, `private_key`, `access_key` or `token`, written `k=v`,
//!   `k: v`, `k := v`, `k => v`, quoted or not, or `--k v` on a command
//!   line. An unquoted value after `:` must have a digit, a symbol or an
//!   inner capital ("token: see below" is prose).
//! - `email`: `local@domain.tld`, except an SSH remote (`git@host`), an
//!   image at a pixel density (`logo@2x.png`) and a URL's user
//!   (`https://user:pw@host`).
//! - `phone`: `+` and 8 to 15 digits in groups; a North American
//!   `(415) 555-0132`, `415-555-0132`, `415.555.0132`; a national number
//!   with a leading `0` and 9 to 12 digits in groups (`020 7946 0958`,
//!   `01 23 45 67 89`, `030 901820`). Never glued to other digits or
//!   letters, nor after `ISBN`.
//! - `card_number`: 13 to 19 digits, bare or in groups split by spaces or
//!   dashes, starting 2 to 6, not one repeated digit, passing the Luhn
//!   check.
//! - `iban`: a country code, two check digits and the account number, 15 to
//!   34 characters, bare or in groups of four, passing the mod-97 check.
//!
//! Text already redacted is left as it is, so redacting twice changes
//! nothing; text with nothing to redact comes back byte for byte.
//!
//! ## What it does not catch
//! Secrets without a recognisable shape or label: a password said in prose
//! ("my password is hunter2"), a bare random string, an unlabelled AWS
//! secret key, hex API keys of vendors not listed above. Phone numbers
//! written without separators or country code (`4155550132`), national
//! numbers without a leading `0` other than North American ones, lowercase
//! IBANs, names and postal addresses. Values that look like code
//! (`password = os.environ["PW"]`, `token = get_token()`), file paths
//! (`PWD=/home/alice`) and placeholders (`$TOKEN`, `${PASSWORD}`,
//! `<your-key>`, `***`) are left alone on purpose.

use std::cmp::Reverse;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::{Captures, Regex, RegexSet};
use serde::{Deserialize, Serialize};

/// What kind of secret or personal data a redaction removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretKind {
    /// A PEM or PGP private key block, whole.
    PrivateKey,
    /// A JSON Web Token.
    Jwt,
    /// An AWS access key id (`AKIA…`, `ASIA…`).
    AwsAccessKey,
    /// An AWS secret access key, when labelled.
    AwsSecretKey,
    /// A Google API key (`AIza…`).
    GoogleApiKey,
    /// An Azure storage account key (`AccountKey=…`).
    AzureStorageKey,
    /// An Anthropic API key (`sk-ant-…`).
    AnthropicKey,
    /// An OpenAI-style API key (`sk-…`, `sk-proj-…`).
    OpenaiKey,
    /// A GitHub token (`ghp_…`, `github_pat_…`).
    GithubToken,
    /// A GitLab token (`glpat-…`).
    GitlabToken,
    /// A Slack token (`xoxb-…`).
    SlackToken,
    /// A Slack incoming-webhook URL.
    SlackWebhook,
    /// A Stripe secret or restricted key, or webhook secret.
    StripeKey,
    /// The credential of a `Bearer` or `Authorization:` header.
    BearerToken,
    /// The password part of a URL.
    UrlPassword,
    /// The value of a `password=`, `secret:`, `api_key=`, `token=`… pair.
    Credential,
    /// An e-mail address.
    Email,
    /// A telephone number.
    Phone,
    /// A payment card number (Luhn-checked).
    CardNumber,
    /// An IBAN (mod-97-checked).
    Iban,
}

impl SecretKind {
    /// Every kind, in declaration order, which is also the order of
    /// preference between two matches of the same span.
    pub const ALL: [SecretKind; 20] = [
        SecretKind::PrivateKey,
        SecretKind::Jwt,
        SecretKind::AwsAccessKey,
        SecretKind::AwsSecretKey,
        SecretKind::GoogleApiKey,
        SecretKind::AzureStorageKey,
        SecretKind::AnthropicKey,
        SecretKind::OpenaiKey,
        SecretKind::GithubToken,
        SecretKind::GitlabToken,
        SecretKind::SlackToken,
        SecretKind::SlackWebhook,
        SecretKind::StripeKey,
        SecretKind::BearerToken,
        SecretKind::UrlPassword,
        SecretKind::Credential,
        SecretKind::Email,
        SecretKind::Phone,
        SecretKind::CardNumber,
        SecretKind::Iban,
    ];

    /// The snake_case name, as written in `[REDACTED:name]`, serialised and
    /// accepted in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private_key",
            SecretKind::Jwt => "jwt",
            SecretKind::AwsAccessKey => "aws_access_key",
            SecretKind::AwsSecretKey => "aws_secret_key",
            SecretKind::GoogleApiKey => "google_api_key",
            SecretKind::AzureStorageKey => "azure_storage_key",
            SecretKind::AnthropicKey => "anthropic_key",
            SecretKind::OpenaiKey => "openai_key",
            SecretKind::GithubToken => "github_token",
            SecretKind::GitlabToken => "gitlab_token",
            SecretKind::SlackToken => "slack_token",
            SecretKind::SlackWebhook => "slack_webhook",
            SecretKind::StripeKey => "stripe_key",
            SecretKind::BearerToken => "bearer_token",
            SecretKind::UrlPassword => "url_password",
            SecretKind::Credential => "credential",
            SecretKind::Email => "email",
            SecretKind::Phone => "phone",
            SecretKind::CardNumber => "card_number",
            SecretKind::Iban => "iban",
        }
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl std::fmt::Display for SecretKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a string that names no [`SecretKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a secret kind: use one of private_key, jwt, aws_access_key, aws_secret_key, google_api_key, azure_storage_key, anthropic_key, openai_key, github_token, gitlab_token, slack_token, slack_webhook, stripe_key, bearer_token, url_password, credential, email, phone, card_number, iban")]
pub struct UnknownSecretKind(pub String);

impl FromStr for SecretKind {
    type Err = UnknownSecretKind;

    /// Parses a kind name, ignoring case and surrounding spaces, with `-`
    /// read as `_` (`card-number` and `CARD_NUMBER` are `card_number`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase().replace('-', "_");
        SecretKind::ALL
            .into_iter()
            .find(|k| k.as_str() == key)
            .ok_or_else(|| UnknownSecretKind(s.to_string()))
    }
}

/// One stretch of the original text that was replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redaction {
    /// What was found there.
    pub kind: SecretKind,
    /// Byte offset of the first replaced byte, in the original text.
    pub start: usize,
    /// Byte offset just past the last replaced byte, in the original text.
    pub end: usize,
}

/// A text with its secrets replaced, and where they were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The text, each secret replaced by `[REDACTED:kind]`.
    pub text: String,
    /// The replaced stretches of the original text, in order, never
    /// overlapping.
    pub found: Vec<Redaction>,
}

impl Redacted {
    /// Whether nothing was redacted (then `text` is the original).
    pub fn is_clean(&self) -> bool {
        self.found.is_empty()
    }

    /// How many stretches were redacted.
    pub fn count(&self) -> usize {
        self.found.len()
    }
}

/// Applies the rules of a set of [`SecretKind`]s. Cheap to build and copy:
/// the regular expressions are compiled once per process and shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redactor {
    kinds: u32,
}

impl Default for Redactor {
    /// Every kind.
    fn default() -> Self {
        Redactor::new(SecretKind::ALL)
    }
}

impl Redactor {
    /// A redactor for these kinds only.
    pub fn new(kinds: impl IntoIterator<Item = SecretKind>) -> Self {
        Redactor {
            kinds: kinds.into_iter().fold(0, |bits, k| bits | k.bit()),
        }
    }

    /// Whether this redactor replaces `kind`.
    pub fn applies(&self, kind: SecretKind) -> bool {
        self.kinds & kind.bit() != 0
    }

    /// The kinds this redactor replaces, in [`SecretKind::ALL`] order.
    pub fn kinds(&self) -> impl Iterator<Item = SecretKind> + '_ {
        SecretKind::ALL.into_iter().filter(|k| self.applies(*k))
    }

    /// The redaction a setting names: `all` (every kind), `off` (or
    /// `none`: `None`, text is kept as given), or kind names separated by
    /// commas. An unknown name is refused, listing the known ones.
    pub fn from_setting(setting: &str) -> crate::Result<Option<Redactor>> {
        match setting.trim().to_ascii_lowercase().as_str() {
            "" | "all" => Ok(Some(Redactor::default())),
            "off" | "none" => Ok(None),
            list => {
                let kinds = list
                    .split(',')
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                    .map(|k| {
                        k.parse::<SecretKind>().map_err(|_| {
                            crate::Error::invalid(format!(
                                "unknown redaction kind `{k}`: use all, off, or some of {}",
                                SecretKind::ALL.map(SecretKind::as_str).join(", ")
                            ))
                        })
                    })
                    .collect::<crate::Result<Vec<_>>>()?;
                Ok(Some(Redactor::new(kinds)))
            }
        }
    }

    /// `text` with every secret of the chosen kinds replaced by
    /// `[REDACTED:kind]`.
    ///
    /// Where matches overlap, the one starting first wins, then the longest,
    /// then the kind first in [`SecretKind::ALL`]. Stretches already of the
    /// form `[REDACTED:kind]` are never matched again. One pass of a
    /// combined automaton decides which rules can match at all; a text
    /// matching none comes back unchanged without further work.
    pub fn redact(&self, text: &str) -> Redacted {
        let rules = &*RULES;
        let candidates = rules.set.matches(text);
        let mut spans: Vec<(usize, usize, SecretKind)> = Vec::new();
        let mut found = Vec::new();
        for i in candidates.iter() {
            let rule = &rules.rules[i];
            if !self.applies(rule.kind) {
                continue;
            }
            for caps in rule.regex.captures_iter(text) {
                found.clear();
                (rule.find)(text, &caps, &mut found);
                spans.extend(found.iter().map(|&(s, e)| (s, e, rule.kind)));
            }
        }
        if spans.is_empty() {
            return Redacted {
                text: text.to_string(),
                found: Vec::new(),
            };
        }
        if text.contains("[REDACTED:") {
            let marks: Vec<(usize, usize)> = rules
                .marker
                .find_iter(text)
                .map(|m| (m.start(), m.end()))
                .collect();
            spans.retain(|&(s, e, _)| marks.iter().all(|&(ms, me)| e <= ms || me <= s));
        }
        spans.sort_by_key(|&(s, e, kind)| (s, Reverse(e), kind));
        let mut kept: Vec<Redaction> = Vec::new();
        for (start, end, kind) in spans {
            if start < end && kept.last().is_none_or(|last| last.end <= start) {
                kept.push(Redaction { kind, start, end });
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for r in &kept {
            out.push_str(&text[at..r.start]);
            out.push_str("[REDACTED:");
            out.push_str(r.kind.as_str());
            out.push(']');
            at = r.end;
        }
        out.push_str(&text[at..]);
        Redacted {
            text: out,
            found: kept,
        }
    }
}

/// Pushes the byte spans to redact within one match of a rule's regex.
type Finder = fn(&str, &Captures<'_>, &mut Vec<(usize, usize)>);

struct Rule {
    kind: SecretKind,
    regex: Regex,
    find: Finder,
}

struct Rules {
    rules: Vec<Rule>,
    /// Every rule's regex, for the one-pass check of which can match.
    set: RegexSet,
    /// Text a previous pass wrote.
    marker: Regex,
}

/// Separator of a `key = value` pair: `=`, `:`, `:=`, `=>`, with optional
/// quotes closing the key and blanks around.
const ASSIGN: &str = r#"["']?[ \t]*(?::=|=>|[:=])[ \t]*["']?"#;

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    use SecretKind::*;
    let table: Vec<(SecretKind, String, Finder)> = vec![
        (
            PrivateKey,
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[ \t]*\r?\n[A-Za-z0-9+/=]+)*)".into(),
            whole,
        ),
        (
            Jwt,
            r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}".into(),
            whole,
        ),
        (AwsAccessKey, r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b".into(), whole),
        (
            AwsSecretKey,
            format!(r"(?i)\b(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key){ASSIGN}([A-Za-z0-9/+]{{40}})(?:[^A-Za-z0-9/+=]|$)"),
            group,
        ),
        (
            GoogleApiKey,
            r"\b(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)".into(),
            group,
        ),
        (
            AzureStorageKey,
            r"(?i)\bAccountKey[ \t]*=[ \t]*([A-Za-z0-9+/]{40,}={0,2})".into(),
            group,
        ),
        (AnthropicKey, r"\bsk-ant-[A-Za-z0-9_-]{20,}".into(), random_token),
        (OpenaiKey, r"\bsk-[A-Za-z0-9_-]{20,}".into(), openai_key),
        (
            GithubToken,
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})".into(),
            whole,
        ),
        (
            GitlabToken,
            r"\bgl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}".into(),
            whole,
        ),
        (
            SlackToken,
            r"\b(?:xox[abposr]|xapp-[0-9])-[A-Za-z0-9-]{10,}".into(),
            random_token,
        ),
        (
            SlackWebhook,
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+".into(),
            whole,
        ),
        (
            StripeKey,
            r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})".into(),
            whole,
        ),
        (
            BearerToken,
            r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)".into(),
            bearer,
        ),
        (
            BearerToken,
            format!(r"(?i)\bauthorization{ASSIGN}(?:basic|digest|token)[ \t]+([A-Za-z0-9._~+/-]{{8,}}=*)"),
            bearer,
        ),
        (
            UrlPassword,
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#]*:([^\s/?#]+)@[A-Za-z0-9\[]".into(),
            url_password,
        ),
        (
            Credential,
            r#"(?i)(?:^|[^A-Za-z0-9_.-])(?P<key>[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|(?:secret|private|access)[_-]?key|token))["']?(?P<sep>[ \t]*(?::=|=>|[:=])[ \t]*|[ \t]+)(?:"(?P<dq>[^"\r\n]+)"|'(?P<sq>[^'\r\n]+)'|(?P<bare>[^\s"'`,;()\[\]{}<>&][^\s"'`,;]*))"#.into(),
            credential,
        ),
        (
            Email,
            r"[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}".into(),
            email,
        ),
        (
            Phone,
            r"\+[1-9][0-9]{0,2}(?:[ .-]?\(0?[0-9]{1,4}\))?(?:[ .-]?[0-9]{1,5}){1,6}".into(),
            phone_international,
        ),
        (
            Phone,
            r"\([2-9][0-9]{2}\)[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}|\b[2-9][0-9]{2}[ .-][2-9][0-9]{2}[ .-][0-9]{4}\b".into(),
            phone_north_american,
        ),
        (
            Phone,
            r"\b0[1-9][0-9]{0,3}(?:[ .-][0-9]{2,4}){2,4}\b|\b0[1-9][0-9]{1,3}[ /-][0-9]{5,8}\b|\(0[1-9][0-9]{0,3}\) ?[0-9]{3,4}[ .-]?[0-9]{3,4}\b".into(),
            phone_national,
        ),
        (CardNumber, r"[0-9]+(?:[ -][0-9]+)*".into(), card_numbers),
        (
            Iban,
            r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]*(?: [A-Z0-9]+)*".into(),
            ibans,
        ),
    ];
    let rules: Vec<Rule> = table
        .into_iter()
        .map(|(kind, pattern, find)| Rule {
            kind,
            regex: Regex::new(&pattern).unwrap_or_else(|e| panic!("redact regex {pattern}: {e}")),
            find,
        })
        .collect();
    let set = RegexSet::new(rules.iter().map(|r| r.regex.as_str())).expect("redact regex set");
    let marker = Regex::new(r"\[REDACTED:[a-z_]+\]").expect("marker regex");
    Rules { rules, set, marker }
});

/// The whole match.
fn whole(_: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    out.push((m.start(), m.end()));
}

/// Capture group 1: the value after a label.
fn group(_: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    if let Some(m) = caps.get(1) {
        out.push((m.start(), m.end()));
    }
}

/// The whole match, if it mixes letters and digits as generated tokens do.
fn random_token(_: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let s = m.as_str();
    if s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic()) {
        out.push((m.start(), m.end()));
    }
}

/// An `sk-` key that is not an Anthropic one and has digits after the
/// prefix ("sk-learn-compatible-estimators" has none).
fn openai_key(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    if !m.as_str().starts_with("sk-ant-") {
        random_token(text, caps, out);
    }
}

fn bearer(_: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    if let Some(m) = caps.get(1) {
        if looks_random(m.as_str()) && !is_placeholder(m.as_str()) {
            out.push((m.start(), m.end()));
        }
    }
}

fn url_password(_: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    if let Some(m) = caps.get(1) {
        if !is_placeholder(m.as_str()) {
            out.push((m.start(), m.end()));
        }
    }
}

/// A literal value assigned to a secret-named key. A key followed by a
/// blank alone counts only when written `--key` (a command-line flag). A
/// quoted value is dropped only when it is a placeholder; an unquoted one
/// also when it is code (a call, an index, a dotted path), a file path
/// (`PWD=/home/alice`), or, after `:`, a plain word ("password: required").
fn credential(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let (Some(key), Some(sep)) = (caps.name("key"), caps.name("sep")) else {
        return;
    };
    let sep = sep.as_str().trim();
    if sep.is_empty() && !key.as_str().starts_with("--") {
        return;
    }
    if let Some(m) = caps.name("dq").or_else(|| caps.name("sq")) {
        if !is_placeholder(m.as_str()) {
            out.push((m.start(), m.end()));
        }
        return;
    }
    let Some(m) = caps.name("bare") else {
        return;
    };
    let mut value = m.as_str();
    if text[..key.start()].ends_with(['?', '&']) {
        value = value.split('&').next().unwrap_or(value);
    }
    let value = trim_trailing_punctuation(value);
    if value.is_empty()
        || is_placeholder(value)
        || is_code_reference(value)
        || value.starts_with(['/', '~'])
        || value.starts_with("./")
        || value.starts_with("../")
        || (sep == ":" && !looks_random(value))
    {
        return;
    }
    out.push((m.start(), m.start() + value.len()));
}

/// Whether a value names code rather than holding a literal: `a.b.c`,
/// `get_token()`, `os.environ[…`, each name made of words
/// (`settings.SECRET_KEY`, not the dotted parts of a token).
fn is_code_reference(value: &str) -> bool {
    CODE_REFERENCE
        .find(value)
        .is_some_and(|m| m.as_str().split(['.', '(', '[']).all(is_wordy))
}

static CODE_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?:\.[A-Za-z_][A-Za-z0-9_]*)+$|(?:\.[A-Za-z_][A-Za-z0-9_]*)*[(\[])")
        .expect("code reference regex")
});

/// Whether a name reads as words rather than random characters: it
/// switches between lowercase, uppercase, digits and `_` at most
/// `2 + len / 3` times (`getApiKey` 4 times in 9, a base64 run of 36
/// characters some 25 times).
fn is_wordy(name: &str) -> bool {
    let class = |c: char| match c {
        'a'..='z' => 0,
        'A'..='Z' => 1,
        '0'..='9' => 2,
        _ => 3,
    };
    let switches = name
        .chars()
        .zip(name.chars().skip(1))
        .filter(|&(a, b)| class(a) != class(b))
        .count();
    switches <= 2 + name.len() / 3
}

/// Drops a full stop, a colon and unbalanced closing brackets a bare value
/// swallowed at its end ("password=hunter2." or "(token=abc1)"). `!` and
/// `?` stay: they end passwords more often than sentences that hold one.
fn trim_trailing_punctuation(mut value: &str) -> &str {
    while let Some(c) = value.chars().next_back() {
        let open = match c {
            ')' => Some('('),
            ']' => Some('['),
            '}' => Some('{'),
            '>' => Some('<'),
            _ => None,
        };
        let strip = match open {
            Some(open) => value.matches(c).count() > value.matches(open).count(),
            None => matches!(c, '.' | ':'),
        };
        if !strip {
            break;
        }
        value = &value[..value.len() - c.len_utf8()];
    }
    value
}

/// Whether a value has a digit, a symbol or a capital after its first
/// letter: "hunter2", "dXNlcjpwYXNz", "p@ss" do; "required", "Required"
/// don't.
fn looks_random(value: &str) -> bool {
    value
        .chars()
        .any(|c| c.is_ascii_digit() || !c.is_alphanumeric())
        || value.chars().skip(1).any(char::is_uppercase)
}

/// Whether a value stands for a secret instead of being one: a variable
/// (`$TOKEN`, `${PW}`, `%PW%`, `{{ pw }}`), a template (`<your key>`,
/// `your_api_key_here`), a mask (`***`, `xxxx`), or a literal such as
/// `null`, `true`, `none`.
fn is_placeholder(value: &str) -> bool {
    let lower = value.trim().to_lowercase();
    lower.starts_with(['$', '%', '{', '<'])
        || lower.starts_with("your")
        || lower.starts_with("[redacted")
        || lower
            .chars()
            .all(|c| matches!(c, '*' | 'x' | '.' | '•' | '…' | '-' | '_' | ' '))
        || matches!(
            lower.as_str(),
            "null" | "none" | "nil" | "true" | "false" | "undefined" | "empty" | "redacted"
        )
}

/// An e-mail address, unless it is the user part of a URL's authority
/// (`https://user:pw@host`), an SSH remote (`git@github.com`) or an image
/// at a pixel density (`logo@2x.png`).
fn email(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
    let m = caps.get(0).expect("group 0");
    let s = m.as_str();
    let lead = s.len() - s.trim_start_matches(['.', '+', '-']).len();
    let (local, domain) = s[lead..].split_once('@').unwrap_or_default();
    if local.is_empty() || local == "git" {
        return;
    }
    let tld = domain.rsplit('.').next().unwrap_or_default();
    if matches!(
        tld.to_ascii_lowercase().as_str(),
        "png" | "jpg" | "jpeg" | "gif" | "svg" | "webp" | "ico" | "bmp" | "avif"
    ) {
        return;
    }
    let token_start = text[..m.start()]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    if let Some(i) = text[token_start..m.start()].find("://") {
        if !text[token_start + i + 3..m.start()].contains('/') {
            return;
        }
    }
    out.push((m.start() + lead, m.end()));
}

/// Whether a number at `start..end` stands alone: not glued to a letter,
/// digit or `_`, and not part of a longer number through a separator
/// (`1.415-555-0132`, `2024-01-15`).
fn number_stands_alone(text: &str, start: usize, end: usize) -> bool {
    clear_before(text, start) && clear_after(text, end)
}

/// Nothing before `start` continues the number: no letter, digit, `_` or
/// `+`, nor a separator after a digit.
fn clear_before(text: &str, start: usize) -> bool {
    let mut before = text[..start].chars().rev();
    match before.next() {
        Some(c) if c.is_alphanumeric() || c == '_' || c == '+' => false,
        Some('.' | '-' | '/' | ':' | ',') => !before.next().is_some_and(|c| c.is_ascii_digit()),
        _ => true,
    }
}

/// Nothing after `end` continues the number: no letter, digit or `_`, nor
/// a separator before a digit.
fn clear_after(text: &str, end: usize) -> bool {
    let mut after = text[end..].chars();
    match after.next() {
        Some(c) if c.is_alphanumeric() || c == '_' => false,
        Some('.' | '-' | '/' | ':' | ',') => !after.next().is_some_and(|c| c.is_ascii_digit()),
        _ => true,
    }
}

/// Whether the character before `start` is a letter, a digit or `_`.
fn glued_before(text: &str, start: usize) -> bool {
    text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether the text just before `start` names an ISBN.
fn follows_isbn(text: &str, start: usize) -> bool {
    let mut from = start.saturating_sub(16);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    text[from..start].to_ascii_lowercase().contains("isbn")
}

fn digit_count(s: &str) -> usize {
    s.bytes().filter(u8::is_ascii_digit).count()
}

/// Whether every separator between digit groups is the same character.
fn uniform_separators(s: &str) -> bool {
    let mut seps = s.chars().filter(|c| !c.is_ascii_digit());
    match seps.next() {
        Some(first) => seps.all(|c| c == first),
        None => true,
    }
}

/// `+`, a country code and 8 to 15 digits in all (E.164 allows 15).
fn phone_international(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
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
fn phone_north_american(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
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
fn phone_national(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
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
fn card_numbers(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
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
fn luhn_valid(digits: &[u8]) -> bool {
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
const IBAN_COUNTRIES: &[&str] = &[
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
fn ibans(text: &str, caps: &Captures<'_>, out: &mut Vec<(usize, usize)>) {
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
fn iban_checksum_valid(iban: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::secrets::*;
    use SecretKind::*;

    #[test]
    fn redacts_secret_table() {
        let redactor = Redactor::default();
        let table = secret_table();
        assert!(table.len() >= 40, "{} cases", table.len());
        let mut failures = Vec::new();
        for (text, secret, kind) in &table {
            let out = redactor.redact(text);
            let spans: Vec<(SecretKind, &str)> = out
                .found
                .iter()
                .map(|r| (r.kind, &text[r.start..r.end]))
                .collect();
            let expected = text.replace(secret.as_str(), &format!("[REDACTED:{kind}]"));
            if spans != [(*kind, secret.as_str())] || out.text != expected {
                failures.push(format!("{text:?}\n  → {:?}\n  found {spans:?}", out.text));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn leaves_look_alikes_alone() {
        let table: &[&str] = &[
            "Released version 1.2.3 yesterday, then 1.0.0+20130313144700.",
            "The deadline is 2024-01-15, or 15/01/2024, or 01.02.2024.",
            "Meet at 15:30 in room 4, stamp 2024-01-15T10:30:00+01:00.",
            "Ping 192.168.1.10 and 10.0.0.1 from the VPN.",
            "The request id is 550e8400-e29b-41d4-a716-446655440000.",
            "Fixed in commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a.",
            "The test card 4111 1111 1111 1112 fails Luhn.",
            "A typo: GB83 WEST 1234 5698 7654 32 fails the checksum.",
            "We wrote sk-learn-compatible-transformers for the baseline.",
            "Reset your password: use the link we sent.",
            "The password field is required.",
            "Each token costs a fraction of a cent; token: see the docs.",
            "Order 12345 shipped, invoice 2024-0042.",
            "ISBN 978-0-306-40615-7 and ISBN 0-306-40615-2.",
            "The brand colour is #ff5733 on #1a1a1a.",
            "Logs are in /var/log/cairn/2024-01-15.log and C:\\Users\\me.",
            "AKIA keys start with a fixed prefix, like AKIAEXAMPLE.",
            "@alice reviewed @app.route('/login') and @types/node@20.1.0.",
            "Clone git@github.com:cairn/cairn.git and use logo@2x.png.",
            "Set max_tokens=4096 and token_count: 512.",
            "Bearer tokens expire after an hour.",
            "password = os.environ['DB_PASSWORD'] and token = get_token()",
            "export TOKEN=$GITHUB_TOKEN; password: ${DB_PASSWORD}; api_key=<your-key>",
            "Health at http://localhost:8080/health and https://example.com:443/a@b",
            "Unix time 1705312800000 in milliseconds.",
            "Call extension 555-0132 inside the building.",
            "Grew 300% between 2019 and 2024, to 1,234,567.89 users.",
            "Paris is at 48.8566, 2.3522.",
            r#"{"token": null, "password": "", "secret": true}"#,
            "The password is stored as a bcrypt hash.",
            "PWD=/home/alice and secret=./keys/dev.pem",
        ];
        assert!(table.len() >= 20);
        let redactor = Redactor::default();
        let failures: Vec<String> = table
            .iter()
            .filter_map(|text| {
                let out = redactor.redact(text);
                (out.text != *text || !out.is_clean())
                    .then(|| format!("{text:?}\n  → {:?}", out.text))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn spans_point_into_the_original_text() {
        let text = "mail alice@example.com or call +44 20 7946 0958, card 4111 1111 1111 1111";
        let out = Redactor::default().redact(text);
        let spans: Vec<&str> = out.found.iter().map(|r| &text[r.start..r.end]).collect();
        assert_eq!(
            spans,
            [
                "alice@example.com",
                "+44 20 7946 0958",
                "4111 1111 1111 1111"
            ]
        );
        assert_eq!(
            out.text,
            "mail [REDACTED:email] or call [REDACTED:phone], card [REDACTED:card_number]"
        );
        assert_eq!(out.count(), 3);
    }

    #[test]
    fn redacting_twice_changes_nothing() {
        let redactor = Redactor::default();
        let all: Vec<String> = secret_table().into_iter().map(|(t, _, _)| t).collect();
        let once = redactor.redact(&all.join("\n"));
        let twice = redactor.redact(&once.text);
        assert_eq!(twice.text, once.text);
        assert!(twice.is_clean(), "{:?}", twice.found);
    }

    #[test]
    fn a_kind_switched_off_is_left_alone() {
        let text = "alice@example.com paid with 4111 1111 1111 1111";
        let kinds = SecretKind::ALL.into_iter().filter(|k| *k != Email);
        let redactor = Redactor::new(kinds);
        assert!(!redactor.applies(Email));
        assert_eq!(
            redactor.redact(text).text,
            "alice@example.com paid with [REDACTED:card_number]"
        );
        let only_email = Redactor::new([Email]);
        assert_eq!(only_email.kinds().collect::<Vec<_>>(), [Email]);
        assert_eq!(
            only_email.redact(text).text,
            "[REDACTED:email] paid with 4111 1111 1111 1111"
        );
        assert!(Redactor::new([]).redact(text).is_clean());
    }

    #[test]
    fn unicode_around_secrets_survives() {
        let text = "Привет, 東京 ✓ écris à alice@example.com — 🎉 password=Sécurité9 fin";
        let out = Redactor::default().redact(text);
        assert_eq!(
            out.text,
            "Привет, 東京 ✓ écris à [REDACTED:email] — 🎉 password=[REDACTED:credential] fin"
        );
    }

    #[test]
    fn overlaps_go_to_the_earliest_then_longest_match() {
        // A JWT that is also a `token=` value and a `Bearer` credential is
        // reported once, as the kind listed first.
        let text = format!("token={JWT} and Authorization: Bearer {JWT}");
        let out = Redactor::default().redact(&text);
        let kinds: Vec<SecretKind> = out.found.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [Jwt, Jwt]);
        // With JWTs off, the same spans fall to the next rules.
        let out = Redactor::new(SecretKind::ALL.into_iter().filter(|k| *k != Jwt)).redact(&text);
        let kinds: Vec<SecretKind> = out.found.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [Credential, BearerToken]);
    }

    #[test]
    fn an_unterminated_key_block_loses_its_base64_lines() {
        let text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n\nthe rest was cut";
        let out = Redactor::default().redact(text);
        assert_eq!(out.text, "[REDACTED:private_key]\n\nthe rest was cut");
    }

    #[test]
    fn clean_text_comes_back_unchanged() {
        let text = "Nothing to hide here: just a note about the build.";
        let out = Redactor::default().redact(text);
        assert_eq!(out.text, text);
        assert!(out.is_clean());
        assert_eq!(Redactor::default().redact("").text, "");
    }

    #[test]
    fn kind_names_round_trip() {
        for kind in SecretKind::ALL {
            assert_eq!(kind.as_str().parse::<SecretKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.as_str());
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(" Card-Number ".parse::<SecretKind>(), Ok(CardNumber));
        assert!("password".parse::<SecretKind>().is_err());
    }

    #[test]
    fn checksums() {
        let digits = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<u8>>();
        assert!(luhn_valid(&digits("4111111111111111")));
        assert!(luhn_valid(&digits("378282246310005")));
        assert!(!luhn_valid(&digits("4111111111111112")));
        assert!(iban_checksum_valid("GB82WEST12345698765432"));
        assert!(iban_checksum_valid("DE89370400440532013000"));
        assert!(!iban_checksum_valid("GB83WEST12345698765432"));
    }
}
