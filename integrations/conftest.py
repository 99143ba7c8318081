"""The integrations' tests share one live `cairn serve`, started by
scripts/integrations-test.sh: `CAIRN_URL` is its address and `CAIRN_DB` its
store, where `cairn keys create` (the `CAIRN_BIN` binary) makes each test a
key of a tenant of its own, so every test starts on an empty memory."""

from __future__ import annotations

import json
import os
import subprocess
import uuid

import pytest

CAIRN = os.environ.get("CAIRN_BIN", "cairn")


def new_key(role: str = "write") -> str:
    """A key of a new tenant."""
    tenant = "it-" + uuid.uuid4().hex[:12]
    out = subprocess.run([CAIRN, "--json", "keys", "create", "--tenant", tenant, "--role", role],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["key"]


@pytest.fixture()
def url() -> str:
    address = os.environ.get("CAIRN_URL")
    if not address:
        pytest.fail("CAIRN_URL is not set: run scripts/integrations-test.sh")
    return address


@pytest.fixture()
def key() -> str:
    return new_key()


@pytest.fixture()
def cairn(url: str, key: str):
    from cairn_memory import Cairn

    with Cairn(url, api_key=key) as client:
        yield client
