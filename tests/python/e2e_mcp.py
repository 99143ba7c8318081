"""End-to-end test of Cairn's MCP server with the official Python MCP SDK.

Drives `cairn mcp` over stdio and `cairn serve` over streamable HTTP:
initialize, list tools/resources/templates/prompts, remember, recall,
context, get, forget, resources, the prompt, and errors. While the HTTP
server runs, the `cairn` CLI writes to the same database file.

Usage: python e2e_mcp.py PATH/TO/cairn
Exit status 0 when every check passed; prints "N passed, 0 failed".
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

CAIRN = sys.argv[1] if len(sys.argv) > 1 else "cairn"
PASSED: list[str] = []
FAILED: list[str] = []


def check(name: str, ok: bool, detail: object = "") -> None:
    if ok:
        PASSED.append(name)
    else:
        FAILED.append(name)
        print(f"FAIL {name}: {detail}", file=sys.stderr)


class Warnings(logging.Handler):
    """Every warning the SDK logs or warns (`warnings` is routed to logging)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(f"{record.name}: {record.getMessage()}")


def structured(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def exercise(session: ClientSession, label: str, project_dir: Path) -> None:
    """The checks both transports must pass."""
    tools = (await session.list_tools()).tools
    names = sorted(t.name for t in tools)
    check(
        f"{label}: tools listed",
        names
        == sorted(
            [
                "remember", "recall", "context", "get", "update", "forget", "list", "stats", "help",
                "observe", "window", "ingest", "slot",
            ]
        ),
        names,
    )
    check(
        f"{label}: schemas and annotations",
        all(t.input_schema and t.output_schema and t.annotations for t in tools),
    )
    recall_tool = next(t for t in tools if t.name == "recall")
    check(f"{label}: recall is read-only", recall_tool.annotations.read_only_hint is True)

    r = structured(
        await session.call_tool(
            "remember",
            {"content": f"The {label} deploy key lives in the ops vault under /deploy/{label}", "type": "fact", "tags": ["ops"]},
        )
    )
    check(f"{label}: remember created", r["status"] == "created", r)
    mem_id = r["id"]
    again = structured(
        await session.call_tool(
            "remember",
            {"content": f"The {label} deploy key lives in the ops vault under /deploy/{label}.", "type": "fact"},
        )
    )
    check(f"{label}: remember deduplicated", again["status"] == "deduplicated" and again["id"] == mem_id, again)

    found = structured(await session.call_tool("recall", {"query": "where is the deploy key?", "limit": 5}))
    ids = [x["id"] for x in found["results"]]
    check(f"{label}: recall finds it", mem_id in ids, found)
    check(f"{label}: recall has scores and short ids", all("score" in x and "short_id" in x for x in found["results"]))

    ctx = await session.call_tool("context", {"topic": "deploy", "budget": 800})
    check(f"{label}: context markdown", "deploy key" in text_of(ctx) and structured(ctx)["tokens"] <= 800)

    got = structured(await session.call_tool("get", {"id": r["short_id"]}))
    check(f"{label}: get by short id", got["id"] == mem_id, got)

    resources = (await session.list_resources()).resources
    check(f"{label}: context resource listed", any(str(x.uri) == "cairn://context" for x in resources))
    templates = (await session.list_resource_templates()).resource_templates
    check(
        f"{label}: templates advertised",
        sorted(t.uri_template for t in templates)
        == sorted(
            [
                "cairn://context/{project}",
                "cairn://memory/{id}",
                "cairn://session/{id}/working-memory",
                "cairn://slot/{name}.md",
                "cairn://slot/{name}.txt",
                "cairn://slot/{name}.json",
            ]
        ),
        sorted(t.uri_template for t in templates),
    )
    saved = structured(
        await session.call_tool("slot", {"action": "save", "name": f"{label}-notes", "text": "The release ships on Friday."})
    )
    check(f"{label}: slot save", saved["result"]["entry"]["index"] == 1, saved)
    md = await session.read_resource(f"cairn://slot/{label}-notes.md")
    check(f"{label}: slot resource", md.contents[0].text.startswith(f"# Memory Slot: {label}-notes"), md.contents[0].text)
    read = await session.read_resource(f"cairn://memory/{mem_id}")
    check(f"{label}: read memory resource", json.loads(read.contents[0].text)["id"] == mem_id)
    read = await session.read_resource("cairn://context")
    check(f"{label}: read context resource", "deploy key" in read.contents[0].text)

    prompts = (await session.list_prompts()).prompts
    check(f"{label}: prompt listed", [p.name for p in prompts] == ["memory-protocol", "memory-block"])
    prompt = await session.get_prompt("memory-protocol")
    check(f"{label}: prompt text", "Recall before acting" in prompt.messages[0].content.text)

    # Errors: tool-level (is_error) and protocol-level (JSON-RPC).
    missing = await session.call_tool("get", {"id": "ffffffff"})
    check(f"{label}: unknown id is is_error", missing.is_error and "no memory" in text_of(missing), missing)
    too_big = await session.call_tool("remember", {"content": "x" * (1024 * 1024 + 1)})
    check(f"{label}: oversized content is is_error", too_big.is_error and "split" in text_of(too_big))
    for tool, args in [("teleport", {}), ("remember", {}), ("recall", {"query": 5})]:
        try:
            res = await session.call_tool(tool, args)
            # Some SDK versions surface protocol errors as is_error results.
            check(f"{label}: {tool} {args} rejected", res.is_error, res)
        except MCPError as e:
            check(f"{label}: {tool} {args} rejected", e.error.code in (-32602, -32601), e.error)

    dry = structured(await session.call_tool("forget", {"tags": ["ops"]}))
    check(f"{label}: forget by filter needs confirm", dry["would_forget"] >= 1 and dry["forgotten"] == 0, dry)
    gone = structured(await session.call_tool("forget", {"id": mem_id}))
    check(f"{label}: forget by id", gone["forgotten"] == 1, gone)
    after = structured(await session.call_tool("recall", {"query": "where is the deploy key?"}))
    check(f"{label}: forgotten memory not recalled", mem_id not in [x["id"] for x in after["results"]])
    stats = structured(await session.call_tool("stats", {}))
    check(f"{label}: still serving after errors", isinstance(stats["total"], int))


async def run_stdio(db: Path, project_dir: Path) -> None:
    params = StdioServerParameters(
        command=CAIRN,
        args=["mcp"],
        env={**os.environ, "CAIRN_DB": str(db)},
        cwd=str(project_dir),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check("stdio: initialize", init.server_info.name == "cairn", init.server_info)
                await exercise(session, "stdio", project_dir)
                # The project comes from the .cairn file in the working directory.
                stats = structured(await session.call_tool("stats", {}))
                check("stdio: project detected from .cairn", stats["session_project"] == "e2e-proj", stats)


def make_key(db: Path, role: str) -> str:
    """A new API key for the local tenant, from `cairn keys create --json`."""
    out = subprocess.run(
        [CAIRN, "--json", "keys", "create", "--tenant", "default", "--role", role, "--label", "e2e"],
        env={**os.environ, "CAIRN_DB": str(db)},
        capture_output=True, text=True, check=True,
    )
    made = json.loads(out.stdout)
    check(f"keys create --json ({role})", set(made) >= {"id", "key", "tenant", "role"}, made)
    return made["key"]


def client(key: str | None):
    return create_mcp_http_client(headers={"Authorization": f"Bearer {key}"} if key else None)


async def check_auth(url: str, read_key: str) -> None:
    """Without a key: 401. With a read key: reads work, writes are refused."""
    async with client(None) as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                            headers={"Accept": "application/json, text/event-stream"})
        check("http: no key is 401", r.status_code == 401, r.status_code)
        rest = url.removesuffix("/mcp") + "/v1/stats"
        r = await http.get(rest)
        check("rest: no key is 401", r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated", r.text)
    async with client(read_key) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                stats = await session.call_tool("stats", {})
                check("http: a read key reads", not stats.is_error, stats)
                try:
                    r = await session.call_tool("remember", {"content": "a read key tries to write"})
                    check("http: a read key cannot write", r.is_error, r)
                except MCPError as e:
                    check("http: a read key cannot write", "may only read" in str(e), e)


async def check_rest(url: str, key: str) -> None:
    """The REST API beside MCP, with the same key."""
    base = url.removesuffix("/mcp")
    async with client(key) as http:
        r = await http.post(base + "/v1/memories", json={"content": "REST clients share this store", "type": "fact"})
        check("rest: remember is 201", r.status_code == 201 and r.json()["status"] == "created", r.text)
        r = await http.post(base + "/v1/recall", json={"query": "who shares the store?"})
        hits = r.json().get("results", [])
        check("rest: recall finds it", r.status_code == 200 and any("REST clients" in h["content"] for h in hits), r.text)


def start_http(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [CAIRN, "serve", "--listen", "127.0.0.1:0", "--sweep-every", "1s"],
        env={**os.environ, "CAIRN_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    m = re.search(r"http://([0-9.:]+)/mcp", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"cairn serve printed {line!r}")
    return proc, f"http://{m.group(1)}/mcp"


async def run_http(db: Path, project_dir: Path) -> None:
    key, read_key = make_key(db, "write"), make_key(db, "read")
    proc, url = start_http(db)
    try:
        await check_auth(url, read_key)
        await check_rest(url, key)
        async with client(key) as http, streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check("http: initialize", init.server_info.name == "cairn", init.server_info)
                await exercise(session, "http", project_dir)

                # Two clients and the CLI on one database file at once.
                async with client(key) as http2, streamable_http_client(url, http_client=http2) as streams2:
                    async with ClientSession(streams2[0], streams2[1]) as other:
                        await other.initialize()
                        before = structured(await session.call_tool("stats", {}))["total"]
                        cli = await asyncio.create_subprocess_exec(
                            CAIRN, "remember", "written by the CLI while the server runs", "--type", "episode",
                            env={**os.environ, "CAIRN_DB": str(db)},
                            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
                        )
                        writes = [
                            s.call_tool("remember", {"content": f"concurrent write {i} from client {n}", "type": "episode"})
                            for n, s in ((1, session), (2, other))
                            for i in range(5)
                        ]
                        results = await asyncio.gather(*writes)
                        code = await cli.wait()
                        check("http: CLI write beside the server", code == 0, code)
                        check("http: concurrent writes", all(not r.is_error for r in results))
                        total = structured(await other.call_tool("stats", {}))["total"]
                        check("http: every write landed", total == before + 11, (before, total))

                # A TTL memory is deleted by the server's sweep.
                structured(await session.call_tool("remember", {"content": "short-lived on-call note", "ttl": "1s"}))
                await asyncio.sleep(3.5)
                stats = structured(await session.call_tool("stats", {}))
                check("http: sweep deleted the expired memory", stats["expired"] == 0, stats)
    finally:
        proc.terminate()
        try:
            code = proc.wait(timeout=10)
            check("http: graceful shutdown on SIGTERM", code == 0, code)
        except subprocess.TimeoutExpired:
            proc.kill()
            check("http: graceful shutdown on SIGTERM", False, "did not stop in 10 s")


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        project_dir = tmp / "work"
        project_dir.mkdir()
        subprocess.run([CAIRN, "init", "--project", "e2e-proj"], cwd=project_dir, check=True, stdout=subprocess.DEVNULL)
        t0 = time.time()
        # A session of tools/list, remember and recall (and the rest) over
        # stdio: the SDK, validating every schema and structured result,
        # must have nothing to warn about.
        seen = Warnings()
        logging.getLogger().addHandler(seen)
        logging.captureWarnings(True)
        warnings.simplefilter("always")
        await run_stdio(tmp / "stdio.db", project_dir)
        check("stdio: the SDK warned of nothing", not seen.seen, seen.seen[:5])
        logging.getLogger().removeHandler(seen)
        await run_http(tmp / "http.db", project_dir)
        print(f"e2e finished in {time.time() - t0:.1f} s")
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
