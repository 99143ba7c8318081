//! The UI's pages and actions. Each one parses its form or query, calls
//! `cairn_core::api` (the call the REST route named beside it makes) and
//! renders the answer; nothing here decides what a query means.

mod activity;
mod agent;
mod browser;
mod consent;
mod keys;
mod login;
mod memory;
mod overview;
mod transfer;

use axum::response::{IntoResponse, Redirect, Response};

use super::UiError;

pub(super) use activity::activity;
pub(super) use agent::agent;
pub(super) use browser::{browser, bulk};
pub(super) use consent::{consent, consent_page};
pub(super) use keys::{create_key, keys, revoke_grant, revoke_key};
pub(super) use login::{login, login_page, logout, not_found};
pub(super) use memory::{edit, forget, memory, revert, supersede};
pub(super) use overview::{growth_page, overview};
pub(super) use transfer::{export, import, transfer};

/// Rows of a page of the memory browser.
pub(super) const PAGE_ROWS: usize = 50;

type Page = Result<Response, UiError>;

fn see_other(to: &str) -> Response {
    Redirect::to(to).into_response()
}

/// Comma-separated tags, trimmed, empty ones dropped.
pub(super) fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}
