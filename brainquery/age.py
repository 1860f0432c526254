"""How old a document is, as a person says it: "3 days ago", "2 years ago", "in 2 weeks"."""
from __future__ import annotations

from datetime import datetime

# (unit, days in it), largest first: the largest unit that fits at least once is named.
_UNITS = (("year", 365.25), ("month", 30.44), ("week", 7.0), ("day", 1.0))


def relative_age(when: str, now: str) -> str:
    """`when` relative to `now` (both ISO 8601 with a zone). Days are calendar days in
    now's zone: Monday's email read on Wednesday is "2 days ago", whatever the hour."""
    clock = datetime.fromisoformat(now)
    days = (clock.date() - datetime.fromisoformat(when).astimezone(clock.tzinfo).date()).days
    span = abs(days)
    for unit, size in _UNITS:
        if span >= size:
            n = int(span // size)
            words = f"{n} {unit}{'s' if n > 1 else ''}"
            return f"{words} ago" if days > 0 else f"in {words}"
    return "today"
