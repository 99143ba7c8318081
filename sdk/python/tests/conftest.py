"""A real `cairn serve` on a loopback port, on a store of its own, with
API keys made by `cairn keys create`. `CAIRN_BIN` names the binary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

CAIRN = os.environ.get("CAIRN_BIN", "cairn")


class Server:
    def __init__(self, *flags: str) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.env = {**os.environ, "CAIRN_DB": str(Path(self.dir.name) / "cairn.db")}
        self.keys: Dict[str, str] = {}
        self.flags: List[str] = list(flags)
        self.proc: subprocess.Popen = None  # type: ignore[assignment]
        self.url = ""

    def key(self, tenant: str, role: str) -> str:
        out = subprocess.run([CAIRN, "--json", "keys", "create", "--tenant", tenant, "--role", role],
                             env=self.env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)["key"]

    def start(self) -> "Server":
        self.proc = subprocess.Popen([CAIRN, "serve", "--listen", "127.0.0.1:0", *self.flags],
                                     env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"(http://[0-9.:]+)/mcp", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"cairn serve printed {line!r}")
        self.url = m.group(1)
        return self

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.dir.cleanup()


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    s = Server("--rate-writes", "0", "--rate-recalls", "0", "--rate-reads", "0")
    s.keys = {"alice": s.key("alice", "write"), "bob": s.key("bob", "write"),
              "reader": s.key("alice", "read")}
    s.start()
    yield s
    s.stop()


@pytest.fixture()
def limited() -> Iterator[Server]:
    s = Server("--rate-writes", "60")
    s.keys = {"alice": s.key("alice", "write")}
    s.start()
    yield s
    s.stop()
