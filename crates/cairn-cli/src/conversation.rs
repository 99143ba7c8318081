//! `cairn conversation`: transcripts in, messages logged, the hierarchy
//! listed and shown.

use anyhow::Result;
use cairn_core::api::{self, ConversationTree};
use cairn_core::window::Window;
use cairn_core::wire::MessageRecord;
use cairn_core::Cairn;

use crate::args::ConversationAction;
use crate::cmd::{bytes_bar, caller, open_lines, print_json, text_arg};
use crate::out::{paint, BOLD, DIM, GREEN, YELLOW};

/// Run `cairn conversation …`.
pub fn run(cairn: &Cairn, action: ConversationAction, json: bool) -> Result<()> {
    match action {
        ConversationAction::Import {
            file,
            project,
            strict,
        } => import(cairn, &file, project, strict, json),
        ConversationAction::Log {
            conversation,
            speaker,
            session,
            project,
            text,
        } => {
            let record = MessageRecord {
                conversation,
                session,
                speaker: Some(speaker),
                text: text_arg(&text)?,
                ..MessageRecord::default()
            };
            log(cairn, project, record, json)
        }
        ConversationAction::List => list(cairn, json),
        ConversationAction::Search(args) => crate::cmd::recall(cairn, *args, json),
        ConversationAction::Window {
            session,
            budget,
            working_tokens,
            project,
            tokenizer,
            format,
            message,
        } => {
            let message = if message.is_empty() {
                String::new()
            } else {
                text_arg(&message)?
            };
            let window = api::window(
                cairn,
                &caller(),
                api::WindowInput {
                    session,
                    message,
                    project,
                    budget,
                    working_tokens,
                    tokenizer: Some(tokenizer),
                    format: Some(format),
                },
            )?;
            print_window(&window, json)
        }
        ConversationAction::Stats {
            conversation,
            tokenizer,
        } => stats(cairn, conversation.as_deref(), &tokenizer, json),
        ConversationAction::Show { id } => {
            let tree = api::show_conversation(cairn, &caller(), &id)?;
            if json {
                return print_json(&tree);
            }
            print_tree(cairn, &tree);
            Ok(())
        }
    }
}

/// `cairn conversation import`.
fn import(
    cairn: &Cairn,
    file: &std::path::Path,
    project: Option<String>,
    strict: bool,
    json: bool,
) -> Result<()> {
    let (reader, size) = open_lines(file)?;
    let bar = bytes_bar(size);
    bar.set_message("importing");
    let reader = Counted {
        inner: reader,
        bar: bar.clone(),
    };
    let mut progress = |done: usize| bar.set_message(format!("importing ({done} messages)"));
    let outcome = api::import_transcript(cairn, &caller(), project, reader, strict, &mut progress);
    bar.finish_and_clear();
    let report = outcome?;
    if json {
        return print_json(&report);
    }
    println!(
        "{} {} messages into {} conversation(s), {} topic(s) started ({} already present)",
        paint("imported", GREEN),
        report.imported,
        report.conversations.len(),
        report.topics_started,
        report.skipped_existing
    );
    if let Some(reason) = &report.pending_reason {
        println!(
            "{} {} messages: {reason}",
            paint("kept pending", YELLOW),
            report.pending
        );
    }
    for (line, problem) in &report.errors {
        eprintln!("{} line {line}: {problem}", paint("skipped", YELLOW));
    }
    Ok(())
}

/// `cairn conversation log`.
fn log(cairn: &Cairn, project: Option<String>, record: MessageRecord, json: bool) -> Result<()> {
    let logged = api::log(
        cairn,
        &caller(),
        api::LogInput {
            project,
            messages: vec![record],
        },
    )?;
    if json {
        return print_json(&logged);
    }
    let ids: Vec<&str> = logged
        .logged
        .iter()
        .map(|m| m.id.as_str())
        .chain(logged.pending.iter().map(|m| m.id.as_str()))
        .collect();
    let mut shorts = crate::cmd::short_texts(cairn, &ids).into_iter();
    for m in &logged.logged {
        let topic = if m.new_topic {
            format!("new topic {}", m.topic)
        } else {
            format!("topic {}", m.topic)
        };
        println!(
            "{} {} ({topic}, importance {:.2})",
            paint("logged", GREEN),
            shorts.next().unwrap_or_default(),
            m.importance
        );
    }
    for _ in &logged.pending {
        println!(
            "{} {}: {}",
            paint("kept pending", YELLOW),
            shorts.next().unwrap_or_default(),
            logged.pending_reason.as_deref().unwrap_or_default()
        );
    }
    Ok(())
}

/// `cairn conversation list`.
fn list(cairn: &Cairn, json: bool) -> Result<()> {
    let list = api::list_conversations(cairn, &caller())?;
    if json {
        return print_json(&list);
    }
    if list.is_empty() {
        println!("No conversations. Import one: cairn conversation import FILE");
    }
    for c in &list {
        println!(
            "{}  {}  {} messages, {} topics  {}",
            paint(&c.id, BOLD),
            paint(&c.updated_at, DIM),
            c.messages,
            c.topics,
            c.title
        );
    }
    Ok(())
}

/// `cairn conversation stats`.
fn stats(cairn: &Cairn, conversation: Option<&str>, tokenizer: &str, json: bool) -> Result<()> {
    let stats = api::conversation_stats(cairn, &caller(), conversation, Some(tokenizer))?;
    if json {
        return print_json(&stats);
    }
    if stats.totals.is_empty() {
        println!("No conversations. Import one: cairn conversation import FILE");
    }
    for t in &stats.totals {
        println!(
            "{:<12} {:<40} {:>6} messages {:>9} tokens",
            t.level.as_str(),
            t.id,
            t.messages,
            t.tokens
        );
    }
    println!("{}", paint(&format!("({})", stats.tokenizer.as_str()), DIM));
    Ok(())
}

fn print_tree(cairn: &Cairn, tree: &ConversationTree) {
    let c = &tree.conversation;
    let ids: Vec<&str> = tree
        .topic_list
        .iter()
        .flat_map(|t| t.messages.iter().map(|m| m.id.as_str()))
        .collect();
    let mut shorts = crate::cmd::short_texts(cairn, &ids).into_iter();
    println!(
        "{}  {} messages, {} topics, {} → {}",
        paint(&c.id, BOLD),
        c.messages,
        c.topics,
        c.created_at,
        c.updated_at
    );
    for t in &tree.topic_list {
        println!("├─ {} {}", paint(&t.id, BOLD), t.title);
        if let Some(failure) = t.titled_by.as_ref().and_then(|by| by.fallback.as_deref()) {
            println!(
                "│  {}",
                paint(
                    &format!("extractive title: the chat model failed ({failure})"),
                    YELLOW
                )
            );
        }
        if !t.entities.is_empty() {
            println!("│  {}", paint(&t.entities.join(", "), DIM));
        }
        for m in &t.messages {
            println!(
                "│  {} {} {}",
                paint(&shorts.next().unwrap_or_default(), DIM),
                paint(&m.at[..16.min(m.at.len())], DIM),
                m.content
            );
        }
    }
}

/// A reader that moves a progress bar by the bytes read.
struct Counted<R> {
    inner: R,
    bar: indicatif::ProgressBar,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

impl<R: std::io::BufRead> std::io::BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.bar.inc(amt as u64);
        self.inner.consume(amt);
    }
}

/// A window (or a prompt's memory block): its text on stdout and what it
/// took on stderr, or its JSON.
pub(crate) fn print_window(window: &Window, json: bool) -> Result<()> {
    if json {
        return print_json(window);
    }
    println!("{}", window.text);
    eprintln!(
        "{}",
        paint(
            &format!(
                "{} of {} tokens ({}), {} items, {} left out",
                window.total_tokens,
                window.budget,
                window.tokenizer.as_str(),
                window.items.len(),
                window.left_out.len()
            ),
            DIM
        )
    );
    Ok(())
}
