//! `backup` and `restore`: a whole store (memories with their versions
//! and receipts, slots, conversations, API keys, the model) into one file,
//! and back into any store.
//!
//! # The file
//! A backup is a store file of the format the front end chooses (the CLI:
//! SQLite, [`BackupFile`]) holding a copy of everything, plus a manifest:
//! the count and SHA-256 of each kind of record ([`crate::migrate::checksums`]).
//! It is written as `FILE.partial` (made empty with mode 0600 first),
//! checked, given its manifest last, synced, and only then renamed to
//! `FILE`: a process killed midway leaves at most a `.partial` file, which
//! has no manifest and which [`restore`] refuses.
//!
//! # Consistency while others write
//! A store that can copy itself at one instant
//! ([`Maintenance::snapshot_into`](crate::store::Maintenance::snapshot_into),
//! SQLite's `VACUUM INTO`) is copied so, whatever other processes write
//! meanwhile. Any other store is copied record by record and compared with the
//! source afterwards: a write in between is reported and the backup refused
//! (run it again).
//!
//! # Restoring
//! The backup's records are checked against its manifest, copied into an
//! empty store as `cairn migrate` copies (ids, times, embeddings, versions
//! kept), and the destination's checksums compared with the manifest.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::migrate::{self, MigrateOptions, MigrateReport, TableSum};
use crate::store::Store;
use crate::time::format_timestamp;
use crate::{Error, Result};

/// What a backup manifest says it is.
const FORMAT: &str = "cairn-backup";
/// The manifest's version.
const VERSION: u32 = 1;

/// How a front end keeps backup files: a store file it can open, with
/// room for a short text (the manifest) beside the records.
pub trait BackupFile {
    /// Open the store file at `path`, which exists.
    fn open(&self, path: &Path) -> Result<Arc<dyn Store>>;
    /// Keep `manifest` in the file at `path` (no store has it open), which
    /// is then complete: one file, nothing beside it.
    fn write_manifest(&self, path: &Path, manifest: &str) -> Result<()>;
    /// The manifest of the file at `path`; `None` if it has none (not a
    /// finished backup).
    fn read_manifest(&self, path: &Path) -> Result<Option<String>>;
}

/// One kind of record's count and checksum, as a manifest keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordSum {
    /// `memories`, `versions`, `receipts`, `keys`, `collections` or
    /// `settings`.
    pub table: String,
    /// How many records.
    pub count: usize,
    /// SHA-256 of their canonical serialisations, hex.
    pub sha256: String,
}

impl From<TableSum> for RecordSum {
    fn from(s: TableSum) -> Self {
        RecordSum {
            table: s.table.to_string(),
            count: s.count,
            sha256: s.sha256,
        }
    }
}

/// The manifest: what the backup holds, and when it was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    created_at: String,
    checksums: Vec<RecordSum>,
}

/// What `backup` wrote.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BackupOutput {
    /// The backup file.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// When the copy was taken.
    pub created_at: String,
    /// `snapshot`: copied at one instant by the store itself; `records`:
    /// copied record by record and compared with the source.
    pub method: String,
    /// Each kind of record's count and checksum (the manifest).
    pub checksums: Vec<RecordSum>,
}

/// What `restore` wrote.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RestoreOutput {
    /// When the backup was taken.
    pub created_at: String,
    /// Memories written.
    pub memories: usize,
    /// Deletion receipts written.
    pub receipts: usize,
    /// API keys written.
    pub keys: usize,
    /// Slots, conversations, sessions, topics and settings written.
    pub collections: usize,
    /// Each kind of record's count and checksum, the same in the backup
    /// and in the store restored.
    pub checksums: Vec<RecordSum>,
}

/// `FILE.partial`: where a backup is written until it is complete.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

fn sums(store: &dyn Store) -> Result<Vec<RecordSum>> {
    Ok(migrate::checksums(store)?
        .into_iter()
        .map(RecordSum::from)
        .collect())
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::storage_from(format!("cannot {what} {}", path.display()), e)
}

/// An empty file at `path`, readable by its owner only.
fn create_private(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .map(drop)
        .map_err(|e| io_err("create", path, e))
}

/// Copy everything `store` holds into the backup file `path` (see the
/// module docs), replacing a file there only once the new one is complete.
pub fn backup(store: &dyn Store, path: &Path, file: &dyn BackupFile) -> Result<BackupOutput> {
    if path.is_dir() {
        return Err(Error::invalid(format!(
            "{} is a directory: name the backup file",
            path.display()
        )));
    }
    let partial = partial_path(path);
    match std::fs::remove_file(&partial) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io_err("remove the unfinished", &partial, e))
        }
        _ => {}
    }
    let written = write_partial(store, &partial, file);
    let (created_at, method, checksums) = match written {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, path).map_err(|e| io_err("rename", &partial, e))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The rename itself survives a power cut once the directory is synced.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    let bytes = std::fs::metadata(path)
        .map_err(|e| io_err("read", path, e))?
        .len();
    Ok(BackupOutput {
        path: path.display().to_string(),
        bytes,
        created_at,
        method: method.to_string(),
        checksums,
    })
}

/// Write the complete backup into `partial`: (time, method, checksums).
fn write_partial(
    store: &dyn Store,
    partial: &Path,
    file: &dyn BackupFile,
) -> Result<(String, &'static str, Vec<RecordSum>)> {
    create_private(partial)?;
    let created_at = format_timestamp(crate::time::now());
    let snapshot = store.maintenance().snapshot_into(partial)?;
    let copy = file.open(partial)?;
    let method = if snapshot {
        "snapshot"
    } else {
        migrate::migrate(
            store,
            &*copy,
            MigrateOptions {
                batch: migrate::DEFAULT_BATCH,
                progress: &mut |_, _| {},
            },
        )?;
        "records"
    };
    copy.maintenance().verify()?;
    let checksums = sums(&*copy)?;
    drop(copy);
    if !snapshot {
        let now = sums(store)?;
        if now != checksums {
            let changed: Vec<&str> = now
                .iter()
                .zip(&checksums)
                .filter(|(a, b)| a != b)
                .map(|(a, _)| a.table.as_str())
                .collect();
            return Err(Error::Unavailable {
                message: format!(
                    "the store was written to while it was copied ({} changed): run the backup again",
                    changed.join(", ")
                ),
                source: None,
            });
        }
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        created_at: created_at.clone(),
        checksums: checksums.clone(),
    };
    let text = serde_json::to_string(&manifest).map_err(|e| Error::storage(e.to_string()))?;
    file.write_manifest(partial, &text)?;
    std::fs::File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(|e| io_err("sync", partial, e))?;
    Ok((created_at, method, checksums))
}

/// The manifest of the backup at `path`, or an error saying why it is not
/// one.
fn manifest(path: &Path, file: &dyn BackupFile) -> Result<Manifest> {
    if !path.is_file() {
        return Err(Error::invalid(format!(
            "no backup file at {}",
            path.display()
        )));
    }
    let text = file.read_manifest(path)?.ok_or_else(|| {
        Error::invalid(format!(
            "{} is not a complete Cairn backup (it has no manifest: an unfinished or \
             interrupted backup, or another file)",
            path.display()
        ))
    })?;
    let manifest: Manifest = serde_json::from_str(&text)
        .ok()
        .filter(|m: &Manifest| m.format == FORMAT)
        .ok_or_else(|| Error::invalid(format!("{}: its manifest is unreadable", path.display())))?;
    if manifest.version > VERSION {
        return Err(Error::invalid(format!(
            "{} was written by a newer Cairn (backup version {}): upgrade Cairn",
            path.display(),
            manifest.version
        )));
    }
    Ok(manifest)
}

/// Copy the backup at `path` into `store`, which must be empty, after
/// checking the backup against its manifest; then check the copy.
pub fn restore(store: &dyn Store, path: &Path, file: &dyn BackupFile) -> Result<RestoreOutput> {
    let manifest = manifest(path, file)?;
    if !store.tenants(crate::TenantsWith::Anything)?.is_empty()
        || !store.key_store().keys(None)?.is_empty()
    {
        return Err(Error::invalid(
            "the store to restore into is not empty: restore into a new store (`cairn --db NEW \
             restore FILE`, or an empty PostgreSQL schema)",
        ));
    }
    let source = file.open(path)?;
    source.maintenance().verify()?;
    if sums(&*source)? != manifest.checksums {
        return Err(Error::storage(format!(
            "{} is damaged: its records do not match its manifest's checksums",
            path.display()
        )));
    }
    let report: MigrateReport = migrate::migrate(
        &*source,
        store,
        MigrateOptions {
            batch: migrate::DEFAULT_BATCH,
            progress: &mut |_, _| {},
        },
    )?;
    let restored = sums(store)?;
    if restored != manifest.checksums {
        return Err(Error::storage(
            "the restored store differs from the backup's checksums: was it written to during \
             the restore?",
        ));
    }
    Ok(RestoreOutput {
        created_at: manifest.created_at,
        memories: report.memories,
        receipts: report.receipts,
        keys: report.keys,
        collections: report.collections,
        checksums: restored,
    })
}
