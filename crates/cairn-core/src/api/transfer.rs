//! Import and export: JSON Lines in and out, read and written as they
//! stream, for any front end.

use std::io::BufRead;

use super::Caller;
use crate::engine::{Cairn, ImportProgress, ImportReport};
use crate::wire::{JsonLines, MemoryRecord, ReceiptRecord};
use crate::{Error, Result};

/// Import the JSON Lines of `reader` for the caller (see [`Cairn::import`]):
/// bad lines are reported by number and skipped, or with `strict` refuse
/// the whole text before anything is written. The text is parsed on
/// another thread while this one writes. `read` is told the bytes behind
/// the records handed out so far; `written`, after each transaction, the
/// records done and the bad lines met so far.
pub fn import(
    cairn: &Cairn,
    caller: &Caller,
    reader: impl BufRead + Send + 'static,
    strict: bool,
    read: Box<dyn FnMut(u64)>,
    written: &mut dyn FnMut(ImportProgress<'_>),
) -> Result<ImportReport> {
    let tenant = caller.tenant.as_str();
    let mut lines = JsonLines::spawn(reader, read);
    if strict {
        // Every line is read and checked before anything is written.
        let records: Vec<_> = lines.by_ref().collect();
        lines.finish()?;
        return cairn.import_reporting(tenant, records, true, &caller.actor, written);
    }
    let report = cairn.import_reporting(tenant, lines.by_ref(), false, &caller.actor, written)?;
    match lines.finish() {
        Ok(()) => Ok(report),
        Err(e) => Err(Error::invalid(format!(
            "{e}; the {} memories before it were imported (importing the text again skips them)",
            report.imported
        ))),
    }
}

/// Every memory of the caller's tenant as JSON Lines, in id order, then
/// the receipts of its deleted memories (`{"deleted": {...}}`), handed to
/// `sink` a line (with its newline) at a time; with `embeddings`, each
/// memory's line carries its vector. Returns how many memories there were.
pub fn export(
    cairn: &Cairn,
    caller: &Caller,
    embeddings: bool,
    sink: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<usize> {
    let memories = cairn.export(&caller.tenant, embeddings, &mut |record: MemoryRecord| {
        let mut line = serde_json::to_vec(&record)
            .map_err(|e| Error::storage_from("writing the export", e))?;
        line.push(b'\n');
        sink(line)
    })?;
    for receipt in cairn.store().receipts(&caller.tenant, "", usize::MAX)? {
        let mut line = ReceiptRecord::of(&receipt).line()?;
        line.push(b'\n');
        sink(line)?;
    }
    Ok(memories)
}
