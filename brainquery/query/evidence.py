"""The evidence graph: chunks that say the same thing in the same words back each other up.

Each chunk is the set of its word `shingle_size`-grams (from `Analyzer.words`: stemmed,
stopwords kept, since "due on the" and "due by the" are different 3-grams). Two chunks are
linked when the Jaccard similarity of their sets exceeds `theta`; the edge weight is that
Jaccard. Shingles found in more chunks than a corpus-relative limit (signatures, footers,
unsubscribe lines, templates) are no evidence and are removed from the sets before the
Jaccard is taken. A chunk with fewer words than `shingle_size` has no shingles, no edges.

The pairs come from sparse products A·Aᵀ of the chunk × shingle incidence matrix, a block
of rows at a time, keeping only pairs above `theta`. Shingles in a single chunk form no
pair, so they count in the set sizes but stay out of the product; the frequency limit
bounds what remains (a shingle in d chunks costs d² products).

Two signals:
- `centrality_`: corroboration. Near-duplicates from one voice (Jaccard above
  `near_duplicate` and the same `group`, e.g. five monthly bills of one sender) are merged
  into one node; a node's edges into another node count once (the strongest); edges
  between different nodes of the same group count `same_group_weight`. The merged node's
  weighted degree, divided by the largest, is given to each of its chunks.
- `ppr(seeds)`: personalised PageRank from the top hits over the chunk graph.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from ..config import GraphSection
from ..files import load_arrays, write_arrays

_FORMAT = 1
# Multiplier for the polynomial shingle hash when exact packing of token ids would overflow.
_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


class EvidenceGraph:
    def __init__(self, cfg: GraphSection):
        self.cfg = cfg

    def fit(self, chunk_tokens: Sequence[Sequence[str]], groups: Sequence[str],
            docs: Sequence[int] | np.ndarray | None = None) -> EvidenceGraph:
        """`groups[i]`: who speaks in chunk i (sender, list, vendor). A chunk whose voice is
        unknown needs a key of its own (its document id), or it joins every other unknown.
        `docs[i]`: the document of chunk i. Chunks of one document overlap by design and
        say nothing about each other, so they are never linked."""
        n = len(chunk_tokens)
        if len(groups) != n:
            raise ValueError(f"{n} chunks but {len(groups)} groups")
        incidence, shingle_limit = self._shingles(chunk_tokens)
        rows, cols, jaccard = self._pairs(incidence)
        if docs is not None:
            docs = np.asarray(docs)
            other = docs[rows] != docs[cols]
            rows, cols, jaccard = rows[other], cols[other], jaccard[other]
        return self.from_edges(n, rows, cols, jaccard, groups, shingle_limit)

    def from_edges(self, n: int, rows: np.ndarray, cols: np.ndarray, jaccard: np.ndarray,
                   groups: Sequence[str], shingle_limit: int) -> EvidenceGraph:
        """The graph of these edges (each pair once, i != j), its near-duplicate clusters and
        centrality: what `fit` ends with, and what an incremental update (index_update.py)
        gives its merged edge list."""
        self.shingle_limit_ = shingle_limit
        self.adjacency_ = sparse.csr_matrix(
            (np.concatenate([jaccard, jaccard]).astype(np.float32),
             (np.concatenate([rows, cols]), np.concatenate([cols, rows]))), shape=(n, n))
        group_codes = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)[1]
        self.cluster_ = self._clusters(n, rows, cols, jaccard, group_codes)
        self.centrality_ = self._centrality(rows, cols, jaccard, group_codes)
        self.degree_ = np.asarray(self.adjacency_.sum(axis=1), dtype=np.float64).ravel()
        return self

    def ppr(self, seeds: np.ndarray, weights: np.ndarray | None = None,
            walk_only: bool = False, nodes: np.ndarray | None = None) -> np.ndarray:
        """Personalised PageRank from `seeds` (chunk rows; `weights` default equal), by power
        iteration: p = r·s + (1 - r)·Pᵀp with P the row-normalised adjacency; the mass of
        chunks without edges jumps back to the seeds. Divided by its max; zeros when the
        graph has no edges or there are no seeds.

        `nodes`: walk only the subgraph of these rows (the seeds are added), a local
        PageRank whose cost follows the subgraph, not the corpus; rows outside get 0."""
        n = self.adjacency_.shape[0]
        seeds = np.asarray(seeds, dtype=np.int64).ravel()
        if self.adjacency_.nnz == 0 or seeds.size == 0:
            return np.zeros(n, dtype=np.float64)
        w = np.ones(seeds.size) if weights is None else np.clip(np.asarray(weights, dtype=np.float64).ravel(), 0, None)
        if w.sum() <= 0:
            w = np.ones(seeds.size)
        if nodes is None:
            return _power_iteration(self.adjacency_, self.degree_, seeds, w, self.cfg, walk_only)
        nodes = np.union1d(np.asarray(nodes, dtype=np.int64), seeds)
        sub = _submatrix(self.adjacency_, nodes)
        degree = np.asarray(sub.sum(axis=1), dtype=np.float64).ravel()
        local = _power_iteration(sub, degree, np.searchsorted(nodes, seeds), w, self.cfg, walk_only)
        out = np.zeros(n, dtype=np.float64)
        out[nodes] = local
        return out

    def neighbours(self, rows: np.ndarray) -> np.ndarray:
        """The rows linked to any of `rows` (with repeats)."""
        return self.adjacency_.indices[_row_positions(self.adjacency_.indptr, rows)]

    # ---- fitting, step by step --------------------------------------------------------
    def limit(self, n_chunks: int) -> int:
        """How many chunks a shingle may be in and still count as evidence."""
        return int(np.clip(self.cfg.max_df_share * n_chunks, self.cfg.min_df_limit, self.cfg.max_df_limit))

    def _shingles(self, chunk_tokens: Sequence[Sequence[str]]) -> tuple[sparse.csr_matrix, int]:
        """The chunk × shingle incidence (0/1, frequent shingles removed) and the limit used."""
        n, k = len(chunk_tokens), self.cfg.shingle_size
        # 32-bit ids and early frees: at 100,000 chunks (17M words) every 64-bit array is
        # 137 MB, and ten of them alive at once broke the 2 GB budget.
        lengths = np.fromiter(map(len, chunk_tokens), dtype=np.int64, count=n)
        vocab: dict[str, int] = {}
        ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in itertools.chain.from_iterable(chunk_tokens)),
                          dtype=np.int32, count=int(lengths.sum()))
        doc_of = np.repeat(np.arange(n, dtype=np.int32), lengths)
        starts = np.arange(max(len(ids) - k + 1, 0), dtype=np.int64)
        # Chunks are contiguous in `ids`: a window lies in one chunk iff its ends do.
        starts = starts[doc_of[starts] == doc_of[starts + k - 1]]
        hashes = _hash_windows(ids, starts, k, len(vocab))
        del ids
        window_doc = doc_of[starts]
        del doc_of, starts
        _, shingle = np.unique(hashes, return_inverse=True)
        del hashes
        n_shingles = int(shingle.max()) + 1 if shingle.size else 0
        pair = window_doc.astype(np.int64) * max(n_shingles, 1) + shingle
        del window_doc, shingle
        pair.sort()
        # A set per chunk. (np.unique without return_inverse takes a hash-table path that
        # was 100x slower than sorting on millions of int64s.)
        pair = pair[np.r_[True, pair[1:] != pair[:-1]]] if pair.size else pair
        rows, cols = np.divmod(pair, max(n_shingles, 1))
        del pair
        df = np.bincount(cols, minlength=n_shingles)
        limit = self.limit(n)
        keep = df[cols] <= limit
        incidence = sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.int32),
                                       (rows[keep], cols[keep])), shape=(n, n_shingles))
        return incidence, limit

    def _pairs(self, incidence: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, Jaccard) for i < j with Jaccard > theta."""
        n = incidence.shape[0]
        sizes = np.diff(incidence.indptr).astype(np.float64)
        df = np.bincount(incidence.indices, minlength=incidence.shape[1])
        shared = incidence[:, np.flatnonzero(df >= 2)].tocsr()
        shared_t = shared.T.tocsr()
        out_r, out_c, out_j = [], [], []
        for start in range(0, n, self.cfg.block_rows):
            block = (shared[start:start + self.cfg.block_rows] @ shared_t).tocoo()
            r = block.row.astype(np.int64) + start
            c = block.col.astype(np.int64)
            upper = c > r
            r, c, inter = r[upper], c[upper], block.data[upper].astype(np.float64)
            jac = inter / (sizes[r] + sizes[c] - inter)
            linked = jac > self.cfg.theta
            out_r.append(r[linked])
            out_c.append(c[linked])
            out_j.append(jac[linked])
        if not out_r:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0)
        return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_j)

    def _clusters(self, n: int, rows: np.ndarray, cols: np.ndarray, jaccard: np.ndarray,
                  group_codes: np.ndarray) -> np.ndarray:
        near = (jaccard > self.cfg.near_duplicate) & (group_codes[rows] == group_codes[cols])
        links = sparse.csr_matrix((np.ones(int(near.sum())), (rows[near], cols[near])), shape=(n, n))
        return connected_components(links, directed=False)[1]

    def _centrality(self, rows: np.ndarray, cols: np.ndarray, jaccard: np.ndarray,
                    group_codes: np.ndarray) -> np.ndarray:
        cluster = self.cluster_.astype(np.int64)  # (node, node) keys overflow int32
        a, b = cluster[rows], cluster[cols]
        between = a != b
        weight = jaccard * np.where(group_codes[rows] == group_codes[cols], self.cfg.same_group_weight, 1.0)
        a, b, weight = a[between], b[between], weight[between]
        # Both directions, then the strongest edge per (node, other node).
        src, dst, weight = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([weight, weight])
        n_clusters = int(cluster.max()) + 1 if cluster.size else 0
        key = src * max(n_clusters, 1) + dst
        order = np.argsort(key, kind="stable")
        key, weight = key[order], weight[order]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, dtype=np.int64)
        strongest = np.maximum.reduceat(weight, first) if key.size else np.zeros(0)
        degree = np.bincount(key[first] // max(n_clusters, 1), weights=strongest, minlength=n_clusters)
        top = degree.max() if degree.size else 0.0
        normalised = degree / top if top > 0 else np.zeros(n_clusters)
        return normalised[cluster]

    # ---- persistence: one .npz, written atomically ------------------------------------
    def _fit_params(self) -> np.ndarray:
        cfg = self.cfg
        return np.array([cfg.shingle_size, cfg.theta, cfg.max_df_share, cfg.min_df_limit,
                         cfg.max_df_limit, cfg.near_duplicate, cfg.same_group_weight], dtype=np.float64)

    def to_arrays(self) -> dict[str, np.ndarray]:
        adj = self.adjacency_
        return {"format": np.array(_FORMAT), "params": self._fit_params(), "data": adj.data,
                "indices": adj.indices, "indptr": adj.indptr, "shape": np.array(adj.shape),
                "cluster": self.cluster_, "centrality": self.centrality_,
                "shingle_limit": np.array(self.shingle_limit_)}

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray], cfg: GraphSection) -> EvidenceGraph | None:
        """The graph saved by `to_arrays`, or None when it was built with other params (the
        PageRank settings are read at query time and may differ) or its arrays do not fit."""
        graph = cls(cfg)
        try:
            if int(data["format"]) != _FORMAT or not np.array_equal(data["params"], graph._fit_params()):
                return None
            graph.adjacency_ = sparse.csr_matrix((data["data"], data["indices"], data["indptr"]),
                                                 shape=tuple(int(n) for n in data["shape"]))
            graph.adjacency_.check_format(full_check=True)
            graph.cluster_ = np.asarray(data["cluster"])
            graph.centrality_ = np.asarray(data["centrality"])
            graph.shingle_limit_ = int(data["shingle_limit"])
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        n = graph.adjacency_.shape[0]
        if graph.adjacency_.shape != (n, n) or graph.cluster_.ndim != 1 \
                or graph.cluster_.dtype.kind not in "iu" \
                or (graph.cluster_.size and not 0 <= graph.cluster_.min() <= graph.cluster_.max() < n) \
                or graph.centrality_.shape != graph.cluster_.shape:
            return None
        graph.degree_ = np.asarray(graph.adjacency_.sum(axis=1), dtype=np.float64).ravel()
        return graph

    def save(self, path: str | Path) -> None:
        write_arrays(Path(path), self.to_arrays())

    @classmethod
    def load(cls, path: str | Path, cfg: GraphSection) -> EvidenceGraph | None:
        """The saved graph, or None when it is missing, unreadable or built with other params."""
        arrays = load_arrays(Path(path))
        return None if arrays is None else cls.from_arrays(arrays, cfg)


def _row_positions(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The positions in a CSR matrix's `indices`/`data` of the entries of `rows`, row by row."""
    starts = indptr[rows].astype(np.int64)
    lengths = indptr[rows + 1] - starts
    offsets = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - offsets, lengths)


def _submatrix(matrix: sparse.csr_matrix, nodes: np.ndarray) -> sparse.csr_matrix:
    """matrix[nodes][:, nodes] for sorted, distinct `nodes`, without scipy's general fancy
    indexing (validation and two copies cost more than the local walk itself)."""
    positions = _row_positions(matrix.indptr, nodes)
    local = np.full(matrix.shape[1], -1, dtype=np.int32)     # (int32: 4 bytes a chunk per question)
    local[nodes] = np.arange(nodes.size, dtype=np.int32)
    cols = local[matrix.indices[positions]]
    keep = cols >= 0
    lengths = np.diff(matrix.indptr)[nodes]
    rows = np.repeat(np.arange(nodes.size), lengths)[keep]
    indptr = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nodes.size), out=indptr[1:])
    return sparse.csr_matrix((matrix.data[positions][keep], cols[keep], indptr), shape=(nodes.size, nodes.size))


def _power_iteration(adjacency: sparse.csr_matrix, degree: np.ndarray, seeds: np.ndarray,
                     w: np.ndarray, cfg: GraphSection, walk_only: bool) -> np.ndarray:
    n = adjacency.shape[0]
    restart = np.bincount(seeds, weights=w, minlength=n)
    restart /= restart.sum()
    has_edges = degree > 0
    inv_degree = np.divide(1.0, degree, out=np.zeros(n), where=has_edges)
    p = restart.copy()
    for _ in range(cfg.ppr_iterations):
        # The adjacency is symmetric, so Pᵀp = A·(p / degree); the product in float32
        # (the adjacency's type: a float64 vector would upcast the matrix every time).
        dangling = p[~has_edges].sum()
        spread = adjacency @ (p * inv_degree).astype(np.float32) + dangling * restart
        nxt = cfg.ppr_restart * restart + (1 - cfg.ppr_restart) * spread
        done = np.abs(nxt - p).sum() < cfg.ppr_tolerance
        p = nxt
        if done:
            break
    if walk_only:
        # What arrived over edges: without the jumps back to the seeds, a seed with no
        # links would score as if the whole graph pointed at it. Read as the last step's
        # spread over the edges, not as p less its jumps: that difference leaves rounding
        # dust (1e-17) on seeds without a link, which the division by the max below made 1.
        p = (1 - cfg.ppr_restart) * (adjacency @ (p * inv_degree).astype(np.float32)).astype(np.float64)
    top = p.max()
    return p / top if top > 0 else p


def _hash_windows(ids: np.ndarray, starts: np.ndarray, k: int, vocab_size: int) -> np.ndarray:
    """One integer per k-token window: exact (base-V digits) while V**k fits in int64,
    else a polynomial hash mod 2**64 (collisions ~ n²/2**64, negligible)."""
    base = max(vocab_size, 1)
    if base ** k < 2 ** 63:
        out = np.zeros(len(starts), dtype=np.int64)
        for i in range(k):
            out = out * base + ids[starts + i].astype(np.int64)
        return out
    out = np.zeros(len(starts), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(k):
            out = out * _HASH_MULTIPLIER + ids[starts + i].astype(np.uint64) + np.uint64(1)
    return out



# ---- shingle sets that outlive one fit ------------------------------------------------------
# `_shingles` numbers shingles by the corpus' own vocabulary, which an update would change.
# Kept between ingests, each shingle is a 64-bit hash of its words' hashes instead: the same
# words give the same number in every process and every corpus (collisions ~ n²/2**64).

def word_hashes(words: Sequence[str]) -> np.ndarray:
    import hashlib

    return np.fromiter((int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
                        for w in words), dtype=np.uint64, count=len(words))


def shingle_postings(chunk_tokens: Sequence[Sequence[str]], k: int, first_row: int = 0
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Each chunk's set of word k-grams as (hash, chunk row) pairs sorted by hash, then row;
    rows count from `first_row`."""
    n = len(chunk_tokens)
    lengths = np.fromiter(map(len, chunk_tokens), dtype=np.int64, count=n)
    vocab: dict[str, int] = {}
    ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in itertools.chain.from_iterable(chunk_tokens)),
                      dtype=np.int64, count=int(lengths.sum()))
    hashes_of = word_hashes(list(vocab))
    doc_of = np.repeat(np.arange(n, dtype=np.int32), lengths)
    starts = np.arange(max(len(ids) - k + 1, 0), dtype=np.int64)
    starts = starts[doc_of[starts] == doc_of[starts + k - 1]]
    out = np.zeros(len(starts), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(k):
            out = out * _HASH_MULTIPLIER + hashes_of[ids[starts + i]] + np.uint64(1)
    rows = doc_of[starts] + np.int32(first_row)
    order = np.lexsort((rows, out))
    out, rows = out[order], rows[order]
    if out.size:
        distinct = np.r_[True, (out[1:] != out[:-1]) | (rows[1:] != rows[:-1])]
        out, rows = out[distinct], rows[distinct]
    return out, rows.astype(np.int32)


def merge_postings(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Two sorted posting lists as one (sorted by hash, then row)."""
    hashes = np.concatenate([a[0], b[0]])
    rows = np.concatenate([a[1], b[1]])
    order = np.lexsort((rows, hashes))
    return hashes[order], rows[order]


def new_edges(hashes: np.ndarray, rows: np.ndarray, n: int, is_new: np.ndarray, docs: np.ndarray,
              limit: int, theta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, Jaccard), i < j, of every pair with at least one new chunk whose shingle sets
    (shingles in more than `limit` chunks removed) have a Jaccard above `theta`; chunks of
    one document are never linked. The cost follows the new chunks' shingles, not the corpus
    (apart from one pass to count each chunk's set size)."""
    if not hashes.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    first = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])
    ends = np.r_[first[1:], len(hashes)]
    df = ends - first
    sizes = np.bincount(rows[np.repeat(df <= limit, df)], minlength=n).astype(np.float64)
    mine = np.flatnonzero(np.repeat((df <= limit) & (df >= 2), df) & is_new[rows])
    g = np.searchsorted(first, mine, side="right") - 1     # each posting's shingle
    lengths = df[g]
    a = np.repeat(rows[mine].astype(np.int64), lengths)
    offsets = np.repeat(first[g] - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
    b = rows[offsets + np.arange(int(lengths.sum()))].astype(np.int64)
    # A pair of two new chunks is seen from both sides: counted from the lower row only.
    keep = (a != b) & (~is_new[b] | (a < b))
    a, b = a[keep], b[keep]
    key, inter = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    i, j = np.divmod(key, n)
    inter = inter.astype(np.float64)
    jac = inter / (sizes[i] + sizes[j] - inter)
    linked = (jac > theta) & (docs[i] != docs[j])
    return i[linked], j[linked], jac[linked]
