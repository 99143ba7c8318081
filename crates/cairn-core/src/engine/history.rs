//! History and revert: a memory's versions, and an earlier one restored.

use super::Cairn;
use crate::history::{ChangeKind, DeletionReceipt, Version};
use crate::memory::{normalize_id_prefix, Memory, MemoryId};
use crate::{Error, Result};

/// What is known of a memory's past: its versions while it exists, its
/// deletion receipt once forgotten.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// The memory.
    pub id: MemoryId,
    /// Oldest first; empty once it is deleted.
    pub versions: Vec<Version>,
    /// Set once it is deleted.
    pub deleted: Option<DeletionReceipt>,
}

impl Cairn {
    /// The history of `tenant`'s memory (by id or unique prefix): a stored
    /// memory's versions, or a forgotten one's deletion receipt.
    pub fn history(&self, tenant: &str, id_or_prefix: &str) -> Result<History> {
        match self.resolve(tenant, id_or_prefix) {
            Ok(id) => Ok(History {
                id,
                versions: self
                    .store
                    .histories(tenant, &[id])?
                    .pop()
                    .unwrap_or_default(),
                deleted: None,
            }),
            Err(Error::NotFound(what)) => {
                let prefix = normalize_id_prefix(id_or_prefix)?;
                let mut receipts = self.store.receipts(tenant, &prefix, 6)?;
                match receipts.len() {
                    0 => Err(Error::NotFound(what)),
                    1 => {
                        let receipt = receipts.remove(0);
                        Ok(History {
                            id: receipt.id,
                            versions: Vec::new(),
                            deleted: Some(receipt),
                        })
                    }
                    _ => Err(Error::AmbiguousId {
                        prefix: id_or_prefix.trim().to_string(),
                        candidates: receipts.iter().take(5).map(|r| r.id.to_string()).collect(),
                    }),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Restore version `number` of a memory as a new version (`reverted`):
    /// its text, type, project, slot, tags, metadata and importance, and,
    /// unless it is superseded, its weight and validity (undoing a
    /// contest, [`crate::engine::ConflictPolicy::PreferNewer`]). The id,
    /// times, access counts, expiry and supersession stay as they are.
    pub fn revert(
        &self,
        tenant: &str,
        id_or_prefix: &str,
        number: u32,
        actor: &str,
    ) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let current = self.load(tenant, id)?;
        let versions = self
            .store
            .histories(tenant, &[id])?
            .pop()
            .unwrap_or_default();
        let Some(old) = versions.iter().find(|v| v.number == number) else {
            return Err(Error::invalid(format!(
                "{id} has no version {number} (its versions are 1 to {})",
                versions.len()
            )));
        };
        let old = &old.memory;
        let mut restored = current.clone();
        restored.content.clone_from(&old.content);
        restored.kind = old.kind;
        restored.project.clone_from(&old.project);
        restored.slot.clone_from(&old.slot);
        restored.tags.clone_from(&old.tags);
        restored.metadata.clone_from(&old.metadata);
        restored.importance = old.importance;
        // A memory contested by a newer one (weight lowered, validity
        // closed) is restored whole; a superseded one stays superseded.
        if current.superseded_by.is_none() {
            restored.weight = old.weight;
            restored.valid_from = old.valid_from;
            restored.valid_to = old.valid_to;
        }
        restored.updated_at = self.now();
        self.rewrite(
            &current,
            restored,
            ChangeKind::Reverted,
            Some(format!("restored version {number}")),
            actor,
        )
    }
}
