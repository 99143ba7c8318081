"""The tools: each a `FunctionTool` whose JSON schema the SDK derives from
the function's signature and docstring, calling one Cairn REST route.
Their answers are short text for the model; a Cairn error (bad input, a
read-only key...) is answered as text too, so the model can correct itself.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Callable, List, Literal, Optional

from agents import FunctionTool, function_tool
from cairn_memory import Cairn, CairnError

#: Cairn's memory types.
MemoryType = Literal["fact", "preference", "rule", "decision", "feedback", "context", "episode",
                     "summary", "procedure", "note"]


def _failed(_ctx: Any, error: Exception) -> str:
    if isinstance(error, CairnError):
        return f"Cairn refused: {error}"
    return f"The tool failed: {error}"


def _lines(hits: List[Any]) -> str:
    return "\n".join(f"- [{h.short_id}] ({h.kind}) {h.content}" for h in hits)


def cairn_tools(client: Cairn, *, project: Optional[str] = None,
                recall_limit: int = 8) -> List[FunctionTool]:
    """`remember`, `recall` and `context` tools on `client`, in `project`
    (None: the key's default project, or global memories)."""

    def tool(fn: Callable[..., str]) -> FunctionTool:
        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> str:
            return await asyncio.to_thread(fn, *args, **kwargs)

        return function_tool(call, failure_error_function=_failed)

    def remember(content: str, type: Optional[MemoryType] = None,
                 tags: Optional[List[str]] = None) -> str:
        """Store something worth knowing later: a fact, a decision, a preference, a rule...

        Args:
            content: The memory, as one self-contained statement.
            type: Its kind (default note).
            tags: Labels to find it by.
        """
        r = client.remember(content, type=type, tags=tags or None, project=project)
        said = f"Remembered [{r.short_id}] ({r.status})."
        if r.similar:
            said += " It may contradict: " + "; ".join(f"[{s.short_id}] {s.content}" for s in r.similar)
        return said

    def recall(query: str, type: Optional[MemoryType] = None) -> str:
        """Search long-term memory for what is known about a question, best first.

        Args:
            query: What to look for, in words.
            type: Only memories of this kind.
        """
        hits = client.recall(query, project=project, types=[type] if type else None,
                             limit=recall_limit).results
        return _lines(hits) or "Nothing relevant is remembered."

    def context(topic: Optional[str] = None) -> str:
        """The briefing to start work with: rules, preferences and what matters about a topic.

        Args:
            topic: What the work is about (optional).
        """
        return client.context(topic, project=project).markdown

    return [tool(remember), tool(recall), tool(context)]
