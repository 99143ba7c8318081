//! Which memories an operation applies to, as front ends receive it, and
//! how that becomes a [`Filter`].

use schemars::JsonSchema;
use serde::Deserialize;

use super::{non_empty, Caller};
use crate::memory::{normalize_slot_name, normalize_tags, MemoryType, Timestamp};
use crate::store::{Filter, ListOrder, ScopeFilter, ThreadScope};
use crate::time::parse_timestamp;
use crate::{Error, Result};

/// Which memories: scope, types, tags, times, and whether expired or
/// superseded ones count.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Selection {
    /// A project. Recall and list see its memories and global ones; forget
    /// deletes only its own.
    pub project: Option<String>,
    /// Global memories only.
    pub global: bool,
    /// Every project (and global memories).
    pub all_projects: bool,
    /// Any of these types (empty: every type).
    pub types: Vec<String>,
    /// All of these tags.
    pub tags: Vec<String>,
    /// Any of these sources: where a memory came from (`manual`, `import`,
    /// `conversation`, `consolidation`, `import:mem0`…).
    pub sources: Vec<String>,
    /// Created at or after (RFC 3339 or YYYY-MM-DD).
    pub since: Option<String>,
    /// Created before (RFC 3339 or YYYY-MM-DD).
    pub until: Option<String>,
    /// Valid at this time (RFC 3339 or YYYY-MM-DD): what was true then
    /// (with `include_superseded`, what was true then and is not now).
    pub valid_at: Option<String>,
    /// What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
    /// memories written by then and valid then (`valid_to` after it),
    /// those superseded or contested since included.
    pub as_of: Option<String>,
    /// Include memories whose TTL has passed.
    pub include_expired: bool,
    /// Include memories replaced by newer ones.
    pub include_superseded: bool,
    /// Only memories replaced by newer ones.
    pub only_superseded: bool,
    /// Include episodes consolidated into summaries (each is superseded by
    /// its summary, so this includes superseded memories).
    pub include_consolidated: bool,
    /// Only the messages of this session.
    pub session: Option<String>,
    /// Only the messages of this conversation.
    pub conversation: Option<String>,
    /// Only the messages of this topic.
    pub topic: Option<String>,
    /// Only the entries of these slots (archived ones included).
    pub slots: Vec<String>,
    /// Include the entries of archived slots (left out by default).
    pub include_archived: bool,
}

impl Selection {
    /// Whether it names any condition beyond the defaults (forget by filter
    /// needs one).
    pub fn has_conditions(&self) -> bool {
        non_empty(self.project.as_deref()).is_some()
            || self.global
            || self.all_projects
            || !self.types.is_empty()
            || !self.tags.is_empty()
            || !self.sources.is_empty()
            || self.only_superseded
            || self.since.is_some()
            || self.until.is_some()
            || self.valid_at.is_some()
            || self.as_of.is_some()
            || self.thread().ok().flatten().is_some()
            || !self.slots.is_empty()
    }

    /// The session, conversation or topic named (at most one).
    fn thread(&self) -> Result<Option<ThreadScope>> {
        let named: Vec<ThreadScope> = [
            non_empty(self.session.as_deref()).map(ThreadScope::Session),
            non_empty(self.conversation.as_deref()).map(ThreadScope::Conversation),
            non_empty(self.topic.as_deref()).map(ThreadScope::Topic),
        ]
        .into_iter()
        .flatten()
        .collect();
        match named.len() {
            0 | 1 => Ok(named.into_iter().next()),
            _ => Err(Error::invalid(
                "name one of session, conversation or topic (the narrowest you mean)",
            )),
        }
    }

    /// What a recall or a listing sees: `all_projects`, or global memories
    /// only, or a project (given, else the caller's) with the global ones,
    /// or global memories when there is no project.
    ///
    /// A session, conversation or topic is narrower than a project: named
    /// alone, its messages are seen whatever their project.
    pub fn seen_from(&self, caller: &Caller, now: Timestamp) -> Result<Filter> {
        let in_thread = self.thread()?.is_some() || !self.slots.is_empty();
        let scope = match (
            self.all_projects,
            self.global,
            non_empty(self.project.as_deref()),
        ) {
            (true, _, _) => ScopeFilter::All,
            (false, false, None) if in_thread => ScopeFilter::All,
            (false, true, Some(p)) => {
                return Err(Error::invalid(format!(
                    "give a project ({p}) or global, not both"
                )))
            }
            (false, true, None) => ScopeFilter::Exactly(None),
            (false, false, Some(p)) => ScopeFilter::Project(p),
            (false, false, None) => match &caller.project {
                Some(p) => ScopeFilter::Project(p.clone()),
                None => ScopeFilter::Global,
            },
        };
        self.filter(caller, scope, now)
    }

    /// What a delete by filter applies to: a project's own memories (never
    /// the global ones a recall there also sees), or global ones only, or
    /// every scope; expired and superseded memories included (they match
    /// the conditions as much as any other).
    pub fn owned(&self, caller: &Caller, now: Timestamp) -> Result<Filter> {
        let scope = match (self.global, non_empty(self.project.as_deref())) {
            (true, Some(p)) => {
                return Err(Error::invalid(format!(
                    "give a project ({p}) or global, not both"
                )))
            }
            (true, None) => ScopeFilter::Exactly(None),
            (false, Some(p)) if !self.all_projects => ScopeFilter::Exactly(Some(p)),
            (false, _) => ScopeFilter::All,
        };
        let mut filter = self.filter(caller, scope, now)?;
        filter.include_expired = true;
        filter.include_superseded = true;
        Ok(filter)
    }

    fn filter(&self, caller: &Caller, scope: ScopeFilter, now: Timestamp) -> Result<Filter> {
        let mut filter = Filter::new(&caller.tenant, now).scope(scope);
        filter.types = self
            .types
            .iter()
            .map(|t| t.parse::<MemoryType>())
            .collect::<cairn_text::Result<_>>()?;
        filter.tags = normalize_tags(&self.tags)?;
        filter.sources = self
            .sources
            .iter()
            .filter_map(|s| non_empty(Some(s.as_str())))
            .collect();
        filter.created_after = time("since", &self.since)?;
        filter.created_before = time("until", &self.until)?;
        if let Some(at) = time("valid_at", &self.valid_at)? {
            filter.valid_after = Some(at);
            filter.valid_before = Some(at + 1);
        }
        if let Some(at) = time("as_of", &self.as_of)? {
            as_of(&mut filter, at);
        }
        filter.thread = self.thread()?;
        filter.slots = self
            .slots
            .iter()
            .map(|s| normalize_slot_name(s))
            .collect::<Result<_>>()?;
        filter.include_expired |= self.include_expired;
        filter.include_superseded |= self.include_superseded || self.include_consolidated;
        filter.only_superseded = self.only_superseded;
        Ok(filter)
    }
}

/// Narrow `filter` to what was believed true at `at`: written by then
/// (created at or before it), valid then (validity `[valid_from or
/// created_at, valid_to)` holds `at`), superseded since or not.
pub fn as_of(filter: &mut Filter, at: Timestamp) {
    let until = at.saturating_add(1);
    filter.created_before = Some(filter.created_before.map_or(until, |b| b.min(until)));
    filter.valid_after = Some(filter.valid_after.map_or(at, |a| a.max(at)));
    filter.valid_before = Some(filter.valid_before.map_or(until, |b| b.min(until)));
    filter.include_superseded = true;
}

/// A time given as text, with the field named in the error.
pub(crate) fn time(field: &str, v: &Option<String>) -> Result<Option<Timestamp>> {
    non_empty(v.as_deref())
        .map(|s| parse_timestamp(&s).map_err(|e| Error::invalid(format!("{field}: {e}"))))
        .transpose()
}

/// The order of a listing, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListSort {
    /// Newest created first (default).
    #[default]
    Newest,
    /// Oldest created first.
    Oldest,
    /// Most recently updated first.
    Updated,
    /// Most used first.
    Accessed,
    /// Longest unused first: candidates to review or forget.
    Stale,
    /// In id order (the order the ids were made in): pages that stay stable
    /// while memories are added.
    Id,
    /// Soonest to expire first (memories without an expiry time last).
    Expiring,
}

impl ListSort {
    /// Every order's name.
    pub const NAMES: &'static str = "newest, oldest, updated, accessed, stale, id or expiring";

    /// The store's order.
    pub fn order(self) -> ListOrder {
        match self {
            ListSort::Newest => ListOrder::Newest,
            ListSort::Oldest => ListOrder::Oldest,
            ListSort::Updated => ListOrder::RecentlyUpdated,
            ListSort::Accessed => ListOrder::MostAccessed,
            ListSort::Stale => ListOrder::Stalest,
            ListSort::Id => ListOrder::Id,
            ListSort::Expiring => ListOrder::Expiring,
        }
    }
}

impl std::str::FromStr for ListSort {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "newest" => Ok(ListSort::Newest),
            "oldest" => Ok(ListSort::Oldest),
            "updated" => Ok(ListSort::Updated),
            "accessed" => Ok(ListSort::Accessed),
            "stale" => Ok(ListSort::Stale),
            "id" => Ok(ListSort::Id),
            "expiring" => Ok(ListSort::Expiring),
            other => Err(Error::invalid(format!(
                "unknown sort `{other}`; use {}",
                Self::NAMES
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_sees_a_project_with_global_memories_and_forget_only_its_own() {
        let caller = Caller::new("t").with_project(Some("atlas".into()));
        let none = Selection::default();
        assert_eq!(
            none.seen_from(&caller, 0).unwrap().scope,
            ScopeFilter::Project("atlas".into())
        );
        assert_eq!(none.owned(&caller, 0).unwrap().scope, ScopeFilter::All);
        let atlas = Selection {
            project: Some(" atlas ".into()),
            ..Default::default()
        };
        assert_eq!(
            atlas.owned(&caller, 0).unwrap().scope,
            ScopeFilter::Exactly(Some("atlas".into()))
        );
        let global = Selection {
            global: true,
            ..Default::default()
        };
        assert_eq!(
            global.seen_from(&caller, 0).unwrap().scope,
            ScopeFilter::Exactly(None)
        );
        assert_eq!(
            Selection::default()
                .seen_from(&Caller::new("t"), 0)
                .unwrap()
                .scope,
            ScopeFilter::Global
        );
        let both = Selection {
            global: true,
            project: Some("atlas".into()),
            ..Default::default()
        };
        assert!(both.seen_from(&caller, 0).is_err());
        assert!(both.owned(&caller, 0).is_err());
    }

    #[test]
    fn conditions_are_parsed_with_the_field_named() {
        let s = Selection {
            types: vec!["rule".into(), "FACT".into()],
            tags: vec!["Infra".into()],
            since: Some("2026-01-01".into()),
            ..Default::default()
        };
        let f = s.seen_from(&Caller::new("t"), 0).unwrap();
        assert_eq!(f.types, vec![MemoryType::Rule, MemoryType::Fact]);
        assert_eq!(f.tags, vec!["infra"]);
        assert!(f.created_after.is_some());
        assert!(s.has_conditions());
        assert_eq!(f.tenant, "t");
        let bad = Selection {
            until: Some("not a time".into()),
            ..Default::default()
        };
        let e = bad.seen_from(&Caller::new("t"), 0).unwrap_err();
        assert!(e.to_string().starts_with("until:"), "{e}");
        assert!(!Selection::default().has_conditions());
        assert_eq!("STALE".parse::<ListSort>().unwrap(), ListSort::Stale);
        assert!("sideways".parse::<ListSort>().is_err());
    }
}
