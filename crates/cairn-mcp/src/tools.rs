//! The tools. Each parses its arguments into an application-layer
//! request, calls `cairn_core::api` off the async workers, and answers the
//! response as structured content with a compact text for the model. Their
//! doc comments are the descriptions a model reads.

use cairn_core::api::{
    self, ContextInput, ForgetOutput, GetOutput, IngestInput, IngestOutput, ListOutput, LogOutput,
    RecallOutput, RememberOutput, StatsOutput, UpdateOutput, WindowInput,
};
use cairn_core::context::ContextPack;
use cairn_core::window::Window;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Extensions};
use rmcp::{tool, tool_router};

use crate::help;
use crate::render::{self, error_result, reply};
use crate::server::CairnMcp;
use crate::types::*;

#[tool_router(vis = "pub(crate)")]
impl CairnMcp {
    /// Store a memory for later sessions. Use it right away for things that
    /// were hard to find or that the user would not want to repeat: decisions
    /// and why, preferences, rules, facts about where and how things are.
    /// One fact per memory, short and specific. Near-identical memories are
    /// merged (status `deduplicated`); related ones come back in `similar`:
    /// if one of them is now wrong, call `remember` with `supersedes` set to
    /// its id, or `forget` it. A superseding memory keeps the old one's
    /// type, project and tags unless you give them. Returns the id, the
    /// status and similar memories.
    #[tool(
        name = "remember",
        output_schema = schema_for_output::<RememberOutput>(),
        annotations(
            title = "Remember",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn remember(
        &self,
        Parameters(p): Parameters<RememberParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let out = self
            .call(&ext, move |c, caller| api::remember(c, caller, p.into()))
            .await;
        answer(out, render::remembered)
    }

    /// Search memory before acting on anything you may have learnt before:
    /// where something runs, how the user wants things done, why something
    /// was decided, what failed last time. Ask in natural language. Returns
    /// memories best first with scores and short ids, within `budget` tokens
    /// if given. Searches the session's project and global memories unless
    /// `project` or `all_projects` says otherwise.
    #[tool(
        name = "recall",
        output_schema = schema_for_output::<RecallOutput>(),
        annotations(
            title = "Recall",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn recall(
        &self,
        Parameters(p): Parameters<RecallParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let budget = p.budget;
        let out = self
            .call(&ext, move |c, caller| api::recall(c, caller, p.into()))
            .await;
        answer(out, |r| r.to_text(budget))
    }

    /// What to read at the start of a session: the rules to follow, the
    /// memories matching the topic, recent and frequently used ones, and
    /// stale ones to review, grouped by type as Markdown within a token
    /// budget. Call it once when work starts (give the task as `topic`).
    #[tool(
        name = "context",
        output_schema = schema_for_output::<ContextPack>(),
        annotations(
            title = "Session context",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn context(
        &self,
        Parameters(p): Parameters<ContextParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let input: ContextInput = p.into();
        let out = self
            .call(&ext, move |c, caller| api::context(c, caller, input))
            .await;
        answer(out, |pack| pack.markdown.clone())
    }

    /// Log conversation messages as they happen (the user's message and
    /// your reply, after each exchange) so later sessions can search them:
    /// each becomes an episode in the conversation's current topic; a new
    /// topic starts by itself when the subject changes. Search them with
    /// `recall` (`conversation`, `session` or `topic` to narrow it; `mode`
    /// temporal for "what did we say yesterday"). Returns each message's
    /// id, topic and importance; when the embedding endpoint fails, the
    /// messages kept `pending` instead (logged when it answers).
    #[tool(
        name = "observe",
        output_schema = schema_for_output::<LogOutput>(),
        annotations(
            title = "Log conversation messages",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn observe(
        &self,
        Parameters(p): Parameters<ObserveParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let input = p.into_log();
        let out = self
            .call(&ext, move |c, caller| api::log(c, caller, input))
            .await;
        answer(out, render::observed)
    }

    /// Slots: named notebooks that keep entries over time (memcord). One
    /// tool, by `action`:
    /// `use` (make `name` the session's slot), `save` (append `text` as an
    /// entry), `save_progress` (append an extractive summary of `text`,
    /// `ratio` 0.05–0.5), `read` (entries in order), `select` (one entry:
    /// `which` = -1, "2nd latest", "2 hours ago", "yesterday 15:00"),
    /// `search` (`query` over slots' entries; `name` narrows to one),
    /// `list`, `archive` (`reason`), `restore`, `export` (`format` md, txt
    /// or json), `zero` (`on`: pause or resume saving; `name`'s, else every
    /// slot's). Other calls without `name` use the session's slot. Entries are memories:
    /// `recall` finds them too until their slot is archived.
    #[tool(
        name = "slot",
        output_schema = schema_for_output::<SlotOutput>(),
        annotations(
            title = "Slots",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn slot(&self, Parameters(p): Parameters<SlotParams>, ext: Extensions) -> CallToolResult {
        let out = crate::slots::run(self, p, &ext).await;
        answer(out, |o: &SlotOutput| o.text.clone())
    }

    /// Turn a longer text (notes, a document, a pasted log; plain,
    /// Markdown or HTML) into memories in one call: it is cleaned, secrets
    /// are redacted, it is cut into chunks of whole sentences, and each
    /// chunk is scored (novelty and salience), given a type (rule,
    /// procedure, preference, decision, episode, fact) and stored — or
    /// skipped when it adds nothing new. Use `remember` for one fact you
    /// state yourself. Returns every chunk with what became of it; set
    /// `dry_run` to see that without storing.
    #[tool(
        name = "ingest",
        output_schema = schema_for_output::<IngestOutput>(),
        annotations(
            title = "Ingest a text",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn ingest(
        &self,
        Parameters(p): Parameters<IngestParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let input: IngestInput = p.into();
        let out = self
            .call(&ext, move |c, caller| {
                api::ingest(c, caller, input, &mut |_, _| ())
            })
            .await;
        answer(out, render::ingested)
    }

    /// The context to answer a user's message with, within a token budget:
    /// the rules to follow, the session's latest messages verbatim, what
    /// was said earlier that bears on the message (and summaries of earlier
    /// topics), and relevant long-term memories. Counted exactly
    /// (`cl100k_base` unless `tokenizer` says otherwise); never over budget.
    #[tool(
        name = "window",
        output_schema = schema_for_output::<Window>(),
        annotations(
            title = "Context window",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn window(
        &self,
        Parameters(p): Parameters<WindowParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let input: WindowInput = p.into();
        let out = self
            .call(&ext, move |c, caller| api::window(c, caller, input))
            .await;
        answer(out, |w| w.text.clone())
    }

    /// Read one memory in full by its id or a unique prefix (as shown by
    /// recall and list). Counts as a use of the memory. With `history`,
    /// also every version of it: who changed what, when and why.
    #[tool(
        name = "get",
        output_schema = schema_for_output::<GetOutput>(),
        annotations(
            title = "Get a memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get(&self, Parameters(p): Parameters<GetParams>, ext: Extensions) -> CallToolResult {
        let out = self
            .call(&ext, move |c, caller| {
                api::get_with_history(c, caller, &p.id, p.history)
            })
            .await;
        answer(out, render::memory_with_history)
    }

    /// Change a memory in place: text, type, project, tags, metadata,
    /// importance, weight or TTL. When a fact changed, prefer `remember`
    /// with `supersedes` (keeps history); use `update` to fix a mistake or
    /// re-label. Returns the memory after the change.
    #[tool(
        name = "update",
        output_schema = schema_for_output::<UpdateOutput>(),
        annotations(
            title = "Update a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update(
        &self,
        Parameters(p): Parameters<UpdateParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let id = p.id.clone();
        let out = self
            .call(&ext, move |c, caller| api::update(c, caller, &id, p.into()))
            .await;
        answer(out, |u| {
            format!(
                "updated {}\n{}",
                u.memory.short_id,
                render::memory(&u.memory)
            )
        })
    }

    /// Delete memories for good. Give `id` to delete one memory that is
    /// wrong or useless. Or give a filter (project, global, types, tags,
    /// since, until): without `confirm` it only reports how many would be
    /// deleted; call again with `confirm: true` to delete them. To replace
    /// an outdated fact, prefer `remember` with `supersedes`.
    #[tool(
        name = "forget",
        output_schema = schema_for_output::<ForgetOutput>(),
        annotations(
            title = "Forget",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn forget(
        &self,
        Parameters(p): Parameters<ForgetParams>,
        ext: Extensions,
    ) -> CallToolResult {
        let out = self
            .call(&ext, move |c, caller| api::forget(c, caller, p.into()))
            .await;
        answer(out, render::forgotten)
    }

    /// Browse memories with filters, sorted and paged (no query: use
    /// `recall` to search). `sort: "stale"` lists the longest unused ones,
    /// candidates to review or forget. Returns a page, the total and where
    /// the next page starts.
    #[tool(
        name = "list",
        output_schema = schema_for_output::<ListOutput>(),
        annotations(
            title = "List memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list(&self, Parameters(p): Parameters<ListParams>, ext: Extensions) -> CallToolResult {
        let out = self
            .call(&ext, move |c, caller| api::list(c, caller, p.into()))
            .await;
        answer(out, render::page)
    }

    /// Counts of the memory store: totals, expired, superseded, per type and
    /// per project, the embedding model, and the session's project.
    #[tool(
        name = "stats",
        output_schema = schema_for_output::<StatsOutput>(),
        annotations(
            title = "Memory statistics",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn stats(&self, _p: Parameters<NoParams>, ext: Extensions) -> CallToolResult {
        let out = self.call(&ext, api::stats).await;
        answer(out, render::stats)
    }

    /// How to use Cairn well: what to remember and when to recall (topic
    /// `protocol`), the memory types, projects, forgetting, the tools.
    #[tool(
        name = "help",
        output_schema = schema_for_output::<HelpOut>(),
        annotations(
            title = "Help",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn help(&self, Parameters(p): Parameters<HelpParams>) -> CallToolResult {
        let topic = p
            .topic
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "overview".into());
        let text = if topic.eq_ignore_ascii_case(help::PARAMETERS) {
            Some(help::parameters(&Self::tool_router().list_all()))
        } else {
            help::topic(&topic)
        };
        match text {
            Some(text) => reply(
                text.clone(),
                &HelpOut {
                    topic,
                    text,
                    topics: help::TOPICS.iter().map(|t| t.to_string()).collect(),
                },
            ),
            None => error_result(&cairn_core::Error::invalid(format!(
                "no help topic `{topic}`; topics: {}",
                help::TOPICS.join(", ")
            ))),
        }
    }
}

/// A tool's answer: the response with its text, or the error as a tool
/// result.
fn answer<T: serde::Serialize>(
    out: cairn_core::Result<T>,
    text: impl FnOnce(&T) -> String,
) -> CallToolResult {
    match out {
        Ok(value) => reply(text(&value), &value),
        Err(e) => error_result(&e),
    }
}
