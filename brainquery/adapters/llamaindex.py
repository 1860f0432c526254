"""Brain Query as a LlamaIndex retriever (`pip install 'brainquery[llamaindex]'`).

    from llama_index.core.query_engine import RetrieverQueryEngine
    from brainquery.adapters.llamaindex import BrainQueryRetriever

    retriever = BrainQueryRetriever(store="~/.local/share/brainquery", k=4)
    engine = RetrieverQueryEngine.from_args(retriever, llm=my_llm)

Nodes come in Brain Query's rank order as `NodeWithScore` (the score is Brain Query's fused
score), each a `TextNode` with the same text and metadata as the LangChain retriever's
documents (see `brainquery.adapters.retrieval`).
"""
from __future__ import annotations

import os

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from ..brain import Brain
from .retrieval import Content, Now, open_brain, retrieve

# Kept on the node but not written into an LLM's prompt or an embedding: numbers and
# spans that mean nothing as text.
_NOT_FOR_TEXT = ["scores", "snippet", "score", "rank", "on_topic", "age_days", "message_id"]


class BrainQueryRetriever(BaseRetriever):
    """Brain Query's ranked sources for a question, as LlamaIndex nodes.

    `store` or `brain`, `k`, `now`, `pattern` and `content` as in
    `brainquery.adapters.langchain.BrainQueryRetriever`.
    """

    def __init__(self, store: str | os.PathLike | None = None, *, brain: Brain | None = None,
                 k: int | None = None, now: Now = None, pattern: str | None = None,
                 content: Content = "document", **kwargs):
        self.brain = open_brain(store, brain)
        self.k, self.now, self.pattern, self.content = k, now, pattern, content
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = retrieve(self.brain, query_bundle.query_str, k=self.k, now=self.now,
                         pattern=self.pattern, content=self.content)
        return [NodeWithScore(node=TextNode(id_=r.doc_id, text=r.text, metadata=r.metadata,
                                            excluded_llm_metadata_keys=list(_NOT_FOR_TEXT),
                                            excluded_embed_metadata_keys=list(_NOT_FOR_TEXT)),
                              score=r.score)
                for r in found]
