//! Which providers are configured, read from environment variables (the
//! one place a key may come from: it is never stored or printed).
//!
//! | variable | what it is |
//! |---|---|
//! | `CAIRN_CHAT_URL` | an OpenAI-compatible base URL (`https://api.openai.com/v1`, `http://localhost:11434/v1`…); unset: no chat model |
//! | `CAIRN_CHAT_MODEL` | the chat model (required with the URL) |
//! | `CAIRN_CHAT_KEY` | its API key (else `OPENAI_API_KEY` for an `openai.com` URL) |
//! | `CAIRN_EMBED_URL` | an embedding endpoint's base URL; unset: the local model |
//! | `CAIRN_EMBED_DIR` | a local sentence-transformers model directory (BERT family) instead of the default model; not with the URL |
//! | `CAIRN_EMBED_MODEL` | the embedding model (required with the URL); with the directory, the name the store records (default: the directory's name) |
//! | `CAIRN_EMBED_API` | `openai` (default: `POST /embeddings`) or `ollama` (`POST /api/embed`) |
//! | `CAIRN_EMBED_DIM` | the dimension, to skip probing it at start |
//! | `CAIRN_EMBED_KEY` | its API key (else `OPENAI_API_KEY` for an `openai.com` URL) |
//! | `CAIRN_RERANK` | `mmr` (maximal marginal relevance, offline) or `off` (default); with `CAIRN_RERANK_URL`, the endpoint |
//! | `CAIRN_RERANK_URL` | a `/rerank` endpoint's base URL (`POST {base}/rerank`) |
//! | `CAIRN_RERANK_MODEL` | its model (required with the URL) |
//! | `CAIRN_RERANK_KEY` | its API key |
//! | `CAIRN_PROVIDER_TIMEOUT` | one attempt's limit, in seconds (default 30) |
//! | `CAIRN_PROVIDER_RETRIES` | retries after the first attempt (default 3) |

use std::path::PathBuf;
use std::time::Duration;

use cairn_core::{Error, Result};

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

/// The providers the environment configures (none by default).
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
}

impl ProviderSettings {
    /// Read the process's environment (see the module doc).
    pub fn from_env() -> Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Read settings through `get` (a variable's value, if set).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let var = |name: &str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let timeout = match var("CAIRN_PROVIDER_TIMEOUT") {
            None => crate::DEFAULT_TIMEOUT,
            Some(s) => Duration::from_secs_f64(number(&s, "CAIRN_PROVIDER_TIMEOUT")?),
        };
        let retries = match var("CAIRN_PROVIDER_RETRIES") {
            None => crate::DEFAULT_RETRIES,
            Some(s) => number(&s, "CAIRN_PROVIDER_RETRIES")? as u32,
        };
        let endpoint = |url: String, key_var: &str| {
            let key = var(key_var).or_else(|| {
                url.contains("openai.com")
                    .then(|| var("OPENAI_API_KEY"))
                    .flatten()
            });
            let mut e = Endpoint::new(url, key);
            e.timeout = timeout;
            e.retries = retries;
            e
        };
        let model = |url_var: &str, model_var: &str| {
            var(model_var).ok_or_else(|| {
                Error::invalid(format!(
                    "{url_var} is set but {model_var} is not: name the model"
                ))
            })
        };
        let chat = match var("CAIRN_CHAT_URL") {
            None => None,
            Some(url) => Some(ChatSettings {
                model: model("CAIRN_CHAT_URL", "CAIRN_CHAT_MODEL")?,
                endpoint: endpoint(url, "CAIRN_CHAT_KEY"),
            }),
        };
        let embed = match var("CAIRN_EMBED_URL") {
            None => None,
            Some(url) => Some(EmbedSettings {
                model: model("CAIRN_EMBED_URL", "CAIRN_EMBED_MODEL")?,
                api: var("CAIRN_EMBED_API").map_or(Ok(EmbedApi::OpenAi), |s| s.parse())?,
                dim: var("CAIRN_EMBED_DIM")
                    .map(|s| number(&s, "CAIRN_EMBED_DIM").map(|d| d as usize))
                    .transpose()?,
                endpoint: endpoint(url, "CAIRN_EMBED_KEY"),
            }),
        };
        let embed_dir = match (var("CAIRN_EMBED_DIR"), &embed) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "CAIRN_EMBED_URL and CAIRN_EMBED_DIR both choose the embedder: set one",
                ))
            }
            (Some(dir), None) => Some(EmbedDirSettings {
                dir: PathBuf::from(dir),
                name: var("CAIRN_EMBED_MODEL"),
            }),
        };
        let rerank = match (
            var("CAIRN_RERANK").map(|s| s.to_ascii_lowercase()),
            var("CAIRN_RERANK_URL"),
        ) {
            (Some(off), _) if off == "off" => None,
            (_, Some(url)) => Some(RerankSettings::Http {
                model: model("CAIRN_RERANK_URL", "CAIRN_RERANK_MODEL")?,
                endpoint: endpoint(url, "CAIRN_RERANK_KEY"),
            }),
            (Some(mmr), None) if mmr == "mmr" => Some(RerankSettings::Mmr),
            (Some(other), None) => {
                return Err(Error::invalid(format!(
                    "CAIRN_RERANK is {other:?}: use mmr or off, or set CAIRN_RERANK_URL"
                )))
            }
            (None, None) => None,
        };
        Ok(ProviderSettings {
            chat,
            embed,
            embed_dir,
            rerank,
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
}
