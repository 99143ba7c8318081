"""End-to-end test of Cairn's OAuth sign-in for remote MCP with the official
Python MCP SDK's OAuth client (`mcp.client.auth.OAuthClientProvider`).

`cairn serve` runs with API keys. The SDK gets 401 from /mcp, discovers the
protected-resource and authorization-server metadata, registers itself,
and sends the user to the authorization URL; the redirect handler here
plays the user: it signs in to the web UI with an API key and posts the
consent form (tenant, project, role), and hands the code in the redirect
to the SDK, which exchanges it with PKCE. Then tools are listed and
remember/recall called; the token's tenant confines them.

Usage: python e2e_oauth.py PATH/TO/cairn
Exit status 0 when every check passed; prints "N passed, 0 failed".
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

CAIRN = sys.argv[1] if len(sys.argv) > 1 else "cairn"
REDIRECT = "http://127.0.0.1:33418/callback"
PASSED: list[str] = []
FAILED: list[str] = []


def check(name: str, ok: bool, detail: object = "") -> None:
    if ok:
        PASSED.append(name)
    else:
        FAILED.append(name)
        print(f"FAIL {name}: {detail}", file=sys.stderr)


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class User:
    """A person in a browser: signs in with `key` and consents."""

    def __init__(self, key: str, tenant: str, role: str, project: str) -> None:
        self.key, self.tenant, self.role, self.project = key, tenant, role, project
        self.result: AuthorizationCodeResult | None = None
        self.consent_page = ""

    async def redirect(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as http:
            # /oauth/authorize sends the browser to the consent page, which
            # sends a browser without a session to sign in.
            r = await http.get(authorization_url)
            check("oauth: authorize redirects to the consent page", r.status_code == 303, r.status_code)
            consent = urljoin(authorization_url, r.headers["location"])
            r = await http.get(consent)
            check("oauth: consent needs sign-in", r.status_code == 303 and "/ui/login?next=" in r.headers["location"], r.headers)
            next_page = parse_qs(urlparse(r.headers["location"]).query)["next"][0]
            r = await http.post(urljoin(consent, "/ui/login"), data={"key": self.key, "next": next_page})
            check("oauth: sign-in returns to the consent page", r.status_code == 303 and r.headers["location"] == next_page, r.text)
            # The session cookie is `Secure`; a browser sends it to
            # localhost over http, httpx does not: send it by hand.
            cookie = r.headers["set-cookie"].split(";")[0]
            r = await http.get(urljoin(consent, next_page), headers={"Cookie": cookie})
            self.consent_page = r.text
            check("oauth: consent page shown", r.status_code == 200 and "Allow" in r.text, r.status_code)
            fields = {
                unescape(m.group(1)): unescape(m.group(2))
                for m in re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', r.text)
            }
            fields.update(tenant=self.tenant, project=self.project, role=self.role, decision="allow")
            r = await http.post(urljoin(consent, "/ui/oauth/authorize"), data=fields, headers={"Cookie": cookie})
            location = r.headers.get("location", "")
            check("oauth: consent redirects to the client", r.status_code == 303 and location.startswith(REDIRECT), r.text[:300])
            query = parse_qs(urlparse(location).query)
            self.result = AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None, "the redirect handler ran first"
        return self.result


def make_key(db: Path, tenant: str, role: str) -> str:
    out = subprocess.run(
        [CAIRN, "--json", "keys", "create", "--tenant", tenant, "--role", role, "--label", "oauth-e2e"],
        env={**os.environ, "CAIRN_DB": str(db)},
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)["key"]


def start(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [CAIRN, "serve", "--listen", "127.0.0.1:0"],
        env={**os.environ, "CAIRN_DB": str(db)},
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    line = proc.stdout.readline()
    m = re.search(r"http://([0-9.:]+)/mcp", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"cairn serve printed {line!r}")
    return proc, f"http://{m.group(1)}/mcp"


def provider(url: str, user: User, storage: MemoryStorage) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="Cairn e2e agent",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=user.redirect,
        callback_handler=user.callback,
    )


async def run(db: Path) -> None:
    alice_key = make_key(db, "alice", "write")
    bob_key = make_key(db, "bob", "write")
    proc, url = start(db)
    try:
        base = url.removesuffix("/mcp")
        async with httpx2.AsyncClient() as http:
            r = await http.post(base + "/v1/memories", json={"content": "bob's locker code is 7719", "type": "fact"},
                                headers={"Authorization": f"Bearer {bob_key}"})
            check("rest: bob remembers with his API key", r.status_code == 201, r.text)

        user = User(alice_key, "alice", "write", "garden")
        storage = MemoryStorage()
        async with create_mcp_http_client(auth=provider(url, user, storage)) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    init = await session.initialize()
                    check("oauth: initialize after consent", init.server_info.name == "cairn", init.server_info)
                    check("oauth: the consent page names the client", "Cairn e2e agent" in user.consent_page)
                    check("oauth: registered dynamically", storage.client is not None and storage.client.client_id)
                    token = storage.tokens
                    check("oauth: tokens kept", token is not None and token.access_token.startswith("cairn_at_")
                          and token.refresh_token.startswith("cairn_rt_"), token)
                    names = sorted(t.name for t in (await session.list_tools()).tools)
                    check("oauth: tools listed", "remember" in names and "recall" in names, names)
                    r = await session.call_tool("remember", {"content": "alice waters the tomatoes every Tuesday", "type": "fact"})
                    check("oauth: remember", not r.is_error and r.structured_content["status"] == "created", r)
                    r = await session.call_tool("recall", {"query": "when are the tomatoes watered?"})
                    hits = r.structured_content.get("results", []) if not r.is_error else []
                    check("oauth: recall finds it", any("tomatoes" in h["content"] for h in hits), r)
                    r = await session.call_tool("recall", {"query": "locker code"})
                    hits = r.structured_content.get("results", []) if not r.is_error else []
                    check("oauth: another tenant's memory is out of reach", not any("7719" in h["content"] for h in hits), hits)
                    r = await session.call_tool("stats", {})
                    check("oauth: the grant's project is the session's", r.structured_content.get("session_project") == "garden", r)

        # The access token: refused on REST and once revoked.
        access = storage.tokens.access_token
        async with httpx2.AsyncClient() as http:
            r = await http.get(base + "/v1/stats", headers={"Authorization": f"Bearer {access}"})
            check("oauth: an access token is for /mcp only", r.status_code == 401, r.status_code)
            r = await http.post(base + "/oauth/revoke", data={"token": storage.tokens.refresh_token})
            check("oauth: revoke answers 200", r.status_code == 200, r.status_code)
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                headers={"Authorization": f"Bearer {access}", "Accept": "application/json, text/event-stream"})
            check("oauth: a revoked token is 401 with the challenge",
                  r.status_code == 401 and "resource_metadata=" in r.headers.get("www-authenticate", ""), r.headers)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def main() -> int:
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        await run(Path(tmp) / "oauth.db")
    print(f"oauth e2e finished in {time.time() - t0:.1f} s")
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
