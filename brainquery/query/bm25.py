"""BM25Okapi on a sparse matrix, equal to rank-bm25's scores (tests prove it).

rank-bm25 keeps a dict per document and loops over every document for every query term.
Here each (document, term) pair's term part, tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl)),
is computed once at fit time into a CSC matrix; a query is one column slice and one
sparse-matrix-vector product.

With `idf = "okapi"` the semantics are rank_bm25.BM25Okapi's: idf = log(N - n + 0.5) -
log(n + 0.5); idfs below zero (terms in more than half the documents) are replaced by
epsilon * the mean of all idfs (taken before the replacement). That floor makes a word
found in half of a small store worth (nearly) nothing, so "Maggie" in a store of three
documents scores 0 everywhere; `idf = "lucene"`, log(1 + (N - n + 0.5) / (n + 0.5)), is
positive for every word and falls smoothly with its document frequency.
avgdl is the mean token count over documents (empty ones included); a query term repeated
counts again; an unknown term adds nothing. A weighted query term (term, w) adds w times
its contribution.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..config import BM25Section
from ..files import from_json_array, json_array, load_arrays, write_arrays

_FORMAT = 2


def _okapi_idf(df: np.ndarray, n_docs: int, epsilon: float) -> tuple[np.ndarray, float]:
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    average = float(idf.mean()) if len(idf) else 0.0
    return np.where(idf < 0, epsilon * average, idf), average


def _lucene_idf(df: np.ndarray, n_docs: int, epsilon: float) -> tuple[np.ndarray, float]:
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    return idf, float(idf.mean()) if len(idf) else 0.0


IDF_FUNCTIONS = {"okapi": _okapi_idf, "lucene": _lucene_idf}


def idf_function(name: str):
    try:
        return IDF_FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"unknown BM25 idf {name!r}; valid: {', '.join(IDF_FUNCTIONS)}") from None


class SparseBM25:
    def __init__(self, cfg: BM25Section):
        self.cfg = cfg

    @functools.cached_property
    def ordered_vocab(self) -> tuple[str, ...]:
        """The vocabulary in order (sorted once, when a question first asks for a word the
        store lacks: coverage.WordForms)."""
        return tuple(sorted(self.vocab_))

    def fit(self, corpus_tokens: Sequence[Sequence[str]]) -> SparseBM25:
        cfg = self.cfg
        n_docs = len(corpus_tokens)
        doc_len = np.fromiter(map(len, corpus_tokens), dtype=np.int64, count=n_docs)
        vocab: dict[str, int] = {}
        flat = itertools.chain.from_iterable(corpus_tokens)
        # 32-bit indices: at 100,000 chunks each 64-bit index array costs ~100 MB.
        cols = np.fromiter((vocab.setdefault(t, len(vocab)) for t in flat),
                           dtype=np.int32, count=int(doc_len.sum()))
        rows = np.repeat(np.arange(n_docs, dtype=np.int32), doc_len)
        from scipy import sparse  # here, not at the top: config.py imports this module to validate bm25.idf

        tf = sparse.csr_matrix((np.ones(len(cols), dtype=np.float64), (rows, cols)),
                               shape=(n_docs, len(vocab)))
        tf.sum_duplicates()
        return self.from_counts(tf, vocab, doc_len)

    def from_counts(self, tf, vocab: dict[str, int], doc_len: np.ndarray) -> SparseBM25:
        """Fit from a (document x term) CSR matrix of term counts and each document's token
        count: `fit` after tokenising, and an incremental update (index_update.py) after
        appending rows to `term_counts()`."""
        cfg = self.cfg
        n_docs = tf.shape[0]
        self.vocab_ = vocab
        self.doc_len_ = doc_len
        self.avgdl_ = float(doc_len.mean()) if n_docs else 0.0
        df = np.bincount(tf.indices, minlength=len(vocab)).astype(np.float64)
        self.idf_, self.average_idf_ = idf_function(cfg.idf)(df, n_docs, cfg.epsilon)
        # Term part per stored (doc, term): the doc's length normaliser broadcast by row.
        norm = cfg.k1 * (1 - cfg.b + cfg.b * doc_len / self.avgdl_) if self.avgdl_ > 0 \
            else np.full(n_docs, cfg.k1 * (1 - cfg.b))
        row_of = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        tf.data = tf.data * (cfg.k1 + 1) / (tf.data + norm[row_of])
        self.weights_ = tf.tocsc()
        return self

    def _norms(self) -> np.ndarray:
        cfg = self.cfg
        return (cfg.k1 * (1 - cfg.b + cfg.b * self.doc_len_ / self.avgdl_) if self.avgdl_ > 0
                else np.full(len(self.doc_len_), cfg.k1 * (1 - cfg.b)))

    def term_counts(self):
        """The (document x term) CSR matrix of term counts the weights were computed from:
        tf = w·norm / (k1 + 1 - w) inverts the term part exactly up to rounding, and counts
        are whole numbers."""
        w = self.weights_.tocsr()
        norm = self._norms()[np.repeat(np.arange(w.shape[0]), np.diff(w.indptr))]
        w.data = np.rint(w.data * norm / (self.cfg.k1 + 1 - w.data))
        return w

    @property
    def n_docs(self) -> int:
        return self.weights_.shape[0]

    def scores(self, query_terms: Sequence[str] | Sequence[tuple[str, float]],
               candidates: np.ndarray | None = None) -> np.ndarray:
        """BM25 of every document (or of the `candidates` rows, in their order), float64."""
        cols, weights = [], []
        for item in query_terms:
            term, weight = (item, 1.0) if isinstance(item, str) else item
            col = self.vocab_.get(term)
            if col is not None:
                cols.append(col)
                weights.append(weight)
        n_out = self.n_docs if candidates is None else len(candidates)
        if not cols:
            return np.zeros(n_out, dtype=np.float64)
        unique, inverse = np.unique(np.asarray(cols), return_inverse=True)
        query = np.bincount(inverse, weights=np.asarray(weights, dtype=np.float64)) * self.idf_[unique]
        scores = self.weights_[:, unique] @ query
        return scores if candidates is None else scores[np.asarray(candidates, dtype=np.int64)]

    # Persistence: arrays (the vocabulary as JSON text), no pickle.
    def to_arrays(self) -> dict[str, np.ndarray]:
        terms = sorted(self.vocab_, key=self.vocab_.__getitem__)
        w = self.weights_
        return {"format": np.array(_FORMAT), "params": np.array([self.cfg.k1, self.cfg.b, self.cfg.epsilon]),
                "idf_name": np.array(self.cfg.idf),
                "data": w.data, "indices": w.indices, "indptr": w.indptr, "shape": np.array(w.shape),
                "idf": self.idf_, "doc_len": self.doc_len_,
                "scalars": np.array([self.avgdl_, self.average_idf_]),
                "vocab": json_array(terms)}

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray], cfg: BM25Section) -> SparseBM25 | None:
        """The index saved by `to_arrays`, or None when it was made with other params or its
        arrays do not fit together."""
        try:
            if int(data["format"]) != _FORMAT or str(data["idf_name"]) != cfg.idf or \
                    not np.array_equal(data["params"], [cfg.k1, cfg.b, cfg.epsilon]):
                return None
            from scipy import sparse

            model = cls(cfg)
            model.weights_ = sparse.csc_matrix(
                (data["data"], data["indices"], data["indptr"]), shape=tuple(int(n) for n in data["shape"]))
            model.weights_.check_format(full_check=True)
            model.idf_ = np.asarray(data["idf"], dtype=np.float64)
            model.doc_len_ = np.asarray(data["doc_len"], dtype=np.int64)
            model.avgdl_, model.average_idf_ = map(float, data["scalars"])
            terms = from_json_array(data["vocab"])
            model.vocab_ = {str(t): i for i, t in enumerate(terms)}
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        n_docs, n_terms = model.weights_.shape
        if model.idf_.shape != (n_terms,) or model.doc_len_.shape != (n_docs,) or len(model.vocab_) != n_terms:
            return None
        return model

    def save(self, path: str | Path) -> None:
        write_arrays(Path(path), self.to_arrays())

    @classmethod
    def load(cls, path: str | Path, cfg: BM25Section) -> SparseBM25 | None:
        """The saved index, or None when it is missing, unreadable or made with other params."""
        arrays = load_arrays(Path(path))
        return None if arrays is None else cls.from_arrays(arrays, cfg)
