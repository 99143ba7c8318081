//! The OAuth consent page (`/ui/oauth/authorize`): a signed-in user lets
//! an MCP client act for a tenant, with a role and a default project
//! (`cairn_core::api::oauth` checks the request and what the user may
//! grant; see [`crate::oauth`]).

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use cairn_core::api::oauth::{self as core, Authorization, AuthorizationRequest, Consent};
use cairn_core::api::Authenticated;
use cairn_core::keys::Role;
use maud::html;
use serde::Deserialize;

use crate::ui::render::{self, csrf_field, page};
use crate::ui::session::UiSession;
use crate::ui::{Ui, UiError, CSP};
use crate::{AppState, Auth};

/// Check the request; a refusal goes back to the client when its client
/// and redirect URI were valid, else it is shown here.
async fn checked(
    state: &AppState,
    headers: &HeaderMap,
    req: AuthorizationRequest,
) -> Result<Authorization, Response> {
    let resource = crate::oauth::resource_url(state, headers);
    let result = cairn_mcp::on_engine(&state.cairn, move |c| {
        Ok(core::check_authorization(c, &req, &resource))
    })
    .await;
    match result {
        Ok(Ok(auth)) => Ok(auth),
        Ok(Err(refusal)) => Err(match refusal.redirect {
            Some(to) => Redirect::to(&to).into_response(),
            None => (
                StatusCode::BAD_REQUEST,
                render::error_page(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "This sign-in request is not valid: {}",
                        refusal.error.description
                    ),
                ),
            )
                .into_response(),
        }),
        Err(e) => Err(UiError::from(e).into_response()),
    }
}

/// The scheme, host and port of a URI.
fn origin(uri: &str) -> &str {
    let after = uri.find("://").map_or(0, |i| i + 3);
    let end = uri[after..]
        .find(['/', '?'])
        .map_or(uri.len(), |i| after + i);
    &uri[..end]
}

/// Where the sign-in page sends the user back to: this page, same query.
fn to_sign_in(query: &str) -> Response {
    let back = format!("{}?{query}", crate::oauth::CONSENT_PATH);
    Redirect::to(&format!(
        "/ui/login?next={}",
        cairn_core::oauth::percent_encode(&back)
    ))
    .into_response()
}

/// `GET /ui/oauth/authorize`: the consent form (after sign-in).
pub(crate) async fn consent_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    uri: axum::http::Uri,
    Query(req): Query<AuthorizationRequest>,
) -> Response {
    if state.auth == Auth::Open {
        return UiError::from(cairn_core::Error::invalid(
            "OAuth is offered only by a server with API keys",
        ))
        .into_response();
    }
    let auth = match checked(&state, &headers, req.clone()).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let (Some(who), Some(session)) = (
        extensions.get::<Authenticated>().cloned(),
        extensions.get::<UiSession>().cloned(),
    ) else {
        return to_sign_in(uri.query().unwrap_or_default());
    };
    let ui = Ui {
        who,
        csrf: session.csrf,
    };
    let mut response = consent_form(&ui, &req, &auth).into_response();
    // A form's redirect is checked against `form-action`: allow the
    // client's redirect URI as well as this server.
    let csp = CSP.replace(
        "form-action 'self'",
        &format!("form-action 'self' {}", origin(&auth.redirect_uri)),
    );
    if let Ok(v) = HeaderValue::from_str(&csp) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, v);
    }
    response
}

fn consent_form(ui: &Ui, req: &AuthorizationRequest, auth: &Authorization) -> maud::Markup {
    let client = auth.client_name.as_deref().unwrap_or("An unnamed client");
    let admin = ui.who.role == Role::Admin;
    let roles: Vec<Role> = [Role::Read, Role::Write]
        .into_iter()
        .filter(|r| ui.who.role.allows(*r))
        .collect();
    let hidden = [
        ("response_type", &req.response_type),
        ("client_id", &req.client_id),
        ("redirect_uri", &req.redirect_uri),
        ("code_challenge", &req.code_challenge),
        ("code_challenge_method", &req.code_challenge_method),
        ("state", &req.state),
        ("resource", &req.resource),
    ];
    let body = html! {
        section {
            h2 { "Allow " strong { (client) } " to use your memories?" }
            p { "It will connect to this server's MCP endpoint and act with the access you choose here, until you revoke it on the " a href="/ui/keys" { "Keys" } " page." }
            p.hint { "Answers go to " code { (auth.redirect_uri) } "." }
            form.stack method="post" action=(crate::oauth::CONSENT_PATH) {
                (csrf_field(ui))
                @for (name, value) in hidden {
                    @if let Some(v) = value { input type="hidden" name=(name) value=(v); }
                }
                label for="c-tenant" { "Tenant" }
                @if admin {
                    input #c-tenant name="tenant" value=(ui.who.tenant) required;
                } @else {
                    input #c-tenant name="tenant" value=(ui.who.tenant) readonly;
                }
                label for="c-project" { "Project (calls that name none use it; empty: none)" }
                input #c-project name="project";
                label for="c-role" { "Access" }
                select #c-role name="role" {
                    @for r in &roles { option value=(r.as_str()) selected[*r == Role::Read] { (r.as_str()) } }
                }
                div.actions {
                    button type="submit" name="decision" value="allow" { "Allow" }
                    " "
                    button.danger type="submit" name="decision" value="deny" { "Deny" }
                }
            }
        }
    };
    page(ui, "/ui/keys", "Allow access", body)
}

/// The consent form.
#[derive(Deserialize)]
pub(crate) struct ConsentForm {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    resource: Option<String>,
    #[serde(default)]
    tenant: String,
    #[serde(default)]
    project: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    decision: String,
}

/// `POST /ui/oauth/authorize`: allow (a grant and a code, sent to the
/// client) or deny.
pub(crate) async fn consent(
    State(state): State<AppState>,
    headers: HeaderMap,
    ui: Ui,
    Form(f): Form<ConsentForm>,
) -> Response {
    let req = AuthorizationRequest {
        response_type: f.response_type,
        client_id: f.client_id,
        redirect_uri: f.redirect_uri,
        code_challenge: f.code_challenge,
        code_challenge_method: f.code_challenge_method,
        state: f.state,
        resource: f.resource,
        scope: None,
    };
    let auth = match checked(&state, &headers, req).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    if f.decision != "allow" {
        return Redirect::to(&core::deny(&auth)).into_response();
    }
    let role: Role = match f.role.parse() {
        Ok(r) => r,
        Err(e) => return UiError::from(e).into_response(),
    };
    let consent = Consent {
        tenant: f.tenant,
        project: Some(f.project),
        role,
    };
    let who = ui.who.clone();
    match cairn_mcp::on_engine(&state.cairn, move |c| {
        core::approve(c, &who, &auth, consent)
    })
    .await
    {
        Ok(to) => Redirect::to(&to).into_response(),
        Err(e) => UiError::from(e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn origins_of_redirect_uris() {
        assert_eq!(
            super::origin("https://c.example:8443/cb?x=1"),
            "https://c.example:8443"
        );
        assert_eq!(
            super::origin("http://127.0.0.1:3030"),
            "http://127.0.0.1:3030"
        );
        assert_eq!(super::origin("http://[::1]:1/cb"), "http://[::1]:1");
    }
}
