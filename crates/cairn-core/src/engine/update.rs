//! Update: change a memory in place.

use serde_json::{Map, Value};

use super::Cairn;
use crate::history::{Change, ChangeKind};
use crate::memory::{
    normalize_project, normalize_slot_name, normalize_tags, validate_content, validate_unit,
    Memory, MemoryType,
};
use crate::store::WriteBatch;
use crate::{Error, Result};

/// Changes to a memory; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    /// New text.
    pub content: Option<String>,
    /// New type.
    pub kind: Option<MemoryType>,
    /// New scope (`Some(None)` = make global).
    pub project: Option<Option<String>>,
    /// Move it to this slot (`Some(None)` = out of any slot); the name is
    /// checked by [`normalize_slot_name`].
    pub slot: Option<Option<String>>,
    /// Replace all tags.
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
    /// Merge into metadata; a `null` value removes the key.
    pub metadata: Option<Map<String, Value>>,
    /// New importance.
    pub importance: Option<f64>,
    /// New weight.
    pub weight: Option<f64>,
    /// New TTL from now (ms).
    pub ttl_ms: Option<i64>,
    /// Remove the TTL.
    pub clear_ttl: bool,
    /// Redact the new content and metadata with the engine's redactor (the
    /// application layer's updates do; a revert restores text as it was).
    pub redact: bool,
}

impl Cairn {
    /// Change a memory on behalf of `actor`, recording a version that
    /// names the fields changed. A content change re-embeds it; every
    /// change re-indexes it for keyword search (tags and metadata are
    /// searchable).
    pub fn update(
        &self,
        tenant: &str,
        id_or_prefix: &str,
        mut req: UpdateRequest,
        actor: &str,
    ) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let before = self.load(tenant, id)?;
        let mut m = before.clone();
        let now = self.now();
        let mut redacted = super::Redactions::new();
        let policy = self.policy_if(tenant, req.redact)?;
        policy.refuse_secrets("tag", req.tags.iter().flatten().chain(&req.add_tags))?;
        policy.refuse_secrets("project", req.project.iter().flatten())?;
        if let Some(c) = req.content.as_mut() {
            policy.redact_text(c, &mut redacted);
        }
        if let Some(meta) = req.metadata.as_mut() {
            policy.redact_metadata(meta, &mut redacted);
        }
        if let Some(c) = req.content {
            validate_content(&c)?;
            m.content = c;
        }
        if let Some(k) = req.kind {
            m.kind = k;
        }
        if let Some(p) = req.project {
            m.project = p.as_deref().map(normalize_project).transpose()?;
        }
        if let Some(s) = req.slot {
            m.slot = s.as_deref().map(normalize_slot_name).transpose()?;
        }
        let mut tags = match req.tags {
            Some(t) => normalize_tags(&t)?,
            None => m.tags.clone(),
        };
        tags.extend(normalize_tags(&req.add_tags)?);
        let remove = normalize_tags(&req.remove_tags)?;
        tags.retain(|t| !remove.contains(t));
        let tags = normalize_tags(&tags)?;
        m.tags = tags;
        if let Some(meta) = req.metadata {
            for (k, v) in meta {
                if v.is_null() {
                    m.metadata.remove(&k);
                } else {
                    m.metadata.insert(k, v);
                }
            }
        }
        if let Some(i) = req.importance {
            validate_unit("importance", i)?;
            m.importance = i;
        }
        if let Some(w) = req.weight {
            if !(0.0..=100.0).contains(&w) {
                return Err(Error::invalid(format!(
                    "weight must be between 0 and 100, got {w}"
                )));
            }
            m.weight = w;
        }
        if req.clear_ttl {
            m.expires_at = None;
        }
        if let Some(ttl) = req.ttl_ms {
            m.expires_at = Some(now + ttl);
        }
        m.updated_at = now;
        self.rewrite(&before, m, ChangeKind::Updated, None, actor)
    }

    /// Add and remove tags on many memories (ids or unique prefixes) in
    /// one transaction, each change a version naming `tags`. Every id is
    /// resolved first, so one bad id changes nothing; a memory whose tags
    /// come out the same is left alone. Returns the memories changed.
    pub fn retag(
        &self,
        tenant: &str,
        ids_or_prefixes: &[String],
        add: &[String],
        remove: &[String],
        actor: &str,
    ) -> Result<Vec<Memory>> {
        let (add, remove) = (normalize_tags(add)?, normalize_tags(remove)?);
        if add.is_empty() && remove.is_empty() {
            return Err(Error::invalid("give tags to add or to remove"));
        }
        let mut ids = ids_or_prefixes
            .iter()
            .map(|s| self.resolve(tenant, s))
            .collect::<Result<Vec<_>>>()?;
        ids.sort();
        ids.dedup();
        let now = self.now();
        let mut batch = WriteBatch::default();
        let mut changed = Vec::new();
        for before in self.store.get(tenant, &ids)? {
            let mut tags = before.tags.clone();
            tags.extend(add.iter().cloned());
            tags.retain(|t| !remove.contains(t));
            let tags = normalize_tags(&tags)?;
            if tags == before.tags {
                continue;
            }
            let after = Memory {
                tags,
                updated_at: now,
                ..before
            };
            batch
                .changes
                .push(Change::new(after.id, ChangeKind::Updated, actor, now).because("tags"));
            batch.updates.push((after.clone(), None));
            changed.push(after);
        }
        if !changed.is_empty() {
            self.store.write(batch)?;
        }
        Ok(changed)
    }

    /// Write `after` over `before` as one version of `kind`, whose reason
    /// names the fields changed (after `prefix`, when given); re-embeds
    /// when the text its vector is made from changed.
    pub(super) fn rewrite(
        &self,
        before: &Memory,
        after: Memory,
        kind: ChangeKind,
        prefix: Option<String>,
        actor: &str,
    ) -> Result<Memory> {
        // Re-embedded when the text the store's recipe embeds changed.
        let vector = if after.content != before.content || after.tags != before.tags {
            let recipe = self.ensure_model()?;
            let text = after.embedding_text(recipe);
            (text != before.embedding_text(recipe))
                .then(|| self.embed_one(&text))
                .transpose()?
        } else {
            None
        };
        let fields = changed_fields(before, &after).join(", ");
        let reason = match (prefix, fields.is_empty()) {
            (Some(p), true) => p,
            (Some(p), false) => format!("{p}: {fields}"),
            (None, true) => "no field changed".to_string(),
            (None, false) => fields,
        };
        let change = Change::new(after.id, kind, actor, after.updated_at).because(reason);
        self.store.write(WriteBatch {
            updates: vec![(after.clone(), vector)],
            changes: vec![change],
            ..Default::default()
        })?;
        Ok(after)
    }
}

/// The names of the fields a change left different, as the wire format
/// names them.
pub fn changed_fields(before: &Memory, after: &Memory) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut check = |name, changed: bool| {
        if changed {
            out.push(name);
        }
    };
    check("content", before.content != after.content);
    check("type", before.kind != after.kind);
    check("project", before.project != after.project);
    check("slot", before.slot != after.slot);
    check("tags", before.tags != after.tags);
    check("metadata", before.metadata != after.metadata);
    check("importance", before.importance != after.importance);
    check("weight", before.weight != after.weight);
    check("expires_at", before.expires_at != after.expires_at);
    check("valid_to", before.valid_to != after.valid_to);
    check("superseded_by", before.superseded_by != after.superseded_by);
    check("topic", before.thread != after.thread);
    out
}
