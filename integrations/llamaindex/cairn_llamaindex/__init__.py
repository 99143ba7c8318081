"""Cairn for LlamaIndex.

    from cairn_memory import Cairn
    from cairn_llamaindex import CairnMemoryBlock, CairnRetriever
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[CairnMemoryBlock(client=Cairn(URL, api_key=KEY))])
    retriever = CairnRetriever(Cairn(URL, api_key=KEY), project="atlas")
"""

from .memory import CairnMemoryBlock
from .retriever import CairnRetriever, to_node

__all__ = ["CairnMemoryBlock", "CairnRetriever", "to_node"]
