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


def _insertion_points(rows: np.ndarray, indptr: np.ndarray, cols: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Where each (term `cols`, row `new`) pair goes among a term-major matrix's stored rows
    (`rows`, ascending within each term's slice of `indptr`): a binary search per pair, all
    pairs at once."""
    lo, hi = indptr[cols], indptr[cols + 1]
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        below = open_ & (rows[np.minimum(mid, len(rows) - 1)] < new)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


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
        tf = tf.tocsc()   # term-major: a question reads a few terms' columns
        self._fit_weights(tf.data, tf.indices, tf.indptr, vocab, doc_len,
                          np.diff(tf.indptr).astype(np.float64))
        return self

    def updated(self, new_row_of_old: np.ndarray, new_rows: np.ndarray, tokens: Sequence[Sequence[str]],
                doc_len: np.ndarray) -> SparseBM25:
        """The index of a corpus whose old rows moved (`new_row_of_old`: each old row's new
        row, -1 when removed; kept rows keep their order) and which gained the documents
        `tokens` at `new_rows`; `doc_len`: every new row's token count. What `fit` gives
        for the merged counts, term for term, at the cost of a few passes over the stored
        pairs: they keep their term-major order and the new ones are inserted in place."""
        cfg = self.cfg
        old = self.weights_ if self.weights_.has_sorted_indices else self.weights_.sorted_indices()
        # The old pairs' counts: tf = w·norm / (k1 + 1 - w) inverts the term part exactly
        # up to rounding, and counts are whole numbers.
        counts = np.rint(old.data * self._norms()[old.indices] / (cfg.k1 + 1 - old.data))
        rows = np.asarray(new_row_of_old, dtype=np.int32)[old.indices]
        indptr = old.indptr.astype(np.int64)
        if (rows < 0).any():
            keep = rows >= 0
            rows, counts = rows[keep], counts[keep]
            indptr = np.r_[0, np.cumsum(keep)][indptr]
        vocab = dict(self.vocab_)
        lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        cols = np.fromiter((vocab.setdefault(t, len(vocab)) for toks in tokens for t in toks),
                           dtype=np.int64, count=int(lengths.sum()))
        n = len(doc_len)
        added, added_counts = np.unique(cols * n + np.repeat(np.asarray(new_rows, dtype=np.int64), lengths),
                                        return_counts=True)
        add_cols, add_rows = np.divmod(added, n)
        indptr = np.r_[indptr, np.full(len(vocab) - old.shape[1], indptr[-1])]   # new terms
        at = _insertion_points(rows, indptr, add_cols, add_rows)
        rows = np.insert(rows, at, add_rows.astype(np.int32))
        counts = np.insert(counts, at, added_counts.astype(np.float64))
        df = np.diff(indptr) + np.bincount(add_cols, minlength=len(vocab))
        # Terms only removed documents had are gone, as from a rebuild (they would count
        # in the mean idf); the others keep their order.
        present = np.flatnonzero(df)
        if len(present) < len(vocab):
            terms = sorted(vocab, key=vocab.__getitem__)
            vocab = {terms[c]: i for i, c in enumerate(present)}
            df = df[present]
        index_dtype = np.int32 if len(rows) < np.iinfo(np.int32).max else np.int64
        model = SparseBM25(cfg)
        model._fit_weights(counts, rows.astype(index_dtype, copy=False), np.r_[0, np.cumsum(df)].astype(index_dtype),
                           vocab, doc_len, df.astype(np.float64))
        return model

    def _fit_weights(self, counts: np.ndarray, rows: np.ndarray, indptr: np.ndarray, vocab: dict[str, int],
                     doc_len: np.ndarray, df: np.ndarray) -> None:
        """Weights from term-major counts (each term's rows ascending)."""
        from scipy import sparse

        cfg = self.cfg
        n_docs = len(doc_len)
        self.vocab_ = vocab
        self.doc_len_ = doc_len
        self.avgdl_ = float(doc_len.mean()) if n_docs else 0.0
        self.idf_, self.average_idf_ = idf_function(cfg.idf)(df, n_docs, cfg.epsilon)
        norm = self._norms()
        self.weights_ = sparse.csc_matrix((counts * (cfg.k1 + 1) / (counts + norm[rows]), rows, indptr),
                                          shape=(n_docs, len(vocab)))

    def _norms(self) -> np.ndarray:
        cfg = self.cfg
        return (cfg.k1 * (1 - cfg.b + cfg.b * self.doc_len_ / self.avgdl_) if self.avgdl_ > 0
                else np.full(len(self.doc_len_), cfg.k1 * (1 - cfg.b)))

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
