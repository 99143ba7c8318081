"""CairnRetriever and CairnChatMessageHistory against a live server, and
both in LangChain runnables with LangChain's fake chat model."""

from __future__ import annotations

import asyncio

from cairn_memory import Cairn
from cairn_langchain import CairnChatMessageHistory, CairnRetriever
from conftest import new_key
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory


def seed(cairn: Cairn) -> None:
    cairn.remember("Staging runs on a Hetzner box in Helsinki", type="fact", project="atlas",
                   tags=["infra"])
    cairn.remember("We deploy atlas on Fridays after the standup", type="decision", project="atlas")
    cairn.remember("Hermes uses PostgreSQL 16", type="fact", project="hermes", tags=["infra"])


def test_retriever_recalls_documents(cairn: Cairn) -> None:
    seed(cairn)
    retriever = CairnRetriever(client=cairn, project="atlas")
    docs = retriever.invoke("where does staging run?")
    assert docs[0].page_content == "Staging runs on a Hetzner box in Helsinki"
    meta = docs[0].metadata
    assert meta["type"] == "fact" and meta["project"] == "atlas" and meta["tags"] == ["infra"]
    assert meta["score"] > 0 and docs[0].id == meta["id"] == cairn.get(meta["id"]).id
    assert all(d.metadata["project"] == "atlas" for d in docs), "hermes is another project"

    assert [d.metadata["type"] for d in CairnRetriever(client=cairn, project="atlas",
                                                        types=["decision"]).invoke("deploy")] == ["decision"]
    assert len(CairnRetriever(client=cairn, project="atlas", k=1).invoke("atlas")) == 1
    by_tag = CairnRetriever(client=cairn, project="hermes", tags=["infra"]).invoke("which PostgreSQL version?")
    assert [d.page_content for d in by_tag] == ["Hermes uses PostgreSQL 16"]

    docs = asyncio.run(retriever.ainvoke("when do we deploy?"))
    assert docs[0].page_content.startswith("We deploy atlas on Fridays")
    assert [len(b) > 0 for b in retriever.batch(["staging", "deploy"])] == [True, True]


def test_retriever_in_a_chain(cairn: Cairn) -> None:
    seed(cairn)
    retriever = CairnRetriever(client=cairn, project="atlas", k=2)
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from these memories:\n{memories}"), ("human", "{question}")])
    seen = []

    def model_input(value):
        seen.append(value.to_messages()[0].content)
        return value

    chain = ({"memories": retriever | RunnableLambda(lambda ds: "\n".join(d.page_content for d in ds)),
              "question": lambda q: q}
             | prompt | RunnableLambda(model_input) | FakeListChatModel(responses=["Helsinki."]))
    assert chain.invoke("where does staging run?").content == "Helsinki."
    assert "Hetzner box in Helsinki" in seen[0]


def test_history_keeps_a_conversation(url: str, cairn: Cairn) -> None:
    history = CairnChatMessageHistory(cairn, "support-42")
    assert history.messages == []
    history.add_messages([SystemMessage("You are terse."), HumanMessage("Hi, I'm Ada. I deploy on Fridays."),
                          AIMessage("Noted, Ada.")])
    history.add_user_message("What day do I deploy?")
    history.add_message(ChatMessage(role="reviewer", content="Looks right."))
    expected = [SystemMessage("You are terse."), HumanMessage("Hi, I'm Ada. I deploy on Fridays."),
                AIMessage("Noted, Ada."), HumanMessage("What day do I deploy?"),
                ChatMessage(role="reviewer", content="Looks right.")]
    assert [(type(m), m.content) for m in history.messages] == [(type(m), m.content) for m in expected]
    assert history.messages[-1].role == "reviewer"

    # Another client (another process) reads the same conversation, and the
    # messages are memories Cairn recalls.
    with Cairn(url, api_key=cairn._http.headers["Authorization"].split()[1]) as again:
        assert len(CairnChatMessageHistory(again, "support-42").messages) == 5
    hits = cairn.recall("Ada deploys on Fridays", types=["episode"]).results
    assert hits[0].content == "user: Hi, I'm Ada. I deploy on Fridays."
    assert CairnChatMessageHistory(cairn, "another").messages == []
    with Cairn(url, api_key=new_key()) as stranger:
        assert CairnChatMessageHistory(stranger, "support-42").messages == []

    asyncio.run(history.aadd_messages([AIMessage("Fridays.")]))
    assert asyncio.run(history.aget_messages())[-1].content == "Fridays."
    history.clear()
    assert history.messages == []
    assert list(cairn.list(types=["episode"])) == [], "clear forgets the messages' memories"


def test_history_with_runnable_with_message_history(cairn: Cairn) -> None:
    prompt = ChatPromptTemplate.from_messages([
        MessagesPlaceholder("history"), ("human", "{question}")])
    model = FakeListChatModel(responses=["Noted.", "You deploy on Fridays."])
    seen = []

    def spy(value):
        seen.append([m.content for m in value.to_messages()])
        return value

    chat = RunnableWithMessageHistory(
        prompt | RunnableLambda(spy) | model,
        lambda session_id: CairnChatMessageHistory(cairn, session_id),
        input_messages_key="question", history_messages_key="history")
    config = {"configurable": {"session_id": "chat-7"}}
    assert chat.invoke({"question": "I deploy on Fridays."}, config=config).content == "Noted."
    assert chat.invoke({"question": "When do I deploy?"}, config=config).content == "You deploy on Fridays."
    assert seen[1] == ["I deploy on Fridays.", "Noted.", "When do I deploy?"], "the history came from Cairn"
    assert [m.content for m in CairnChatMessageHistory(cairn, "chat-7").messages] == [
        "I deploy on Fridays.", "Noted.", "When do I deploy?", "You deploy on Fridays."]
