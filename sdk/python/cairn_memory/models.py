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


@dataclass
class TagResult(_Model):
    tagged: int = 0
    ids: List[str] = field(default_factory=list)
    unchanged: int = 0


@dataclass
class Chain(_Model):
    chain: List[Memory] = field(default_factory=list)
    position: int = 0
    more_before: bool = False
    more_after: bool = False

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "chain":
            return [Memory.from_json(m) for m in value]
        return value


@dataclass
class SimilarResult(_Model):
    id: str = ""
    similar: List[Dict[str, Any]] = field(default_factory=list)
    contradiction_threshold: float = 0.0
    duplicate_threshold: float = 0.0


@dataclass
class Activity(_Model):
    entries: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class IngestResult(_Model):
    dry_run: bool = False
    stored: int = 0
    merged: int = 0
    skipped: int = 0
    pending: int = 0
    facts: int = 0
    title: Optional[str] = None
    redacted: Dict[str, int] = field(default_factory=dict)
    chunks: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Window(_Model):
    """A memory block or a session's context window: `text` to put in a
    prompt, and what it holds."""
    text: str = ""
    format: str = ""
    tokenizer: str = ""
    total_tokens: int = 0
    budget: int = 0
    budget_used: float = 0.0
    sections: List[Dict[str, Any]] = field(default_factory=list)
    items: List[Dict[str, Any]] = field(default_factory=list)
    left_out: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Conversation(_Model):
    id: str = ""
    title: str = ""
    summary: str = ""
    messages: int = 0
    topics: int = 0
    created_at: str = ""
    updated_at: str = ""


@dataclass
class ConversationTree(Conversation):
    """A conversation with the entities it names and its topics (each with
    its messages)."""
    entities: List[str] = field(default_factory=list)
    topic_list: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class ConversationStats(_Model):
    tokenizer: str = ""
    totals: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class TranscriptReport(_Model):
    imported: int = 0
    pending: int = 0
    pending_reason: Optional[str] = None
    skipped_existing: int = 0
    topics_started: int = 0
    conversations: List[str] = field(default_factory=list)
    errors: List[List[Any]] = field(default_factory=list)
    redacted: Dict[str, int] = field(default_factory=dict)


@dataclass
class LogResult(_Model):
    logged: List[Dict[str, Any]] = field(default_factory=list)
    pending: List[Dict[str, Any]] = field(default_factory=list)
    pending_reason: Optional[str] = None
    redacted: Dict[str, int] = field(default_factory=dict)


@dataclass
class Slot(_Model):
    name: str = ""
    description: str = ""
    tags: List[str] = field(default_factory=list)
    group: Optional[str] = None
    priority: int = 0
    created_at: str = ""
    updated_at: str = ""
    archived_at: Optional[str] = None
    archive_reason: Optional[str] = None
    zero: bool = False
    entries: int = 0
    characters: int = 0
    keywords: List[str] = field(default_factory=list)
    contributors: List[str] = field(default_factory=list)
    last_summary_at: Optional[str] = None
    last_access: str = ""
    compression: Optional[Dict[str, Any]] = None


@dataclass
class SlotPage(_Model):
    slot: Slot = field(default_factory=Slot)
    entries: List[Dict[str, Any]] = field(default_factory=list)
    total: int = 0

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "slot":
            return Slot.from_json(value)
        return value


@dataclass
class SlotSave(_Model):
    slot: Slot = field(default_factory=Slot)
    entry: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "slot":
            return Slot.from_json(value)
        return value


@dataclass
class Consolidation(_Model):
    tenant: str = ""
    dry_run: bool = False
    episodes: int = 0
    groups: List[Dict[str, Any]] = field(default_factory=list)
    remaining: int = 0


@dataclass
class CreatedKey(_Model):
    id: str = ""
    key: str = ""
    tenant: str = ""
    role: str = ""
    expires_at: Optional[str] = None
    label: Optional[str] = None


@dataclass
class Key(_Model):
    id: str = ""
    tenant: str = ""
    role: str = ""
    label: Optional[str] = None
    status: str = ""
    created_at: str = ""
    expires_at: Optional[str] = None
    last_used_at: Optional[str] = None
    revoked_at: Optional[str] = None
