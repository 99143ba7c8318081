//! A tenant's conflict policy: the `conflicts` setting, between a
//! request's own policy and the engine's (`cairn.toml`, then the core's
//! default). The order a write follows: request > tenant > engine.

use serde_json::{Map, Value};

use super::{Cairn, ConflictPolicy};
use crate::collections::{CollectionKind, CollectionRecord};

/// The name of the tenant setting that holds its conflict policy.
pub const CONFLICTS_SETTING: &str = "conflicts";

impl Cairn {
    /// The policy `tenant` has set (`None`: it follows the engine's).
    pub fn tenant_conflict_policy(&self, tenant: &str) -> crate::Result<Option<ConflictPolicy>> {
        let record = self.store.collections().collection(
            tenant,
            CollectionKind::Setting,
            CONFLICTS_SETTING,
        )?;
        Ok(record
            .and_then(|r| r.body.get("policy")?.as_str().map(str::to_string))
            .and_then(|p| p.parse().ok()))
    }

    /// The policy a write of `tenant` follows when its request names none:
    /// the tenant's, else the engine's ([`Cairn::conflict_policy`]).
    pub fn conflict_policy_of(&self, tenant: &str) -> crate::Result<ConflictPolicy> {
        Ok(self
            .tenant_conflict_policy(tenant)?
            .unwrap_or(self.conflicts))
    }

    /// Set `tenant`'s conflict policy (`None`: follow the engine's again).
    pub fn set_tenant_conflict_policy(
        &self,
        tenant: &str,
        policy: Option<ConflictPolicy>,
    ) -> crate::Result<()> {
        let now = self.now();
        let existing = self.store.collections().collection(
            tenant,
            CollectionKind::Setting,
            CONFLICTS_SETTING,
        )?;
        let mut body = Map::new();
        if let Some(p) = policy {
            body.insert("policy".into(), Value::from(p.as_str()));
        }
        self.store.collections().put_collection(&CollectionRecord {
            tenant: tenant.to_string(),
            kind: CollectionKind::Setting,
            id: CONFLICTS_SETTING.into(),
            parent: None,
            body,
            created_at: existing.map_or(now, |r| r.created_at),
            updated_at: now,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::engine::{ConflictAction, RememberRequest};
    use crate::MemoryStore;

    #[test]
    fn a_request_beats_the_tenant_which_beats_the_engine() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
            .with_conflict_policy(ConflictPolicy::Flag);
        c.set_tenant_conflict_policy("a", Some(ConflictPolicy::PreferNewer))
            .unwrap();
        assert_eq!(
            c.conflict_policy_of("a").unwrap(),
            ConflictPolicy::PreferNewer
        );
        assert_eq!(c.conflict_policy_of("b").unwrap(), ConflictPolicy::Flag);
        let write = |tenant: &str, text: &str, policy: Option<ConflictPolicy>| {
            let mut req = RememberRequest::new(tenant, text);
            req.conflicts = policy;
            c.remember(req).unwrap()
        };
        for tenant in ["a", "b"] {
            write(tenant, "Dana is the lead of atlas", None);
        }
        let a = write(
            "a",
            "Leadership changed. Sam is now the lead of atlas",
            None,
        );
        assert_eq!(a.conflicts[0].action, ConflictAction::Contested);
        let b = write(
            "b",
            "Leadership changed. Sam is now the lead of atlas",
            None,
        );
        assert_eq!(b.conflicts[0].action, ConflictAction::Flagged);
        let given = write(
            "a",
            "Leadership changed again. Kim is now the lead of atlas",
            Some(ConflictPolicy::Supersede),
        );
        assert!(given
            .conflicts
            .iter()
            .all(|c| c.action == ConflictAction::Superseded));
        c.set_tenant_conflict_policy("a", None).unwrap();
        assert_eq!(c.tenant_conflict_policy("a").unwrap(), None);
        assert_eq!(c.conflict_policy_of("a").unwrap(), ConflictPolicy::Flag);
    }
}
