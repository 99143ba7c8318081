//! Human output: aligned tables with short ids, colour only on a terminal
//! (and never with NO_COLOR set).

use std::io::IsTerminal;
use std::sync::OnceLock;

use cairn_core::api::{plural, HistoryOutput, MemoryView};
use cairn_core::time::{ago, format_timestamp};
use cairn_core::{Memory, Timestamp, DEFAULT_TENANT};

pub const RED: &str = "31";
pub const GREEN: &str = "32";
pub const YELLOW: &str = "33";
pub const DIM: &str = "2";
pub const BOLD: &str = "1";

fn colour_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os("NO_COLOR").is_none()
            && std::io::stdout().is_terminal()
            && std::io::stderr().is_terminal()
    })
}

/// `text` in an ANSI colour when writing to a terminal.
pub fn paint(text: &str, code: &str) -> String {
    if colour_on() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// A byte count as people read it: `812 B`, `12.3 KiB`, `1.0 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Cut `text` to one line of at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

fn scope(m: &Memory) -> String {
    m.project.clone().unwrap_or_else(|| "(global)".into())
}

/// Print rows as an aligned table; the last column takes what is left.
pub fn table(headers: &[&str], rows: &[Vec<String>]) {
    let n = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(n - 1) {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 < n {
                let pad = widths[i] - c.chars().count();
                s.push_str(c);
                s.push_str(&" ".repeat(pad + 2));
            } else {
                s.push_str(c);
            }
        }
        s
    };
    println!(
        "{}",
        paint(&line(headers.iter().map(|h| h.to_string()).collect()), BOLD)
    );
    for r in rows {
        println!("{}", line(r.clone()));
    }
}

/// The memory a view shows (views are what every answer carries; this
/// terminal front end formats the typed fields).
fn memory_of(view: &MemoryView) -> Option<Memory> {
    let record = view.record.clone();
    record.into_memory(DEFAULT_TENANT, 0).ok().map(|(m, _)| m)
}

/// Rows of a memory listing, with the ids to show.
pub fn memory_rows(list: &[MemoryView], shorts: &[String], now: Timestamp) -> Vec<Vec<String>> {
    list.iter()
        .filter_map(memory_of)
        .zip(shorts)
        .map(|(m, short)| {
            vec![
                short.clone(),
                m.kind.to_string(),
                scope(&m),
                m.tags.join(","),
                ago(m.updated_at, now),
                one_line(&m.content, 70),
            ]
        })
        .collect()
}

/// Print one memory in full.
pub fn memory_detail(view: &MemoryView, short: &str) {
    let Some(m) = &memory_of(view) else {
        println!("{}", serde_json::to_string_pretty(view).unwrap_or_default());
        return;
    };
    let t = |v: Option<Timestamp>| v.map(format_timestamp).unwrap_or_else(|| "-".into());
    println!("{} {} ({short})", paint("id:", BOLD), m.id);
    println!(
        "{} {} ({})",
        paint("type:", BOLD),
        m.kind,
        tier_words(m.kind.tier())
    );
    println!("{} {}", paint("scope:", BOLD), scope(m));
    println!(
        "{} {}",
        paint("tags:", BOLD),
        if m.tags.is_empty() {
            "-".into()
        } else {
            m.tags.join(", ")
        }
    );
    if !m.metadata.is_empty() {
        println!(
            "{} {}",
            paint("metadata:", BOLD),
            serde_json::Value::Object(m.metadata.clone())
        );
    }
    println!(
        "{} {}  {} {}  {} {}",
        paint("importance:", BOLD),
        m.importance,
        paint("weight:", BOLD),
        m.weight,
        paint("source:", BOLD),
        m.source
    );
    println!(
        "{} {}  {} {}",
        paint("created:", BOLD),
        t(Some(m.created_at)),
        paint("updated:", BOLD),
        t(Some(m.updated_at))
    );
    println!(
        "{} {} ({} accesses)",
        paint("last accessed:", BOLD),
        t(m.last_accessed_at),
        m.access_count
    );
    if m.expires_at.is_some() {
        println!("{} {}", paint("expires:", BOLD), t(m.expires_at));
    }
    if m.valid_from.is_some() || m.valid_to.is_some() {
        println!(
            "{} {} → {}",
            paint("valid:", BOLD),
            t(m.valid_from),
            t(m.valid_to)
        );
    }
    if let Some(s) = m.supersedes {
        println!("{} {}", paint("supersedes:", BOLD), s);
    }
    if let Some(s) = m.superseded_by {
        println!("{} {}", paint("superseded by:", YELLOW), s);
    }
    println!();
    println!("{}", m.content);
}

/// A memory's history: a block per version, oldest first, or its
/// deletion receipt.
pub fn history(h: &HistoryOutput, full: bool) {
    if let Some(r) = &h.deleted {
        println!("{} {}", paint("id:", BOLD), h.id);
        println!(
            "{} {} by {} ({}); {} erased with it",
            paint("deleted:", RED),
            r.deleted_at,
            r.actor,
            r.reason,
            plural(r.versions, "version", "versions")
        );
        return;
    }
    println!(
        "{} {} ({})",
        paint("id:", BOLD),
        h.id,
        plural(h.versions.len(), "version", "versions")
    );
    for v in &h.versions {
        println!();
        let reason = v
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        println!(
            "{} {} {} by {}{reason}",
            paint(&format!("v{}", v.version), BOLD),
            paint(v.change.as_str(), YELLOW),
            v.at,
            v.actor
        );
        let m = &v.memory;
        let scope = m.project.as_deref().unwrap_or("(global)");
        let kind = m.kind.as_deref().unwrap_or_default();
        let tags = match m.tags.is_empty() {
            true => String::new(),
            false => format!(" #{}", m.tags.join(" #")),
        };
        println!("  {}", paint(&format!("{kind} · {scope}{tags}"), DIM));
        let text = match full {
            true => m.content.clone(),
            false => one_line(&m.content, 96),
        };
        println!("  {text}");
    }
}

/// `options` set to create a file readable and writable by its owner only
/// (mode 0600, which no umask widens): exports hold every memory in clear
/// text, and the store they come from is 0600 too.
pub fn private_file(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Write `bytes` to `path` as a private file (see [`private_file`]); a file
/// already there is truncated and made private first.
pub fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    let mut file = private_file(&mut options).open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)
}

/// What a tier holds, in words: shown beside a memory's type.
fn tier_words(tier: cairn_core::Tier) -> &'static str {
    match tier {
        cairn_core::Tier::Episodic => "an event",
        cairn_core::Tier::Semantic => "knowledge",
        cairn_core::Tier::Procedural => "how to act; first into a token budget",
        cairn_core::Tier::Working => "task state",
    }
}

/// A store's model as a person reads it (`NAME+names (384 dimensions)`
/// as recorded): the embedding model, its dimensions, and what the
/// `+tags`/`+names` of its name add to each memory's text before it is
/// embedded.
pub fn model_label(recorded: &str) -> String {
    let (name, dims) = match recorded.split_once(" (") {
        Some((name, dims)) => (name, format!(", {}", dims.trim_end_matches(')'))),
        None => (recorded, String::new()),
    };
    let mut parts = name.split('+');
    let model = parts.next().unwrap_or(name);
    let added: Vec<&str> = parts
        .map(|p| match p {
            "names" => "the names it mentions",
            "tags" => "its tags",
            other => other,
        })
        .collect();
    if added.is_empty() {
        format!("{model}{dims}")
    } else {
        format!(
            "{model}{dims}; each memory's text embedded with {}",
            added.join(" and ")
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_recorded_model_reads_in_words() {
        assert_eq!(
            super::model_label("all-MiniLM-L6-v2+names (384 dimensions)"),
            "all-MiniLM-L6-v2, 384 dimensions; each memory's text embedded with the names it mentions"
        );
        assert_eq!(super::model_label("bge-small"), "bge-small");
        assert_eq!(
            super::model_label("m+tags+names"),
            "m; each memory's text embedded with its tags and the names it mentions"
        );
    }

    #[test]
    fn byte_counts_read_as_people_read_them() {
        assert_eq!(super::bytes(812), "812 B");
        assert_eq!(super::bytes(12_595), "12.3 KiB");
        assert_eq!(super::bytes(1 << 20), "1.0 MiB");
    }
}
