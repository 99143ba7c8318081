//! Writes `cl100k_base`'s byte-pair table, as `bpe-openai` serialises it,
//! deflated into `OUT_DIR/cl100k_base.bpe.deflate`: `tokens.rs` carries
//! these 7–8 MB instead of the 15 MB `bpe-openai` would link in, and
//! inflates them once per process.

use std::env;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use flate2::write::DeflateEncoder;
use flate2::Compression;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let file = File::create(out.join("cl100k_base.bpe.deflate")).expect("OUT_DIR is writable");
    let mut deflated = DeflateEncoder::new(BufWriter::new(file), Compression::default());
    let table = rmp_serde::to_vec(&bpe_openai::cl100k_base().bpe).expect("the table serialises");
    deflated.write_all(&table).expect("OUT_DIR is writable");
    deflated
        .finish()
        .and_then(|mut w| w.flush())
        .expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
