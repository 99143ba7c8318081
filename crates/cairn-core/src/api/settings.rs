//! A tenant's settings: read them all, change some. `redact_personal`,
//! whether e-mail addresses and phone numbers are redacted from what the
//! tenant writes (secrets always are; see
//! [`crate::engine::RedactionPolicy`]), and `conflicts`, the conflict
//! policy of the tenant's writes that name none
//! ([`crate::engine::ConflictPolicy`]; request > tenant > `cairn.toml` >
//! the core's default).

use serde::{Deserialize, Serialize};

use super::Caller;
use crate::engine::{Cairn, ConflictPolicy};
use crate::Result;

/// A tenant's settings, as every front end shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SettingsView {
    /// The tenant they belong to.
    pub tenant: String,
    /// Whether e-mail addresses and phone numbers are redacted from what
    /// the tenant writes (default true). Keys, tokens, passwords, card
    /// numbers and IBANs are redacted whatever this says.
    pub redact_personal: bool,
    /// The conflict policy the tenant's writes follow when they name none:
    /// the tenant's own, else the server's (`cairn.toml`, else `flag`).
    pub conflicts: ConflictPolicy,
    /// Whether `conflicts` is the tenant's own (false: the server's).
    pub conflicts_set: bool,
}

/// The settings to change; a field left out keeps its value.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SettingsInput {
    /// Redact e-mail addresses and phone numbers from what is written
    /// from now on (what is stored stays as stored).
    pub redact_personal: Option<bool>,
    /// The conflict policy of the tenant's writes that name none: `flag`,
    /// `prefer-newer`, `supersede`, or `default` to follow the server's
    /// again.
    pub conflicts: Option<String>,
}

/// The names [`SettingsInput::named`] accepts.
pub const SETTING_NAMES: [&str; 2] = ["redact_personal", "conflicts"];

impl SettingsInput {
    /// The change a setting's name and value say, as typed on a command
    /// line (`redact_personal off`); on/off, true/false, yes/no.
    pub fn named(name: &str, value: &str) -> Result<Self> {
        let name = name.trim().replace('-', "_");
        if name == "conflicts" {
            return Ok(SettingsInput {
                conflicts: Some(value.to_string()),
                ..Default::default()
            });
        }
        let on = match value.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" => true,
            "off" | "false" | "no" => false,
            other => {
                return Err(crate::Error::invalid(format!(
                    "`{other}` is not a value of {name}: use on or off"
                )))
            }
        };
        match name.as_str() {
            "redact_personal" => Ok(SettingsInput {
                redact_personal: Some(on),
                ..Default::default()
            }),
            other => Err(crate::Error::invalid(format!(
                "unknown setting `{other}`: the settings are {}",
                SETTING_NAMES.join(", ")
            ))),
        }
    }
}

/// The caller's tenant's settings.
pub fn settings(cairn: &Cairn, caller: &Caller) -> Result<SettingsView> {
    let own = cairn.tenant_conflict_policy(&caller.tenant)?;
    Ok(SettingsView {
        tenant: caller.tenant.clone(),
        redact_personal: cairn.redact_personal(&caller.tenant)?,
        conflicts: own.unwrap_or(cairn.conflict_policy()),
        conflicts_set: own.is_some(),
    })
}

/// Change the caller's tenant's settings; answers them all, as changed.
pub fn set_settings(cairn: &Cairn, caller: &Caller, input: SettingsInput) -> Result<SettingsView> {
    // Every value is checked before any is changed.
    let conflicts = match input.conflicts.as_deref().map(str::trim) {
        None => None,
        Some(p) if p.eq_ignore_ascii_case("default") => Some(None),
        Some(p) => Some(Some(p.parse::<ConflictPolicy>().map_err(|_| {
            crate::Error::invalid(format!(
                "`{p}` is not a value of conflicts: use flag, prefer-newer, supersede or default"
            ))
        })?)),
    };
    if let Some(policy) = conflicts {
        cairn.set_tenant_conflict_policy(&caller.tenant, policy)?;
    }
    if let Some(on) = input.redact_personal {
        cairn.set_redact_personal(&caller.tenant, on)?;
    }
    settings(cairn, caller)
}
