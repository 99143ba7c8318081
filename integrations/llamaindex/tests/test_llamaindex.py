"""CairnMemoryBlock in LlamaIndex's Memory and CairnRetriever in a query
engine, against a live server (LlamaIndex's MockLLM where a model is
needed)."""

from __future__ import annotations

import asyncio

from cairn_memory import Cairn
from cairn_llamaindex import CairnMemoryBlock, CairnRetriever
from llama_index.core.llms import ChatMessage, MockLLM
from llama_index.core.memory import Memory
from llama_index.core.query_engine import RetrieverQueryEngine


def seed(cairn: Cairn) -> None:
    cairn.remember("Staging runs on a Hetzner box in Helsinki", type="fact", project="atlas")
    cairn.remember("We deploy atlas on Fridays after the standup", type="decision", project="atlas")
    cairn.remember("Hermes uses PostgreSQL 16", type="fact", project="hermes")


def test_retriever_nodes(cairn: Cairn) -> None:
    seed(cairn)
    retriever = CairnRetriever(cairn, project="atlas")
    nodes = retriever.retrieve("where does staging run?")
    assert nodes[0].node.get_content() == "Staging runs on a Hetzner box in Helsinki"
    assert nodes[0].node.node_id == cairn.get(nodes[0].node.node_id).id
    assert nodes[0].score > 0 and nodes[0].node.metadata["type"] == "fact"
    assert all(n.node.metadata["project"] == "atlas" for n in nodes)
    assert [n.node.metadata["type"] for n in CairnRetriever(cairn, project="atlas", types=["decision"])
            .retrieve("deploy")] == ["decision"]
    nodes = asyncio.run(retriever.aretrieve("when do we deploy?"))
    assert nodes[0].node.get_content().startswith("We deploy atlas on Fridays")


def test_retriever_in_a_query_engine(cairn: Cairn) -> None:
    seed(cairn)
    engine = RetrieverQueryEngine.from_args(CairnRetriever(cairn, project="atlas", limit=2),
                                            llm=MockLLM())
    response = engine.query("where does staging run?")
    assert response.source_nodes[0].node.get_content() == "Staging runs on a Hetzner box in Helsinki"
    assert "Hetzner box in Helsinki" in str(response), "MockLLM echoes the prompt with the memories"


def test_memory_block_recalls_and_keeps_flushed_messages(cairn: Cairn) -> None:
    seed(cairn)
    block = CairnMemoryBlock(client=cairn, project="atlas", limit=2)
    memory = Memory.from_defaults(session_id="chat-1", token_limit=60, chat_history_token_ratio=0.5,
                                  token_flush_size=20, memory_blocks=[block])

    async def run() -> list:
        await memory.aput_messages([
            ChatMessage(role="user", content="Hi, I'm Ada and I look after the atlas service every day."),
            ChatMessage(role="assistant", content="Hello Ada, how can I help with atlas today?"),
            ChatMessage(role="user", content="The billing job must never run during the deploy window."),
            ChatMessage(role="assistant", content="Understood: billing stays off during deploys."),
        ])
        return await memory.aget(input="Where does staging run?")

    messages = asyncio.run(run())
    system = messages[0]
    assert system.role.value == "system" and "<cairn>" in system.content
    assert "Staging runs on a Hetzner box in Helsinki" in system.content

    # The messages the short-term queue flushed are a Cairn conversation.
    (conversation,) = cairn.list_conversations()
    assert conversation.id == "chat-1" and conversation.messages >= 1
    kept = [m["content"] for t in cairn.conversation("chat-1").topic_list for m in t["messages"]]
    assert "user: Hi, I'm Ada and I look after the atlas service every day." in kept
    assert all(m.project == "atlas" for m in cairn.list(types=["episode"], project="atlas"))

    # Later, the block recalls what was flushed.
    recalled = asyncio.run(block.aget([ChatMessage(role="user", content="Who looks after atlas?")]))
    assert "Ada" in recalled
    assert asyncio.run(block.aget([])) == ""
