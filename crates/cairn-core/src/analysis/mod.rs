//! Offline analysis of message text: what conversation ingestion, slots and
//! consolidation derive from a message without an LLM.
//!
//! Every function here is pure (text and vectors in, values out) and tested
//! beside its code.

pub mod entities;
pub mod intent;
pub mod segment;
pub mod sentences;
pub mod sentiment;
pub mod summary;
pub mod temporal;
