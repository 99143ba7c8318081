//! `cairn consolidate` and `cairn providers`.

use anyhow::Result;
use cairn_core::api::{self, ConsolidateInput, ConsolidateOutput, ProviderCheck};
use cairn_core::Cairn;

use crate::args::{ConsolidateArgs, ProvidersArgs};
use crate::cmd::{caller, print_json};
use crate::out::{self, paint};

/// Run `cairn consolidate`.
pub fn run(cairn: &Cairn, a: ConsolidateArgs, json: bool) -> Result<()> {
    let input = ConsolidateInput {
        project: a.project,
        global: a.global,
        keep: Some(a.keep),
        max_groups: Some(a.max_groups),
        dry_run: a.dry_run,
    };
    let outputs = if a.all_tenants {
        if crate::cmd::tenant_named().is_some() {
            return Err(
                cairn_core::Error::invalid("give --tenant or --all-tenants, not both").into(),
            );
        }
        api::consolidate_all(cairn, &input, &caller().actor)?
    } else {
        vec![api::consolidate(cairn, &caller(), &input)?]
    };
    if json {
        return match outputs.as_slice() {
            [one] if !a.all_tenants => print_json(one),
            _ => print_json(&outputs),
        };
    }
    for o in &outputs {
        print_report(o);
    }
    Ok(())
}

fn print_report(o: &ConsolidateOutput) {
    let verb = if o.dry_run {
        "would consolidate"
    } else {
        "consolidated"
    };
    println!(
        "{} {verb} {} in {}{}",
        paint(&format!("tenant {}:", o.tenant), out::BOLD),
        api::plural(o.episodes, "episode", "episodes"),
        api::plural(o.groups.len(), "group", "groups"),
        if o.remaining > 0 {
            format!(" ({} left for the next run)", o.remaining)
        } else {
            String::new()
        }
    );
    for g in &o.groups {
        let project = g.project.as_deref().unwrap_or("global");
        let by = g.summarised_by.as_ref().map_or(String::new(), |b| {
            let mut s = format!(" [{}", b.model.as_deref().unwrap_or(&b.by));
            if let Some(f) = &b.fallback {
                s.push_str(&format!(", fell back: {}", out::one_line(f, 80)));
            }
            s.push(']');
            s
        });
        let id = g.summary_id.as_deref().unwrap_or("-");
        println!(
            "  {} {project} {} ({} episodes){}",
            paint(id, out::DIM),
            g.group,
            g.sources.len(),
            paint(&by, out::DIM)
        );
        if let Some(text) = &g.summary {
            println!("    {}", out::one_line(text, 100));
        }
    }
}

fn check_line(c: &Option<ProviderCheck>) -> String {
    match c {
        None => String::new(),
        Some(c) if c.ok => paint(&format!("  ok ({} ms)", c.ms), out::GREEN),
        Some(c) => paint(
            &format!(
                "  failing ({} ms): {}",
                c.ms,
                c.error.as_deref().unwrap_or("unknown")
            ),
            out::RED,
        ),
    }
}

/// Run `cairn providers`.
pub fn providers(
    cairn: &Cairn,
    sources: &[cairn_providers::Setting],
    a: &ProvidersArgs,
    json: bool,
) -> Result<()> {
    let status = api::providers(cairn, a.check);
    if json {
        let mut value = serde_json::to_value(&status)?;
        value["settings"] = serde_json::to_value(sources)?;
        return print_json(&value);
    }
    match &status.chat {
        Some(c) => println!(
            "chat:       {} at {} ({}){}",
            c.info.model,
            c.info.url,
            c.info.api,
            check_line(&c.check)
        ),
        None => println!("chat:       none (summaries and titles are extractive; set CAIRN_CHAT_URL and CAIRN_CHAT_MODEL, or [providers.chat] in the configuration file)"),
    }
    println!(
        "embeddings: {} ({} dimensions){}",
        status.embedder.model,
        status.embedder.dim,
        check_line(&status.embedder.check)
    );
    println!(
        "reranker:   {}",
        status
            .reranker
            .as_deref()
            .unwrap_or("none (recall's own order)")
    );
    if !sources.is_empty() {
        println!("settings (environment over the configuration file over defaults):");
        for s in sources {
            println!(
                "  {:<16} {:<36} {}",
                s.name,
                s.value,
                paint(&s.source, out::DIM)
            );
        }
    }
    let failing = [
        status.chat.as_ref().and_then(|c| c.check.as_ref()),
        status.embedder.check.as_ref(),
    ]
    .into_iter()
    .flatten()
    .any(|c| !c.ok);
    if failing {
        anyhow::bail!(cairn_core::Error::provider("a provider is not answering"));
    }
    Ok(())
}
