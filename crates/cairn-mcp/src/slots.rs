//! The `slot` tool's actions, over the application layer's slot calls,
//! with the session's active slot.

use cairn_core::api::{self, SaveInput, SlotListInput, SlotSearchInput};
use cairn_core::{Error, Result};
use rmcp::model::Extensions;
use serde::Serialize;

use crate::server::CairnMcp;
use crate::types::{SlotOutput, SlotParams};

fn output<T: Serialize>(action: &str, value: &T, text: String) -> Result<SlotOutput> {
    Ok(SlotOutput {
        action: action.to_string(),
        result: serde_json::to_value(value).map_err(Error::storage)?,
        text,
    })
}

/// The `slot` tool's actions that write to the store.
pub(crate) const WRITING_ACTIONS: &[&str] = &["save", "save_progress", "archive", "restore"];

/// Run one action of the `slot` tool.
pub(crate) async fn run(mcp: &CairnMcp, p: SlotParams, ext: &Extensions) -> Result<SlotOutput> {
    let action = p.action.trim().to_ascii_lowercase();
    let session = mcp
        .slot_session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let named = p
        .name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .or(session.active.clone())
        .or(mcp.config.default_slot.clone());
    let need_name = || {
        named.clone().ok_or_else(|| {
            Error::invalid(format!(
                "`{action}` needs a slot: give `name`, or choose one with action `use`"
            ))
        })
    };
    let text = || {
        p.text
            .clone()
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| Error::invalid(format!("`{action}` needs `text`")))
    };
    match action.as_str() {
        "use" => {
            let name = cairn_core::memory::normalize_slot_name(&need_name()?)?;
            mcp.slot_session
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .active = Some(name.clone());
            output(
                "use",
                &serde_json::json!({"active": name}),
                format!("calls without a name now use slot {name}"),
            )
        }
        "zero" => zero(mcp, &p, ext).await,
        "save" | "save_progress" => {
            let input = SaveInput {
                name: need_name()?,
                text: text()?,
                progress: action == "save_progress",
                ratio: p.ratio,
                author: None,
            };
            let out = mcp
                .call(ext, move |c, caller| api::slot_save(c, caller, input))
                .await?;
            let t = format!(
                "saved entry {} to {} ({} entries)",
                out.entry.index, out.slot.name, out.slot.entries
            );
            output(&action, &out, t)
        }
        "read" => {
            let name = need_name()?;
            let out = mcp
                .call(ext, move |c, caller| {
                    api::slot_read(c, caller, &name, 0, None, false)
                })
                .await?;
            let t = out
                .entries
                .iter()
                .map(|e| format!("#{} {}", e.index, e.memory.record.content))
                .collect::<Vec<_>>()
                .join("\n");
            output("read", &out, t)
        }
        "select" => {
            let name = need_name()?;
            let which = p
                .which
                .clone()
                .ok_or_else(|| Error::invalid("`select` needs `which`"))?;
            let out = mcp
                .call(ext, move |c, caller| {
                    api::slot_select(c, caller, &name, &which)
                })
                .await?;
            let t = format!("#{} {}", out.entry.index, out.entry.memory.record.content);
            output("select", &out, t)
        }
        "search" => search(mcp, &p, ext).await,
        "list" => list(mcp, p.include_archived, ext).await,
        "archive" => {
            let name = need_name()?;
            let reason = p.reason.clone();
            let out = mcp
                .call(ext, move |c, caller| {
                    api::slot_archive(c, caller, &name, reason)
                })
                .await?;
            let t = format!("archived {}", out.name);
            output("archive", &out, t)
        }
        "restore" => {
            let name = need_name()?;
            let out = mcp
                .call(ext, move |c, caller| api::slot_restore(c, caller, &name))
                .await?;
            let t = format!("restored {}", out.name);
            output("restore", &out, t)
        }
        "export" => {
            let name = need_name()?;
            let format = p.format.clone().unwrap_or_else(|| "md".into());
            let out = mcp
                .call(ext, move |c, caller| {
                    api::slot_export(c, caller, &name, format.parse()?)
                })
                .await?;
            output("export", &out, out.clone())
        }
        other => Err(Error::invalid(format!(
            "unknown slot action `{other}`: use, save, save_progress, read, select, search, list, archive, restore, export or zero"
        ))),
    }
}

/// `zero`: pause or resume saving, for the named slot or every slot.
async fn zero(mcp: &CairnMcp, p: &SlotParams, ext: &Extensions) -> Result<SlotOutput> {
    let on =
        p.on.ok_or_else(|| Error::invalid("`zero` needs `on`: true or false"))?;
    let input = api::ZeroInput {
        on,
        slot: p.name.clone(),
    };
    let out = mcp
        .call(ext, move |c, caller| api::slot_zero(c, caller, input))
        .await?;
    let whom = out
        .slot
        .as_ref()
        .map_or("every slot".to_string(), |s| format!("slot {s}"));
    let t = format!(
        "zero mode {} for {whom}",
        if out.zero {
            "on: saves are refused"
        } else {
            "off"
        }
    );
    output("zero", &out, t)
}

/// `search`: slots' entries matching `query` (`name` narrows to one slot).
async fn search(mcp: &CairnMcp, p: &SlotParams, ext: &Extensions) -> Result<SlotOutput> {
    let query = p
        .query
        .clone()
        .ok_or_else(|| Error::invalid("`search` needs `query`"))?;
    let input = SlotSearchInput {
        query,
        slots: p
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .into_iter()
            .collect(),
        include_archived: p.include_archived,
        ..Default::default()
    };
    let out = mcp
        .call(ext, move |c, caller| api::slot_search(c, caller, input))
        .await?;
    let t = out
        .results
        .iter()
        .map(|r| {
            format!(
                "{} [{}] {}",
                r.memory.short_id,
                r.memory.record.slot.as_deref().unwrap_or(""),
                r.highlight
                    .as_ref()
                    .map_or(r.memory.record.content.as_str(), |h| h.snippet.as_str())
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    output("search", &out, t)
}

/// `list`: the slots, with their entry counts.
async fn list(mcp: &CairnMcp, include_archived: bool, ext: &Extensions) -> Result<SlotOutput> {
    let out = mcp
        .call(ext, move |c, caller| {
            api::slot_list(
                c,
                caller,
                SlotListInput {
                    include_archived,
                    ..Default::default()
                },
            )
        })
        .await?;
    let t = out
        .iter()
        .map(|s| format!("{} ({} entries)", s.name, s.entries))
        .collect::<Vec<_>>()
        .join("\n");
    output("list", &out, t)
}
