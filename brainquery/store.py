"""The store: one Chroma collection of chunks (the single source of truth) and a small
collection of ingested files. The only module that imports chromadb.

`location` is a folder for the embedded PersistentClient, or http(s)://HOST:PORT for a
Chroma server (`chroma run`). Every record carries our own embedding: a collection is
opened without an embedding function, so Chroma can never fall back to downloading one.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import urlparse

import numpy as np

from .config import StoreSection

STORE_ENV = "BRAINQUERY_STORE"
_SOURCE_VECTOR = [1.0]  # file records need a vector; they are looked up by id, never queried


class StoreError(RuntimeError):
    """The store cannot be opened or written."""


def default_location() -> str:
    from platformdirs import user_data_dir

    return os.environ.get(STORE_ENV) or str(Path(user_data_dir("brainquery")) / "store")


def is_server(location: str) -> bool:
    return location.startswith(("http://", "https://"))


class Store:
    def __init__(self, location: str | os.PathLike | None, cfg: StoreSection):
        self.location = str(location or default_location())
        self.cfg = cfg
        scheme = urlparse(self.location).scheme
        if "://" in self.location and not is_server(self.location):
            # Only http(s) names a server; anything else with a scheme is no folder either
            # (`ftp://x` would otherwise become a folder named "ftp:").
            raise StoreError(f"a server store needs http:// or https://, got {scheme or self.location}://")
        try:
            self._client = self._connect()
            self._chunks = self._client.get_or_create_collection(
                cfg.collection, configuration={"hnsw": {"space": "cosine"}},
                embedding_function=None)
            self._sources = self._client.get_or_create_collection(
                cfg.sources_collection, embedding_function=None)
            self.batch_size = max(1, min(cfg.batch_size, self._client.get_max_batch_size()))
        except StoreError:
            raise
        except Exception as err:  # chromadb raises connection, value and Rust-side errors
            raise StoreError(f"cannot open the store at {self.location}: {err}") from err

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

    # ---- chunks -------------------------------------------------------------------
    def count(self) -> int:
        return self._chunks.count()

    def upsert(self, ids: Sequence[str], documents: Sequence[str],
               metadatas: Sequence[dict[str, Any]], embeddings: np.ndarray) -> None:
        for start in range(0, len(ids), self.batch_size):
            end = start + self.batch_size
            self._chunks.upsert(ids=list(ids[start:end]), documents=list(documents[start:end]),
                                metadatas=list(metadatas[start:end]),
                                embeddings=np.asarray(embeddings[start:end], dtype=np.float32))

    def update_embeddings(self, ids: Sequence[str], embeddings: np.ndarray) -> None:
        for start in range(0, len(ids), self.batch_size):
            end = start + self.batch_size
            self._chunks.update(ids=list(ids[start:end]),
                                embeddings=np.asarray(embeddings[start:end], dtype=np.float32))

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        for start in range(0, len(ids), self.batch_size):
            self._chunks.delete(ids=ids[start:start + self.batch_size])

    def scan(self, include: Sequence[str] = ("metadatas",), where: dict | None = None
             ) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
        """(id, document, metadata) for every chunk matching `where`, page by page."""
        for page in _pages(self._chunks, self.batch_size, include, where):
            ids = page["ids"]
            docs = page.get("documents") or [None] * len(ids)
            metas = page.get("metadatas") or [{}] * len(ids)
            for item in zip(ids, docs, metas):
                yield item[0], item[1], item[2] or {}

    def scan_with_embeddings(self) -> Iterator[tuple[str, str, dict[str, Any], np.ndarray]]:
        """(id, text, metadata, vector) for every chunk, page by page."""
        for page in _pages(self._chunks, self.batch_size, ("documents", "metadatas", "embeddings")):
            for item in zip(page["ids"], page["documents"], page["metadatas"], page["embeddings"]):
                yield item[0], item[1] or "", item[2] or {}, item[3]


    def documents(self) -> list[dict[str, Any]]:
        """One metadata record per document (its first chunk)."""
        return [meta for _, _, meta in self.scan(where={"chunk_no": 0})]

    def document(self, doc_id: str) -> tuple[dict[str, Any], list[str]] | None:
        """A document's metadata and its chunk texts in order, or None when not stored."""
        found = self._chunks.get(where={"doc_id": doc_id}, include=["documents", "metadatas"])
        if not found["ids"]:
            return None
        rows = sorted(zip(found["metadatas"], found["documents"]),
                      key=lambda row: int((row[0] or {}).get("chunk_no", 0)))
        return dict(rows[0][0] or {}), [text or "" for _, text in rows]

    # ---- ingested files -----------------------------------------------------------
    def sources(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for page in _pages(self._sources, self.batch_size, ("metadatas",)):
            for meta in page["metadatas"]:
                if meta and "path" in meta:
                    out[meta["path"]] = meta
        return out

    def source(self, path: str) -> dict[str, Any] | None:
        """The record of one ingested file (size, mtime, digest), or None."""
        found = self._sources.get(ids=[_source_id(path)], include=["metadatas"])
        return dict(found["metadatas"][0] or {}) if found["ids"] else None

    def put_sources(self, records: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(records), self.batch_size):
            batch = records[start:start + self.batch_size]
            self._sources.upsert(ids=[_source_id(r["path"]) for r in batch],
                                 metadatas=list(batch),
                                 embeddings=[_SOURCE_VECTOR] * len(batch))

    # ---- collection state (which embedding model the vectors come from) -------------
    def state(self) -> dict[str, Any]:
        return dict(self._chunks.metadata or {})

    def set_state(self, **values: Any) -> None:
        merged = {**self.state(), **values}
        self._chunks.modify(metadata=merged)


def _pages(collection, size: int, include: Sequence[str], where: dict | None = None
           ) -> Iterator[dict[str, Any]]:
    """A collection's records, `size` at a time (Chroma caps one get)."""
    offset = 0
    while True:
        page = collection.get(where=where, limit=size, offset=offset, include=list(include))
        if not page["ids"]:
            return
        yield page
        offset += len(page["ids"])


def _source_id(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:32]
