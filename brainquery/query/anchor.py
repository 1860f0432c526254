"""Windows bounded by an event rather than a date: "before the new one", "after we moved".

The question names the event in its own words, so the date comes from the documents that
mention every content word of the event, scored with the rest of the question ("the new
one" is the new *furnace*): the earliest of those that match nearly as well as the best
marks when it happened (the first mention: later mail talks about the new one as a
matter of course). "Before" is everything up to that day, "after"/"since" everything from it to
now. Only historical questions read such a clause as a time: "before we leave" in a
question about today is a plan, not a period.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from .query_index import QueryIndex
from ..textproc import Analyzer
from .timewindow import TimeWindow

# A clause that is an event: a subject pronoun, a possessive or "the new/old ..." after
# the preposition ("before we moved", "after our basement flooded", "before the new one").
# Dates after the same prepositions are time windows already (timewindow.find_window).
_ANCHOR = re.compile(
    r"\b(?P<dir>before|prior\s+to|until|till|after|since)\s+"
    r"(?P<clause>(?:we|i|you|they|he|she|our|my|the\s+(?:new|old|first|last|previous))\b[^?.!,;]*)")
_BEFORE = ("before", "prior", "until", "till")
# The far past a "before" window starts from: earlier than any household paper.
_EPOCH = datetime(1900, 1, 1)


@dataclass(frozen=True)
class Anchor:
    before: bool     # "before X" (else "after/since X")
    text: str        # the words that named the window: "before the new one"
    clause: str      # the event: "the new one"


def find_anchor(question: str) -> Anchor | None:
    m = _ANCHOR.search(question.lower().replace("\u2019", "'"))
    if m is None:
        return None
    clause = " ".join(m["clause"].split())
    return Anchor(before=m["dir"].split()[0] in _BEFORE, text=" ".join(m[0].split()), clause=clause)


def anchored_window(anchor: Anchor, question: str, now: datetime, index: QueryIndex,
                    analyzer: Analyzer, ignore: set[str], match_share: float) -> TimeWindow | None:
    """The window the event bounds, or None when no dated document before `now` mentions
    it. `ignore`: stemmed words that say nothing of the event (question words)."""
    event = [t for t in dict.fromkeys(analyzer.tokens(anchor.clause)) if t not in ignore]
    columns = [index.bm25.vocab_.get(t) for t in event]
    if not event or any(col is None for col in columns) or index.n_chunks == 0:
        return None
    rest = question.lower().replace(anchor.text, " ")
    terms = event + [t for t in analyzer.tokens(rest) if t not in ignore]
    scores = index.bm25.scores(terms)
    mentions = np.asarray((index.bm25.weights_[:, columns] != 0).sum(axis=1)).ravel() == len(columns)
    epoch = index.doc_epoch[index.chunk_doc]
    usable = mentions & ~np.isnan(epoch) & (epoch <= now.timestamp())
    if not usable.any():
        return None
    best = float(np.max(scores[usable]))
    near_best = usable & (scores >= match_share * best)
    first = float(np.min(epoch[near_best]))
    day = datetime.fromtimestamp(first, tz=now.tzinfo).date()
    edge = datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)
    if anchor.before:
        return TimeWindow(_EPOCH.replace(tzinfo=now.tzinfo), edge, "period", anchor.text,
                          anchor=anchor.clause)
    return TimeWindow(edge, max(now, edge + timedelta(days=1)), "since", anchor.text,
                      anchor=anchor.clause)
