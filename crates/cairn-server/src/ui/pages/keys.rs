//! API keys (admin): make, list, revoke.

use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::IntoResponse;
use axum::Form;
use cairn_core::api::oauth::{self, GrantView};
use cairn_core::api::{self, CreateKeyInput};
use cairn_core::keys::Role;
use maud::{html, Markup};
use serde::Deserialize;

use super::{see_other, Page};
use crate::ui::render::{csrf_field, page, when};
use crate::ui::Ui;
use crate::AppState;

/// `GET /ui/keys` (admin): `GET /v1/keys?tenant=` of the signed-in
/// key's tenant (the UI, unlike REST, manages no other tenant's keys),
/// and the tenant's OAuth grants, each with a revoke button.
pub(crate) async fn keys(State(state): State<AppState>, ui: Ui) -> Page {
    ui.require(Method::GET, "/v1/keys")?;
    keys_page(&state, &ui, None).await
}

/// The OAuth grants of the signed-in key's tenant.
async fn tenant_grants(state: &AppState, ui: &Ui) -> Result<Vec<GrantView>, crate::ui::UiError> {
    let tenant = ui.who.tenant.clone();
    Ok(cairn_mcp::on_engine(&state.cairn, move |c| oauth::list_grants(c, &tenant)).await?)
}

fn grants_section(ui: &Ui, grants: &[GrantView]) -> Markup {
    html! {
        section {
            h2 { "Signed-in apps (OAuth)" }
            @if grants.is_empty() {
                p.hint { "No MCP client has been given access by signing in." }
            } @else {
                div.tablewrap {
                    table.grants {
                        thead { tr { th scope="col" { "Client" } th scope="col" { "Tenant" } th scope="col" { "Project" } th scope="col" { "Role" } th scope="col" { "Given by" } th scope="col" { "Status" } th scope="col" { "Given" } th scope="col" { "Last used" } th scope="col" { span.sr { "Actions" } } } }
                        tbody {
                            @for g in grants {
                                tr {
                                    td { (g.client_name.as_deref().unwrap_or("unnamed")) br; code { (g.id) } }
                                    td { (g.tenant) }
                                    td { (g.project.as_deref().unwrap_or("")) }
                                    td { (g.role.as_str()) }
                                    td { code { (g.granted_by) } }
                                    td { (g.status) }
                                    td { (when(Some(&g.created_at))) }
                                    td { (when(g.last_used_at.as_deref())) }
                                    td {
                                        @if g.status == "active" {
                                            form method="post" action=(format!("/ui/keys/grants/{}/revoke", g.id)) data-confirm=(format!("Revoke the access of {}? Its tokens stop working at once.", g.client_name.as_deref().unwrap_or("this client"))) {
                                                (csrf_field(ui))
                                                button.danger type="submit" aria-label=(format!("Revoke grant {}", g.id)) { "Revoke" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `POST /ui/keys/grants/{id}/revoke` (admin): the grant's tokens stop
/// at once; a grant of the signed-in key's own tenant only.
pub(crate) async fn revoke_grant(
    State(state): State<AppState>,
    ui: Ui,
    Path(id): Path<String>,
) -> Page {
    ui.require(Method::DELETE, "/v1/keys/x")?;
    let tenant = ui.who.tenant.clone();
    cairn_mcp::on_engine(&state.cairn, move |c| oauth::revoke_grant(c, &tenant, &id)).await?;
    Ok(see_other("/ui/keys"))
}

async fn keys_page(state: &AppState, ui: &Ui, made: Option<api::CreatedKey>) -> Page {
    let tenant = ui.who.tenant.clone();
    let keys =
        cairn_mcp::on_engine(&state.cairn, move |c| api::list_keys(c, Some(&tenant))).await?;
    let grants = grants_section(ui, &tenant_grants(state, ui).await?);
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
        (grants)
    };
    Ok(page(ui, "/ui/keys", "Keys", body).into_response())
}

/// The form that makes a key (for the signed-in key's own tenant).
#[derive(Deserialize)]
pub(crate) struct KeyForm {
    role: String,
    #[serde(default)]
    label: String,
    #[serde(default)]
    expires: String,
}

/// `POST /ui/keys` (admin): `POST /v1/keys`; the key is shown this once.
pub(crate) async fn create_key(
    State(state): State<AppState>,
    ui: Ui,
    Form(f): Form<KeyForm>,
) -> Page {
    ui.require(Method::POST, "/v1/keys")?;
    let input = CreateKeyInput {
        tenant: Some(ui.who.tenant.clone()),
        role: f.role,
        expires: (!f.expires.trim().is_empty()).then(|| f.expires.trim().to_string()),
        label: (!f.label.trim().is_empty()).then(|| f.label.trim().to_string()),
    };
    let made = cairn_mcp::on_engine(&state.cairn, move |c| api::create_key(c, input)).await?;
    keys_page(&state, &ui, Some(made)).await
}

/// `POST /ui/keys/{id}/revoke` (admin): `DELETE /v1/keys/{id}`, for a
/// key of the signed-in key's own tenant.
pub(crate) async fn revoke_key(
    State(state): State<AppState>,
    ui: Ui,
    Path(id): Path<String>,
) -> Page {
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
