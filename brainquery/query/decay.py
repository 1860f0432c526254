"""Time weights: how much a document's age counts for a question. All of the time logic
lives here: the decay models, the period and near-term windows, rivalry and supersession,
cancelled and future events, and (`staleness`) how old the answer's source is for the
confidence message.

One small function per decay model, chosen by name; everything else is a mask over the
candidates. Ages are distances in days (|now - date|, or for a calendar event the distance
to its nearest occurrence), NaN for an undated document, which gets the pattern's
`undated` weight instead of being taken as fresh.
"""
from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from ..config import ConfidenceSection, Config, DecayModel, PeriodWeight, RivalRule
from ..textproc import Analyzer, fold, reuse_analyzer
from . import answer as answers
from .mentions import days_named
if TYPE_CHECKING:   # the scorers' shared types; scorers.py imports this module
    from .mentions import DayMentions
    from .occurrences import Series
    from .query_index import QueryIndex
    from .router import Route
    from .scorers import Candidates, Query

SECONDS_PER_DAY = 86400.0
# Clock times are compared on a 12-hour dial: a letter's "practice at 5:30" is the calendar's 17:30.
HALF_DAY_MINUTES = 720


def _exponential(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    return np.power(0.5, age / half_life)


def _linear(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    # Falls by one half per half-life: 1 at age 0, 0.5 at one half-life, 0 at two.
    return 1.0 - 0.5 * age / half_life


def _none(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    return np.ones_like(age)


DECAY_FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "exponential": _exponential,
    "linear": _linear,
    "none": _none,
}


def decay_function(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    try:
        return DECAY_FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"unknown decay model {name!r}; valid: {', '.join(DECAY_FUNCTIONS)}") from None


def per_type(table: Mapping[str, float], default: float, type_names: Sequence[str]) -> np.ndarray:
    """A lookup array indexed by type code: table[type] or the default."""
    return np.array([float(table.get(name, default)) for name in type_names], dtype=np.float64)


def time_weight(model: DecayModel, age_days: np.ndarray, type_codes: np.ndarray,
                type_names: Sequence[str], recency: float, relevant: np.ndarray,
                rival: np.ndarray | None = None, uncut: np.ndarray | None = None) -> np.ndarray:
    """The time weight of each candidate under `model`.

    `relevant` marks candidates that answer the question at all: the soft cutoff only
    demotes an old document when a relevant one inside the cutoff exists ("unless no newer
    source exists"), so a question whose only evidence is old still gets an answer, which
    the confidence message then flags as stale. `rival` marks candidates a newer document
    about the same subject competes with (`rivalled`): only they are cut, and the others
    pay `unrivalled_power` of their weight. None: every candidate pays all of it. `uncut`:
    candidates the cutoff spares (an event still ahead).
    """
    age = np.asarray(age_days, dtype=np.float64)
    dated = ~np.isnan(age)
    safe_age = np.where(dated, age, 0.0)
    half_life = per_type(model.half_life_by_type, model.half_life_days, type_names)[type_codes]
    floor = per_type(model.floor_by_type, model.floor, type_names)[type_codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = decay_function(model.model)(safe_age, np.where(half_life > 0, half_life, np.inf))
    # The floor itself fades slowly: among documents that have all decayed to it, the
    # newer still ranks first (a flat floor would tie a 2022 note with a 2025 notice).
    if model.floor_half_life_days > 0:
        floor = floor * np.power(0.5, safe_age / model.floor_half_life_days)
    weight = np.clip(raw, floor, 1.0)
    if model.cutoff_days > 0:
        inside = dated & (safe_age <= model.cutoff_days)
        if np.any(inside & relevant):
            # Only a document a newer one rivals is cut: the council's letter that moved the
            # bin day is not out of date because a calendar reminder happens this week.
            cut = dated & ~inside & (rival if rival is not None else True)
            if uncut is not None:
                cut &= ~uncut
            weight = np.where(cut, weight * model.cutoff_factor, weight)
    weight = np.where(dated, weight, model.undated)
    if model.recency_blend:
        # weight ** r: no time weight for r = 0, all of it for r = 1, and in between the
        # order of ages is kept (a linear blend would flatten every old document to 1 - r).
        weight = np.power(weight, recency)
    if rival is not None:
        weight = np.where(rival, weight, np.power(weight, model.unrivalled_power))
    return weight


def shared_words(words: np.ndarray | None, weights: np.ndarray) -> np.ndarray | None:
    """[i, j]: the share of the topic words candidate i names (by weight) that j names too;
    `words` (candidates x topic words) as coverage found them."""
    if words is None or not words.size:
        return None
    w = np.asarray(weights, dtype=np.float64)
    own = words.astype(np.float64) @ w
    both = (words[:, None, :] & words[None, :, :]).astype(np.float64) @ w
    return np.where(own[:, None] > 0, both / np.where(own > 0, own, 1.0)[:, None], 1.0)


def rivalled(epochs: np.ndarray, coverage: np.ndarray, evidence: np.ndarray, on_topic: np.ndarray,
             has_value: np.ndarray, cfg: RivalRule, before: np.ndarray | None = None,
             pairs: np.ndarray | None = None, shared: np.ndarray | None = None,
             by_whom: bool = False) -> np.ndarray:
    """Which candidates a newer one about the same subject may have superseded: a document
    written at least `min_gap_days` later, about the question, naming nearly all the words
    it names (`shared`, from `shared_words`; without it, covering the question's words
    nearly as fully), with evidence (its score before time) about as strong — or, when both state a
    value of the kind asked for (a size, an amount, a time), at least `value_match_share`
    as strong. An old document with no such rival is not out of date, only old (a pet's
    microchip number, who someone is). `before`: per candidate, a time its rival must be
    written before (a plan is changed before it happens), or +inf; `pairs` [i, j]: may j
    rival i at all. `by_whom`: the [i, j] matrix of who rivals whom instead."""
    epochs = np.asarray(epochs, dtype=np.float64)
    dated = ~np.isnan(epochs)
    newer = (epochs[None, :] - epochs[:, None]) >= cfg.min_gap_days * SECONDS_PER_DAY   # [i, j]: j newer
    if before is not None:
        newer &= epochs[None, :] < np.asarray(before, dtype=np.float64)[:, None]
    if pairs is not None:
        newer &= pairs
    newer &= dated[None, :] & dated[:, None] & on_topic[None, :]
    if shared is not None:
        # The babysitter's hours ("till 7:30 in the evening") are no newer word on when the
        # gym closes: a rival names what the old document names, not as much of the question.
        covers = shared >= cfg.coverage_share - 1e-9
    else:
        covers = coverage[None, :] >= cfg.coverage_share * coverage[:, None] - 1e-9
    matches = evidence[None, :] >= cfg.match_share * evidence[:, None]
    values = ((has_value[None, :] & has_value[:, None])
              & (evidence[None, :] >= cfg.value_match_share * evidence[:, None]))
    rivals = newer & covers & (matches | values)
    if by_whom:
        return rivals
    return rivals.any(axis=1) | ~dated


def period_weight(cfg: PeriodWeight, epochs: np.ndarray, start: float, end: float,
                  anchored: bool = False) -> np.ndarray:
    """1 inside [start, end), decaying with the distance outside (with the anchored
    half-life for a window bounded by an event; 0 is a hard edge); undated documents get
    the floor (they cannot be placed in the period)."""
    epochs = np.asarray(epochs, dtype=np.float64)
    distance = np.maximum(start - epochs, 0.0) + np.maximum(epochs - end, 0.0)
    days = np.where(np.isnan(distance), np.inf, distance / SECONDS_PER_DAY)
    half_life = cfg.anchor_half_life_days if anchored else period_half_life(cfg, end - start)
    if half_life <= 0:
        return np.where(days > 0, cfg.floor, 1.0)
    return np.maximum(np.power(0.5, days / half_life), cfg.floor)


def period_half_life(cfg: PeriodWeight, length: float) -> float:
    """How fast the weight fades outside a period `length` seconds long: in proportion to
    it ("in June" is not much told of by a letter of late July; "in 2023" is, by one of
    January 2024), between `min_half_life_days` and `half_life_days`."""
    days = length / SECONDS_PER_DAY if np.isfinite(length) else np.inf
    return float(np.clip(cfg.length_share * days, cfg.min_half_life_days, cfg.half_life_days))


def near_term(window, config: Config) -> bool:
    """A day or a short range ("tomorrow", "this week"): events in it are what is asked
    about. A long range ("this year") qualifies the question like a past period does."""
    if window is None or window.kind not in ("day", "range"):
        return False
    return (window.end - window.start).total_seconds() <= config.scoring.near_term_max_days * SECONDS_PER_DAY


def period_asked(route: Route, now: float, config: Config) -> float | None:
    """The end of the period the question's time weight centres on (inf: open-ended), or
    None when it asks about no period."""
    window = route.window
    if window is not None and not near_term(window, config):
        return window.end.timestamp() if window.kind == "period" else np.inf
    if window is not None and route.pattern == "historical" and window.end.timestamp() <= now:
        # A past day asked about historically ("for Halloween", "last Friday") is a
        # period like "in 2023": what was made around it tells of it.
        return window.end.timestamp()
    return None


def past_days_asked(route: Route, now: float, config: Config) -> bool:
    """A period of a day or a few days, over ("on 7 July, 2023", "last Friday")."""
    end = period_asked(route, now, config)
    return (end is not None and end <= now
            and end - route.window.start.timestamp() <= config.scoring.near_term_max_days * SECONDS_PER_DAY)


def one_day_ahead(route: Route, now: float, config: Config) -> bool:
    """A logistical question about one day still to come ("is Friday a half day")."""
    window = route.window
    return (route.pattern == "logistical" and near_term(window, config) and window.end.timestamp() > now
            and (window.end - window.start).total_seconds() <= SECONDS_PER_DAY)


class TimeScorer:
    """The time weight: per-pattern decay with per-type half-lives and floors, a period
    window when the question names one, the logistical soft cutoff."""
    name = "decay"

    def __init__(self, index: QueryIndex, config: Config, series: Series,
                 mentions: "DayMentions | None" = None):
        """`series`: the index's calendar occurrences (the Asker's: read once per index)."""
        self.index = index
        self.config = config
        self.mentions = mentions
        self._series = series
        names = list(index.type_names)
        self.event_code = index.type_code("calendar_event")
        self.series_rival_codes = np.array([names.index(t) for t in config.time.rival.series_rival_types
                                            if t in names], dtype=np.int64)
        self._analyzer: Analyzer | None = None
        # What letters write, per chunk row, kept for the next question (as DayMentions does).
        self._line_cache: dict[int, list[tuple[str, frozenset[int], str]]] = {}
        self._weekday_cache: dict[tuple[int, int], frozenset[int]] = {}
        self._title_words: dict[str, re.Pattern | None] = {}
        self._day_words: frozenset[str] | None = None
        self._calendars: dict[int, np.ndarray] = {}   # file number: its calendar events
        self._plans: dict[tuple[int, date], tuple[frozenset[int], frozenset[int]]] = {}
        self._time_span = answers.span_patterns(config.answer).get("time")
        self._week_of = re.compile(config.time.rival.week_of)

    def ages(self, query: Query, candidates: np.ndarray) -> np.ndarray:
        """|now - date| in days per candidate; for a calendar event the distance from its
        nearest occurrence to now, or to the named day or range."""
        index = self.index
        docs = index.chunk_doc[candidates]
        epoch = index.doc_epoch[docs]
        age = np.abs(query.now - epoch) / SECONDS_PER_DAY
        window = query.route.window
        if near_term(window, self.config):
            lo, hi = window.start.timestamp(), window.end.timestamp()
        else:
            lo = hi = query.now
        event_age = self._nearest_gap(docs, lo, hi) / SECONDS_PER_DAY
        return np.where(np.isnan(event_age), age, event_age)

    def _in_period(self, docs: np.ndarray, epochs: np.ndarray, start: float, end: float) -> np.ndarray:
        """The time each document is placed at against a period asked about: a calendar
        event by its occurrence nearest the period (the monthly autopay asked "in November"
        is in November, whenever the series began), as far from it as that one is."""
        gap = self._nearest_gap(docs, start, end)
        return np.where(np.isnan(gap), epochs, start - gap)

    def _not_over(self, docs: np.ndarray, now: float) -> np.ndarray:
        """Has each document an occurrence that has not ended by `now`?"""
        index = self.index
        return self._per_document(docs, lambda rows: index.occ_end[rows], np.maximum) >= now

    def _nearest_gap(self, docs: np.ndarray, lo: float, hi: float) -> np.ndarray:
        """Seconds between [lo, hi] and each document's nearest occurrence (0 when one
        overlaps it); NaN for a document without occurrences."""
        index = self.index
        return self._per_document(docs, lambda rows: np.maximum(index.occ_start[rows] - hi, 0.0)
                                  + np.maximum(lo - index.occ_end[rows], 0.0), np.minimum)

    def _per_document(self, docs: np.ndarray, values: Callable[[np.ndarray], np.ndarray],
                      reduce: np.ufunc) -> np.ndarray:
        """`reduce` of `values` over each document's occurrence rows, NaN for a document
        without any: only the documents' own occurrences are read."""
        index = self.index
        out = np.full(len(docs), np.nan)
        if not index.occ_doc.size:
            return out
        rows, offsets = index.occurrence_slices(docs)
        if not rows.size:
            return out
        has = np.diff(np.append(offsets, rows.size)) > 0
        out[has] = reduce.reduceat(values(rows), offsets[has])
        return out

    def superseded_series(self, docs: np.ndarray, epochs: np.ndarray, cands: Candidates,
                          has_value: np.ndarray, kind: str | None, now: float) -> np.ndarray:
        """[i, j]: does candidate j overtake calendar event i? A recurring series that began
        before a document, not itself an event, that is about the same subject: the email
        that moved the practice, the council letter that changed the bin day. An event
        planned after that document is not overtaken. Likewise a one-off event whose entry
        was written (LAST-MODIFIED, DTSTAMP) before such a document, written before the event
        and naming its day: the airline's schedule change after the flight went in the
        calendar, not the dentist's reminder for another day. (Past the event, the entry is
        the record of its day.) A letter whose lines about the event write only its own
        times and weekdays agrees with it, and one that writes none says nothing new."""
        index = self.index
        one = (index.occ_ptr[docs + 1] - index.occ_ptr[docs]) if index.occ_ptr.size else np.zeros(len(docs), int)
        is_event = index.doc_type[docs] == self.event_code
        issued = index.doc_issued[docs]
        # An entry that moves one occurrence of a series (RECURRENCE-ID) is part of its plan.
        override = is_event.copy()
        override[is_event] = [bool(index.docs[int(d)].get("recurrence_id")) for d in docs[is_event]]
        one_off = is_event & (one <= 1) & ~override & ~np.isnan(issued) & (self.mentions is not None)
        event = (is_event & ((one > 1) | override)) | one_off
        if not np.any(event):
            return np.zeros((len(docs), len(docs)), dtype=bool)
        # A one-off entry (and a series' moved occurrence) is as old as its writing, and only
        # a letter before a one-off's day rivals it.
        epochs = np.where(one_off | (override & ~np.isnan(issued)), issued, epochs)
        before = np.where(one_off, index.doc_epoch[docs], np.inf)
        pairs = None
        # Who can move a standing plan: a person's mail or note, a notice; not a flyer.
        can_rival = np.isin(index.doc_type[docs], self.series_rival_codes)
        if kind is not None:
            # ... and states a value of the kind asked for (a new time, a new day): mail
            # that only talks about the subject leaves the plan as it was.
            can_rival &= has_value
        if one_off.any():
            pairs = np.ones((len(docs), len(docs)), dtype=bool)
            pairs[one_off] = self._name_the_day(cands.rows, np.flatnonzero(one_off), can_rival & cands.on_topic)
        # The plan's own type weight (a calendar's) is no evidence against the letter that moved it.
        evidence = cands.evidence / np.maximum(cands.parts["type_weight"], 1e-9)
        rival = rivalled(epochs, cands.parts["coverage"], evidence, cands.on_topic & can_rival,
                         has_value, self.config.time.rival, before, pairs, by_whom=True)
        plans = event & ~one_off
        if plans.any():
            # A standing plan and a letter about it are judged as both stating a value of it
            # (value_match_share of its evidence is enough): a letter writing no time or day
            # of the plan other than its own is dropped below.
            stated = np.ones(len(docs), dtype=bool)
            rival[plans] = rivalled(epochs, cands.parts["coverage"], evidence, cands.on_topic & can_rival,
                                    stated, self.config.time.rival, before, pairs, by_whom=True)[plans]
        rival &= (event & ~np.isnan(epochs))[:, None]
        for i, j in zip(*np.nonzero(rival)):
            # The carpool letter that repeats the practice times (and the moved Thursday the
            # team's feed already shows) agrees with the plan; it does not change it.
            event_doc = int(docs[i])
            rival[i, j] = not self._agrees(int(cands.rows[j]), event_doc, now)
        return rival

    def repeats_plan(self, row: int, event_doc: int, now: float) -> bool:
        """Does chunk `row` say nothing of calendar event `event_doc` but what its calendar
        plans (`_agrees`)?"""
        return self._agrees(row, event_doc, now)

    def _agrees(self, row: int, event_doc: int, now: float) -> bool:
        """Do the clock times (on a 12-hour dial) and the weekdays (on their own or of a
        written date) each line of a chunk naming a word of an event's title writes all
        belong to the plans of the events of its calendar that the line names, the event's
        own among them? (The carpool letter's Halloween plan says nothing of practice; its
        line "Games: Sat Nov 1 at 11 and Sat Nov 8 at 1 pm" agrees with the team's feed
        holding both games; a letter naming the event nowhere says nothing new of it.) A
        line names a word when one of its words opens with the word's stem; the days in a
        title ("moved to Fri") name nothing: an event names its days by taking place on them."""
        naming = self._naming(event_doc)
        if naming is None:
            return True
        lines = [k for k, (folded, _, _) in enumerate(self._lines_of(row)) if naming.search(folded)]
        plans = [self._line_plan(row, k, event_doc, now) for k in lines]
        if not all(self._lines_of(row)[k][1] <= plan[0] for k, plan in zip(lines, plans)):
            return False
        # (Dates are read only when the times agree: a letter that moves a plan mostly
        # says so with a time of its own.)
        return all(self._weekdays_of(row, k) <= plan[1] for k, plan in zip(lines, plans))

    def _naming(self, event_doc: int) -> re.Pattern | None:
        """What names an event in a letter: the stems of its title's words but its days."""
        title = str(self.index.docs[event_doc].get("title") or "")
        if title not in self._title_words:
            analyzer = self._analyzer_()
            if self._day_words is None:
                self._day_words = frozenset(analyzer.tokens(" ".join(
                    [*calendar.day_name, *calendar.day_abbr, *calendar.month_name[1:], *calendar.month_abbr[1:]])))
            stems = [re.escape(fold(stem)) for stem in analyzer.tokens(title) if stem not in self._day_words]
            self._title_words[title] = re.compile(r"\b(?:" + "|".join(stems) + ")") if stems else None
        return self._title_words[title]

    def _line_plan(self, row: int, line: int, event_doc: int, now: float) -> tuple[frozenset[int], frozenset[int]]:
        """The times and weekdays planned by `event_doc` and by the other events of its
        calendar file that line `line` of chunk `row` names."""
        folded = self._lines_of(row)[line][0]
        own = self._plan(event_doc, now)
        minutes, weekdays = set(own[0]), set(own[1])
        for other in self._calendar_of(event_doc):
            naming = self._naming(other) if other != event_doc else None
            if naming is not None and naming.search(folded):
                minutes |= self._plan(other, now)[0]
                weekdays |= self._plan(other, now)[1]
        return frozenset(minutes), frozenset(weekdays)

    def _calendar_of(self, event_doc: int) -> np.ndarray:
        """The calendar events that came from the file `event_doc` came from."""
        source = int(self.index.doc_source[event_doc])
        found = self._calendars.get(source)
        if found is None:
            found = self._calendars[source] = np.flatnonzero((self.index.doc_source == source)
                                                             & (self.index.doc_type == self.event_code))
        return found

    def _analyzer_(self) -> Analyzer:
        if self._analyzer is None:
            dense = self.index.dense
            self._analyzer = reuse_analyzer(dense.analyzer_ if dense is not None else None, self.config.text)
        return self._analyzer

    def _lines_of(self, row: int) -> list[tuple[str, frozenset[int], str]]:
        """Per line of a chunk: its text folded, the clock times it writes and its text
        (kept for the next question)."""
        found = self._line_cache.get(row)
        if found is None:
            lines = [line for line, _ in answers.split_with_speakers(self.index.chunk_texts[row],
                                                                     self.config.answer.wrapped_line_chars)]
            found = self._line_cache[row] = [(fold(line), self._clock_minutes(line), line) for line in lines]
        return found

    def _clock_minutes(self, line: str) -> frozenset[int]:
        """The clock times a line writes, in minutes on a 12-hour dial ("noon" is 0)."""
        minutes = set()
        for span in (self._time_span.finditer(line) if self._time_span is not None else ()):
            if "noon" in span.group(0).lower():
                minutes.add(0)
            minutes.update(m % HALF_DAY_MINUTES for m in answers.clock_minutes(span.group(0)))
        return frozenset(minutes)

    def _weekdays_of(self, row: int, line: int) -> frozenset[int]:
        """The weekdays a chunk's line names, on their own or of a date it writes."""
        found = self._weekday_cache.get((row, line))
        if found is None:
            epoch = self.index.doc_epoch[self.index.chunk_doc[row]]
            written = None if np.isnan(epoch) else datetime.fromtimestamp(epoch, UTC).date()
            text = self._week_of.sub("", self._lines_of(row)[line][2])
            days, alone = days_named(text, written, self.config)
            found = self._weekday_cache[(row, line)] = alone | {date.fromordinal(d).weekday() for d in days}
        return found

    def _plan(self, doc: int, now: float) -> tuple[frozenset[int], frozenset[int]]:
        """The clock times and weekdays of a calendar event's occurrences (its series'
        moved ones too) within `plan_days` of now, in the event's own zone."""
        today = datetime.fromtimestamp(now, UTC).date()
        found = self._plans.get((doc, today))
        if found is not None:
            return found
        span = timedelta(days=self.config.time.rival.plan_days)
        minutes, weekdays = set(), set()
        for occ in self._series.occurrences(doc, today - span, today + span, UTC):
            for moment in (occ.start, occ.end):
                if moment is not None and not occ.all_day:
                    minutes.add((moment.hour * 60 + moment.minute) % HALF_DAY_MINUTES)
            weekdays.add(occ.start.weekday())
            if occ.moved_from is not None:
                weekdays.add(occ.moved_from.weekday())
        found = self._plans[(doc, today)] = (frozenset(minutes), frozenset(weekdays))
        return found

    def _name_the_day(self, rows: np.ndarray, events: np.ndarray, rivals: np.ndarray) -> np.ndarray:
        """[e, j]: does candidate j (one of `rivals`) write the day of one-off event `events[e]`
        (a day either side: the event's day is read in UTC, the letter's in its own words)?"""
        index = self.index
        days = (index.doc_epoch[index.chunk_doc[rows[events]]] // SECONDS_PER_DAY).astype(np.int64) \
            + date(1970, 1, 1).toordinal()
        out = np.zeros((len(events), len(rows)), dtype=bool)
        for j in np.flatnonzero(rivals):
            named = self.mentions.named(int(rows[j]))[0]
            if named:
                out[:, j] = [bool(named & {d - 1, d, d + 1}) for d in days]
        return out

    def score(self, query: Query, cands: Candidates) -> np.ndarray:
        """The time weight of each candidate; its ages are left on `cands` for the results."""
        index, route, candidates = self.index, query.route, cands.rows
        docs = index.chunk_doc[candidates]
        epochs = index.doc_epoch[docs]
        cands.ages = ages = self.ages(query, candidates)
        has_value = index.states(query.kind, candidates)
        window = route.window
        if self.mentions is not None and one_day_ahead(route, query.now, self.config):
            # Asked what happens on one day soon, a letter writing that very date is judged
            # like an event on it: by that day against the question's, not by when it was
            # written (the school's letter of a fortnight ago is the plan for Friday).
            dated = cands.dated_in_window(self.mentions)
            ages = np.where(dated, 0.0, ages)
            day_letters = dated & (index.doc_type[docs] != self.event_code)
        else:
            day_letters = np.zeros(len(candidates), dtype=bool)
        period_end = period_asked(route, query.now, self.config)
        if period_end is not None:
            start = window.start.timestamp()
            weight = period_weight(self.config.time.period, self._in_period(docs, epochs, start, period_end),
                                   start, period_end, anchored=bool(window.anchor))
        else:
            # Candidates a newer document about the same subject competes with; a calendar
            # event is always judged by its own time against the question's.
            shared = shared_words(cands.words, query.topic.weights)
            is_event = index.doc_type[docs] == self.event_code
            rival = rivalled(epochs, cands.parts["coverage"], cands.evidence, cands.on_topic, has_value,
                             self.config.time.rival, shared=shared) | is_event
            model = getattr(self.config.time, route.pattern)
            # (An event still ahead is no stale plan: the winter concert in six weeks is not
            # cut as old because this week's newsletter mentions it.)
            weight = time_weight(model, ages, index.doc_type[docs], index.type_names, route.recency,
                                 cands.on_topic, rival, uncut=is_event & self._not_over(docs, query.now))
        by_whom = self.superseded_series(docs, epochs, cands, has_value, query.kind, query.now)
        if day_letters.any() and query.kind in self.config.answer.value_kinds:
            # ... and like such an event, a later letter writing that day with a value of the
            # kind asked overtakes it (the airline's schedule change, the booking it changed);
            # a reason is no such value: the later letter does not say why again.
            by_whom |= day_letters[:, None] & rivalled(epochs, cands.parts["coverage"], cands.evidence,
                                                       cands.on_topic & day_letters & has_value, has_value,
                                                       self.config.time.rival, by_whom=True)
        superseded = by_whom.any(axis=1)
        # The plan a later letter changed weighs less than that letter, however near its
        # own day: the freshest word on the subject wins.
        strongest = np.where(by_whom, weight[None, :], -np.inf).max(axis=1)
        weight = np.where(superseded, np.minimum(weight, strongest) * self.config.time.rival.superseded_event_factor,
                          weight)
        cancelled = index.doc_cancelled[docs]
        weight = np.where(cancelled, weight * self.config.scoring.cancelled_factor, weight)
        if route.pattern == "historical":
            ahead = (index.doc_type[docs] == self.event_code) & (epochs > query.now)
            weight = np.where(ahead, weight * self.config.scoring.historical_future_event_factor, weight)
        return weight


def _about_the_past(route: Route, now: float) -> bool:
    """A question whose named day or period is over ("last Friday", "in 2023"), or asked
    in the past tense: what was true then is no stale answer to it."""
    window = route.window
    if window is not None and window.end.timestamp() <= now:
        return True
    return any(cue.startswith("historical:") for cue in route.cues) and route.scores["historical"] >= 0.5


def staleness(route: Route, age: float, type_name: str, ahead: bool, standing: bool,
              now: float, config: Config) -> tuple[str, float]:
    """How current the answer's source is, for the confidence message: "historical" (a
    question about the past), "fresh", "found", "undated", "outdated", or past its horizon
    "stale" (logistical) or "old" (entity), with a staleness in [0, 1].

    Age alone is weak evidence: a bin day or an alarm code written months ago is what the
    household still goes by. So a source names a day still `ahead` (the plan as it stands:
    nothing can have overtaken it yet), states a `standing` value (an account, policy or
    serial number, a code), or is younger than its type's horizon, and is current; past the
    horizon it is stale. A newer document that says otherwise is the ranking's business
    (supersession), and shows as a conflict beside the answer."""
    cfg = config.confidence
    if route.pattern == "historical" or _about_the_past(route, now):
        return "historical", 0.0
    if ahead:
        return "fresh", 0.0
    if np.isnan(age):
        # Nobody dated it: a plan may have moved on, a fact of the house need not have.
        return ("outdated", 0.5) if route.pattern == "logistical" else ("undated", 0.0)
    if route.pattern == "logistical" and age <= cfg.fresh_days:
        return "fresh", 0.0
    horizon = horizon_days(cfg, type_name)
    if standing or horizon <= 0 or age <= horizon:
        return "found", 0.0
    return ("stale" if route.pattern == "logistical" else "old"), 1.0


def horizon_days(cfg: ConfidenceSection, type_name: str) -> float:
    """How many days a source of this type stays current by age alone (0: always)."""
    return cfg.stale_days_by_type.get(type_name, cfg.stale_days)
