//! The in-process keyword index: FTS5's postings held in memory and scored
//! with FTS5's own BM25, for processes that answer many queries.
//!
//! # Why
//! FTS5 computes BM25 row by row, reading each matching row's size from
//! `%_docsize` and joining it to `memories` for the filter, which grows with
//! every matching row (docs/BENCHMARKS.md has the figures). Here a matching
//! row costs a posting read and a hash lookup.
//!
//! # Same answers as FTS5
//! - **Tokens** come from FTS5 itself, never from a re-implementation of its
//!   tokenizer: a first load reads `memories_fts`'s own `fts5vocab`
//!   instance table, and rows written since are run through a temporary
//!   FTS5 table with the same tokenizer (see `lib.rs`).
//! - **Scores** follow `bm25()` of SQLite's `fts5_aux.c` operation by
//!   operation (same IDF floor, same order of additions), so the two paths
//!   give the same floats for the same counts. `cairn_core::rank::bm25_term`
//!   is that formula, shared with every backend.
//! - Row count and average length are this index's own exact figures. FTS5
//!   keeps running totals instead, which a contentless table cannot always
//!   correct on delete; after deletes the two can differ in the last digits.
//!
//! Kept in step with other processes' writes by the store revision, like the
//! vector index. Filters are applied through the vector index's entries, so
//! a memory that index leaves out (an embedding of another dimension, in the
//! middle of a `cairn reindex` to another model) is left out here too, where
//! FTS5 would still find it.

use std::collections::HashMap;

use cairn_core::rank::{bm25_term, BM25_FIELD_WEIGHTS};
use rustc_hash::FxHashMap;

/// A token as FTS5 stores it, read from `fts5vocab`'s raw bytes.
///
/// FTS5 cuts a token longer than 32,768 bytes at that byte, which may fall
/// inside a multi-byte character: such a token is not UTF-8. It is kept up
/// to its last whole character, the same way for indexed rows and for query
/// terms (both are tokenised by FTS5), so the two still match each other.
pub fn fts_token(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // `valid_up_to` is a character boundary: the prefix is UTF-8.
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    /// The row's number in this index (see [`KeywordIndex::docs`]).
    doc: u32,
    /// The term's occurrences in the row, weighted by column.
    freq: f32,
}

#[derive(Debug, Default)]
struct Doc {
    rowid: i64,
    /// The terms the row contains (to remove it).
    terms: Vec<u32>,
}

/// Postings of every term; rows are numbered densely so that a posting is
/// 8 bytes and a row's length is an array read.
#[derive(Debug, Default)]
pub struct KeywordIndex {
    /// The store revision this index reflects.
    pub rev: i64,
    term_ids: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    numbers: FxHashMap<i64, u32>,
    /// By number; a removed row's number is reused.
    docs: Vec<Doc>,
    /// Tokens in all columns, by number.
    lens: Vec<u32>,
    free: Vec<u32>,
    tokens: u64,
}

impl KeywordIndex {
    /// Rows indexed.
    pub fn rows(&self) -> usize {
        self.numbers.len()
    }

    /// Add one occurrence of `term` in column `column` of row `rowid`.
    /// The occurrences of one term in one row must come one after another
    /// (`fts5vocab` lists them sorted by term and row), and a row that was
    /// indexed before must be removed first.
    pub fn add(&mut self, rowid: i64, column: usize, term: &str) {
        let id = match self.term_ids.get(term) {
            Some(id) => *id,
            None => {
                let id = self.postings.len() as u32;
                self.term_ids.insert(term.into(), id);
                self.postings.push(Vec::new());
                id
            }
        };
        let doc = match self.numbers.get(&rowid) {
            Some(n) => *n,
            None => {
                let n = self.free.pop().unwrap_or(self.docs.len() as u32);
                let entry = Doc {
                    rowid,
                    terms: Vec::new(),
                };
                if n as usize == self.docs.len() {
                    self.docs.push(entry);
                    self.lens.push(0);
                } else {
                    self.docs[n as usize] = entry;
                }
                self.numbers.insert(rowid, n);
                n
            }
        };
        self.lens[doc as usize] += 1;
        self.tokens += 1;
        // Metadata counts half: weights are multiples of 0.5, so `f32`
        // sums are exact.
        let weight = BM25_FIELD_WEIGHTS.get(column).copied().unwrap_or(1.0) as f32;
        let list = &mut self.postings[id as usize];
        match list.last_mut() {
            Some(last) if last.doc == doc => last.freq += weight,
            _ => {
                list.push(Posting { doc, freq: weight });
                self.docs[doc as usize].terms.push(id);
            }
        }
    }

    /// Remove row `rowid` (nothing happens if it is not indexed).
    pub fn remove(&mut self, rowid: i64) {
        let Some(doc) = self.numbers.remove(&rowid) else {
            return;
        };
        self.tokens -= u64::from(std::mem::take(&mut self.lens[doc as usize]));
        for t in std::mem::take(&mut self.docs[doc as usize].terms) {
            let list = &mut self.postings[t as usize];
            if let Some(i) = list.iter().position(|p| p.doc == doc) {
                list.swap_remove(i);
            }
        }
        self.free.push(doc);
    }

    /// How many rows contain `term` (a token as FTS5 stores it).
    pub fn rows_with(&self, term: &str) -> usize {
        self.term_ids
            .get(term)
            .map_or(0, |id| self.postings[*id as usize].len())
    }

    /// The BM25 score of every row containing at least one of `terms`
    /// (tokens as FTS5 stores them; a repeated term counts again, as a
    /// repeated phrase does in FTS5), as `(rowid, score)` in no particular
    /// order. Terms are added in the order given, as FTS5 adds phrases.
    pub fn scores(&self, terms: &[&str]) -> Vec<(i64, f64)> {
        let rows = self.rows() as f64;
        if rows == 0.0 {
            return Vec::new();
        }
        let avgdl = self.tokens as f64 / rows;
        let mut scores: FxHashMap<u32, f64> = FxHashMap::default();
        for term in terms {
            let Some(id) = self.term_ids.get(*term) else {
                continue;
            };
            let list = &self.postings[*id as usize];
            let with = list.len() as f64;
            for p in list {
                let len = f64::from(self.lens[p.doc as usize]);
                *scores.entry(p.doc).or_insert(0.0) +=
                    bm25_term(rows, with, f64::from(p.freq), len, avgdl);
            }
        }
        scores
            .into_iter()
            .map(|(doc, score)| (self.docs[doc as usize].rowid, score))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_follow_adds_and_removes() {
        let mut index = KeywordIndex::default();
        // Row 2: "cat cat" in content, "pet" in tags; row 1: "cat" in metadata.
        for (rowid, column, term) in [(2, 0, "cat"), (2, 0, "cat"), (1, 2, "cat"), (2, 1, "pet")] {
            index.add(rowid, column, term);
        }
        assert_eq!(index.rows(), 2);
        assert_eq!(index.rows_with("cat"), 2);
        assert_eq!(index.rows_with("dog"), 0);
        let cat = &index.postings[index.term_ids["cat"] as usize];
        let rowids_freqs: Vec<(i64, f32)> = cat
            .iter()
            .map(|p| (index.docs[p.doc as usize].rowid, p.freq))
            .collect();
        assert_eq!(rowids_freqs, vec![(2, 2.0), (1, 0.5)]);
        let mut scores = index.scores(&["cat", "pet"]);
        scores.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(scores.iter().map(|s| s.0).collect::<Vec<_>>(), vec![2, 1]);
        // Row 2: avgdl = 4 / 2 = 2, D = 3.
        let expected = bm25_term(2.0, 2.0, 2.0, 3.0, 2.0) + bm25_term(2.0, 1.0, 1.0, 3.0, 2.0);
        assert_eq!(scores[0].1, expected);
        index.remove(2);
        index.remove(7);
        assert_eq!(index.rows(), 1);
        assert_eq!(index.rows_with("cat"), 1);
        assert_eq!(index.rows_with("pet"), 0);
        assert_eq!(index.tokens, 1);
        assert!(index.scores(&["pet"]).is_empty());
        // Row 2's number is reused by the next new row.
        index.add(9, 0, "dog");
        assert_eq!(index.docs.len(), 2);
        assert_eq!(index.scores(&["dog"]).len(), 1);
        assert_eq!(index.scores(&["dog"])[0].0, 9);
    }
}
