//! How far a commit is on disk when the store answers.
//!
//! The store runs in WAL mode with `synchronous = NORMAL` by default: a
//! commit is written to the write-ahead log, which is synced at each
//! checkpoint rather than at each commit. An acknowledged write survives a
//! crash of the process (the log is in the operating system's cache), but
//! the last commits before a power cut or a kernel crash may be lost; the
//! file is never corrupted. [`Durability::Full`] syncs the log at every
//! commit (`synchronous = FULL`), so an acknowledged write survives a power
//! cut too, at the cost of one `fsync` per write (docs/BENCHMARKS.md
//! measures it).

use std::str::FromStr;

use cairn_core::{Error, Result};

use crate::sql::sql_err;
use crate::SqliteStore;

/// How far a commit is on disk when the store answers (see the module).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    /// Survives a crash of the process; the last commits may be lost on a
    /// power cut (`synchronous = NORMAL`).
    #[default]
    Normal,
    /// Survives a power cut: the log is synced at every commit
    /// (`synchronous = FULL`).
    Full,
}

impl Durability {
    /// SQLite's `synchronous` setting for it.
    pub fn synchronous(self) -> &'static str {
        match self {
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        }
    }
}

impl FromStr for Durability {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normal" => Ok(Durability::Normal),
            "full" => Ok(Durability::Full),
            other => Err(Error::invalid(format!(
                "durability `{other}` is unknown: use `normal` (survives a process crash) \
                 or `full` (survives a power cut; slower writes)"
            ))),
        }
    }
}

impl SqliteStore {
    /// Sync commits as `durability` says from now on (every write goes
    /// through the one writing connection this sets).
    pub fn set_durability(&self, durability: Durability) -> Result<()> {
        self.conn()?
            .pragma_update(None, "synchronous", durability.synchronous())
            .map_err(sql_err)
    }

    /// The durability of this store's commits.
    pub fn durability(&self) -> Result<Durability> {
        let level: i64 = self
            .conn()?
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .map_err(sql_err)?;
        Ok(if level >= 2 {
            Durability::Full
        } else {
            Durability::Normal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durability_is_set_on_the_writing_connection() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("d.db")).unwrap();
        assert_eq!(store.durability().unwrap(), Durability::Normal);
        store.set_durability("FULL".parse().unwrap()).unwrap();
        assert_eq!(store.durability().unwrap(), Durability::Full);
        let err = "fsync".parse::<Durability>().unwrap_err().to_string();
        assert!(err.contains("`fsync` is unknown"), "{err}");
    }
}
