"""`CairnStore`: LangGraph's `BaseStore` kept in Cairn.

How LangGraph's model maps onto Cairn's:

- the tenant is the API key's (each tenant sees only its own items);
- the store's `project` (None: global memories) is the Cairn project every
  item is written to and read from;
- a namespace is a set of tags: `langgraph` on every item, and one
  `lg-ns:<hash>` per prefix of its namespace, so `search(("users",))` is a
  tag filter; `lg-key:<hash>` names one (namespace, key). Hashes, because
  Cairn's tags are lower-cased, at most 64 characters and comma-free while
  LangGraph's namespace labels are any strings;
- an item is one memory: its `content` is the value's text (the indexed
  fields, or the whole value as JSON), embedded by Cairn, so `search(query=)`
  is Cairn's hybrid recall; the value itself, the namespace and the key are
  in its `metadata["langgraph"]`. A `put` on an existing key updates the
  memory in place (Cairn keeps the older versions in its history).

Filters (`{"field": value}` or `{"field": {"$gt": 3}}`) are applied here,
to what Cairn answers. `put` looks the key up and then writes: two writers
of one key at once may both create it (`get` then answers the older one).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from cairn_memory import Cairn, Memory
from langgraph.store.base import (BaseStore, GetOp, Item, ListNamespacesOp, MatchCondition, Op,
                                  PutOp, Result, SearchItem, SearchOp)

#: The tag on every item this store writes.
MARKER = "langgraph"
#: Most results one recall answers (Cairn's limit).
MAX_RECALL = 1000


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _time(value: Optional[str]) -> datetime:
    if not value:
        return datetime.now(timezone.utc)
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _text(value: Dict[str, Any], fields: Optional[Sequence[str]]) -> str:
    """The words Cairn embeds for a value: the named top-level fields (`$`
    is the whole value), else the whole value as JSON."""
    parts: List[str] = []
    for f in fields or ["$"]:
        v = value if f == "$" else value.get(f)
        if v is None:
            continue
        parts.append(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True))
    return "\n".join(p for p in parts if p.strip()) or json.dumps(value, ensure_ascii=False)


_OPS = {
    "$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b, "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b, "$lte": lambda a, b: a is not None and a <= b,
}


def matches(value: Dict[str, Any], filter: Optional[Dict[str, Any]]) -> bool:
    """Whether a value passes a LangGraph filter: each key equal to the
    given value, or (a dict of `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`)
    compared by each operator."""
    for key, want in (filter or {}).items():
        have = value.get(key)
        if isinstance(want, dict) and want and all(k.startswith("$") for k in want):
            for op, operand in want.items():
                if op not in _OPS:
                    raise ValueError(f"unsupported filter operator {op!r} on {key!r}")
                try:
                    if not _OPS[op](have, operand):
                        return False
                except TypeError:
                    return False
        elif have != want:
            return False
    return True


def _namespace_matches(ns: Tuple[str, ...], cond: MatchCondition) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[:len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path):]
    return all(p == "*" or p == n for p, n in zip(path, part))


class CairnStore(BaseStore):
    """A LangGraph store whose items are memories of a Cairn server.

    >>> store = CairnStore(Cairn("http://127.0.0.1:7878", api_key=KEY), project="atlas")
    >>> graph = builder.compile(store=store)

    `index` names the value fields whose text Cairn embeds (default: the
    whole value); a `put(..., index=[...])` overrides it for that item.
    """

    supports_ttl = True

    def __init__(self, client: Cairn, *, project: Optional[str] = None,
                 index: Optional[Sequence[str]] = None) -> None:
        self.client = client
        self.project = project
        self.index_fields = list(index) if index else None

    # ---- the two methods LangGraph calls ------------------------------------

    def batch(self, ops: Iterable[Op]) -> List[Result]:
        results: List[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise ValueError(f"unknown store operation {op!r}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> List[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # ---- tags ----------------------------------------------------------------

    def _ns_tag(self, prefix: Tuple[str, ...]) -> str:
        return "lg-ns:" + _digest(self.project, list(prefix))

    def _key_tag(self, namespace: Tuple[str, ...], key: str) -> str:
        return "lg-key:" + _digest(self.project, list(namespace), key)

    def _tags(self, namespace: Tuple[str, ...], key: str) -> List[str]:
        prefixes = [self._ns_tag(namespace[:i]) for i in range(1, len(namespace) + 1)]
        return [MARKER, *prefixes, self._key_tag(namespace, key)]

    # ---- operations ----------------------------------------------------------

    def _memories(self, tags: List[str]) -> Iterator[Memory]:
        for m in self.client.list(tags=tags, project=self.project):
            if m.project == self.project and isinstance(m.metadata.get(MARKER), dict):
                yield m

    def _find(self, namespace: Tuple[str, ...], key: str) -> Optional[Memory]:
        for m in self._memories([self._key_tag(namespace, key)]):
            meta = m.metadata[MARKER]
            if tuple(meta.get("namespace", ())) == tuple(namespace) and meta.get("key") == key:
                return m
        return None

    def _item(self, m: Memory, score: Optional[float] = None, cls: type = Item) -> Any:
        meta = m.metadata[MARKER]
        fields = dict(namespace=tuple(meta["namespace"]), key=meta["key"], value=meta["value"],
                      created_at=_time(m.created_at), updated_at=_time(m.updated_at or m.created_at))
        return SearchItem(**fields, score=score) if cls is SearchItem else Item(**fields)

    def _get(self, namespace: Tuple[str, ...], key: str) -> Optional[Item]:
        m = self._find(tuple(namespace), key)
        return self._item(m) if m else None

    def _put(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        if not namespace:
            raise ValueError("a namespace needs at least one label")
        old = self._find(namespace, op.key)
        if op.value is None:
            if old:
                self.client.forget(old.id)
            return
        value = dict(op.value)
        fields = self.index_fields if op.index is None or op.index is False else list(op.index)
        content = _text(value, fields)
        metadata = {MARKER: {"namespace": list(namespace), "key": op.key, "value": value}}
        ttl = f"{max(1, math.ceil(op.ttl))}m" if op.ttl else None
        if old:
            self.client.update(old.id, content=content, metadata=metadata,
                               **({"ttl": ttl} if ttl else {}))
        else:
            self.client.remember(content, project=self.project, tags=self._tags(namespace, op.key),
                                 metadata=metadata, dedup=False, ttl=ttl)

    def _prefix_tags(self, prefix: Tuple[str, ...]) -> List[str]:
        return [MARKER, self._ns_tag(prefix)] if prefix else [MARKER]

    def _search(self, op: SearchOp) -> List[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        wanted = op.offset + op.limit

        def under(m: Memory) -> bool:
            meta = m.metadata.get(MARKER)
            return (isinstance(meta, dict) and tuple(meta.get("namespace", ()))[:len(prefix)] == prefix
                    and matches(meta.get("value") or {}, op.filter))

        if op.query:
            ask = min(MAX_RECALL, wanted * 4 if op.filter else wanted)
            hits = self.client.recall(op.query, tags=self._prefix_tags(prefix),
                                      project=self.project, limit=ask).results
            found = [self._item(h, h.score, SearchItem) for h in hits
                     if h.project == self.project and under(h)]
            return found[op.offset:wanted]
        found = []
        for m in self._memories(self._prefix_tags(prefix)):
            if under(m):
                found.append(self._item(m, None, SearchItem))
                if len(found) >= wanted:
                    break
        return found[op.offset:wanted]

    def _list_namespaces(self, op: ListNamespacesOp) -> List[Tuple[str, ...]]:
        tags = [MARKER]
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix" and "*" not in cond.path and cond.path:
                tags = self._prefix_tags(tuple(cond.path))
                break
        seen = set()
        for m in self._memories(tags):
            ns = tuple(m.metadata[MARKER].get("namespace", ()))
            if all(_namespace_matches(ns, c) for c in op.match_conditions or ()):
                seen.add(ns[:op.max_depth] if op.max_depth is not None else ns)
        return sorted(seen)[op.offset:op.offset + op.limit]
