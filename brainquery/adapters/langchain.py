"""Brain Query as a LangChain retriever (`pip install 'brainquery[langchain]'`).

    from brainquery.adapters.langchain import BrainQueryRetriever

    retriever = BrainQueryRetriever(store="~/.local/share/brainquery", k=4)
    docs = retriever.invoke("What size is our HVAC filter?")
    docs[0].metadata["answer"], docs[0].metadata["level"]

Documents come in Brain Query's rank order; `page_content` is the document's stored text
(or with `content="snippet"`, the passage `ask --json` shows), `metadata` its source,
doc_id, title, doc_type, source_date, date_source, score and `scores` (the parts), and on
the first document the question's answer, confidence, message and level.
"""
from __future__ import annotations

import os
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from ..brain import Brain
from .retrieval import Content, Now, open_brain, retrieve


class BrainQueryRetriever(BaseRetriever):
    """Brain Query's ranked sources for a question, as LangChain `Document`s.

    Built from a store (`store=` a folder or Chroma URL; None: $BRAINQUERY_STORE or the
    per-user default) or a `Brain` (`brain=`). `k`: at most this many documents (default
    5, `scoring.default_k`); `now`: a datetime, a date or "YYYY-MM-DD" (noon there), or
    None for the moment of each question; `pattern`: logistical, entity or historical to
    skip the router. `ainvoke` runs the question in a worker thread.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    brain: Brain
    k: int | None = None
    now: Now = None
    pattern: str | None = None
    content: Content = "document"

    def __init__(self, store: str | os.PathLike | None = None, *, brain: Brain | None = None,
                 **kwargs: Any):
        super().__init__(brain=open_brain(store, brain), **kwargs)

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=r.text, metadata=r.metadata, id=r.doc_id)
                for r in retrieve(self.brain, query, k=self.k, now=self.now,
                                  pattern=self.pattern, content=self.content)]
