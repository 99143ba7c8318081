//! The UI's pages and actions. Each one parses its form or query, calls
//! `cairn_core::api` (the call the REST route named beside it makes) and
//! renders the answer; nothing here decides what a query means.

use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use cairn_core::api::{
    self, CreateKeyInput, ForgetInput, ListInput, MemoryView, RecallInput, RememberInput,
    RevertInput, Selection, UpdateInput,
};
use cairn_core::keys::Role;
use cairn_core::{ErrorKind, MemoryType};
use maud::{html, Markup};
use serde::Deserialize;

use super::render::{self, csrf_field, excerpt, num, page, when};
use super::{run, session, Ui, UiError};
use crate::rest::{QueryParams, Who};
use crate::{AppState, Auth};

/// Rows of a page of the memory browser.
pub const PAGE_ROWS: usize = 50;

type Page = Result<Response, UiError>;

fn see_other(to: &str) -> Response {
    Redirect::to(to).into_response()
}

// ---------------------------------------------------------------- sign in

/// `GET /ui/login`.
pub async fn login_page(State(state): State<AppState>) -> Response {
    if state.auth == Auth::Open {
        return see_other("/ui");
    }
    login_form(StatusCode::OK, None)
}

fn login_form(status: StatusCode, error: Option<&str>) -> Response {
    let body = html! {
        @if let Some(e) = error { p.error role="alert" { (e) } }
        form.stack method="post" action="/ui/login" {
            label for="key" { "API key" }
            input #key type="password" name="key" autocomplete="off" required autofocus;
            button type="submit" { "Sign in" }
        }
        p.hint { "Make a key with " code { "cairn keys create --tenant NAME --role read|write|admin" } ". The key stays on the server; the browser keeps only a session cookie." }
    };
    (status, render::bare("Sign in", body)).into_response()
}

/// The sign-in form.
#[derive(Deserialize)]
pub struct LoginForm {
    key: String,
}

/// `POST /ui/login`: the key is checked as REST checks it; a session
/// starts.
pub async fn login(State(state): State<AppState>, Form(form): Form<LoginForm>) -> Response {
    if state.auth == Auth::Open {
        return see_other("/ui");
    }
    let key = form.key.trim().to_string();
    let checked = key.clone();
    let who = cairn_mcp::on_engine(&state.cairn, move |c| api::authenticate(c, &checked)).await;
    match who {
        Ok(_) => {
            let id = state.sessions.create(key);
            (
                StatusCode::SEE_OTHER,
                [
                    (header::LOCATION, "/ui".to_string()),
                    (header::SET_COOKIE, session::set_cookie(&id)),
                ],
            )
                .into_response()
        }
        Err(e) if e.kind() == ErrorKind::Unauthenticated => login_form(
            StatusCode::UNAUTHORIZED,
            Some("That key is not valid (unknown, revoked or expired)."),
        ),
        Err(e) => UiError::from(e).into_response(),
    }
}

/// `POST /ui/logout`.
pub async fn logout(State(state): State<AppState>, headers: HeaderMap, _ui: Ui) -> Response {
    if let Some(id) = session::cookie(&headers) {
        state.sessions.end(id);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, "/ui/login".to_string()),
            (header::SET_COOKIE, session::clear_cookie()),
        ],
    )
        .into_response()
}

/// Any other path under `/ui`.
pub async fn not_found() -> UiError {
    UiError::from(cairn_core::Error::NotFound("no such page".into()))
}

// --------------------------------------------------------------- overview

/// `GET /ui`: counts (`GET /v1/stats`), the most used and the newest
/// memories (`GET /v1/memories?sort=…`).
pub async fn overview(State(state): State<AppState>, ui: Ui) -> Page {
    let (stats, used, newest) = run(&state, &ui, |c, caller| {
        let top = |sort: &str| {
            api::list(
                c,
                caller,
                ListInput {
                    selection: Selection {
                        all_projects: true,
                        ..Default::default()
                    },
                    sort: Some(sort.into()),
                    limit: Some(8),
                    ..Default::default()
                },
            )
        };
        Ok((api::stats(c, caller)?, top("accessed")?, top("newest")?))
    })
    .await?;
    let rejected = state.metrics.rate_limited_counts();
    let bars = |map: &serde_json::Map<String, serde_json::Value>| {
        let max = map
            .values()
            .filter_map(|v| v.as_u64())
            .max()
            .unwrap_or(1)
            .max(1);
        html! {
            table.counts {
                @for (k, v) in map {
                    tr {
                        th scope="row" { (k) }
                        td { meter min="0" max=(max) value=(v.as_u64().unwrap_or(0)) title=(v) {} }
                        td.n { (v) }
                    }
                }
            }
        }
    };
    let body = html! {
        section.cards aria-label="Totals" {
            div.card { span.big { (stats.total) } " memories" }
            div.card { span.big { (stats.superseded) } " superseded" }
            div.card { span.big { (stats.expired) } " expired" }
            div.card { span.big { (stats.size_bytes.map(|b| format!("{:.1} MB", b as f64 / 1e6)).unwrap_or_else(|| "—".into())) } " on disk" }
            div.card { span.big.small { (stats.model.clone().unwrap_or_else(|| "—".into())) } " model" }
        }
        section {
            h2 { "Growth" }
            // Thirteen counts of the whole store: fetched after the page.
            div #growth hx-get="/ui/growth" hx-trigger="load" hx-swap="innerHTML" {
                p.hint { a href="/ui/growth" { "Memories over time" } " (loading…)" }
            }
        }
        div.grid2 {
            section { h2 { "By type" } (bars(&stats.by_type)) }
            section { h2 { "By project" } (bars(&stats.by_project)) }
        }
        div.grid2 {
            section { h2 { "Most recalled" } (mini_list(&used.memories, true)) }
            section { h2 { "Recently written" } (mini_list(&newest.memories, false)) }
        }
        section {
            h2 { "Rate-limit rejections" }
            p { @for (class, n) in rejected { (class) ": " strong { (n) } "  " } span.hint { "(every key, since the server started)" } }
        }
    };
    Ok(page(&ui, "/ui", "Overview", body).into_response())
}

/// `GET /ui/growth`: the overview's growth chart (a fragment for htmx, a
/// page otherwise).
pub async fn growth_page(State(state): State<AppState>, ui: Ui, headers: HeaderMap) -> Page {
    let points = run(&state, &ui, |c, caller| {
        let oldest = api::stats(c, caller)?.oldest;
        growth(c, caller, oldest.as_deref())
    })
    .await?;
    let chart = growth_chart(&points);
    if headers.contains_key("hx-request") {
        return Ok(chart.into_response());
    }
    Ok(page(&ui, "/ui", "Growth", chart).into_response())
}

/// Points of the growth chart: how many memories (all projects, expired
/// and superseded included) were created before each of 12 equal steps
/// from the oldest memory to now, each a `GET /v1/memories?until=…`
/// total.
fn growth(
    c: &cairn_core::Cairn,
    caller: &cairn_core::api::Caller,
    oldest: Option<&str>,
) -> cairn_core::Result<Vec<(String, usize)>> {
    const STEPS: i64 = 12;
    let Some(oldest) = oldest else {
        return Ok(Vec::new());
    };
    let start = cairn_core::time::parse_timestamp(oldest)?;
    let now = c.now();
    let span = (now - start).max(STEPS);
    (1..=STEPS)
        .map(|i| {
            let end = start + span * i / STEPS + 1;
            let until = cairn_core::time::format_timestamp(end);
            let input = ListInput {
                selection: Selection {
                    all_projects: true,
                    include_expired: true,
                    include_superseded: true,
                    until: Some(until.clone()),
                    ..Default::default()
                },
                limit: Some(1),
                ..Default::default()
            };
            Ok((until, api::list(c, caller, input)?.total))
        })
        .collect()
}

/// The growth points as an SVG bar chart (no script, no inline style).
fn growth_chart(points: &[(String, usize)]) -> Markup {
    if points.is_empty() {
        return html! { p.hint { "No memories yet." } };
    }
    let max = points.iter().map(|p| p.1).max().unwrap_or(1).max(1) as f64;
    let (w, h, gap) = (600.0, 140.0, 6.0);
    let bar = w / points.len() as f64;
    let label = format!(
        "Memories over time: {} on {}, {} on {}",
        points[0].1,
        points[0].0.get(..10).unwrap_or(""),
        points[points.len() - 1].1,
        points[points.len() - 1].0.get(..10).unwrap_or("")
    );
    html! {
        figure.chart {
            svg viewBox=(format!("0 0 {w} {}", h + 20.0)) role="img" aria-label=(label) {
                title { (label) }
                @for (i, (until, n)) in points.iter().enumerate() {
                    @let height = (*n as f64 / max * h).max(1.0);
                    rect.bar x=(format!("{:.1}", i as f64 * bar + gap / 2.0)) y=(format!("{:.1}", h - height)) width=(format!("{:.1}", bar - gap)) height=(format!("{height:.1}")) {
                        title { (n) " memories before " (until.get(..16).unwrap_or(until).replace('T', " ")) }
                    }
                }
                text.axis x="0" y=(h + 16.0) { (points[0].0.get(..10).unwrap_or("")) }
                text.axis x=(w) y=(h + 16.0) text-anchor="end" { (points[points.len() - 1].0.get(..10).unwrap_or("")) }
            }
            figcaption.hint { (points[points.len() - 1].1) " memories now; each bar: those created before its date" }
        }
    }
}

fn mini_list(memories: &[MemoryView], accesses: bool) -> Markup {
    html! {
        @if memories.is_empty() { p.hint { "None yet." } }
        ol.mini {
            @for m in memories {
                li {
                    a href=(format!("/ui/memories/{}", m.id())) { code { (m.short_id) } }
                    " " (excerpt(&m.record.content, 80))
                    span.hint { " · " @if accesses { (m.record.access_count.unwrap_or(0)) " uses" } @else { (when(m.record.created_at.as_deref())) } }
                }
            }
        }
    }
}

// ---------------------------------------------------------- memory browser

/// The browser's filters and search, as its form sends them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct BrowseQuery {
    q: String,
    mode: String,
    project: String,
    #[serde(rename = "type")]
    kind: String,
    tags: String,
    since: String,
    until: String,
    sort: String,
    expired: Option<String>,
    superseded: Option<String>,
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
            since: (!self.since.is_empty()).then(|| self.since.clone()),
            until: (!self.until.is_empty()).then(|| self.until.clone()),
            include_expired: self.expired.is_some(),
            include_superseded: self.superseded.is_some(),
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
            ("since", &self.since),
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
        if self.superseded.is_some() {
            q.append_pair("superseded", "on");
        }
        if let Some(c) = cursor {
            q.append_pair("cursor", c);
        }
        format!("/ui/memories?{}", q.finish())
    }
}

fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// What the browser shows: a page of a listing, or search results.
enum Found {
    Listed(api::ListOutput),
    Searched(api::RecallOutput),
}

/// `GET /ui/memories`: a page of `GET /v1/memories`, or with `q` the
/// results of `POST /v1/recall` with `explain`.
pub async fn browser(State(state): State<AppState>, ui: Ui, Query(q): Query<BrowseQuery>) -> Page {
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
                    @for (v, l) in [("", "newest"), ("updated", "recently updated"), ("accessed", "most used"), ("stale", "longest unused"), ("oldest", "oldest"), ("id", "id")] {
                        option value=(v) selected[q.sort == v] { (l) }
                    }
                }
            }
            div.field.checks {
                label { input type="checkbox" name="expired" checked[q.expired.is_some()]; " expired" }
                label { input type="checkbox" name="superseded" checked[q.superseded.is_some()]; " superseded" }
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
            html! { (r.results.len()) " results, best first (scope: " (r.scope) "); each score's factors below its row" },
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
    let rows: [(&str, f64, f64, String); 8] = [
        (
            "cosine",
            e.cosine.unwrap_or(0.0).max(0.0),
            1.0,
            e.cosine.map_or("—".into(), |c| num(c, 3)),
        ),
        ("fusion", e.rrf, 2.0 / 61.0, num(e.rrf, 4)),
        ("boost", e.boost, 2.0, num(e.boost, 3)),
        ("decay", e.decay, 1.0, num(e.decay, 3)),
        ("scope", e.scope_weight, 1.0, num(e.scope_weight, 2)),
        ("weight", e.weight, 2.0, num(e.weight, 2)),
        ("entities", e.entities, 2.0, num(e.entities, 2)),
        ("score", e.score, 2.0 / 61.0, num(e.score, 4)),
    ];
    html! {
        details.explain {
            summary { (num(hit.score, 4)) " " span.hint { (format!("{:?}", hit.matched).to_lowercase()) } }
            dl {
                dt { "BM25 rank" } dd { (rank(e.bm25_rank)) @if let Some(s) = e.bm25_score { " (" (num(s, 2)) ")" } }
                dt { "vector rank" } dd { (rank(e.vector_rank)) }
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
/// /v1/memories/{id}` each, `add_tags`), or forget them (`DELETE
/// /v1/memories?ids=…`) once the count is confirmed.
pub async fn bulk(State(state): State<AppState>, ui: Ui, body: Bytes) -> Page {
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
            ui.require(Method::PATCH, "/v1/memories/x")?;
            let tag = field(&fields, "tag").unwrap_or("").trim().to_string();
            if tag.is_empty() {
                return Err(cairn_core::Error::invalid("give a tag to add").into());
            }
            let n = ids.len();
            let t = tag.clone();
            run(&state, &ui, move |c, caller| {
                for id in &ids {
                    let input = UpdateInput {
                        add_tags: vec![t.clone()],
                        ..Default::default()
                    };
                    api::update(c, caller, id, input)?;
                }
                Ok(())
            })
            .await?;
            let body = html! {
                p role="status" { "Tagged " (n) " memories with “" (tag) "”." }
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

// ------------------------------------------------------------ memory page

/// `GET /ui/memories/{id}`: the memory (`GET /v1/memories/{id}`), its
/// history (`…/history`), and the forms that change it.
pub async fn memory(State(state): State<AppState>, ui: Ui, Path(id): Path<String>) -> Page {
    let (m, history, similar) = run(&state, &ui, move |c, caller| {
        let history = api::history(c, caller, &id)?;
        if history.versions.is_empty() {
            return Ok((None, history, None));
        }
        let m = api::get(c, caller, &history.id)?;
        let similar = api::similar(c, caller, &history.id, api::SimilarInput { limit: Some(8) })?;
        Ok((Some(m), history, Some(similar)))
    })
    .await?;
    let Some(m) = m else {
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
        @if let Some(by) = &r.superseded_by {
            p.notice role="note" { "Superseded by " a href=(format!("/ui/memories/{by}")) { code { (by) } } }
        }
        @if let Some(old) = &r.supersedes {
            p.notice role="note" { "Supersedes " a href=(format!("/ui/memories/{old}")) { code { (old) } } }
        }
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
                    dt { "valid" } dd { (when(r.valid_from.as_deref())) " → " (when(r.valid_to.as_deref())) }
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
        @if let Some(similar) = &similar {
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
pub struct EditForm {
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
pub async fn edit(
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
pub struct RevertForm {
    version: u32,
}

/// `POST /ui/memories/{id}/revert`: `POST /v1/memories/{id}/revert`.
pub async fn revert(
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
pub struct SupersedeForm {
    content: String,
}

/// `POST /ui/memories/{id}/supersede`: `POST /v1/memories` with
/// `supersedes`.
pub async fn supersede(
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
pub async fn forget(State(state): State<AppState>, ui: Ui, Path(id): Path<String>) -> Page {
    ui.require(Method::DELETE, "/v1/memories/x")?;
    let input = ForgetInput {
        ids: vec![id.clone()],
        ..Default::default()
    };
    run(&state, &ui, move |c, caller| api::forget(c, caller, input)).await?;
    Ok(see_other(&format!("/ui/memories/{id}")))
}

// --------------------------------------------------------------- activity

/// `GET /ui/activity`: `GET /v1/activity`, and for admins the keys' last
/// use (`GET /v1/keys`).
pub async fn activity(State(state): State<AppState>, ui: Ui) -> Page {
    let out = run(&state, &ui, |c, caller| {
        api::activity(c, caller, api::ActivityInput { limit: Some(100) })
    })
    .await?;
    let keys = match ui.may(Method::GET, "/v1/keys") {
        true => {
            let tenant = ui.who.tenant.clone();
            cairn_mcp::on_engine(&state.cairn, move |c| api::list_keys(c, Some(&tenant))).await?
        }
        false => Vec::new(),
    };
    let body = html! {
        p.summary { "The latest " (out.entries.len()) " changes and deletions of tenant " strong { (ui.who.tenant) } "'s memories, newest first." }
        div.tablewrap {
            table.activity {
                thead { tr { th scope="col" { "When" } th scope="col" { "Who" } th scope="col" { "Change" } th scope="col" { "Memory" } th scope="col" { "What" } } }
                tbody {
                    @for e in &out.entries {
                        tr {
                            td { (when(Some(&e.at))) }
                            td { code { (e.actor) } }
                            td { (e.change) @if let Some(v) = e.version { " (v" (v) ")" } }
                            td { a href=(format!("/ui/memories/{}", e.id)) { code { (e.id.get(..13).unwrap_or(&e.id)) } } }
                            td {
                                @if let Some(c) = &e.content { (excerpt(c, 100)) }
                                @if let Some(r) = &e.reason { " " span.hint { (r) } }
                            }
                        }
                    }
                }
            }
        }
    };
    let body = html! {
        (body)
        @if !keys.is_empty() {
            section {
                h2 #key-use { "Key use" }
                div.tablewrap tabindex="0" role="region" aria-labelledby="key-use" {
                    table {
                        thead { tr { th scope="col" { "Key" } th scope="col" { "Role" } th scope="col" { "Label" } th scope="col" { "Status" } th scope="col" { "Last used" } } }
                        tbody {
                            @for k in &keys {
                                tr { td { code { (k.id) } } td { (k.role.as_str()) } td { (k.label.as_deref().unwrap_or("")) } td { (k.status) } td { (when(k.last_used_at.as_deref())) } }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(page(&ui, "/ui/activity", "Activity", body).into_response())
}

// -------------------------------------------------------- the agent's view

/// What to assemble.
#[derive(Debug, Deserialize)]
#[serde(default)]
pub struct AgentQuery {
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
pub async fn agent(State(state): State<AppState>, ui: Ui, Query(q): Query<AgentQuery>) -> Page {
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

// --------------------------------------------------------- import / export

/// `GET /ui/transfer`.
pub async fn transfer(ui: Ui) -> Page {
    let can_write = ui.may(Method::POST, "/v1/import");
    let body = html! {
        section {
            h2 { "Export" }
            p { "Every memory of tenant " strong { (ui.who.tenant) } " as JSON Lines (what import and " code { "cairn import" } " read)." }
            p { a.button #export href="/ui/export" download="cairn-export.jsonl" { "Download the export" } }
        }
        @if can_write {
            section {
                h2 { "Import" }
                form #import.stack method="post" action="/ui/import" enctype="application/x-ndjson" {
                    label for="import-file" { "JSON Lines file (one memory a line)" }
                    input #import-file type="file" name="file" accept=".jsonl,.ndjson,.json,application/x-ndjson" required;
                    button type="submit" { "Import" }
                }
                progress #import-progress max="100" value="0" hidden aria-label="Import progress" {}
                div #import-result aria-live="polite" {}
            }
        }
    };
    Ok(page(&ui, "/ui/transfer", "Import / export", body).into_response())
}

/// `GET /ui/export`: `GET /v1/export`, as a download.
pub async fn export(State(state): State<AppState>, ui: Ui) -> Response {
    let mut response = crate::rest::transfer::export(
        State(state),
        Who(ui.who),
        QueryParams(crate::rest::transfer::ExportInput::default()),
    )
    .await;
    response.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_static("attachment; filename=\"cairn-export.jsonl\""),
    );
    response
}

/// `POST /ui/import` (the body: JSON Lines, sent by the page's script):
/// `POST /v1/import?progress=true`, answered as it answers.
pub async fn import(State(state): State<AppState>, ui: Ui, request: Request) -> Page {
    ui.require(Method::POST, "/v1/import")?;
    Ok(crate::rest::transfer::import(
        State(state),
        Who(ui.who),
        QueryParams(crate::rest::transfer::ImportInput {
            strict: false,
            progress: true,
        }),
        request,
    )
    .await?)
}

// ------------------------------------------------------------------- keys

/// `GET /ui/keys` (admin): `GET /v1/keys?tenant=` of the signed-in
/// key's tenant (the UI, unlike REST, manages no other tenant's keys).
pub async fn keys(State(state): State<AppState>, ui: Ui) -> Page {
    ui.require(Method::GET, "/v1/keys")?;
    keys_page(&state, &ui, None).await
}

async fn keys_page(state: &AppState, ui: &Ui, made: Option<api::CreatedKey>) -> Page {
    let tenant = ui.who.tenant.clone();
    let keys =
        cairn_mcp::on_engine(&state.cairn, move |c| api::list_keys(c, Some(&tenant))).await?;
    let body = html! {
        @if let Some(k) = &made {
            section.notice role="status" {
                h2 { "Key made: copy it now, it is not shown again" }
                p { code #new-key { (k.key) } " " button type="button" data-copy="new-key" { "Copy" } }
                p.hint { (k.tenant) " · " (k.role.as_str()) }
            }
        }
        section {
            h2 { "Make a key" }
            form.filters method="post" action="/ui/keys" {
                (csrf_field(ui))
                p.hint { "For tenant " strong { (ui.who.tenant) } " (keys of other tenants: " code { "POST /v1/keys" } " or " code { "cairn keys" } ")." }
                div.field { label for="k-role" { "Role" }
                    select #k-role name="role" { @for r in Role::ALL { option value=(r.as_str()) selected[r == Role::Read] { (r.as_str()) } } } }
                div.field { label for="k-label" { "Label" } input #k-label name="label"; }
                div.field { label for="k-expires" { "Expires after" } input #k-expires name="expires" placeholder="e.g. 90d; empty: never"; }
                div.field { button type="submit" { "Make key" } }
            }
        }
        section {
            h2 { "Keys" }
            div.tablewrap {
                table.keys {
                    thead { tr { th scope="col" { "Id" } th scope="col" { "Tenant" } th scope="col" { "Role" } th scope="col" { "Label" } th scope="col" { "Status" } th scope="col" { "Made" } th scope="col" { "Last used" } th scope="col" { span.sr { "Actions" } } } }
                    tbody {
                        @for k in &keys {
                            tr {
                                td { code { (k.id) } }
                                td { (k.tenant) }
                                td { (k.role.as_str()) }
                                td { (k.label.as_deref().unwrap_or("")) }
                                td { (k.status) }
                                td { (when(Some(&k.created_at))) }
                                td { (when(k.last_used_at.as_deref())) }
                                td {
                                    @if k.status == "active" && k.id != ui.who.key_id {
                                        form method="post" action=(format!("/ui/keys/{}/revoke", k.id)) data-confirm=(format!("Revoke key {}? It stops working at once.", k.id)) {
                                            (csrf_field(ui))
                                            button.danger type="submit" aria-label=(format!("Revoke {}", k.id)) { "Revoke" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(page(ui, "/ui/keys", "Keys", body).into_response())
}

/// The form that makes a key (for the signed-in key's own tenant).
#[derive(Deserialize)]
pub struct KeyForm {
    role: String,
    #[serde(default)]
    label: String,
    #[serde(default)]
    expires: String,
}

/// `POST /ui/keys` (admin): `POST /v1/keys`; the key is shown this once.
pub async fn create_key(State(state): State<AppState>, ui: Ui, Form(f): Form<KeyForm>) -> Page {
    ui.require(Method::POST, "/v1/keys")?;
    let input = CreateKeyInput {
        tenant: ui.who.tenant.clone(),
        role: f.role,
        expires: (!f.expires.trim().is_empty()).then(|| f.expires.trim().to_string()),
        label: (!f.label.trim().is_empty()).then(|| f.label.trim().to_string()),
    };
    let made = cairn_mcp::on_engine(&state.cairn, move |c| api::create_key(c, input)).await?;
    keys_page(&state, &ui, Some(made)).await
}

/// `POST /ui/keys/{id}/revoke` (admin): `DELETE /v1/keys/{id}`, for a
/// key of the signed-in key's own tenant.
pub async fn revoke_key(State(state): State<AppState>, ui: Ui, Path(id): Path<String>) -> Page {
    ui.require(Method::DELETE, "/v1/keys/x")?;
    let tenant = ui.who.tenant.clone();
    cairn_mcp::on_engine(&state.cairn, move |c| {
        if !api::list_keys(c, Some(&tenant))?.iter().any(|k| k.id == id) {
            return Err(cairn_core::Error::NotFound(format!("no key {id}")));
        }
        api::revoke_key(c, &id)
    })
    .await?;
    Ok(see_other("/ui/keys"))
}
