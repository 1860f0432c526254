"""Dates a document writes relative to itself ("yesterday", "last Saturday", "two weeks
ago", "next Tuesday"), resolved against the document's own date and zone.

The question side's window reader (timewindow.find_window) already resolves such phrases
against a moment; here the moment is when the document was written, and only phrases
that are relative count (a written-out date is a span of its own).
"""
from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime, timedelta

from ..config import EventsSection
from .occurrences import day_words
from .timewindow import find_window

_RELATIVE = re.compile(r"\b(?:yesterday|today|tonight|tomorrow|tmrw|ago|last|next|this|past|coming|"
                       r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.IGNORECASE)
_ABSOLUTE = re.compile(r"\d{4}|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d|"
                       r"\d\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\d/\d", re.IGNORECASE)

# A weekday that comes round: "every (other) Sunday", "the first Sunday of every month", "Sundays".
_WEEKDAY = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day", re.IGNORECASE)
_RECURRING = (r"\b(?:every|each)\s+(?:other\s+|second\s+|alternate\s+)?{day}\b"
              r"|\b{day}\s+of\s+(?:every|each|the)\s+month\b|\b{day}s\b")


@dataclasses.dataclass(frozen=True)
class RelativeDate:
    phrase: str        # the words as the document writes them ("yesterday")
    start: date
    end: date          # exclusive

    def words(self, cfg: EventsSection) -> str:
        """The day, week, month or year it names, written out."""
        days = (self.end - self.start).days
        last = self.end - timedelta(days=1)
        if days == 1:
            return day_words(self.start, cfg)
        if days == 7 and self.start.weekday() == 0:
            return f"the week of {day_words(self.start, cfg)}"
        if self.start.day == 1 and self.start.month == 1 and days >= 365:
            return str(self.start.year)
        if self.start.day == 1 and (last + timedelta(days=1)).day == 1 and last.month == self.start.month:
            return self.start.strftime("%B %Y")
        return f"{day_words(self.start, cfg)} – {day_words(last, cfg)}"


def resolve(text: str, written: datetime) -> RelativeDate | None:
    """The relative date `text` names, read as of `written` (aware), or None. A weekday that
    comes round ("every Sunday", "the first Sunday of every month") names no one day."""
    window = find_window(text, written)
    if window is None or not _RELATIVE.search(window.text) or _ABSOLUTE.search(window.text):
        return None
    weekday = _WEEKDAY.fullmatch(window.text.strip())
    if weekday and re.search(_RECURRING.format(day=weekday.group(0)), text, re.IGNORECASE):
        return None
    return RelativeDate(window.text, window.start.date(), window.end.date())
