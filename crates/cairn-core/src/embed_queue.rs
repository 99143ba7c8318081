//! [`BatchingEmbedder`]: concurrent single-text embeddings (the queries of
//! recalls served at once) gathered into one model call.
//!
//! A model embeds a batch of texts in much less time than the same texts
//! one by one (one pass, the matrix work shared). The engine wraps every
//! embedder in this queue ([`crate::Cairn::new`]), so that every front end
//! gets it: a text asked for while the model is busy waits in the queue;
//! when the model is free, the first waiter takes every text queued (up to
//! [`MAX_QUERY_BATCH`]) and embeds them in one call, and each caller gets
//! its own vector. Alone, a call goes straight to the model: no timer, no
//! added latency. Batches of several texts (imports, ingestion) pass
//! through untouched.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::{Embedder, Error, ModelInfo, Result};

/// The most queued texts embedded in one call: enough for every client of
/// a busy server, small enough that one call stays short.
pub const MAX_QUERY_BATCH: usize = 32;

#[derive(Default)]
struct Queue {
    /// Texts waiting for the model, with their tickets.
    waiting: Vec<(u64, String)>,
    /// Answers not yet taken by their callers, by ticket.
    done: HashMap<u64, Result<Vec<f32>>>,
    /// A call to the model is under way.
    busy: bool,
    next: u64,
}

/// An [`Embedder`] whose single-text calls made at the same time share
/// model calls (see the [module doc](self)).
pub struct BatchingEmbedder {
    inner: Arc<dyn Embedder>,
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl BatchingEmbedder {
    /// A queue in front of `inner`.
    pub fn new(inner: Arc<dyn Embedder>) -> Self {
        BatchingEmbedder {
            inner,
            queue: Mutex::default(),
            ready: Condvar::new(),
        }
    }

    /// The embedder behind the queue.
    pub fn inner(&self) -> &Arc<dyn Embedder> {
        &self.inner
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Embed `batch` in one model call and file each answer by ticket.
    fn run(&self, batch: Vec<(u64, String)>) {
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        // A panicking model must not leave the queue busy for good.
        let answers = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.inner.embed_batch(&texts)
        }))
        .unwrap_or_else(|_| Err(Error::embedding("the embedder panicked")));
        let mut q = self.lock();
        match answers {
            Ok(vectors) if vectors.len() == batch.len() => {
                for ((ticket, _), v) in batch.iter().zip(vectors) {
                    q.done.insert(*ticket, Ok(v));
                }
            }
            Ok(_) => {
                for (ticket, _) in &batch {
                    let e = Error::embedding("embedder returned too few vectors");
                    q.done.insert(*ticket, Err(e));
                }
            }
            Err(e) => {
                for (ticket, _) in &batch {
                    q.done.insert(*ticket, Err(shared(&e)));
                }
            }
        }
        q.busy = false;
        drop(q);
        self.ready.notify_all();
    }
}

/// `e` for each caller of a failed batch: the same kind (a provider's
/// failure stays one, so writes are kept pending) and message.
fn shared(e: &Error) -> Error {
    match e {
        Error::Provider { message, .. } => Error::Provider {
            message: message.clone(),
            source: None,
        },
        other => Error::Embedding {
            message: match other {
                Error::Embedding { message, .. } => message.clone(),
                other => other.to_string(),
            },
            source: None,
        },
    }
}

impl Embedder for BatchingEmbedder {
    fn model(&self) -> ModelInfo {
        self.inner.model()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        match texts {
            [one] => Ok(vec![self.embed(one)?]),
            _ => self.inner.embed_batch(texts),
        }
    }

    fn embed(&self, text: &str) -> Result<Vec<f32>> {
        let mut q = self.lock();
        let ticket = q.next;
        q.next += 1;
        q.waiting.push((ticket, text.to_string()));
        loop {
            if let Some(answer) = q.done.remove(&ticket) {
                return answer;
            }
            if !q.busy {
                q.busy = true;
                let take = q.waiting.len().min(MAX_QUERY_BATCH);
                let batch: Vec<(u64, String)> = q.waiting.drain(..take).collect();
                drop(q);
                self.run(batch);
                q = self.lock();
                continue;
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
#[path = "embed_queue_tests.rs"]
mod tests;
