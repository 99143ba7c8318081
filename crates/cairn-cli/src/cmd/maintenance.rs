//! The commands that work on the store as a whole: import, export,
//! stats, gc and reindex.

use super::*;

pub(super) fn import(cairn: &Cairn, a: ImportArgs, json: bool) -> Result<()> {
    if let Some(from) = &a.from {
        return crate::foreign::import(cairn, from, &a, json);
    }
    let (reader, size) = open_lines(&a.file)?;
    // Read and parsed on another thread while this one writes; the bar
    // follows the text handed over, the message the memories written.
    let bar = bytes_bar(size);
    bar.set_message("importing");
    let position = bar.clone();
    let mut written = |p: cairn_core::engine::ImportProgress<'_>| {
        bar.set_message(format!("importing ({} memories)", p.done))
    };
    let outcome = api::import(
        cairn,
        &caller(),
        reader,
        a.strict,
        Box::new(move |read| position.set_position(read)),
        &mut written,
    );
    bar.finish_and_clear();
    let report = outcome?;
    if json {
        return print_json(&report);
    }
    println!(
        "{} {} memories ({} embedded here, {} already present)",
        paint("imported", out::GREEN),
        report.imported,
        report.embedded,
        report.skipped_existing
    );
    for (line, msg) in &report.errors {
        eprintln!(
            "{} line {line}: {msg} (skipped)",
            paint("warning:", out::YELLOW)
        );
    }
    Ok(())
}

pub(super) fn export(cairn: &Cairn, a: ExportArgs) -> Result<()> {
    let write_all = |w: &mut dyn Write| -> Result<usize> {
        let n = api::export(cairn, &caller(), a.embeddings, &mut |line| {
            w.write_all(&line)
                .map_err(|e| Error::storage_from("writing the export", e))
        })?;
        w.flush()?;
        Ok(n)
    };
    match &a.output {
        None => {
            let mut stdout = BufWriter::new(std::io::stdout().lock());
            write_all(&mut stdout)?;
        }
        Some(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let mut tmp = tempfile_in(dir)?;
            let n = {
                let mut w = BufWriter::new(&mut tmp.1);
                write_all(&mut w)?
            };
            tmp.1.sync_all()?;
            std::fs::rename(&tmp.0, path).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("exported {n} memories to {}", path.display());
        }
    }
    Ok(())
}

/// A new file in `dir` with a unique name, for write-then-rename, readable
/// by its owner only whatever the umask (see [`crate::out::private_file`]).
fn tempfile_in(dir: &std::path::Path) -> Result<(PathBuf, File)> {
    for i in 0..100u32 {
        let path = dir.join(format!(".cairn-export-{}-{i}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        match crate::out::private_file(&mut options).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(
                    Error::invalid(format!("cannot write in {}: {e}", dir.display())).into(),
                )
            }
        }
    }
    Err(Error::storage("could not create a temporary file").into())
}

pub(super) fn stats(cairn: &Cairn, json: bool) -> Result<()> {
    let s = api::stats(cairn, &caller())?;
    if json {
        return print_json(&s);
    }
    let counts = |m: &serde_json::Map<String, Value>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("{} {}", paint("memories:", out::BOLD), s.total);
    println!(
        "{} {}  {} {}",
        paint("expired:", out::BOLD),
        s.expired,
        paint("superseded:", out::BOLD),
        s.superseded
    );
    if !s.by_type.is_empty() {
        println!("{} {}", paint("by type:", out::BOLD), counts(&s.by_type));
        println!(
            "{} {}",
            paint("by project:", out::BOLD),
            counts(&s.by_project)
        );
    }
    if let (Some(o), Some(n)) = (&s.oldest, &s.newest) {
        println!("{} {o} → {n}", paint("created:", out::BOLD));
    }
    println!(
        "{} {}",
        paint("model:", out::BOLD),
        s.model
            .as_deref()
            .map_or("(none yet)".to_string(), out::model_label)
    );
    if let Some(b) = s.size_bytes {
        println!(
            "{} {:.1} MiB",
            paint("file size:", out::BOLD),
            b as f64 / 1_048_576.0
        );
    }
    Ok(())
}

pub(super) fn gc(cairn: &Cairn, json: bool) -> Result<()> {
    let out = api::gc(cairn)?;
    if json {
        return print_json(&out);
    }
    let n = out.deleted;
    println!(
        "deleted {n} expired memor{}",
        if n == 1 { "y" } else { "ies" }
    );
    Ok(())
}

pub(super) fn reindex(cairn: &Cairn, json: bool) -> Result<()> {
    let bar = progress_bar(0);
    bar.set_message("re-embedding");
    let out = api::reindex(cairn, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if json {
        return print_json(&out);
    }
    println!(
        "re-embedded {} memories with {}",
        out.reindexed,
        out::model_label(&out.model.to_string())
    );
    Ok(())
}

pub(super) fn embed_pending(cairn: &Cairn, json: bool) -> Result<()> {
    let report = api::embed_pending(cairn)?;
    if json {
        print_json(&report)?;
    } else {
        println!(
            "embedded {} pending writes ({} expired while waiting), {} still waiting",
            report.embedded, report.expired, report.remaining
        );
    }
    match report.failure {
        Some(why) => {
            Err(Error::provider(format!("the embedding endpoint still fails: {why}")).into())
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod store_spec_tests {
    use super::StoreSpec;
    use std::path::PathBuf;

    #[test]
    fn urls_choose_the_backend() {
        assert_eq!(
            StoreSpec::parse("postgres://cairn@db/cairn"),
            StoreSpec::Postgres("postgres://cairn@db/cairn".into())
        );
        assert_eq!(
            StoreSpec::parse("postgresql://db/cairn"),
            StoreSpec::Postgres("postgresql://db/cairn".into())
        );
        assert_eq!(
            StoreSpec::parse("sqlite:/srv/cairn.db"),
            StoreSpec::Sqlite(PathBuf::from("/srv/cairn.db"))
        );
        assert_eq!(
            StoreSpec::parse("cairn.db"),
            StoreSpec::Sqlite(PathBuf::from("cairn.db"))
        );
    }
}
