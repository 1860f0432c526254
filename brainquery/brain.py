"""The library API the CLI (and later the web page) is a thin layer over."""
from __future__ import annotations

import json
import os
import threading
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence
from zoneinfo import ZoneInfo

from ingest.imap_url import is_imap_url, parse_imap_url

from .query import index_state
from .config import Config, load_config
from .files import from_json_array, load_arrays, remove_leftovers, replaced
from .storage.store import Store
from .storage.writer_lock import stderr_notice

# The query side, the checker and the indexer (with every ingestor) are loaded by the
# methods that use them: `ls` lists documents without any of them.
if TYPE_CHECKING:
    from ingest.imap_auth import Secrets

    from .check import CheckReport
    from .originals import Original
    from .query.ask import Asker, AskResult
    from .storage.indexer import IngestSummary, ReportLine

_ROOTS_KEY = "ingest_roots"
_LAST_INGEST_FILE = index_state.LAST_INGEST_FILE

# The fields of a document listing: a contract read by tools outside the repo.
DOCUMENT_FIELDS = ("source", "message_id", "title", "doc_type", "source_date", "date_source",
                   "attachment", "parent_id", "doc_id")
# A source_date from these is only the file's own time: nothing in the document said when
# it was made (`ls` marks it `*`, the page too).
WEAK_DATE_SOURCES = frozenset({"file_mtime", "ingested"})


class Brain:
    """`Brain(store).ingest([...])`, `.ask("question")`, `.documents()`.

    `store` is a folder (embedded Chroma), an http://HOST:PORT Chroma server, or None for
    $BRAINQUERY_STORE / the per-user default.
    """

    def __init__(self, store: str | os.PathLike | None = None, config: Config | None = None,
                 read_only: bool = False, notify: Callable[[str], None] = stderr_notice):
        """`read_only`: only ask and list (see Store). `notify(message)`: what to tell the
        user about the writer lock (waiting for another writer, a stale lock broken)."""
        self.config = config or load_config()
        self.store = Store(store, self.config.store, read_only=read_only)
        self.notify = notify
        self._asker: Asker | None = None
        self._asker_generation = -1  # the published generation the Asker's index is of
        # One ingest at a time; questions go on meanwhile against the index they started with.
        self._ingest_lock = threading.Lock()
        # An Asker keeps per-question scratch state: one question at a time per Brain (the
        # web page's threads share one).
        self._ask_lock = threading.Lock()

    def ingest(self, paths: Sequence[str | os.PathLike], *, now: datetime | None = None,
               progress: bool | None = False,
               on_line: Callable[[ReportLine], None] | None = None,
               on_input: Callable[[int, int, str], None] | None = None,
               wait: bool = True, follow_symlinks: bool = False,
               secrets: Secrets | None = None) -> IngestSummary:
        """Ingest files, folders, mailboxes and IMAP folders (`imaps://USER@HOST/FOLDER`).
        `on_input(done, total, path)` reports progress. Holds the store's writer lock:
        another writer is waited for (`wait`), or StoreBusy is raised. A symlink inside a
        folder is followed only to a file inside an ingested root, unless
        `follow_symlinks`. `secrets`: where IMAP passwords come from (default: the
        configured password command, $BRAINQUERY_IMAP_PASSWORD, ~/.netrc; no prompt).
        Raises ImapUrlError for a bad IMAP URL and ImapError when an account cannot be
        logged in to, before anything is written."""
        from .query import query_index
        from .query.ask import Asker
        from .storage import mail_sync, model_cache
        from .storage.indexer import EXIT_NOTHING_RAN, Indexer

        named = [str(p) for p in paths]
        files = [p for p in named if not is_imap_url(p)]
        folders = [parse_imap_url(p) for p in named if is_imap_url(p)]
        with self._ingest_lock, self.store.writer(wait, self.notify), \
                mail_sync.connected(folders, secrets or self.default_secrets(),
                                    self.config.ingest.imap) as accounts:
            started = datetime.now(timezone.utc)
            remove_leftovers(self.store.cache_dir, model_cache.LEGACY_FILES + query_index.LEGACY_FILES)
            # What the store holds, from the published index while it is complete (read
            # before this ingest marks it dirty); else the indexer scans the store. The
            # index is read once: `refresh` updates this copy.
            published = self._asker.index if self._asker is not None else None
            if published is None or published.fingerprint != self.store.state().get(query_index.STATE_KEY):
                published = query_index.published(self.store, self.config)
            indexer = Indexer(self.store, self.config, now or started,
                              roots=None if follow_symlinks else [*self.roots(), *_real(files)],
                              known=published.docs if published is not None else None,
                              model=published.dense if published is not None else None)
            previous = query_index.mark_dirty(self.store)
            changes = self.store.record_changes()
            try:
                summary = indexer.ingest(files, progress=progress, on_line=on_line, on_input=on_input,
                                         mail=accounts)
            finally:
                self.store.stop_recording()
            if indexer.changed or not previous or previous == query_index.DIRTY:
                # The evidence graph and BM25 matrix are built here, at index time, so the
                # first question does not pay for them; only what this ingest wrote is read
                # when the published index can be updated. The new Asker replaces the old in
                # one assignment: a question in flight finishes on the one it began with.
                index = query_index.refresh(self.store, self.config, previous, changes, published)
                published = None    # the old index goes as soon as the new one is there
                # The next ingest reads the shingle sets from the writer file again (0.5 s at
                # 100,000 chunks) rather than this process holding them (170 MB) meanwhile.
                index.writer = None
                self._asker = Asker(index, self.config, query_index.open_router(self.store, self.config))
                self._asker_generation = query_index.generation(self.store.state())
            else:
                query_index.restore(self.store, previous)
            # Only an ingest that ran names roots: a path that failed (missing, too long)
            # must not stay in the store's state.
            if summary.exit_code != EXIT_NOTHING_RAN:
                self._add_roots([p for p in files if os.path.exists(p)])
            self._record_ingest(paths, started, summary)
            return summary

    def default_secrets(self) -> Secrets:
        """IMAP credentials without a terminal: the configured password command,
        $BRAINQUERY_IMAP_PASSWORD, ~/.netrc."""
        from ingest.imap_auth import Secrets

        cfg = self.config.ingest.imap
        return Secrets(password_command=cfg.password_command,
                       command_timeout=cfg.password_command_timeout_seconds)

    def mail_folders(self) -> list[str]:
        """The URL of every IMAP folder synced into this store (no credentials in them)."""
        from .storage import mail_sync

        return sorted(path for path, record in self.store.sources().items()
                      if record.get("kind") == mail_sync.RECORD_KIND)

    def original(self, doc_id: str) -> Original:
        """What to show for stored document `doc_id` (raises originals.NoSuchDocument)."""
        from .originals import open_original

        return open_original(self.store, doc_id, self.roots(),
                             self.config.ingest.ingest.max_file_bytes)

    def document_text(self, doc_id: str) -> str | None:
        """The stored text of document `doc_id` (its chunks joined), or None when not stored."""
        from .storage.chunking import join_chunks

        found = self.store.document(doc_id)
        return None if found is None else "\n".join(join_chunks(found[1]))

    def pinned_now(self, day: date) -> datetime:
        """A pinned day (`--now YYYY-MM-DD`): noon of it in the household's zone
        (ingest.floating_timezone), so answers are reproducible."""
        zone = ZoneInfo(self.config.ingest.ingest.floating_timezone)
        return datetime(day.year, day.month, day.day, 12, tzinfo=zone)

    def roots(self) -> list[str]:
        """Every file and folder ever named to an ingest that ran, symlinks resolved."""
        try:
            roots = json.loads(self.store.state().get(_ROOTS_KEY) or "[]")
        except ValueError:
            return []
        return [r for r in roots if isinstance(r, str)] if isinstance(roots, list) else []

    def forget_roots(self, roots: Sequence[str]) -> list[str]:
        """Remove roots (as listed by `roots()`, or a path that resolves to one); their
        documents stay, but their originals are no longer opened. Returns what was removed."""
        with self.store.writer(True, self.notify):
            current = self.roots()
            gone = {r for r in current for given in roots
                    if r == given or r == os.path.realpath(os.path.expanduser(given))}
            if gone:
                self.store.set_state(**{_ROOTS_KEY: json.dumps([r for r in current if r not in gone])})
            return sorted(gone)

    def check(self) -> CheckReport:
        """Verify that the store and its caches agree; repair what does not (see check)."""
        from . import check as check_module

        cached = _cached_chunk_count(self.store.cache_dir / index_state.INDEX_FILE)
        with self._ingest_lock, self.store.writer(True, self.notify):
            report = check_module.check(self.store, self.config, cached)
        self._asker = None  # the next question reads what check published
        return report

    def last_ingest(self) -> dict[str, Any] | None:
        """The latest ingest's paths, times and summary (the `ingest --json` object)."""
        try:
            record = json.loads((self.store.cache_dir / _LAST_INGEST_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        # A file of the right format but another shape is no record of ours.
        if not isinstance(record, dict) or not isinstance(record.get("summary"), dict) \
                or not isinstance(record["summary"].get("failures", []), list):
            return None
        return record

    def _add_roots(self, paths: Sequence[str]) -> None:
        named = set(_real(paths))
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
        from .query.question import check_question

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
        """The Asker over the newest complete generation: another process (the CLI beside
        `serve`) may have published one since the last question."""
        from .query import query_index
        from .query.ask import Asker

        state = self.store.state()
        newest = query_index.generation(state)
        if self._asker is None or (newest > self._asker_generation
                                   and state.get(query_index.STATE_KEY) != query_index.DIRTY):
            if self._asker is None:
                self._warn_if_store_lost()
            self._asker = Asker(query_index.open_index(self.store, self.config, self.notify),
                                self.config, query_index.open_router(self.store, self.config))
            self._asker_generation = query_index.generation(self.store.state())
        return self._asker

    def _warn_if_store_lost(self) -> None:
        """A deleted or emptied chroma.sqlite3 looks like an empty store: say so when the
        caches beside it describe documents."""
        # A published index means the database is there (and counting would load chromadb).
        if self.store.state().get(index_state.STATE_KEY) or self.store.count():
            return
        described = _cached_chunk_count(self.store.cache_dir / index_state.INDEX_FILE)
        if described:
            self.notify(f"warning: the store at {self.store.location} holds no documents, but its "
                        f"cache describes {described} chunks: was chroma.sqlite3 deleted or "
                        "replaced? Ingest again to restore it")

    def documents(self) -> list[dict[str, Any]]:
        """Every stored document, newest source date first, undated last."""
        self._warn_if_store_lost()
        # The published index holds every document's record: no need to load chromadb.
        records = index_state.published_documents(self.store, self.config)
        docs = [{f: meta.get(f) or ("" if f != "source_date" else None) for f in DOCUMENT_FIELDS}
                for meta in (records if records is not None else self.store.documents())]
        dated = sorted((d for d in docs if d["source_date"]),
                       key=lambda d: (d["source_date"], d["source"]), reverse=True)
        undated = sorted((d for d in docs if not d["source_date"]), key=lambda d: d["source"])
        return dated + undated


def _real(paths: Sequence[str]) -> list[str]:
    return [os.path.realpath(os.path.expanduser(p)) for p in paths]


def _cached_chunk_count(path) -> int:
    """How many chunks a query index file (of any provenance: it is only counted) lists."""
    arrays = load_arrays(Path(path))
    try:
        return len(from_json_array(arrays["chunk_ids"])) if arrays else 0
    except (KeyError, ValueError, TypeError):  # foreign or damaged: nothing to warn about
        return 0
