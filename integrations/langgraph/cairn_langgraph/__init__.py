"""Cairn as LangGraph's long-term memory store.

    from cairn_memory import Cairn
    from cairn_langgraph import CairnStore
    graph = builder.compile(store=CairnStore(Cairn(URL, api_key=KEY)))
"""

from .store import CairnStore, matches

__all__ = ["CairnStore", "matches"]
