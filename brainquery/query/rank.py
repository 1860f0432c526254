"""Candidates, scores and early halting: from a prepared question to ranked documents.

relevance = (alpha*bm25 + beta*dense + gamma*graph + delta*ppr) * coverage ** coord_power
final     = relevance * time * type_weight * answer_type * type_hint  (a candidate about the question)
          ... * off_topic_factor                                      (one that is not)

A document must first be about the question; time and type then decide among those that
are. "About the question" is a lexical-or-semantic match (normalised BM25, or the cosine)
of at least `relevant_share` of the best candidate's: without it the dense part's floor of
1/2 lets a fresh document that says nothing relevant outrank the only (old) one that does.

Candidates come from the hybrid of BM25 and dense over every chunk (a sparse product and
one matrix-vector product), plus every calendar event that falls in a day the question
names. Stages widen the candidate set (30, 60, 100 chunks) until the top document leads by
a clear margin and the rest of the top agrees with it.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..config import Config
from .decay import near_term
from .scorers import Candidates, PageRankScorer, Query, registry

if TYPE_CHECKING:  # config.py imports FUSIONS; the index loads with the first question
    from .occurrences import Series
    from .query_index import QueryIndex

PARTS = ("bm25", "dense", "graph", "ppr", "decay", "type_weight", "coverage", "answer_type",
         "type_hint", "window")


@dataclasses.dataclass(frozen=True)
class Ranked:
    """One document: its best chunk, its score and every part of it."""
    doc: int                 # document row in the index
    chunk: int               # best chunk row
    score: float
    relevance: float         # the weighted sum before time and type weights
    parts: dict[str, float]
    age_days: float          # NaN when undated
    on_topic: bool = True    # about the question (see scorers.Candidates.on_topic)


@dataclasses.dataclass(frozen=True)
class Halting:
    stage: int               # candidate chunks scored at the stage that ended
    reason: str


def _formula(cands: Candidates, scoring) -> np.ndarray:
    """relevance * time * type * answer_type * type_hint * window, off-topic damped."""
    p = cands.parts
    return (cands.relevance * p["decay"] * p["type_weight"] * p["answer_type"] * p["type_hint"]
            * p["window"] * np.where(cands.on_topic, 1.0, scoring.off_topic_factor))


# Fusion methods by name (config scoring.fusion). benchmarks/fusion_cv.py measures fitted
# alternatives against the formula; none has beaten it where it was not fitted.
FUSIONS = {"formula": _formula}


class Ranker:
    def __init__(self, index: QueryIndex, config: Config, series: Series):
        self.index = index
        self.config = config
        self.scorers = registry(index, config, series)
        self.fuse = FUSIONS[config.scoring.fusion]
        self._ppr = next(s for s in self.scorers if isinstance(s, PageRankScorer))

    def rank(self, query: Query, k: int) -> tuple[list[Ranked], Halting]:
        index, scoring = self.index, self.config.scoring
        if index.n_chunks == 0:
            return [], Halting(0, "the store is empty")
        forced = self._window_events(query)
        # Per-question work the stages share, done once on a copy: scorers never write
        # into the query.
        query = dataclasses.replace(query, ppr_all=self._ppr.walk(query))
        ranked: list[Ranked] = []
        halting = Halting(0, "no candidates")
        previous = 0
        for stage in scoring.stages:
            size = min(stage, index.n_chunks)
            if size <= previous and ranked:
                break
            previous = size
            top = _top(query.hybrid_all, size)
            candidates = np.union1d(top[np.isfinite(query.hybrid_all[top])], forced)
            ranked = self._score(query, candidates, max(k, scoring.halt_top_k), forced)
            reason = self._halt_reason(ranked)
            if reason:
                halting = Halting(size, reason)
                break
            last = size >= index.n_chunks or stage == scoring.stages[-1]
            halting = Halting(size, "no clear leader; all candidate stages used" if last
                              else f"no clear leader at {size} candidates")
        return ranked[:k], halting

    def _score(self, query: Query, candidates: np.ndarray, keep: int,
               in_window: np.ndarray) -> list[Ranked]:
        scoring = self.config.scoring
        cands = Candidates(candidates, in_window, query, self.config)
        for scorer in self.scorers:
            cands.parts[scorer.name] = scorer.score(query, cands)
        final = self.fuse(cands, scoring)
        parts, on_topic, relevance, ages = cands.parts, cands.on_topic, cands.relevance, cands.ages

        # Per document, its best chunk wins; the other matching chunks of the document add
        # `sibling_weight` of their scores (a document that answers in several places).
        docs = self.index.chunk_doc[candidates]
        order = np.lexsort((-final, docs))
        first = np.ones(order.size, dtype=bool)
        first[1:] = docs[order][1:] != docs[order][:-1]
        best = order[first]
        # Sums per document over the candidates only (not an array the size of the corpus).
        _, doc_of = np.unique(docs, return_inverse=True)
        totals = np.bincount(doc_of, weights=final)
        doc_score = final[best] + scoring.sibling_weight * (totals[doc_of[best]] - final[best])
        ranking = np.argsort(-doc_score, kind="stable")[:keep]
        best, doc_score = best[ranking], doc_score[ranking]
        return [Ranked(doc=int(docs[i]), chunk=int(candidates[i]), score=float(score),
                       relevance=float(relevance[i]),
                       parts={name: float(parts[name][i]) for name in PARTS},
                       age_days=float(ages[i]), on_topic=bool(on_topic[i]))
                for i, score in zip(best, doc_score)]

    def _halt_reason(self, ranked: list[Ranked]) -> str:
        scoring = self.config.scoring
        if len(ranked) < 2:
            return "one candidate document" if ranked else ""
        top, second = ranked[0].score, ranked[1].score
        margin = (top - second) / top if top > 0 else 0.0
        vectors = self.index.embeddings[[r.chunk for r in ranked[:scoring.halt_top_k]]]
        agreeing = vectors[1:] @ vectors[0] >= scoring.agreement_cosine
        agreement = float(agreeing.mean()) if agreeing.size else 1.0
        if margin >= scoring.halt_margin and agreement >= scoring.halt_agreement:
            return (f"top-1 margin {margin:.2f} >= {scoring.halt_margin} and top-{scoring.halt_top_k} "
                    f"agreement {agreement:.2f} >= {scoring.halt_agreement}")
        return ""

    def _window_events(self, query: Query) -> np.ndarray:
        """Chunks of calendar events with an occurrence inside the day or range named."""
        window, index = query.route.window, self.index
        if not near_term(window, self.config) or not index.occ_doc.size:
            return np.zeros(0, dtype=np.int64)
        lo, hi = window.start.timestamp(), window.end.timestamp()
        inside = (index.occ_start < hi) & (index.occ_end >= lo)
        docs = np.unique(index.occ_doc[inside])
        if not docs.size:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate([index.doc_rows(doc) for doc in docs]))


def _top(values: np.ndarray, n: int) -> np.ndarray:
    if n >= values.size:
        return np.arange(values.size)
    return np.argpartition(-values, n - 1)[:n]
