//! The text half of every tool answer: compact lines a model reads (the
//! structured half is the application layer's JSON), and engine errors as
//! tool results that say what to do.

use cairn_core::api::plural;
use cairn_core::api::{
    ForgetOutput, GetOutput, IngestOutput, ListOutput, LogOutput, MemoryView, RememberOutput,
    StatsOutput,
};
use cairn_core::{Error, ErrorKind, WriteStatus};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

/// A successful result: compact text for the model and the structured value.
pub(crate) fn reply<T: Serialize>(text: String, value: &T) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
    r
}

/// The tool result for an engine error: its message and what to do next,
/// decided once per error kind.
pub(crate) fn error_result(e: &Error) -> CallToolResult {
    let hint = match e.kind() {
        ErrorKind::Ambiguous => "Use more characters of the id (the full id always works).",
        ErrorKind::TooLarge => "Store a short summary, or split it into several specific memories.",
        ErrorKind::InvalidInput => "Fix the arguments and call again; `help` explains them.",
        ErrorKind::Conflict => {
            "The memory store is in a state that refuses this call; the message says which."
        }
        ErrorKind::NotFound => {
            "Find the right id with `recall` or `list` (ids and unique prefixes of 4+ characters work)."
        }
        ErrorKind::Unauthenticated => "Connect with a valid Cairn API key (Authorization: Bearer …).",
        ErrorKind::Forbidden => "This connection's API key has too weak a role for this call; ask an admin for a write key.",
        ErrorKind::Unavailable => "The memory store is busy or unreachable; try again shortly.",
        ErrorKind::Internal => {
            "This is a fault on the memory server's side, not in your call; try again later."
        }
    };
    CallToolResult::error(vec![ContentBlock::text(format!(
        "error ({}): {e}\n{hint}",
        e.code()
    ))])
}

/// Whitespace folded, cut at `max` characters.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn scope(project: Option<&str>) -> &str {
    project.unwrap_or("global")
}

/// What `observe` did: a line per message.
/// An ingest's receipt: a line per chunk, then the counts.
pub(crate) fn ingested(out: &IngestOutput) -> String {
    let mut lines: Vec<String> = out
        .chunks
        .iter()
        .map(|c| {
            format!(
                "{} {} ({:.2}): {} — {}",
                c.index,
                serde_json::to_value(c.decision)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                c.importance,
                one_line(&c.text, 80),
                c.reason
            )
        })
        .collect();
    lines.push(format!(
        "{}: {} stored, {} merged, {} skipped",
        if out.dry_run { "dry run" } else { "done" },
        out.stored,
        out.merged,
        out.skipped
    ));
    lines.join("\n")
}

/// Logged and pending messages, a line each.
pub(crate) fn observed(out: &LogOutput) -> String {
    let logged = out.logged.iter().map(|m| {
        format!(
            "logged {} in {} ({}topic {}, importance {:.2})",
            &m.id[..m.id.len().min(13)],
            m.conversation,
            if m.new_topic { "new " } else { "" },
            m.topic,
            m.importance
        )
    });
    let pending = out.pending.iter().map(|m| {
        format!(
            "kept {} of {} pending: {}",
            &m.id[..m.id.len().min(13)],
            m.conversation,
            out.pending_reason.as_deref().unwrap_or_default()
        )
    });
    logged.chain(pending).collect::<Vec<_>>().join("\n")
}

/// What `remember` did.
pub(crate) fn remembered(out: &RememberOutput) -> String {
    let at = scope(out.project.as_deref());
    let mut text = match out.status {
        WriteStatus::Created => format!("remembered {} ({at})", out.short_id),
        WriteStatus::Pending => format!(
            "kept {} ({at}) pending: the embedding endpoint failed; it is stored when the endpoint answers again, and is not recallable until then",
            out.short_id
        ),
        WriteStatus::Deduplicated => format!(
            "deduplicated into {} ({at}): a near-identical memory existed{}; its text was replaced and tags merged",
            out.short_id,
            out.dedup
                .map(|d| format!(" (similarity {:.2} ≥ {:.2})", d.similarity, d.threshold))
                .unwrap_or_default()
        ),
    };
    if let Some(old) = &out.superseded {
        text += &format!(
            "\nsuperseded {} (hidden from recall, kept for history)",
            &old[..old.len().min(13)]
        );
    }
    if !out.similar.is_empty() {
        text += "\nsimilar memories may contradict it; if one is now wrong, remember with supersedes=<id> or forget it:";
        for s in &out.similar {
            text += &format!(
                "\n- {} ({:.2}) {}",
                s.short_id,
                s.similarity,
                one_line(&s.content, 160)
            );
        }
    }
    text
}

/// One memory in full.
pub(crate) fn memory(m: &MemoryView) -> String {
    let r = &m.record;
    let mut s = format!(
        "{} [{} · {}] {}\ntags: {}; importance {}; weight {}; created {}; updated {}; used {} times",
        m.short_id,
        r.kind.as_deref().unwrap_or_default(),
        scope(r.project.as_deref()),
        r.content,
        if r.tags.is_empty() {
            "-".to_string()
        } else {
            r.tags.join(", ")
        },
        r.importance.unwrap_or_default(),
        r.weight.unwrap_or_default(),
        r.created_at.as_deref().unwrap_or_default(),
        r.updated_at.as_deref().unwrap_or_default(),
        r.access_count.unwrap_or_default()
    );
    if let Some(e) = &r.expires_at {
        s += &format!("; expires {e}");
    }
    if let Some(by) = &r.superseded_by {
        s += &format!("\nsuperseded by {by}");
    }
    if let Some(meta) = r.metadata.as_ref().filter(|m| !m.is_empty()) {
        s += &format!("\nmetadata: {}", serde_json::Value::Object(meta.clone()));
    }
    s
}

/// A memory, and its versions when asked for: a line each.
pub(crate) fn memory_with_history(out: &GetOutput) -> String {
    let mut s = memory(&out.memory);
    for v in out.history.iter().flatten() {
        let reason = v
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        s += &format!(
            "\nv{} {} {} by {}{reason} | {}",
            v.version,
            v.change.as_str(),
            v.at,
            v.actor,
            v.memory.content
        );
    }
    s
}

/// A page of memories.
pub(crate) fn page(out: &ListOutput) -> String {
    let mut text = format!(
        "{} of {} (scope: {}, offset {}):",
        plural(out.memories.len(), "memory", "memories"),
        out.total,
        out.scope,
        out.offset
    );
    for m in &out.memories {
        text += &format!(
            "\n- {} [{} · {}] {}",
            m.short_id,
            m.record.kind.as_deref().unwrap_or_default(),
            scope(m.record.project.as_deref()),
            one_line(&m.record.content, 200)
        );
    }
    if let Some(n) = out.next_offset {
        text += &format!("\nnext page: offset {n}");
    }
    text
}

/// What `forget` did, or would do.
pub(crate) fn forgotten(out: &ForgetOutput) -> String {
    match out.would_forget {
        Some(n) => format!(
            "{} match (scope: {}); nothing deleted. Call forget again with the same filter and confirm: true to delete {}.",
            plural(n, "memory", "memories"),
            out.scope.as_deref().unwrap_or("all"),
            if n == 1 { "it" } else { "them" }
        ),
        None => format!("forgot {}", plural(out.forgotten, "memory", "memories")),
    }
}

fn counts(m: &serde_json::Map<String, serde_json::Value>) -> String {
    if m.is_empty() {
        return "-".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The store's counts.
pub(crate) fn stats(out: &StatsOutput) -> String {
    format!(
        "{} ({} expired, {} superseded); by type: {}; by project: {}; session project: {}",
        plural(out.total, "memory", "memories"),
        out.expired,
        out.superseded,
        counts(&out.by_type),
        counts(&out.by_project),
        out.session_project.as_deref().unwrap_or("(none: global)")
    )
}
