"""The in-memory side of the store that questions are scored against.

Chroma stays the single source of truth; this is a cache rebuilt from it: per chunk the
text, its dense vector and its document; per document the date, type and (for calendar
events) every occurrence; the BM25 matrix and the evidence graph. A Chroma query with a
`where` filter costs tens of milliseconds while a numpy pass over 100,000 rows costs a few,
so time windows and type masks are applied here, in numpy.

The cache is keyed by a fingerprint the collection records (like the embedding model):
an ingest that writes anything marks it dirty first and publishes a new one when done, so
a crash in between, another machine writing to a shared server, or a deleted cache all
lead to a rebuild from the collection, never to answers from stale arrays. The
fingerprint covers what the index was built from: ids, content hashes, the model and the
vectors themselves.

An ingest that changed a few chunks updates the published index instead of rebuilding it
(`refresh`, index_update.py): the result is the index a rebuild would give.

Publishing is one metadata write, the last step of a writer: the fingerprint, the cache
file's SHA-256 and the generation number. A reader loads only the file with that digest
(a planted or foreign file is never parsed as ours); while a writer is at work it keeps
answering from the last complete generation, and an index left dirty by a writer that
died is rebuilt under the writer lock.
"""
from __future__ import annotations

import dataclasses
import email.utils
import hashlib
import logging
import re
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from ingest.document import DOC_TYPES

from ..storage import model_cache
from . import chunk_analysis
from .answer import strip_quoted
from .bm25 import SparseBM25
from ..config import Config
from ..storage.chunking import join_chunks
from ..storage.embedding import DenseEmbedder
from .entities import EntityIndex
from .evidence import EvidenceGraph, shingle_postings
from .index_state import (DIGEST_KEY, DIRTY, FORMAT, GENERATION_KEY, INDEX_FILE, LEGACY_FILES,  # noqa: F401
                          ROUTER_DIGEST_KEY, ROUTER_FILE, STATE_KEY, generation)
from .index_state import config_key as _config_key
from .router import Router, TextModel, load_router
from ..files import (JsonRecords, from_json_array, json_array, read_arrays, record_arrays, text_arrays,
                     texts_from_arrays, write_arrays)
from ..storage.store import Store

log = logging.getLogger(__name__)
_FORMAT = FORMAT
# The metadata keys that name who a document's voice belongs to, most specific first:
# near-duplicates from one voice (a monthly bill, a weekly newsletter) are one piece of
# evidence, not many.
GROUP_KEYS = ("list_id", "invoice_vendor", "from", "pdf_author", "organizer")
# The metadata a document keeps in the index: what answers show and what scoring reads
# (an invoice's item list and the like stay in Chroma).
DOC_FIELDS = ("doc_id", "source", "message_id", "title", "doc_type", "source_date", "source_epoch",
              "date_source", "attachment", "parent_id", "status", "rrule", "tzid", "exdates",
              "event_end", "all_day", "from", "organizer", "invoice_vendor", "uid", "recurrence_id",
              "rdates", "location", "calendar_tz", "date_floating", "issued_date",
              # ... and what the next ingest needs to know it has a document already (read
              # from here instead of a scan of the whole collection: 23-34 s at 100k chunks).
              "content_hash", "file_path", "n_chunks", "imap_uidvalidity")
# Recurring events are expanded this far from their first occurrence.
OCCURRENCE_HORIZON_DAYS = 3660


@dataclasses.dataclass
class QueryIndex:
    fingerprint: str
    chunk_ids: np.ndarray          # str, one per chunk
    chunk_doc: np.ndarray          # int32: the document row of each chunk
    chunk_no: np.ndarray           # int32
    chunk_texts: list[str]
    embeddings: np.ndarray         # float32 (n_chunks, dims), L2-normalised
    docs: list[dict[str, Any]]     # one metadata record per document
    doc_epoch: np.ndarray          # float64 seconds; NaN = undated
    doc_type: np.ndarray           # int16 code into type_names
    doc_cancelled: np.ndarray      # bool: a cancelled calendar event
    doc_issued: np.ndarray         # float64 seconds: when a calendar entry was written (NaN: unknown)
    doc_source: np.ndarray         # int64: a number for the file each document came from
    type_names: tuple[str, ...]
    occ_doc: np.ndarray            # int32: calendar occurrences (document row ...
    occ_start: np.ndarray          # ... start and end, float64 seconds)
    occ_end: np.ndarray
    bm25: SparseBM25
    graph: EvidenceGraph
    dense: DenseEmbedder | None
    kind_names: tuple[str, ...]    # answer kinds (config [answer] spans) ...
    chunk_kinds: np.ndarray        # ... bool (n_chunks, n_kinds): the chunk holds such a span
    doc_chunk_order: np.ndarray    # chunk rows grouped by document, in chunk order ...
    doc_chunk_ptr: np.ndarray      # ... and where each document's rows start (n_docs + 1)
    occ_ptr: np.ndarray            # where each document's occurrences start (n_docs + 1)
    doc_last_end: np.ndarray       # the end of each document's last occurrence (-inf: none)
    entities: EntityIndex          # names in the documents and what they name (entities.py)
    # What an incremental update needs beyond the published arrays (index_update.py): kept
    # in a file of its own that only writers read.
    writer: Any = None

    @property
    def n_chunks(self) -> int:
        return len(self.chunk_ids)

    @property
    def n_docs(self) -> int:
        return len(self.docs)

    def type_code(self, name: str) -> int:
        """The `doc_type` code of a document type, -1 when the store holds none of it."""
        return self.type_names.index(name) if name in self.type_names else -1

    def doc_rows(self, doc: int) -> np.ndarray:
        """The chunk rows of a document, in chunk order."""
        return self.doc_chunk_order[self.doc_chunk_ptr[doc]:self.doc_chunk_ptr[doc + 1]]

    def doc_vector(self, doc: int) -> np.ndarray:
        """What a document is about: its chunks' embeddings summed, of unit length (the dot
        product of two is their cosine)."""
        v = self.embeddings[self.doc_rows(doc)].sum(axis=0).astype(np.float64)
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def states(self, kind: str | None, rows: np.ndarray) -> np.ndarray:
        """Does each chunk's text hold a span of the kind asked for (a date written in it,
        not the document's own date)?"""
        if kind is None or kind not in self.kind_names:
            return np.zeros(len(rows), dtype=bool)
        return self.chunk_kinds[rows, self.kind_names.index(kind)].astype(bool)

    def occurrence_slices(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each document, the rows of its occurrences (flattened) and where each
        document's rows start in that list (documents without occurrences have none)."""
        starts, ends = self.occ_ptr[docs], self.occ_ptr[docs + 1]
        lengths = ends - starts
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(docs) else np.zeros(0, np.int64)
        rows = np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))
        return rows, offsets


def open_index(store: Store, config: Config, notify=None) -> QueryIndex:
    """The store's query index: the published cache when it is there and verified; while a
    writer is at work, the last complete generation; else rebuilt under the writer lock
    (`notify` tells the user when that means waiting for a writer)."""
    path = store.cache_dir / INDEX_FILE
    for attempt in range(config.store.read_retries):
        state = store.state()
        cached = load(path, config, state.get(DIGEST_KEY))
        if cached is not None and cached.fingerprint == state.get(STATE_KEY):
            return cached
        if state.get(STATE_KEY) == DIRTY and store.writer_active():
            if cached is not None:
                return cached   # the snapshot the writer started from, complete and consistent
            break               # nothing to read yet: wait for the writer below
        time.sleep(config.store.read_retry_seconds)  # the file may be being replaced right now
    with store.writer(**({"notify": notify} if notify else {})):
        state = store.state()
        cached = load(path, config, state.get(DIGEST_KEY))
        if cached is not None and cached.fingerprint == state.get(STATE_KEY):
            return cached       # the writer we waited for published it
        log.info("query index missing or stale; rebuilding from the store")
        return rebuild(store, config)


def published(store: Store, config: Config) -> QueryIndex | None:
    """The published index when it is complete, this configuration's and the file the
    store recorded; else None. A writer reads it once: its documents tell the indexer what
    is stored, and `refresh` updates it."""
    state = store.state()
    if state.get(STATE_KEY) in (None, DIRTY):
        return None
    index = load(store.cache_dir / INDEX_FILE, config, state.get(DIGEST_KEY), lazy=False)
    return index if index is not None and index.fingerprint == state.get(STATE_KEY) else None


def mark_dirty(store: Store) -> str | None:
    """Say the index is out of date before writing; returns the key that was recorded."""
    previous = store.state().get(STATE_KEY)
    store.set_state(**{STATE_KEY: DIRTY})
    return previous


def restore(store: Store, previous: str | None) -> None:
    """Nothing was written after all: the recorded index is still good."""
    store.set_state(**{STATE_KEY: previous or DIRTY})


def rebuild(store: Store, config: Config) -> QueryIndex:
    """Build from the store and publish (the caller holds the writer lock)."""
    index = build(store, config)
    log.info("query index built: %d chunks of %d documents", index.n_chunks, index.n_docs)
    publish(store, config, index)
    return index


def refresh(store: Store, config: Config, previous: str | None, changes, known: QueryIndex | None = None
            ) -> QueryIndex:
    """After a writer's changes (`changes`: a store ChangeLog) to the store whose published
    index was `previous`: that index updated in place when it can be (index_update.py),
    else rebuilt; published either way. `known`: the index already in memory, if any (it
    is used only when it is the published one)."""
    if config.index.incremental and previous and previous != DIRTY:
        from .index_update import load_writer, update

        old = known if known is not None and known.fingerprint == previous else None
        if old is None:
            old = load(store.cache_dir / INDEX_FILE, config, store.state().get(DIGEST_KEY), lazy=False)
            old = old if old is not None and old.fingerprint == previous else None
        if old is not None and old.writer is None:
            old.writer = load_writer(store, old)
        started = time.perf_counter()
        index = update(store, config, old, changes) if old is not None else None
        if index is not None:
            log.info("query index updated in %.2f s: %d chunks of %d documents",
                     time.perf_counter() - started, index.n_chunks, index.n_docs)
            publish(store, config, index)
            return index
    return rebuild(store, config)


def publish(store: Store, config: Config, index: QueryIndex) -> None:
    """The cache files first, the state that names them last."""
    from .index_update import WRITER_DIGEST_KEY, WRITER_FILE

    digest = write_arrays(store.cache_dir / INDEX_FILE, to_arrays(index, config))
    writer = (write_arrays(store.cache_dir / WRITER_FILE, index.writer.to_arrays(index.fingerprint))
              if index.writer is not None else None)
    router = _published_router(store, config)
    store.set_state(**{STATE_KEY: index.fingerprint, DIGEST_KEY: digest, ROUTER_DIGEST_KEY: router,
                       WRITER_DIGEST_KEY: writer, GENERATION_KEY: generation(store.state()) + 1})


def _published_router(store: Store, config: Config) -> str:
    """The digest of the router file to publish: the one published already when it is this
    configuration's (fitting again would cost a second and scikit-learn's import at every
    ingest), else a freshly fitted one's."""
    digest = store.state().get(ROUTER_DIGEST_KEY)
    arrays = read_arrays(store.cache_dir / ROUTER_FILE, digest)
    if arrays is not None and TextModel.from_arrays(arrays, config.router) is not None:
        return digest
    return write_arrays(store.cache_dir / ROUTER_FILE, load_router(config.router).text_model_.to_arrays())


def open_router(store: Store, config: Config) -> Router:
    """The router published with the index when it is the file the store recorded and was
    fitted with these settings; else the configured one, fitted here."""
    arrays = read_arrays(store.cache_dir / ROUTER_FILE, store.state().get(ROUTER_DIGEST_KEY))
    model = TextModel.from_arrays(arrays, config.router) if arrays is not None else None
    return Router(config.router).with_model(model) if model is not None else load_router(config.router)


class _ChunkRow(NamedTuple):
    """What scoring needs of one chunk beyond its text and vector."""
    doc_id: str
    number: int
    title: str
    group: str           # its sender or series: near-duplicates of one voice collapse
    content_hash: str
    parent_id: str       # the message an attachment came with


@dataclasses.dataclass
class _Scan:
    """The store's chunks, sorted by id, and one metadata record per document."""
    ids: list[str]
    texts: list[str]
    rows: list[_ChunkRow]
    embeddings: np.ndarray
    doc_meta: dict[str, dict[str, Any]]


def build(store: Store, config: Config) -> QueryIndex:
    # The model first: when its cache is stale (a crash during a refit) opening it refits
    # and rewrites every vector, and the index must be read from the rewritten ones.
    dense = model_cache.open_model(store, config.embedding, config.text)
    scan = _scan(store, config.embedding.dims)
    docs, chunk_doc = _documents(scan)
    chunk_no = np.asarray([r.number for r in scan.rows], dtype=np.int32)
    doc_arrays = document_arrays(docs, chunk_doc, chunk_no, config)
    caps, total = Counter(), Counter()
    with chunk_analysis.Workers(config, chunk_analysis.workers_for(len(scan.texts), config)) as workers:
        analysis = chunk_analysis.analyse(len(scan.texts), analysis_texts(scan.rows, scan.texts, chunk_doc, docs, config),
                                          config, workers)
        entities = chunk_analysis.entities(
            len(docs), whole_documents(scan.texts, docs, doc_arrays["doc_chunk_order"], doc_arrays["doc_chunk_ptr"]),
            config, caps, total, workers)
    bm25, graph, postings = _word_indexes(analysis, scan, chunk_doc, config)
    kind_names, chunk_kinds = analysis.kind_names, analysis.kinds
    from .index_update import WriterState

    writer = WriterState([r.content_hash for r in scan.rows], [r.group for r in scan.rows], *postings,
                         caps=caps, total=total)
    return QueryIndex(
        fingerprint=_fingerprint(scan.ids, writer.content_hash, dense if scan.ids else None, scan.embeddings),
        chunk_ids=np.asarray(scan.ids, dtype=object),
        chunk_doc=chunk_doc, chunk_no=chunk_no, chunk_texts=scan.texts, embeddings=scan.embeddings,
        docs=docs, bm25=bm25, graph=graph, dense=dense if scan.ids else None, kind_names=kind_names,
        chunk_kinds=chunk_kinds, entities=entities, writer=writer, **doc_arrays)


def document_arrays(docs: list[dict[str, Any]], chunk_doc: np.ndarray, chunk_no: np.ndarray,
                    config: Config, previous: tuple[QueryIndex, np.ndarray] | None = None) -> dict[str, Any]:
    """What the index derives from the document records alone (dates, types, calendar
    occurrences) and the chunk-to-document map. `previous`: an index and each document's
    row in it, -1 for a document whose record or whose series changed (index_update.py);
    the others' fields and occurrences are taken from it, not derived again (0.4 s at
    100,000 documents, most of it expanding calendar recurrences)."""
    type_names = tuple(DOC_TYPES) + tuple(sorted({str(d.get("doc_type")) for d in docs} - set(DOC_TYPES)))
    type_code = {name: code for code, name in enumerate(type_names)}
    undated_sources = set(config.scoring.undated_date_sources)
    n = len(docs)
    doc_epoch, doc_type = np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int16)
    doc_cancelled, doc_issued = np.empty(n, dtype=bool), np.empty(n, dtype=np.float64)
    fresh = np.arange(n)
    if previous is not None:
        old, was = previous
        fresh, same = np.flatnonzero(was < 0), np.flatnonzero(was >= 0)
        code_of_old = np.array([type_code.get(name, -1) for name in old.type_names], dtype=np.int16)
        for mine, theirs in ((doc_epoch, old.doc_epoch), (doc_cancelled, old.doc_cancelled),
                             (doc_issued, old.doc_issued)):
            mine[same] = theirs[was[same]]
        doc_type[same] = code_of_old[old.doc_type[was[same]]]
    records = [docs[i] for i in fresh]
    doc_epoch[fresh] = [float(d["source_epoch"]) if "source_epoch" in d and d.get("date_source") not in undated_sources
                        else np.nan for d in records]
    doc_type[fresh] = [type_code[str(d.get("doc_type"))] for d in records]
    doc_cancelled[fresh] = [str(d.get("status", "")).upper() == "CANCELLED" for d in records]
    doc_issued[fresh] = [_epoch_of(d.get("issued_date")) for d in records]
    calendar = np.flatnonzero(doc_type == type_code["calendar_event"])
    occ_doc, occ_start, occ_end = _occurrences(docs, calendar, doc_epoch, config, previous)   # sorted by document
    doc_chunk_order = np.lexsort((chunk_no, chunk_doc))
    doc_last_end = np.full(len(docs), -np.inf)
    np.maximum.at(doc_last_end, occ_doc, occ_end)
    # The events of one calendar feed share their file; the messages of an mbox each have
    # their own source. Numbered here so a question never reads every record for it.
    doc_source = np.unique(np.array([str(d.get("source", "")) for d in docs], dtype=object),
                           return_inverse=True)[1].astype(np.int64).reshape(len(docs))
    return dict(doc_epoch=doc_epoch, doc_type=doc_type, doc_cancelled=doc_cancelled, doc_issued=doc_issued,
                doc_source=doc_source,
                type_names=type_names,
                occ_doc=occ_doc, occ_start=occ_start, occ_end=occ_end, doc_chunk_order=doc_chunk_order,
                doc_chunk_ptr=_pointers(chunk_doc[doc_chunk_order], len(docs)),
                occ_ptr=_pointers(occ_doc, len(docs)), doc_last_end=doc_last_end)


def _scan(store: Store, dims: int) -> _Scan:
    """Per chunk only what scoring needs; whole metadata records only per document (at
    100,000 chunks a record per chunk would cost hundreds of MB for nothing)."""
    ids, texts, vectors, rows = [], [], [], []
    doc_meta: dict[str, dict[str, Any]] = {}
    for chunk_id, text, meta, vector in store.scan_with_embeddings():
        doc_id = str(meta.get("doc_id") or chunk_id.rsplit(":", 1)[0])
        number = int(meta.get("chunk_no", 0))
        ids.append(chunk_id)
        texts.append(text or "")
        vectors.append(np.asarray(vector, dtype=np.float32))
        rows.append(_ChunkRow(doc_id, number, str(meta.get("title", "")), _group(meta),
                              str(meta.get("content_hash", "")), str(meta.get("parent_id") or "")))
        if number == 0 or doc_id not in doc_meta:
            doc_meta[doc_id] = {key: meta[key] for key in DOC_FIELDS if key in meta}
    order = sorted(range(len(ids)), key=ids.__getitem__)
    embeddings = (np.stack([vectors[i] for i in order]).reshape(len(ids), dims)
                  if ids else np.zeros((0, dims), dtype=np.float32))
    return _Scan([ids[i] for i in order], [texts[i] for i in order], [rows[i] for i in order],
                 embeddings, doc_meta)


def _documents(scan: _Scan) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The documents in the order their first chunk comes, and each chunk's document row.
    The scan's per-document records move into the list (and out of the scan)."""
    doc_rows: dict[str, int] = {}
    docs: list[dict[str, Any]] = []
    chunk_doc = np.empty(len(scan.ids), dtype=np.int32)
    for i, row_meta in enumerate(scan.rows):
        row = doc_rows.get(row_meta.doc_id)
        if row is None:
            row = doc_rows[row_meta.doc_id] = len(docs)
            docs.append(scan.doc_meta[row_meta.doc_id])
        chunk_doc[i] = row
    scan.doc_meta = {}
    return docs, chunk_doc


def _word_indexes(analysis: chunk_analysis.ChunkAnalysis, scan: _Scan, chunk_doc: np.ndarray, config: Config
                  ) -> tuple[SparseBM25, EvidenceGraph, tuple[np.ndarray, np.ndarray]]:
    """BM25 over each chunk's words, the evidence graph over its shingles, and the shingle
    sets kept for incremental updates."""
    bm25 = SparseBM25(config.bm25).fit(analysis.tokens)
    graph = EvidenceGraph(config.graph).fit(analysis.words, [r.group for r in scan.rows], docs=chunk_doc)
    return bm25, graph, shingle_postings(analysis.words, config.graph.shingle_size)


def analysis_texts(rows: list[_ChunkRow], texts: list[str], chunk_doc: np.ndarray, docs: list[dict[str, Any]],
                   config: Config) -> Callable[[int, int], chunk_analysis.Texts]:
    """What BM25, the evidence graph and the answer-span patterns read of chunks a..b-1
    (`chunk_doc`: each chunk's row in `docs`), as chunk_analysis.analyse asks for them."""
    # An attachment with almost no words of its own (a photo: a file name and a camera) is
    # found by what its message says: its subject joins its words for BM25.
    subjects = {str(d.get("doc_id")): str(d.get("title", "")) for d in docs}
    short = config.scoring.attachment_context_chars
    # Who wrote a message says what it is about as much as its subject does: a note from
    # "Riverside Animal Clinic" is from the vet although its text never says so.
    senders: dict[int, str] = {}

    def for_bm25(r: _ChunkRow, t: str, doc: int) -> str:
        sender = senders.get(doc)
        if sender is None:
            sender = senders[doc] = sender_names(str(docs[doc].get("from") or ""))
        return (model_cache.embed_text(r.title, t)
                + (f"\n{subjects.get(r.parent_id, '')}" if r.parent_id and len(t) < short else "")
                + (f"\n{sender}" if sender else ""))

    def of(a: int, b: int) -> chunk_analysis.Texts:
        block_rows, block_texts = rows[a:b], texts[a:b]
        return ([for_bm25(r, t, int(d)) for r, t, d in zip(block_rows, block_texts, chunk_doc[a:b])],
                # The graph reads the text without the quoted lines of replies.
                [unquoted(model_cache.embed_text(r.title, t)) for r, t in zip(block_rows, block_texts)],
                list(block_texts))
    return of


def whole_documents(texts: list[str], docs: list[dict[str, Any]], order: np.ndarray, ptr: np.ndarray
                    ) -> Callable[[int, int], tuple[list[str], list[dict[str, Any]]]]:
    """Documents a..b-1's whole texts (their chunks joined, overlaps once) and records, as
    the entity index reads them."""
    def of(a: int, b: int) -> tuple[list[str], list[dict[str, Any]]]:
        return (["\n".join(join_chunks([texts[i] for i in order[ptr[d]:ptr[d + 1]]])) for d in range(a, b)],
                docs[a:b])
    return of


# The lines a photo's ingestor writes from EXIF (its file name, its camera): every photo
# from one phone shares them, which says nothing about what the photos show.
_PHOTO_HEADER = re.compile(r"^(?:Photo \S.*|Camera: .*)$", re.MULTILINE)


def unquoted(text: str) -> str:
    """What the evidence graph compares: not a reply's quoted lines (an echo of the message
    it answers, not a second voice), not a photo's file-name and camera lines."""
    return _PHOTO_HEADER.sub("", strip_quoted(text))


def sender_names(from_header: str) -> str:
    """The display names of a From header ("Riverside Animal Clinic"), not the addresses."""
    return " ".join(name for name, _ in email.utils.getaddresses([from_header]) if name)


def _pointers(sorted_keys: np.ndarray, n: int) -> np.ndarray:
    """Offsets of each key 0..n-1 in a sorted key array (CSR-style row pointers)."""
    return np.searchsorted(sorted_keys, np.arange(n + 1)).astype(np.int64)


def _group(meta: dict[str, Any]) -> str:
    for key in GROUP_KEYS:
        value = str(meta.get(key) or "").strip().lower()
        if value:
            return f"{key}:{_address(value)}"
    # No named voice: the file is the voice (one calendar feed, one folder of notes is
    # one writer); a file holding one document is a voice of its own anyway.
    return f"file:{meta.get('file_path') or meta.get('doc_id', '')}"


def _address(value: str) -> str:
    """The address inside 'Name <addr>' (display names vary from message to message)."""
    if "<" in value and ">" in value:
        return value[value.rindex("<") + 1:value.rindex(">")]
    return value


def _occurrences(docs: list[dict[str, Any]], calendar: np.ndarray, doc_epoch: np.ndarray, config: Config,
                 previous: tuple[QueryIndex, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every occurrence of every dated calendar event (of rows `calendar`, ascending) as
    (document row, start, end) seconds. An occurrence an override (RECURRENCE-ID) moved or
    cancelled belongs to the override. `previous`: as for `document_arrays`."""
    rows, starts, ends = [], [], []
    overridden: dict[str, list[Any]] = {}
    for row in calendar.tolist():
        doc = docs[row]
        if doc.get("uid") and doc.get("recurrence_id"):
            slot = parse_iso(doc["recurrence_id"])
            if slot is not None:
                overridden.setdefault(str(doc["uid"]), []).append(slot)
    for row in calendar.tolist():
        doc = docs[row]
        if np.isnan(doc_epoch[row]):
            continue
        if previous is not None and previous[1][row] >= 0:
            old, was = previous[0], previous[1][row]
            span = slice(old.occ_ptr[was], old.occ_ptr[was + 1])
            rows.extend([row] * (span.stop - span.start))
            starts.extend(old.occ_start[span].tolist())
            ends.extend(old.occ_end[span].tolist())
            continue
        start = datetime.fromtimestamp(doc_epoch[row], tz=timezone.utc)
        duration = _duration(doc, start)
        occurrences = [start]
        if doc.get("rrule") or doc.get("rdates"):
            occurrences = _expand(doc, start, config, overridden.get(str(doc.get("uid")), [])) or [start]
        for occ in occurrences:
            rows.append(row)
            starts.append(occ.timestamp())
            ends.append((occ + duration).timestamp())
    return (np.asarray(rows, dtype=np.int32), np.asarray(starts, dtype=np.float64),
            np.asarray(ends, dtype=np.float64))


def _duration(doc: dict[str, Any], start: datetime) -> timedelta:
    end = parse_iso(doc.get("event_end"))
    if end is not None and not isinstance(end, datetime):   # an all-day DTEND
        end = datetime(end.year, end.month, end.day, tzinfo=start.tzinfo)
    if end is None or end <= start:
        return timedelta(days=1) if doc.get("all_day") else timedelta(0)
    return end - start


def _expand(doc: dict[str, Any], start: datetime, config: Config, overridden: list[Any]) -> list[datetime]:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from ingest.calendar import expand_occurrences  # (loads icalendar: only an index build needs it)

    try:
        zone = ZoneInfo(str(doc.get("tzid"))) if doc.get("tzid") else timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        zone = timezone.utc
    local_start = start.astimezone(zone)
    exdates = [d for d in (parse_iso(x) for x in str(doc.get("exdates") or "").split(",")) if d]
    rdates = [d for d in (parse_iso(x) for x in str(doc.get("rdates") or "").split(",")) if d]
    half = OCCURRENCE_HORIZON_DAYS // 2
    try:
        return expand_occurrences(local_start, str(doc.get("rrule") or ""), local_start + timedelta(days=half),
                                  half, config.ingest.calendar.max_occurrences * 4,
                                  exdates + overridden, rdates)
    except ValueError:
        return []


def _epoch_of(value: Any) -> float:
    """Seconds of an ISO timestamp; NaN when there is none."""
    parsed = parse_iso(value) if value else None
    return parsed.timestamp() if isinstance(parsed, datetime) else np.nan


def parse_iso(value: Any):
    """A stored ISO date (a bare day) or time (aware; a zoneless one read as UTC), or None."""
    from datetime import date

    if not value:
        return None
    text = str(value)
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _fingerprint(ids: list[str], hashes: list[str], dense: DenseEmbedder | None,
                 embeddings: np.ndarray) -> str:
    """What the index was built from: chunk ids and content, the model, and the vectors
    (an index over vectors of another model is another index)."""
    digest = hashlib.sha256(str(len(ids)).encode())
    for chunk_id, content_hash in zip(ids, hashes):
        digest.update(f"{chunk_id}\x1f{content_hash}\x1e".encode())
    digest.update((dense.fingerprint_ if dense is not None else "").encode())
    digest.update(np.ascontiguousarray(embeddings, dtype=np.float32).tobytes())
    return digest.hexdigest()[:16]


# ---- the cache file: arrays and JSON text, never a pickle ----------------------------------
_ARRAYS = ("chunk_doc", "chunk_no", "embeddings", "doc_epoch", "doc_type", "doc_cancelled", "doc_issued", "doc_source",
           "occ_doc", "occ_start", "occ_end", "chunk_kinds", "doc_chunk_order", "doc_chunk_ptr",
           "occ_ptr", "doc_last_end")
_PARTS = (("bm25.", SparseBM25, "bm25"), ("graph.", EvidenceGraph, "graph"),
          ("dense.", DenseEmbedder, "embedding"))


def to_arrays(index: QueryIndex, config: Config) -> dict[str, np.ndarray]:
    out = {"format": np.array(_FORMAT), "config": np.array(_config_key(config)),
           "fingerprint": np.array(index.fingerprint),
           "chunk_ids": json_array(list(index.chunk_ids)),
           "type_names": json_array(index.type_names),
           "kind_names": json_array(index.kind_names)}
    out["chunk_texts"], out["chunk_text_ends"] = text_arrays(index.chunk_texts)
    out["docs"], out["doc_ends"] = record_arrays(index.docs)
    out.update({f"entities.{k}": v for k, v in index.entities.to_arrays().items()})
    out.update({name: getattr(index, name) for name in _ARRAYS})
    for prefix, _cls, attr in _PARTS:
        part = getattr(index, prefix[:-1])
        if part is not None:
            out.update({prefix + k: v for k, v in part.to_arrays().items()})
    return out


def load(path: Path, config: Config, expected_digest: str | None, lazy: bool = True) -> QueryIndex | None:
    """The cached index if `path` is the file the store published (its digest) and its
    arrays fit together; None means rebuild. `lazy`: the document records are decoded as
    they are read (a reader's questions look at a few); a writer, which reads every one,
    has them decoded at once."""
    arrays = read_arrays(path, expected_digest)
    if arrays is None:
        return None
    try:
        return from_arrays(arrays, config, lazy)
    except (KeyError, ValueError, TypeError, IndexError) as err:
        log.info("query index cache unreadable (%s); rebuilding", err)
        return None


def from_arrays(arrays: dict[str, np.ndarray], config: Config, lazy: bool = True) -> QueryIndex | None:
    if int(arrays["format"]) != _FORMAT or str(arrays["config"]) != _config_key(config):
        return None
    parts = {}
    for prefix, cls, section in _PARTS:
        sub = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
        parts[prefix[:-1]] = cls.from_arrays(sub, getattr(config, section), *(
            (config.text,) if cls is DenseEmbedder else ())) if sub else None
    chunk_ids = from_json_array(arrays["chunk_ids"])
    n = len(chunk_ids)
    if parts["bm25"] is None or parts["graph"] is None or (n and parts["dense"] is None):
        return None
    index = QueryIndex(
        fingerprint=str(arrays["fingerprint"]), chunk_ids=np.asarray(chunk_ids, dtype=object),
        chunk_texts=texts_from_arrays(arrays["chunk_texts"], arrays["chunk_text_ends"]),
        docs=JsonRecords(arrays["docs"], arrays["doc_ends"]) if lazy else from_json_array(arrays["docs"]),
        type_names=tuple(from_json_array(arrays["type_names"])),
        kind_names=tuple(from_json_array(arrays["kind_names"])),
        entities=EntityIndex.from_arrays({k[len("entities."):]: v for k, v in arrays.items()
                                          if k.startswith("entities.")}),
        **{name: arrays[name] for name in _ARRAYS}, **parts)
    return index if _consistent(index, config) else None


def _consistent(ix: QueryIndex, config: Config) -> bool:
    """Do the arrays describe one corpus of n chunks and m documents (a file of the right
    format but the wrong shape is rebuilt, not indexed into)?"""
    n, m, n_occ = len(ix.chunk_ids), len(ix.docs), len(ix.occ_doc)
    shapes = {"chunk_doc": (n,), "chunk_no": (n,), "embeddings": (n, config.embedding.dims),
              "doc_epoch": (m,), "doc_type": (m,), "doc_cancelled": (m,), "doc_issued": (m,), "doc_source": (m,),
              "occ_start": (n_occ,),
              "occ_end": (n_occ,), "chunk_kinds": (n, len(ix.kind_names)),
              "doc_chunk_order": (n,), "doc_chunk_ptr": (m + 1,), "occ_ptr": (m + 1,),
              "doc_last_end": (m,)}
    if any(getattr(ix, name).shape != shape for name, shape in shapes.items()):
        return False
    if not all(isinstance(x, str) for x in ix.chunk_ids) or len(ix.chunk_texts) != n \
            or not all(isinstance(t, str) for t in ix.chunk_texts) \
            or not (isinstance(ix.docs, JsonRecords) or all(isinstance(d, dict) for d in ix.docs)):
        return False
    for name, bound in (("chunk_doc", m), ("occ_doc", m), ("doc_chunk_order", n), ("doc_type", len(ix.type_names)),
                        ("doc_source", m)):
        values = getattr(ix, name)
        if values.dtype.kind not in "iu" or (values.size and not 0 <= values.min() <= values.max() < bound):
            return False
    if ix.doc_chunk_ptr.dtype.kind not in "iu" or ix.occ_ptr.dtype.kind not in "iu":
        return False
    if ix.entities.rec_doc.size and not 0 <= ix.entities.rec_doc.min() <= ix.entities.rec_doc.max() < m:
        return False
    return ix.bm25.weights_.shape[0] == n and ix.graph.adjacency_.shape == (n, n)
