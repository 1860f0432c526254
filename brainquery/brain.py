"""The library API the CLI (and later the web page) is a thin layer over."""
from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from .config import Config, load_config
from .indexer import IngestSummary, Indexer, ReportLine
from .store import Store

# The fields of a document listing: a contract read by tools outside the repo.
DOCUMENT_FIELDS = ("source", "message_id", "title", "doc_type", "source_date", "date_source",
                   "attachment", "parent_id", "doc_id")


class Brain:
    """`Brain(store).ingest([...])`, `Brain(store).documents()`.

    `store` is a folder (embedded Chroma), an http://HOST:PORT Chroma server, or None for
    $BRAINQUERY_STORE / the per-user default.
    """

    def __init__(self, store: str | os.PathLike | None = None, config: Config | None = None):
        self.config = config or load_config()
        self.store = Store(store, self.config.store)

    def ingest(self, paths: Sequence[str | os.PathLike], *, now: datetime | None = None,
               progress: bool | None = False,
               on_line: Callable[[ReportLine], None] | None = None) -> IngestSummary:
        indexer = Indexer(self.store, self.config, now or datetime.now(timezone.utc))
        return indexer.ingest([str(p) for p in paths], progress=progress, on_line=on_line)

    def documents(self) -> list[dict[str, Any]]:
        """Every stored document, newest source date first, undated last."""
        docs = [{f: meta.get(f) or ("" if f != "source_date" else None) for f in DOCUMENT_FIELDS}
                for meta in self.store.documents()]
        dated = sorted((d for d in docs if d["source_date"]),
                       key=lambda d: (d["source_date"], d["source"]), reverse=True)
        undated = sorted((d for d in docs if not d["source_date"]), key=lambda d: d["source"])
        return dated + undated
