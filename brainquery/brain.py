"""The library API the CLI (and later the web page) is a thin layer over."""
from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from . import query_index
from .ask import Asker, AskResult
from .config import Config, load_config
from .indexer import Indexer, IngestSummary, ReportLine
from .store import Store

# The fields of a document listing: a contract read by tools outside the repo.
DOCUMENT_FIELDS = ("source", "message_id", "title", "doc_type", "source_date", "date_source",
                   "attachment", "parent_id", "doc_id")


class Brain:
    """`Brain(store).ingest([...])`, `.ask("question")`, `.documents()`.

    `store` is a folder (embedded Chroma), an http://HOST:PORT Chroma server, or None for
    $BRAINQUERY_STORE / the per-user default.
    """

    def __init__(self, store: str | os.PathLike | None = None, config: Config | None = None):
        self.config = config or load_config()
        self.store = Store(store, self.config.store)
        self._asker: Asker | None = None

    def ingest(self, paths: Sequence[str | os.PathLike], *, now: datetime | None = None,
               progress: bool | None = False,
               on_line: Callable[[ReportLine], None] | None = None) -> IngestSummary:
        indexer = Indexer(self.store, self.config, now or datetime.now(timezone.utc))
        previous = query_index.mark_dirty(self.store)
        summary = indexer.ingest([str(p) for p in paths], progress=progress, on_line=on_line)
        if indexer.changed or not previous or previous == query_index.DIRTY:
            # The evidence graph and BM25 matrix are built here, at index time, so the
            # first question does not pay for them.
            self._asker = Asker(query_index.rebuild(self.store, self.config), self.config)
        else:
            query_index.restore(self.store, previous)
        return summary

    def ask(self, question: str, *, now: datetime | None = None, k: int | None = None,
            pattern: str | None = None) -> AskResult:
        """Answer `question` as of `now` (default: this moment), with at most `k` sources.
        `pattern` (logistical, entity, historical) overrides the router."""
        return self._answerer().ask(question, now or datetime.now(timezone.utc).astimezone(),
                                    k=k, pattern=pattern)

    def _answerer(self) -> Asker:
        if self._asker is None:
            self._asker = Asker(query_index.open_index(self.store, self.config), self.config)
        return self._asker

    def documents(self) -> list[dict[str, Any]]:
        """Every stored document, newest source date first, undated last."""
        docs = [{f: meta.get(f) or ("" if f != "source_date" else None) for f in DOCUMENT_FIELDS}
                for meta in self.store.documents()]
        dated = sorted((d for d in docs if d["source_date"]),
                       key=lambda d: (d["source_date"], d["source"]), reverse=True)
        undated = sorted((d for d in docs if not d["source_date"]), key=lambda d: d["source"])
        return dated + undated
