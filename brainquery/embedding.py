"""The dense half of the retriever: TF-IDF (sublinear tf) → TruncatedSVD, L2-normalised.

TF-IDF reads text through the shared `Analyzer` (the same stems and stopwords as BM25), and
a question can be projected from weighted terms (`transform_query`), so synonym
expansions move the query vector too.

Vectors always have `dims` components (zero-padded when a small corpus supports fewer),
because a Chroma collection fixes its dimension at the first insert. The fitted model is
a cache: it can always be refitted from the collection's texts, and a fit is
deterministic (fixed random_state, texts in id order), so the same corpus gives the same
index twice.
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .config import EmbeddingSection, TextSection
from .textproc import Analyzer

_FORMAT = 2  # bump when the pickled layout changes; an old cache is then refitted


def _text_section(text: TextSection | None) -> TextSection:
    if text is not None:
        return text
    from .config import load_config

    return load_config().text


class DenseEmbedder:
    """`text`: the analysis settings; None means those of the loaded configuration."""

    def __init__(self, cfg: EmbeddingSection, text: TextSection | None = None):
        self.cfg = cfg
        self.text = text

    def fit(self, texts: Sequence[str]) -> DenseEmbedder:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        cfg = self.cfg
        small = len(texts) < cfg.df_limits_min_chunks
        self.analyzer_ = Analyzer(_text_section(self.text))
        # A callable analyzer replaces scikit-learn's tokenizer, stopwords and n-grams.
        self.vectorizer_ = TfidfVectorizer(
            analyzer=self.analyzer_,
            sublinear_tf=cfg.sublinear_tf,
            max_features=cfg.max_features,
            min_df=1 if small else cfg.min_df,
            max_df=1.0 if small else cfg.max_df,
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

    def transform_query(self, question: str,
                        terms: Sequence[str] | Sequence[tuple[str, float]] | None = None) -> np.ndarray:
        """The question's unit vector (`dims`,) from weighted terms (default: the analyzer's
        `query_terms`, synonym expansions included). Terms of weight 1 give exactly
        `transform([question])`; a term's weights add up, then the tf-idf weighting of the
        fit applies (sublinear tf only above 1, so an expansion's 0.5 stays 0.5)."""
        out = np.zeros(self.cfg.dims, dtype=np.float32)
        if self.vectorizer_ is None or self.svd_ is None:
            return out
        if terms is None:
            terms = self.analyzer_.query_terms(question)
        vocab = self.vectorizer_.vocabulary_
        pairs = [(vocab[t], w) for t, w in ((x, 1.0) if isinstance(x, str) else x for x in terms) if t in vocab]
        if not pairs:
            return out
        cols, weights = zip(*pairs)
        unique, inverse = np.unique(np.asarray(cols), return_inverse=True)
        tf = np.bincount(inverse, weights=np.asarray(weights, dtype=np.float64))
        if self.cfg.sublinear_tf:
            tf = np.where(tf > 1, 1 + np.log(np.maximum(tf, 1)), tf)
        tfidf = tf * self.vectorizer_.idf_[unique]
        length = np.linalg.norm(tfidf)
        if length == 0:
            return out
        reduced = (self.svd_.components_[:, unique] @ (tfidf / length)).astype(np.float32)
        out[: reduced.shape[0]] = reduced
        norm = np.linalg.norm(out)
        return out / norm if norm > 0 else out

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
            pickle.dump({"format": _FORMAT, "cfg": self.cfg, "text": _text_section(self.text),
                         "analysis": self.analyzer_.fingerprint, "model": self}, fh)
        tmp.replace(path)  # atomic: a crash never leaves half a model behind

    @classmethod
    def load(cls, path: Path, cfg: EmbeddingSection,
             text: TextSection | None = None) -> DenseEmbedder | None:
        try:
            with open(path, "rb") as fh:
                data = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        if data.get("format") != _FORMAT or data.get("cfg") != cfg \
                or data.get("text") != _text_section(text):
            return None
        model = data["model"]
        # The analyzer is rebuilt on unpickling from the current synonyms file: if its
        # [stems] changed, documents would now be read differently from the fit.
        if model.analyzer_.fingerprint != data.get("analysis"):
            return None
        return model
