"""The scorers: one interface, one small class per signal, run in `registry` order.

Each takes the query (with everything computed once per question) and the candidates of
a stage (their chunk rows, and the parts the scorers before it computed), and returns one
float per candidate. No scorer loops over documents in Python, and none writes into the
query: what a stage learns about its candidates lives on `Candidates`.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..config import Config
from .coverage import TopicTerms
from .decay import SECONDS_PER_DAY, TimeScorer, near_term, one_day_ahead, past_days_asked
from .mentions import DayMentions

if TYPE_CHECKING:  # (config.py imports this module's registry; the index loads with a question)
    from .occurrences import Series
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


class Candidates:
    """The chunks one stage scores, the parts computed for them so far, and what follows
    from those parts: relevance, the match, whether each is about the question."""

    def __init__(self, rows: np.ndarray, in_window: np.ndarray, query: Query, config: Config):
        self.rows = rows
        self.in_window = in_window          # chunks of events in the day or range named
        self.parts: dict[str, np.ndarray] = {}
        self.ages: np.ndarray | None = None  # set by the time scorer, shown with each result
        self.words: np.ndarray | None = None  # set by the coverage scorer: the topic words each names
        # ... and, asked with stand-ins (associates.py), the coverage of each calendar event
        # counting them in full: an entry's few words are all it has to name the question by.
        self.lent_cover: np.ndarray | None = None
        self._query = query
        self._scoring = config.scoring
        self._dated: np.ndarray | None = None

    def dated_in_window(self, mentions: DayMentions) -> np.ndarray:
        """Does each chunk write a date inside the question's window? Read once a stage:
        coverage and time both ask it of a question about one day."""
        if self._dated is None:
            self._dated = mentions.mentions(self.rows, self._query.route.window, weekdays=False)[0]
        return self._dated

    def __len__(self) -> int:
        return len(self.rows)

    @functools.cached_property
    def relevance(self) -> np.ndarray:
        """(alpha*bm25 + beta*dense + gamma*graph + delta*ppr) * coverage ** coord_power."""
        s, p = self._scoring, self.parts
        return ((s.alpha * p["bm25"] + s.beta * p["dense"] + s.gamma * p["graph"] + s.delta * p["ppr"])
                * p["coverage"] ** s.coord_power)

    @functools.cached_property
    def match(self) -> np.ndarray:
        """A lexical-or-semantic match: normalised BM25 plus the positive cosine."""
        s = self._scoring
        return s.alpha * self.parts["bm25"] + s.beta * np.maximum(self._query.cosine_all[self.rows], 0.0)

    @functools.cached_property
    def on_topic(self) -> np.ndarray:
        """About the question: a coverage of its topic words at least a share of the best
        candidate's, and a match at least a share of the best — unless the candidate covers
        the question as fully as the best does (an event on the named day "mentions" the
        calendar by being one, in no words at all; a team's feed is about "Mateo's soccer"
        in the words the household lends it, "U10 Green": `lent_cover`)."""
        s, match, coverage = self._scoring, self.match, self.parts["coverage"]
        on_topic = np.ones(len(self), dtype=bool)
        full = np.zeros(len(self), dtype=bool)
        if coverage.size and coverage.max() > 0:
            on_topic &= coverage >= s.relevant_coverage_share * coverage.max()
            full = coverage >= coverage.max() - 1e-9
            if self.lent_cover is not None:
                full |= self.lent_cover >= coverage.max() - 1e-9
        if match.size and match.max() > 0:
            on_topic &= (match >= s.relevant_share * match.max()) | full
        return on_topic

    @property
    def evidence(self) -> np.ndarray:
        """The score before time: whether a newer document supersedes an older one is judged
        on it (a store's sale flyer naming filter sizes is no rival to the invoice)."""
        p = self.parts
        return self.relevance * p["type_weight"] * p["answer_type"] * p["type_hint"]


class Scorer(Protocol):
    name: str

    def score(self, query: Query, cands: Candidates) -> np.ndarray: ...


def dense_trust(n_fit: int, min_chunks: int, full_chunks: int) -> float:
    """How far the dense model's cosines are believed, by the chunks it was fitted on: not
    at all up to `min_chunks` (an SVD of a few chunks keeps each of them whole, and two texts
    that share no word can meet at a cosine of 1), fully from `full_chunks`, linearly
    between. The cosines are multiplied by it: an untrusted model says 0, "no opinion",
    and the dense part stays at its neutral 1/2 instead of dropping out."""
    return float(np.clip((n_fit - min_chunks) / max(full_chunks - min_chunks, 1), 0.0, 1.0))


def _max_normalised(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


class BM25Scorer:
    """BM25Okapi, normalised by its max over the candidates."""
    name = "bm25"

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        return _max_normalised(query.bm25_all[cands.rows])


class DenseScorer:
    """The query's cosine with each chunk in the TF-IDF -> SVD space, as (1 + cos) / 2."""
    name = "dense"

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        return 0.5 * (1.0 + query.cosine_all[cands.rows])


class CentralityScorer:
    """Corroboration: weighted degree in the evidence graph (near-duplicates collapsed)."""
    name = "graph"

    def __init__(self, index: QueryIndex):
        self.centrality = np.asarray(index.graph.centrality_, dtype=np.float64)

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        return self.centrality[cands.rows] if self.centrality.size else np.zeros(len(cands))


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
        neighbours = self.graph.neighbours(top)
        pool = min(self.pool, hybrid.size)
        widest = np.argpartition(-hybrid, pool - 1)[:pool]
        nodes = np.union1d(np.union1d(neighbours, widest), top)
        return np.asarray(self.graph.ppr(top, hybrid[top], walk_only=True, nodes=nodes), dtype=np.float64)

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        walked = query.ppr_all if query.ppr_all is not None else self.walk(query)
        return _max_normalised(walked[cands.rows])


class CoverageScorer:
    """The IDF-weighted share of the question's topic words the chunk mentions. A letter to
    a group ("Dear Room 114 families", "Hi Colts families") names no child, yet may be about
    any of them: it counts as naming the people the question asks about part of the way.
    Asked what happens on one day soon ("is Friday a half day"), a letter that writes that
    very date says what happens then in its own words ("Friday 13 November: School closes
    at 12:00", "Freitag, 13. November ist am Nachmittag schulfrei"): it counts as naming
    the rest of the question `day_credit` of the way."""
    name = "coverage"

    def __init__(self, index: QueryIndex, config: Config, mentions: DayMentions | None = None):
        self.index = index
        self.config = config
        self.mentions = mentions
        self.salutation = re.compile(config.scoring.group_salutation, re.IGNORECASE | re.MULTILINE)
        self.head_chars = config.scoring.group_salutation_chars
        self.credit = config.scoring.group_name_credit
        self.day_credit = config.scoring.named_day_credit
        self.event_code = index.type_code("calendar_event")
        self._to_group: dict[int, bool] = {}

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        index = self.index
        docs = index.chunk_doc[cands.rows]
        to_group = np.array([self.to_group(int(d)) for d in docs], dtype=bool) if query.topic.name_terms else None
        cover, cands.words = query.topic.cover_and_words(index.bm25, cands.rows, index.doc_type[docs],
                                                         np.isin(cands.rows, cands.in_window), to_group,
                                                         self.credit)
        topic = query.topic
        if topic.associates and topic.weights.sum() > 0:
            events = index.doc_type[docs] == self.event_code
            cands.lent_cover = np.where(events, cands.words.astype(np.float64) @ topic.weights / topic.weights.sum(),
                                        -np.inf)
        if self.day_credit > 0 and self.mentions is not None and one_day_ahead(query.route, query.now, self.config):
            dated = cands.dated_in_window(self.mentions)
            cover = np.where(dated, cover + self.day_credit * (1.0 - cover), cover)
        elif self.day_credit > 0 and past_days_asked(query.route, query.now, self.config):
            # Asked about a day that is over ("what happened to John's old area on 7 July"),
            # a letter written that day or soon after, or writing it, tells of it in words
            # of its own ("a nasty flood last week"): the day is part of what the question
            # names, `day_credit` of it, which a letter of another time lacks.
            window = query.route.window
            epochs = index.doc_epoch[docs]
            after = self.config.scoring.past_day_report_days * SECONDS_PER_DAY
            on_day = (epochs >= window.start.timestamp()) & (epochs < window.end.timestamp() + after)
            if self.mentions is not None:
                on_day |= cands.dated_in_window(self.mentions)
            cover = np.where(on_day, cover + self.day_credit * (1.0 - cover), cover * (1.0 - self.day_credit))
        return cover

    def to_group(self, doc: int) -> bool:
        """Does the document open by greeting a group? (Read once per document.)"""
        found = self._to_group.get(doc)
        if found is None:
            rows = self.index.doc_rows(doc)
            head = self.index.chunk_texts[rows[0]][:self.head_chars] if len(rows) else ""
            found = self._to_group[doc] = self.salutation.search(head) is not None
        return found


class AnswerTypeScorer:
    """Does the chunk hold a span of the kind the question wants (a size for "what size",
    an amount for "how much")? Chunks that cannot answer are weighted down, not dropped."""
    name = "answer_type"

    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.miss = config.scoring.kind_miss_factor
        self.exempt = frozenset(config.scoring.kind_miss_exempt)
        self.dated_kinds = set(config.answer.dated_kinds)
        self.event_kinds = set(config.events.kinds)
        self.clock_asked = re.compile(config.events.clock_asked, re.IGNORECASE)
        self.event_code = index.type_code("calendar_event")

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        kind, candidates = query.kind, cands.rows
        if kind is None or kind not in self.index.kind_names or kind in self.exempt:
            return np.ones(len(candidates))
        has = self.index.states(kind, candidates)
        # A calendar event holds its time in its fields: "when" of an all-day event is its
        # day. Asked for the hour, only an entry that writes one holds it (a trip's all-day
        # entry has no time of the flight).
        if not (kind == "time" and self.clock_asked.search(query.text)):
            has = has | ((self.index.doc_type[self.index.chunk_doc[candidates]] == self.event_code)
                         & (kind in self.event_kinds))
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

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        hinted, candidates = query.topic.hinted_types(), cands.rows
        if not hinted.size:
            return np.ones(len(candidates))
        types = self.index.doc_type[self.index.chunk_doc[candidates]]
        return np.where(np.isin(types, hinted), self.boost, 1.0)


class TypeScorer:
    """How much each kind of document counts for this pattern of question."""
    name = "type_weight"

    def __init__(self, index: QueryIndex, config: Config):
        cfg = config.type_weight
        self.index = index
        self.tables = {pattern: np.array([cfg.weight(pattern, name) for name in index.type_names], dtype=np.float64)
                       for pattern in ("logistical", "entity", "historical")}

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        return self.tables[query.route.pattern][self.index.doc_type[self.index.chunk_doc[cands.rows]]]


class WindowScorer:
    """A day or short range the question names. "What's on the calendar tomorrow" asks for
    the day itself: when the question's topic is no more than the kind of document, the
    events of that day are the answer. Asked about something on that day, a letter that
    names it ("I've pencilled you in for Tuesday 20/10/2026", "bins are collected on
    Fridays"), or an event taking place then, is about it: `window_mention_boost`."""
    name = "window"

    def __init__(self, mentions: DayMentions, config: Config):
        self.mentions = mentions
        self.config = config
        self.boost = config.scoring.window_event_boost
        self.mention_boost = config.scoring.window_mention_boost
        self.date_boost = config.scoring.window_date_boost

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        in_window = np.isin(cands.rows, cands.in_window)
        day_question = cands.in_window.size > 0 and query.topic.only_type_terms()
        out = np.where(day_question & in_window, self.boost, 1.0)
        window = query.route.window
        if day_question or self.mention_boost == 1.0 or not near_term(window, self.config):
            return out
        # A weekday is a day ahead only: "the game on Saturday" in last week's letter is no
        # mention of a Saturday gone by.
        dated, by_weekday = self.mentions.mentions(cands.rows, window, weekdays=window.end.timestamp() > query.now)
        # Asked about one day, a letter writing that very date ("Lundi 15 février : la
        # garderie est fermée") says more about it than one naming its weekday among others
        # ("Monday to Friday"); a date somewhere in a week asked about is no such evidence.
        one_day = (window.end - window.start).total_seconds() <= SECONDS_PER_DAY
        boost = np.where(dated & one_day, self.date_boost, self.mention_boost)
        return np.where(dated | by_weekday | in_window, out * boost, out)


def registry(index: QueryIndex, config: Config, series: Series) -> list[Scorer]:
    """Every scorer, in the order they run: the relevance parts and coverage first (on
    them rests whether a candidate is about the question), then the kind of document and
    of answer (the evidence newer documents are weighed on), then time and the window."""
    scoring = config.scoring
    mentions = DayMentions(index, config)
    return [BM25Scorer(), DenseScorer(), CentralityScorer(index),
            PageRankScorer(index, scoring.ppr_seeds, max(scoring.stages)), CoverageScorer(index, config, mentions),
            AnswerTypeScorer(index, config), TypeScorer(index, config), TypeHintScorer(index, config),
            TimeScorer(index, config, series, mentions), WindowScorer(mentions, config)]
