//! The prompt builder: the memories a prompt about a query should carry,
//! within a token budget, as Memory Vault AI's `<memory>` block (or
//! Markdown, or JSON).

use super::{non_empty, Caller};
use crate::engine::{Cairn, PromptRequest};
use crate::template::PromptTemplate;
use crate::tokens::Tokenizer;
use crate::window::{LeftOut, Section, SectionTokens, Window, WindowFormat};
use crate::{Error, Result};

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
    /// The block in your own words: a header, a footer and a line per
    /// memory with `{text}`, `{tier}`, `{date}`, `{id}` (per tier if
    /// wanted); replaces `format`.
    pub template: Option<PromptTemplate>,
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
    if let Some(template) = &input.template {
        if non_empty(input.format.as_deref()).is_some() {
            return Err(Error::invalid("give a format or a template, not both"));
        }
        template.validate()?;
    }
    let window = cairn.prompt(&PromptRequest {
        tenant: caller.tenant.clone(),
        query: input.query,
        project: non_empty(input.project.as_deref()).or_else(|| caller.project.clone()),
        budget: input.budget.unwrap_or(DEFAULT_PROMPT_BUDGET),
        tokenizer,
        format,
    })?;
    match &input.template {
        Some(template) => templated(window, template),
        None => Ok(window),
    }
}

/// `window` (assembled as a `<memory>` block) rendered with `template`:
/// the same memories in the same order, the last ones left out while the
/// template's text is over the budget (counted exactly).
fn templated(mut window: Window, template: &PromptTemplate) -> Result<Window> {
    let tokenizer = window.tokenizer;
    loop {
        let text = template.render(&window.items)?;
        let total = tokenizer.count(&text);
        if total <= window.budget {
            window.text = text;
            window.total_tokens = total;
            window.budget_used = total as f64 / window.budget as f64;
            break;
        }
        let Some(last) = window.items.pop() else {
            break;
        };
        let tokens = tokenizer.count(&template.line(&last)?);
        window.left_out.push(LeftOut {
            id: last.id,
            section: last.section,
            tokens,
        });
    }
    window.sections = Section::ALL
        .iter()
        .filter_map(|s| {
            let lines: Vec<String> = window
                .items
                .iter()
                .filter(|e| e.section == *s)
                .map(|e| template.line(e).map(|l| l + "\n"))
                .collect::<cairn_text::Result<_>>()
                .ok()?;
            (!lines.is_empty()).then(|| SectionTokens {
                section: *s,
                items: lines.len(),
                tokens: tokenizer.count(&lines.concat()),
            })
        })
        .collect();
    Ok(window)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::memory::{MemoryType, Tier};
    use crate::{MemoryStore, RememberRequest};

    #[test]
    fn a_template_renders_the_same_memories_within_the_budget() {
        let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t");
        for (text, kind) in [
            (
                "Always run the migrations before deploying.",
                MemoryType::Rule,
            ),
            (
                "The deploy script lives in ops/deploy.sh.",
                MemoryType::Fact,
            ),
            (
                "Deploys happen on Tuesdays after the standup.",
                MemoryType::Fact,
            ),
        ] {
            let mut req = RememberRequest::new("t", text);
            req.kind = kind;
            cairn.remember(req).unwrap();
        }
        let template = PromptTemplate {
            header: Some("What you know:".into()),
            footer: Some(String::new()),
            line: Some("- {text}".into()),
            lines: BTreeMap::from([(Tier::Procedural, "- MUST: {text}".into())]),
        };
        let input = |budget, template: Option<PromptTemplate>| PromptInput {
            query: "deploy".into(),
            budget: Some(budget),
            template,
            ..Default::default()
        };
        let w = prompt(&cairn, &caller, input(200, Some(template.clone()))).unwrap();
        assert!(
            w.text.starts_with("What you know:\n- MUST: Always run"),
            "{}",
            w.text
        );
        assert_eq!(w.items.len(), 3);
        assert_eq!(w.total_tokens, Tokenizer::default().count(&w.text));
        // A tight budget drops the last lines, never exceeds it.
        let tight = prompt(&cairn, &caller, input(20, Some(template.clone()))).unwrap();
        assert!(tight.total_tokens <= 20, "{}", tight.text);
        assert!(tight.items.len() < 3 && !tight.left_out.is_empty());
        // A template and a format together are refused, as is a typo.
        let mut both = input(200, Some(template));
        both.format = Some("markdown".into());
        assert!(prompt(&cairn, &caller, both).is_err());
        let typo = PromptTemplate {
            line: Some("- {txt}".into()),
            ..Default::default()
        };
        assert!(prompt(&cairn, &caller, input(200, Some(typo))).is_err());
    }
}
