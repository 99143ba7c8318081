//! The application layer: every operation a front end offers, written once.
//!
//! Requests arrive as front ends receive them — names, times and durations
//! as text, options left out — and are validated and resolved here into the
//! engine's typed calls; responses are what front ends render. The CLI's
//! `--json`, MCP's structured content and the REST API serialise the same
//! response types, so the same operation answers the same JSON everywhere.
//! Front ends only parse their input into these requests and render these
//! responses.
//!
//! Rules that belong to no single front end live here: how a selection of
//! memories becomes a [`Filter`](crate::Filter) (and what "a project" means
//! when recalling versus forgetting), what a superseding memory inherits,
//! the recall budget, dry-run deletes, page sizes and cursors.
//!
//! ## Invariants
//! - Knows nothing of terminals, HTTP or MCP; serde only.
//! - Every call names its [`Caller`]: the tenant is never implicit.

use crate::history::LOCAL_ACTOR;

mod backup;
mod builder;
mod consolidate;
mod conversation;
mod foreign;
mod history;
mod ingest;
mod keys;
mod maintenance;
mod neighbours;
pub mod oauth;
mod prompt;
mod providers;
mod read;
mod selection;
mod settings;
mod slots;
mod transfer;
mod view;
mod write;

pub use crate::foreign::{Foreign, Importer};
pub use backup::{
    backup, partial_path, restore, BackupFile, BackupOutput, RecordSum, RestoreOutput,
};
pub use builder::{EngineBuilder, MIN_RELEVANCE_VAR, STALENESS_DAYS_VAR};
pub use consolidate::{
    consolidate, consolidate_all, ConsolidateInput, ConsolidateOutput, ConsolidatedGroupView,
};
pub use conversation::{
    conversation_stats, import_transcript, list_conversations, log, show_conversation, window,
    working_memory, ConversationImportReport, ConversationStats, ConversationTree,
    ConversationView, LogInput, LogOutput, LoggedView, MessageView, PendingView, ThreadTokens,
    TopicView, WindowInput, DEFAULT_WINDOW_BUDGET, WORKING_RULES_TOKENS,
};
pub use foreign::{
    import_foreign, ForeignFile, ForeignInput, ForeignItem, ForeignProblem, ForeignReport,
};
pub use history::{
    chain, get_with_history, history, revert, ChainOutput, GetOutput, HistoryOutput, RevertInput,
    RevertOutput, VersionView, MAX_CHAIN,
};
pub use ingest::{ingest, ChunkView, IngestInput, IngestOutput};
pub use keys::{
    authenticate, authenticate_key_id, create_key, list_keys, revoke_key, tenant_name,
    Authenticated, CreateKeyInput, CreatedKey, KeyView,
};
pub use maintenance::{embed_pending, gc, reindex, sweep_shared, GcOutput, ReindexOutput};
pub use neighbours::{
    activity, similar, ActivityEntry, ActivityInput, ActivityOutput, Neighbour, SimilarInput,
    SimilarOutput, MAX_NEIGHBOURS,
};
pub use prompt::{prompt, PromptInput, DEFAULT_PROMPT_BUDGET};
pub use providers::{providers, ChatStatus, EmbedderStatus, ProviderCheck, ProvidersOutput};
pub use read::{
    context, get, list, recall, stats, ContextInput, ListInput, ListOutput, RecallHit, RecallInput,
    RecallOutput, StatsOutput, DEFAULT_CONTEXT_BUDGET, GLOBAL_LABEL, MAX_PAGE, MIN_CONTEXT_BUDGET,
    NOTHING_RELEVANT,
};
pub use selection::{as_of, ListSort, Selection};
pub use settings::{set_settings, settings, SettingsInput, SettingsView, SETTING_NAMES};
pub use slots::{
    archive_candidates, slot_archive, slot_export, slot_import, slot_list, slot_merge, slot_names,
    slot_read, slot_restore, slot_save, slot_search, slot_select, slot_set, slot_tree, slot_zero,
    split_document, zero_mode, CompressionView, DuplicatePair, EntryView, ExportFormat, GroupNode,
    ImportedFile, MergeReport, SaveInput, SaveOutput, Selected, SlotImportReport, SlotInput,
    SlotListInput, SlotRead, SlotSearchInput, SlotView, ZeroInput, ZeroOutput,
    DEFAULT_SUMMARY_RATIO, MERGE_DUPLICATE,
};
pub use transfer::{export, import};
pub use view::{MemoryView, SimilarView};
pub use write::{
    forget, remember, scope_label, tag, update, ConflictView, DedupView, ForgetInput, ForgetOutput,
    RememberInput, RememberOutput, TagInput, TagOutput, UpdateInput, UpdateOutput,
};

/// Who is asking: the tenant every read and write is confined to, the
/// actor their changes are recorded under, and the project of calls that
/// name none (an MCP session's project; `None` for the CLI, whose
/// `--project` is always explicit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The tenant.
    pub tenant: String,
    /// Who, in versions and deletion receipts: an API key's id, or
    /// [`LOCAL_ACTOR`] (the default).
    pub actor: String,
    /// The default project.
    pub project: Option<String>,
}

impl Caller {
    /// A local caller of `tenant` with no default project.
    pub fn new(tenant: impl Into<String>) -> Self {
        Caller {
            tenant: tenant.into(),
            actor: LOCAL_ACTOR.to_string(),
            project: None,
        }
    }

    /// Builder: the actor (an API key's id).
    pub fn with_actor(mut self, actor: impl Into<String>) -> Self {
        self.actor = actor.into();
        self
    }

    /// Builder: the project of calls that name none.
    pub fn with_project(mut self, project: Option<String>) -> Self {
        self.project = project
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty());
        self
    }
}

/// Trimmed, non-empty text.
pub(crate) fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// "1 memory", "2 memories".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
