//! Redaction on the way in: every text the engine writes (a memory's
//! content, its metadata's keys and strings, a conversation message and
//! its speaker, a slot's description) passes through a
//! [`RedactionPolicy`] before it is embedded or stored. A name that
//! identifies something (a project, a tag, a conversation or session id, a
//! slot group) is refused instead when it holds a secret: rewriting it
//! would silently file the memory under another name.
//!
//! The policy of a write is resolved once per request
//! ([`Cairn::redaction_policy`]) from two settings: the engine's
//! [`Redactor`] (the operator's `--redact`, every kind by default) and the
//! tenant's `redact_personal` setting. Secrets (keys, tokens, passwords,
//! card numbers, IBANs) follow the engine's redactor alone; personal data
//! ([`SecretKind::is_personal`]: e-mail addresses, phone numbers) is
//! redacted only when the tenant's setting is on, which is the default
//! ([`DEFAULT_REDACT_PERSONAL`]): a store served to a team, or an agent
//! pasting logs, must not keep other people's addresses unless the
//! tenant chose to; a person's own store turns it off in one command, and
//! every write's answer names what it redacted.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Cairn;
use crate::collections::{CollectionKind, CollectionRecord};
use crate::redact::{Redactor, SecretKind};

/// What a write redacted: how many of each kind were replaced.
pub type Redactions = BTreeMap<SecretKind, usize>;

/// The id of the tenant setting ([`CollectionKind::Setting`]) saying
/// whether personal data is redacted; its body is `{"on": bool}`.
pub const REDACT_PERSONAL_SETTING: &str = "redact_personal";

/// Whether a tenant that never chose redacts personal data: yes (see the
/// module's documentation for why).
pub const DEFAULT_REDACT_PERSONAL: bool = true;

/// The redaction one request applies: what the engine redacts, less the
/// personal kinds when the tenant keeps personal data. Resolve it once per
/// request with [`Cairn::redaction_policy`]; [`RedactionPolicy::none`]
/// keeps text as given (a write asking not to be redacted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedactionPolicy {
    redactor: Option<Redactor>,
}

impl RedactionPolicy {
    /// A policy that keeps every text as given.
    pub fn none() -> Self {
        RedactionPolicy { redactor: None }
    }

    /// A policy redacting what `redactor` does (`None`: nothing).
    pub fn new(redactor: Option<Redactor>) -> Self {
        RedactionPolicy { redactor }
    }

    /// The redactor applied (`None`: text is kept as given).
    pub fn redactor(&self) -> Option<Redactor> {
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

    /// [`RedactionPolicy::refuse_secret`] for each of `values`.
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

impl Cairn {
    /// Redact with `redactor`, or write text as given with `None`.
    pub fn with_redaction(mut self, redactor: Option<Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    /// The redaction the engine applies before any tenant's setting
    /// (`None`: text is stored as given).
    pub fn redaction(&self) -> Option<Redactor> {
        self.redactor
    }

    /// The redaction a write of `tenant` applies: the engine's, less the
    /// personal kinds when the tenant's `redact_personal` is off.
    pub fn redaction_policy(&self, tenant: &str) -> crate::Result<RedactionPolicy> {
        let Some(redactor) = self.redactor else {
            return Ok(RedactionPolicy::none());
        };
        Ok(RedactionPolicy::new(Some(
            if self.redact_personal(tenant)? {
                redactor
            } else {
                redactor.without_personal()
            },
        )))
    }

    /// [`Cairn::redaction_policy`] of `tenant` when `redact` is true, else
    /// [`RedactionPolicy::none`].
    pub(crate) fn policy_if(&self, tenant: &str, redact: bool) -> crate::Result<RedactionPolicy> {
        if redact {
            self.redaction_policy(tenant)
        } else {
            Ok(RedactionPolicy::none())
        }
    }

    /// Whether `tenant` redacts personal data (e-mail addresses, phone
    /// numbers): its `redact_personal` setting, else
    /// [`DEFAULT_REDACT_PERSONAL`].
    pub fn redact_personal(&self, tenant: &str) -> crate::Result<bool> {
        Ok(self
            .store
            .collections()
            .collection(tenant, CollectionKind::Setting, REDACT_PERSONAL_SETTING)?
            .and_then(|r| r.body.get("on").and_then(Value::as_bool))
            .unwrap_or(DEFAULT_REDACT_PERSONAL))
    }

    /// Set whether `tenant` redacts personal data from now on (what is
    /// stored stays as it was stored).
    pub fn set_redact_personal(&self, tenant: &str, on: bool) -> crate::Result<()> {
        let now = self.now();
        let created_at = self
            .store
            .collections()
            .collection(tenant, CollectionKind::Setting, REDACT_PERSONAL_SETTING)?
            .map_or(now, |r| r.created_at);
        let mut body = Map::new();
        body.insert("on".into(), on.into());
        self.store.collections().put_collection(&CollectionRecord {
            tenant: tenant.to_string(),
            kind: CollectionKind::Setting,
            id: REDACT_PERSONAL_SETTING.into(),
            parent: None,
            body,
            created_at,
            updated_at: now,
        })
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

    fn policy(c: &Cairn) -> RedactionPolicy {
        c.redaction_policy("t").unwrap()
    }

    #[test]
    fn text_and_nested_metadata_strings_are_redacted_and_counted() {
        let c = policy(&engine());
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
        let c = policy(&engine().with_redaction(None));
        let mut found = Redactions::new();
        let mut text = "mail ana@example.com".to_string();
        c.redact_text(&mut text, &mut found);
        assert_eq!(text, "mail ana@example.com");
        assert!(found.is_empty());
    }

    #[test]
    fn a_tenant_keeping_personal_data_still_loses_its_secrets_and_others_are_unaffected() {
        let c = engine();
        assert!(c.redact_personal("t").unwrap(), "the default redacts");
        c.set_redact_personal("t", false).unwrap();
        let text = "reach me at marcus.chen@example.com, key sk-proj-abcdefghij0123456789XYZ";
        let mut found = Redactions::new();
        let mut kept = text.to_string();
        policy(&c).redact_text(&mut kept, &mut found);
        assert_eq!(
            kept,
            "reach me at marcus.chen@example.com, key [REDACTED:openai_key]"
        );
        assert_eq!(
            found.keys().copied().collect::<Vec<_>>(),
            [SecretKind::OpenaiKey]
        );
        let mut other = text.to_string();
        c.redaction_policy("u")
            .unwrap()
            .redact_text(&mut other, &mut Redactions::new());
        assert_eq!(
            other,
            "reach me at [REDACTED:email], key [REDACTED:openai_key]"
        );
        c.set_redact_personal("t", true).unwrap();
        assert!(c.redact_personal("t").unwrap());
    }
}
