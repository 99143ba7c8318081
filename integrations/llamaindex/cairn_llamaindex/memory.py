"""`CairnMemoryBlock`: Cairn as a long-term block of LlamaIndex's `Memory`.

When the short-term queue overflows, the messages it flushes are logged in
a Cairn conversation (`POST /v1/messages`: each an `episode` memory, with
its topic); each time the memory is read, the block recalls what Cairn
knows about the latest message (facts, decisions, earlier episodes...) and
gives it as text for the system prompt.
"""

from __future__ import annotations

import asyncio
from typing import Any, List, Optional

from cairn_memory import Cairn
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import Field
from llama_index.core.memory.memory import BaseMemoryBlock


def _text(message: ChatMessage) -> str:
    return (message.content or "").strip() if isinstance(message.content, (str, type(None))) else ""


class CairnMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory in Cairn for LlamaIndex's `Memory`.

    >>> block = CairnMemoryBlock(client=Cairn(URL, api_key=KEY), project="atlas")
    >>> memory = Memory.from_defaults(session_id="s1", memory_blocks=[block])
    """

    name: str = Field(default="cairn", description="The block's name in the prompt.")
    client: Cairn = Field(description="The Cairn client (its key chooses the tenant).")
    project: Optional[str] = Field(default=None, description="The Cairn project to use.")
    conversation: Optional[str] = Field(
        default=None, description="The conversation flushed messages go to (default: the session id).")
    types: Optional[List[str]] = Field(default=None, description="Recall only these memory types.")
    limit: int = Field(default=5, description="At most this many memories in the block.")

    async def _aget(self, messages: Optional[List[ChatMessage]] = None,
                    **block_kwargs: Any) -> str:
        query = next((_text(m) for m in reversed(messages or []) if _text(m)), "")
        if not query:
            return ""
        answer = await asyncio.to_thread(self.client.recall, query, project=self.project,
                                         types=self.types, limit=self.limit)
        return "\n".join(f"- {hit.content}" for hit in answer.results)

    async def _aput(self, messages: List[ChatMessage]) -> None:
        lines = []
        for m in messages:
            text = _text(m)
            if not text:
                continue
            conversation = (self.conversation or m.additional_kwargs.get("session_id")
                            or "llamaindex")
            role = m.role.value if isinstance(m.role, MessageRole) else str(m.role)
            lines.append({"conversation": conversation, "speaker": role, "text": text})
        if lines:
            await asyncio.to_thread(self.client.log_messages, lines, project=self.project)
