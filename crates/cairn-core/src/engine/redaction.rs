//! Redaction on the way in: every text the engine writes (a memory's
//! content, its metadata's keys and strings, a conversation message and
//! its speaker, a slot's description) passes through the engine's
//! [`Redactor`] before it is embedded or stored. A name that identifies
//! something (a project, a tag, a conversation or session id, a slot
//! group) is refused instead when it holds a secret: rewriting it would
//! silently file the memory under another name.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Cairn;
use crate::redact::{Redactor, SecretKind};

/// What a write redacted: how many of each kind were replaced.
pub type Redactions = BTreeMap<SecretKind, usize>;

impl Cairn {
    /// Redact with `redactor`, or write text as given with `None`.
    pub fn with_redaction(mut self, redactor: Option<Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    /// The redaction every write applies (`None`: text is stored as
    /// given).
    pub fn redaction(&self) -> Option<Redactor> {
        self.redactor
    }

    /// Redact `text` in place, counting what was replaced into `found`.
    pub(crate) fn redact_text(&self, text: &mut String, found: &mut Redactions) {
        let Some(redactor) = &self.redactor else {
            return;
        };
        let redacted = redactor.redact(text);
        if redacted.is_clean() {
            return;
        }
        for r in &redacted.found {
            *found.entry(r.kind).or_default() += 1;
        }
        *text = redacted.text;
    }

    /// Redact every key and string of `metadata`, in place.
    pub(crate) fn redact_metadata(
        &self,
        metadata: &mut Map<String, Value>,
        found: &mut Redactions,
    ) {
        if self.redactor.is_some() {
            let entries = std::mem::take(metadata);
            for (mut key, value) in entries {
                self.redact_text(&mut key, found);
                metadata.insert(key, value);
            }
        }
        for value in metadata.values_mut() {
            self.redact_value(value, found);
        }
    }

    /// Refuse `value`, the `what` a write names (a project, a tag, a
    /// conversation id…), when it holds a secret the redaction finds.
    pub(crate) fn refuse_secret(&self, what: &str, value: &str) -> crate::Result<()> {
        let Some(redactor) = &self.redactor else {
            return Ok(());
        };
        match redactor.redact(value).found.first() {
            None => Ok(()),
            Some(r) => Err(crate::Error::invalid(format!(
                "the {what} holds what looks like a secret ({}): secrets are never stored, \
                 and a {what} is not redacted; name it without one",
                r.kind.as_str()
            ))),
        }
    }

    /// [`Cairn::refuse_secret`] for each of `values`.
    pub(crate) fn refuse_secrets<'a>(
        &self,
        what: &str,
        values: impl IntoIterator<Item = &'a String>,
    ) -> crate::Result<()> {
        values
            .into_iter()
            .try_for_each(|v| self.refuse_secret(what, v))
    }

    fn redact_value(&self, value: &mut Value, found: &mut Redactions) {
        match value {
            Value::String(s) => self.redact_text(s, found),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v, found)),
            Value::Object(map) => self.redact_metadata(map, found),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Redactions by kind name, as answers show them.
pub fn redaction_counts(found: &Redactions) -> BTreeMap<String, usize> {
    found
        .iter()
        .map(|(kind, n)| (kind.as_str().to_string(), *n))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    fn engine() -> Cairn {
        Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
    }

    #[test]
    fn text_and_nested_metadata_strings_are_redacted_and_counted() {
        let c = engine();
        let mut found = Redactions::new();
        let mut text = "mail ana@example.com or bo@example.org".to_string();
        c.redact_text(&mut text, &mut found);
        assert_eq!(text, "mail [REDACTED:email] or [REDACTED:email]");
        let mut meta = json!({"note": "key sk-proj-abcdefghij0123456789XYZ", "n": 4,
                              "list": ["call +44 20 7946 0958"], "deep": {"mail": "x@example.com"}})
        .as_object()
        .unwrap()
        .clone();
        c.redact_metadata(&mut meta, &mut found);
        assert_eq!(meta["n"], 4);
        let meta = Value::Object(meta);
        assert!(!meta.to_string().contains("sk-proj-"), "{meta:?}");
        assert!(!meta.to_string().contains("7946"), "{meta:?}");
        assert!(!meta.to_string().contains("x@example.com"), "{meta:?}");
        assert_eq!(found[&SecretKind::Email], 3);
        assert_eq!(found[&SecretKind::OpenaiKey], 1);
        assert_eq!(found[&SecretKind::Phone], 1);
        assert_eq!(redaction_counts(&found)["email"], 3, "counts by kind name");
    }

    #[test]
    fn without_a_redactor_text_is_kept_as_given() {
        let c = engine().with_redaction(None);
        let mut found = Redactions::new();
        let mut text = "mail ana@example.com".to_string();
        c.redact_text(&mut text, &mut found);
        assert_eq!(text, "mail ana@example.com");
        assert!(found.is_empty());
    }
}
