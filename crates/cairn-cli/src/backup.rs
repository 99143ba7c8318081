//! `cairn backup` and `cairn restore`: parse, call
//! [`cairn_core::api::backup`] / [`cairn_core::api::restore`] with SQLite
//! backup files, print.

use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use cairn_core::api::{self, RecordSum};
use cairn_core::Store;
use cairn_sqlite::SqliteBackupFile;

use crate::args::Cli;
use crate::cmd::{default_db_path, open_store, print_json, store_spec, StoreSpec};
use crate::out::{self, paint};

/// The store the command line names (the default file if none); made if
/// `create`, else it must exist.
fn store(cli: &Cli, create: bool) -> Result<Arc<dyn Store>> {
    let text = match store_spec(cli)? {
        Some(StoreSpec::Postgres(url)) => url,
        Some(StoreSpec::Sqlite(path)) => format!("sqlite:{}", path.display()),
        None => format!("sqlite:{}", default_db_path().display()),
    };
    open_store(&text, create)
}

fn print_sums(sums: &[RecordSum]) {
    println!("{:<12} {:>9}  sha256", "records", "count");
    for s in sums {
        println!("{:<12} {:>9}  {}", s.table, s.count, &s.sha256[..16]);
    }
}

/// `cairn backup FILE`.
pub fn backup(cli: &Cli, file: &Path) -> Result<()> {
    let source = store(cli, false)?;
    let out = api::backup(&*source, file, &SqliteBackupFile)?;
    if cli.json {
        return print_json(&out);
    }
    println!(
        "{} {} ({} bytes, {}, taken {})",
        paint("backed up to", out::GREEN),
        out.path,
        out.bytes,
        out.method,
        out.created_at
    );
    print_sums(&out.checksums);
    Ok(())
}

/// `cairn restore FILE`.
pub fn restore(cli: &Cli, file: &Path) -> Result<()> {
    let dest = store(cli, true)?;
    let out = api::restore(&*dest, file, &SqliteBackupFile)?;
    if cli.json {
        return print_json(&out);
    }
    println!(
        "{} the backup taken {}: {} memories, {} receipts, {} keys, {} collection records; \
         checksums match",
        paint("restored", out::GREEN),
        out.created_at,
        out.memories,
        out.receipts,
        out.keys,
        out.collections
    );
    print_sums(&out.checksums);
    Ok(())
}
