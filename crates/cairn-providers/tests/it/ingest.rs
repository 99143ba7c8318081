//! Ingestion with a chat model behind [`MockServer`]: the text's title and
//! each chunk's facts by the model, and every way the model can fail
//! leaving the chunks stored and the receipt saying why.

use std::sync::Arc;

use cairn_core::api::{self, Caller, IngestInput, IngestOutput};
use cairn_core::chat::ChatProvider;
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::engine::{Decision, FACT_ATTEMPTS};
use cairn_core::{Cairn, MemoryStore};
use cairn_providers::testing::{MockServer, Mode};

use crate::chat;

const CHAT: &str = "/v1/chat/completions";

const TEXT: &str = "Ana moved to Lisbon in May 2023 and works on the billing service.\n\n\
                    The team always deploys on Tuesdays. Ben prefers tea over coffee.";

fn engine(server: &MockServer) -> Cairn {
    Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .with_chat(Some(Arc::new(chat(server)) as Arc<dyn ChatProvider>))
}

fn ingest(cairn: &Cairn, facts: bool) -> IngestOutput {
    let input = IngestInput {
        text: TEXT.into(),
        threshold: Some(0.0),
        facts,
        ..Default::default()
    };
    api::ingest(cairn, &Caller::new("t"), input, &mut |_, _| {}).unwrap()
}

fn chunks(out: &IngestOutput) -> Vec<&api::ChunkView> {
    out.chunks.iter().filter(|c| c.fact_of.is_none()).collect()
}

#[test]
fn the_model_titles_the_text_and_its_facts_are_stored_beside_the_chunks() {
    let server = MockServer::start();
    let cairn = engine(&server);
    let out = ingest(&cairn, true);
    let by = out.titled_by.as_ref().unwrap();
    assert_eq!(by.model.as_deref(), Some("mock-chat"));
    assert!(out.title.as_deref().unwrap().starts_with("Summary: Ana"));

    // The mock's facts are the chunk's sentences; every one has a line.
    let kept = chunks(&out);
    assert!(!kept.is_empty());
    for chunk in &kept {
        assert_eq!(chunk.facts.as_ref().unwrap().by, "llm");
        let sentences = chunk
            .text
            .split(['.', '\n'])
            .filter(|s| !s.trim().is_empty());
        let facts: Vec<&api::ChunkView> = out
            .chunks
            .iter()
            .filter(|f| f.fact_of == Some(chunk.index))
            .collect();
        assert_eq!(facts.len(), sentences.count(), "{}", chunk.text);
        for fact in facts {
            assert!(chunk.text.contains(&fact.text));
            assert!(!fact.reason.is_empty());
            if fact.decision == Decision::Stored {
                let id = cairn.resolve("t", fact.id.as_deref().unwrap()).unwrap();
                let m = cairn.store().get("t", &[id]).unwrap().remove(0);
                assert_eq!(m.content, fact.text);
                assert_eq!(
                    m.metadata["ingest"]["fact_of"],
                    chunk.id.as_deref().unwrap()
                );
                assert_eq!(m.metadata["ingest"]["title"], out.title.as_deref().unwrap());
            }
        }
    }
    assert_eq!(out.facts, out.chunks.len() - kept.len());
    assert!(out.facts >= 3, "{out:#?}");
    // The preference was routed as one, as a chunk's sentence would be.
    assert!(out
        .chunks
        .iter()
        .any(|f| f.fact_of.is_some() && f.kind.as_str() == "preference"));

    // Facts are asked for only when requested.
    let before = server.requests().len();
    let plain = ingest(&engine(&server), false);
    assert_eq!(plain.facts, 0);
    assert!(plain.chunks.iter().all(|c| c.facts.is_none()));
    assert_eq!(server.requests().len(), before + 1, "the title only");
}

#[test]
fn a_model_that_keeps_failing_leaves_the_chunks_stored_and_says_why() {
    for (mode, why) in [
        (Mode::IgnoresJson, "JSON object"),
        (Mode::ServerError, "HTTP 500"),
        (Mode::Malformed, "malformed JSON"),
        (Mode::Slow(std::time::Duration::from_secs(3)), "timed out"),
    ] {
        let server = MockServer::start();
        server.always_on(CHAT, mode);
        let cairn = engine(&server);
        let out = ingest(&cairn, true);
        assert_eq!(out.facts, 0, "{mode:?}");
        let kept = chunks(&out);
        assert!(kept.iter().all(|c| c.decision == Decision::Stored));
        for chunk in &kept {
            let by = chunk.facts.as_ref().unwrap();
            assert_eq!(by.by, "extractive");
            let fallback = by.fallback.as_deref().unwrap();
            assert!(fallback.contains(why), "{mode:?}: {fallback}");
            let id = cairn.resolve("t", chunk.id.as_deref().unwrap()).unwrap();
            assert_eq!(
                cairn.store().get("t", &[id]).unwrap().remove(0).content,
                chunk.text
            );
        }
        // The title is extractive (from a sentence of the text), with the
        // reason, unless the mode spares prose answers.
        let by = out.titled_by.as_ref().unwrap();
        let title = out.title.as_deref().unwrap().trim_end_matches('…');
        if mode == Mode::IgnoresJson {
            assert_eq!(by.by, "llm");
        } else {
            assert!(by.fallback.as_deref().unwrap().contains(why), "{mode:?}");
            assert!(
                TEXT.to_lowercase().contains(&title.to_lowercase()),
                "{title}"
            );
        }
        // One try and two retries per ask: the title's (a prose request
        // the IgnoresJson mode answers well), then each chunk's facts.
        let per_ask = 3;
        let title_asks = if mode == Mode::IgnoresJson {
            1
        } else {
            per_ask
        };
        assert_eq!(
            server.requests().len(),
            title_asks + kept.len() * FACT_ATTEMPTS * per_ask,
            "{mode:?}"
        );
    }
}

#[test]
fn facts_in_prose_are_asked_for_again_before_giving_up() {
    let server = MockServer::start();
    // The first ask's three tries answer in prose; the second ask is fine.
    server.script_on(CHAT, &[Mode::Ok]);
    server.script_on(CHAT, &[Mode::IgnoresJson; 3]);
    let out = ingest(&engine(&server), true);
    let first = chunks(&out)[0];
    assert_eq!(first.facts.as_ref().unwrap().by, "llm");
    assert!(out.chunks.iter().any(|f| f.fact_of == Some(first.index)));
}
