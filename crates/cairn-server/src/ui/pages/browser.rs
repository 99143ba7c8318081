//! The memory browser: filters, listing, search with each score's
//! factors, bulk actions.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::Method;
use axum::response::IntoResponse;
use cairn_core::api::{self, ForgetInput, ListInput, MemoryView, RecallInput, Selection};
use cairn_core::MemoryType;
use maud::{html, Markup};
use serde::Deserialize;

use super::{split_tags, Page, PAGE_ROWS};
use crate::ui::render::{csrf_field, excerpt, num, page, when};
use crate::ui::{run, Ui};
use crate::AppState;

/// The browser's filters and search, as its form sends them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct BrowseQuery {
    q: String,
    mode: String,
    project: String,
    #[serde(rename = "type")]
    kind: String,
    tags: String,
    source: String,
    since: String,
    until: String,
    sort: String,
    expired: Option<String>,
    /// `include` (or a checkbox's `on`): superseded memories too; `only`:
    /// those alone.
    superseded: String,
    cursor: String,
}

impl BrowseQuery {
    /// The application layer's selection: every project unless one is
    /// named (`(global)`: global memories only).
    fn selection(&self) -> Selection {
        let project = self.project.trim();
        Selection {
            project: (!project.is_empty() && project != api::GLOBAL_LABEL)
                .then(|| project.to_string()),
            global: project == api::GLOBAL_LABEL,
            all_projects: project.is_empty(),
            types: (!self.kind.is_empty())
                .then(|| self.kind.clone())
                .into_iter()
                .collect(),
            tags: split_tags(&self.tags),
            sources: split_tags(&self.source),
            since: (!self.since.is_empty()).then(|| self.since.clone()),
            until: (!self.until.is_empty()).then(|| self.until.clone()),
            include_expired: self.expired.is_some(),
            include_superseded: matches!(self.superseded.as_str(), "include" | "on"),
            only_superseded: self.superseded == "only",
            ..Default::default()
        }
    }

    /// This query with another cursor, as a URL.
    fn with_cursor(&self, cursor: Option<&str>) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in [
            ("q", &self.q),
            ("mode", &self.mode),
            ("project", &self.project),
            ("type", &self.kind),
            ("tags", &self.tags),
            ("source", &self.source),
            ("since", &self.since),
            ("superseded", &self.superseded),
            ("until", &self.until),
            ("sort", &self.sort),
        ] {
            if !v.is_empty() {
                q.append_pair(k, v);
            }
        }
        if self.expired.is_some() {
            q.append_pair("expired", "on");
        }
        if let Some(c) = cursor {
            q.append_pair("cursor", c);
        }
        format!("/ui/memories?{}", q.finish())
    }
}

/// What the browser shows: a page of a listing, or search results.
enum Found {
    Listed(api::ListOutput),
    Searched(api::RecallOutput),
}

/// `GET /ui/memories`: a page of `GET /v1/memories`, or with `q` the
/// results of `POST /v1/recall` with `explain`.
pub(crate) async fn browser(
    State(state): State<AppState>,
    ui: Ui,
    Query(q): Query<BrowseQuery>,
) -> Page {
    let selection = q.selection();
    let found = if q.q.trim().is_empty() {
        let input = ListInput {
            selection,
            sort: (!q.sort.is_empty()).then(|| q.sort.clone()),
            limit: Some(PAGE_ROWS),
            cursor: (!q.cursor.is_empty()).then(|| q.cursor.clone()),
            ..Default::default()
        };
        Found::Listed(run(&state, &ui, move |c, caller| api::list(c, caller, input)).await?)
    } else {
        let input = RecallInput {
            query: q.q.clone(),
            selection,
            limit: Some(PAGE_ROWS),
            mode: (!q.mode.is_empty()).then(|| q.mode.clone()),
            explain: true,
            ..Default::default()
        };
        Found::Searched(run(&state, &ui, move |c, caller| api::recall(c, caller, input)).await?)
    };
    let body = html! {
        (filters(&q))
        (results(&ui, &q, &found))
    };
    Ok(page(&ui, "/ui/memories", "Memories", body).into_response())
}

fn filters(q: &BrowseQuery) -> Markup {
    html! {
        form #filters.filters method="get" action="/ui/memories" role="search"
            hx-get="/ui/memories" hx-trigger="input changed delay:400ms from:#q, change" hx-target="#results" hx-select="#results" hx-swap="outerHTML" hx-push-url="true" {
            div.field.wide {
                label for="q" { "Search " span.hint { "(/)" } }
                input #q type="search" name="q" value=(q.q) placeholder="full-text and meaning; empty lists everything";
            }
            div.field {
                label for="mode" { "Match" }
                select #mode name="mode" {
                    @for (v, l) in [("", "hybrid"), ("keyword", "keyword (BM25)"), ("semantic", "semantic (vector)")] {
                        option value=(v) selected[q.mode == v] { (l) }
                    }
                }
            }
            div.field {
                label for="project" { "Project" }
                input #project name="project" value=(q.project) placeholder="all; (global) for global";
            }
            div.field {
                label for="type" { "Type" }
                select #type name="type" {
                    option value="" { "any" }
                    @for t in MemoryType::ALL {
                        option value=(t.as_str()) selected[q.kind == t.as_str()] { (t.as_str()) }
                    }
                }
            }
            div.field {
                label for="tags" { "Tags" }
                input #tags name="tags" value=(q.tags) placeholder="all of: a, b";
            }
            div.field {
                label for="source" { "Source" }
                input #source name="source" value=(q.source) list="sources" placeholder="any of: manual, import";
                datalist #sources {
                    @for s in ["manual", "import", "ingest", "conversation", "consolidation", "import:mem0", "import:memori", "import:mememory", "import:memcord"] {
                        option value=(s) {}
                    }
                }
            }
            div.field {
                label for="since" { "Since" }
                input #since type="date" name="since" value=(q.since);
            }
            div.field {
                label for="until" { "Until" }
                input #until type="date" name="until" value=(q.until);
            }
            div.field {
                label for="sort" { "Order" }
                select #sort name="sort" {
                    @for (v, l) in [("", "newest"), ("updated", "recently updated"), ("accessed", "most used"), ("stale", "longest unused"), ("oldest", "oldest"), ("expiring", "expiring soonest"), ("id", "id")] {
                        option value=(v) selected[q.sort == v] { (l) }
                    }
                }
            }
            div.field.checks {
                label { input type="checkbox" name="expired" checked[q.expired.is_some()]; " expired" }
            }
            div.field {
                label for="superseded" { "Superseded" }
                select #superseded name="superseded" {
                    @for (v, l) in [("", "hidden"), ("include", "included"), ("only", "only")] {
                        option value=(v) selected[q.superseded == v || (v == "include" && q.superseded == "on")] { (l) }
                    }
                }
            }
            div.field { button type="submit" { "Apply" } }
        }
    }
}

fn results(ui: &Ui, q: &BrowseQuery, found: &Found) -> Markup {
    let can_write = ui.may(Method::PATCH, "/v1/memories/x");
    let (rows, summary): (Vec<(&MemoryView, Option<&api::RecallHit>)>, Markup) = match found {
        Found::Listed(l) => (
            l.memories.iter().map(|m| (m, None)).collect(),
            html! {
                @if l.total == 0 { "No memories match." }
                @else { (l.offset + 1) "–" (l.offset + l.memories.len()) " of " (l.total) " (scope: " (l.scope) ")" }
            },
        ),
        Found::Searched(r) => (
            r.results.iter().map(|h| (&h.memory, Some(h))).collect(),
            html! {
                @if r.results.is_empty() { "Nothing relevant is stored (scope: " (r.scope) ")." }
                @else { (r.results.len()) " results, best first (scope: " (r.scope) "); each score's factors below its row" }
                @if let Some(w) = r.rerank.as_ref().and_then(|x| x.warning()) { ". Note: " (w) }
            },
        ),
    };
    let searching = matches!(found, Found::Searched(_));
    html! {
        div #results {
            p.summary aria-live="polite" { (summary) }
            form method="post" action="/ui/memories/bulk" {
                (csrf_field(ui))
                @if can_write && !rows.is_empty() {
                    div.bulk {
                        label for="bulk-tag" { "Selected: " }
                        input #bulk-tag name="tag" placeholder="tag to add";
                        button type="submit" name="action" value="tag" { "Tag selected" }
                        button.danger type="submit" name="action" value="forget" { "Forget selected…" }
                    }
                }
                div.tablewrap {
                    table.memories {
                        thead {
                            tr {
                                @if can_write { th scope="col" { input #select-all type="checkbox" aria-label="Select every row"; } }
                                th scope="col" { "Id" }
                                th scope="col" { "Type" }
                                th scope="col" { "Project" }
                                th scope="col" { "Tags" }
                                th scope="col" { "Content" }
                                @if searching { th scope="col" { "Score" } }
                                th scope="col" .n { "Imp." }
                                th scope="col" .n { "Weight" }
                                th scope="col" .n { "Uses" }
                                th scope="col" { "Updated" }
                            }
                        }
                        tbody {
                            @for (m, hit) in &rows {
                                tr.row data-href=(format!("/ui/memories/{}", m.id())) .superseded[m.record.superseded_by.is_some()] {
                                    @if can_write { td { input type="checkbox" name="ids" value=(m.id()) aria-label=(format!("Select {}", m.short_id)); } }
                                    td.idcell { a href=(format!("/ui/memories/{}", m.id())) { code { (m.short_id) } } }
                                    td { (m.record.kind.as_deref().unwrap_or("")) }
                                    td { (m.record.project.as_deref().unwrap_or("global")) }
                                    td.tags { @for t in &m.record.tags { span.tag { (t) } " " } }
                                    td.content { (excerpt(&m.record.content, 140)) }
                                    @if let Some(h) = hit { td.score { (explain(h, q)) } }
                                    td.n { (num(m.record.importance.unwrap_or(0.0), 2)) }
                                    td.n { (num(m.record.weight.unwrap_or(1.0), 2)) }
                                    td.n { (m.record.access_count.unwrap_or(0)) }
                                    td { (when(m.record.updated_at.as_deref())) }
                                }
                            }
                        }
                    }
                }
            }
            @if let Found::Listed(l) = found {
                nav.pager aria-label="Pages" {
                    @if l.offset > 0 { a href=(q.with_cursor(None)) { "First page" } }
                    @if let Some(next) = &l.next_cursor { a href=(q.with_cursor(Some(next))) rel="next" { "Next page" } }
                }
            }
        }
    }
}

/// A score's factors as bars (the `--explain` breakdown).
fn explain(hit: &api::RecallHit, _q: &BrowseQuery) -> Markup {
    let Some(e) = &hit.explain else {
        return html! { (num(hit.score, 4)) };
    };
    let rank = |r: Option<usize>| r.map_or("—".to_string(), |r| format!("#{r}"));
    // Each factor is drawn against its own range: multipliers around 1,
    // fusion against the best possible (two lists, both first).
    use cairn_core::rank::{KEYWORD_WEIGHT, RRF_K, TIME_MATCH_BOOST, VECTOR_WEIGHT};
    let best_fusion = (KEYWORD_WEIGHT + VECTOR_WEIGHT) / (RRF_K + 1.0);
    let rows: [(&str, f64, f64, String); 11] = [
        (
            "relevance",
            e.relevance.unwrap_or(0.0),
            1.0,
            e.relevance.map_or("—".into(), |r| num(r, 2)),
        ),
        (
            "term share",
            e.term_share.unwrap_or(0.0),
            1.0,
            e.term_share.map_or("—".into(), |s| num(s, 2)),
        ),
        (
            "cosine",
            e.cosine.unwrap_or(0.0).max(0.0),
            1.0,
            e.cosine.map_or("—".into(), |c| num(c, 3)),
        ),
        ("fusion", e.rrf, best_fusion, num(e.rrf, 4)),
        ("boost", e.boost, 2.0, num(e.boost, 3)),
        ("decay", e.decay, 1.0, num(e.decay, 3)),
        ("scope", e.scope_weight, 1.0, num(e.scope_weight, 2)),
        ("weight", e.weight, 2.0, num(e.weight, 2)),
        ("entities", e.entities, 2.0, num(e.entities, 2)),
        ("time", e.time, 1.0 + TIME_MATCH_BOOST, num(e.time, 2)),
        ("score", e.score, best_fusion, num(e.score, 4)),
    ];
    html! {
        details.explain {
            summary { (num(hit.score, 4)) " " span.hint { (format!("{:?}", hit.matched).to_lowercase()) } }
            dl {
                dt { "BM25 rank" } dd { (rank(e.bm25_rank)) @if let Some(s) = e.bm25_score { " (" (num(s, 2)) ")" } }
                dt { "vector rank" } dd { (rank(e.vector_rank)) }
                @if !e.matched_terms.is_empty() { dt { "matched terms" } dd { (e.matched_terms.join(", ")) } }
                @for (name, value, max, text) in rows {
                    dt { (name) }
                    dd { meter min="0" max=(max) value=(value.min(max)) aria-label=(format!("{name} {text}")) {} " " (text) }
                }
            }
        }
    }
}

/// Parse a form body with repeated fields (`ids=a&ids=b`).
fn fields(body: &Bytes) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// `POST /ui/memories/bulk`: tag the selected memories (`PATCH
/// /v1/memories`, one call), or forget them (`DELETE /v1/memories?ids=…`)
/// once the count is confirmed.
pub(crate) async fn bulk(State(state): State<AppState>, ui: Ui, body: Bytes) -> Page {
    let fields = fields(&body);
    let ids: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "ids")
        .map(|(_, v)| v.clone())
        .collect();
    if ids.is_empty() {
        return Err(cairn_core::Error::invalid("select at least one memory first").into());
    }
    match field(&fields, "action") {
        Some("tag") => {
            ui.require(Method::PATCH, "/v1/memories")?;
            let tag = field(&fields, "tag").unwrap_or("").trim().to_string();
            let input = api::TagInput {
                ids,
                add_tags: vec![tag.clone()],
                remove_tags: Vec::new(),
            };
            let out = run(&state, &ui, move |c, caller| api::tag(c, caller, input)).await?;
            let body = html! {
                p role="status" {
                    "Tagged " (out.tagged) " memories with “" (tag) "”."
                    @if out.unchanged > 0 { " " (out.unchanged) " had it already." }
                }
                p { a href="/ui/memories" { "Back to the memories" } }
            };
            Ok(page(&ui, "/ui/memories", "Tagged", body).into_response())
        }
        Some("forget") | Some("confirm-forget") => {
            ui.require(Method::DELETE, "/v1/memories")?;
            if field(&fields, "action") == Some("forget") {
                let shown = ids.clone();
                let memories = run(&state, &ui, move |c, caller| {
                    shown
                        .iter()
                        .map(|id| {
                            c.peek(&caller.tenant, id)
                                .and_then(|m| MemoryView::of(c, &caller.tenant, &m))
                        })
                        .collect::<cairn_core::Result<Vec<_>>>()
                })
                .await?;
                let body = html! {
                    p role="alert" { "Forget " strong { (memories.len()) " memories" } "? Their receipts stay in the history; the memories do not." }
                    ul { @for m in &memories { li { code { (m.short_id) } " " (excerpt(&m.record.content, 100)) } } }
                    form method="post" action="/ui/memories/bulk" {
                        (csrf_field(&ui))
                        @for m in &memories { input type="hidden" name="ids" value=(m.id()); }
                        button.danger type="submit" name="action" value="confirm-forget" { "Forget " (memories.len()) " memories" }
                        " " a href="/ui/memories" { "Cancel" }
                    }
                };
                return Ok(page(&ui, "/ui/memories", "Confirm", body).into_response());
            }
            let out = run(&state, &ui, move |c, caller| {
                api::forget(
                    c,
                    caller,
                    ForgetInput {
                        ids,
                        ..Default::default()
                    },
                )
            })
            .await?;
            let body = html! {
                p role="status" { "Forgot " (out.forgotten) " memories." }
                p { a href="/ui/memories" { "Back to the memories" } }
            };
            Ok(page(&ui, "/ui/memories", "Forgotten", body).into_response())
        }
        _ => Err(cairn_core::Error::invalid("unknown action").into()),
    }
}
