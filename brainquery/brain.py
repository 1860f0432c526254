"""The library API the CLI (and later the web page) is a thin layer over."""
from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from . import query_index
from .ask import Asker, AskResult, check_question
from .config import Config, load_config
from .files import replaced
from .indexer import Indexer, IngestSummary, ReportLine
from .originals import Original, open_original
from .store import Store

_ROOTS_KEY = "ingest_roots"
_LAST_INGEST_FILE = "last_ingest.json"

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
        # One ingest at a time; questions go on meanwhile against the index they started with.
        self._ingest_lock = threading.Lock()
        # An Asker keeps per-question scratch state: one question at a time per Brain (the
        # web page's threads share one).
        self._ask_lock = threading.Lock()

    def ingest(self, paths: Sequence[str | os.PathLike], *, now: datetime | None = None,
               progress: bool | None = False,
               on_line: Callable[[ReportLine], None] | None = None,
               on_input: Callable[[int, int, str], None] | None = None) -> IngestSummary:
        """Ingest files, folders and mailboxes. `on_input(done, total, path)` reports progress."""
        with self._ingest_lock:
            started = datetime.now(timezone.utc)
            self._add_roots(paths)
            indexer = Indexer(self.store, self.config, now or started)
            previous = query_index.mark_dirty(self.store)
            summary = indexer.ingest([str(p) for p in paths], progress=progress, on_line=on_line,
                                     on_input=on_input)
            if indexer.changed or not previous or previous == query_index.DIRTY:
                # The evidence graph and BM25 matrix are built here, at index time, so the
                # first question does not pay for them. The new Asker replaces the old in
                # one assignment: a question in flight finishes on the one it began with.
                self._asker = Asker(query_index.rebuild(self.store, self.config), self.config)
            else:
                query_index.restore(self.store, previous)
            self._record_ingest(paths, started, summary)
            return summary

    def original(self, doc_id: str) -> Original:
        """What to show for stored document `doc_id` (raises originals.NoSuchDocument)."""
        return open_original(self.store, doc_id, self.roots(),
                             self.config.ingest.ingest.max_file_bytes)

    def roots(self) -> list[str]:
        """Every file and folder ever named to ingest, symlinks resolved."""
        return json.loads(self.store.state().get(_ROOTS_KEY) or "[]")

    def last_ingest(self) -> dict[str, Any] | None:
        """The latest ingest's paths, times and summary (the `ingest --json` object)."""
        try:
            return json.loads((self.store.cache_dir / _LAST_INGEST_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _add_roots(self, paths: Sequence[str | os.PathLike]) -> None:
        named = {os.path.realpath(os.path.expanduser(str(p))) for p in paths}
        roots = set(self.roots())
        if not named <= roots:
            self.store.set_state(**{_ROOTS_KEY: json.dumps(sorted(roots | named))})

    def _record_ingest(self, paths: Sequence[str | os.PathLike], started: datetime,
                       summary: IngestSummary) -> None:
        record = {"paths": [str(p) for p in paths], "started": started.isoformat(),
                  "finished": datetime.now(timezone.utc).isoformat(), "summary": summary.to_dict()}
        with replaced(self.store.cache_dir / _LAST_INGEST_FILE, "w") as fh:
            json.dump(record, fh, ensure_ascii=False)

    def ask(self, question: str, *, now: datetime | None = None, k: int | None = None,
            pattern: str | None = None) -> AskResult:
        """Answer `question` as of `now` (default: this moment), with at most `k` sources.
        `pattern` (logistical, entity, historical) overrides the router."""
        # Refused before the index is even loaded: an empty or 1 MB question answers nothing.
        check_question(question, k, self.config.scoring.max_question_chars)
        with self._ask_lock:
            return self._answerer().ask(question, now or datetime.now(timezone.utc).astimezone(),
                                        k=k, pattern=pattern)

    def prepare(self) -> None:
        """Load the query index now, so the first question does not wait for it."""
        with self._ask_lock:
            self._answerer()

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
