"""The REST operations beyond memories' basics: ingest, prompt, slots,
conversations and messages, a session's window, tagging, neighbours,
activity, consolidation, providers, keys and probes.

Each operation is built once (`_Ops`: method, path, arguments and the
answer's model) and run by the sync mixin (`SyncOperations`, in `Cairn`)
and the async one (`AsyncOperations`, in `AsyncCairn`).
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Callable, Dict, Iterable, List, Optional, Union
from urllib.parse import quote

from . import models as m

#: A request: method, path, httpx keyword arguments, and what makes the answer.
Op = tuple


def _seg(s: str) -> str:
    """A memory id, slot name, session or conversation as a path segment."""
    return quote(s, safe="")


def _body(**fields: Any) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _query(**fields: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in fields.items():
        if v is None or v is False or v == []:
            continue
        out[k] = "true" if v is True else ",".join(v) if isinstance(v, (list, tuple)) else v
    return out


def _many(model: Any) -> Callable[[Any], Any]:
    return lambda items: [model.from_json(i) for i in items]


def _same(answer: Any) -> Any:
    return answer


def _ndjson(lines: Union[bytes, str, Iterable[bytes], AsyncIterator[bytes]]) -> Any:
    return lines.encode() if isinstance(lines, str) else lines


class _Ops:
    """What both clients send for each operation."""

    @staticmethod
    def tag(ids: List[str], *, add_tags: Optional[List[str]] = None,
            remove_tags: Optional[List[str]] = None) -> Op:
        body = _body(ids=ids, add_tags=add_tags, remove_tags=remove_tags)
        return "PATCH", "/v1/memories", {"json": body}, m.TagResult.from_json

    @staticmethod
    def chain(memory_id: str) -> Op:
        return "GET", f"/v1/memories/{_seg(memory_id)}/chain", {}, m.Chain.from_json

    @staticmethod
    def similar(memory_id: str, *, limit: Optional[int] = None) -> Op:
        return ("GET", f"/v1/memories/{_seg(memory_id)}/similar", {"params": _query(limit=limit)},
                m.SimilarResult.from_json)

    @staticmethod
    def activity(*, limit: Optional[int] = None) -> Op:
        return "GET", "/v1/activity", {"params": _query(limit=limit)}, m.Activity.from_json

    @staticmethod
    def ingest(text: str, **options: Any) -> Op:
        return "POST", "/v1/ingest", {"json": _body(text=text, **options)}, m.IngestResult.from_json

    @staticmethod
    def prompt(query: str, **options: Any) -> Op:
        return "POST", "/v1/prompt", {"json": _body(query=query, **options)}, m.Window.from_json

    @staticmethod
    def list_conversations() -> Op:
        return "GET", "/v1/conversations", {}, _many(m.Conversation)

    @staticmethod
    def import_transcript(lines: Any, *, project: Optional[str] = None,
                          strict: bool = False) -> Op:
        return ("POST", "/v1/conversations", {
            "params": _query(project=project, strict=strict), "content": _ndjson(lines),
            "headers": {"Content-Type": "application/x-ndjson"}}, m.TranscriptReport.from_json)

    @staticmethod
    def conversation(conversation_id: str) -> Op:
        return ("GET", f"/v1/conversations/{_seg(conversation_id)}", {},
                m.ConversationTree.from_json)

    @staticmethod
    def conversation_stats(conversation_id: str, *, tokenizer: Optional[str] = None) -> Op:
        return ("GET", f"/v1/conversations/{_seg(conversation_id)}/stats",
                {"params": _query(tokenizer=tokenizer)}, m.ConversationStats.from_json)

    @staticmethod
    def log_messages(messages: List[Dict[str, Any]], *, project: Optional[str] = None) -> Op:
        return ("POST", "/v1/messages", {"json": _body(messages=messages, project=project)},
                m.LogResult.from_json)

    @staticmethod
    def window(session: str, message: Optional[str] = None, **options: Any) -> Op:
        return ("POST", f"/v1/sessions/{_seg(session)}/window",
                {"json": _body(message=message, **options)}, m.Window.from_json)

    @staticmethod
    def working_memory(session: str) -> Op:
        return "GET", f"/v1/sessions/{_seg(session)}/working-memory", {}, m.Window.from_json

    @staticmethod
    def list_slots(*, group: Optional[str] = None, tags: Optional[List[str]] = None,
                   include_archived: bool = False, archived_only: bool = False) -> Op:
        return ("GET", "/v1/slots", {"params": _query(
            group=group, tags=tags, include_archived=include_archived,
            archived_only=archived_only)}, _many(m.Slot))

    @staticmethod
    def set_slot(name: str, **changes: Any) -> Op:
        return "POST", "/v1/slots", {"json": _body(name=name, **changes)}, m.Slot.from_json

    @staticmethod
    def search_slots(query: str, **options: Any) -> Op:
        return ("POST", "/v1/slot-search", {"json": _body(query=query, **options)},
                m.RecallResult.from_json)

    @staticmethod
    def read_slot(name: str, *, offset: Optional[int] = None, limit: Optional[int] = None,
                  summaries: bool = False) -> Op:
        return ("GET", f"/v1/slots/{_seg(name)}", {"params": _query(
            offset=offset, limit=limit, summaries=summaries)}, m.SlotPage.from_json)

    @staticmethod
    def save_to_slot(name: str, text: str, **options: Any) -> Op:
        return ("POST", f"/v1/slots/{_seg(name)}/entries", {"json": _body(text=text, **options)},
                m.SlotSave.from_json)

    @staticmethod
    def export_slot(name: str, format: Optional[str] = None) -> Op:
        return ("GET", f"/v1/slots/{_seg(name)}/export", {"params": _query(format=format)},
                None)

    @staticmethod
    def archive_slot(name: str, reason: Optional[str] = None) -> Op:
        return ("POST", f"/v1/slots/{_seg(name)}/archive", {"json": _body(reason=reason)},
                m.Slot.from_json)

    @staticmethod
    def restore_slot(name: str) -> Op:
        return "POST", f"/v1/slots/{_seg(name)}/restore", {}, m.Slot.from_json

    @staticmethod
    def zero_mode(on: bool, slot: Optional[str] = None) -> Op:
        return "PUT", "/v1/zero-mode", {"json": _body(on=on, slot=slot)}, _same

    @staticmethod
    def settings() -> Op:
        return "GET", "/v1/settings", {}, _same

    @staticmethod
    def set_settings(**settings: Any) -> Op:
        return "PATCH", "/v1/settings", {"json": _body(**settings)}, _same

    @staticmethod
    def consolidate(**options: Any) -> Op:
        return "POST", "/v1/consolidate", {"json": _body(**options)}, m.Consolidation.from_json

    @staticmethod
    def providers(*, check: bool = False) -> Op:
        return "GET", "/v1/providers", {"params": _query(check=check)}, _same

    @staticmethod
    def create_key(tenant: str, role: str, *, expires: Optional[str] = None,
                   label: Optional[str] = None) -> Op:
        return ("POST", "/v1/keys", {"json": _body(tenant=tenant, role=role, expires=expires,
                                                   label=label)}, m.CreatedKey.from_json)

    @staticmethod
    def list_keys(*, tenant: Optional[str] = None) -> Op:
        return "GET", "/v1/keys", {"params": _query(tenant=tenant)}, _many(m.Key)

    @staticmethod
    def revoke_key(key_id: str) -> Op:
        return "DELETE", f"/v1/keys/{_seg(key_id)}", {}, m.Key.from_json


class SyncOperations:
    """The operations of `_Ops` as methods of `Cairn`."""

    def _op(self, op: Op) -> Any:
        raise NotImplementedError

    def tag(self, ids: List[str], **changes: Any) -> m.TagResult:
        """Add (`add_tags=`) and remove (`remove_tags=`) tags on many memories
        in one transaction."""
        return self._op(_Ops.tag(ids, **changes))

    def chain(self, memory_id: str) -> m.Chain:
        """The chain of memories that superseded one another through this one."""
        return self._op(_Ops.chain(memory_id))

    def similar(self, memory_id: str, **options: Any) -> m.SimilarResult:
        """A memory's nearest neighbours (`limit=`), each saying whether it may contradict it."""
        return self._op(_Ops.similar(memory_id, **options))

    def activity(self, **options: Any) -> m.Activity:
        """The latest changes to the tenant's memories, newest first (`limit=`)."""
        return self._op(_Ops.activity(**options))

    def ingest(self, text: str, **options: Any) -> m.IngestResult:
        """Cut raw text (plain, Markdown, HTML) into memories, keeping what is new and salient
        (`project=`, `tags=`, `threshold=`, `dry_run=`, `redact=`, `source=`, `facts=`)."""
        return self._op(_Ops.ingest(text, **options))

    def prompt(self, query: str, **options: Any) -> m.Window:
        """A prompt's memory block about `query` (`budget=`, `format=`, `tokenizer=`,
        `template=`), never over its budget."""
        return self._op(_Ops.prompt(query, **options))

    def list_conversations(self) -> List[m.Conversation]:
        """The tenant's conversations, oldest first."""
        return self._op(_Ops.list_conversations())

    def import_transcript(self, lines: Any, **options: Any) -> m.TranscriptReport:
        """Import a transcript: JSON Lines of one message each (text, bytes or an iterable of
        byte chunks, streamed); `project=`, `strict=`."""
        return self._op(_Ops.import_transcript(lines, **options))

    def conversation(self, conversation_id: str) -> m.ConversationTree:
        """A conversation with its topics and their messages."""
        return self._op(_Ops.conversation(conversation_id))

    def conversation_stats(self, conversation_id: str, **options: Any) -> m.ConversationStats:
        """Exact token totals of a conversation, its sessions and topics."""
        return self._op(_Ops.conversation_stats(conversation_id, **options))

    def log_messages(self, messages: List[Dict[str, Any]], **options: Any) -> m.LogResult:
        """Log messages (an exchange: `session`, `role`, `text` each) in order."""
        return self._op(_Ops.log_messages(messages, **options))

    def window(self, session: str, message: Optional[str] = None, **options: Any) -> m.Window:
        """The context an LLM call of `session` should get for a new `message`, within `budget=`."""
        return self._op(_Ops.window(session, message, **options))

    def working_memory(self, session: str) -> m.Window:
        """A session's working memory: the rules to follow and its latest messages."""
        return self._op(_Ops.working_memory(session))

    def list_slots(self, **filters: Any) -> List[m.Slot]:
        """The tenant's slots, by priority then name (`group=`, `tags=`, `include_archived=`)."""
        return self._op(_Ops.list_slots(**filters))

    def set_slot(self, name: str, **changes: Any) -> m.Slot:
        """Make a slot, or change one (`description=`, `tags=`, `group=`,
        `priority=`, `rename=`)."""
        return self._op(_Ops.set_slot(name, **changes))

    def search_slots(self, query: str, **options: Any) -> m.RecallResult:
        """Search slots' entries (`slots=`, `group=`, `tags=`, `limit=`)."""
        return self._op(_Ops.search_slots(query, **options))

    def read_slot(self, name: str, **page: Any) -> m.SlotPage:
        """A slot and a page of its entries, oldest first (`offset=`, `limit=`, `summaries=`)."""
        return self._op(_Ops.read_slot(name, **page))

    def save_to_slot(self, name: str, text: str, **options: Any) -> m.SlotSave:
        """Append an entry to a slot, made if new (`progress=`, `ratio=`, `author=`)."""
        return self._op(_Ops.save_to_slot(name, text, **options))

    def export_slot(self, name: str, format: Optional[str] = None) -> str:
        """A slot as text: `md` (default), `txt` or `json`."""
        return self._op(_Ops.export_slot(name, format))

    def archive_slot(self, name: str, reason: Optional[str] = None) -> m.Slot:
        """Archive a slot: its entries leave default recall."""
        return self._op(_Ops.archive_slot(name, reason))

    def restore_slot(self, name: str) -> m.Slot:
        """Bring an archived slot back, unchanged."""
        return self._op(_Ops.restore_slot(name))

    def zero_mode(self, on: bool, slot: Optional[str] = None) -> Dict[str, Any]:
        """Zero mode on or off, for every slot or `slot`: while on, saves are refused."""
        return self._op(_Ops.zero_mode(on, slot))

    def settings(self) -> Dict[str, Any]:
        """The tenant's settings (`redact_personal`, `conflicts`)."""
        return self._op(_Ops.settings())

    def set_settings(self, **settings: Any) -> Dict[str, Any]:
        """Change the tenant's settings (an admin key), e.g. `redact_personal=False`."""
        return self._op(_Ops.set_settings(**settings))

    def consolidate(self, **options: Any) -> m.Consolidation:
        """Fold the tenant's oldest episode groups into summaries (admin; `dry_run=`, `project=`,
        `keep=`, `max_groups=`)."""
        return self._op(_Ops.consolidate(**options))

    def providers(self, **options: Any) -> Dict[str, Any]:
        """The chat model and embedder in use (admin; `check=True` sees that each answers)."""
        return self._op(_Ops.providers(**options))

    def create_key(self, tenant: str, role: str, **options: Any) -> m.CreatedKey:
        """Make an API key (admin; `expires=`, `label=`); its secret is in `.key`, once."""
        return self._op(_Ops.create_key(tenant, role, **options))

    def list_keys(self, **options: Any) -> List[m.Key]:
        """The keys, oldest first, never their secrets (admin; `tenant=`)."""
        return self._op(_Ops.list_keys(**options))

    def revoke_key(self, key_id: str) -> m.Key:
        """Revoke a key: it stops working at once (admin)."""
        return self._op(_Ops.revoke_key(key_id))


class AsyncOperations:
    """The operations of `_Ops`, awaited, as methods of `AsyncCairn`."""

    async def _op(self, op: Op) -> Any:
        raise NotImplementedError

    async def tag(self, ids: List[str], **changes: Any) -> m.TagResult:
        """Add (`add_tags=`) and remove (`remove_tags=`) tags on many memories
        in one transaction."""
        return await self._op(_Ops.tag(ids, **changes))

    async def chain(self, memory_id: str) -> m.Chain:
        """The chain of memories that superseded one another through this one."""
        return await self._op(_Ops.chain(memory_id))

    async def similar(self, memory_id: str, **options: Any) -> m.SimilarResult:
        """A memory's nearest neighbours (`limit=`), each saying whether it may contradict it."""
        return await self._op(_Ops.similar(memory_id, **options))

    async def activity(self, **options: Any) -> m.Activity:
        """The latest changes to the tenant's memories, newest first (`limit=`)."""
        return await self._op(_Ops.activity(**options))

    async def ingest(self, text: str, **options: Any) -> m.IngestResult:
        """Cut raw text (plain, Markdown, HTML) into memories, keeping what is new and salient
        (`project=`, `tags=`, `threshold=`, `dry_run=`, `redact=`, `source=`, `facts=`)."""
        return await self._op(_Ops.ingest(text, **options))

    async def prompt(self, query: str, **options: Any) -> m.Window:
        """A prompt's memory block about `query` (`budget=`, `format=`, `tokenizer=`,
        `template=`), never over its budget."""
        return await self._op(_Ops.prompt(query, **options))

    async def list_conversations(self) -> List[m.Conversation]:
        """The tenant's conversations, oldest first."""
        return await self._op(_Ops.list_conversations())

    async def import_transcript(self, lines: Any, **options: Any) -> m.TranscriptReport:
        """Import a transcript: JSON Lines of one message each (text, bytes or an iterable of
        byte chunks, streamed); `project=`, `strict=`."""
        return await self._op(_Ops.import_transcript(lines, **options))

    async def conversation(self, conversation_id: str) -> m.ConversationTree:
        """A conversation with its topics and their messages."""
        return await self._op(_Ops.conversation(conversation_id))

    async def conversation_stats(self, conversation_id: str, **options: Any) -> m.ConversationStats:
        """Exact token totals of a conversation, its sessions and topics."""
        return await self._op(_Ops.conversation_stats(conversation_id, **options))

    async def log_messages(self, messages: List[Dict[str, Any]], **options: Any) -> m.LogResult:
        """Log messages (an exchange: `session`, `role`, `text` each) in order."""
        return await self._op(_Ops.log_messages(messages, **options))

    async def window(self, session: str, message: Optional[str] = None, **options: Any) -> m.Window:
        """The context an LLM call of `session` should get for a new `message`, within `budget=`."""
        return await self._op(_Ops.window(session, message, **options))

    async def working_memory(self, session: str) -> m.Window:
        """A session's working memory: the rules to follow and its latest messages."""
        return await self._op(_Ops.working_memory(session))

    async def list_slots(self, **filters: Any) -> List[m.Slot]:
        """The tenant's slots, by priority then name (`group=`, `tags=`, `include_archived=`)."""
        return await self._op(_Ops.list_slots(**filters))

    async def set_slot(self, name: str, **changes: Any) -> m.Slot:
        """Make a slot, or change one (`description=`, `tags=`, `group=`,
        `priority=`, `rename=`)."""
        return await self._op(_Ops.set_slot(name, **changes))

    async def search_slots(self, query: str, **options: Any) -> m.RecallResult:
        """Search slots' entries (`slots=`, `group=`, `tags=`, `limit=`)."""
        return await self._op(_Ops.search_slots(query, **options))

    async def read_slot(self, name: str, **page: Any) -> m.SlotPage:
        """A slot and a page of its entries, oldest first (`offset=`, `limit=`, `summaries=`)."""
        return await self._op(_Ops.read_slot(name, **page))

    async def save_to_slot(self, name: str, text: str, **options: Any) -> m.SlotSave:
        """Append an entry to a slot, made if new (`progress=`, `ratio=`, `author=`)."""
        return await self._op(_Ops.save_to_slot(name, text, **options))

    async def export_slot(self, name: str, format: Optional[str] = None) -> str:
        """A slot as text: `md` (default), `txt` or `json`."""
        return await self._op(_Ops.export_slot(name, format))

    async def archive_slot(self, name: str, reason: Optional[str] = None) -> m.Slot:
        """Archive a slot: its entries leave default recall."""
        return await self._op(_Ops.archive_slot(name, reason))

    async def restore_slot(self, name: str) -> m.Slot:
        """Bring an archived slot back, unchanged."""
        return await self._op(_Ops.restore_slot(name))

    async def zero_mode(self, on: bool, slot: Optional[str] = None) -> Dict[str, Any]:
        """Zero mode on or off, for every slot or `slot`: while on, saves are refused."""
        return await self._op(_Ops.zero_mode(on, slot))

    async def settings(self) -> Dict[str, Any]:
        """The tenant's settings (`redact_personal`, `conflicts`)."""
        return await self._op(_Ops.settings())

    async def set_settings(self, **settings: Any) -> Dict[str, Any]:
        """Change the tenant's settings (an admin key), e.g. `redact_personal=False`."""
        return await self._op(_Ops.set_settings(**settings))

    async def consolidate(self, **options: Any) -> m.Consolidation:
        """Fold the tenant's oldest episode groups into summaries (admin; `dry_run=`, `project=`,
        `keep=`, `max_groups=`)."""
        return await self._op(_Ops.consolidate(**options))

    async def providers(self, **options: Any) -> Dict[str, Any]:
        """The chat model and embedder in use (admin; `check=True` sees that each answers)."""
        return await self._op(_Ops.providers(**options))

    async def create_key(self, tenant: str, role: str, **options: Any) -> m.CreatedKey:
        """Make an API key (admin; `expires=`, `label=`); its secret is in `.key`, once."""
        return await self._op(_Ops.create_key(tenant, role, **options))

    async def list_keys(self, **options: Any) -> List[m.Key]:
        """The keys, oldest first, never their secrets (admin; `tenant=`)."""
        return await self._op(_Ops.list_keys(**options))

    async def revoke_key(self, key_id: str) -> m.Key:
        """Revoke a key: it stops working at once (admin)."""
        return await self._op(_Ops.revoke_key(key_id))
