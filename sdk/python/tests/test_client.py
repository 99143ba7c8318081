"""The SDK against a live `cairn serve`, sync and async."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from cairn_memory import (AsyncCairn, Cairn, Forbidden, NotFound, RateLimited, Unauthenticated,
                   models)


def test_remember_recall_get_update_forget(server) -> None:
    with Cairn(server.url, api_key=server.keys["alice"]) as c:
        made = c.remember("atlas staging runs on a Hetzner box in Falkenstein", type="fact",
                          project="atlas", tags=["infra"])
        assert made.status == "created" and made.project == "atlas"
        again = c.save("atlas staging runs on a Hetzner box in Falkenstein", type="fact",
                       project="atlas")
        assert again.status == "deduplicated" and again.id == made.id
        assert again.dedup["similarity"] >= again.dedup["threshold"]

        hits = c.recall("where does atlas staging run?", project="atlas", token_budget=500)
        assert hits.results[0].id == made.id
        assert hits.results[0].kind == "fact" and hits.results[0].score > 0

        m = c.get(made.short_id)
        assert m.content.startswith("atlas staging") and m.tags == ["infra"]
        m = c.update(made.id, add_tags=["hetzner"], importance=0.9)
        assert "hetzner" in m.tags and m.importance == pytest.approx(0.9)

        ctx = c.context("staging", project="atlas", budget=400)
        assert "Falkenstein" in ctx.markdown and ctx.tokens <= 400

        h = c.history(made.id)
        assert [v.change for v in h.versions] == ["created", "deduplicated", "updated"]
        assert h.versions[2].reason == "tags, importance" and h.deleted is None
        back = c.revert(made.id, 1)
        assert back.tags == ["infra"] and back.importance == pytest.approx(0.5)
        assert c.history(made.short_id).versions[-1].change == "reverted"

        dry = c.forget(project="atlas")
        assert dry.would_forget == 1 and dry.forgotten == 0
        assert c.forget(memory_id=made.id).forgotten == 1
        with pytest.raises(NotFound) as e:
            c.get(made.id)
        assert e.value.code == "not_found" and e.value.status == 404
        receipt = c.history(made.id).deleted
        assert receipt.versions == 4 and receipt.reason == "forgotten"


def test_list_pages_through_everything_and_filters_by_type(server) -> None:
    with Cairn(server.url, api_key=server.keys["bob"]) as c:
        ids = {c.remember(f"bob's note number {i} about topic {i * 7}", type="note",
                          dedup=False).id for i in range(25)}
        c.remember("bob prefers tea", type="preference")
        listed = [m.id for m in c.list(page_size=10, all_projects=True, memory_type="note")]
        assert len(listed) == 25 and set(listed) == ids
        assert len(listed) == len(set(listed)), "no memory twice across pages"
        assert c.stats().total == 26


def test_errors_are_typed_and_tenants_stay_apart(server) -> None:
    alice = Cairn(server.url, api_key=server.keys["alice"])
    secret = alice.remember("alice's launch date is the third of March").id
    with Cairn(server.url, api_key=server.keys["bob"]) as bob:
        with pytest.raises(NotFound):
            bob.get(secret)
        assert all("March" not in h.content for h in bob.recall("launch date").results)
    with Cairn(server.url, api_key=server.keys["reader"]) as reader:
        assert reader.get(secret).id == secret
        with pytest.raises(Forbidden) as e:
            reader.remember("a read key writes")
        assert e.value.code == "forbidden"
    with pytest.raises(Unauthenticated):
        Cairn(server.url, api_key="cairn_000000000000_00").stats()
    alice.close()


def test_import_and_export_stream_json_lines(server) -> None:
    with Cairn(server.url, api_key=server.keys["alice"]) as c:
        report = c.import_jsonl('{"content": "imported by the SDK", "project": "io"}\n{bad\n')
        assert report.imported == 1 and report.errors[0][0] == 2
        lines = list(c.export_jsonl())
        assert any("imported by the SDK" in line for line in lines)


def test_rate_limits_are_retried_after_the_time_the_server_names(limited) -> None:
    with Cairn(limited.url, api_key=limited.keys["alice"], retries=3) as c:
        start = time.monotonic()
        for i in range(62):
            c.remember(f"write number {i}", dedup=False)
        assert time.monotonic() - start >= 1.0, "the 61st write waited for its token"
        assert c.stats().total == 62
    with Cairn(limited.url, api_key=limited.keys["alice"], retries=0) as c:
        with pytest.raises(RateLimited) as e:
            for i in range(5):
                c.remember(f"no retries {i}", dedup=False)
        assert e.value.retry_after and e.value.retry_after >= 1


def test_async_client(server) -> None:
    async def run() -> None:
        async with AsyncCairn(server.url, api_key=server.keys["alice"]) as c:
            made = await c.remember("the async client remembers too", project="async")
            found = await c.recall("what does the async client do?", project="async")
            assert found.results[0].id == made.id
            listed = [m async for m in c.list(project="async")]
            assert [m.id for m in listed if m.project == "async"] == [made.id]
            assert all(m.project in ("async", None) for m in listed), "its project and global"
            lines = [line async for line in c.export_jsonl()]
            assert any("async client" in line for line in lines)
            with pytest.raises(NotFound):
                await c.get("00000000")
            await c.update(made.id, content="the async client remembers and forgets")
            assert (await c.revert(made.id, 1)).content == "the async client remembers too"
            assert (await c.forget(made.id)).forgotten == 1
            assert (await c.history(made.id)).deleted.versions == 3
    asyncio.run(run())


def test_models_name_fields_of_the_servers_schemas(server) -> None:
    doc = httpx.get(server.url + "/openapi.json").json()
    schemas = doc["components"]["schemas"]
    pairs = {
        models.Memory: "MemoryView", models.RecallHit: "RecallHit",
        models.RecallResult: "RecallOutput", models.RememberResult: "RememberOutput",
        models.Similar: "SimilarView", models.Page: "ListOutput",
        models.ForgetResult: "ForgetOutput", models.Stats: "StatsOutput",
        models.Context: "ContextPack", models.ImportReport: "ImportReport",
        models.History: "HistoryOutput", models.Version: "VersionView",
        models.Receipt: "ReceiptRecord",
    }
    for model, name in pairs.items():
        properties = set(schemas[name]["properties"])
        missing = set(model.wire_fields()) - properties
        assert not missing, f"{model.__name__} names {missing}, not in {name}"
