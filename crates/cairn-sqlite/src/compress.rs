//! zstd compression of a memory's text at rest ([`cairn_core::packing`]):
//! a packed value starts with zstd's frame magic, which no UTF-8 text
//! stored as text can be confused with.

use cairn_core::packing::PACK_MIN_BYTES;
use cairn_core::{Error, Result};

/// The algorithm packed content is compressed with.
pub(crate) const ALGORITHM: &str = "zstd";

/// zstd's level: 9 packs prose to about a third at a few tens of MB/s
/// (archiving is rare; reading back runs at hundreds of MB/s at any level).
const LEVEL: i32 = 9;

/// `text` compressed, when it is at least [`PACK_MIN_BYTES`] long and
/// compressing makes it smaller; `None` keeps it as it is.
pub(crate) fn pack(text: &str) -> Option<Vec<u8>> {
    if text.len() < PACK_MIN_BYTES {
        return None;
    }
    let packed = zstd::bulk::compress(text.as_bytes(), LEVEL).ok()?;
    (packed.len() < text.len()).then_some(packed)
}

/// The text [`pack`] compressed.
pub(crate) fn unpack(packed: &[u8]) -> Result<String> {
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
