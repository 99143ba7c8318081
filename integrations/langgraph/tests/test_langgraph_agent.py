"""LangGraph's prebuilt ReAct agent with tools that take the store
(`InjectedStore`), compiled with a CairnStore, on LangChain's scripted chat
model: what the agent saves is in Cairn, and a new agent finds it."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from cairn_memory import Cairn
from cairn_langgraph import CairnStore
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.prebuilt import InjectedStore, create_react_agent
from langgraph.store.base import BaseStore


class ScriptedChatModel(FakeMessagesListChatModel):
    """LangChain's fake chat model, answering its scripted messages
    (tool calls included) whatever tools it is given."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self


@tool
def save_memory(text: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save something about the user for later conversations."""
    store.put(("memories", "ada"), uuid.uuid4().hex, {"text": text})
    return "saved"


@tool
def search_memory(query: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Search what was saved about the user."""
    return "\n".join(i.value["text"] for i in store.search(("memories", "ada"), query=query, limit=2))


def calls(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])


def test_a_react_agent_keeps_its_memories_in_cairn(url: str, key: str) -> None:
    with Cairn(url, api_key=key) as cairn:
        model = ScriptedChatModel(responses=[
            calls("save_memory", text="Ada is allergic to peanuts"), AIMessage(content="Noted.")])
        agent = create_react_agent(model, [save_memory, search_memory],
                                   store=CairnStore(cairn, index=["text"]))
        out = agent.invoke({"messages": [("user", "I'm allergic to peanuts.")]})
        assert out["messages"][-1].content == "Noted."
        (m,) = cairn.list(tags=["langgraph"])
        assert m.content == "Ada is allergic to peanuts"

    # A new agent, on a new client: the memory came from Cairn.
    with Cairn(url, api_key=key) as cairn:
        model = ScriptedChatModel(responses=[
            calls("search_memory", query="food allergies"), AIMessage(content="No peanuts, then.")])
        agent = create_react_agent(model, [save_memory, search_memory],
                                   store=CairnStore(cairn, index=["text"]))
        out = agent.invoke({"messages": [("user", "Plan my dinner.")]})
        tool_answer = [m for m in out["messages"] if m.type == "tool"][0]
        assert tool_answer.content == "Ada is allergic to peanuts"
        assert out["messages"][-1].content == "No peanuts, then."
