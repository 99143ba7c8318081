//! Which providers are configured: environment variables over the
//! `[providers]` section of `cairn.toml` over the defaults. An API key is
//! only ever read from the environment: the file names the variable that
//! holds it (`key_env`), never the key, and keys are never stored or
//! printed.
//!
//! | variable | file key | what it is |
//! |---|---|---|
//! | `CAIRN_CHAT_URL` | `providers.chat.url` | an OpenAI-compatible base URL (`https://api.openai.com/v1`, `http://localhost:11434/v1`…); unset: no chat model |
//! | `CAIRN_CHAT_MODEL` | `providers.chat.model` | the chat model (required with the URL) |
//! | `CAIRN_CHAT_KEY` | `providers.chat.key_env` (the variable's name) | its API key (else `OPENAI_API_KEY` for an `openai.com` URL) |
//! | `CAIRN_EMBED_URL` | `providers.embed.url` | an embedding endpoint's base URL; unset: the local model |
//! | `CAIRN_EMBED_DIR` | (environment only) | a local sentence-transformers model directory (BERT family) instead of the default model; not with an embedding URL |
//! | `CAIRN_EMBED_MODEL` | `providers.embed.model` | the embedding model (required with the URL); with the directory, the name the store records (default: the directory's name) |
//! | `CAIRN_EMBED_API` | `providers.embed.api` | `openai` (default: `POST /embeddings`) or `ollama` (`POST /api/embed`) |
//! | `CAIRN_EMBED_DIM` | `providers.embed.dim` | the dimension, to skip probing it at start |
//! | `CAIRN_EMBED_KEY` | `providers.embed.key_env` | its API key (else `OPENAI_API_KEY` for an `openai.com` URL) |
//! | `CAIRN_RERANK` | `providers.rerank.mode` | `mmr` (maximal marginal relevance, offline) or `off` (default); with a URL, the endpoint |
//! | `CAIRN_RERANK_URL` | `providers.rerank.url` | a `/rerank` endpoint's base URL (`POST {base}/rerank`) |
//! | `CAIRN_RERANK_MODEL` | `providers.rerank.model` | its model (required with the URL) |
//! | `CAIRN_RERANK_KEY` | `providers.rerank.key_env` | its API key |
//! | `CAIRN_PROVIDER_TIMEOUT` | `providers.*.timeout` | one attempt's limit: seconds in the variable, a duration (`30s`, `2m`) in the file (default 30 s) |
//! | `CAIRN_PROVIDER_RETRIES` | `providers.*.retries` | retries after the first attempt (default 3) |
//!
//! Each resolved value remembers where it came from ([`Setting`]), which
//! `cairn providers` shows.

use std::path::PathBuf;
use std::time::Duration;

use cairn_core::time::parse_duration;
use cairn_core::{Error, Result};
use serde::Deserialize;

use crate::{EmbedApi, Endpoint, OpenAiChat, RemoteEmbedder};

/// A configured chat model.
#[derive(Debug, Clone)]
pub struct ChatSettings {
    /// Where, with the key and retry policy.
    pub endpoint: Endpoint,
    /// The model.
    pub model: String,
}

/// A configured embedding endpoint.
#[derive(Debug, Clone)]
pub struct EmbedSettings {
    /// Where, with the key and retry policy.
    pub endpoint: Endpoint,
    /// The protocol.
    pub api: EmbedApi,
    /// The model.
    pub model: String,
    /// The dimension, if given (else probed).
    pub dim: Option<usize>,
}

/// A local model directory (sentence-transformers layout) to embed with
/// instead of the default model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedDirSettings {
    /// The directory.
    pub dir: PathBuf,
    /// The name the store records, if given (else the directory's name).
    pub name: Option<String>,
}

/// Which reranker recall uses.
#[derive(Debug, Clone)]
pub enum RerankSettings {
    /// Maximal marginal relevance, offline.
    Mmr,
    /// A `/rerank` endpoint.
    Http {
        /// Where, with the key and retry policy.
        endpoint: Endpoint,
        /// The model.
        model: String,
    },
}

/// One section of `[providers]` in `cairn.toml` (`chat`, `embed` or
/// `rerank`); every key optional. `api` and `dim` belong to `embed`,
/// `mode` to `rerank`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderFile {
    /// The base URL.
    pub url: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// The name of the environment variable holding the API key.
    pub key_env: Option<String>,
    /// One attempt's limit, a duration (`30s`).
    pub timeout: Option<String>,
    /// Retries after the first attempt.
    pub retries: Option<u32>,
    /// The embedding protocol (`embed` only).
    pub api: Option<String>,
    /// The embedding dimension (`embed` only).
    pub dim: Option<usize>,
    /// `mmr` or `off` (`rerank` only).
    pub mode: Option<String>,
    /// Refused with a message saying where keys go.
    key: Option<serde::de::IgnoredAny>,
}

/// The `[providers]` section of `cairn.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvidersFile {
    /// `[providers.chat]`.
    pub chat: Option<ProviderFile>,
    /// `[providers.embed]`.
    pub embed: Option<ProviderFile>,
    /// `[providers.rerank]`.
    pub rerank: Option<ProviderFile>,
}

/// One resolved setting and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Setting {
    /// Its name, as the file spells it (`chat.url`).
    pub name: String,
    /// Its value as shown (a key is shown as `set`, never its value).
    pub value: String,
    /// `env CAIRN_CHAT_URL`, `file providers.chat.url` or `default`.
    pub source: String,
}

/// The providers configured (none by default).
#[derive(Debug, Clone, Default)]
pub struct ProviderSettings {
    /// The chat model, if any.
    pub chat: Option<ChatSettings>,
    /// The embedding endpoint, if any.
    pub embed: Option<EmbedSettings>,
    /// The local model directory, if any (never with `embed`).
    pub embed_dir: Option<EmbedDirSettings>,
    /// The reranker, if any.
    pub rerank: Option<RerankSettings>,
    /// Every setting in use, with its source.
    pub sources: Vec<Setting>,
}

/// Reads values through the environment, then the file.
struct Resolver<'a, F: Fn(&str) -> Option<String>> {
    get: F,
    file: &'a ProvidersFile,
    sources: Vec<Setting>,
}

impl<F: Fn(&str) -> Option<String>> Resolver<'_, F> {
    fn var(&self, name: &str) -> Option<String> {
        (self.get)(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    fn section(&self, section: &str) -> Option<&ProviderFile> {
        match section {
            "chat" => self.file.chat.as_ref(),
            "embed" => self.file.embed.as_ref(),
            _ => self.file.rerank.as_ref(),
        }
    }

    /// `section.key`'s value from `env`, else the file (`read` picks the
    /// key of a section), recording where it came from.
    fn text(
        &mut self,
        section: &str,
        key: &str,
        env: &str,
        read: impl Fn(&ProviderFile) -> Option<String>,
    ) -> Option<String> {
        let (value, source) = match self.var(env) {
            Some(v) => (v, format!("env {env}")),
            None => {
                let v = self.section(section).and_then(read)?;
                let v = v.trim().to_string();
                if v.is_empty() {
                    return None;
                }
                (v, format!("file providers.{section}.{key}"))
            }
        };
        self.note(section, key, &value, source);
        Some(value)
    }

    fn note(&mut self, section: &str, key: &str, value: &str, source: String) {
        self.sources.push(Setting {
            name: format!("{section}.{key}"),
            value: value.to_string(),
            source,
        });
    }

    /// The endpoint of `section` at `url`: its key, timeout and retries.
    fn endpoint(&mut self, section: &str, url: String, key_var: &str) -> Result<Endpoint> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::invalid(format!(
                "the {section} URL {url:?} is not an http:// or https:// URL"
            )));
        }
        let named = self.section(section).and_then(|f| f.key_env.clone());
        let key = match (self.var(key_var), named) {
            (Some(key), _) => Some((key, format!("env {key_var}"))),
            (None, Some(name)) => match self.var(&name) {
                Some(key) => Some((key, format!("env {name} (providers.{section}.key_env)"))),
                None => {
                    return Err(Error::invalid(format!(
                        "providers.{section}.key_env names {name}, which is not set: export                          {name} with the API key, or remove key_env"
                    )))
                }
            },
            (None, None) if url.contains("openai.com") => self
                .var("OPENAI_API_KEY")
                .map(|k| (k, "env OPENAI_API_KEY".to_string())),
            (None, None) => None,
        };
        if let Some((_, source)) = &key {
            self.note(section, "key", "set", source.clone());
        }
        let timeout = match self.var("CAIRN_PROVIDER_TIMEOUT") {
            Some(s) => {
                let secs = number(&s, "CAIRN_PROVIDER_TIMEOUT")?;
                (
                    Duration::from_secs_f64(secs),
                    "env CAIRN_PROVIDER_TIMEOUT".to_string(),
                )
            }
            None => match self.section(section).and_then(|f| f.timeout.clone()) {
                Some(t) => {
                    let key = format!("providers.{section}.timeout");
                    let ms =
                        parse_duration(&t).map_err(|e| Error::invalid(format!("{key}: {e}")))?;
                    (Duration::from_millis(ms as u64), format!("file {key}"))
                }
                None => (crate::DEFAULT_TIMEOUT, "default".to_string()),
            },
        };
        if timeout.0.is_zero() {
            return Err(Error::invalid(format!(
                "the {section} timeout must be more than 0 ({})",
                timeout.1
            )));
        }
        self.note(section, "timeout", &format!("{:?}", timeout.0), timeout.1);
        let retries = match self.var("CAIRN_PROVIDER_RETRIES") {
            Some(s) => (
                s.parse::<u32>().map_err(|_| {
                    Error::invalid(format!(
                        "CAIRN_PROVIDER_RETRIES must be a whole number ≥ 0, got {s:?}"
                    ))
                })?,
                "env CAIRN_PROVIDER_RETRIES".to_string(),
            ),
            None => match self.section(section).and_then(|f| f.retries) {
                Some(n) => (n, format!("file providers.{section}.retries")),
                None => (crate::DEFAULT_RETRIES, "default".to_string()),
            },
        };
        self.note(section, "retries", &retries.0.to_string(), retries.1);
        let mut e = Endpoint::new(url, key.map(|(k, _)| k));
        e.timeout = timeout.0;
        e.retries = retries.0;
        Ok(e)
    }

    /// The model of `section`, required with its URL.
    fn model(&mut self, section: &str, url_var: &str, env: &str) -> Result<String> {
        self.text(section, "model", env, |f| f.model.clone())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "a {section} URL is set ({url_var} or providers.{section}.url) but no model:                      set {env} or providers.{section}.model"
                ))
            })
    }
}

impl ProviderSettings {
    /// Read the process's environment alone (see the module doc).
    pub fn from_env() -> Result<Self> {
        Self::resolve(&ProvidersFile::default(), |name| std::env::var(name).ok())
    }

    /// Read settings through `get` (a variable's value, if set) alone.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self> {
        Self::resolve(&ProvidersFile::default(), get)
    }

    /// The settings of `file`, each overridden by its variable (read
    /// through `get`) when that is set.
    pub fn resolve(file: &ProvidersFile, get: impl Fn(&str) -> Option<String>) -> Result<Self> {
        check_file(file)?;
        let mut r = Resolver {
            get,
            file,
            sources: Vec::new(),
        };
        let chat = match r.text("chat", "url", "CAIRN_CHAT_URL", |f| f.url.clone()) {
            None => None,
            Some(url) => Some(ChatSettings {
                model: r.model("chat", "CAIRN_CHAT_URL", "CAIRN_CHAT_MODEL")?,
                endpoint: r.endpoint("chat", url, "CAIRN_CHAT_KEY")?,
            }),
        };
        let embed = match r.text("embed", "url", "CAIRN_EMBED_URL", |f| f.url.clone()) {
            None => None,
            Some(url) => Some(EmbedSettings {
                model: r.model("embed", "CAIRN_EMBED_URL", "CAIRN_EMBED_MODEL")?,
                api: r
                    .text("embed", "api", "CAIRN_EMBED_API", |f| f.api.clone())
                    .map_or(Ok(EmbedApi::OpenAi), |s| s.parse())?,
                dim: r
                    .text("embed", "dim", "CAIRN_EMBED_DIM", |f| {
                        f.dim.map(|d| d.to_string())
                    })
                    .map(|s| {
                        s.parse::<usize>().ok().filter(|d| *d > 0).ok_or_else(|| {
                            Error::invalid(format!(
                                "the embedding dimension must be a whole number > 0, got {s:?}"
                            ))
                        })
                    })
                    .transpose()?,
                endpoint: r.endpoint("embed", url, "CAIRN_EMBED_KEY")?,
            }),
        };
        let env = |name: &str| {
            (r.get)(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let embed_dir = match (env("CAIRN_EMBED_DIR"), &embed) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "an embedding URL and CAIRN_EMBED_DIR both choose the embedder: set one",
                ))
            }
            (Some(dir), None) => Some(EmbedDirSettings {
                dir: PathBuf::from(dir),
                name: env("CAIRN_EMBED_MODEL"),
            }),
        };
        let mode = r
            .text("rerank", "mode", "CAIRN_RERANK", |f| f.mode.clone())
            .map(|s| s.to_ascii_lowercase());
        let url = r.text("rerank", "url", "CAIRN_RERANK_URL", |f| f.url.clone());
        let rerank = match (mode, url) {
            (Some(off), _) if off == "off" => None,
            (_, Some(url)) => Some(RerankSettings::Http {
                model: r.model("rerank", "CAIRN_RERANK_URL", "CAIRN_RERANK_MODEL")?,
                endpoint: r.endpoint("rerank", url, "CAIRN_RERANK_KEY")?,
            }),
            (Some(mmr), None) if mmr == "mmr" => Some(RerankSettings::Mmr),
            (Some(other), None) => {
                return Err(Error::invalid(format!(
                    "the reranker is {other:?} (CAIRN_RERANK or providers.rerank.mode): use mmr                      or off, or give a rerank URL"
                )))
            }
            (None, None) => None,
        };
        Ok(ProviderSettings {
            chat,
            embed,
            embed_dir,
            rerank,
            sources: r.sources,
        })
    }

    /// The chat model, if configured (nothing is sent yet).
    pub fn chat_provider(&self) -> Option<OpenAiChat> {
        self.chat
            .as_ref()
            .map(|c| OpenAiChat::new(c.endpoint.clone(), c.model.clone()))
    }

    /// The reranker, if configured.
    pub fn reranker(&self) -> Option<std::sync::Arc<dyn cairn_core::rerank::Reranker>> {
        self.rerank.as_ref().map(|r| match r {
            RerankSettings::Mmr => std::sync::Arc::new(cairn_core::rerank::Mmr::default())
                as std::sync::Arc<dyn cairn_core::rerank::Reranker>,
            RerankSettings::Http { endpoint, model } => {
                std::sync::Arc::new(crate::HttpReranker::new(endpoint.clone(), model.clone()))
            }
        })
    }

    /// The embedder, if configured: connects (probing the dimension unless
    /// given).
    pub fn embedder(&self) -> Result<Option<RemoteEmbedder>> {
        self.embed
            .as_ref()
            .map(|e| RemoteEmbedder::connect(e.endpoint.clone(), e.api, e.model.clone(), e.dim))
            .transpose()
    }
}

/// Refuse keys written in the file, and keys in the wrong section.
fn check_file(file: &ProvidersFile) -> Result<()> {
    for (name, section) in [
        ("chat", &file.chat),
        ("embed", &file.embed),
        ("rerank", &file.rerank),
    ] {
        let Some(s) = section else { continue };
        let misplaced = |key: &str, present: bool, home: &str| {
            if present && name != home {
                Err(Error::invalid(format!(
                    "providers.{name}.{key}: only [providers.{home}] has {key}"
                )))
            } else {
                Ok(())
            }
        };
        if s.key.is_some() {
            return Err(Error::invalid(format!(
                "providers.{name}.key: an API key is never written in the file; put it in an                  environment variable and name that variable with key_env"
            )));
        }
        misplaced("api", s.api.is_some(), "embed")?;
        misplaced("dim", s.dim.is_some(), "embed")?;
        misplaced("mode", s.mode.is_some(), "rerank")?;
    }
    Ok(())
}

fn number(s: &str, name: &str) -> Result<f64> {
    s.parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| Error::invalid(format!("{name} must be a number ≥ 0, got {s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(pairs: &[(&str, &str)]) -> Result<ProviderSettings> {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ProviderSettings::from_lookup(|k| env.get(k).cloned())
    }

    #[test]
    fn nothing_is_configured_by_default() {
        let s = read(&[]).unwrap();
        assert!(s.chat.is_none() && s.embed.is_none() && s.rerank.is_none());
        assert!(s.embed_dir.is_none());
    }

    #[test]
    fn a_model_directory_is_named_by_the_model_variable_and_excludes_a_url() {
        let s = read(&[("CAIRN_EMBED_DIR", " /models/bge-small-en-v1.5 ")]).unwrap();
        assert_eq!(
            s.embed_dir,
            Some(EmbedDirSettings {
                dir: PathBuf::from("/models/bge-small-en-v1.5"),
                name: None
            })
        );
        let s = read(&[
            ("CAIRN_EMBED_DIR", "/m/e5"),
            ("CAIRN_EMBED_MODEL", "e5-small-v2"),
        ])
        .unwrap();
        assert_eq!(s.embed_dir.unwrap().name.as_deref(), Some("e5-small-v2"));
        let err = read(&[
            ("CAIRN_EMBED_DIR", "/m/e5"),
            ("CAIRN_EMBED_URL", "http://localhost:11434"),
            ("CAIRN_EMBED_MODEL", "nomic-embed-text"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("CAIRN_EMBED_DIR"), "{err}");
    }

    #[test]
    fn rerankers_are_mmr_or_an_endpoint() {
        let mmr = read(&[("CAIRN_RERANK", "MMR")]).unwrap();
        assert_eq!(mmr.reranker().unwrap().name(), "mmr (λ = 0.7)");
        let http = read(&[
            ("CAIRN_RERANK_URL", "http://localhost:8080/v1"),
            ("CAIRN_RERANK_MODEL", "bge-reranker"),
        ])
        .unwrap();
        assert!(http
            .reranker()
            .unwrap()
            .name()
            .starts_with("http:bge-reranker"));
        assert!(
            read(&[("CAIRN_RERANK", "off"), ("CAIRN_RERANK_URL", "http://x")])
                .unwrap()
                .rerank
                .is_none()
        );
        assert!(read(&[("CAIRN_RERANK", "cross-encoder")]).is_err());
        assert!(read(&[("CAIRN_RERANK_URL", "http://x")]).is_err());
    }

    #[test]
    fn a_url_needs_a_model_and_keys_stay_with_their_hosts() {
        assert!(read(&[("CAIRN_CHAT_URL", "http://localhost:11434/v1")]).is_err());
        let s = read(&[
            ("CAIRN_CHAT_URL", "http://localhost:11434/v1/"),
            ("CAIRN_CHAT_MODEL", "llama3.2"),
            ("OPENAI_API_KEY", "sk-x"),
            ("CAIRN_EMBED_URL", "https://api.openai.com/v1"),
            ("CAIRN_EMBED_MODEL", "text-embedding-3-small"),
            ("CAIRN_EMBED_DIM", "1536"),
            ("CAIRN_PROVIDER_RETRIES", "1"),
            ("CAIRN_PROVIDER_TIMEOUT", "2.5"),
        ])
        .unwrap();
        let chat = s.chat.unwrap();
        assert_eq!(chat.endpoint.url, "http://localhost:11434/v1");
        assert_eq!(
            chat.endpoint.key, None,
            "an OpenAI key is not sent elsewhere"
        );
        assert_eq!(chat.endpoint.retries, 1);
        assert_eq!(chat.endpoint.timeout, Duration::from_millis(2500));
        let embed = s.embed.unwrap();
        assert_eq!(embed.endpoint.key.as_deref(), Some("sk-x"));
        assert_eq!((embed.api, embed.dim), (EmbedApi::OpenAi, Some(1536)));
        assert!(read(&[
            ("CAIRN_EMBED_URL", "http://x"),
            ("CAIRN_EMBED_MODEL", "m"),
            ("CAIRN_EMBED_API", "grpc")
        ])
        .is_err());
    }

    fn file(text: &str) -> ProvidersFile {
        #[derive(Deserialize)]
        struct Top {
            providers: ProvidersFile,
        }
        let top: Top = serde_json::from_str(text).unwrap();
        top.providers
    }

    #[test]
    fn the_file_configures_and_the_environment_overrides_saying_where_from() {
        let f = file(
            r#"{"providers": {
                "chat": {"url": "http://localhost:11434/v1", "model": "llama3.2",
                         "key_env": "MY_CHAT_KEY", "timeout": "2m", "retries": 1},
                "embed": {"url": "http://localhost:11434", "model": "nomic-embed-text",
                          "api": "ollama", "dim": 768},
                "rerank": {"mode": "mmr"}}}"#,
        );
        let env = [("MY_CHAT_KEY", "secret-1"), ("CAIRN_EMBED_MODEL", "bge-m3")];
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let s = ProviderSettings::resolve(&f, get).unwrap();
        let chat = s.chat.as_ref().unwrap();
        assert_eq!(
            (chat.model.as_str(), chat.endpoint.retries),
            ("llama3.2", 1)
        );
        assert_eq!(chat.endpoint.timeout, Duration::from_secs(120));
        assert_eq!(chat.endpoint.key.as_deref(), Some("secret-1"));
        let embed = s.embed.as_ref().unwrap();
        assert_eq!(embed.model, "bge-m3", "the variable wins over the file");
        assert_eq!((embed.api, embed.dim), (EmbedApi::Ollama, Some(768)));
        assert!(matches!(s.rerank, Some(RerankSettings::Mmr)));
        let source = |name: &str| {
            s.sources
                .iter()
                .find(|x| x.name == name)
                .map(|x| (x.value.as_str(), x.source.as_str()))
        };
        assert_eq!(
            source("chat.url"),
            Some(("http://localhost:11434/v1", "file providers.chat.url"))
        );
        assert_eq!(
            source("embed.model"),
            Some(("bge-m3", "env CAIRN_EMBED_MODEL"))
        );
        assert_eq!(
            source("chat.key"),
            Some(("set", "env MY_CHAT_KEY (providers.chat.key_env)"))
        );
        assert_eq!(source("embed.retries"), Some(("3", "default")));
        assert_eq!(
            source("rerank.mode"),
            Some(("mmr", "file providers.rerank.mode"))
        );
        assert!(
            s.sources.iter().all(|x| !x.value.contains("secret-1")),
            "a key's value is never shown"
        );
    }

    #[test]
    fn bad_values_in_the_file_are_refused_naming_them() {
        let no_env = |_: &str| None;
        let err = |text: &str| {
            ProviderSettings::resolve(&file(text), no_env)
                .unwrap_err()
                .to_string()
        };
        let e = err(r#"{"providers": {"chat": {"url": "http://x", "model": "m", "key": "sk-1"}}}"#);
        assert!(
            e.contains("providers.chat.key") && e.contains("key_env"),
            "{e}"
        );
        let e = err(
            r#"{"providers": {"chat": {"url": "http://x", "model": "m", "key_env": "NOPE_KEY"}}}"#,
        );
        assert!(e.contains("NOPE_KEY, which is not set"), "{e}");
        let e = err(r#"{"providers": {"chat": {"url": "localhost:11434", "model": "m"}}}"#);
        assert!(e.contains("not an http"), "{e}");
        let e =
            err(r#"{"providers": {"chat": {"url": "http://x", "model": "m", "timeout": "soon"}}}"#);
        assert!(e.contains("providers.chat.timeout"), "{e}");
        let e = err(r#"{"providers": {"chat": {"url": "http://x", "model": "m", "dim": 3}}}"#);
        assert!(
            e.contains("providers.chat.dim: only [providers.embed]"),
            "{e}"
        );
        let e = err(r#"{"providers": {"embed": {"url": "http://x"}}}"#);
        assert!(e.contains("providers.embed.model"), "{e}");
        let e = err(r#"{"providers": {"embed": {"url": "http://x", "model": "m", "dim": 0}}}"#);
        assert!(e.contains("dimension"), "{e}");
        let e = err(r#"{"providers": {"rerank": {"mode": "cross-encoder"}}}"#);
        assert!(e.contains("mmr"), "{e}");
        assert!(serde_json::from_str::<ProvidersFile>(r#"{"chat": {"base_url": "x"}}"#).is_err());
    }
}
