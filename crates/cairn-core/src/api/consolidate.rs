//! Consolidation for any front end (see [`Cairn::consolidate`]): old
//! episode groups into recallable summaries, on demand or from a server's
//! periodic job.

use serde::{Deserialize, Serialize};

use super::{non_empty, Caller};
use crate::chat::Generated;
use crate::engine::{
    Cairn, ConsolidateRequest, ConsolidationReport, DEFAULT_KEEP_GROUPS, DEFAULT_MAX_GROUPS,
};
use crate::{Error, Result, SHORT_ID_MIN};

/// What to consolidate, as front ends receive it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConsolidateInput {
    /// Only this project's episodes (default: every project, each on its
    /// own).
    pub project: Option<String>,
    /// Only global episodes.
    pub global: bool,
    /// Groups (sessions, else days) each project keeps (default 10).
    pub keep: Option<usize>,
    /// Most groups consolidated by this call (default 50; the rest wait
    /// for the next).
    pub max_groups: Option<usize>,
    /// Say what would be consolidated without writing anything.
    pub dry_run: bool,
}

/// One group consolidated (or, dry, that would be).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ConsolidatedGroupView {
    /// The project (none: global).
    pub project: Option<String>,
    /// `session:ID` or `day:YYYY-MM-DD`.
    pub group: String,
    /// Its episodes' ids, oldest first.
    pub sources: Vec<String>,
    /// The summary memory's id (none in a dry run).
    pub summary_id: Option<String>,
    /// The summary's text (none in a dry run).
    pub summary: Option<String>,
    /// How the summary was written: `llm` (with the model) or
    /// `extractive` (with the chat model's failure, if one was tried).
    pub summarised_by: Option<Generated>,
}

/// What a consolidation did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ConsolidateOutput {
    /// The tenant.
    pub tenant: String,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Episodes consolidated (or that would be).
    pub episodes: usize,
    /// The groups, oldest first per project.
    pub groups: Vec<ConsolidatedGroupView>,
    /// Groups over the limit left for the next run.
    pub remaining: usize,
}

impl ConsolidateInput {
    /// The engine's request for `tenant`.
    pub fn request(&self, tenant: &str, actor: &str) -> Result<ConsolidateRequest> {
        let project = non_empty(self.project.as_deref());
        if project.is_some() && self.global {
            return Err(Error::invalid("give a project or global, not both"));
        }
        let max_groups = self.max_groups.unwrap_or(DEFAULT_MAX_GROUPS);
        if max_groups == 0 {
            return Err(Error::invalid("max_groups must be at least 1"));
        }
        Ok(ConsolidateRequest {
            tenant: tenant.to_string(),
            project: match (project, self.global) {
                (Some(p), _) => Some(Some(p)),
                (None, true) => Some(None),
                (None, false) => None,
            },
            keep: self.keep.unwrap_or(DEFAULT_KEEP_GROUPS),
            max_groups,
            dry_run: self.dry_run,
            actor: actor.to_string(),
        })
    }
}

/// Consolidate the caller's tenant.
pub fn consolidate(
    cairn: &Cairn,
    caller: &Caller,
    input: &ConsolidateInput,
) -> Result<ConsolidateOutput> {
    let report = cairn.consolidate(&input.request(&caller.tenant, &caller.actor)?)?;
    view(cairn, report)
}

/// Consolidate every tenant of the store, one after the other (a server's
/// periodic job; `cairn consolidate --all-tenants`). Each tenant is
/// consolidated in batches of at most `max_groups` groups.
pub fn consolidate_all(
    cairn: &Cairn,
    input: &ConsolidateInput,
    actor: &str,
) -> Result<Vec<ConsolidateOutput>> {
    cairn
        .store()
        .tenants(crate::TenantsWith::Memories)?
        .iter()
        .map(|t| view(cairn, cairn.consolidate(&input.request(t, actor)?)?))
        .collect()
}

fn view(cairn: &Cairn, report: ConsolidationReport) -> Result<ConsolidateOutput> {
    let tenant = report.tenant.clone();
    let mut groups = Vec::with_capacity(report.groups.len());
    let mut episodes = 0;
    for g in report.groups {
        episodes += g.sources.len();
        let sources = cairn.short_ids(&tenant, &g.sources, SHORT_ID_MIN)?;
        let summary_id = g
            .summary_id
            .map(|id| cairn.short_id_at_least(&tenant, id, SHORT_ID_MIN))
            .transpose()?;
        groups.push(ConsolidatedGroupView {
            project: g.project,
            group: g.group,
            sources,
            summary_id,
            summary: g.summary,
            summarised_by: g.generated,
        });
    }
    Ok(ConsolidateOutput {
        tenant,
        dry_run: report.dry_run,
        episodes,
        groups,
        remaining: report.remaining,
    })
}
