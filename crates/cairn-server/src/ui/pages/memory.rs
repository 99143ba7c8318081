//! A memory's page and the actions on it: edit, revert, supersede,
//! forget.

use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::IntoResponse;
use axum::Form;
use cairn_core::api::{self, ForgetInput, RememberInput, RevertInput, UpdateInput};
use cairn_core::MemoryType;
use maud::{html, Markup};
use serde::Deserialize;

use super::{see_other, split_tags, Page};
use crate::ui::render::{self, csrf_field, excerpt, num, page, when};
use crate::ui::{run, Ui, UiError};
use crate::AppState;

/// `GET /ui/memories/{id}`: the memory (`GET /v1/memories/{id}`), its
/// history (`…/history`), supersede chain (`…/chain`) and similar
/// memories (`…/similar`), and the forms that change it.
pub(crate) async fn memory(State(state): State<AppState>, ui: Ui, Path(id): Path<String>) -> Page {
    let (m, history, found) = run(&state, &ui, move |c, caller| {
        let history = api::history(c, caller, &id)?;
        if history.versions.is_empty() {
            return Ok((None, history, None));
        }
        let m = api::get(c, caller, &history.id)?;
        let similar = api::similar(c, caller, &history.id, api::SimilarInput { limit: Some(8) })?;
        let chain = api::chain(c, caller, &history.id)?;
        Ok((Some(m), history, Some((similar, chain))))
    })
    .await?;
    let (Some(m), Some((similar, chain))) = (m, found) else {
        let body = html! {
            p role="status" { "This memory was forgotten." }
            @if let Some(r) = &history.deleted {
                pre.json { (serde_json::to_string_pretty(r).unwrap_or_default()) }
            }
        };
        return Ok(page(&ui, "/ui/memories", "Forgotten memory", body).into_response());
    };
    let can_write = ui.may(Method::PATCH, "/v1/memories/x");
    let path = format!("/ui/memories/{}", m.id());
    let r = &m.record;
    let body = html! {
        p.meta {
            code { (m.short_id) } " · " (r.kind.as_deref().unwrap_or("")) " · " (r.project.as_deref().unwrap_or("global"))
            @for t in &r.tags { " " span.tag { (t) } }
        }
        @if chain.chain.len() > 1 { (supersede_chain(&chain)) }
        (contested_notice(r))
        article.content aria-label="Content" { (render::markdown(&r.content)) }
        div.grid2 {
            section {
                h2 { "Fields" }
                dl.fields {
                    dt { "id" } dd { code { (m.id()) } }
                    dt { "importance" } dd { (num(r.importance.unwrap_or(0.0), 3)) }
                    dt { "weight" } dd { (num(r.weight.unwrap_or(1.0), 3)) }
                    dt { "uses" } dd { (r.access_count.unwrap_or(0)) }
                    dt { "source" } dd { (r.source.as_deref().unwrap_or("—")) }
                    dt { "created" } dd { (when(r.created_at.as_deref())) }
                    dt { "updated" } dd { (when(r.updated_at.as_deref())) }
                    dt { "last used" } dd { (when(r.last_accessed_at.as_deref())) }
                    dt { "expires" } dd { (when(r.expires_at.as_deref())) }
                    @match (r.valid_from.as_deref(), r.valid_to.as_deref()) {
                        (None, None) => {}
                        (Some(from), None) => { dt { "true since" } dd { (when(Some(from))) } }
                        (None, Some(to)) => { dt { "true until" } dd { (when(Some(to))) } }
                        (from, to) => { dt { "true" } dd { "from " (when(from)) " until " (when(to)) } }
                    }
                    @if let Some(slot) = &r.slot { dt { "slot" } dd { (slot) } }
                    @if let Some(meta) = &r.metadata {
                        dt { "metadata" } dd { pre.json { (serde_json::to_string_pretty(meta).unwrap_or_default()) } }
                    }
                }
            }
            section {
                h2 { "History" }
                ol.timeline reversed {
                    @for (i, v) in history.versions.iter().enumerate().rev() {
                        li {
                            p {
                                strong { "v" (v.version) " " (format!("{:?}", v.change).to_lowercase()) }
                                " · " (when(Some(&v.at))) " · " (v.actor)
                                @if let Some(reason) = &v.reason { " · " span.hint { (reason) } }
                            }
                            @if i > 0 {
                                @let before = &history.versions[i - 1].memory;
                                @if before.content != v.memory.content {
                                    p.diff { (render::diff(&before.content, &v.memory.content)) }
                                }
                                (field_changes(before, &v.memory))
                            } @else {
                                p.diff { (excerpt(&v.memory.content, 200)) }
                            }
                            @if can_write && i + 1 < history.versions.len() {
                                form method="post" action=(format!("{path}/revert")) data-confirm=(format!("Restore version {}?", v.version)) {
                                    (csrf_field(&ui))
                                    input type="hidden" name="version" value=(v.version);
                                    button type="submit" { "Revert to v" (v.version) }
                                }
                            }
                        }
                    }
                }
            }
        }
        section {
            h2 { "Similar memories" }
            @if similar.similar.is_empty() { p.hint { "None." } }
            div.tablewrap { table.counts {
                @for n in &similar.similar {
                    tr {
                        td { a href=(format!("/ui/memories/{}", n.memory.id)) { code { (n.memory.short_id) } } }
                        td { (excerpt(&n.memory.content, 120)) @if n.may_contradict { " " span.tag.warn { "may contradict" } } }
                        td { meter min="0" max="1" value=(n.memory.similarity.max(0.0)) aria-label=(format!("similarity {:.3}", n.memory.similarity)) {} }
                        td.n { (num(n.memory.similarity as f64, 3)) }
                    }
                }
            } }
        }
        @if can_write {
            div.grid2 {
                section {
                    h2 #edit-heading { "Edit " span.hint { "(e)" } }
                    form.stack #edit method="post" action=(format!("{path}/edit")) {
                        (csrf_field(&ui))
                        label for="content" { "Content" }
                        textarea #content name="content" rows="6" required { (r.content) }
                        div.row2 {
                            div { label for="e-type" { "Type" }
                                select #e-type name="type" {
                                    @for t in MemoryType::ALL { option value=(t.as_str()) selected[r.kind.as_deref() == Some(t.as_str())] { (t.as_str()) } }
                                } }
                            div { label for="e-project" { "Project (empty: global)" } input #e-project name="project" value=(r.project.as_deref().unwrap_or("")); }
                        }
                        label for="e-tags" { "Tags (comma-separated)" }
                        input #e-tags name="tags" value=(r.tags.join(", "));
                        div.row2 {
                            div { label for="e-importance" { "Importance (0–1)" } input #e-importance name="importance" type="number" min="0" max="1" step="0.05" value=(num(r.importance.unwrap_or(0.5), 3)); }
                            div { label for="e-weight" { "Weight" } input #e-weight name="weight" type="number" min="0" max="100" step="0.1" value=(num(r.weight.unwrap_or(1.0), 3)); }
                        }
                        button type="submit" { "Save" }
                    }
                }
                section {
                    h2 { "Supersede" }
                    form.stack method="post" action=(format!("{path}/supersede")) {
                        (csrf_field(&ui))
                        label for="s-content" { "What is true now" }
                        textarea #s-content name="content" rows="4" required {}
                        button type="submit" { "Supersede" }
                    }
                    h2 { "Forget" }
                    form method="post" action=(format!("{path}/forget")) data-confirm="Forget this memory? Only its deletion receipt stays." {
                        (csrf_field(&ui))
                        button.danger type="submit" { "Forget this memory" }
                    }
                }
            }
        }
    };
    let title = format!("Memory {}", m.short_id);
    Ok(page(&ui, "/ui/memories", &title, body).into_response())
}

/// The supersede chain, oldest first, the memory shown marked.
fn supersede_chain(chain: &api::ChainOutput) -> Markup {
    html! {
        section {
            h2 #chain-heading { "Supersede chain" }
            @if chain.more_before { p.hint { "Older versions go further back." } }
            ol.chain aria-labelledby="chain-heading" {
                @for (i, m) in chain.chain.iter().enumerate() {
                    li aria-current=[(i == chain.position).then_some("true")] {
                        @if i == chain.position {
                            strong { code { (m.short_id) } " (this memory)" }
                        } @else {
                            a href=(format!("/ui/memories/{}", m.id())) { code { (m.short_id) } }
                        }
                        " " (excerpt(&m.record.content, 100))
                        span.hint { " · " (when(m.record.created_at.as_deref())) }
                    }
                }
            }
            @if chain.more_after { p.hint { "Newer versions go further on." } }
        }
    }
}

fn field_changes(
    before: &cairn_core::wire::MemoryRecord,
    after: &cairn_core::wire::MemoryRecord,
) -> Markup {
    let mut changes = Vec::new();
    let mut diff = |name: &str, a: String, b: String| {
        if a != b {
            changes.push(format!("{name}: {a} → {b}"));
        }
    };
    diff(
        "type",
        before.kind.clone().unwrap_or_default(),
        after.kind.clone().unwrap_or_default(),
    );
    diff(
        "project",
        before.project.clone().unwrap_or("global".into()),
        after.project.clone().unwrap_or("global".into()),
    );
    diff("tags", before.tags.join(", "), after.tags.join(", "));
    diff(
        "importance",
        num(before.importance.unwrap_or(0.0), 3),
        num(after.importance.unwrap_or(0.0), 3),
    );
    diff(
        "weight",
        num(before.weight.unwrap_or(1.0), 3),
        num(after.weight.unwrap_or(1.0), 3),
    );
    html! { @if !changes.is_empty() { ul.changes { @for c in changes { li { (c) } } } } }
}

/// The edit form.
#[derive(Deserialize)]
pub(crate) struct EditForm {
    content: String,
    #[serde(rename = "type")]
    kind: String,
    project: String,
    tags: String,
    importance: String,
    weight: String,
}

fn number(field: &str, text: &str) -> Result<Option<f64>, UiError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| {
        cairn_core::Error::invalid(format!("{field}: `{text}` is not a number")).into()
    })
}

/// `POST /ui/memories/{id}/edit`: `PATCH /v1/memories/{id}`.
pub(crate) async fn edit(
    State(state): State<AppState>,
    ui: Ui,
    Path(id): Path<String>,
    Form(f): Form<EditForm>,
) -> Page {
    ui.require(Method::PATCH, "/v1/memories/x")?;
    let project = f.project.trim().to_string();
    let input = UpdateInput {
        content: Some(f.content),
        kind: Some(f.kind),
        global: project.is_empty(),
        project: (!project.is_empty()).then_some(project),
        tags: Some(split_tags(&f.tags)),
        importance: number("importance", &f.importance)?,
        weight: number("weight", &f.weight)?,
        ..Default::default()
    };
    let out = run(&state, &ui, move |c, caller| {
        api::update(c, caller, &id, input)
    })
    .await?;
    Ok(see_other(&format!("/ui/memories/{}", out.memory.id())))
}

/// The revert form.
#[derive(Deserialize)]
pub(crate) struct RevertForm {
    version: u32,
}

/// `POST /ui/memories/{id}/revert`: `POST /v1/memories/{id}/revert`.
pub(crate) async fn revert(
    State(state): State<AppState>,
    ui: Ui,
    Path(id): Path<String>,
    Form(f): Form<RevertForm>,
) -> Page {
    ui.require(Method::POST, "/v1/memories/x/revert")?;
    let input = RevertInput { version: f.version };
    let out = run(&state, &ui, move |c, caller| {
        api::revert(c, caller, &id, input)
    })
    .await?;
    Ok(see_other(&format!("/ui/memories/{}", out.memory.id())))
}

/// The supersede form.
#[derive(Deserialize)]
pub(crate) struct SupersedeForm {
    content: String,
}

/// `POST /ui/memories/{id}/supersede`: `POST /v1/memories` with
/// `supersedes`.
pub(crate) async fn supersede(
    State(state): State<AppState>,
    ui: Ui,
    Path(id): Path<String>,
    Form(f): Form<SupersedeForm>,
) -> Page {
    ui.require(Method::POST, "/v1/memories")?;
    let input = RememberInput {
        supersedes: Some(id),
        dedup: Some(false),
        ..RememberInput::new(f.content)
    };
    let out = run(&state, &ui, move |c, caller| {
        api::remember(c, caller, input)
    })
    .await?;
    Ok(see_other(&format!("/ui/memories/{}", out.id)))
}

/// `POST /ui/memories/{id}/forget`: `DELETE /v1/memories/{id}`.
pub(crate) async fn forget(State(state): State<AppState>, ui: Ui, Path(id): Path<String>) -> Page {
    ui.require(Method::DELETE, "/v1/memories/x")?;
    let input = ForgetInput {
        ids: vec![id.clone()],
        ..Default::default()
    };
    run(&state, &ui, move |c, caller| api::forget(c, caller, input)).await?;
    Ok(see_other(&format!("/ui/memories/{id}")))
}

/// A notice naming the newer memory that contests this one, if any.
fn contested_notice(r: &cairn_core::wire::MemoryRecord) -> Markup {
    html! {
        @if let Some((by, reason)) = contested(r.metadata.as_ref()) {
            p.notice role="note" {
                strong { "Contested" } " by a newer memory, "
                a href=(format!("/ui/memories/{by}")) { code { (by) } }
                ": " (reason)
                @if let Some(to) = &r.valid_to { " · believed true until " (when(Some(to))) }
            }
        }
    }
}

/// The memory that contested this one and why, from the metadata the core
/// writes when a newer statement changes its value.
fn contested(
    metadata: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Option<(String, String)> {
    let m = metadata?;
    let by = m
        .get(cairn_core::engine::CONTESTED_BY)?
        .as_str()?
        .to_string();
    let reason = m
        .get(cairn_core::engine::CONTESTED_REASON)
        .and_then(|v| v.as_str())
        .unwrap_or("a changed value")
        .to_string();
    Some((by, reason))
}
