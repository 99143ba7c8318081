//! `cairn keys`: API keys for `cairn serve`; `cairn settings`: the
//! tenant's settings.

use anyhow::Result;
use cairn_core::api::{self, CreateKeyInput, KeyView, SettingsInput};
use cairn_core::Cairn;

use crate::args::{KeyAction, SettingsAction};
use crate::cmd::print_json;
use crate::out::{paint, BOLD, DIM, YELLOW};

/// Run `cairn keys …`.
///
/// `tenant` is `--tenant`: the tenant of a new key (`None`: the store's
/// default tenant), or the only tenant whose keys are listed.
pub fn run(cairn: &Cairn, action: KeyAction, tenant: Option<String>, json: bool) -> Result<()> {
    match action {
        KeyAction::Create {
            role,
            expires,
            label,
        } => {
            let made = api::create_key(
                cairn,
                CreateKeyInput {
                    tenant,
                    role,
                    expires,
                    label,
                },
            )?;
            if json {
                return print_json(&made);
            }
            let until = made
                .expires_at
                .as_deref()
                .map_or("never expires".to_string(), |t| format!("expires {t}"));
            println!(
                "Key {} for tenant {} ({}, {until}).",
                made.id, made.tenant, made.role
            );
            println!(
                "{}",
                paint(
                    "Store it now: it is not shown again, and only its hash is kept.",
                    YELLOW
                )
            );
            println!("\n{}", paint(&made.key, BOLD));
            Ok(())
        }
        KeyAction::List => {
            let keys = api::list_keys(cairn, tenant.as_deref())?;
            if json {
                return print_json(&keys);
            }
            if keys.is_empty() {
                println!("No API keys. Make one: cairn keys create --role write");
            }
            for k in &keys {
                println!("{}", line(k));
            }
            Ok(())
        }
        KeyAction::Revoke { id } => {
            let key = api::revoke_key(cairn, &id)?;
            if json {
                return print_json(&key);
            }
            println!(
                "Revoked key {} (tenant {}, {}).",
                key.id, key.tenant, key.role
            );
            Ok(())
        }
    }
}

fn line(k: &KeyView) -> String {
    let used = k
        .last_used_at
        .as_deref()
        .map_or("never used".to_string(), |t| format!("last used {t}"));
    let label = k
        .label
        .as_deref()
        .map(|l| format!("  {l}"))
        .unwrap_or_default();
    format!(
        "{}  {:<7} {:<6} {}{}  {}",
        k.id,
        k.status,
        k.role,
        k.tenant,
        label,
        paint(&used, DIM)
    )
}

/// Run `cairn settings [set NAME VALUE]` for the tenant of `--tenant`.
pub fn settings(cairn: &Cairn, action: Option<SettingsAction>, json: bool) -> Result<()> {
    let caller = crate::cmd::caller();
    let view = match action {
        None => api::settings(cairn, &caller)?,
        Some(SettingsAction::Set { name, value }) => {
            api::set_settings(cairn, &caller, SettingsInput::named(&name, &value)?)?
        }
    };
    if json {
        return print_json(&view);
    }
    println!("Settings of tenant {}:", view.tenant);
    println!(
        "  redact_personal  {}  {}",
        if view.redact_personal { "on " } else { "off" },
        paint(
            "redact e-mail addresses and phone numbers (secrets always are)",
            DIM
        )
    );
    println!(
        "  conflicts        {}  {}",
        view.conflicts.as_str(),
        paint(
            if view.conflicts_set {
                "what a write's conflict with an older memory does (the tenant's own)"
            } else {
                "what a write's conflict with an older memory does (the server's; set to override)"
            },
            DIM
        )
    );
    Ok(())
}
