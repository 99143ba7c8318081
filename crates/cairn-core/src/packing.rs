//! Content kept compressed at rest: the long entries of archived slots.
//!
//! Packing changes how a backend keeps a memory's text, never the text:
//! every read answers the same bytes, the keyword and vector indexes are
//! untouched (a packed entry is still found), and no version is recorded.
//! A backend stores what [`pack`] gives and reads it back with [`unpack`];
//! a packed value starts with zstd's frame magic, which no UTF-8 text
//! stored as text can be confused with (backends keep the two apart by
//! type: a blob against text).

use serde::Serialize;

use crate::memory::MemoryId;
use crate::{Error, Result};

/// Texts shorter than this (in bytes) are kept as they are.
pub const PACK_MIN_BYTES: usize = 1024;

/// The algorithm packed content is compressed with.
pub const ALGORITHM: &str = "zstd";

/// zstd's level: 9 packs prose to about a third at a few tens of MB/s
/// (archiving is rare; reading back runs at hundreds of MB/s at any level).
const LEVEL: i32 = 9;

/// What packing did to one memory's stored form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Packed {
    /// The memory.
    pub id: MemoryId,
    /// Its text's length in bytes.
    pub original_bytes: usize,
    /// What it takes at rest compressed.
    pub stored_bytes: usize,
    /// What compressed it.
    pub algorithm: &'static str,
}

/// `text` compressed, when it is at least [`PACK_MIN_BYTES`] long and
/// compressing makes it smaller; `None` keeps it as it is.
pub fn pack(text: &str) -> Option<Vec<u8>> {
    if text.len() < PACK_MIN_BYTES {
        return None;
    }
    let packed = zstd::bulk::compress(text.as_bytes(), LEVEL).ok()?;
    (packed.len() < text.len()).then_some(packed)
}

/// The text [`pack`] compressed.
pub fn unpack(packed: &[u8]) -> Result<String> {
    let bytes = zstd::stream::decode_all(packed)
        .map_err(|e| Error::storage(format!("a packed content does not decompress: {e}")))?;
    String::from_utf8(bytes)
        .map_err(|_| Error::storage("a packed content is not UTF-8 once decompressed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_stay_as_they_are() {
        assert_eq!(pack(""), None);
        assert_eq!(pack(&"a".repeat(PACK_MIN_BYTES - 1)), None);
    }

    #[test]
    fn long_texts_round_trip_byte_for_byte() {
        let text = "Schöne Grüße — 日本語のテキスト and more. ".repeat(200);
        let packed = pack(&text).expect("repetitive text compresses");
        assert!(packed.len() < text.len() / 10);
        assert_eq!(unpack(&packed).unwrap(), text);
    }

    #[test]
    fn incompressible_texts_stay_as_they_are() {
        // A xorshift stream of printable bytes barely compresses; zstd's
        // frame header must not make it bigger.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let text: String = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 94) as u8)
            })
            .collect();
        if let Some(p) = pack(&text) {
            assert!(p.len() < text.len());
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(unpack(b"not zstd").is_err());
    }
}
