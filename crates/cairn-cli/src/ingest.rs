//! `cairn ingest`: raw text (words, a file or stdin) through the ingestion
//! pipeline, with a receipt of every chunk.

use std::path::Path;

use anyhow::{Context as _, Result};
use cairn_core::api::{self, IngestInput, IngestOutput};
use cairn_core::chat::Generated;
use cairn_core::engine::Decision;
use cairn_core::Cairn;
use indicatif::ProgressBar;

use crate::args::IngestArgs;
use crate::cmd::{caller, print_json, styled, text_arg};
use crate::out::{self, paint};

/// The text: a file when the one argument names one, stdin for `-`, else
/// the words.
fn text(words: &[String]) -> Result<String> {
    if let [one] = words {
        let path = Path::new(one);
        if one != "-" && path.is_file() {
            return std::fs::read_to_string(path)
                .with_context(|| format!("reading {} (ingest takes UTF-8 text)", path.display()));
        }
    }
    text_arg(words)
}

/// Run `cairn ingest`.
pub fn run(cairn: &Cairn, a: IngestArgs, json: bool) -> Result<()> {
    let input = IngestInput {
        text: text(&a.text)?,
        project: a.project,
        tags: a.tags,
        threshold: Some(a.threshold),
        dry_run: a.dry_run,
        redact: Some(!a.no_redact),
        source: None,
        pooled_vectors: a.fast,
        facts: a.facts,
    };
    let bar = styled(
        ProgressBar::new(0),
        "{spinner} {msg} [{bar:30}] {pos}/{len} chunks ({per_sec}, eta {eta})",
    );
    bar.set_message("ingesting");
    let out = api::ingest(cairn, &caller(), input, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let out = out?;
    if json {
        return print_json(&out);
    }
    print_receipt(&out);
    Ok(())
}

fn print_receipt(r: &IngestOutput) {
    if let (Some(title), Some(by)) = (&r.title, &r.titled_by) {
        println!("{} {title} ({})", paint("title", out::BOLD), generated(by));
    }
    for c in &r.chunks {
        let (mark, colour) = match c.decision {
            Decision::Stored => ("stored ", out::GREEN),
            Decision::Merged => ("merged ", out::YELLOW),
            Decision::Skipped => ("skipped", out::DIM),
            Decision::Pending => ("pending", out::YELLOW),
        };
        let id =
            c.id.as_deref()
                .map_or(String::new(), |i| format!(" {}", &i[..13.min(i.len())]));
        let index = match c.fact_of {
            Some(of) => format!("{of}.f"),
            None => c.index.to_string(),
        };
        println!(
            "{} {:>3} {:<10} {:.2}{}  {}",
            paint(mark, colour),
            index,
            c.kind.as_str(),
            c.importance,
            id,
            out::one_line(&c.text, 70)
        );
        if c.decision != Decision::Stored {
            println!("              {}", paint(&c.reason, out::DIM));
        }
        if let Some(by) = &c.facts {
            println!("              facts: {}", paint(&generated(by), out::DIM));
        }
    }
    let verb = if r.dry_run { "would store" } else { "stored" };
    println!(
        "{} {}, merged {}, skipped {} of {} chunks{}{}",
        paint(verb, out::BOLD),
        r.stored,
        r.merged,
        r.skipped,
        r.chunks.len() - r.facts,
        if r.facts > 0 {
            format!(" and {} facts", r.facts)
        } else {
            String::new()
        },
        if r.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    if r.pending > 0 {
        println!(
            "{} {} chunks: the embedding endpoint failed; they are stored when it answers (`cairn reindex --pending`, or `cairn serve` in the background)",
            paint("kept pending", out::YELLOW),
            r.pending
        );
    }
    if !r.redacted.is_empty() {
        let kinds: Vec<String> = r.redacted.iter().map(|(k, n)| format!("{n} {k}")).collect();
        println!("{} {}", paint("redacted", out::YELLOW), kinds.join(", "));
    }
}

/// How a text was made, in words.
fn generated(by: &Generated) -> String {
    match (&by.model, &by.fallback) {
        (Some(model), _) => format!("by {model}"),
        (None, Some(why)) => format!("offline: {why}"),
        (None, None) => "offline".into(),
    }
}
