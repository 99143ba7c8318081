"""`CairnRetriever`: LlamaIndex nodes from Cairn's recall."""

from __future__ import annotations

from typing import Any, List, Optional

from cairn_memory import Cairn, RecallHit
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode


def to_node(hit: RecallHit) -> NodeWithScore:
    """A recalled memory as a scored text node (its id is the memory's)."""
    metadata = {"type": hit.kind, "project": hit.project, "tags": list(hit.tags),
                "source": hit.source, "created_at": hit.created_at}
    node = TextNode(id_=hit.id, text=hit.content, metadata=metadata,
                    excluded_embed_metadata_keys=list(metadata),
                    excluded_llm_metadata_keys=["source", "created_at"])
    return NodeWithScore(node=node, score=hit.score)


class CairnRetriever(BaseRetriever):
    """Recalls a Cairn server's memories for a query (hybrid search, best
    first); each option left None is the server's default.

    >>> retriever = CairnRetriever(Cairn(URL, api_key=KEY), project="atlas", limit=4)
    >>> RetrieverQueryEngine.from_args(retriever, llm=llm).query("where does staging run?")
    """

    def __init__(self, client: Cairn, *, project: Optional[str] = None,
                 types: Optional[List[str]] = None, tags: Optional[List[str]] = None,
                 limit: Optional[int] = None, budget: Optional[int] = None,
                 mode: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client = client
        self.options = dict(project=project, types=types, tags=tags, limit=limit, budget=budget,
                            mode=mode)

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        answer = self.client.recall(query_bundle.query_str, **self.options)
        return [to_node(hit) for hit in answer.results]
