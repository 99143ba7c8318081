"""Typed answers of Cairn's REST API.

Each class names the fields of one schema of the server's `/openapi.json`
(the SDK's tests check them against it). Fields a newer server adds are
kept in `raw`, never lost.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Type, TypeVar

T = TypeVar("T", bound="_Model")


@dataclass
class _Model:
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    #: Wire names that differ from the attribute's (`type` is a keyword-ish
    #: name in Python).
    _renamed = {"kind": "type"}

    @classmethod
    def from_json(cls: Type[T], data: Dict[str, Any]) -> T:
        values: Dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "raw":
                continue
            wire = cls._renamed.get(f.name, f.name)
            if wire in data:
                values[f.name] = cls._convert(f.name, data[wire])
        return cls(raw=data, **values)

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        return value

    @classmethod
    def wire_fields(cls) -> List[str]:
        """The JSON names of the typed fields."""
        return [cls._renamed.get(f.name, f.name) for f in dataclasses.fields(cls) if f.name != "raw"]


@dataclass
class Memory(_Model):
    id: str = ""
    short_id: str = ""
    content: str = ""
    kind: Optional[str] = None
    project: Optional[str] = None
    tags: List[str] = field(default_factory=list)
    metadata: Dict[str, Any] = field(default_factory=dict)
    importance: Optional[float] = None
    weight: Optional[float] = None
    source: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    last_accessed_at: Optional[str] = None
    access_count: Optional[int] = None
    expires_at: Optional[str] = None
    valid_from: Optional[str] = None
    valid_to: Optional[str] = None
    supersedes: Optional[str] = None
    superseded_by: Optional[str] = None


@dataclass
class RecallHit(Memory):
    score: float = 0.0
    explain: Optional[Dict[str, Any]] = None


@dataclass
class RecallResult(_Model):
    results: List[RecallHit] = field(default_factory=list)
    omitted: int = 0
    tokens: int = 0
    scope: str = ""

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "results":
            return [RecallHit.from_json(h) for h in value]
        return value


@dataclass
class Similar(_Model):
    id: str = ""
    short_id: str = ""
    kind: str = ""
    content: str = ""
    similarity: float = 0.0


@dataclass
class RememberResult(_Model):
    id: str = ""
    short_id: str = ""
    status: str = ""
    dedup: Optional[Dict[str, float]] = None
    project: Optional[str] = None
    superseded: Optional[str] = None
    similar: List[Similar] = field(default_factory=list)

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "similar":
            return [Similar.from_json(s) for s in value]
        return value


@dataclass
class Page(_Model):
    memories: List[Memory] = field(default_factory=list)
    total: int = 0
    scope: str = ""
    offset: int = 0
    next_cursor: Optional[str] = None

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "memories":
            return [Memory.from_json(m) for m in value]
        return value


@dataclass
class ForgetResult(_Model):
    forgotten: int = 0
    ids: List[str] = field(default_factory=list)
    would_forget: Optional[int] = None
    scope: Optional[str] = None


@dataclass
class Stats(_Model):
    total: int = 0
    expired: int = 0
    superseded: int = 0
    by_type: Dict[str, int] = field(default_factory=dict)
    by_tier: Dict[str, int] = field(default_factory=dict)
    by_project: Dict[str, int] = field(default_factory=dict)
    oldest: Optional[str] = None
    newest: Optional[str] = None
    model: Optional[str] = None
    size_bytes: Optional[int] = None


@dataclass
class Context(_Model):
    topic: Optional[str] = None
    project: Optional[str] = None
    budget: int = 0
    tokens: int = 0
    items: List[Dict[str, Any]] = field(default_factory=list)
    omitted: int = 0
    visible: int = 0
    markdown: str = ""


@dataclass
class ImportReport(_Model):
    imported: int = 0
    skipped_existing: int = 0
    embedded: int = 0
    errors: List[List[Any]] = field(default_factory=list)


@dataclass
class Version(_Model):
    version: int = 0
    change: str = ""
    at: str = ""
    actor: str = ""
    reason: Optional[str] = None
    memory: Memory = field(default_factory=Memory)

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "memory":
            return Memory.from_json(value)
        return value


@dataclass
class Receipt(_Model):
    id: str = ""
    deleted_at: str = ""
    actor: str = ""
    reason: str = ""
    versions: int = 0


@dataclass
class History(_Model):
    id: str = ""
    versions: List[Version] = field(default_factory=list)
    deleted: Optional[Receipt] = None

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "versions":
            return [Version.from_json(v) for v in value]
        if name == "deleted" and value is not None:
            return Receipt.from_json(value)
        return value
