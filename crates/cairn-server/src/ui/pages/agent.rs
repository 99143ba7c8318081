//! What the agent sees: the session-start context and a recall.

use axum::extract::{Query, State};
use axum::response::IntoResponse;
use cairn_core::api::{self, RecallInput, Selection};
use maud::html;
use serde::Deserialize;

use super::Page;
use crate::ui::render::page;
use crate::ui::{run, Ui};
use crate::AppState;

/// What to assemble.
#[derive(Debug, Deserialize)]
#[serde(default)]
pub(crate) struct AgentQuery {
    project: String,
    topic: String,
    budget: usize,
}

impl Default for AgentQuery {
    fn default() -> Self {
        AgentQuery {
            project: String::new(),
            topic: String::new(),
            budget: api::DEFAULT_CONTEXT_BUDGET,
        }
    }
}

/// `GET /ui/agent`: the session-start context (`POST /v1/context`) and a
/// recall of the topic within the same budget (`POST /v1/recall`), as an
/// agent gets them, with their token counts.
pub(crate) async fn agent(
    State(state): State<AppState>,
    ui: Ui,
    Query(q): Query<AgentQuery>,
) -> Page {
    let budget = q.budget.clamp(api::MIN_CONTEXT_BUDGET, 32_000);
    let project = (!q.project.trim().is_empty()).then(|| q.project.trim().to_string());
    let topic = (!q.topic.trim().is_empty()).then(|| q.topic.trim().to_string());
    let (pack, recall) = run(&state, &ui, {
        let (project, topic) = (project.clone(), topic.clone());
        move |c, caller| {
            let pack = api::context(
                c,
                caller,
                api::ContextInput {
                    topic: topic.clone(),
                    project: project.clone(),
                    budget: Some(budget),
                },
            )?;
            let recall = match topic {
                Some(t) => Some(api::recall(
                    c,
                    caller,
                    RecallInput {
                        query: t,
                        selection: Selection {
                            project,
                            ..Default::default()
                        },
                        budget: Some(budget),
                        ..Default::default()
                    },
                )?),
                None => None,
            };
            Ok((pack, recall))
        }
    })
    .await?;
    let mut sections: Vec<(String, usize, usize)> = Vec::new();
    for item in &pack.items {
        let name = format!("{:?}", item.reason).to_lowercase();
        match sections.iter_mut().find(|(n, _, _)| *n == name) {
            Some(s) => {
                s.1 += 1;
                s.2 += item.tokens;
            }
            None => sections.push((name, 1, item.tokens)),
        }
    }
    let body = html! {
        form.filters method="get" action="/ui/agent" {
            div.field { label for="a-project" { "Project" } input #a-project name="project" value=(q.project) placeholder="none: global memories"; }
            div.field.wide { label for="a-topic" { "Topic" } input #a-topic name="topic" value=(q.topic) placeholder="what the session is about"; }
            div.field {
                label for="a-budget" { "Token budget: " output #budget-out for="a-budget" { (budget) } }
                input #a-budget type="range" name="budget" min="50" max="8000" step="50" value=(budget);
            }
            div.field { button type="submit" { "Show" } }
        }
        div.grid2 {
            section {
                h2 { "Session-start context" }
                p.summary { (pack.tokens) " of " (pack.budget) " tokens · " (pack.items.len()) " memories · " (pack.omitted) " left out · " (pack.visible) " visible" }
                table.counts {
                    thead { tr { th scope="col" { "Section" } th scope="col" .n { "Memories" } th scope="col" .n { "Tokens" } } }
                    tbody { @for (name, n, t) in &sections { tr { th scope="row" { (name) } td.n { (n) } td.n { (t) } } } }
                }
                pre.agent { (pack.markdown) }
            }
            section {
                h2 { "Recall of the topic" }
                @if let Some(r) = &recall {
                    p.summary { (r.tokens) " tokens · " (r.results.len()) " memories · " (r.omitted) " left out" }
                    pre.agent { (r.to_text(Some(budget))) }
                } @else {
                    p.hint { "Give a topic to see what a recall of it returns." }
                }
            }
        }
    };
    Ok(page(&ui, "/ui/agent", "What the agent sees", body).into_response())
}
