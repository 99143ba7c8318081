use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use super::*;

/// A slow model that counts its calls and the size of each: a text's
/// vector is its length and its first byte, so each caller can check it
/// got its own.
#[derive(Default)]
struct Slow {
    calls: AtomicUsize,
    sizes: Mutex<Vec<usize>>,
    fail: bool,
}

fn vector_of(text: &str) -> Vec<f32> {
    vec![text.len() as f32, f32::from(text.as_bytes()[0])]
}

impl Embedder for Slow {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            name: "slow".into(),
            dim: 2,
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.sizes.lock().unwrap().push(texts.len());
        std::thread::sleep(Duration::from_millis(40));
        if self.fail {
            return Err(Error::Provider {
                message: "endpoint down".into(),
                source: None,
            });
        }
        Ok(texts.iter().map(|t| vector_of(t)).collect())
    }
}

fn concurrently(queue: &Arc<BatchingEmbedder>, n: usize) -> Vec<(String, Result<Vec<f32>>)> {
    let start = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let (queue, start) = (queue.clone(), start.clone());
            std::thread::spawn(move || {
                let text = format!("{} query {}", (b'a' + i as u8) as char, "x".repeat(i));
                start.wait();
                let v = queue.embed(&text);
                (text, v)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn concurrent_queries_share_model_calls_and_each_gets_its_own_vector() {
    let model = Arc::new(Slow::default());
    let queue = Arc::new(BatchingEmbedder::new(model.clone()));
    let n = 12;
    for (text, v) in concurrently(&queue, n) {
        assert_eq!(v.unwrap(), vector_of(&text), "{text}");
    }
    let calls = model.calls.load(Ordering::SeqCst);
    assert!(
        calls < n / 2,
        "{n} concurrent embeds made {calls} model calls"
    );
    assert_eq!(model.sizes.lock().unwrap().iter().sum::<usize>(), n);
}

#[test]
fn a_lone_query_and_a_batch_go_straight_to_the_model() {
    let model = Arc::new(Slow::default());
    let queue = BatchingEmbedder::new(model.clone());
    assert_eq!(queue.embed("alone").unwrap(), vector_of("alone"));
    let both = queue.embed_batch(&["one", "two"]).unwrap();
    assert_eq!(both, vec![vector_of("one"), vector_of("two")]);
    assert_eq!(*model.sizes.lock().unwrap(), vec![1, 2]);
}

#[test]
fn a_failed_batch_fails_every_caller_with_the_providers_error() {
    let model = Arc::new(Slow {
        fail: true,
        ..Default::default()
    });
    let queue = Arc::new(BatchingEmbedder::new(model));
    for (_, v) in concurrently(&queue, 6) {
        assert!(
            matches!(v, Err(Error::Provider { ref message, .. }) if message == "endpoint down"),
            "{v:?}"
        );
    }
    // The queue is free again.
    assert!(queue.embed("later").is_err());
}
