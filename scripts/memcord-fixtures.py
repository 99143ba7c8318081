#!/usr/bin/env python3
"""Write the memcord importer's test fixtures with memcord's own code.

Usage: scripts/memcord-fixtures.sh (makes a venv under target/ with
memcord==4.3.6 from PyPI and runs this file in it).

Writes crates/cairn-importers/tests/fixtures/memcord_slots/: the
`memory_slots` folder memcord's StorageManager keeps, with a
`<slot>_config.json` beside each slot file.
"""

import asyncio
import shutil
import sys
from pathlib import Path

from memcord.storage import StorageManager


async def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    store = StorageManager(
        memory_dir=str(out),
        shared_dir=str(out.parent / "memcord_shared_scratch"),
        enable_caching=False,
        enable_efficiency=False,
        enable_memory_management=False,
    )
    # A slot with an entry, summaries, tags, a group, a description and a
    # high priority.
    await store.create_or_get_slot("project_alpha")
    await store.save_memory(
        "project_alpha",
        "Alice: let's use JWT tokens with a 15 minute expiry.\n"
        "Bob: agreed, and rate-limit the login endpoint.",
    )
    await store.add_summary_entry(
        "project_alpha",
        "A long discussion of authentication choices. " * 20,
        "Decided: JWT with 15 minute expiry; next: rate limiting on login.",
        {"summary_type": "progressive"},
    )
    await store.add_summary_entry(
        "project_alpha",
        "The rate limiter landed on Tuesday. " * 10,
        "Rate limiting on login is done.",
    )
    await store.add_tag_to_slot("project_alpha", "backend")
    await store.add_tag_to_slot("project_alpha", "urgent")
    await store.set_slot_group("project_alpha", "projects/alpha")
    slot = await store.read_memory("project_alpha")
    slot.description = "Development discussions for Project Alpha"
    slot.priority = 1
    await store._save_slot(slot)
    await store.load_slot_config("project_alpha")  # writes its _config.json

    # A plain slot: one entry, nothing else set.
    await store.create_or_get_slot("grocery_notes")
    await store.save_memory("grocery_notes", "Buy oat milk and coffee beans.")
    await store.load_slot_config("grocery_notes")
    await store.shutdown()
    shutil.rmtree(out.parent / "memcord_shared_scratch", ignore_errors=True)
    for leftover in out.iterdir():
        if leftover.is_dir():
            shutil.rmtree(leftover)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
