//! Offline analysis of message text: what conversation ingestion, slots and
//! consolidation derive from a message without an LLM.
//!
//! Every function here is pure (text and vectors in, values out) and tested
//! beside its code. [`parse`] bundles the per-message analysis: entities,
//! intents, sentiment and salience.

pub mod conflict;
pub mod entities;
pub mod intent;
pub mod salience;
pub mod segment;
pub mod sentences;
pub mod sentiment;
pub mod summary;
pub mod temporal;
pub mod values;

use serde::{Deserialize, Serialize};

pub use entities::{extract_entities, Entity, EntityKind};
pub use intent::{classify_intents, Intent};
pub use salience::salience;
pub use sentiment::sentiment;
pub use temporal::{
    parse_time, parse_time_now, remove_time, split_time, TimeExpression, TimeRange,
};

/// What [`parse`] derives from one message; stored as JSON in a memory's
/// metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    /// The things the message names.
    pub entities: Vec<Entity>,
    /// What the message does (asks, decides, …).
    pub intents: Vec<Intent>,
    /// How positive or negative it sounds, in [−1, 1].
    pub sentiment: f32,
    /// How much it carries worth remembering, in [0, 1].
    pub salience: f64,
}

/// Analyses one message: its entities, intents, sentiment and salience.
pub fn parse(text: &str) -> Parsed {
    let entities = extract_entities(text);
    let intents = classify_intents(text);
    let salience = salience(text, &entities, &intents);
    Parsed {
        sentiment: sentiment(text),
        entities,
        intents,
        salience,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_message_and_round_trips_as_json() {
        let p = parse("We decided to move the cache to Redis 7.2 — great call, thanks Dana!");
        assert!(p.intents.contains(&Intent::Decision));
        assert!(p
            .entities
            .iter()
            .any(|e| e.text == "Redis 7.2" && e.kind == EntityKind::Version));
        assert!(p.entities.iter().any(|e| e.text == "Dana"));
        assert!(p.sentiment > 0.0);
        assert!(p.salience > 0.3);
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.contains("\"kind\":\"version\""));
        assert!(json.contains("\"decision\""));
        let back: Parsed = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn parses_empty_text() {
        let p = parse("");
        assert!(p.entities.is_empty() && p.intents.is_empty());
        assert_eq!(p.sentiment, 0.0);
        assert_eq!(p.salience, 0.0);
    }
}
