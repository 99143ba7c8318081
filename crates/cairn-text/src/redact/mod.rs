//! Secrets and personal data replaced before anything is stored or embedded.
//!
//! [`Redactor::redact`] finds credentials, keys and personal data in a text
//! and replaces each with `[REDACTED:kind]`, where `kind` is the
//! [`SecretKind`]'s snake_case name. It is pure and offline: rules are
//! regular expressions compiled once, plus the checksums and context checks a
//! regular expression cannot express. It runs on content before it reaches a
//! store or an embedder, so that
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

use numbers::{card_numbers, ibans, phone_international, phone_national, phone_north_american};
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

    /// Personal data rather than a credential: e-mail addresses and phone
    /// numbers, which a tenant may choose to keep
    /// (`cairn_core::engine::RedactionPolicy`). Every other kind (keys,
    /// tokens, passwords, card numbers, IBANs) is always redacted.
    pub fn is_personal(self) -> bool {
        matches!(self, SecretKind::Email | SecretKind::Phone)
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

    /// This redactor without the personal kinds
    /// ([`SecretKind::is_personal`]).
    pub fn without_personal(self) -> Self {
        Redactor::new(self.kinds().filter(|k| !k.is_personal()))
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

/// The rules' word boundaries are ASCII ones (`(?-u:\b)`): every secret
/// is ASCII, and a Unicode boundary sends the regex engine to its slowest
/// matcher on non-ASCII text (seconds for a 1 MiB write of Cyrillic).
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
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}".into(),
            whole,
        ),
        (AwsAccessKey, r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)".into(), whole),
        (
            AwsSecretKey,
            format!(r"(?i)(?-u:\b)(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key){ASSIGN}([A-Za-z0-9/+]{{40}})(?:[^A-Za-z0-9/+=]|$)"),
            group,
        ),
        (
            GoogleApiKey,
            r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)".into(),
            group,
        ),
        (
            AzureStorageKey,
            r"(?i)(?-u:\b)AccountKey[ \t]*=[ \t]*([A-Za-z0-9+/]{40,}={0,2})".into(),
            group,
        ),
        (AnthropicKey, r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}".into(), random_token),
        (OpenaiKey, r"(?-u:\b)sk-[A-Za-z0-9_-]{20,}".into(), openai_key),
        (
            GithubToken,
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})".into(),
            whole,
        ),
        (
            GitlabToken,
            r"(?-u:\b)gl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}".into(),
            whole,
        ),
        (
            SlackToken,
            r"(?-u:\b)(?:xox[abposr]|xapp-[0-9])-[A-Za-z0-9-]{10,}".into(),
            random_token,
        ),
        (
            SlackWebhook,
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+".into(),
            whole,
        ),
        (
            StripeKey,
            r"(?-u:\b)(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})".into(),
            whole,
        ),
        (
            BearerToken,
            r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)".into(),
            bearer,
        ),
        (
            BearerToken,
            format!(r"(?i)(?-u:\b)authorization{ASSIGN}(?:basic|digest|token)[ \t]+([A-Za-z0-9._~+/-]{{8,}}=*)"),
            bearer,
        ),
        (
            UrlPassword,
            r"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#]*:([^\s/?#]+)@[A-Za-z0-9\[]".into(),
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
            r"\([2-9][0-9]{2}\)[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}|(?-u:\b)[2-9][0-9]{2}[ .-][2-9][0-9]{2}[ .-][0-9]{4}(?-u:\b)".into(),
            phone_north_american,
        ),
        (
            Phone,
            r"(?-u:\b)0[1-9][0-9]{0,3}(?:[ .-][0-9]{2,4}){2,4}(?-u:\b)|(?-u:\b)0[1-9][0-9]{1,3}[ /-][0-9]{5,8}(?-u:\b)|\(0[1-9][0-9]{0,3}\) ?[0-9]{3,4}[ .-]?[0-9]{3,4}(?-u:\b)".into(),
            phone_national,
        ),
        (CardNumber, r"[0-9]+(?:[ -][0-9]+)*".into(), card_numbers),
        (
            Iban,
            r"(?-u:\b)[A-Z]{2}[0-9]{2}[A-Z0-9]*(?: [A-Z0-9]+)*".into(),
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

mod numbers;
#[cfg(test)]
mod tests;
