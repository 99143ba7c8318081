//! Activity: changes and deletions, and the keys' last use.

use axum::extract::State;
use axum::http::Method;
use axum::response::IntoResponse;
use cairn_core::api;
use maud::html;

use super::Page;
use crate::ui::render::{excerpt, page, when};
use crate::ui::{run, Ui};
use crate::AppState;

/// `GET /ui/activity`: `GET /v1/activity`, and for admins the keys' last
/// use (`GET /v1/keys`).
pub(crate) async fn activity(State(state): State<AppState>, ui: Ui) -> Page {
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
