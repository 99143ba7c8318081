//! The web UI in-process: its security properties (CSP, cookie flags,
//! CSRF and Origin checks, roles, tenant confinement, inert content) and
//! its actions, without a browser (the browser tests are
//! `scripts/ui-test.sh`).

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use cairn_core::api::{self, Caller, RememberInput};
use cairn_server::{router, AppState};
use http_body_util::BodyExt;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{blocking, keyed_state, make_key, state};

const HOST: &str = "127.0.0.1:8080";
const ORIGIN: &str = "http://127.0.0.1:8080";

/// A browser of one application: its session cookie and CSRF token.
struct Browser {
    app: axum::Router,
    cookie: Option<String>,
    csrf: String,
}

struct Page {
    status: StatusCode,
    headers: HeaderMap,
    html: String,
}

impl Browser {
    fn new(state: &AppState) -> Browser {
        Browser {
            app: router(state.clone(), CancellationToken::new()),
            cookie: None,
            csrf: String::new(),
        }
    }

    async fn send(&self, req: axum::http::request::Builder, body: Body) -> Page {
        let mut req = req.header(header::HOST, HOST);
        if let Some(c) = &self.cookie {
            req = req.header(header::COOKIE, format!("cairn_session={c}"));
        }
        let response = self
            .app
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Page {
            status,
            headers,
            html: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    async fn get(&self, uri: &str) -> Page {
        self.send(Request::get(uri), Body::empty()).await
    }

    /// A form POST as a page of this server sends it, with the CSRF token.
    async fn post(&self, uri: &str, form: &[(&str, &str)]) -> Page {
        let mut fields: Vec<(&str, &str)> = vec![("csrf", &self.csrf)];
        fields.extend_from_slice(form);
        self.post_raw(uri, &fields, Some(ORIGIN)).await
    }

    async fn post_raw(&self, uri: &str, form: &[(&str, &str)], origin: Option<&str>) -> Page {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut req =
            Request::post(uri).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(o) = origin {
            req = req.header(header::ORIGIN, o);
        }
        self.send(req, Body::from(body)).await
    }

    /// Sign in with `key`; the session's CSRF token is read from a page.
    async fn sign_in(state: &AppState, key: &str) -> Browser {
        let mut b = Browser::new(state);
        let page = b.post_raw("/ui/login", &[("key", key)], Some(ORIGIN)).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.html);
        let cookie = page.headers[header::SET_COOKIE].to_str().unwrap();
        let value = cookie
            .strip_prefix("cairn_session=")
            .and_then(|c| c.split(';').next())
            .unwrap();
        b.cookie = Some(value.to_string());
        let overview = b.get("/ui").await;
        assert_eq!(overview.status, StatusCode::OK, "{}", overview.html);
        b.csrf = csrf_of(&overview.html);
        b
    }
}

fn csrf_of(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a CSRF field") + 19;
    html[at..at + 64].to_string()
}

fn remember(state: &AppState, tenant: &str, content: &str) -> String {
    blocking(|| {
        api::remember(
            &state.cairn,
            &Caller::new(tenant),
            RememberInput::new(content),
        )
        .unwrap()
        .id
    })
}

#[tokio::test]
async fn every_ui_response_carries_a_csp_without_inline_scripts() {
    let state = keyed_state();
    let b = Browser::new(&state);
    for uri in [
        "/ui/login",
        "/ui",
        "/ui/memories",
        "/ui/assets/app.js",
        "/ui/nowhere",
    ] {
        let page = b.get(uri).await;
        let csp = page.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("script-src 'self'"), "{uri}: {csp}");
        assert!(csp.contains("style-src 'self'"), "{uri}: {csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        assert_eq!(page.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }
    let login = b.get("/ui/login").await;
    assert_eq!(login.status, StatusCode::OK);
    assert!(!login.html.contains("<script>") && !login.html.contains(" style="));
    assert!(!login.html.contains("onclick") && !login.html.contains("onload"));
    let js = b.get("/ui/assets/htmx.min.js").await;
    assert_eq!(js.status, StatusCode::OK);
    assert!(
        js.html.starts_with("/* htmx 2.0.11"),
        "version and licence first"
    );
}

#[tokio::test]
async fn signing_in_sets_a_strict_http_only_cookie_and_signing_out_ends_it() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let anonymous = Browser::new(&state);
    let page = anonymous.get("/ui/memories").await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.headers[header::LOCATION], "/ui/login");
    let bad = anonymous
        .post_raw("/ui/login", &[("key", "cairn_nope_nope")], Some(ORIGIN))
        .await;
    assert_eq!(bad.status, StatusCode::UNAUTHORIZED);
    assert!(bad.headers.get(header::SET_COOKIE).is_none());
    let foreign = anonymous
        .post_raw("/ui/login", &[("key", &key)], Some("http://evil.example"))
        .await;
    assert_eq!(foreign.status, StatusCode::FORBIDDEN, "login CSRF");

    let good = anonymous
        .post_raw("/ui/login", &[("key", &key)], Some(ORIGIN))
        .await;
    let cookie = good.headers[header::SET_COOKIE].to_str().unwrap();
    for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/ui"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(
        !cookie.contains(&key),
        "the key never goes back to the browser"
    );

    let b = Browser::sign_in(&state, &key).await;
    assert!(b.get("/ui").await.html.contains("alice · write"));
    let no_token = b.post_raw("/ui/logout", &[], Some(ORIGIN)).await;
    assert_eq!(no_token.status, StatusCode::FORBIDDEN);
    let out = b.post("/ui/logout", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    assert_eq!(b.get("/ui").await.status, StatusCode::SEE_OTHER, "ended");
}

#[tokio::test]
async fn changes_need_the_sessions_csrf_token_and_this_origin() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let id = remember(&state, "alice", "the deploy runs from CI");
    let b = Browser::sign_in(&state, &key).await;
    let uri = format!("/ui/memories/{id}/forget");
    let missing = b.post_raw(&uri, &[], Some(ORIGIN)).await;
    assert_eq!(missing.status, StatusCode::FORBIDDEN);
    let wrong = b
        .post_raw(&uri, &[("csrf", &"0".repeat(64))], Some(ORIGIN))
        .await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    let csrf = b.csrf.clone();
    let elsewhere = b
        .post_raw(&uri, &[("csrf", &csrf)], Some("http://evil.example"))
        .await;
    assert_eq!(elsewhere.status, StatusCode::FORBIDDEN);
    assert!(blocking(|| api::get(&state.cairn, &Caller::new("alice"), &id)).is_ok());
    // The header htmx sends counts as much as the field.
    let page = b
        .send(
            Request::post(&uri)
                .header("x-csrf-token", &csrf)
                .header(header::ORIGIN, ORIGIN),
            Body::empty(),
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.html);
    assert!(blocking(|| api::get(&state.cairn, &Caller::new("alice"), &id)).is_err());
    // Another session's token is not this one's.
    let other = Browser::sign_in(&state, &key).await;
    assert_ne!(other.csrf, b.csrf);
}

#[tokio::test]
async fn a_tenant_sees_and_touches_none_of_another_tenants_memories() {
    let state = keyed_state();
    let alice = make_key(&state.cairn, "alice", "admin");
    let mine = remember(&state, "alice", "alice keeps notes about the lighthouse");
    let theirs = remember(&state, "bob", "bob's secret plan about the lighthouse");
    let b = Browser::sign_in(&state, &alice).await;

    let list = b.get("/ui/memories").await;
    assert!(list.html.contains(&mine) && !list.html.contains(&theirs));
    assert!(!list.html.contains("secret plan"));
    for mode in ["", "keyword", "semantic"] {
        let found = b
            .get(&format!(
                "/ui/memories?q=lighthouse+secret+plan&mode={mode}"
            ))
            .await;
        assert_eq!(found.status, StatusCode::OK);
        assert!(!found.html.contains(&theirs), "mode {mode}");
        assert!(!found.html.contains("bob&#39;s") && !found.html.contains("bob's"));
    }
    let page = b.get(&format!("/ui/memories/{theirs}")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.html.contains("secret plan"));
    let prefix = &theirs[..13];
    // The same creation millisecond: the prefix names alice's own memory.
    assert!(!b
        .get(&format!("/ui/memories/{prefix}"))
        .await
        .html
        .contains(&theirs));
    for (action, form) in [
        (
            "edit",
            vec![
                ("content", "stolen"),
                ("type", "note"),
                ("project", ""),
                ("tags", ""),
                ("importance", ""),
                ("weight", ""),
            ],
        ),
        ("forget", vec![]),
        ("revert", vec![("version", "1")]),
        ("supersede", vec![("content", "stolen")]),
    ] {
        let page = b
            .post(&format!("/ui/memories/{theirs}/{action}"), &form)
            .await;
        assert_eq!(
            page.status,
            StatusCode::NOT_FOUND,
            "{action}: {}",
            page.html
        );
    }
    let bulk = b
        .post(
            "/ui/memories/bulk",
            &[("ids", &theirs), ("action", "confirm-forget")],
        )
        .await;
    assert_eq!(bulk.status, StatusCode::NOT_FOUND);
    let tag = b
        .post(
            "/ui/memories/bulk",
            &[("ids", &theirs), ("action", "tag"), ("tag", "x")],
        )
        .await;
    assert_eq!(tag.status, StatusCode::NOT_FOUND);
    let export = b.get("/ui/export").await;
    assert!(export.html.contains(&mine) && !export.html.contains(&theirs));
    let bobs = blocking(|| api::get(&state.cairn, &Caller::new("bob"), &theirs)).unwrap();
    assert_eq!(
        bobs.record.content,
        "bob's secret plan about the lighthouse"
    );
    assert!(bobs.record.tags.is_empty());
}

#[tokio::test]
async fn memory_content_with_html_renders_inert() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let id = remember(
        &state,
        "alice",
        "<script>alert('x')</script>\n\n**bold** <img src=x onerror=alert(1)> [link](javascript:alert(2))",
    );
    let b = Browser::sign_in(&state, &key).await;
    for uri in [
        format!("/ui/memories/{id}"),
        "/ui/memories".to_string(),
        "/ui/memories?q=bold&mode=keyword".to_string(),
        "/ui".to_string(),
        "/ui/agent?topic=bold".to_string(),
    ] {
        let page = b.get(&uri).await;
        assert_eq!(page.status, StatusCode::OK, "{uri}");
        assert!(!page.html.contains("<script>alert"), "{uri}");
        if let Some(at) = page.html.find("<img") {
            panic!("{uri}: {}", &page.html[at.saturating_sub(200)..at + 100]);
        }
        assert!(!page.html.contains("href=\"javascript:"), "{uri}");
    }
    let page = b.get(&format!("/ui/memories/{id}")).await;
    assert!(page.html.contains("&lt;script&gt;"), "shown as text");
    assert!(
        page.html.contains("<strong>bold</strong>"),
        "Markdown rendered"
    );
}

#[tokio::test]
async fn edit_history_revert_supersede_and_forget() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let id = remember(&state, "alice", "we use MySQL for atlas");
    let b = Browser::sign_in(&state, &key).await;
    let edited = b
        .post(
            &format!("/ui/memories/{id}/edit"),
            &[
                ("content", "we use PostgreSQL for atlas"),
                ("type", "decision"),
                ("project", "atlas"),
                ("tags", "db, infra"),
                ("importance", "0.8"),
                ("weight", "1"),
            ],
        )
        .await;
    assert_eq!(edited.status, StatusCode::SEE_OTHER, "{}", edited.html);
    let page = b.get(&format!("/ui/memories/{id}")).await;
    assert!(page.html.contains("<del>MySQL</del>"), "the diff");
    assert!(page.html.contains("<ins>PostgreSQL</ins>"));
    assert!(page.html.contains("Revert to v1"));
    let m = blocking(|| api::get(&state.cairn, &Caller::new("alice"), &id)).unwrap();
    assert_eq!(m.record.project.as_deref(), Some("atlas"));
    assert_eq!(m.record.tags, ["db", "infra"]);

    let reverted = b
        .post(&format!("/ui/memories/{id}/revert"), &[("version", "1")])
        .await;
    assert_eq!(reverted.status, StatusCode::SEE_OTHER);
    let h = blocking(|| api::history(&state.cairn, &Caller::new("alice"), &id)).unwrap();
    assert_eq!(h.versions.len(), 3);
    assert_eq!(h.versions[2].memory.content, "we use MySQL for atlas");

    let superseded = b
        .post(
            &format!("/ui/memories/{id}/supersede"),
            &[("content", "atlas moved to PostgreSQL 16")],
        )
        .await;
    assert_eq!(superseded.status, StatusCode::SEE_OTHER);
    let new_page = superseded.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    let newer = b
        .post(
            &format!("{new_page}/supersede"),
            &[("content", "atlas moved to PostgreSQL 17")],
        )
        .await;
    let newest = newer.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    // The middle memory's page shows the whole chain, oldest first, itself
    // marked; so does the oldest's.
    let caller = Caller::new("alice");
    let short = |path: &str| {
        let id = path.trim_start_matches("/ui/memories/");
        blocking(|| api::get(&state.cairn, &caller, id).unwrap().short_id)
    };
    let (first, middle, last) = (
        short(&format!("/ui/memories/{id}")),
        short(&new_page),
        short(&newest),
    );
    for (path, me) in [
        (new_page.clone(), &middle),
        (format!("/ui/memories/{id}"), &first),
    ] {
        let page = b.get(&path).await;
        let chain = &page.html[page.html.find("Supersede chain").expect("a chain")..];
        let chain = &chain[..chain.find("</ol>").unwrap()];
        let at = |s: &str| {
            chain
                .find(s)
                .unwrap_or_else(|| panic!("{s} not in {chain}"))
        };
        assert!(
            at(&first) < at(&middle) && at(&middle) < at(&last),
            "{chain}"
        );
        // A listing shows every id at the width the longest needs, so the
        // marked one may be longer than its short id alone.
        let marked = &chain[..chain.find("</code> (this memory)").expect("a mark")];
        let marked = &marked[marked.rfind("<code>").unwrap() + "<code>".len()..];
        assert!(marked.starts_with(me.as_str()), "{chain}");
    }

    let forgot = b.post(&format!("/ui/memories/{id}/forget"), &[]).await;
    assert_eq!(forgot.status, StatusCode::SEE_OTHER);
    let gone = b.get(&format!("/ui/memories/{id}")).await;
    assert!(gone.html.contains("was forgotten"), "{}", gone.html);
}

#[tokio::test]
async fn bulk_forget_confirms_the_count_first() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let a = remember(&state, "alice", "scratch one about caching");
    let c = remember(&state, "alice", "scratch two about logging");
    let b = Browser::sign_in(&state, &key).await;
    let ask = b
        .post(
            "/ui/memories/bulk",
            &[("ids", &a), ("ids", &c), ("action", "forget")],
        )
        .await;
    assert_eq!(ask.status, StatusCode::OK);
    assert!(ask.html.contains("2 memories"), "{}", ask.html);
    assert!(
        blocking(|| api::get(&state.cairn, &Caller::new("alice"), &a)).is_ok(),
        "not yet"
    );
    let done = b
        .post(
            "/ui/memories/bulk",
            &[("ids", &a), ("ids", &c), ("action", "confirm-forget")],
        )
        .await;
    assert!(done.html.contains("Forgot 2 memories"), "{}", done.html);
    let tagged = remember(&state, "alice", "keep this one");
    let page = b
        .post(
            "/ui/memories/bulk",
            &[("ids", &tagged), ("action", "tag"), ("tag", "kept")],
        )
        .await;
    assert!(page.html.contains("Tagged 1 memories"));
    let m = blocking(|| api::get(&state.cairn, &Caller::new("alice"), &tagged)).unwrap();
    assert_eq!(m.record.tags, ["kept"]);
    // Two at once, one of which has the tag already: one call.
    let other = remember(&state, "alice", "and this other one");
    let page = b
        .post(
            "/ui/memories/bulk",
            &[
                ("ids", &tagged),
                ("ids", &other),
                ("action", "tag"),
                ("tag", "kept"),
            ],
        )
        .await;
    assert!(page.html.contains("Tagged 1 memories"), "{}", page.html);
    assert!(page.html.contains("1 had it already"), "{}", page.html);
    let m = blocking(|| api::get(&state.cairn, &Caller::new("alice"), &other)).unwrap();
    assert_eq!(m.record.tags, ["kept"]);
}

#[tokio::test]
async fn a_read_key_sees_but_cannot_change() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "read");
    let id = remember(&state, "alice", "read only things");
    let b = Browser::sign_in(&state, &key).await;
    let page = b.get(&format!("/ui/memories/{id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.html.contains("/edit\""), "no edit form");
    assert!(!page.html.contains("Keys</a>"), "no keys link");
    for (action, form) in [
        (
            "edit",
            vec![
                ("content", "x"),
                ("type", "note"),
                ("project", ""),
                ("tags", ""),
                ("importance", ""),
                ("weight", ""),
            ],
        ),
        ("forget", vec![]),
        ("supersede", vec![("content", "x")]),
    ] {
        let page = b.post(&format!("/ui/memories/{id}/{action}"), &form).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{action}");
    }
    assert_eq!(b.get("/ui/keys").await.status, StatusCode::FORBIDDEN);
    let make = b
        .post("/ui/keys", &[("tenant", "alice"), ("role", "admin")])
        .await;
    assert_eq!(make.status, StatusCode::FORBIDDEN);
    assert_eq!(
        blocking(|| api::get(&state.cairn, &Caller::new("alice"), &id))
            .unwrap()
            .record
            .content,
        "read only things"
    );
}

#[tokio::test]
async fn keys_are_made_shown_once_and_revoking_one_ends_its_sessions() {
    let state = keyed_state();
    let admin = make_key(&state.cairn, "alice", "admin");
    let b = Browser::sign_in(&state, &admin).await;
    let made = b
        .post(
            "/ui/keys",
            &[("tenant", "alice"), ("role", "write"), ("label", "ci")],
        )
        .await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.html);
    let at = made.html.find(r#"<code id="new-key">"#).unwrap() + 19;
    let new_key = &made.html[at..made.html[at..].find('<').unwrap() + at];
    assert!(new_key.starts_with("cairn_"), "{new_key}");
    assert!(
        !b.get("/ui/keys").await.html.contains(new_key),
        "shown once"
    );

    let user = Browser::sign_in(&state, new_key).await;
    let key_id = blocking(|| api::authenticate(&state.cairn, new_key))
        .unwrap()
        .key_id;
    let revoked = b.post(&format!("/ui/keys/{key_id}/revoke"), &[]).await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    assert_eq!(
        user.get("/ui").await.status,
        StatusCode::SEE_OTHER,
        "signed out"
    );

    // Another tenant's keys are neither listed nor revoked from here, and
    // a key made here is for the signed-in tenant whatever the form says.
    let bobs = make_key(&state.cairn, "bob", "write");
    let bob_id = blocking(|| api::authenticate(&state.cairn, &bobs))
        .unwrap()
        .key_id;
    assert!(!b.get("/ui/keys").await.html.contains(&bob_id));
    let refused = b.post(&format!("/ui/keys/{bob_id}/revoke"), &[]).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert!(blocking(|| api::authenticate(&state.cairn, &bobs)).is_ok());
    let made = b
        .post("/ui/keys", &[("tenant", "bob"), ("role", "read")])
        .await;
    let at = made.html.find(r#"<code id="new-key">"#).unwrap() + 19;
    let key = &made.html[at..made.html[at..].find('<').unwrap() + at];
    assert_eq!(
        blocking(|| api::authenticate(&state.cairn, key))
            .unwrap()
            .tenant,
        "alice"
    );
}

#[tokio::test]
async fn a_server_without_keys_needs_no_sign_in_but_still_checks_csrf() {
    let state = state();
    let id = remember(&state, "default", "a local note");
    let b = Browser::new(&state);
    let page = b.get("/ui/memories").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.html.contains(&id));
    assert!(!page.html.contains("Sign out"));
    let forget = b
        .post_raw(&format!("/ui/memories/{id}/forget"), &[], Some(ORIGIN))
        .await;
    assert_eq!(forget.status, StatusCode::FORBIDDEN);
    let csrf = csrf_of(&page.html);
    let forget = b
        .post_raw(
            &format!("/ui/memories/{id}/forget"),
            &[("csrf", &csrf)],
            Some(ORIGIN),
        )
        .await;
    assert_eq!(forget.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn the_browser_pages_filters_and_imports() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let caller = Caller::new("alice");
    blocking(|| {
        for i in 0..120 {
            let input = RememberInput {
                project: Some(if i % 2 == 0 { "atlas" } else { "zeus" }.into()),
                dedup: Some(false),
                ..RememberInput::new(format!("note number {i} about subject {}", i * 7919 % 1000))
            };
            api::remember(&state.cairn, &caller, input).unwrap();
        }
    });
    let b = Browser::sign_in(&state, &key).await;
    let first = b.get("/ui/memories").await;
    assert!(
        first.html.contains("1–50 of 120"),
        "{}",
        &first.html[..2000.min(first.html.len())]
    );
    let at = first.html.find("rel=\"next\"").unwrap();
    let href_at = first.html[..at].rfind("href=\"").unwrap() + 6;
    let next = first.html[href_at..at]
        .trim_end_matches("\" ")
        .replace("&amp;", "&");
    let second = b.get(&next).await;
    assert!(second.html.contains("51–100 of 120"), "{next}");
    let atlas = b.get("/ui/memories?project=atlas").await;
    assert!(atlas.html.contains("of 60"));

    let body = "{\"content\":\"imported one\"}\nnot json\n{\"content\":\"imported two\"}\n";
    let page = b
        .send(
            Request::post("/ui/import")
                .header("x-csrf-token", &b.csrf)
                .header(header::ORIGIN, ORIGIN)
                .header(header::CONTENT_TYPE, "application/x-ndjson"),
            Body::from(body),
        )
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    let lines: Vec<serde_json::Value> = page
        .html
        .trim()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, progress) = lines.split_last().unwrap();
    assert_eq!(last["report"]["imported"], 2);
    assert_eq!(last["report"]["errors"][0][0], 2);
    // The server's progress, after the first transaction: written, and
    // the bad line with its problem.
    let p = &progress.first().expect("a progress line")["progress"];
    assert_eq!(
        (&p["imported"], &p["bad_lines"]),
        (&2.into(), &1.into()),
        "{p}"
    );
    assert_eq!(p["errors"][0][0], 2, "{p}");
    assert!(
        p["errors"][0][1].as_str().is_some_and(|m| !m.is_empty()),
        "{p}"
    );
}

#[tokio::test]
async fn sources_expiry_and_superseded_memories_in_the_browser_and_overview() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let caller = Caller::new("alice");
    let remember_as = |content: &str, source: &str, ttl: Option<&str>| {
        let input = RememberInput {
            source: Some(source.into()),
            ttl: ttl.map(str::to_string),
            ..RememberInput::new(content)
        };
        blocking(|| api::remember(&state.cairn, &caller, input).unwrap().id)
    };
    let soon = remember_as("the staging certificate lapses", "manual", Some("2h"));
    let later = remember_as("the trial licence runs out", "import:mem0", Some("30d"));
    let kept = remember_as("the office is in Lisbon", "conversation", None);
    let old = remember_as("deploys happen on Fridays", "manual", None);
    let input = RememberInput {
        supersedes: Some(old.clone()),
        ..RememberInput::new("deploys happen on Tuesdays")
    };
    let new = blocking(|| api::remember(&state.cairn, &caller, input).unwrap().id);
    let short = |id: &str| blocking(|| api::get(&state.cairn, &caller, id).unwrap().short_id);
    let b = Browser::sign_in(&state, &key).await;

    let section = |html: &str, heading: &str| -> String {
        let at = html
            .find(&format!(">{heading}<"))
            .unwrap_or_else(|| panic!("no {heading}"));
        html[at..at + html[at..].find("</section>").unwrap()].to_string()
    };
    let overview = b.get("/ui").await;
    let expiring = section(&overview.html, "Expiring soon");
    let (s, l) = (expiring.find(&short(&soon)), expiring.find(&short(&later)));
    assert!(
        s.is_some() && l.is_some() && s < l,
        "soonest first: {expiring}"
    );
    assert!(!expiring.contains(&short(&kept)), "no expiry: not listed");
    let superseded = section(&overview.html, "Superseded");
    assert!(superseded.contains(&short(&old)), "{superseded}");
    assert!(
        superseded.contains(&format!("/ui/memories/{new}")),
        "by which"
    );
    assert!(
        !superseded.contains("deploys happen on Tuesdays"),
        "the superseding memory is only linked: {superseded}"
    );

    let rows = |html: &str| html.matches("<tr class=\"row").count();
    let mem0 = b.get("/ui/memories?source=import:mem0").await;
    assert_eq!(rows(&mem0.html), 1);
    assert!(mem0.html.contains(&short(&later)));
    let two = b.get("/ui/memories?source=conversation,import:mem0").await;
    assert_eq!(rows(&two.html), 2, "any of the sources");
    let only = b.get("/ui/memories?superseded=only").await;
    assert_eq!(rows(&only.html), 1);
    assert!(only.html.contains(&short(&old)));
    let by_expiry = b.get("/ui/memories?sort=expiring").await;
    let first_row = &by_expiry.html[by_expiry.html.find("<tr class=\"row").unwrap()..];
    assert!(first_row[..first_row.find("</tr>").unwrap()].contains(&short(&soon)));
}

#[tokio::test]
async fn similar_memories_and_activity_are_the_same_over_rest_and_in_the_ui() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let a = remember(&state, "alice", "the deploy runs from the ci runner");
    let near = remember(
        &state,
        "alice",
        "the deploy runs from the ci runner at night",
    );
    let theirs = remember(&state, "bob", "the deploy runs from the ci runner");
    let rest = crate::rest::Client::new(state.clone(), Some(key.clone()));
    let out = rest
        .raw("GET", &format!("/v1/memories/{a}/similar"), Body::empty())
        .await;
    assert_eq!(out.status, StatusCode::OK, "{}", out.body);
    assert_eq!(out.body["similar"][0]["id"], near.as_str());
    assert!(!out.body.to_string().contains(&theirs));
    let activity = rest.raw("GET", "/v1/activity", Body::empty()).await;
    assert_eq!(activity.status, StatusCode::OK);
    assert_eq!(activity.body["entries"].as_array().unwrap().len(), 2);

    let b = Browser::sign_in(&state, &key).await;
    let page = b.get(&format!("/ui/memories/{a}")).await;
    assert!(page.html.contains("Similar memories") && page.html.contains(&near));
    assert!(!page.html.contains(&theirs));
    let feed = b.get("/ui/activity").await;
    assert_eq!(feed.status, StatusCode::OK);
    assert!(feed.html.contains("created") && !feed.html.contains(&theirs));
}

#[tokio::test]
async fn a_contested_memory_names_the_newer_one_and_its_validity() {
    let state = keyed_state();
    let key = make_key(&state.cairn, "alice", "write");
    let old = remember(
        &state,
        "alice",
        "The atlas production database is PostgreSQL 16 on db-prod-3",
    );
    let new = blocking(|| {
        let mut input =
            RememberInput::new("The atlas production database is PostgreSQL 17 on db-prod-5");
        input.conflicts = Some("prefer-newer".into());
        let out = api::remember(&state.cairn, &Caller::new("alice"), input).unwrap();
        assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
        out.id
    });
    let b = Browser::sign_in(&state, &key).await;
    let page = b.get(&format!("/ui/memories/{old}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.html.contains("Contested"), "{}", page.html);
    assert!(
        page.html.contains(&format!("href=\"/ui/memories/{new}\"")),
        "links the newer memory"
    );
    assert!(page.html.contains("believed true until"), "{}", page.html);
    // The newer memory is not contested.
    let page = b.get(&format!("/ui/memories/{new}")).await;
    assert!(!page.html.contains("Contested"));
}
