"""CairnStore against a live server: LangGraph's store operations, and a
compiled graph whose nodes read and write memories through it."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, List, TypedDict

import pytest
from cairn_memory import Cairn
from cairn_langgraph import CairnStore, matches
from conftest import new_key
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore


def test_put_get_update_delete(cairn: Cairn) -> None:
    store = CairnStore(cairn)
    ns = ("users", "Ada")
    assert store.get(ns, "food") is None
    store.put(ns, "food", {"likes": "pizza with anchovies", "spicy": True})
    item = store.get(ns, "food")
    assert item is not None and item.namespace == ns and item.key == "food"
    assert item.value == {"likes": "pizza with anchovies", "spicy": True}
    created = item.created_at

    store.put(ns, "food", {"likes": "ramen", "spicy": False})
    item = store.get(ns, "food")
    assert item.value == {"likes": "ramen", "spicy": False}
    assert item.created_at == created and item.updated_at >= created
    memories = list(cairn.list(tags=["langgraph"]))
    assert len(memories) == 1, "a second put on a key updates its memory"
    assert memories[0].content.startswith('{"likes": "ramen"')
    tags = memories[0].tags
    assert "langgraph" in tags and len(tags) == 4, "the marker, a tag per namespace prefix, the key's"
    assert sum(t.startswith("lg-ns:") for t in tags) == 2 and sum(t.startswith("lg-key:") for t in tags) == 1
    assert len(list(cairn.list(tags=[t for t in tags if t.startswith("lg-ns:")][:1]))) == 1
    assert len(cairn.history(memories[0].id).versions) == 2, "Cairn keeps the older value"

    # Labels differing only in case are different namespaces.
    assert store.get(("users", "ada"), "food") is None
    store.delete(ns, "food")
    assert store.get(ns, "food") is None
    assert list(cairn.list(tags=["langgraph"])) == []


def test_search_by_prefix_query_and_filter(cairn: Cairn) -> None:
    store = CairnStore(cairn, index=["text"])
    store.put(("users", "ada", "memories"), "m1", {"text": "Ada deploys the atlas service on Fridays", "n": 1})
    store.put(("users", "ada", "memories"), "m2", {"text": "Ada's staging server runs on a Hetzner box", "n": 2})
    store.put(("users", "bob", "memories"), "m1", {"text": "Bob deploys on Mondays", "n": 3})
    store.put(("docs",), "readme", {"text": "how to deploy", "n": 4})

    everything = store.search(())
    assert len(everything) == 4
    ada = store.search(("users", "ada"))
    assert {i.key for i in ada} == {"m1", "m2"} and all(i.namespace[1] == "ada" for i in ada)
    assert len(store.search(("users",))) == 3
    assert store.search(("users", "carol")) == []

    hits = store.search(("users", "ada"), query="where is staging hosted?")
    assert hits[0].key == "m2" and hits[0].score is not None and hits[0].score > 0
    assert all(h.namespace[:2] == ("users", "ada") for h in hits)

    assert [i.value["n"] for i in store.search(("users",), filter={"n": 3})] == [3]
    big = store.search(("users",), filter={"n": {"$gte": 2}})
    assert sorted(i.value["n"] for i in big) == [2, 3]
    assert [i.key for i in store.search(("users",), query="deploys", filter={"n": {"$lt": 2}})] == ["m1"]

    page = store.search(("users",), limit=2)
    rest = store.search(("users",), limit=2, offset=2)
    assert len(page) == 2 and len(rest) == 1
    assert {(i.namespace, i.key) for i in page + rest} == {(i.namespace, i.key) for i in store.search(("users",))}


def test_list_namespaces(cairn: Cairn) -> None:
    store = CairnStore(cairn)
    for ns in [("users", "ada", "memories"), ("users", "ada", "prefs"), ("users", "bob", "memories"),
               ("docs", "Readme")]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [("docs", "Readme"), ("users", "ada", "memories"),
                                       ("users", "ada", "prefs"), ("users", "bob", "memories")]
    assert store.list_namespaces(prefix=("users",), max_depth=2) == [("users", "ada"), ("users", "bob")]
    assert store.list_namespaces(suffix=("memories",)) == [("users", "ada", "memories"),
                                                           ("users", "bob", "memories")]
    assert store.list_namespaces(prefix=("users", "*", "prefs")) == [("users", "ada", "prefs")]
    assert store.list_namespaces(limit=1, offset=1) == [("users", "ada", "memories")]


def test_projects_and_tenants_are_apart(url: str, cairn: Cairn) -> None:
    atlas, hermes = CairnStore(cairn, project="atlas"), CairnStore(cairn, project="hermes")
    atlas.put(("notes",), "k", {"text": "atlas only"})
    assert hermes.get(("notes",), "k") is None and hermes.search(()) == []
    assert [m.project for m in cairn.list(project="atlas")] == ["atlas"]
    with Cairn(url, api_key=new_key()) as other:
        assert CairnStore(other, project="atlas").get(("notes",), "k") is None
    assert atlas.get(("notes",), "k").value == {"text": "atlas only"}


def test_ttl_and_bad_input(cairn: Cairn) -> None:
    store = CairnStore(cairn)
    store.put(("tmp",), "k", {"v": 1}, ttl=5)
    (m,) = cairn.list(tags=["langgraph"])
    assert m.expires_at, "a ttl in minutes becomes the memory's expiry"
    with pytest.raises(ValueError, match="(?i)namespace"):
        store.put((), "k", {"v": 1})
    with pytest.raises(ValueError, match=r"\$regex"):
        store.search(("tmp",), filter={"v": {"$regex": "x"}})
    assert matches({"a": 1}, {"a": {"$ne": 2}}) and not matches({"a": "x"}, {"a": {"$gt": 1}})


def test_async_batch(cairn: Cairn) -> None:
    store = CairnStore(cairn)

    async def run() -> None:
        await store.aput(("a",), "k", {"text": "async value"})
        item = await store.aget(("a",), "k")
        assert item.value == {"text": "async value"}
        assert [i.key for i in await store.asearch(("a",), query="value")] == ["k"]
        assert await store.alist_namespaces() == [("a",)]
        await store.adelete(("a",), "k")
        assert await store.aget(("a",), "k") is None

    asyncio.run(run())


class State(TypedDict):
    user: str
    message: str
    recalled: Annotated[List[str], operator.add]


def remember(state: State, *, store: BaseStore) -> dict:
    if state["message"].startswith("remember "):
        fact = state["message"][len("remember "):]
        ns = ("memories", state["user"])
        store.put(ns, f"m{len(store.search(ns)) + 1}", {"text": fact})
    return {}


def recall(state: State, *, store: BaseStore) -> dict:
    hits = store.search(("memories", state["user"]), query=state["message"], limit=1)
    return {"recalled": [h.value["text"] for h in hits]}


def test_a_compiled_graph_keeps_its_memories_in_cairn(url: str, key: str) -> None:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)

    # One graph writes; a second one, compiled later on another client,
    # reads what the first kept: the memory lives in Cairn, not the process.
    with Cairn(url, api_key=key) as first:
        graph = builder.compile(store=CairnStore(first, index=["text"]))
        graph.invoke({"user": "ada", "message": "remember the staging server is in Helsinki", "recalled": []})
        graph.invoke({"user": "ada", "message": "remember Ada prefers tea over coffee", "recalled": []})
        graph.invoke({"user": "bob", "message": "remember Bob's staging server is in Lisbon", "recalled": []})
    with Cairn(url, api_key=key) as second:
        graph = builder.compile(store=CairnStore(second, index=["text"]))
        out = graph.invoke({"user": "ada", "message": "where is the staging server?", "recalled": []})
        assert out["recalled"] == ["the staging server is in Helsinki"]
        out = graph.invoke({"user": "ada", "message": "what does Ada drink?", "recalled": []})
        assert out["recalled"] == ["Ada prefers tea over coffee"]
        assert len(list(second.list(tags=["langgraph"]))) == 3
