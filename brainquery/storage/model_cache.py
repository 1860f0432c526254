"""Keeping the dense model and the store's vectors in step.

The collection records which model fingerprint its vectors came from. A cached model
that is missing, unreadable or of another fingerprint (a new machine pointed at a server,
a crash during a refit) is rebuilt from the collection's texts alone, and every vector
is rewritten. Fits are deterministic, so a rebuild of the same corpus is the same model.
"""
from __future__ import annotations

import logging

import numpy as np

from ..config import EmbeddingSection, TextSection
from .embedding import DenseEmbedder
from .store import Store

log = logging.getLogger(__name__)
STATE_KEY = "embedding_model"
DIGEST_KEY = "embedding_model_digest"   # the SHA-256 of the model file of that fingerprint
MODEL_FILE = "dense.npz"
LEGACY_FILES = ("dense.pkl",)           # pickles of older versions: deleted, never read


def embed_text(title: str, text: str) -> str:
    """What a chunk is embedded as: its document's title travels with every chunk."""
    return f"{title}\n{text}" if title else text


def open_model(store: Store, cfg: EmbeddingSection, text: TextSection | None = None,
               known: DenseEmbedder | None = None) -> DenseEmbedder | None:
    """The model the store's vectors were made with, or None for an empty store. `text`:
    the analysis settings (default: the loaded configuration's). `known`: a model already
    in memory (the published index's), used when it is the store's (reading the model
    file again costs a second at 100,000 chunks)."""
    if store.count() == 0:
        return None
    state = store.state()
    if known is not None and known.fingerprint_ == state.get(STATE_KEY):
        return known
    model = DenseEmbedder.load(store.cache_dir / MODEL_FILE, cfg, text, state.get(DIGEST_KEY))
    if model is None or model.fingerprint_ != state.get(STATE_KEY):
        log.info("embedding cache missing or stale; refitting from the store")
        return refit_from_store(store, cfg, text)
    return model


def first_fit(store: Store, cfg: EmbeddingSection, ids: list[str], texts: list[str],
              text: TextSection | None = None) -> DenseEmbedder:
    order = np.argsort(np.asarray(ids))
    model = DenseEmbedder(cfg, text).fit([texts[i] for i in order])
    _publish(store, model)
    return model


def refit_from_store(store: Store, cfg: EmbeddingSection, text: TextSection | None = None
                     ) -> DenseEmbedder:
    ids, texts = [], []
    for chunk_id, document, meta in store.scan(include=("documents", "metadatas")):
        ids.append(chunk_id)
        texts.append(embed_text(str(meta.get("title", "")), document or ""))
    order = np.argsort(np.asarray(ids))
    ids = [ids[i] for i in order]
    texts = [texts[i] for i in order]
    model = DenseEmbedder(cfg, text).fit(texts)
    # Cache first, state last: a crash in between leaves them disagreeing, which the next
    # open_model() repairs by refitting again.
    digest = model.save(store.cache_dir / MODEL_FILE)
    store.update_embeddings(ids, model.transform(texts))
    store.set_state(**{STATE_KEY: model.fingerprint_, DIGEST_KEY: digest})
    return model


def needs_refit(model: DenseEmbedder, store: Store, cfg: EmbeddingSection) -> bool:
    return store.count() >= model.n_fit_ * cfg.refit_growth_ratio


def _publish(store: Store, model: DenseEmbedder) -> None:
    digest = model.save(store.cache_dir / MODEL_FILE)
    store.set_state(**{STATE_KEY: model.fingerprint_, DIGEST_KEY: digest})
