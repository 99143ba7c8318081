"""Cairn for LangChain.

    from cairn_memory import Cairn
    from cairn_langchain import CairnChatMessageHistory, CairnRetriever
    retriever = CairnRetriever(client=Cairn(URL, api_key=KEY), project="atlas")
    history = CairnChatMessageHistory(Cairn(URL, api_key=KEY), "conversation-42")
"""

from .history import CairnChatMessageHistory
from .retriever import CairnRetriever, to_document

__all__ = ["CairnChatMessageHistory", "CairnRetriever", "to_document"]
