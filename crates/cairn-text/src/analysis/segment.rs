//! Topic segmentation of a conversation: where its subject changes, from the
//! messages' embeddings (unit-norm, computed by the caller).
//!
//! A [`TopicTracker`] follows the current topic as the centroid of its most
//! recent messages:
//!
//! ```text
//! topic  = (Σ vⱼ) / ‖Σ vⱼ‖   over the topic's last WINDOW messages (6)
//! sim(v) = v · topic
//! ```
//!
//! A message with `sim ≥ threshold` belongs to the topic and joins its
//! window. One below is held as the possible start of a new topic; the
//! change is confirmed when `min_len` consecutive messages (2) are all below
//! the threshold, and the new topic starts at the first of them. A message
//! back on topic before that discards the held ones: a single aside ("thanks,
//! by the way the coffee machine is broken") does not split the
//! conversation, and does not pull the topic's centroid.
//!
//! The threshold, [`THRESHOLD`] = 0.25, is set for all-MiniLM-L6-v2 with
//! the scripted conversations of `cairn-embed`'s `segment` integration test
//! (18 messages changing subject twice; 16 on one subject): every threshold
//! from 0.1875 to 0.3125 finds exactly the two changes and no change in the
//! single subject, and 0.25 is the middle of that range. Against the running
//! topic, messages on the same subject mostly score 0.3–0.65 but dip to
//! 0.18 now and then, and the first message of a new subject can score as
//! high (0.19) while the next ones score below 0.1: one message does not
//! tell a change from a dip, two in a row do, hence [`MIN_LEN`] = 2.

use std::collections::VecDeque;

/// Messages whose mean is the running topic.
pub const WINDOW: usize = 6;

/// Similarity to the running topic below which a message is off topic
/// (all-MiniLM-L6-v2: the middle of the range that segments the test
/// conversations correctly; see the module doc).
pub const THRESHOLD: f32 = 0.25;

/// Consecutive off-topic messages that make a new topic.
pub const MIN_LEN: usize = 2;

/// How a [`TopicTracker`] decides.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SegmentConfig {
    /// Similarity below which a message is off topic.
    pub threshold: f32,
    /// Messages in the running topic's centroid (at least 1).
    pub window: usize,
    /// Consecutive off-topic messages that start a new topic (at least 1).
    pub min_len: usize,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        SegmentConfig {
            threshold: THRESHOLD,
            window: WINDOW,
            min_len: MIN_LEN,
        }
    }
}

/// What the tracker made of one message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The message's similarity to the running topic (1.0 for the first).
    pub similarity: f32,
    /// A new topic confirmed by this message: the index of its first
    /// message (this one or an earlier held one).
    pub boundary: Option<usize>,
    /// The message is off the running topic and held as the possible start
    /// of a new one, which the next message confirms or discards.
    pub held: bool,
}

/// Follows a conversation's topic message by message (see the module doc).
/// Serialisable, so that a conversation logged over many calls keeps its
/// place.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopicTracker {
    config: SegmentConfig,
    topic: VecDeque<Vec<f32>>,
    held: Vec<Vec<f32>>,
    held_from: usize,
    seen: usize,
}

impl TopicTracker {
    /// A tracker with no message yet.
    pub fn new(config: SegmentConfig) -> Self {
        TopicTracker {
            config: SegmentConfig {
                window: config.window.max(1),
                min_len: config.min_len.max(1),
                ..config
            },
            topic: VecDeque::new(),
            held: Vec::new(),
            held_from: 0,
            seen: 0,
        }
    }

    /// Messages seen so far.
    pub fn len(&self) -> usize {
        self.seen
    }

    /// Whether no message was seen.
    pub fn is_empty(&self) -> bool {
        self.seen == 0
    }

    /// The running topic: the unit-norm mean of its recent messages (empty
    /// before the first message).
    pub fn topic(&self) -> Vec<f32> {
        let v: Vec<&[f32]> = self.topic.iter().map(Vec::as_slice).collect();
        super::summary::centroid(&v)
    }

    /// Take the next message's vector.
    pub fn push(&mut self, vector: &[f32]) -> Step {
        let index = self.seen;
        self.seen += 1;
        if self.topic.is_empty() {
            self.join(vector.to_vec());
            return Step {
                similarity: 1.0,
                boundary: None,
                held: false,
            };
        }
        let similarity = dot(vector, &self.topic());
        if similarity >= self.config.threshold {
            self.held.clear();
            self.join(vector.to_vec());
            return Step {
                similarity,
                boundary: None,
                held: false,
            };
        }
        if self.held.is_empty() {
            self.held_from = index;
        }
        self.held.push(vector.to_vec());
        if self.held.len() < self.config.min_len {
            return Step {
                similarity,
                boundary: None,
                held: true,
            };
        }
        self.topic.clear();
        for v in std::mem::take(&mut self.held) {
            self.join(v);
        }
        Step {
            similarity,
            boundary: Some(self.held_from),
            held: false,
        }
    }

    fn join(&mut self, v: Vec<f32>) {
        if self.topic.len() == self.config.window {
            self.topic.pop_front();
        }
        self.topic.push_back(v);
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The indices of the messages that start a new topic (never 0), for a
/// whole conversation at once.
pub fn boundaries<V: AsRef<[f32]>>(vectors: &[V], config: SegmentConfig) -> Vec<usize> {
    let mut tracker = TopicTracker::new(config);
    vectors
        .iter()
        .filter_map(|v| tracker.push(v.as_ref()).boundary)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit vector mostly along `axis`, with a per-message detail on an
    /// axis of its own (so that messages on one subject are alike, not
    /// equal).
    fn message(axis: usize, i: usize) -> Vec<f32> {
        let mut v = vec![0.0f32; 64];
        v[axis] = 1.0;
        v[8 + i] = 0.6;
        let n = dot(&v, &v).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn finds_subject_changes() {
        let axes = [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2];
        let vs: Vec<Vec<f32>> = axes
            .iter()
            .enumerate()
            .map(|(i, a)| message(*a, i))
            .collect();
        assert_eq!(boundaries(&vs, SegmentConfig::default()), vec![5, 9]);
    }

    #[test]
    fn one_aside_is_not_a_topic() {
        let axes = [0, 0, 0, 3, 0, 0, 0, 0];
        let vs: Vec<Vec<f32>> = axes
            .iter()
            .enumerate()
            .map(|(i, a)| message(*a, i))
            .collect();
        assert!(boundaries(&vs, SegmentConfig::default()).is_empty());
        // Without a minimum length, the aside and the return are changes.
        let eager = SegmentConfig {
            min_len: 1,
            ..SegmentConfig::default()
        };
        assert_eq!(boundaries(&vs, eager), vec![3, 4]);
    }

    #[test]
    fn steps_report_similarity_and_late_boundaries() {
        let mut t = TopicTracker::new(SegmentConfig::default());
        assert!(t.is_empty());
        assert_eq!(t.push(&message(0, 0)).similarity, 1.0);
        let same = t.push(&message(0, 1));
        assert!(same.similarity > 0.5 && same.boundary.is_none());
        let off = t.push(&message(1, 2));
        assert!(off.similarity < THRESHOLD && off.boundary.is_none());
        // The second off-topic message confirms the topic that began at 2.
        assert_eq!(t.push(&message(1, 3)).boundary, Some(2));
        assert_eq!(t.len(), 4);
        assert!(dot(&t.topic(), &message(1, 9)) > 0.5);
    }

    #[test]
    fn the_topic_follows_its_recent_messages() {
        // A slow drift from axis 0 to axis 1 is one topic.
        let vs: Vec<Vec<f32>> = (0..20)
            .map(|i| {
                let a = i as f32 / 19.0 * std::f32::consts::FRAC_PI_2;
                let mut v = vec![0.0f32; 4];
                v[0] = a.cos();
                v[1] = a.sin();
                v
            })
            .collect();
        assert!(boundaries(&vs, SegmentConfig::default()).is_empty());
        assert!(boundaries::<Vec<f32>>(&[], SegmentConfig::default()).is_empty());
    }
}
