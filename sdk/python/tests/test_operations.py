"""The operations beyond memories' basics, sync and async, against a live
`cairn serve`: ingest, prompt, slots, conversations and messages, window,
tagging, neighbours, chain, activity, consolidation, providers, keys."""

from __future__ import annotations

import asyncio

import pytest

from cairn_memory import AsyncCairn, Cairn, Forbidden, NotFound, Unauthenticated


@pytest.fixture(scope="module")
def admin(server) -> str:
    return server.key("carol", "admin")


def test_ingest_prompt_tag_similar_chain_activity(server, admin) -> None:
    with Cairn(server.url, api_key=admin) as c:
        text = ("# Runbook\n\nThe payments queue is drained by the worker on host q-7 every five "
                "minutes.\n\nWhen the queue backs up, restart it with systemctl restart "
                "payments-worker.")
        dry = c.ingest(text, project="runbook", dry_run=True)
        assert dry.dry_run and dry.chunks and dry.stored >= 1, "what would be stored"
        assert list(c.list(project="runbook")) == []
        done = c.ingest(text, project="runbook")
        assert done.stored >= 1 and len(list(c.list(project="runbook"))) == done.stored

        old = c.remember("the analytics database runs PostgreSQL 14 on db-3", project="ana")
        near = c.remember("the analytics database runs PostgreSQL 16 on db-4", project="ana",
                          dedup=False)
        assert near.id in [n["id"] for n in c.similar(old.id, limit=5).similar]
        tagged = c.tag([old.id, near.id], add_tags=["db"])
        assert tagged.tagged == 2 and sorted(tagged.ids) == sorted([old.id, near.id])
        newer = c.remember("the analytics database moved to PostgreSQL 17", project="ana",
                           supersedes=old.id)
        chain = c.chain(newer.id)
        assert [m.id for m in chain.chain][-2:] == [old.id, newer.id]
        entries = c.activity(limit=5).entries
        assert entries[0]["id"] in (newer.id, old.id)

        block = c.prompt("the analytics database moved to PostgreSQL 17", project="ana",
                         budget=300)
        assert "PostgreSQL 17" in block.text and block.total_tokens <= 300


def test_conversations_messages_window(server, admin) -> None:
    with Cairn(server.url, api_key=admin) as c:
        out = c.log_messages([
            {"conversation": "trip", "session": "s1", "role": "user",
             "text": "I am planning a trip to Lisbon in May with my sister."},
            {"conversation": "trip", "session": "s1", "role": "assistant",
             "text": "Lisbon in May is warm; book the tram 28 early."},
        ])
        assert len(out.logged) == 2 and out.pending == []
        conversation = out.logged[0]["conversation"]
        listed = {v.id: v for v in c.list_conversations()}
        assert listed[conversation].messages == 2
        tree = c.conversation(conversation)
        assert tree.id == conversation and "tram 28" in str(tree.topic_list)
        assert c.conversation_stats(conversation).totals
        with pytest.raises(NotFound):
            c.conversation("no-such-conversation")

        window = c.window("s1", "what should I book in Lisbon?", budget=800)
        assert "tram 28" in window.text and window.total_tokens <= 800
        assert "Lisbon" in c.working_memory("s1").text

        lines = (b'{"conversation": "standup", "speaker": "Ana", "text": "The release branch'
                 b' is cut on Thursdays."}\n',
                 b'{"conversation": "standup", "speaker": "Ben", "text": "QA signs off on'
                 b' Friday mornings."}\n')
        report = c.import_transcript(iter(lines), project="team")
        assert report.imported == 2 and report.errors == []


def test_slots(server, admin) -> None:
    with Cairn(server.url, api_key=admin) as c:
        made = c.set_slot("design-notes", description="decisions", tags=["design"], priority=2)
        assert made.name == "design-notes" and made.priority == 2
        saved = c.save_to_slot("design-notes", "We chose SQLite with a vector index.",
                               author="ana")
        assert saved.slot.entries == 1
        c.save_to_slot("design-notes", "Every REST error is a JSON object with a code.")
        page = c.read_slot("design-notes", limit=1)
        assert page.total == 2 and len(page.entries) == 1
        assert [s.name for s in c.list_slots(tags=["design"])] == ["design-notes"]
        found = c.search_slots("We chose SQLite with a vector index.", slots=["design-notes"])
        assert "SQLite" in found.results[0].content
        assert "JSON object with a code" in c.export_slot("design-notes")
        assert "SQLite" in c.export_slot("design-notes", "json")
        archived = c.archive_slot("design-notes", "review done")
        assert archived.archived_at and archived.archive_reason == "review done"
        assert c.list_slots() == [] and len(c.list_slots(archived_only=True)) == 1
        assert c.restore_slot("design-notes").archived_at is None
        with pytest.raises(NotFound):
            c.read_slot("no-such-slot")


def test_keys_consolidation_providers_probes(server, admin) -> None:
    with Cairn(server.url, api_key=admin) as c:
        made = c.create_key("dave", "write", label="from the SDK")
        assert made.key.startswith("cairn_") and made.tenant == "dave"
        with Cairn(server.url, api_key=made.key) as dave:
            assert dave.remember("a memory of dave").status == "created"
            with pytest.raises(Forbidden):
                dave.create_key("dave", "admin")
            assert [(k.id, k.status) for k in c.list_keys(tenant="dave")] == [(made.id, "active")]
            assert c.revoke_key(made.id).status == "revoked"
            with pytest.raises(Unauthenticated):
                dave.stats()

        for day in range(3):
            c.remember(f"episode {day}: the team closed {day} tickets of the incident queue",
                       type="episode", project="ops", dedup=False)
        dry = c.consolidate(project="ops", keep=0, dry_run=True)
        assert dry.dry_run and dry.tenant == "carol"
        done = c.consolidate(project="ops", keep=0)
        assert not done.dry_run and done.episodes == dry.episodes
        assert len(done.groups) == len(dry.groups)

        assert "embed" in str(c.providers()).lower()
        assert c.health() and c.ready() and "# TYPE" in c.metrics()


def test_async_operations(server, admin) -> None:
    async def run() -> None:
        async with AsyncCairn(server.url, api_key=admin) as c:
            done = await c.ingest("The async ingest stores this sentence about ferries.",
                                  project="async-ops")
            assert done.stored == 1
            block = await c.prompt("The async ingest stores this sentence about ferries.",
                                   project="async-ops")
            assert "ferries" in block.text
            await c.set_slot("async-slot")
            await c.save_to_slot("async-slot", "written by the async client")
            assert (await c.read_slot("async-slot")).total == 1
            out = await c.log_messages([{"conversation": "async", "session": "as1",
                                         "role": "user", "text": "async hello about ferries"}])
            assert len(out.logged) == 1
            assert "ferries" in (await c.window("as1", "ferries?")).text
            assert (await c.working_memory("as1")).text
            assert any(v.messages == 1 for v in await c.list_conversations())

            async def lines():
                yield b'{"content": "imported by the async client"}\n'
            assert (await c.import_jsonl(lines())).imported == 1
            assert (await c.activity(limit=3)).entries
            assert (await c.consolidate(dry_run=True)).dry_run
            assert await c.health()
    asyncio.run(run())
