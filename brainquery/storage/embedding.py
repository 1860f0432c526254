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
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..config import EmbeddingSection, TextSection
from ..files import from_json_array, json_array, read_arrays, write_arrays
from ..textproc import Analyzer

_FORMAT = 4  # bump when the saved layout changes; an old cache is then refitted


def _text_section(text: TextSection | None) -> TextSection:
    if text is not None:
        return text
    from ..config import load_config

    return load_config().text


class DenseEmbedder:
    """`text`: the analysis settings; None means those of the loaded configuration.

    What is learned is kept as plain arrays — `vocabulary_` (term -> column), `idf_`,
    `components_` — which is all a question needs (`transform_query`): a model loaded from
    its cache answers without importing scikit-learn, and embedding chunks (`transform`, at
    ingest) repeats scikit-learn's arithmetic in numpy; only fitting needs scikit-learn."""

    vocabulary_: dict[str, int] | None
    idf_: np.ndarray | None
    components_: np.ndarray | None

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
        self.vocabulary_ = self.vectorizer_.vocabulary_ if self.vectorizer_ is not None else None
        self.idf_ = self.vectorizer_.idf_ if self.vectorizer_ is not None else None
        self.components_ = self.svd_.components_ if self.svd_ is not None else None
        self.n_fit_ = len(texts)
        self.fingerprint_ = self._fingerprint()
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Chunk texts as unit vectors (len(texts), `dims`): scikit-learn's TfidfVectorizer
        and TruncatedSVD arithmetic (counts, sublinear tf, idf, row L2 norm, projection)
        repeated in numpy, so that an ingest of one email loads neither scikit-learn nor a
        rebuilt vectorizer (a second at every ingest). Equal to theirs to the bit
        (tests/test_textproc.py)."""
        out = np.zeros((len(texts), self.cfg.dims), dtype=np.float32)
        if self.vocabulary_ is None or self.components_ is None or not len(texts):
            return out
        from scipy import sparse

        vocab = self.vocabulary_
        cols = [[vocab[t] for t in self.analyzer_(text) if t in vocab] for text in texts]
        lengths = np.fromiter(map(len, cols), dtype=np.int64, count=len(cols))
        rows = np.repeat(np.arange(len(texts)), lengths)
        flat = np.fromiter((c for row in cols for c in row), dtype=np.int64, count=int(lengths.sum()))
        tf = sparse.csr_matrix((np.ones(len(flat), dtype=np.float32), (rows, flat)),
                               shape=(len(texts), len(vocab)), dtype=np.float32)
        tf.sum_duplicates()
        # Each step in scikit-learn's precision (float32 data, float64 idf and row norms),
        # so the vectors are its vectors to the bit: a last-bit difference can reorder ties.
        if self.cfg.sublinear_tf:
            np.log(tf.data, out=tf.data)
            tf.data += 1
        tf.data = (tf.data * self.idf_[tf.indices]).astype(np.float32)
        row = np.repeat(np.arange(len(texts)), np.diff(tf.indptr))
        norms = np.sqrt(np.bincount(row, weights=(tf.data * tf.data).astype(np.float64), minlength=len(texts)))
        tf.data = (tf.data / norms[row]).astype(np.float32)
        reduced = np.asarray(tf @ self.components_.T, dtype=np.float32)
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
        if self.vocabulary_ is None or self.components_ is None:
            return out
        if terms is None:
            terms = self.analyzer_.query_terms(question)
        vocab = self.vocabulary_
        pairs = [(vocab[t], w) for t, w in ((x, 1.0) if isinstance(x, str) else x for x in terms) if t in vocab]
        if not pairs:
            return out
        cols, weights = zip(*pairs)
        unique, inverse = np.unique(np.asarray(cols), return_inverse=True)
        tf = np.bincount(inverse, weights=np.asarray(weights, dtype=np.float64))
        if self.cfg.sublinear_tf:
            tf = np.where(tf > 1, 1 + np.log(np.maximum(tf, 1)), tf)
        tfidf = tf * self.idf_[unique]
        length = np.linalg.norm(tfidf)
        if length == 0:
            return out
        reduced = (self.components_[:, unique] @ (tfidf / length)).astype(np.float32)
        out[: reduced.shape[0]] = reduced
        norm = np.linalg.norm(out)
        return out / norm if norm > 0 else out

    def _fingerprint(self) -> str:
        digest = hashlib.sha256(str(self.n_fit_).encode())
        if self.vocabulary_ is not None:
            digest.update("\x1f".join(sorted(self.vocabulary_)).encode())
        if self.components_ is not None:
            digest.update(np.ascontiguousarray(self.components_).tobytes())
        return digest.hexdigest()[:16]

    # Persistence: arrays only (no pickle: a cache file must never be able to run code).
    def to_arrays(self) -> dict[str, np.ndarray]:
        vocab = self.vocabulary_ if self.vocabulary_ is not None else {}
        terms = sorted(vocab, key=vocab.__getitem__)
        has_svd = self.vocabulary_ is not None and self.components_ is not None
        return {
            "format": np.array(_FORMAT), "settings": np.array(self._settings_key()),
            "fingerprint": np.array(self.fingerprint_), "n_fit": np.array(self.n_fit_),
            "vocab": json_array(terms),
            "idf": self.idf_ if self.idf_ is not None else np.zeros(0),
            "components": (self.components_ if has_svd
                           else np.zeros((0, len(terms)), dtype=np.float32)),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], cfg: EmbeddingSection,
                    text: TextSection | None = None) -> DenseEmbedder | None:
        """The model saved by `to_arrays`, or None when it was made with other settings or
        its arrays do not fit together (a foreign or damaged file)."""
        model = cls(cfg, text)
        try:
            model.analyzer_ = Analyzer(_text_section(text))
            if int(arrays["format"]) != _FORMAT or str(arrays["settings"]) != model._settings_key():
                return None
            terms = from_json_array(arrays["vocab"])
            idf = np.asarray(arrays["idf"], dtype=np.float64)
            components = np.asarray(arrays["components"])
            if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms) \
                    or len(set(terms)) != len(terms) or idf.shape != (len(terms),) \
                    or components.ndim != 2 or components.shape[0] > cfg.dims \
                    or (components.shape[0] and components.shape[1] != len(terms)):
                return None
            model.vocabulary_ = {t: i for i, t in enumerate(terms)} if terms else None
            model.idf_ = idf if terms else None
            model.components_ = components if terms and components.shape[0] else None
            model.n_fit_ = int(arrays["n_fit"])
            model.fingerprint_ = model._fingerprint()
        except (KeyError, ValueError, TypeError, IndexError):
            return None
        # The fingerprint is recomputed from the arrays: a file whose stated one differs
        # is not the model it claims to be.
        return model if model.fingerprint_ == str(arrays["fingerprint"]) else None

    def _settings_key(self) -> str:
        """What makes a saved model this configuration's: the embedding and text settings,
        and how the analyzer reads words (a changed synonyms file reads them differently)."""
        section = _text_section(self.text)
        analyzer = getattr(self, "analyzer_", None)
        # Setting an analyzer up reads the synonyms and compiles patterns: reuse this one.
        analysis = (analyzer if analyzer is not None and analyzer.cfg == section else Analyzer(section)).fingerprint
        return hashlib.sha256(repr((self.cfg, _text_section(self.text), analysis)).encode()).hexdigest()

    def save(self, path: Path) -> str:
        """Write the model; returns the file's digest for the store to record."""
        return write_arrays(path, self.to_arrays())

    @classmethod
    def load(cls, path: Path, cfg: EmbeddingSection, text: TextSection | None = None,
             expected_digest: str | None = None) -> DenseEmbedder | None:
        """The model at `path` if it is the file the store recorded, else None (refit)."""
        arrays = read_arrays(path, expected_digest)
        return None if arrays is None else cls.from_arrays(arrays, cfg, text)
