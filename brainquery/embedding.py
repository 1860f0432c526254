"""The dense half of the retriever: TF-IDF (sublinear tf) → TruncatedSVD, L2-normalised.

Vectors always have `dims` components (zero-padded when a small corpus supports fewer),
because a Chroma collection fixes its dimension at the first insert. The fitted model is
a cache: it can always be refitted from the collection's texts, and a fit is
deterministic (fixed random_state, texts in id order), so the same corpus gives the same
index twice.
"""
from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Sequence

import numpy as np

from .config import EmbeddingSection

_FORMAT = 1  # bump when the pickled layout changes; an old cache is then refitted


class DenseEmbedder:
    def __init__(self, cfg: EmbeddingSection):
        self.cfg = cfg

    def fit(self, texts: Sequence[str]) -> "DenseEmbedder":
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        cfg = self.cfg
        small = len(texts) < cfg.df_limits_min_chunks
        self.vectorizer_ = TfidfVectorizer(
            sublinear_tf=cfg.sublinear_tf,
            max_features=cfg.max_features,
            min_df=1 if small else cfg.min_df,
            max_df=1.0 if small else cfg.max_df,
            ngram_range=(1, cfg.ngram_max),
            dtype=np.float32,
        )
        try:
            matrix = self.vectorizer_.fit_transform(texts)
        except ValueError:  # no usable words at all (empty or number-only texts)
            self.vectorizer_ = None
            matrix = None
        self.svd_ = None
        if matrix is not None:
            n_components = min(cfg.dims, matrix.shape[0] - 1, matrix.shape[1] - 1)
            if n_components >= 1:
                self.svd_ = TruncatedSVD(n_components=n_components, random_state=cfg.random_state)
                # explained_variance_ratio_ divides by zero on a corpus of near-identical
                # chunks; we never read it.
                with np.errstate(invalid="ignore", divide="ignore"):
                    self.svd_.fit(matrix)
        self.n_fit_ = len(texts)
        self.fingerprint_ = self._fingerprint()
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.cfg.dims), dtype=np.float32)
        if self.vectorizer_ is None or self.svd_ is None or not len(texts):
            return out
        reduced = self.svd_.transform(self.vectorizer_.transform(texts)).astype(np.float32)
        out[:, : reduced.shape[1]] = reduced
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def _fingerprint(self) -> str:
        digest = hashlib.sha256(str(self.n_fit_).encode())
        if self.vectorizer_ is not None:
            digest.update("\x1f".join(sorted(self.vectorizer_.vocabulary_)).encode())
        if self.svd_ is not None:
            digest.update(np.ascontiguousarray(self.svd_.components_).tobytes())
        return digest.hexdigest()[:16]

    # Persistence: a local cache only. Anything unreadable means "refit from the store".
    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            pickle.dump({"format": _FORMAT, "cfg": self.cfg, "model": self}, fh)
        tmp.replace(path)  # atomic: a crash never leaves half a model behind

    @classmethod
    def load(cls, path: Path, cfg: EmbeddingSection) -> "DenseEmbedder | None":
        try:
            with open(path, "rb") as fh:
                data = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        if data.get("format") != _FORMAT or data.get("cfg") != cfg:
            return None
        return data["model"]
