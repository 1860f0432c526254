"""The days a letter or note names: "I've pencilled you in for Tuesday 20/10/2026", "the bins
are collected on Fridays". Read from a chunk's text when a question names a day or a short
range, for the few candidate chunks it ranks, and kept per chunk for the next question.
(Only as evidence that the letter is about the day: ageing such a letter by the day it names,
as an event is, made a season's registration receipt "fresh" for every game it lists.)

A written date is read against its document's date (the year it leaves out, the order of a
numeric day and month: answer.date_of); a weekday on its own ("on Fridays") names every such
day still to come, but not the weekday of a written date ("Friday, 16 October" names one day).
"""
from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

import numpy as np

from ..config import Config
from . import answer as answers

if TYPE_CHECKING:
    from .query_index import QueryIndex
    from .timewindow import TimeWindow

_WEEKDAYS = {name: n for n, name in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday",
                                                "saturday", "sunday"))}
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")s?\b", re.IGNORECASE)
_DATE_GAP = 3    # "Friday, 16 October": a weekday this close before a date is that date's


class DayMentions:
    def __init__(self, index: QueryIndex, config: Config):
        self.index = index
        self.config = config
        self._named: dict[int, tuple[frozenset[int], frozenset[int]]] = {}   # row -> (ordinals, weekdays)

    def mentions(self, rows: np.ndarray, window: TimeWindow, weekdays: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk: does its text write a date inside the window; does it name (with
        `weekdays`) a weekday on its own that falls in it ("open Monday to Friday")?"""
        lo, hi = days_of(window)
        days_in = set(range(lo, min(hi, lo + 7))) if weekdays else set()
        week = {date.fromordinal(d).weekday() for d in days_in}
        dated = np.zeros(len(rows), dtype=bool)
        by_weekday = np.zeros(len(rows), dtype=bool)
        for i, row in enumerate(rows):
            days, every = self.named(int(row))
            dated[i] = any(lo <= d < hi for d in days)
            by_weekday[i] = bool(week & every)
        return dated, by_weekday

    def named(self, row: int) -> tuple[frozenset[int], frozenset[int]]:
        found = self._named.get(row)
        if found is None:
            found = self._named[row] = self._read(row)
        return found

    def _read(self, row: int) -> tuple[frozenset[int], frozenset[int]]:
        index = self.index
        written = index.doc_epoch[index.chunk_doc[row]]
        return days_named(index.chunk_texts[row],
                          None if np.isnan(written) else datetime.fromtimestamp(written, UTC).date(), self.config)


def days_of(window: TimeWindow) -> tuple[int, int]:
    """The window's days as ordinals, the end excluded (an end inside a day includes it)."""
    lo, hi = window.start.date().toordinal(), window.end.date().toordinal()
    return lo, hi + (window.end.time() != window.end.time().min)


def days_named(text: str, written: date | None, config: Config) -> tuple[frozenset[int], frozenset[int]]:
    """The days a text writes (ordinals, read against the day it was `written`) and the
    weekdays it names on their own."""
    found = answers.dates_in(text, written, config.answer)
    days = frozenset(day.toordinal() for _, day in found if day is not None)
    starts = [m.start() for m, _ in found]
    weekdays = frozenset(_WEEKDAYS[m.group(1).lower()] for m in _WEEKDAY.finditer(text)
                         if not any(m.end() <= s <= m.end() + _DATE_GAP for s in starts))
    return days, weekdays
