"""Ingestion into the store: walk → ingestor → Document → chunks → vectors → Chroma.

Crash safety: a file's record in the sources collection is written only after all of its
chunks are in the store, and chunk ids are stable (`doc_id:chunk_no`), so a run killed
at any point is completed by the next one without duplicates.
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import logging
import os
import sys
from datetime import datetime
from typing import Any, Callable, NamedTuple, Sequence

from ingest.blob import Blob, open_regular
from ingest.bounds import bound_document, error_line, raw_path_hex, storable
from ingest.document import Document, IngestError, ItemFailure, UnsupportedInput
from ingest.registry import Context, Registry, default_registry
from ingest.sniff import magic
from ingest.walk import WalkProblem, iter_inputs

from . import model_cache, parse_pool
from .chunking import chunk_text
from ..config import Config
from .embedding import DenseEmbedder
from .store import Store, StoreError
from .write_behind import WriteBehind

log = logging.getLogger(__name__)

INGESTED, UNCHANGED, SKIPPED, FAILED = "ingested", "unchanged", "skipped", "failed"
EXIT_OK, EXIT_SOME_FAILED, EXIT_NOTHING_RAN = 0, 1, 2
# Inputs held to a per-message size limit instead of the per-file one.
_CONTAINERS = frozenset({"mbox", "dir"})


@dataclasses.dataclass(frozen=True)
class ReportLine:
    """One line of the ingest report: a source document, or a file that gave none."""

    source: str
    status: str
    message_id: str = ""
    title: str = ""
    doc_type: str = "unknown"
    source_date: str | None = None
    date_source: str = ""
    error: str = ""
    attachment: str = ""
    doc_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def of(cls, doc: Document | dict[str, Any], status: str, error: str = "") -> "ReportLine":
        if isinstance(doc, Document):
            return cls(source=doc.source, status=status, message_id=doc.message_id,
                       title=doc.title, doc_type=doc.doc_type, source_date=doc.source_date_iso,
                       date_source=doc.date_source, error=error, attachment=doc.attachment,
                       doc_id=doc.doc_id)
        return cls(source=doc.get("source", ""), status=status,
                   message_id=doc.get("message_id", ""), title=doc.get("title", ""),
                   doc_type=doc.get("doc_type", "unknown"), source_date=doc.get("source_date"),
                   date_source=doc.get("date_source", ""), error=error,
                   attachment=doc.get("attachment", ""), doc_id=doc.get("doc_id", ""))


@dataclasses.dataclass
class IngestSummary:
    lines: list[ReportLine] = dataclasses.field(default_factory=list)
    inputs: int = 0
    # One record per IMAP folder read (storage/mail_sync.py): its URL, UIDVALIDITY, how
    # many messages were new and fetched, how many stored ones are gone from the server.
    mail_folders: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def by_status(self) -> collections.Counter:
        return collections.Counter(line.status for line in self.lines)

    def by_doc_type(self) -> collections.Counter:
        return collections.Counter(line.doc_type for line in self.lines
                                   if line.status in (INGESTED, UNCHANGED))

    def to_dict(self) -> dict[str, Any]:
        """The `brainquery ingest --json` object: a contract read outside the repo."""
        return {
            "inputs": self.inputs,
            "statuses": dict(self.by_status()),
            "doc_types": dict(self.by_doc_type()),
            "failures": [{"source": f.source, "error": f.error} for f in self.failures],
            "exit_code": self.exit_code,
            "mail_folders": list(self.mail_folders),
        }

    @property
    def failures(self) -> list[ReportLine]:
        return [line for line in self.lines if line.status == FAILED]

    @property
    def exit_code(self) -> int:
        statuses = self.by_status()
        # An IMAP folder read to its end ran, though a re-run lists only what was new.
        if statuses[FAILED] and not (statuses[INGESTED] or statuses[UNCHANGED] or statuses[SKIPPED]
                                     or self.mail_folders):
            return EXIT_NOTHING_RAN
        return EXIT_SOME_FAILED if statuses[FAILED] else EXIT_OK


class _PendingChunk(NamedTuple):
    chunk_id: str
    text: str
    meta: dict[str, Any]
    embed_text: str


class Indexer:
    def __init__(self, store: Store, config: Config, now: datetime,
                 registry: Registry | None = None, roots: Sequence[str] | None = None,
                 known: Sequence[dict[str, Any]] | None = None, model: DenseEmbedder | None = None):
        """`roots`: resolved folders and files a symlink may lead into (None: follow every
        symlink). `known`: one metadata record per stored document, when the caller has
        them (the published query index); None: read from the store. `model`: the
        embedding model the caller has in memory (used when it is the store's)."""
        self.store = store
        self.roots = None if roots is None else tuple(roots)
        self.config = config
        self.ctx = Context(config=config.ingest, now=now, registry=registry or default_registry())
        self._documents = known
        # What the store holds: each document's metadata record (content_hash, file_path,
        # source, n_chunks...) by its id, as stored; the records themselves, not objects
        # made of them (100,000 objects made at every ingest cost a third of a second).
        self._known: dict[str, dict[str, Any]] = {}
        self._by_file: dict[str, set[str]] = collections.defaultdict(set)
        self._pending: list[_PendingChunk] = []
        self._pending_sources: list[dict[str, Any]] = []
        self._model: DenseEmbedder | None = None
        self._known_model = model
        self._writes = WriteBehind(config.store.write_queue) if config.store.write_queue > 0 else None
        self.changed = False  # anything written: derived query indexes are then out of date

    def ingest(self, paths: Sequence[str], progress: bool | None = None,
               on_line: Callable[[ReportLine], None] | None = None,
               on_input: Callable[[int, int, str], None] | None = None,
               mail: Sequence[Any] = ()) -> IngestSummary:
        """`on_input(done, total, path)` is called before each input is read. `mail`:
        IMAP accounts to read after the files (storage/mail_sync.AccountSync), each
        `.run(indexer, emit, summary, progress, on_input)`."""
        try:
            return self._ingest(paths, progress, on_line, on_input, mail)
        finally:
            if self._writes is not None:
                self._writes.close()

    def _ingest(self, paths: Sequence[str], progress: bool | None,
                on_line: Callable[[ReportLine], None] | None,
                on_input: Callable[[int, int, str], None] | None, mail: Sequence[Any]) -> IngestSummary:
        summary = IngestSummary()
        emit = _Emitter(summary, on_line, self.config.ingest.ingest)
        self._load_known()
        sources = self.store.sources()
        self._model = model_cache.open_model(self.store, self.config.embedding, self.config.text,
                                             self._known_model)
        inputs = list(iter_inputs(paths, self.config.ingest))
        summary.inputs = len(inputs)
        log.info("%d inputs to read", len(inputs))
        for done, item in enumerate(_progress(inputs, progress)):
            if on_input is not None:
                on_input(done, len(inputs), str(item.path))
            log.debug("reading %s", item.path)
            if isinstance(item, WalkProblem):
                emit(ReportLine(source=item.path, status=FAILED, error=item.error))
                continue
            if not self._inside_roots(item):
                emit(ReportLine(source=storable(str(item.path)), status=SKIPPED,
                                error=f"{storable(item.name)}: a symlink to outside the ingested folders "
                                      "(--follow-symlinks follows it)"))
                continue
            self._ingest_blob(item, sources.get(storable(str(item.path))), emit)
        for account in mail:
            account.run(self, emit, summary, progress, on_input)
        if on_input is not None:
            on_input(len(inputs), len(inputs), "")  # all read; what is left is writing
        self._flush(final=True)
        self._drain()
        if self._model is not None and model_cache.needs_refit(self._model, self.store, self.config.embedding):
            self._model = model_cache.refit_from_store(self.store, self.config.embedding, self.config.text)
            self.changed = True
        return summary

    def _inside_roots(self, blob: Blob) -> bool:
        """A symlink in a folder (`docs/link -> /etc/passwd`) is followed only into a root."""
        path = str(blob.path)
        real = os.path.realpath(path)
        if self.roots is None or real == path or not os.path.exists(real):
            return True  # not a link, or a dangling one: reading it fails with its own error
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    # ---- one input --------------------------------------------------------------------
    def _ingest_blob(self, blob: Blob, previous: dict[str, Any] | None, emit: "_Emitter") -> None:
        # The store keys a file by its storable name (`caf\xe9.txt`); the bytes of a name
        # that is not UTF-8 are kept beside it, to open the file again.
        path = storable(str(blob.path))
        ok_before = previous is not None and previous.get("status") == "ok"
        try:
            stat = file_stat(blob)
            if ok_before and all(previous.get(k) == stat[k] for k in ("size", "mtime_ns")):
                self._emit_known(path, UNCHANGED, emit)
                return
            problem = self._refuse(blob, stat["size"])
            if problem:
                emit(ReportLine(source=path, status=FAILED, error=problem))
                return
            fingerprint = {**stat, "sha256": _digest(blob)}
            if raw_path_hex(str(blob.path)):
                fingerprint["path_bytes"] = raw_path_hex(str(blob.path))
        except OSError as err:
            emit(ReportLine(source=path, status=FAILED, error=f"cannot read: {err.strerror or err}"))
            return
        if ok_before and previous.get("sha256") == fingerprint["sha256"]:
            self._emit_known(path, UNCHANGED, emit)  # touched, not changed
            self._pending_sources.append({**previous, **fingerprint})
            return
        documents = self._apply(path, blob, emit)
        if documents is not None:
            self._pending_sources.append({"path": path, "status": "ok", **fingerprint,
                                          "documents": documents})

    def _refuse(self, blob: Blob, size: int) -> str:
        limit = self.config.ingest.ingest.max_file_bytes
        if size > limit and magic(blob) not in _CONTAINERS:
            return f"{blob.name}: file is {size} bytes, over the {limit}-byte limit"
        if size == 0 and not blob.is_dir:
            return f"{blob.name}: empty file"
        return ""

    def _apply(self, path: str, blob: Blob, emit: "_Emitter") -> int | None:
        """Stream the blob's documents into the pending batch (a mailbox of many GB never
        sits in memory). Returns how many documents it held, or None when reading failed
        part-way: then nothing is deleted and no file record is written, so the next run
        reads it again."""
        seen: set[str] = set()
        items = None
        try:
            items = self._items(blob)
            for item in items:
                self._apply_item(path, item, seen, emit)
                if len(self._pending) >= self.store.batch_size:
                    self._flush(final=False)
        except IngestError as err:
            status = SKIPPED if isinstance(err, UnsupportedInput) else FAILED
            emit(ReportLine(source=path, status=status, error=str(err)))
            return None
        except StoreError:
            raise   # the store, not this file, failed (a full disk): the run stops with its error
        except Exception as err:  # a parser bug on one file never stops the run
            log.debug("ingest of %s failed", path, exc_info=True)
            emit(ReportLine(source=path, status=FAILED, error=f"{blob.name}: {type(err).__name__}: {err}"))
            return None
        finally:
            if hasattr(items, "close"):
                items.close()  # a large mbox's worker processes stop here, not at collection
        stale = self._by_file.get(path, set()) - seen
        if stale:
            self.changed = True
            self._write(self.store.delete, [f"{doc_id}:{n}" for doc_id in stale
                                            for n in range(_n_chunks(self._known[doc_id]))])
            for doc_id in stale:
                del self._known[doc_id]
            self._by_file[path] -= stale
        return len(seen)

    def _items(self, blob: Blob):
        """The blob's documents: a large mbox parsed by worker processes, anything else
        by its ingestor here. Both yield the same items in the same order."""
        if parse_pool.wants_pool(blob, magic(blob), self.ctx):
            return parse_pool.mbox_items(blob, self.ctx)
        return self.ctx.registry.ingest(blob, self.ctx)

    def _apply_item(self, path: str, item: Document | ItemFailure, seen: set[str],
                    emit: "_Emitter") -> None:
        if isinstance(item, ItemFailure):
            emit(ReportLine(source=item.source, status=FAILED, error=item.error,
                            title=item.title, message_id=item.message_id,
                            attachment=item.attachment))
            return
        item, note = bound_document(item, self.config.ingest.ingest)
        known = self._known.get(item.doc_id)
        if item.doc_id in seen:
            emit(ReportLine.of(item, SKIPPED, "the same document appears earlier in this file"))
        elif known is not None and known.get("file_path", "") != path:
            emit(ReportLine.of(item, SKIPPED, f"duplicate of {known.get('source', '')}"))
        elif known is not None and known.get("content_hash", "") == item.content_hash:
            seen.add(item.doc_id)
            emit(ReportLine.of(item, UNCHANGED))
        else:
            seen.add(item.doc_id)
            self._queue(item, known)
            emit(ReportLine.of(item, INGESTED, note))

    def _queue(self, doc: Document, known: dict[str, Any] | None) -> None:
        chunks = chunk_text(doc.text, self.config.chunking)
        base = chunk_metadata(doc, len(chunks))
        for n, text in enumerate(chunks):
            meta = {**base, "chunk_no": n}
            self._pending.append(_PendingChunk(f"{doc.doc_id}:{n}", text, meta,
                                               model_cache.embed_text(doc.title, text)))
        if known is not None and _n_chunks(known) > len(chunks):
            self.changed = True
            self._write(self.store.delete, [f"{doc.doc_id}:{n}" for n in range(len(chunks), _n_chunks(known))])
        self._known[doc.doc_id] = base
        self._by_file[doc.file_path].add(doc.doc_id)

    # ---- items from elsewhere (an IMAP folder) -----------------------------------------
    def apply_item(self, path: str, item: Document | ItemFailure, seen: set[str],
                   emit: "_Emitter") -> None:
        """One document (or failure) of the input `path`, as for a file's; nothing stored
        under `path` is ever deleted for being absent (a server's folder is read in part)."""
        self._apply_item(path, item, seen, emit)
        if len(self._pending) >= self.store.batch_size:
            self._flush(final=False)

    def record_source(self, record: dict[str, Any]) -> None:
        """Write `record` (keyed by its "path") after every chunk applied before it: a
        record of progress is never ahead of what the store holds."""
        self._pending_sources[:] = [r for r in self._pending_sources if r["path"] != record["path"]]
        self._pending_sources.append(record)

    def stored_from(self, path: str) -> list[dict[str, Any]]:
        """The metadata of every document stored (or queued) from input `path`."""
        return [self._known[doc_id] for doc_id in self._by_file.get(path, ())
                if doc_id in self._known]

    # ---- writing ----------------------------------------------------------------------
    def _flush(self, final: bool) -> None:
        cfg = self.config.embedding
        if self._model is None and not final and len(self._pending) < cfg.initial_fit_chunks:
            return  # keep buffering: the first fit should see a fair sample
        if self._pending:
            ids = [p.chunk_id for p in self._pending]
            texts = [p.embed_text for p in self._pending]
            if self._model is None:
                self._drain()   # (the model's record is written beside the chunks)
                self._model = model_cache.first_fit(self.store, cfg, ids, texts, self.config.text)
            self.changed = True
            self._write(self.store.upsert, ids, [p.text for p in self._pending], [p.meta for p in self._pending],
                        self._model.transform(texts))
            self._pending.clear()
        if self._pending_sources:
            self._write(self.store.put_sources, list(self._pending_sources))
            self._pending_sources.clear()

    def _write(self, write: Callable[..., Any], *args: Any) -> None:
        """A store write, behind the reading when [store] write_queue allows (write_behind.py)."""
        if self._writes is None:
            write(*args)
        else:
            self._writes.submit(write, *args)

    def _drain(self) -> None:
        if self._writes is not None:
            self._writes.drain()

    def _load_known(self) -> None:
        for meta in self.store.documents() if self._documents is None else self._documents:
            doc_id = meta.get("doc_id")
            if doc_id:
                self._known[doc_id] = meta
                self._by_file[meta.get("file_path", "")].add(doc_id)

    def _emit_known(self, path: str, status: str, emit: "_Emitter") -> None:
        for doc_id in sorted(self._by_file.get(path, ())):
            emit(ReportLine.of(self._known[doc_id], status))


def _n_chunks(record: dict[str, Any]) -> int:
    return int(record.get("n_chunks", 1))


def chunk_metadata(doc: Document, n_chunks: int) -> dict[str, Any]:
    """Flat Chroma metadata for every chunk of `doc` (dates as ISO text and epoch ints)."""
    meta: dict[str, Any] = {k: v for k, v in doc.meta.items() if isinstance(v, (str, int, float, bool))}
    meta.update({
        "doc_id": doc.doc_id, "source": doc.source, "file_path": doc.file_path,
        "title": doc.title, "doc_type": doc.doc_type, "date_source": doc.date_source,
        "date_floating": doc.date_floating, "ingestion_date": doc.ingestion_date.isoformat(),
        "content_hash": doc.content_hash, "message_id": doc.message_id,
        "parent_id": doc.parent_id, "attachment": doc.attachment, "n_chunks": n_chunks,
    })
    if doc.source_date is not None:
        meta["source_date"] = doc.source_date_iso
        meta["source_epoch"] = doc.source_epoch
    return meta


class _Emitter:
    def __init__(self, summary: IngestSummary, on_line: Callable[[ReportLine], None] | None,
                 limits):
        self.summary = summary
        self.on_line = on_line
        self.limits = limits

    def __call__(self, line: ReportLine) -> None:
        # A report line is written as UTF-8 and printed: every string storable, the error
        # one bounded line (a calendar parser quotes hundreds of raw bytes).
        line = dataclasses.replace(
            line, source=storable(line.source), title=storable(line.title),
            message_id=storable(line.message_id), attachment=storable(line.attachment),
            error=error_line(line.error, self.limits.max_error_chars))
        self.summary.lines.append(line)
        if self.on_line is not None:
            self.on_line(line)


def file_stat(blob: Blob) -> dict[str, Any]:
    """Size and mtime (as text: Chroma ints are 64-bit but we take no chances); for a
    Maildir folder, a digest of its listing stands in for the mtime."""
    if blob.is_dir:
        return {"size": sum(e.stat().st_size for _, e in _maildir_entries(blob)),
                "mtime_ns": _digest(blob)}
    stat = blob.path.stat()
    return {"size": stat.st_size, "mtime_ns": str(stat.st_mtime_ns)}


def _digest(blob: Blob) -> str:
    digest = hashlib.sha256()
    if blob.is_dir:
        for sub, entry in _maildir_entries(blob):
            stat = entry.stat()
            digest.update(f"{sub}/{entry.name}\x1f{stat.st_size}\x1f{stat.st_mtime_ns}\n".encode())
        return digest.hexdigest()
    with open_regular(blob.path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _maildir_entries(blob: Blob):
    for sub in ("cur", "new"):
        for entry in sorted((blob.path / sub).iterdir()):
            yield sub, entry


def _progress(items: list, enabled: bool | None):
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, unit="file", desc="ingest", file=sys.stderr)
