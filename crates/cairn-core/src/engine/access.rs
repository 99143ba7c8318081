//! Access counts off the request path: a bounded queue of accesses
//! drained by one background thread, which writes each batch in one call
//! to [`Store::record_accesses`] (one transaction on SQLite).
//!
//! A recall or a get then never waits for the store's writer. The counts
//! are a ranking signal (the access boost of [`crate::rank`]), so they may
//! reach the store a moment late: a batch is written at most
//! [`FLUSH_DELAY`] after its first access. A clean stop loses nothing
//! ([`AccessLog`]'s drop and [`crate::Cairn::flush_accesses`] write what
//! is queued); a crash loses what was queued and not yet written (at most
//! [`FLUSH_DELAY`] of reads, at most [`QUEUE_CAPACITY`] of them).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::store::{Access, Store};
use crate::{Error, Result};

/// How long the flusher lets accesses gather after the first one of a
/// batch before it writes them: one transaction per this long at most
/// under load, instead of one per request. The longer, the more of a
/// batch's accesses share the store's pages (SQLite rewrites each touched
/// page once per transaction).
pub const FLUSH_DELAY: Duration = Duration::from_secs(1);

/// The most reads queued (a recall's results are one read): a request
/// that fills the queue writes it itself (back-pressure, nothing
/// dropped), so memory stays bounded when the store is slower than the
/// readers. The flusher starts on a batch once half of this is queued.
pub const QUEUE_CAPACITY: usize = 8192;

#[derive(Default)]
struct Queue {
    pending: Vec<Access>,
    /// Set when the log is dropped: the flusher writes what is left and
    /// ends.
    closed: bool,
    /// The last background write's failure, answered by the next flush.
    failed: Option<Error>,
}

struct Shared {
    store: Arc<dyn Store>,
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Held while a batch is taken from the queue and written, so that a
    /// flush returns only once every access queued before it is written.
    writing: Mutex<()>,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take what is queued and write it.
    fn write_pending(&self) -> Result<()> {
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let batch = std::mem::take(&mut self.queue().pending);
        if batch.is_empty() {
            return Ok(());
        }
        self.store.record_accesses(&batch)
    }

    /// The flusher: wait for a first access, let more gather for
    /// [`FLUSH_DELAY`] (or until the queue is half full or closed), write
    /// them, again; once closed, write the rest and end.
    fn flush_loop(&self) {
        loop {
            let mut q = self.queue();
            while q.pending.is_empty() && !q.closed {
                q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
            }
            let first = Instant::now();
            while !q.closed && q.pending.len() < QUEUE_CAPACITY / 2 {
                let left = FLUSH_DELAY.saturating_sub(first.elapsed());
                if left.is_zero() {
                    break;
                }
                q = self
                    .wake
                    .wait_timeout(q, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let closed = q.closed;
            drop(q);
            if let Err(e) = self.write_pending() {
                self.queue().failed = Some(e);
            }
            if closed {
                return;
            }
        }
    }
}

/// The engine's queue of accesses and its flusher thread (started with
/// the first access). Dropping it writes what is queued.
pub struct AccessLog {
    shared: Arc<Shared>,
    flusher: OnceLock<Option<JoinHandle<()>>>,
}

impl AccessLog {
    /// A log writing to `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        AccessLog {
            shared: Arc::new(Shared {
                store,
                queue: Mutex::default(),
                wake: Condvar::new(),
                writing: Mutex::new(()),
            }),
            flusher: OnceLock::new(),
        }
    }

    /// Queue one access of each of `ids`; written by the flusher, or here
    /// when the queue is full.
    pub fn push(&self, access: Access) -> Result<()> {
        let mut q = self.shared.queue();
        q.pending.push(access);
        let full = q.pending.len() >= QUEUE_CAPACITY;
        drop(q);
        self.start_flusher();
        if full {
            return self.shared.write_pending();
        }
        self.shared.wake.notify_one();
        Ok(())
    }

    fn start_flusher(&self) {
        self.flusher.get_or_init(|| {
            let shared = self.shared.clone();
            std::thread::Builder::new()
                .name("cairn-access-log".into())
                .spawn(move || shared.flush_loop())
                .ok()
        });
    }

    /// Write every access queued so far; answers the failure of a
    /// background write since the last flush, if one failed.
    pub fn flush(&self) -> Result<()> {
        self.shared.write_pending()?;
        match self.shared.queue().failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Accesses queued and not yet written.
    pub fn queued(&self) -> usize {
        self.shared.queue().pending.len()
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.wake.notify_all();
        match self.flusher.take().flatten() {
            Some(handle) => {
                let _ = handle.join();
            }
            None => {
                let _ = self.shared.write_pending();
            }
        }
    }
}
