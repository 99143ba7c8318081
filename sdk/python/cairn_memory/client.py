"""`Cairn` (sync) and `AsyncCairn`: clients of Cairn's REST API."""

from __future__ import annotations

import asyncio
import time
from typing import (Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, List, Optional,
                    Union)

import httpx

from .errors import CairnError, error_for
from .operations import AsyncOperations, Op, SyncOperations
from .models import (Context, ForgetResult, History, ImportReport, Memory, Page, RecallResult,
                     RememberResult, Stats)

#: Statuses retried (honouring `Retry-After`) before an error is raised.
RETRIED = (429, 503)


def _body(**fields: Any) -> Dict[str, Any]:
    """A JSON body without the fields left out."""
    return {k: v for k, v in fields.items() if v is not None}


def _query(**fields: Any) -> Dict[str, Any]:
    """Query parameters: lists joined by commas, booleans as true/false."""
    out: Dict[str, Any] = {}
    for k, v in fields.items():
        if v is None or v is False or v == []:
            continue
        if isinstance(v, bool):
            out[k] = "true"
        elif isinstance(v, (list, tuple)):
            out[k] = ",".join(v)
        else:
            out[k] = v
    return out


def _types(memory_type: Optional[str], types: Optional[List[str]]) -> Optional[List[str]]:
    if memory_type is not None:
        return [memory_type] + list(types or [])
    return types


def _wait(response: httpx.Response, attempt: int, most: float) -> float:
    """Seconds before retry `attempt` (from 0): `Retry-After`, else a
    backoff; never more than `most`."""
    try:
        wait = max(float(response.headers.get("retry-after", "")), 0.0)
    except ValueError:
        wait = min(0.25 * 2 ** attempt, 5.0)
    return min(wait, most)


def _check(response: httpx.Response) -> Any:
    if response.is_success:
        return response.json()
    try:
        body = response.json()
    except ValueError:
        body = response.text
    retry = response.headers.get("retry-after")
    raise error_for(response.status_code, body, float(retry) if retry else None)


class _Requests:
    """What both clients build: method, path, JSON body or params."""

    @staticmethod
    def remember(content: str, *, type: Optional[str] = None, project: Optional[str] = None,
                 tags: Optional[List[str]] = None, metadata: Optional[Dict[str, Any]] = None,
                 importance: Optional[float] = None, ttl: Optional[str] = None,
                 supersedes: Optional[str] = None, dedup: Optional[bool] = None,
                 source: Optional[str] = None, memory_type: Optional[str] = None) -> tuple:
        return "POST", "/v1/memories", {"json": _body(
            content=content, type=type or memory_type, project=project, tags=tags,
            metadata=metadata, importance=importance, ttl=ttl, supersedes=supersedes,
            dedup=dedup, source=source)}

    @staticmethod
    def recall(query: str, *, project: Optional[str] = None, types: Optional[List[str]] = None,
               tags: Optional[List[str]] = None, mode: Optional[str] = None,
               limit: Optional[int] = None, budget: Optional[int] = None,
               token_budget: Optional[int] = None, since: Optional[str] = None,
               until: Optional[str] = None, all_projects: bool = False, explain: bool = False,
               memory_type: Optional[str] = None) -> tuple:
        return "POST", "/v1/recall", {"json": _body(
            query=query, project=project, types=_types(memory_type, types), tags=tags, mode=mode,
            limit=limit, budget=budget if budget is not None else token_budget, since=since,
            until=until, all_projects=all_projects or None, explain=explain or None)}

    @staticmethod
    def context(topic: Optional[str] = None, *, project: Optional[str] = None,
                budget: Optional[int] = None, token_budget: Optional[int] = None) -> tuple:
        return "POST", "/v1/context", {"json": _body(
            topic=topic, project=project, budget=budget if budget is not None else token_budget)}

    @staticmethod
    def update(memory_id: str, **changes: Any) -> tuple:
        if "memory_type" in changes:
            changes["type"] = changes.pop("memory_type")
        return "PATCH", f"/v1/memories/{memory_id}", {"json": _body(**changes)}

    @staticmethod
    def forget(memory_id: Optional[str] = None, *, project: Optional[str] = None,
               types: Optional[List[str]] = None, tags: Optional[List[str]] = None,
               since: Optional[str] = None, until: Optional[str] = None, all_projects: bool = False,
               confirm: bool = False, memory_type: Optional[str] = None) -> tuple:
        if memory_id is not None:
            return "DELETE", f"/v1/memories/{memory_id}", {}
        return "DELETE", "/v1/memories", {"params": _query(
            project=project, types=_types(memory_type, types), tags=tags, since=since, until=until,
            all_projects=all_projects, confirm=confirm)}

    @staticmethod
    def page(*, project: Optional[str] = None, types: Optional[List[str]] = None,
             tags: Optional[List[str]] = None, since: Optional[str] = None,
             until: Optional[str] = None, all_projects: bool = False,
             include_superseded: bool = False, include_expired: bool = False,
             page_size: int = 100, cursor: Optional[str] = None,
             memory_type: Optional[str] = None) -> tuple:
        return "GET", "/v1/memories", {"params": _query(
            project=project, types=_types(memory_type, types), tags=tags, since=since, until=until,
            all_projects=all_projects, include_superseded=include_superseded,
            include_expired=include_expired, sort="id", limit=page_size, cursor=cursor)}


class Cairn(SyncOperations):
    """A client of a Cairn server (`cairn serve`).

    >>> c = Cairn("http://localhost:7878", api_key="cairn_…")
    >>> c.remember("staging runs on a Hetzner box", type="fact", project="atlas")
    >>> c.recall("where is staging?").results[0].content

    Errors raise `CairnError` subclasses carrying the server's code; 429
    and 503 are retried `retries` times, waiting as `Retry-After` says (at
    most `max_retry_delay` seconds each time).
    """

    def __init__(self, base_url: str = "http://127.0.0.1:7878", api_key: Optional[str] = None,
                 *, tenant: Optional[str] = None, timeout: float = 30.0, retries: int = 3,
                 max_retry_delay: float = 30.0, http: Optional[httpx.Client] = None) -> None:
        headers = {"User-Agent": "cairn-memory-python"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        if tenant:
            headers["X-Cairn-Tenant"] = tenant
        self._http = http or httpx.Client(base_url=base_url.rstrip("/"), headers=headers,
                                          timeout=timeout)
        self._retries = retries
        self._max_retry_delay = max_retry_delay

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Cairn":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._send(method, path, **kwargs).json()

    def _do(self, request: tuple) -> Any:
        method, path, kwargs = request
        return self._call(method, path, **kwargs)

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(self._retries + 1):
            response = self._http.request(method, path, **kwargs)
            if response.status_code in RETRIED and attempt < self._retries:
                time.sleep(_wait(response, attempt, self._max_retry_delay))
                continue
            if not response.is_success:
                _check(response)
            return response
        raise AssertionError("unreachable")

    def _op(self, op: Op) -> Any:
        method, path, kwargs, make = op
        if make is None:
            return self._send(method, path, **kwargs).text
        return make(self._call(method, path, **kwargs))

    def health(self) -> bool:
        """Whether the process is up (`/healthz`)."""
        return self._probe("/healthz")

    def ready(self) -> bool:
        """Whether the store answers and the model is loaded (`/readyz`)."""
        return self._probe("/readyz")

    def _probe(self, path: str) -> bool:
        try:
            return self._http.get(path).is_success
        except httpx.TransportError:
            return False

    def metrics(self) -> str:
        """Prometheus text (`/metrics`)."""
        return self._send("GET", "/metrics").text

    def remember(self, content: str, **fields: Any) -> RememberResult:
        """Store a memory; the answer says whether it was created or merged
        into a near-duplicate, and lists memories it may contradict."""
        return RememberResult.from_json(self._do(_Requests.remember(content, **fields)))

    save = remember

    def recall(self, query: str, **filters: Any) -> RecallResult:
        """Memories for a query, best first (`token_budget` or `budget` caps
        the answer's tokens)."""
        return RecallResult.from_json(self._do(_Requests.recall(query, **filters)))

    search = recall

    def context(self, topic: Optional[str] = None, **options: Any) -> Context:
        """The session-start context (`.markdown`) within a token budget."""
        return Context.from_json(self._do(_Requests.context(topic, **options)))

    def get(self, memory_id: str) -> Memory:
        """One memory by id or unique prefix."""
        return Memory.from_json(self._call("GET", f"/v1/memories/{memory_id}"))

    def update(self, memory_id: str, **changes: Any) -> Memory:
        """Change a memory (`content`, `type`, `project`, `tags`, `add_tags`,
        `remove_tags`, `metadata`, `importance`, `ttl`, ...)."""
        return Memory.from_json(self._do(_Requests.update(memory_id, **changes))["memory"])

    def forget(self, memory_id: Optional[str] = None, **selection: Any) -> ForgetResult:
        """Forget one memory, or (with filters) every matching one: a dry
        run answering `would_forget` unless `confirm=True`."""
        return ForgetResult.from_json(self._do(_Requests.forget(memory_id, **selection)))

    delete = forget

    def list(self, **filters: Any) -> Iterator[Memory]:
        """Every matching memory, in id order, fetched a page at a time."""
        cursor = None
        while True:
            page = Page.from_json(self._do(_Requests.page(cursor=cursor, **filters)))
            yield from page.memories
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def history(self, memory_id: str) -> History:
        """Every version of a memory (who changed what, when and why), or a
        forgotten memory's deletion receipt (`.deleted`)."""
        return History.from_json(self._call("GET", f"/v1/memories/{memory_id}/history"))

    def revert(self, memory_id: str, version: int) -> Memory:
        """Restore an earlier version as a new version; answers the memory."""
        answer = self._call("POST", f"/v1/memories/{memory_id}/revert",
                            json={"version": version})
        return Memory.from_json(answer["memory"])

    def stats(self) -> Stats:
        return Stats.from_json(self._call("GET", "/v1/stats"))

    def import_jsonl(self, lines: Union[bytes, str, Iterable[bytes]], *,
                     strict: bool = False) -> ImportReport:
        """Import JSON Lines (text, bytes, or an iterable of byte chunks,
        such as an open file in binary mode: streamed)."""
        content = lines.encode() if isinstance(lines, str) else lines
        return ImportReport.from_json(self._call(
            "POST", "/v1/import", params=_query(strict=strict), content=content,
            headers={"Content-Type": "application/x-ndjson"}))

    def export_jsonl(self, *, embeddings: bool = False) -> Iterator[str]:
        """Every memory as JSON Lines, a line at a time (streamed)."""
        with self._http.stream("GET", "/v1/export",
                               params=_query(embeddings=embeddings)) as response:
            if not response.is_success:
                response.read()
                _check(response)
            yield from response.iter_lines()


class AsyncCairn(AsyncOperations):
    """The async twin of `Cairn`: the same methods, awaited."""

    def __init__(self, base_url: str = "http://127.0.0.1:7878", api_key: Optional[str] = None,
                 *, tenant: Optional[str] = None, timeout: float = 30.0, retries: int = 3,
                 max_retry_delay: float = 30.0,
                 http: Optional[httpx.AsyncClient] = None) -> None:
        headers = {"User-Agent": "cairn-memory-python"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        if tenant:
            headers["X-Cairn-Tenant"] = tenant
        self._http = http or httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers,
                                               timeout=timeout)
        self._retries = retries
        self._max_retry_delay = max_retry_delay

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncCairn":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        return (await self._send(method, path, **kwargs)).json()

    async def _do(self, request: tuple) -> Any:
        method, path, kwargs = request
        return await self._call(method, path, **kwargs)

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(self._retries + 1):
            response = await self._http.request(method, path, **kwargs)
            if response.status_code in RETRIED and attempt < self._retries:
                await asyncio.sleep(_wait(response, attempt, self._max_retry_delay))
                continue
            if not response.is_success:
                _check(response)
            return response
        raise AssertionError("unreachable")

    async def _op(self, op: Op) -> Any:
        method, path, kwargs, make = op
        if make is None:
            return (await self._send(method, path, **kwargs)).text
        return make(await self._call(method, path, **kwargs))

    async def health(self) -> bool:
        """Whether the process is up (`/healthz`)."""
        return await self._probe("/healthz")

    async def ready(self) -> bool:
        """Whether the store answers and the model is loaded (`/readyz`)."""
        return await self._probe("/readyz")

    async def _probe(self, path: str) -> bool:
        try:
            return (await self._http.get(path)).is_success
        except httpx.TransportError:
            return False

    async def metrics(self) -> str:
        """Prometheus text (`/metrics`)."""
        return (await self._send("GET", "/metrics")).text

    async def remember(self, content: str, **fields: Any) -> RememberResult:
        return RememberResult.from_json(await self._do(_Requests.remember(content, **fields)))

    save = remember

    async def recall(self, query: str, **filters: Any) -> RecallResult:
        return RecallResult.from_json(await self._do(_Requests.recall(query, **filters)))

    search = recall

    async def context(self, topic: Optional[str] = None, **options: Any) -> Context:
        return Context.from_json(await self._do(_Requests.context(topic, **options)))

    async def get(self, memory_id: str) -> Memory:
        return Memory.from_json(await self._call("GET", f"/v1/memories/{memory_id}"))

    async def update(self, memory_id: str, **changes: Any) -> Memory:
        answer = await self._do(_Requests.update(memory_id, **changes))
        return Memory.from_json(answer["memory"])

    async def history(self, memory_id: str) -> History:
        return History.from_json(await self._call("GET", f"/v1/memories/{memory_id}/history"))

    async def revert(self, memory_id: str, version: int) -> Memory:
        answer = await self._call("POST", f"/v1/memories/{memory_id}/revert",
                                  json={"version": version})
        return Memory.from_json(answer["memory"])

    async def forget(self, memory_id: Optional[str] = None, **selection: Any) -> ForgetResult:
        return ForgetResult.from_json(await self._do(_Requests.forget(memory_id, **selection)))

    delete = forget

    async def list(self, **filters: Any) -> AsyncIterator[Memory]:
        cursor = None
        while True:
            page = Page.from_json(await self._do(_Requests.page(cursor=cursor, **filters)))
            for m in page.memories:
                yield m
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def stats(self) -> Stats:
        return Stats.from_json(await self._call("GET", "/v1/stats"))

    async def import_jsonl(self, lines: Union[bytes, str, AsyncIterable[bytes]], *,
                           strict: bool = False) -> ImportReport:
        content = lines.encode() if isinstance(lines, str) else lines
        return ImportReport.from_json(await self._call(
            "POST", "/v1/import", params=_query(strict=strict), content=content,
            headers={"Content-Type": "application/x-ndjson"}))

    async def export_jsonl(self, *, embeddings: bool = False) -> AsyncIterator[str]:
        async with self._http.stream("GET", "/v1/export",
                                     params=_query(embeddings=embeddings)) as response:
            if not response.is_success:
                await response.aread()
                _check(response)
            async for line in response.aiter_lines():
                yield line


__all__ = ["Cairn", "AsyncCairn", "CairnError"]
