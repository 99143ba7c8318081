//! Conversation topics titled by a chat model behind [`MockServer`]: the
//! model's title when it answers, asked a few times per topic (not once
//! per message), and the extractive title with the model's failure when
//! it does not.

use std::sync::Arc;

use cairn_core::api::{self, Caller, LogInput};
use cairn_core::chat::ChatProvider;
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::wire::MessageRecord;
use cairn_core::{Cairn, MemoryStore};
use cairn_providers::testing::{MockServer, Mode};

use crate::chat;

const CHAT: &str = "/v1/chat/completions";

fn log(cairn: &Cairn, conversation: &str, speaker: &str, text: &str) {
    let record = MessageRecord {
        conversation: conversation.into(),
        speaker: Some(speaker.into()),
        text: text.into(),
        ..MessageRecord::default()
    };
    let input = LogInput {
        project: None,
        messages: vec![record],
    };
    let out = api::log(cairn, &Caller::new("t"), input).unwrap();
    assert_eq!(out.logged.len(), 1);
}

fn chat_calls(server: &MockServer) -> usize {
    server.requests().iter().filter(|(p, _)| p == CHAT).count()
}

#[test]
fn the_chat_model_titles_topics_and_its_failures_fall_back_to_extractive() {
    let server = MockServer::start();
    let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .with_chat(Some(Arc::new(chat(&server)) as Arc<dyn ChatProvider>));
    let caller = Caller::new("t");
    let said = [
        ("Ana", "The billing service deploys on Tuesdays."),
        ("Ben", "The billing service deploy takes ten minutes."),
        ("Ana", "The billing deploy needs the release manager."),
        ("Ben", "The billing deploy window closes at noon."),
    ];
    for (speaker, text) in said {
        log(&cairn, "c1", speaker, text);
    }
    let shown = api::show_conversation(&cairn, &caller, "c1").unwrap();
    let topic = &shown.topic_list[0];
    let by = topic.titled_by.as_ref().unwrap();
    assert_eq!(
        (by.by.as_str(), by.model.as_deref()),
        ("llm", Some("mock-chat"))
    );
    // The mock's title is "Summary: " and what it was given: the lines.
    assert!(
        topic.title.starts_with("Summary: Ana: The billing"),
        "{}",
        topic.title
    );
    assert_eq!(shown.conversation.title, topic.title);
    // Asked when the topic started and each time it doubled: at 1, 2 and
    // 4 messages, not at 3.
    assert_eq!(chat_calls(&server), 3);

    // The model fails: the title is extractive, and the topic says why.
    server.always_on(CHAT, Mode::ServerError);
    log(
        &cairn,
        "c2",
        "Ana",
        "Lunch is at noon in the rooftop canteen.",
    );
    let shown = api::show_conversation(&cairn, &caller, "c2").unwrap();
    let topic = &shown.topic_list[0];
    assert_eq!(topic.title, "Lunch is at noon in the rooftop canteen");
    let by = topic.titled_by.as_ref().unwrap();
    assert_eq!(by.by, "extractive");
    let failure = by.fallback.as_deref().unwrap();
    assert!(failure.contains("gave up"), "{failure}");

    // It answers again: the next titling is the model's.
    server.always_on(CHAT, Mode::Ok);
    log(
        &cairn,
        "c2",
        "Ben",
        "The rooftop canteen serves soup on Fridays.",
    );
    let shown = api::show_conversation(&cairn, &caller, "c2").unwrap();
    let topic = &shown.topic_list[0];
    assert_eq!(topic.titled_by.as_ref().unwrap().by, "llm");
    assert!(topic.title.starts_with("Summary: "), "{}", topic.title);
}

#[test]
fn without_a_chat_model_topic_titles_are_extractive_and_unreported() {
    let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
    log(
        &cairn,
        "c1",
        "Ana",
        "Lunch is at noon in the rooftop canteen.",
    );
    let shown = api::show_conversation(&cairn, &Caller::new("t"), "c1").unwrap();
    let topic = &shown.topic_list[0];
    assert_eq!(topic.title, "Lunch is at noon in the rooftop canteen");
    assert!(topic.titled_by.is_none());
}
