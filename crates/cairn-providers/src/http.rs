//! One JSON POST with retries: what every provider call goes through.
//!
//! **Retried** (up to [`Endpoint::retries`] more times): a transport
//! failure (connection refused or reset, DNS, the timeout), HTTP 429, HTTP
//! 5xx, and an answer the caller cannot use (malformed JSON, the wrong
//! shape, text where a JSON object was asked for). **Not retried**: other
//! 4xx answers (a wrong key, an unknown model), which the same request
//! would only repeat.
//!
//! **Backoff** before retry *n* (1-based): `backoff · 2ⁿ⁻¹`, at most
//! [`MAX_WAIT`]; after a 429 or 503 with `Retry-After: SECONDS`, that many
//! seconds instead when longer (also at most [`MAX_WAIT`]).

use std::io::Read;
use std::time::Duration;

use cairn_core::{Error, Result};

/// The longest wait before a retry, whatever `Retry-After` asks.
pub const MAX_WAIT: Duration = Duration::from_secs(30);

/// The largest answer read, in bytes.
const MAX_ANSWER: u64 = 64 << 20;

/// Where a provider is and how hard to try.
#[derive(Clone)]
pub struct Endpoint {
    /// The base URL, e.g. `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1`; paths are appended to it.
    pub url: String,
    /// The API key, sent as `Authorization: Bearer …` (from the
    /// environment; never stored).
    pub key: Option<String>,
    /// How long one attempt may take, connecting included.
    pub timeout: Duration,
    /// Attempts after the first.
    pub retries: u32,
    /// The first backoff (doubled at each retry).
    pub backoff: Duration,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("key", &self.key.as_ref().map(|_| "…"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .finish()
    }
}

/// The default time one attempt may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default number of retries.
pub const DEFAULT_RETRIES: u32 = 3;
/// The default first backoff.
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(500);

impl Endpoint {
    /// An endpoint at `url` with the default timeout, retries and backoff.
    pub fn new(url: impl Into<String>, key: Option<String>) -> Self {
        Endpoint {
            url: url.into().trim_end_matches('/').to_string(),
            key,
            timeout: DEFAULT_TIMEOUT,
            retries: DEFAULT_RETRIES,
            backoff: DEFAULT_BACKOFF,
        }
    }
}

/// Why one attempt failed.
#[derive(Debug)]
enum Failure {
    /// Worth another try, after at least this long (`Retry-After`).
    Transient(String, Option<Duration>),
    /// The same request would fail again.
    Permanent(String),
}

/// A blocking HTTP client for one endpoint.
pub(crate) struct Http {
    agent: ureq::Agent,
    endpoint: Endpoint,
}

impl Http {
    pub(crate) fn new(endpoint: Endpoint) -> Self {
        let agent = ureq::AgentBuilder::new()
            .timeout(endpoint.timeout)
            .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
            .build();
        Http { agent, endpoint }
    }

    pub(crate) fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// POST `body` to `path` and read the answer with `read`, retrying as
    /// the module doc says. `read` rejects an answer it cannot use with the
    /// reason (a transient failure).
    pub(crate) fn post<T>(
        &self,
        path: &str,
        body: &serde_json::Value,
        read: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let url = format!("{}{path}", self.endpoint.url);
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            let failure = match self.once(&url, &body) {
                Ok(text) => match read(&text) {
                    Ok(v) => return Ok(v),
                    Err(why) => Failure::Transient(why, None),
                },
                Err(f) => f,
            };
            let tries = attempt + 1;
            match failure {
                Failure::Permanent(why) => {
                    return Err(Error::provider(format!("{url}: {why}")));
                }
                Failure::Transient(why, _) if attempt >= self.endpoint.retries => {
                    return Err(Error::provider(format!(
                        "{url}: {why} (gave up after {tries} {})",
                        if tries == 1 { "try" } else { "tries" }
                    )));
                }
                Failure::Transient(_, retry_after) => {
                    std::thread::sleep(wait(self.endpoint.backoff, attempt, retry_after));
                    attempt += 1;
                }
            }
        }
    }

    fn once(&self, url: &str, body: &str) -> std::result::Result<String, Failure> {
        let mut request = self.agent.post(url).set("Content-Type", "application/json");
        if let Some(key) = &self.endpoint.key {
            request = request.set("Authorization", &format!("Bearer {key}"));
        }
        match request.send_string(body) {
            Ok(answer) => read_body(answer).map_err(|e| Failure::Transient(e, None)),
            Err(ureq::Error::Status(code, answer)) => {
                let retry_after = answer
                    .header("Retry-After")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let text = read_body(answer).unwrap_or_default();
                let why = format!("HTTP {code}{}", excerpt(&text));
                if code == 429 || code >= 500 {
                    Err(Failure::Transient(why, retry_after))
                } else {
                    Err(Failure::Permanent(why))
                }
            }
            Err(ureq::Error::Transport(t)) => Err(Failure::Transient(t.to_string(), None)),
        }
    }
}

fn read_body(answer: ureq::Response) -> std::result::Result<String, String> {
    let mut text = String::new();
    answer
        .into_reader()
        .take(MAX_ANSWER)
        .read_to_string(&mut text)
        .map_err(|e| format!("reading the answer: {e}"))?;
    Ok(text)
}

/// `: <the start of the answer>` for an error message.
fn excerpt(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() {
        return String::new();
    }
    let cut: String = t.chars().take(200).collect();
    format!(": {cut}")
}

/// The wait before retry `attempt + 1` (see the module doc).
fn wait(backoff: Duration, attempt: u32, retry_after: Option<Duration>) -> Duration {
    let doubled = backoff.saturating_mul(1u32 << attempt.min(16));
    doubled.max(retry_after.unwrap_or_default()).min(MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_honours_retry_after_and_is_capped() {
        let b = Duration::from_millis(500);
        assert_eq!(wait(b, 0, None), Duration::from_millis(500));
        assert_eq!(wait(b, 1, None), Duration::from_secs(1));
        assert_eq!(wait(b, 2, None), Duration::from_secs(2));
        assert_eq!(
            wait(b, 0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            wait(b, 3, Some(Duration::from_secs(1))),
            Duration::from_secs(4)
        );
        assert_eq!(wait(b, 30, None), MAX_WAIT);
        assert_eq!(wait(b, 0, Some(Duration::from_secs(3600))), MAX_WAIT);
    }

    #[test]
    fn keys_stay_out_of_debug_output() {
        let e = Endpoint::new("http://x/v1/", Some("sk-secret".into()));
        assert_eq!(e.url, "http://x/v1");
        assert!(!format!("{e:?}").contains("secret"));
    }
}
