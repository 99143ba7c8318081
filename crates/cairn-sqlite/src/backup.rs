//! Backup files as SQLite files ([`cairn_core::api::BackupFile`]): the
//! store's own format, so a backup also opens as a store (read it with
//! `cairn --db FILE list`), with the manifest as the `backup` row of its
//! `meta` table, which no store operation reads or copies.

use std::path::Path;
use std::sync::Arc;

use cairn_core::api::BackupFile;
use cairn_core::{Error, Result, Store};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::SqliteStore;

/// The `meta` key of a backup's manifest.
const MANIFEST_KEY: &str = "backup";

/// Backups written and read as SQLite files.
#[derive(Debug, Clone, Copy, Default)]
pub struct SqliteBackupFile;

fn sql_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::storage(format!("{}: {e}", path.display()))
}

impl BackupFile for SqliteBackupFile {
    fn open(&self, path: &Path) -> Result<Arc<dyn Store>> {
        Ok(Arc::new(SqliteStore::open_existing(path)?))
    }

    fn write_manifest(&self, path: &Path, manifest: &str) -> Result<()> {
        let conn = Connection::open(path).map_err(|e| sql_err(path, e))?;
        // One self-contained file: no write-ahead log beside it.
        conn.pragma_update(None, "journal_mode", "DELETE")
            .map_err(|e| sql_err(path, e))?;
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            [MANIFEST_KEY, manifest],
        )
        .map_err(|e| sql_err(path, e))?;
        conn.close().map_err(|(_, e)| sql_err(path, e))
    }

    fn read_manifest(&self, path: &Path) -> Result<Option<String>> {
        let not_one = || {
            Error::invalid(format!(
                "{} is not a Cairn backup (not a Cairn SQLite file)",
                path.display()
            ))
        };
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|_| not_one())?;
        conn.query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [MANIFEST_KEY],
            |r| r.get(0),
        )
        .optional()
        .map_err(|_| not_one())
    }
}
