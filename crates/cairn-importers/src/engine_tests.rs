//! The application layer's imports read through the [`Importer`] an
//! engine is given, and refuse, naming the format, without one.

use std::sync::Arc;

use cairn_core::api::{self, Caller, EngineBuilder, ForeignFile, ForeignInput};
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::MemoryStore;

use super::{Foreign, Importers};

fn input() -> ForeignInput {
    ForeignInput {
        from: Foreign::Mem0,
        files: vec![ForeignFile {
            name: "mem0.json".into(),
            text: include_str!("../tests/fixtures/mem0.json").into(),
        }],
        project: None,
        dry_run: false,
    }
}

#[test]
fn an_engine_given_the_importers_imports_and_one_without_refuses() {
    let with = EngineBuilder::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .importer(Some(Arc::new(Importers)))
        .build()
        .unwrap();
    let report = api::import_foreign(&with, &Caller::new("t"), input(), &mut |_| ()).unwrap();
    assert!(
        report.imported > 0 && report.imported == report.memories,
        "{report:?}"
    );

    let without = EngineBuilder::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .build()
        .unwrap();
    let err = api::import_foreign(&without, &Caller::new("t"), input(), &mut |_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot read a mem0 export"), "{err}");
}
