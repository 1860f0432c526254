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

import numpy as np

from ..config import Config
from .query_index import QueryIndex
from .scorers import (
    AnswerTypeScorer,
    BM25Scorer,
    CentralityScorer,
    CoverageScorer,
    DenseScorer,
    PageRankScorer,
    Query,
    TimeScorer,
    TypeHintScorer,
    TypeScorer,
    near_term,
)

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
    on_topic: bool = True    # about the question (see Ranker._on_topic)


@dataclasses.dataclass(frozen=True)
class Halting:
    stage: int               # candidate chunks scored at the stage that ended
    reason: str


class Ranker:
    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.config = config
        scoring = config.scoring
        self.relevance_parts = (
            (BM25Scorer(), scoring.alpha), (DenseScorer(), scoring.beta),
            (CentralityScorer(index), scoring.gamma),
            (PageRankScorer(index, scoring.ppr_seeds, max(scoring.stages)), scoring.delta))
        self.coverage = CoverageScorer(index)
        self.answer_type = AnswerTypeScorer(index, config)
        self.type_hint = TypeHintScorer(index, config)
        self.time = TimeScorer(index, config)
        self.types = TypeScorer(index, config)

    def rank(self, query: Query, k: int) -> tuple[list[Ranked], Halting]:
        index, scoring = self.index, self.config.scoring
        if index.n_chunks == 0:
            return [], Halting(0, "the store is empty")
        forced = self._window_events(query)
        # Per-question work the stages share, done once on a copy: scorers never write
        # into the query.
        ppr = next(scorer for scorer, _ in self.relevance_parts if isinstance(scorer, PageRankScorer))
        query = dataclasses.replace(query, ppr_all=ppr.walk(query))
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
        parts = {scorer.name: scorer.score(query, candidates) for scorer, _ in self.relevance_parts}
        parts["coverage"] = self.coverage.score(query, candidates)
        relevance = (sum(weight * parts[scorer.name] for scorer, weight in self.relevance_parts)
                     * parts["coverage"] ** scoring.coord_power)
        on_topic = self._on_topic(query, candidates, parts)
        ages = self.time.ages(query, candidates)
        parts["answer_type"] = self.answer_type.score(query, candidates)
        parts["type_weight"] = self.types.score(query, candidates)
        parts["type_hint"] = self.type_hint.score(query, candidates)
        # Whether a newer document supersedes an older one is judged on the evidence
        # without time: a store's sale flyer naming filter sizes is no rival to the invoice.
        evidence = relevance * parts["type_weight"] * parts["answer_type"] * parts["type_hint"]
        has_value = self.answer_type.states(query, candidates)
        rival = self.time.rivals(candidates, parts["coverage"], evidence, on_topic, has_value)
        superseded = self.time.superseded_events(candidates, parts["coverage"], evidence, on_topic, has_value,
                                                 query.kind)
        parts["decay"] = self.time.score(query, candidates, on_topic, ages, rival, superseded)
        # "What's on the calendar tomorrow" asks for the day itself: when the question's
        # topic is no more than the kind of document, the events of that day are the answer.
        day_question = in_window.size > 0 and query.topic.only_type_terms()
        parts["window"] = np.where(day_question & np.isin(candidates, in_window), scoring.window_event_boost, 1.0)
        final = (relevance * parts["decay"] * parts["type_weight"] * parts["answer_type"]
                 * parts["type_hint"] * parts["window"] * np.where(on_topic, 1.0, scoring.off_topic_factor))

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

    def _on_topic(self, query: Query, candidates: np.ndarray, parts: dict[str, np.ndarray]) -> np.ndarray:
        """Candidates about the question: a coverage of the question's topic words at least
        a share of the best candidate's, and a lexical-or-semantic match at least a share of
        the best — unless the candidate covers the question as fully as the best does (an
        event on the named day "mentions" the calendar by being one, in no words at all)."""
        scoring = self.config.scoring
        match = self._match(query, candidates, parts)
        coverage = parts["coverage"]
        on_topic = np.ones(candidates.size, dtype=bool)
        full = np.zeros(candidates.size, dtype=bool)
        if coverage.size and coverage.max() > 0:
            on_topic &= coverage >= scoring.relevant_coverage_share * coverage.max()
            full = coverage >= coverage.max() - 1e-9
        if match.size and match.max() > 0:
            on_topic &= (match >= scoring.relevant_share * match.max()) | full
        return on_topic

    def _match(self, query: Query, candidates: np.ndarray, parts: dict[str, np.ndarray]) -> np.ndarray:
        """A lexical-or-semantic match: normalised BM25 plus the positive cosine."""
        scoring = self.config.scoring
        return scoring.alpha * parts["bm25"] + scoring.beta * np.maximum(query.cosine_all[candidates], 0.0)

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
