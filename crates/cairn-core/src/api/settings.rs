//! A tenant's settings: read them all, change some. Today one:
//! `redact_personal`, whether e-mail addresses and phone numbers are
//! redacted from what the tenant writes (secrets always are; see
//! [`crate::engine::RedactionPolicy`]).

use serde::{Deserialize, Serialize};

use super::Caller;
use crate::engine::Cairn;
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
}

/// The settings to change; a field left out keeps its value.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SettingsInput {
    /// Redact e-mail addresses and phone numbers from what is written
    /// from now on (what is stored stays as stored).
    pub redact_personal: Option<bool>,
}

/// The names [`SettingsInput::named`] accepts.
pub const SETTING_NAMES: [&str; 1] = ["redact_personal"];

impl SettingsInput {
    /// The change a setting's name and value say, as typed on a command
    /// line (`redact_personal off`); on/off, true/false, yes/no.
    pub fn named(name: &str, value: &str) -> Result<Self> {
        let on = match value.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" => true,
            "off" | "false" | "no" => false,
            other => {
                return Err(crate::Error::invalid(format!(
                    "`{other}` is not a value of {name}: use on or off"
                )))
            }
        };
        match name.trim().replace('-', "_").as_str() {
            "redact_personal" => Ok(SettingsInput {
                redact_personal: Some(on),
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
    Ok(SettingsView {
        tenant: caller.tenant.clone(),
        redact_personal: cairn.redact_personal(&caller.tenant)?,
    })
}

/// Change the caller's tenant's settings; answers them all, as changed.
pub fn set_settings(cairn: &Cairn, caller: &Caller, input: SettingsInput) -> Result<SettingsView> {
    if let Some(on) = input.redact_personal {
        cairn.set_redact_personal(&caller.tenant, on)?;
    }
    settings(cairn, caller)
}
