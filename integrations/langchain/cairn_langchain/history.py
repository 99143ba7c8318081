"""`CairnChatMessageHistory`: a LangChain chat history kept as a Cairn
conversation (`POST /v1/messages` to add, `GET /v1/conversations/{id}` to
read, each message forgotten to clear).

Each message becomes an `episode` memory of the conversation, so Cairn's
recall, topics and context windows see it too. A message keeps its role
and text: `human` is logged as speaker `user`, `ai` as `assistant`,
`system` as `system`, any other role under its own name; tool calls and
other structured parts are not kept. Messages are logged with times one
millisecond apart, which orders them when read back.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Optional, Sequence

from cairn_memory import Cairn, NotFound
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (AIMessage, BaseMessage, ChatMessage, HumanMessage,
                                     SystemMessage)

_SPEAKER = {"human": "user", "ai": "assistant", "system": "system"}
_MESSAGE = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}


def _speaker(message: BaseMessage) -> str:
    if isinstance(message, ChatMessage):
        return message.role
    return _SPEAKER.get(message.type, message.type)


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    text = message.text if isinstance(message.text, str) else message.text()
    return text or json.dumps(message.content, ensure_ascii=False)


def _message(content: str) -> BaseMessage:
    speaker, sep, text = content.partition(": ")
    if not sep:
        return HumanMessage(content=content)
    make = _MESSAGE.get(speaker)
    return make(content=text) if make else ChatMessage(role=speaker, content=text)


class CairnChatMessageHistory(BaseChatMessageHistory):
    """The messages of one Cairn conversation.

    >>> history = CairnChatMessageHistory(Cairn(URL, api_key=KEY), "support-42", project="atlas")
    >>> history.add_user_message("The deploy failed again")
    >>> history.messages
    """

    def __init__(self, client: Cairn, conversation_id: str, *,
                 project: Optional[str] = None) -> None:
        if not conversation_id:
            raise ValueError("a conversation id is needed")
        self.client = client
        self.conversation_id = conversation_id
        self.project = project
        self._last: Optional[datetime] = None

    def _entries(self) -> List[Dict[str, Any]]:
        try:
            tree = self.client.conversation(self.conversation_id)
        except NotFound:
            return []
        entries = [m for topic in tree.topic_list for m in topic.get("messages", [])]
        return sorted(entries, key=lambda m: m.get("at", ""))

    @property
    def messages(self) -> List[BaseMessage]:  # type: ignore[override]
        return [_message(m["content"]) for m in self._entries()]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if not messages:
            return
        at = datetime.now(timezone.utc)
        at = at.replace(microsecond=at.microsecond // 1000 * 1000)
        if self._last is not None and at <= self._last:
            at = self._last + timedelta(milliseconds=1)
        lines = []
        for i, message in enumerate(messages):
            when = at + timedelta(milliseconds=i)
            lines.append({"conversation": self.conversation_id, "speaker": _speaker(message),
                          "text": _text(message),
                          "at": when.isoformat(timespec="milliseconds").replace("+00:00", "Z")})
            self._last = when
        self.client.log_messages(lines, project=self.project)

    def clear(self) -> None:
        for m in self._entries():
            try:
                self.client.forget(m["id"])
            except NotFound:
                pass
