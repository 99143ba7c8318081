//! WAL checkpoints on a thread of their own, for bulk writes.
//!
//! SQLite checkpoints the write-ahead log inside the commit that makes it
//! grow past 1,000 pages: it copies the new pages into the database file
//! and waits for both files to reach the disk. During an import of
//! pre-embedded records that is most of the time, mostly waiting for
//! the disk. So a bulk write turns the connection's automatic checkpoint
//! off for its transaction and asks this thread for a checkpoint after it
//! commits; the next batch is built while the disk works.
//!
//! A checkpoint is `PASSIVE`: it never blocks readers or writers, and one
//! that cannot finish leaves the rest for the next. Small writes keep
//! SQLite's own checkpoints. The store waits for the thread when it is
//! dropped, so a process that imported leaves a checkpointed file.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rusqlite::Connection;

use crate::BUSY_TIMEOUT;

#[derive(Default)]
struct State {
    /// A checkpoint was asked for and has not started.
    requested: bool,
    /// A checkpoint is running.
    running: bool,
    /// The store is going away: finish and stop.
    stop: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is three flags, consistent after any panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The checkpoint thread of one store file, started on first use.
pub(crate) struct Checkpointer {
    path: PathBuf,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Checkpointer {
    pub(crate) fn new(path: PathBuf) -> Self {
        Checkpointer {
            path,
            shared: Arc::default(),
            thread: Mutex::new(None),
        }
    }

    /// Ask for a checkpoint (several requests before it starts make one).
    pub(crate) fn request(&self) {
        {
            let mut thread = self.thread.lock().unwrap_or_else(|e| e.into_inner());
            if thread.is_none() {
                let (path, shared) = (self.path.clone(), self.shared.clone());
                *thread = Some(std::thread::spawn(move || run(&path, &shared)));
            }
        }
        self.shared.lock().requested = true;
        self.shared.changed.notify_all();
    }

    /// Wait until no checkpoint is asked for or running.
    pub(crate) fn wait(&self) {
        let mut state = self.shared.lock();
        while (state.requested || state.running) && !state.stop {
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.wait();
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
        let thread = self.thread.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(thread) = thread.take() {
            let _ = thread.join();
        }
    }
}

/// The thread: one connection, one `PASSIVE` checkpoint per request. A
/// failed checkpoint (the file went away, the disk is full) is left for
/// the next one or for SQLite's own, as SQLite does with its automatic
/// checkpoints.
fn run(path: &std::path::Path, shared: &Shared) {
    let conn = Connection::open(path).and_then(|c| {
        c.busy_timeout(BUSY_TIMEOUT)?;
        Ok(c)
    });
    loop {
        let mut state = shared.lock();
        while !state.requested && !state.stop {
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if state.stop {
            return;
        }
        state.requested = false;
        state.running = true;
        drop(state);
        if let Ok(conn) = &conn {
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        }
        shared.lock().running = false;
        shared.changed.notify_all();
    }
}

/// Copy the whole write-ahead log into the database file and truncate the
/// log to zero bytes, so that no page image from before a deletion stays
/// on disk beside the database (whose freed pages `secure_delete` zeroes).
/// Waits for readers up to the busy timeout; a checkpoint they still block
/// is left for the next one, as SQLite leaves its own.
pub(crate) fn truncate_wal(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Whether `db`'s write-ahead log holds anything (a process that wrote
/// ended without closing the store).
pub(crate) fn wal_left(db: &std::path::Path) -> bool {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0)
}
