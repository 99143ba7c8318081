//! The text stages of ingestion (Memory Vault AI's pipeline), as pure
//! functions: text in, text, chunks or a type out; no store, no model, no
//! clock.
//!
//! ```text
//! raw text → clean → redact → chunk → embed → importance → route → store or skip
//! ```
//!
//! This module holds three stages: [`clean()`], [`chunk()`] and [`route()`].
//! Chunking takes the embedder as a callback, so that it needs no model
//! itself; redaction, embedding, scoring and storing are not here.
//!
//! ## Clean ([`clean()`])
//! - **HTML** becomes text when the text looks like HTML: it has a
//!   doctype, a comment, a closing tag of a known element (`</p>`), `<br>`
//!   or `<hr>`, or a known element with an attribute (`<a href="…">`).
//!   Only known HTML element names count, and a lone opening tag is not
//!   enough, so plain text with a `<` (`a < b`, `x<y`, `Vec<String>`,
//!   `Vec<Table>`) is never touched. In HTML, tags of known elements are
//!   removed (`Vec<String>` inside HTML stays); `<script>`, `<style>`,
//!   `<noscript>`, `<template>` and `<svg>` go with their content;
//!   paragraph-level elements (`p`, `h1`–`h6`, `ul`, `ol`, `table`,
//!   `blockquote`, `pre`, `section` …) become a blank line, line-level ones
//!   (`br`, `div`, `li`, `tr`, `dt`, `dd`, `title` …) a line break, table
//!   cells a space; source whitespace collapses to one space except inside
//!   `<pre>`; character references are decoded (`&amp;`, `&lt;`, `&gt;`,
//!   `&quot;`, `&apos;`, `&nbsp;`, typographic ones such as `&mdash;`, and
//!   numeric `&#39;` / `&#x27;`; a number that is no character becomes
//!   U+FFFD; an unknown name stays as written). Plain text keeps its `&`s.
//! - **Line endings**: `\r\n` and a lone `\r` become `\n`.
//! - **Unicode** is normalised to NFC.
//! - **Control characters** are removed, except `\n` and `\t`; the ones
//!   that separate words (vertical tab, form feed, next line) become a
//!   space; a byte-order mark is removed; U+2028 is a line break and U+2029
//!   a blank line.
//! - **Whitespace**: within a line, a run of blanks (spaces, tabs,
//!   no-break and other Unicode spaces) becomes one space and trailing
//!   blanks are dropped; a line's indentation is kept as written, so code
//!   and nested lists keep their shape. A line of blanks is empty, runs of
//!   empty lines become one (three or more `\n` become two), and empty
//!   lines at the start and end are dropped.
//!
//! ## Chunk ([`chunk()`])
//! Sentences are [`split_sentences`](crate::analysis::sentences)'s, so a
//! chunk is always whole sentences: it starts where a sentence starts,
//! ends where one ends, and is the input's slice between (byte offsets into
//! the input). Tokens are counted exactly with the chosen
//! [`Tokenizer`](crate::tokens::Tokenizer), on the chunk's own text.
//! Sentences are taken in order into the current chunk, which ends before
//! a sentence when:
//! - the sentence starts a paragraph (a blank line before it) and the
//!   chunk holds at least `min_tokens`;
//! - the cosine similarity of the sentence's embedding and the previous
//!   sentence's is below `drift` (a change of subject) and the chunk holds
//!   at least `min_tokens`;
//! - adding the sentence would take the chunk past `max_tokens`.
//!
//! Markdown headings are structure, not text: a heading always ends the
//! chunk before it, is left out of the chunks' text, and every chunk
//! carries the headings it sits under ([`Chunk::section`]). In a section
//! whose heading names rules, decisions or preferences, each list item is
//! a chunk of its own (one statement, one memory).
//!
//! A sentence longer than `max_tokens` on its own is a chunk of its own,
//! whole. Then a chunk under `min_tokens` (the end of the text, or the
//! sentences before an over-long one) joins the chunk before it when
//! together they stay within `max_tokens`. Every sentence is embedded in
//! one batched call to the caller's embedder; when it gives no vectors,
//! only paragraphs and token bounds cut.
//!
//! ## Route ([`route()`])
//! The text's sentences are read as lowercase words, and the first rule
//! that fires for any sentence names the type (and, through
//! [`MemoryType::tier`](crate::MemoryType::tier), the tier):
//!
//! | rule | fires on | type |
//! |------|----------|------|
//! | `empty` | no letter or digit | note |
//! | `numbered-steps` | two or more steps: `1.` / `2)` / `Step 3` | procedure |
//! | `decision` | "decided", "we agreed", "we chose", "will use", "going with", "settled on" … | decision |
//! | `preference` | "prefers", "likes", "loves", "hates", "dislikes", "would rather", "favourite"; "I/we/they like, love, hate, enjoy" | preference |
//! | `sequence` | a sentence opening with "First", then "then", "next", "finally" … | procedure |
//! | `how-to` | "To deploy, run …", "In order to …, open …", "How to …: …" | procedure |
//! | `imperative` | a sentence opening with "always", "never", "don't", "do not", "avoid", "make sure", "ensure", "remember to" (after "please", "from now on" …) | rule |
//! | `obligation` | "must" (not "must have been"), "should always/never", "shall", "is required", "not allowed", "forbidden"; "we always/never" before a verb in the present | rule |
//! | `feedback` | "good job", "well done", "that's wrong", "that worked", "you forgot" … | feedback |
//! | `date` | a calendar date: `2024-03-05`, `5 March`, `March 5th, 2024`, `March 2024` | episode |
//! | `past-event` | a time ("yesterday", "last week", "3 days ago", "on Monday", "3pm"; [`parse_time`](crate::analysis::temporal::parse_time)) and a verb in the past | episode |
//! | `planned-event` | a time and "will", "going to", "scheduled", "starts", "is on" … | episode |
//! | `question` | every sentence ends with `?` | note |
//! | `statement` | anything else | fact |
//!
//! A chunk under a Markdown heading that names a type (`## Rules`,
//! `## Procedure`, `## Decisions`, `## Preferences`, `## Facts`; see
//! [`section_route`]) takes that type instead, with the rule
//! `section-heading`.
//!
//! The order puts explicit markers first: "We decided to always use UTC"
//! records a decision, "I prefer that you never use tabs" a preference.

pub mod chunk;
pub mod clean;
pub mod route;

pub use chunk::{chunk, chunk_without_embeddings, Chunk, ChunkOptions};
pub use clean::clean;
pub use route::{route, route_in_section, section_route, Route, SECTION_RULE};
