"""The store: one Chroma collection of chunks (the single source of truth) and a small
collection of ingested files. The only module that imports chromadb.

`location` is a folder for the embedded PersistentClient, or http(s)://HOST:PORT for a
Chroma server (`chroma run`). Every record carries our own embedding: a collection is
opened without an embedding function, so Chroma can never fall back to downloading one.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import urlparse

import numpy as np

from ..config import StoreSection
from .writer_lock import LEASE_KEY, FileLock, Holder, LeaseLock, StoreBusy, stderr_notice

__all__ = ["Store", "StoreError", "StoreMissing", "StoreWriteError", "StoreBusy", "default_location",
           "is_server"]

STORE_ENV = "BRAINQUERY_STORE"
# The layout of what a store holds (collections, metadata keys, caches). A writer records it
# in the collection's state; a version that finds a higher number refuses the store rather
# than misread it. Bump it when an older version could no longer read a store written now.
STORE_FORMAT = 1
FORMAT_KEY = "store_format"
DATABASE_FILE = "chroma.sqlite3"
_SOURCE_VECTOR = [1.0]  # file records need a vector; they are looked up by id, never queried


class StoreError(RuntimeError):
    """The store cannot be opened or written."""


class StoreMissing(StoreError):
    """A command that only reads was pointed at a place holding no store (a typo)."""

    def __init__(self, location: str):
        super().__init__(f"no Brain Query store at {location}")
        self.location = location


class StoreWriteError(StoreError):
    """A write failed part-way (a full disk); what was written is completed by the next run."""


def _writes(method):
    """A write that fails (a full disk: Chroma's "Error in compaction") is a StoreError
    with one line to show, not a Rust-side traceback."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if self.read_only:
            raise StoreError(f"the store at {self.location} was opened read-only")
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            raise
        except Exception as err:  # chromadb's errors share no base class worth naming
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise StoreWriteError(f"cannot write the store at {self.location}: {first}") from err
    return wrapper


def default_location() -> str:
    from platformdirs import user_data_dir

    return os.environ.get(STORE_ENV) or str(Path(user_data_dir("brainquery")) / "store")


def is_server(location: str) -> bool:
    return location.startswith(("http://", "https://"))


# What Chroma says when another process is creating the same new store at that moment.
_CREATION_RACES = ("locked", "already exists", "has no attribute 'bindings'")


@dataclasses.dataclass
class ChangeLog:
    """The chunk ids a writer touched: upserted, deleted, and given new vectors only (a
    refit of the embedding model rewrites every vector)."""
    written: set[str] = dataclasses.field(default_factory=set)
    deleted: set[str] = dataclasses.field(default_factory=set)
    revectored: set[str] = dataclasses.field(default_factory=set)


class Store:
    """`read_only`: the commands that only read (ls, ask, serve, check) open the collections
    without creating them and never write; a place with no store raises StoreMissing. An
    embedded store opened read-only loads chromadb only when a read needs it: its state
    (which caches are published) is read from chroma.sqlite3 directly (`_database_state`).
    (Chroma's embedded client itself opens chroma.sqlite3 read-write and creates it when it
    is missing: it has no read-only mode.)"""

    def __init__(self, location: str | os.PathLike | None, cfg: StoreSection,
                 read_only: bool = False):
        self.location = str(location or default_location())
        self.cfg = cfg
        scheme = urlparse(self.location).scheme
        if "://" in self.location and not is_server(self.location):
            # Only http(s) names a server; anything else with a scheme is no folder either
            # (`ftp://x` would otherwise become a folder named "ftp:").
            raise StoreError(f"a server store needs http:// or https://, got {scheme or self.location}://")
        self.read_only = read_only
        self._state_lock = threading.Lock()  # the lease renewer and the writer share state
        self._client = self._chunks = self._sources = None
        self._deferred = False  # read-only and embedded: chromadb not loaded yet
        self.batch_size = cfg.batch_size
        # What the writes since `record_changes()` touched: the query index updates only
        # those chunks instead of re-reading the collection.
        self.changes: ChangeLog | None = None
        try:
            if read_only and not is_server(self.location):
                self._open_embedded_reader()
            else:
                self._open_collections()
        except StoreError:
            raise
        except Exception as err:  # chromadb raises connection, value and Rust-side errors
            raise StoreError(f"cannot open the store at {self.location}: {err}") from err
        if read_only and not self._deferred and self._chunks is None and not self._lost_database():
            raise StoreMissing(self.location)
        self._lock = (LeaseLock(lambda: self.state().get(LEASE_KEY), self._set_lease,
                                cfg.lease_seconds, cfg.lease_settle_seconds)
                      if is_server(self.location) else FileLock(Path(self.location)))

    def _open_embedded_reader(self) -> None:
        database = Path(self.location) / DATABASE_FILE
        if not database.is_file():
            if not self._lost_database():
                raise StoreMissing(self.location)
            # A store that lost its database: opened (Chroma creates an empty one) so that
            # the reader can say what happened instead of looking empty.
            self._open_collections()
            return
        try:
            state = self._database_state()
        except (sqlite3.Error, _Unexpected):
            self._open_collections()  # another Chroma layout: ask Chroma itself
            return
        if state is None:
            raise StoreMissing(self.location)
        _check_format(self.location, state)
        self._deferred = True

    def _lost_database(self) -> bool:
        """Caches of ours without the database they describe (chroma.sqlite3 deleted)."""
        return not is_server(self.location) and (Path(self.location) / "brainquery-cache").is_dir()

    def _database_state(self) -> dict[str, Any] | None:
        """The chunks collection's metadata read straight from chroma.sqlite3, read-only
        (None: no such collection). This spares a reader the second it takes to load
        chromadb; tests/test_store.py checks it against Chroma's own answer, and a layout
        other than the one expected raises _Unexpected (then Chroma is asked)."""
        uri = (Path(self.location).resolve() / DATABASE_FILE).as_uri() + "?mode=ro"
        # A writer's transaction is waited for as long as a reader waits for an index.
        wait = self.cfg.read_retries * self.cfg.read_retry_seconds
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=wait)) as db:
            try:
                rows = db.execute(
                    "SELECT c.id, m.key, m.str_value, m.int_value, m.float_value, m.bool_value "
                    "FROM collections c JOIN databases d ON d.id = c.database_id "
                    "LEFT JOIN collection_metadata m ON m.collection_id = c.id "
                    "WHERE c.name = ? AND d.name = ? AND d.tenant_id = ?",
                    (self.cfg.collection, _CHROMA_DATABASE, _CHROMA_TENANT)).fetchall()
            except sqlite3.OperationalError as err:  # no such table or column
                raise _Unexpected(str(err)) from err
        if not rows:
            return None
        state: dict[str, Any] = {}
        for _id, key, text, integer, real, boolean in rows:
            if key is None:
                continue  # a collection without metadata
            values = [v for v in (text, integer, real) if v is not None]
            if boolean is not None:
                values.append(bool(boolean))
            if len(values) != 1:
                raise _Unexpected(f"metadata key {key!r} holds {len(values)} values")
            state[key] = values[0]
        return state

    def _open_deferred(self) -> None:
        """Load chromadb now: a read needs more than the state."""
        if self._deferred:
            self._deferred = False
            self._open_collections()

    def _open_collections(self) -> None:
        """Two processes creating one new store at once race inside Chroma's SQLite
        ("database is locked", or "table collections already exists" when both ran its
        first migration): the loser tries again."""
        for attempt in range(self.cfg.read_retries):
            try:
                self._client = self._connect()
                self._chunks = self._collection(self.cfg.collection, {"hnsw": {"space": "cosine"}})
                self._sources = self._collection(self.cfg.sources_collection, None)
                self.batch_size = max(1, min(self.cfg.batch_size, self._client.get_max_batch_size()))
                if self._chunks is not None:
                    _check_format(self.location, self._chunks.metadata or {})
                return
            except Exception as err:
                if not any(race in str(err) for race in _CREATION_RACES) or attempt == self.cfg.read_retries - 1:
                    raise
                # Chroma caches a client's system before starting it: after a failed start
                # the next attempt would get the broken one ("no attribute 'bindings'").
                from chromadb.api.shared_system_client import SharedSystemClient

                SharedSystemClient.clear_system_cache()
                time.sleep(self.cfg.read_retry_seconds)

    def _collection(self, name: str, configuration: dict | None):
        if not self.read_only:
            return self._client.get_or_create_collection(name, configuration=configuration,
                                                         embedding_function=None)
        try:
            return self._client.get_collection(name, embedding_function=None)
        except Exception:  # chromadb's NotFoundError: nothing was ever written here
            return None

    def _connect(self):
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if is_server(self.location):
            url = urlparse(self.location)
            if not url.hostname or not url.port:
                raise StoreError(f"a server store needs http://HOST:PORT, got {self.location}")
            return chromadb.HttpClient(host=url.hostname, port=url.port,
                                       ssl=url.scheme == "https", settings=settings)
        Path(self.location).mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=self.location, settings=settings)

    @property
    def cache_dir(self) -> Path:
        """Where derived caches (the embedding model) live: beside the embedded store's data,
        or in the user cache folder for a server."""
        if not is_server(self.location):
            return Path(self.location) / "brainquery-cache" / self.cfg.collection
        from platformdirs import user_cache_dir

        key = hashlib.sha256(f"{self.location}|{self.cfg.collection}".encode()).hexdigest()[:16]
        return Path(user_cache_dir("brainquery")) / "servers" / key

    # ---- the writer lock -------------------------------------------------------------
    def writer(self, wait: bool = True, notify: Callable[[str], None] = stderr_notice
               ) -> contextlib.AbstractContextManager:
        """Hold the store's writer lock (see writer_lock); raises StoreBusy when another
        process holds it and `wait` is false, else calls `notify` once and waits."""
        if self.read_only:
            self._open_writable()  # a reader that must repair the index becomes a writer
        return self._holding(wait, notify)

    @contextlib.contextmanager
    def _holding(self, wait: bool, notify: Callable[[str], None]) -> Iterator[None]:
        with self._lock.hold(wait, notify, self.cfg.lock_poll_seconds):
            state = self.state()
            _check_format(self.location, state)  # another version may have written meanwhile
            if state.get(FORMAT_KEY) != STORE_FORMAT:
                self.set_state(**{FORMAT_KEY: STORE_FORMAT})
            yield

    def _open_writable(self) -> None:
        self.read_only = self._deferred = False
        try:
            self._open_collections()
        except Exception as err:
            raise StoreError(f"cannot open the store at {self.location} for writing: {err}") from err

    def writer_active(self) -> Holder | None:
        """The live holder of the writer lock, or None."""
        return self._lock.holder()

    def _set_lease(self, value: str) -> None:
        self.set_state(**{LEASE_KEY: value})

    # ---- chunks -------------------------------------------------------------------
    def count(self) -> int:
        self._open_deferred()
        return self._chunks.count() if self._chunks is not None else 0

    def record_changes(self) -> "ChangeLog":
        """From now on, note the ids every write touches (until `stop_recording`)."""
        self.changes = ChangeLog()
        return self.changes

    def stop_recording(self) -> None:
        self.changes = None

    @_writes
    def upsert(self, ids: Sequence[str], documents: Sequence[str],
               metadatas: Sequence[dict[str, Any]], embeddings: np.ndarray) -> None:
        if self.changes is not None:
            self.changes.written.update(ids)
        for start in range(0, len(ids), self.batch_size):
            end = start + self.batch_size
            self._chunks.upsert(ids=list(ids[start:end]), documents=list(documents[start:end]),
                                metadatas=list(metadatas[start:end]),
                                embeddings=np.asarray(embeddings[start:end], dtype=np.float32))

    @_writes
    def update_embeddings(self, ids: Sequence[str], embeddings: np.ndarray) -> None:
        if self.changes is not None:
            self.changes.revectored.update(ids)
        for start in range(0, len(ids), self.batch_size):
            end = start + self.batch_size
            self._chunks.update(ids=list(ids[start:end]),
                                embeddings=np.asarray(embeddings[start:end], dtype=np.float32))

    @_writes
    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        if self.changes is not None:
            self.changes.deleted.update(ids)
        for start in range(0, len(ids), self.batch_size):
            self._chunks.delete(ids=ids[start:start + self.batch_size])

    def get_with_embeddings(self, ids: Sequence[str]
                            ) -> Iterator[tuple[str, str, dict[str, Any], np.ndarray]]:
        """(id, text, metadata, vector) of the chunks of these ids that are stored."""
        self._open_deferred()
        ids = list(ids)
        for start in range(0, len(ids), self.batch_size):
            page = self._chunks.get(ids=ids[start:start + self.batch_size],
                                    include=["documents", "metadatas", "embeddings"])
            for item in zip(page["ids"], page["documents"], page["metadatas"], page["embeddings"]):
                yield item[0], item[1] or "", item[2] or {}, item[3]

    def scan(self, include: Sequence[str] = ("metadatas",), where: dict | None = None
             ) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
        """(id, document, metadata) for every chunk matching `where`, page by page."""
        self._open_deferred()
        for page in _pages(self._chunks, self.batch_size, include, where):
            ids = page["ids"]
            docs = page.get("documents") or [None] * len(ids)
            metas = page.get("metadatas") or [{}] * len(ids)
            for item in zip(ids, docs, metas):
                yield item[0], item[1], item[2] or {}

    def scan_with_embeddings(self) -> Iterator[tuple[str, str, dict[str, Any], np.ndarray]]:
        """(id, text, metadata, vector) for every chunk, page by page."""
        self._open_deferred()
        for page in _pages(self._chunks, self.batch_size, ("documents", "metadatas", "embeddings")):
            for item in zip(page["ids"], page["documents"], page["metadatas"], page["embeddings"]):
                yield item[0], item[1] or "", item[2] or {}, item[3]


    def documents(self) -> list[dict[str, Any]]:
        """One metadata record per document (its first chunk)."""
        return [meta for _, _, meta in self.scan(where={"chunk_no": 0})]

    def document(self, doc_id: str) -> tuple[dict[str, Any], list[str]] | None:
        """A document's metadata and its chunk texts in order, or None when not stored."""
        self._open_deferred()
        if self._chunks is None:
            return None
        found = self._chunks.get(where={"doc_id": doc_id}, include=["documents", "metadatas"])
        if not found["ids"]:
            return None
        rows = sorted(zip(found["metadatas"], found["documents"]),
                      key=lambda row: int((row[0] or {}).get("chunk_no", 0)))
        return dict(rows[0][0] or {}), [text or "" for _, text in rows]

    # ---- ingested files -----------------------------------------------------------
    def sources(self) -> dict[str, dict[str, Any]]:
        self._open_deferred()
        out: dict[str, dict[str, Any]] = {}
        for page in _pages(self._sources, self.batch_size, ("metadatas",)):
            for meta in page["metadatas"]:
                if meta and "path" in meta:
                    out[meta["path"]] = meta
        return out

    def source(self, path: str) -> dict[str, Any] | None:
        """The record of one ingested file (size, mtime, digest), or None."""
        self._open_deferred()
        if self._sources is None:
            return None
        found = self._sources.get(ids=[_source_id(path)], include=["metadatas"])
        return dict(found["metadatas"][0] or {}) if found["ids"] else None

    @_writes
    def put_sources(self, records: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(records), self.batch_size):
            batch = records[start:start + self.batch_size]
            self._sources.upsert(ids=[_source_id(r["path"]) for r in batch],
                                 metadatas=list(batch),
                                 embeddings=[_SOURCE_VECTOR] * len(batch))

    # ---- collection state (which embedding model the vectors come from) -------------
    def state(self) -> dict[str, Any]:
        """The collection's metadata as it is now (another process may have changed it:
        the collection object's own copy is the one read when it was opened)."""
        if self._deferred:
            try:
                return self._database_state() or {}
            except (sqlite3.Error, _Unexpected) as err:
                raise StoreError(f"cannot read the store at {self.location}: {err}") from err
        if self._chunks is None:
            return {}
        try:
            fresh = self._client.get_collection(self.cfg.collection, embedding_function=None)
        except Exception as err:  # the collection was deleted under us, the server went away
            raise StoreError(f"cannot read the store at {self.location}: {err}") from err
        return dict(fresh.metadata or {})

    @_writes
    def set_state(self, **values: Any) -> None:
        """Merge `values` into the collection's metadata in one write."""
        with self._state_lock:
            merged = {**self.state(), **values}
            self._chunks.modify(metadata=merged)


# Where Chroma's embedded client keeps its collections (chromadb.config DEFAULT_TENANT and
# DEFAULT_DATABASE), for `_database_state`.
_CHROMA_TENANT, _CHROMA_DATABASE = "default_tenant", "default_database"


class _Unexpected(Exception):
    """chroma.sqlite3 is not laid out as `_database_state` expects."""


def _check_format(location: str, state: dict[str, Any]) -> None:
    found = state.get(FORMAT_KEY)
    if isinstance(found, int) and not isinstance(found, bool) and found > STORE_FORMAT:
        raise StoreError(f"the store at {location} was written by a newer version of Brain Query "
                         f"(store format {found}; this version reads up to {STORE_FORMAT}): "
                         "upgrade brainquery to use it")


def _pages(collection, size: int, include: Sequence[str], where: dict | None = None
           ) -> Iterator[dict[str, Any]]:
    """A collection's records, `size` at a time (Chroma caps one get)."""
    if collection is None:  # opened read-only, never written
        return
    offset = 0
    while True:
        page = collection.get(where=where, limit=size, offset=offset, include=list(include))
        if not page["ids"]:
            return
        yield page
        offset += len(page["ids"])


def _source_id(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:32]
