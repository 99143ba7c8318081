//! `cairn serve`'s settings: flags, then `CAIRN_…` environment variables,
//! then a TOML file (`--config`), then the defaults. `docs/CONFIG.md`
//! documents every key.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result};
use cairn_core::time::parse_duration;
use cairn_core::Error;
use cairn_providers::ProviderSettings;
use cairn_server::RateLimits;
use serde::Deserialize;

use crate::args::ServeArgs;

/// The file's keys (every one optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    listen: Option<String>,
    store: Option<String>,
    project: Option<String>,
    sweep_every: Option<String>,
    job_lease: Option<String>,
    #[serde(default)]
    auth: AuthFile,
    #[serde(default)]
    limits: LimitsFile,
    #[serde(default)]
    consolidate: ConsolidateFile,
    /// What a write's conflict with an older memory does, for every
    /// command (see [`conflict_policy`]).
    conflicts: Option<String>,
    /// Model providers, for every command (see [`provider_settings`]).
    #[serde(default)]
    providers: cairn_providers::ProvidersFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConsolidateFile {
    enabled: Option<bool>,
    every: Option<String>,
    keep: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuthFile {
    required: Option<bool>,
    allow_hosts: Option<Vec<String>>,
    public_url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    writes_per_minute: Option<u32>,
    recalls_per_minute: Option<u32>,
    reads_per_minute: Option<u32>,
    request_timeout: Option<String>,
    max_concurrent: Option<usize>,
    queue_wait: Option<String>,
    max_import_mb: Option<u64>,
    header_timeout: Option<String>,
    max_connections: Option<usize>,
    /// Rates of particular keys, by key id.
    #[serde(default)]
    keys: BTreeMap<String, KeyRatesFile>,
}

/// One key's own rates; what it leaves out is the server's.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyRatesFile {
    writes_per_minute: Option<u32>,
    recalls_per_minute: Option<u32>,
    reads_per_minute: Option<u32>,
}

/// Everything `cairn serve` runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeSettings {
    pub listen: String,
    /// The store, when the file names one: a path or `sqlite:PATH`, or a
    /// `postgres://…` URL (`--store`, `--db` and their variables win).
    pub store: Option<String>,
    pub project: Option<String>,
    pub sweep_every: Duration,
    /// How long the background jobs' lease lasts unrenewed.
    pub job_lease: Duration,
    /// How often old episodes are consolidated (`None`: never).
    pub consolidate_every: Option<Duration>,
    /// Groups each project keeps unconsolidated.
    pub consolidate_keep: usize,
    pub auth_required: bool,
    pub allow_hosts: Vec<String>,
    /// The URL clients reach the server by, for OAuth's metadata.
    pub public_url: Option<String>,
    pub rate_writes: u32,
    pub rate_recalls: u32,
    pub rate_reads: u32,
    /// Rates of particular keys, by key id.
    pub key_rates: HashMap<String, RateLimits>,
    pub request_timeout: Duration,
    pub max_concurrent: usize,
    pub queue_wait: Duration,
    pub max_import_bytes: u64,
    /// How long a connection may take to send a request head (`None`:
    /// the server's default).
    pub header_timeout: Option<Duration>,
    /// Most connections open at once (`None`: the server's default).
    pub max_connections: Option<usize>,
}

fn duration(key: &str, text: &str) -> Result<Duration> {
    let ms = parse_duration(text).map_err(|e| Error::invalid(format!("{key}: {e}")))?;
    Ok(Duration::from_millis(ms as u64))
}

impl ServeSettings {
    /// The settings of `args`, over its `--config` file if it names one.
    pub fn resolve(args: &ServeArgs) -> Result<ServeSettings> {
        let file = match &args.config {
            Some(path) => read(path)?,
            None => File::default(),
        };
        let limits = file.limits;
        let rate_writes = args.rate_writes.or(limits.writes_per_minute).unwrap_or(100);
        let rate_recalls = args
            .rate_recalls
            .or(limits.recalls_per_minute)
            .unwrap_or(200);
        let rate_reads = args.rate_reads.or(limits.reads_per_minute).unwrap_or(600);
        let mut key_rates = HashMap::new();
        for (id, own) in limits.keys {
            if !cairn_core::keys::is_key_id(&id) {
                return Err(Error::invalid(format!(
                    "limits.keys.{id}: not a key id (12 hex digits, as `cairn keys list` shows)"
                ))
                .into());
            }
            let rates = RateLimits {
                writes: own.writes_per_minute.unwrap_or(rate_writes),
                recalls: own.recalls_per_minute.unwrap_or(rate_recalls),
                reads: own.reads_per_minute.unwrap_or(rate_reads),
            };
            key_rates.insert(id, rates);
        }
        let text = |flag: &Option<String>, key: Option<String>, default: &str| {
            flag.clone().or(key).unwrap_or_else(|| default.to_string())
        };
        let settings = ServeSettings {
            listen: text(&args.listen, file.listen, "127.0.0.1:7878"),
            store: file.store,
            project: args.project.clone().or(file.project),
            sweep_every: duration(
                "sweep_every",
                &text(&args.sweep_every, file.sweep_every, "1m"),
            )?
            .max(Duration::from_secs(1)),
            job_lease: duration("job_lease", &text(&args.job_lease, file.job_lease, "30s"))?
                .max(Duration::from_secs(1)),
            consolidate_every: if args.no_consolidate || file.consolidate.enabled == Some(false) {
                None
            } else {
                Some(
                    duration(
                        "consolidate.every",
                        &text(&args.consolidate_every, file.consolidate.every, "1h"),
                    )?
                    .max(Duration::from_secs(1)),
                )
            },
            consolidate_keep: args
                .consolidate_keep
                .or(file.consolidate.keep)
                .unwrap_or(cairn_core::engine::DEFAULT_KEEP_GROUPS),
            auth_required: !args.no_auth && file.auth.required.unwrap_or(true),
            allow_hosts: if args.allow_hosts.is_empty() {
                file.auth.allow_hosts.unwrap_or_default()
            } else {
                args.allow_hosts.clone()
            },
            public_url: args.public_url.clone().or(file.auth.public_url),
            rate_writes,
            rate_recalls,
            rate_reads,
            key_rates,
            request_timeout: duration(
                "request_timeout",
                &text(&args.request_timeout, limits.request_timeout, "30s"),
            )?,
            max_concurrent: args.max_concurrent.or(limits.max_concurrent).unwrap_or(64),
            max_import_bytes: args
                .max_import_mb
                .or(limits.max_import_mb)
                .unwrap_or(256)
                .saturating_mul(1 << 20),
            queue_wait: duration(
                "queue_wait",
                &limits.queue_wait.unwrap_or_else(|| "5s".into()),
            )?,
            header_timeout: limits
                .header_timeout
                .map(|t| duration("header_timeout", &t))
                .transpose()?,
            max_connections: limits.max_connections,
        };
        if settings.max_connections == Some(0) {
            return Err(Error::invalid("max_connections must be at least 1").into());
        }
        if settings.max_concurrent == 0 {
            return Err(Error::invalid("max_concurrent must be at least 1").into());
        }
        Ok(settings)
    }
}

/// The providers configured by the environment over the `[providers]`
/// section of `config` (`cairn serve --config`, else `CAIRN_CONFIG`), if
/// one is named.
pub fn provider_settings(config: Option<&Path>) -> Result<ProviderSettings> {
    let env_path = std::env::var_os("CAIRN_CONFIG")
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from);
    let file = match config.or(env_path.as_deref()) {
        Some(path) => read(path)?.providers,
        None => Default::default(),
    };
    Ok(ProviderSettings::resolve(&file, |name| {
        std::env::var(name).ok()
    })?)
}

/// The conflict policy writes follow when a request names none:
/// `CAIRN_CONFLICTS`, else the `conflicts` key of `config` (else
/// `CAIRN_CONFIG`'s), else the core's default.
pub fn conflict_policy(config: Option<&Path>) -> Result<cairn_core::ConflictPolicy> {
    if let Some(v) = std::env::var("CAIRN_CONFLICTS")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        return Ok(v
            .parse()
            .map_err(|e| Error::invalid(format!("CAIRN_CONFLICTS: {e}")))?);
    }
    let env_path = std::env::var_os("CAIRN_CONFIG")
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from);
    let named = match config.or(env_path.as_deref()) {
        Some(path) => read(path)?.conflicts,
        None => None,
    };
    match named {
        Some(v) => Ok(v
            .parse()
            .map_err(|e| Error::invalid(format!("conflicts: {e}")))?),
        None => Ok(Default::default()),
    }
}

fn read(path: &Path) -> Result<File> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration {}", path.display()))?;
    toml_edit::de::from_str(&text)
        .map_err(|e| Error::invalid(format!("{}: {e}", path.display().to_string().trim())).into())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::{Cli, Command};

    fn serve_args(args: &[&str]) -> ServeArgs {
        let mut all = vec!["cairn", "serve"];
        all.extend_from_slice(args);
        match Cli::parse_from(all).command {
            Command::Serve(a) => a,
            _ => unreachable!(),
        }
    }

    #[test]
    fn defaults_then_the_file_then_flags() {
        let defaults = ServeSettings::resolve(&serve_args(&[])).unwrap();
        assert_eq!(defaults.listen, "127.0.0.1:7878");
        assert!(defaults.auth_required);
        assert_eq!(
            (
                defaults.rate_writes,
                defaults.rate_recalls,
                defaults.rate_reads
            ),
            (100, 200, 600)
        );
        assert_eq!(defaults.request_timeout, Duration::from_secs(30));
        assert_eq!(defaults.consolidate_every, Some(Duration::from_secs(3600)));
        assert_eq!(defaults.consolidate_keep, 10);
        assert_eq!(defaults.max_import_bytes, 256 << 20);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.toml");
        std::fs::write(
            &path,
            "listen = \"127.0.0.1:9000\"\nstore = \"/srv/cairn.db\"\n[auth]\nallow_hosts = [\"cairn.internal\"]\n[limits]\nwrites_per_minute = 5\nrequest_timeout = \"10s\"\n",
        )
        .unwrap();
        let p = path.to_str().unwrap();
        let from_file = ServeSettings::resolve(&serve_args(&["--config", p])).unwrap();
        assert_eq!(from_file.listen, "127.0.0.1:9000");
        assert_eq!(from_file.store.as_deref(), Some("/srv/cairn.db"));
        assert_eq!(from_file.allow_hosts, vec!["cairn.internal".to_string()]);
        assert_eq!(from_file.rate_writes, 5);
        assert_eq!(from_file.rate_recalls, 200, "a key the file leaves out");
        assert_eq!(from_file.request_timeout, Duration::from_secs(10));
        assert!(from_file.key_rates.is_empty());

        std::fs::write(&path, "[consolidate]\nevery = \"10m\"\nkeep = 3\n").unwrap();
        let c = ServeSettings::resolve(&serve_args(&["--config", p])).unwrap();
        assert_eq!(c.consolidate_every, Some(Duration::from_secs(600)));
        assert_eq!(c.consolidate_keep, 3);
        let c = ServeSettings::resolve(&serve_args(&["--config", p, "--consolidate-keep", "5"]))
            .unwrap();
        assert_eq!(c.consolidate_keep, 5);
        let off =
            ServeSettings::resolve(&serve_args(&["--config", p, "--no-consolidate"])).unwrap();
        assert_eq!(off.consolidate_every, None);
        std::fs::write(&path, "[consolidate]\nenabled = false\n").unwrap();
        let off = ServeSettings::resolve(&serve_args(&["--config", p])).unwrap();
        assert_eq!(off.consolidate_every, None);

        std::fs::write(&path, "store = \"postgres://cairn@db/cairn?schema=team\"\n").unwrap();
        let url = ServeSettings::resolve(&serve_args(&["--config", p])).unwrap();
        assert_eq!(
            url.store.as_deref(),
            Some("postgres://cairn@db/cairn?schema=team")
        );

        std::fs::write(
            &path,
            "[limits]\nwrites_per_minute = 5\n[limits.keys.0123456789ab]\nwrites_per_minute = 1000\nreads_per_minute = 0\n",
        )
        .unwrap();
        let keyed = ServeSettings::resolve(&serve_args(&["--config", p])).unwrap();
        assert_eq!(
            keyed.key_rates.get("0123456789ab"),
            Some(&RateLimits {
                writes: 1000,
                recalls: 200,
                reads: 0
            }),
            "what the key leaves out is the server's"
        );

        let flags = ServeSettings::resolve(&serve_args(&[
            "--config",
            p,
            "--listen",
            "127.0.0.1:9001",
            "--rate-writes",
            "7",
        ]))
        .unwrap();
        assert_eq!(
            (flags.listen.as_str(), flags.rate_writes),
            ("127.0.0.1:9001", 7)
        );
    }

    #[test]
    fn a_bad_file_is_refused_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.toml");
        std::fs::write(&path, "[limits]\nwrites_per_minit = 5\n").unwrap();
        let err = ServeSettings::resolve(&serve_args(&["--config", path.to_str().unwrap()]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("writes_per_minit"), "{err}");
        std::fs::write(&path, "sweep_every = \"soon\"\n").unwrap();
        let err = ServeSettings::resolve(&serve_args(&["--config", path.to_str().unwrap()]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("sweep_every"), "{err}");
        std::fs::write(&path, "[limits.keys.alice]\nwrites_per_minute = 5\n").unwrap();
        let err = ServeSettings::resolve(&serve_args(&["--config", path.to_str().unwrap()]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("limits.keys.alice: not a key id"), "{err}");
        let missing = dir.path().join("nope.toml");
        let err = ServeSettings::resolve(&serve_args(&["--config", missing.to_str().unwrap()]))
            .unwrap_err();
        assert!(format!("{err:#}").contains("nope.toml"), "{err:#}");
    }
}
