//! The overview: counts, growth, most used, newest, expiring soon,
//! superseded, rate-limit rejections.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use cairn_core::api::{self, ListInput, MemoryView, Selection};
use maud::{html, Markup};

use super::Page;
use crate::ui::render::{excerpt, page, when};
use crate::ui::{run, Ui};
use crate::AppState;

/// `GET /ui`: counts (`GET /v1/stats`); the most used, newest, soonest
/// to expire and latest superseded memories (`GET
/// /v1/memories?sort=accessed|newest|expiring`, `…?only_superseded=true&sort=updated`).
pub(crate) async fn overview(State(state): State<AppState>, ui: Ui) -> Page {
    let (stats, used, newest, expiring, superseded) = run(&state, &ui, |c, caller| {
        let top = |sort: &str, only_superseded: bool| {
            api::list(
                c,
                caller,
                ListInput {
                    selection: Selection {
                        all_projects: true,
                        only_superseded,
                        ..Default::default()
                    },
                    sort: Some(sort.into()),
                    limit: Some(8),
                    ..Default::default()
                },
            )
        };
        let mut expiring = top("expiring", false)?.memories;
        expiring.retain(|m| m.record.expires_at.is_some());
        Ok((
            api::stats(c, caller)?,
            top("accessed", false)?.memories,
            top("newest", false)?.memories,
            expiring,
            top("updated", true)?.memories,
        ))
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
            section {
                h2 { "By tier" }
                p.hint { "Episodic: events · semantic: knowledge · procedural: how to act · working: task state" }
                (bars(&stats.by_tier))
                h2 { "By project" } (bars(&stats.by_project))
            }
        }
        div.grid2 {
            section { h2 { "Most recalled" } (mini_list(&used, Note::Uses)) }
            section { h2 { "Recently written" } (mini_list(&newest, Note::Created)) }
        }
        div.grid2 {
            section {
                h2 { "Expiring soon" }
                (mini_list(&expiring, Note::Expires))
                p.hint { a href="/ui/memories?sort=expiring" { "Every memory by expiry" } }
            }
            section {
                h2 { "Superseded" }
                (mini_list(&superseded, Note::SupersededBy))
                p.hint { a href="/ui/memories?superseded=only&sort=updated" { "Every superseded memory" } }
            }
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
pub(crate) async fn growth_page(State(state): State<AppState>, ui: Ui, headers: HeaderMap) -> Page {
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

/// What a short list says beside each memory.
#[derive(Clone, Copy)]
enum Note {
    Uses,
    Created,
    Expires,
    SupersededBy,
}

fn mini_list(memories: &[MemoryView], note: Note) -> Markup {
    html! {
        @if memories.is_empty() { p.hint { "None." } }
        ol.mini {
            @for m in memories {
                @let r = &m.record;
                li {
                    a href=(format!("/ui/memories/{}", m.id())) { code { (m.short_id) } }
                    " " (excerpt(&r.content, 80))
                    span.hint {
                        " · "
                        @match note {
                            Note::Uses => { (cairn_core::api::plural(r.access_count.unwrap_or(0) as usize, "use", "uses")) }
                            Note::Created => { (when(r.created_at.as_deref())) }
                            Note::Expires => { "expires " (when(r.expires_at.as_deref())) }
                            Note::SupersededBy => {
                                "by "
                                @if let Some(by) = &r.superseded_by {
                                    a href=(format!("/ui/memories/{by}")) { code { (by.get(..13).unwrap_or(by)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
