//! A small pool of read-only connections beside the one writer: WAL
//! readers never block each other nor the writer, so reads served from
//! the pool run in parallel, while writes keep their one connection (and
//! SQLite's one write lock).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use cairn_core::{Error, Result};
use rusqlite::{Connection, OpenFlags};

use crate::sql::sql_err;
use crate::store::BUSY_TIMEOUT;

/// Page cache of each read connection, in KiB: smaller than the writer's
/// ([`crate::CACHE_KIB`]), since there are several and they read the same
/// hot pages.
pub(crate) const READER_CACHE_KIB: i64 = 16 * 1024;

/// How much of the file each read connection maps into memory, in bytes
/// (SQLite caps it at its compile-time limit, 2 GB): a page read from the
/// map is neither copied by a system call nor kept in the connection's
/// cache. SQLite empties a connection's cache whenever another connection
/// has written, which under load (access counts, new memories) is every
/// second or more often, so without the map every such read came back
/// through `pread`.
pub(crate) const READER_MMAP_BYTES: i64 = 2 << 30;

/// Read connections of a store: as many as the machine has cores, at most
/// eight.
pub(crate) fn reader_count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8))
}

/// Read-only connections to one file, each opened the first time it is
/// needed (a one-shot command uses one).
pub(crate) struct Readers {
    path: PathBuf,
    slots: Vec<Mutex<Option<Connection>>>,
    next: AtomicUsize,
}

/// A connection of the pool, held until dropped.
pub(crate) struct Reader<'a>(MutexGuard<'a, Option<Connection>>);

impl std::ops::Deref for Reader<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.0.as_ref().expect("opened when taken")
    }
}

impl Readers {
    pub(crate) fn new(path: PathBuf, count: usize) -> Self {
        Readers {
            path,
            slots: (0..count.max(1)).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The first free connection (so that one thread keeps using the same
    /// one, with its cache and prepared statements), else the next in turn
    /// once it is free.
    pub(crate) fn get(&self) -> Result<Reader<'_>> {
        let free = self.slots.iter().find_map(|slot| slot.try_lock().ok());
        let mut slot = match free {
            Some(slot) => slot,
            None => {
                let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
                self.slots[turn]
                    .lock()
                    .map_err(|_| Error::storage("a read connection's lock is poisoned"))?
            }
        };
        if slot.is_none() {
            *slot = Some(self.open()?);
        }
        Ok(Reader(slot))
    }

    /// NO_MUTEX: a pool connection is used by one thread at a time (its
    /// slot's lock), and SQLite's own per-call locking would cost more.
    fn open(&self) -> Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql_err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err)?;
        conn.pragma_update(None, "cache_size", -READER_CACHE_KIB)
            .map_err(sql_err)?;
        conn.pragma_update(None, "mmap_size", READER_MMAP_BYTES)
            .map_err(sql_err)?;
        Ok(conn)
    }
}
