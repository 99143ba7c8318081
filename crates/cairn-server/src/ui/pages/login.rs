//! Signing in and out.

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;
use cairn_core::api;
use cairn_core::ErrorKind;
use maud::html;
use serde::Deserialize;

use super::see_other;
use crate::ui::render::{self};
use crate::ui::{session, Ui, UiError};
use crate::{AppState, Auth};

/// Where to go after signing in.
#[derive(Deserialize, Default)]
pub(crate) struct Next {
    next: Option<String>,
}

/// A page of this UI to go to after sign-in (`/ui/…`, never another site).
fn safe_next(next: Option<&str>) -> Option<&str> {
    next.filter(|n| {
        n.starts_with("/ui/")
            && !n.contains("//")
            && !n.contains('\\')
            && n.is_ascii()
            && !n.chars().any(|c| c.is_control() || c.is_whitespace())
    })
}

/// `GET /ui/login` (`?next=/ui/…`: where to go after).
pub(crate) async fn login_page(
    State(state): State<AppState>,
    axum::extract::Query(next): axum::extract::Query<Next>,
) -> Response {
    if state.auth == Auth::Open {
        return see_other("/ui");
    }
    login_form(StatusCode::OK, None, safe_next(next.next.as_deref()))
}

fn login_form(status: StatusCode, error: Option<&str>, next: Option<&str>) -> Response {
    let body = html! {
        @if let Some(e) = error { p.error role="alert" { (e) } }
        form.stack method="post" action="/ui/login" {
            @if let Some(n) = next { input type="hidden" name="next" value=(n); }
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
pub(crate) struct LoginForm {
    key: String,
    next: Option<String>,
}

/// A sign-in refused by [`session::SignInLimits`], as a page.
fn refused(why: session::Refused) -> Response {
    match why {
        session::Refused::TooFast(wait) => crate::ui::too_many(
            &format!("Too many sign-in attempts; try again in {wait} s."),
            wait,
        ),
        session::Refused::Full => UiError(crate::ApiError::request(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "The server holds as many sign-ins as it may; try again later.",
        ))
        .into_response(),
    }
}

/// `POST /ui/login`: the key is checked as REST checks it; a session
/// starts. Attempts are limited per client address, successes per key
/// ([`session::SignInLimits`]).
pub(crate) async fn login(
    State(state): State<AppState>,
    extensions: axum::http::Extensions,
    Form(form): Form<LoginForm>,
) -> Response {
    if state.auth == Auth::Open {
        return see_other("/ui");
    }
    let client = extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(|| "unknown".to_string(), |c| c.0.ip().to_string());
    let key = form.key.trim().to_string();
    let sessions = state.sessions.clone();
    let started = cairn_mcp::on_engine(&state.cairn, move |c| {
        if let Err(why) = sessions.attempt(c, &format!("client {client}"))? {
            tracing::info!(%client, "sign-in attempts over the limit");
            return Ok(Err(why));
        }
        let who = api::authenticate(c, &key)?;
        if let Err(why) = sessions.attempt(c, &format!("key {}", who.key_id))? {
            return Ok(Err(why));
        }
        sessions.create(c, &who.key_id)
    })
    .await;
    match started {
        Ok(Ok(id)) => (
            StatusCode::SEE_OTHER,
            [
                (
                    header::LOCATION,
                    safe_next(form.next.as_deref()).unwrap_or("/ui").to_string(),
                ),
                (header::SET_COOKIE, session::set_cookie(&id)),
            ],
        )
            .into_response(),
        Ok(Err(why)) => refused(why),
        Err(e) if e.kind() == ErrorKind::Unauthenticated => login_form(
            StatusCode::UNAUTHORIZED,
            Some("That key is not valid (unknown, revoked or expired)."),
            safe_next(form.next.as_deref()),
        ),
        Err(e) => UiError::from(e).into_response(),
    }
}

/// `POST /ui/logout`.
pub(crate) async fn logout(State(state): State<AppState>, headers: HeaderMap, _ui: Ui) -> Response {
    if let Some(id) = session::cookie(&headers) {
        let (id, sessions) = (id.to_string(), state.sessions.clone());
        let ended = cairn_mcp::on_engine(&state.cairn, move |c| sessions.end(c, &id)).await;
        if let Err(e) = ended {
            return UiError::from(e).into_response();
        }
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
pub(crate) async fn not_found() -> UiError {
    UiError::from(cairn_core::Error::NotFound("no such page".into()))
}
