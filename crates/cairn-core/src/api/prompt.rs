//! The prompt builder: the memories a prompt about a query should carry,
//! within a token budget, as Memory Vault AI's `<memory>` block (or
//! Markdown, or JSON).

use super::{non_empty, Caller};
use crate::engine::{Cairn, PromptRequest};
use crate::tokens::Tokenizer;
use crate::window::{Window, WindowFormat};
use crate::Result;

/// What to build a prompt's memory block for, as front ends receive it.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct PromptInput {
    /// What the prompt is about.
    pub query: String,
    /// The project whose memories count, with global ones (default: the
    /// caller's, else global ones only).
    pub project: Option<String>,
    /// Most tokens of the block (default 1,000).
    pub budget: Option<usize>,
    /// `cl100k_base` (default) or `o200k_base`.
    pub tokenizer: Option<String>,
    /// `vault` (default: the `<memory>` block, also called `memory`),
    /// `markdown` or `json`.
    pub format: Option<String>,
}

/// The default budget of a prompt's memory block.
pub const DEFAULT_PROMPT_BUDGET: usize = 1000;

/// The tokenizer and format named (each may be left out: then `format`'s
/// default and `cl100k_base`).
pub(crate) fn rendering(
    tokenizer: Option<&str>,
    format: Option<&str>,
    default_format: WindowFormat,
) -> Result<(Tokenizer, WindowFormat)> {
    let tokenizer = match non_empty(tokenizer) {
        Some(t) => t.parse::<Tokenizer>()?,
        None => Tokenizer::default(),
    };
    let format = match non_empty(format) {
        Some(f) => f.parse::<WindowFormat>()?,
        None => default_format,
    };
    Ok((tokenizer, format))
}

/// The memory block of a prompt about `input.query` (see
/// [`Cairn::prompt`]): rules and procedures first, then the rest by
/// relevance, never over the budget; `total_tokens` and `budget_used` say
/// how much it took.
pub fn prompt(cairn: &Cairn, caller: &Caller, input: PromptInput) -> Result<Window> {
    let (tokenizer, format) = rendering(
        input.tokenizer.as_deref(),
        input.format.as_deref(),
        WindowFormat::Memory,
    )?;
    cairn.prompt(&PromptRequest {
        tenant: caller.tenant.clone(),
        query: input.query,
        project: non_empty(input.project.as_deref()).or_else(|| caller.project.clone()),
        budget: input.budget.unwrap_or(DEFAULT_PROMPT_BUDGET),
        tokenizer,
        format,
    })
}
