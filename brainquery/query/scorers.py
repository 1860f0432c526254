"""The scorers: one interface, one small class per signal.

Each takes the query (with everything computed once per question) and an array of
candidate chunk rows, and returns one float per candidate. No scorer loops over documents
in Python and none has side effects.
"""
from __future__ import annotations

import dataclasses
from typing import Protocol

import numpy as np

from ..config import Config
from .coverage import TopicTerms
from .decay import SECONDS_PER_DAY, per_type, period_weight, rivalled, time_weight
from .query_index import QueryIndex
from .router import Route


@dataclasses.dataclass
class Query:
    """One question, prepared: the route, its terms, the scores that cover every chunk."""
    text: str
    route: Route
    now: float                       # epoch seconds
    terms: list[tuple[str, float]]
    bm25_all: np.ndarray             # raw BM25 of every chunk
    cosine_all: np.ndarray           # dense cosine of every chunk
    hybrid_all: np.ndarray           # candidate generation: normalised BM25 + dense
    topic: TopicTerms
    kind: str | None = None           # the kind of span that answers the question
    ppr_all: np.ndarray | None = None


def near_term(window, config: Config) -> bool:
    """A day or a short range ("tomorrow", "this week"): events in it are what is asked
    about. A long range ("this year") qualifies the question like a past period does."""
    if window is None or window.kind not in ("day", "range"):
        return False
    return (window.end - window.start).total_seconds() <= config.scoring.near_term_max_days * SECONDS_PER_DAY


class Scorer(Protocol):
    name: str

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray: ...


def _max_normalised(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


class BM25Scorer:
    """BM25Okapi, normalised by its max over the candidates."""
    name = "bm25"

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        return _max_normalised(query.bm25_all[candidates])


class DenseScorer:
    """The query's cosine with each chunk in the TF-IDF -> SVD space, as (1 + cos) / 2."""
    name = "dense"

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        return 0.5 * (1.0 + query.cosine_all[candidates])


class CentralityScorer:
    """Corroboration: weighted degree in the evidence graph (near-duplicates collapsed)."""
    name = "graph"

    def __init__(self, index: QueryIndex):
        self.centrality = np.asarray(index.graph.centrality_, dtype=np.float64)

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        return self.centrality[candidates] if self.centrality.size else np.zeros(len(candidates))


class PageRankScorer:
    """Personalised PageRank seeded by the top hybrid hits: reaches documents that the
    question's words miss but that the hits link to (the roofer's invoice from the email
    that names the roofer)."""
    name = "ppr"

    def __init__(self, index: QueryIndex, seeds: int, pool: int):
        self.graph = index.graph
        self.seeds = seeds
        self.pool = pool

    def walk(self, query: Query) -> np.ndarray:
        """The walk's score of every chunk, once per question (the ranker keeps it on the
        query it prepares for the stages; `score` only reads it)."""
        hybrid = query.hybrid_all
        n = min(self.seeds, hybrid.size)
        if n == 0:
            return np.zeros(hybrid.size)
        top = np.argpartition(-hybrid, n - 1)[:n]
        # Local PageRank: the seeds, their neighbours and the widest candidate set. A walk
        # over the whole graph costs ~135 ms at 100,000 chunks; this one a few.
        neighbours = self.graph.adjacency_[top].indices
        pool = min(self.pool, hybrid.size)
        widest = np.argpartition(-hybrid, pool - 1)[:pool]
        nodes = np.union1d(np.union1d(neighbours, widest), top)
        return np.asarray(self.graph.ppr(top, hybrid[top], walk_only=True, nodes=nodes), dtype=np.float64)

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        walked = query.ppr_all if query.ppr_all is not None else self.walk(query)
        return _max_normalised(walked[candidates])


class CoverageScorer:
    """The IDF-weighted share of the question's topic words the chunk mentions."""
    name = "coverage"

    def __init__(self, index: QueryIndex):
        self.index = index

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        index = self.index
        return query.topic.of_chunks(index.bm25, candidates, index.doc_type[index.chunk_doc[candidates]])


class AnswerTypeScorer:
    """Does the chunk hold a span of the kind the question wants (a size for "what size",
    an amount for "how much")? Chunks that cannot answer are weighted down, not dropped."""
    name = "answer_type"

    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.miss = config.scoring.kind_miss_factor
        self.dated_kinds = set(config.answer.dated_kinds)

    def states(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        """Does the chunk's text hold a span of the kind asked for (a date written in it,
        not the document's own date)?"""
        kind = query.kind
        if kind is None or kind not in self.index.kind_names:
            return np.zeros(len(candidates), dtype=bool)
        return self.index.chunk_kinds[candidates, self.index.kind_names.index(kind)].astype(bool)

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        kind = query.kind
        if kind is None or kind not in self.index.kind_names:
            return np.ones(len(candidates))
        has = self.index.chunk_kinds[candidates, self.index.kind_names.index(kind)]
        if kind in self.dated_kinds:
            # "When did she send the photo?": a dated document answers by its date.
            has = has | ~np.isnan(self.index.doc_epoch[self.index.chunk_doc[candidates]])
        return np.where(has, 1.0, self.miss)


class TypeHintScorer:
    """A question that names a kind of document ("on the calendar", "the receipt")."""
    name = "type_hint"

    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.boost = config.scoring.type_hint_boost

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        hinted = query.topic.hinted_types()
        if not hinted.size:
            return np.ones(len(candidates))
        types = self.index.doc_type[self.index.chunk_doc[candidates]]
        return np.where(np.isin(types, hinted), self.boost, 1.0)


class TimeScorer:
    """The time weight: per-pattern decay with per-type half-lives and floors, a period
    window when the question names one, the logistical soft cutoff."""
    name = "decay"

    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.config = config
        names = list(index.type_names)
        self.event_code = names.index("calendar_event") if "calendar_event" in names else -1
        self.series_rival_codes = np.array([names.index(t) for t in config.time.rival.series_rival_types
                                            if t in names], dtype=np.int64)

    def ages(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        """|now - date| in days per candidate; for a calendar event the distance from its
        nearest occurrence to now, or to the named day or range."""
        index = self.index
        docs = index.chunk_doc[candidates]
        epoch = index.doc_epoch[docs]
        age = np.abs(query.now - epoch) / SECONDS_PER_DAY
        if not index.occ_doc.size:
            return age
        window = query.route.window
        if near_term(window, self.config):
            lo, hi = window.start.timestamp(), window.end.timestamp()
        else:
            lo = hi = query.now
        # Distance between [lo, hi] and each occurrence [start, end] (0 when they overlap),
        # the nearest per candidate: only the candidates' own occurrences are read.
        rows, offsets = index.occurrence_slices(docs)
        if not rows.size:
            return age
        gap = (np.maximum(index.occ_start[rows] - hi, 0.0) + np.maximum(lo - index.occ_end[rows], 0.0)) / SECONDS_PER_DAY
        has = np.diff(np.append(offsets, rows.size)) > 0
        event_age = np.full(len(docs), np.inf)
        event_age[has] = np.minimum.reduceat(gap, offsets[has])
        return np.where(np.isfinite(event_age), event_age, age)

    def rivals(self, candidates: np.ndarray, coverage: np.ndarray, match: np.ndarray,
               on_topic: np.ndarray, has_value: np.ndarray) -> np.ndarray:
        """Candidates a newer document about the same subject competes with (decay.rivalled).
        A calendar event is always judged by its own time against the question's."""
        index = self.index
        docs = index.chunk_doc[candidates]
        rival = rivalled(index.doc_epoch[docs], coverage, match, on_topic, has_value, self.config.time.rival)
        return rival | (index.doc_type[docs] == self.event_code)

    def superseded_events(self, candidates: np.ndarray, coverage: np.ndarray, match: np.ndarray,
                          on_topic: np.ndarray, has_value: np.ndarray, kind: str | None) -> np.ndarray:
        """Recurring calendar series that began before a document, not itself an event, that
        is about the same subject: the email that moved the practice, the council letter
        that changed the bin day. An event planned after that document is not overtaken."""
        index = self.index
        docs = index.chunk_doc[candidates]
        # Only a series: a one-off event is the record of its own day, whatever came later.
        series = (index.occ_ptr[docs + 1] - index.occ_ptr[docs]) > 1 if index.occ_ptr.size else False
        event = (index.doc_type[docs] == self.event_code) & series
        if not np.any(event):
            return event
        # Who can move a standing plan: a person's mail or note, a notice; not a flyer.
        can_rival = np.isin(index.doc_type[docs], self.series_rival_codes)
        if kind is not None:
            # ... and states a value of the kind asked for (a new time, a new day): mail
            # that only talks about the subject leaves the plan as it was.
            can_rival &= has_value
        rival = rivalled(index.doc_epoch[docs], coverage, match, on_topic & can_rival, has_value,
                         self.config.time.rival)
        return event & rival & ~np.isnan(index.doc_epoch[docs])

    def score(self, query: Query, candidates: np.ndarray, on_topic: np.ndarray | None = None,
              ages: np.ndarray | None = None, rival: np.ndarray | None = None,
              superseded: np.ndarray | None = None) -> np.ndarray:
        """`ages`: self.ages(query, candidates), when the caller has them already; `rival`:
        self.rivals(...), None for the pattern's age weight on every candidate."""
        index, route = self.index, query.route
        docs = index.chunk_doc[candidates]
        window = route.window
        period_end = None
        if window is not None and not near_term(window, self.config):
            period_end = window.end.timestamp() if window.kind == "period" else np.inf
        elif (window is not None and route.pattern == "historical"
              and window.end.timestamp() <= query.now):
            # A past day asked about historically ("for Halloween", "last Friday") is a
            # period like "in 2023": what was made around it tells of it.
            period_end = window.end.timestamp()
        if period_end is not None:
            weight = period_weight(self.config.time.period, index.doc_epoch[docs],
                                   window.start.timestamp(), period_end, anchored=bool(window.anchor))
        else:
            model = getattr(self.config.time, route.pattern)
            relevant = np.ones(len(candidates), dtype=bool) if on_topic is None else on_topic
            ages = self.ages(query, candidates) if ages is None else ages
            weight = time_weight(model, ages, index.doc_type[docs],
                                 index.type_names, route.recency, relevant, rival)
        if superseded is not None:
            weight = np.where(superseded, weight * self.config.time.rival.superseded_event_factor, weight)
        cancelled = index.doc_cancelled[docs]
        weight = np.where(cancelled, weight * self.config.scoring.cancelled_factor, weight)
        if route.pattern == "historical":
            ahead = (index.doc_type[docs] == self.event_code) & (index.doc_epoch[docs] > query.now)
            weight = np.where(ahead, weight * self.config.scoring.historical_future_event_factor, weight)
        return weight


class TypeScorer:
    """How much each kind of document counts for this pattern of question."""
    name = "type_weight"

    def __init__(self, index: QueryIndex, config: Config):
        cfg = config.type_weight
        self.index = index
        self.tables = {pattern: per_type(getattr(cfg, pattern), cfg.default, index.type_names)
                       for pattern in ("logistical", "entity", "historical")}

    def score(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        return self.tables[query.route.pattern][self.index.doc_type[self.index.chunk_doc[candidates]]]
