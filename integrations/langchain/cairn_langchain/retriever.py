"""`CairnRetriever`: LangChain documents from Cairn's recall."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from cairn_memory import Cairn, RecallHit
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


def to_document(hit: RecallHit) -> Document:
    """A recalled memory as a Document: its content, and in `metadata` its
    id, score, type, project, tags, source, times and own metadata."""
    metadata: Dict[str, Any] = {
        "id": hit.id, "score": hit.score, "type": hit.kind, "project": hit.project,
        "tags": list(hit.tags), "source": hit.source, "created_at": hit.created_at,
        "updated_at": hit.updated_at, "metadata": dict(hit.metadata),
    }
    return Document(page_content=hit.content, metadata=metadata, id=hit.id)


class CairnRetriever(BaseRetriever):
    """Recalls a Cairn server's memories for a query (hybrid search, best
    first). Each option left None is the server's default.

    >>> retriever = CairnRetriever(client=Cairn(URL, api_key=KEY), project="atlas", k=4)
    >>> retriever.invoke("where does staging run?")
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Cairn
    #: The project to recall in (its memories and the global ones).
    project: Optional[str] = None
    #: Only memories of these types (`fact`, `decision`, `episode`, ...).
    types: Optional[List[str]] = None
    #: Only memories with every one of these tags.
    tags: Optional[List[str]] = None
    #: At most this many documents.
    k: Optional[int] = None
    #: At most this many tokens in all.
    budget: Optional[int] = None
    #: `hybrid`, `keyword`, `semantic`, `temporal` or `importance`.
    mode: Optional[str] = None

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> List[Document]:
        answer = self.client.recall(query, project=self.project, types=self.types, tags=self.tags,
                                    limit=self.k, budget=self.budget, mode=self.mode)
        return [to_document(hit) for hit in answer.results]
