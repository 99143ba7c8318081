//! The parts every page is made of: the layout (navigation, theme, the
//! CSRF token for htmx), memory content as safe Markdown, word diffs and
//! small formatting helpers. maud escapes every interpolated value.

use axum::http::StatusCode;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

use super::{Ui, CSRF_FIELD, CSRF_HEADER};

/// One entry of the navigation: its path and label.
const NAV: [(&str, &str); 6] = [
    ("/ui", "Overview"),
    ("/ui/memories", "Memories"),
    ("/ui/activity", "Activity"),
    ("/ui/agent", "What the agent sees"),
    ("/ui/transfer", "Import / export"),
    ("/ui/keys", "Keys"),
];

fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="htmx-config" content=r#"{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"historyCacheSize":0}"#;
            title { (title) " · Cairn" }
            link rel="icon" href="data:,";
            link rel="stylesheet" href="/ui/assets/app.css";
            script src="/ui/assets/htmx.min.js" defer {}
            script src="/ui/assets/app.js" defer {}
        }
    }
}

/// A page of a signed-in user: navigation (`current` marked), who they
/// are, sign out, and `body` in `<main>`.
pub(super) fn page(ui: &Ui, current: &str, title: &str, body: Markup) -> Markup {
    let hx_headers = serde_json::json!({ CSRF_HEADER: ui.csrf }).to_string();
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body hx-headers=(hx_headers) {
                a.skip href="#main" { "Skip to content" }
                header.top {
                    a.brand href="/ui" { "Cairn" }
                    nav aria-label="Main" {
                        ul {
                            @for (path, label) in NAV {
                                @if path != "/ui/keys" || ui.may(axum::http::Method::GET, "/v1/keys") {
                                    li {
                                        a href=(path) aria-current=[(path == current).then_some("page")] { (label) }
                                    }
                                }
                            }
                        }
                    }
                    div.who {
                        span title="tenant · role · key" {
                            (ui.who.tenant) " · " (ui.who.role.as_str())
                        }
                        button #theme type="button" aria-label="Switch between dark and light theme" { "◐" }
                        @if ui.who.key_id != "local" {
                            form method="post" action="/ui/logout" {
                                (csrf_field(ui))
                                button type="submit" { "Sign out" }
                            }
                        }
                    }
                }
                main #main tabindex="-1" {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// A page without navigation (sign-in, errors).
pub(super) fn bare(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                main #main.narrow {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// The page of an error.
pub(super) fn error_page(status: StatusCode, message: &str) -> Markup {
    bare(
        status.canonical_reason().unwrap_or("Error"),
        html! {
            p.error role="alert" { (message) }
            p { a href="/ui" { "Back to Cairn" } }
        },
    )
}

/// The hidden CSRF field of a form.
pub(super) fn csrf_field(ui: &Ui) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(ui.csrf); }
}

/// Whether a link target is safe to render: web, mail and in-page links
/// only (no `javascript:`, `data:` …).
fn safe_url(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    match lower.find(':') {
        None => true,
        Some(i) => {
            let scheme = &lower[..i];
            // A colon after a path or query character is not a scheme.
            lower[..i].contains(['/', '?', '#']) || matches!(scheme, "http" | "https" | "mailto")
        }
    }
}

/// Memory content as HTML: CommonMark with tables and strikethrough;
/// raw HTML in it is shown as text (never passed through), links to other
/// schemes than http(s) and mailto lose their target, and images become
/// links (the page loads nothing from elsewhere).
pub(super) fn markdown(text: &str) -> Markup {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // An image becomes a link to it: the page loads nothing itself.
        Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            },
        ) => Event::Start(Tag::Link {
            link_type,
            dest_url: if safe_url(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("#")
            },
            title,
            id,
        }),
        Event::End(pulldown_cmark::TagEnd::Image) => Event::End(pulldown_cmark::TagEnd::Link),
        other => other,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    PreEscaped(out)
}

/// The words `new` changed from `old`: removed in `<del>`, added in
/// `<ins>`.
pub(super) fn diff(old: &str, new: &str) -> Markup {
    let d = similar::TextDiff::from_words(old, new);
    html! {
        @for change in d.iter_all_changes() {
            @match change.tag() {
                similar::ChangeTag::Equal => (change.value()),
                similar::ChangeTag::Delete => del { (change.value()) },
                similar::ChangeTag::Insert => ins { (change.value()) },
            }
        }
    }
}

/// The first `n` characters of `text` on one line, with `…` when cut.
pub(super) fn excerpt(text: &str, n: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

/// An RFC 3339 time as `YYYY-MM-DD HH:MM` (UTC), the full text in a
/// `<time>` element.
pub(super) fn when(t: Option<&str>) -> Markup {
    match t {
        Some(t) => {
            let short = t.get(..16).unwrap_or(t).replace('T', " ");
            html! { time datetime=(t) { (short) } }
        }
        None => html! { "—" },
    }
}

/// A number with at most `digits` decimals, trailing zeros dropped.
pub(super) fn num(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_renders_html_inert() {
        let html = markdown(
            "<script>alert(1)</script>\n\n**bold** <img src=x onerror=alert(2)> [x](javascript:alert(3)) ![i](https://e.example/i.png) ![a ![b](x.png)](y.png)",
        )
        .into_string();
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(
            html.contains(r#"<a href="https://e.example/i.png">"#),
            "{html}"
        );
    }

    #[test]
    fn urls_and_diffs() {
        assert!(safe_url("https://x.example") && safe_url("/ui") && safe_url("#a"));
        assert!(safe_url("docs/a:b") && safe_url("mailto:a@b.c"));
        assert!(!safe_url(" JavaScript:alert(1)") && !safe_url("data:text/html,x"));
        let d = diff("we use MySQL", "we use PostgreSQL").into_string();
        assert!(
            d.contains("<del>MySQL</del>") && d.contains("<ins>PostgreSQL</ins>"),
            "{d}"
        );
        assert_eq!(excerpt("a  b\nc", 10), "a b c");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(num(0.5000, 3), "0.5");
    }
}
