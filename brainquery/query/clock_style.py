"""How a household writes the time of day, learnt from its own documents.

An Irish school letter writes "3.40pm", a Canadian clinic "4:15 p.m.", a Swedish club
"16:30": an answer read off a calendar is written the same way, not in the way the
calendar's zone suggests. Evidence is counted in a sample of the store's chunks:

- a 12-hour time carries its am/pm ("3.40pm", "4:15 p.m.", "9 AM"), and its form is read off
  it: the separator, the gap before the am/pm, and how the am/pm is spelt;
- a 24-hour time is one only the 24-hour clock writes (13:00 to 23:59, with a colon: a
  price such as "15.99" also has a dot).

With fewer than `clock_style_min_times` times of either kind, or as many of each, the
zone decides as before. Dates' order is learnt from the same sample: the caller gives its
answer.day_first_lean.
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable

from ..config import EventsSection

_TWELVE = re.compile(r"(?<![\d.:])(1[0-2]|0?[1-9])(?:([:.])([0-5]\d))?( ?)(a\.m\.|p\.m\.|am|pm)(?![\w])",
                     re.IGNORECASE)
_TWENTY_FOUR = re.compile(r"(?<![\d.:])(1[3-9]|2[0-3]):[0-5]\d(?![\d:])(?! ?(?:a\.?m|p\.?m)\b)", re.IGNORECASE)


def household_clock(cfg: EventsSection, texts: Iterable[str], date_lean: int = 0) -> EventsSection:
    """`cfg` with the clock the texts mostly write, in the form they mostly write it, and
    their dates' order when clearly one: `date_lean`, how they write dates (answer.
    day_first_lean over them: > 0 "4 March", < 0 "March 4")."""
    twelve: Counter[tuple[str, str, bool]] = Counter()   # (gap, am/pm family, upper case)
    separators: Counter[str] = Counter()
    twenty_four = 0
    for text in texts:
        for m in _TWELVE.finditer(text):
            _, separator, _, gap, suffix = m.groups()
            twelve[(gap, _family(suffix), suffix.isupper())] += 1
            if separator:
                separators[separator] += 1
        twenty_four += len(_TWENTY_FOUR.findall(text))
    if abs(date_lean) >= cfg.clock_style_min_times:
        cfg = dataclasses.replace(cfg, date_order="day_first" if date_lean > 0 else "month_first")
    n_twelve = sum(twelve.values())
    if max(n_twelve, twenty_four) < cfg.clock_style_min_times or n_twelve == twenty_four:
        return cfg
    if twenty_four > n_twelve:
        return dataclasses.replace(cfg, clock="24h", clock_separator=":")
    (gap, family, upper), _ = twelve.most_common(1)[0]
    am, pm = ("a.m.", "p.m.") if family == "dotted" else ("am", "pm")
    if upper:
        am, pm = am.upper(), pm.upper()
    separator = separators.most_common(1)[0][0] if separators else cfg.clock_separator
    return dataclasses.replace(cfg, clock="12h", clock_separator=separator, clock_gap=gap,
                               clock_am=am, clock_pm=pm)


def _family(suffix: str) -> str:
    return "dotted" if "." in suffix else "plain"
