"""Explicit time windows named in a question, resolved against `now` in `now`'s zone.

A window is a half-open interval [start, end) of aware datetimes plus what kind of time
it names:

- ``day``: one calendar day near now ("today", "Friday", "next Friday", "11/20");
- ``range``: several days around or ahead of now ("this week", "next month", "this year");
- ``period``: a stretch entirely in the past ("last year", "in 2023", "last summer",
  "May 19, 2023"): the answer is about that time, so recency must not penalise it;
- ``since``: open-ended, from a start to `now` ("since March", "in the past 30 days").

Readings chosen where English is ambiguous (all in the zone of `now`):

- A bare weekday, "on/this/coming <weekday>": the coming one, today included.
- "next <weekday>", "<weekday> next week": that weekday in the next calendar week (weeks start on Monday). Said on
  Wednesday 2026-11-18, "next Friday" is 2026-11-27, as most US speakers mean it; said on a
  Saturday it is six days away, not thirteen.
- "last / this past <weekday>": the most recent one before today.
- "<weekday> week", "the <weekday> after next": a week after the first such day after today.
- "this/next/last week", "...weekend": Monday-based calendar weeks; a weekend is its
  Saturday and Sunday.
- "N days/weeks from today", "in N days/weeks": that day.
- "the week of <day>": the Monday-based week holding that day; "the week before/after <day>"
  the seven days before it or after it, "the weekend before/after <day>" the Saturday and
  Sunday just before or after it.
- A month without a year ("in March", "the December meeting"): the coming one when it begins within the next
  three months ("in December" said in November), else the most recent one that has begun
  (this month if it is March). "since March" always looks back; "last March" is the most
  recent one that has ended, "next March" the first one that has not begun.
- "last spring/summer/fall/autumn/winter": the most recent such meteorological season
  (Mar-May, Jun-Aug, Sep-Nov, Dec-Feb) that has ended.
- A day without a year ("November 20", "11/20", US month/day order): its closest
  occurrence to today, ties to the future.
- A bare year: a past year is a period; the current or a future year a range.
- A named holiday ("Halloween", "Thanksgiving", "Memorial Day", "Christmas Eve"; the
  household's country's dates, from the `holidays` package) is one day: without a modifier its closest occurrence to today, ties to the future;
  "last" the most recent before today, "next" the first after today, "this" this calendar
  year's; a year may follow ("Christmas 2023", "Halloween last year"). "The day after/before
  X" and "the Wednesday before X" are those days. "Over X" and "X weekend/break/holiday" are
  its long weekend: a Monday holiday with the weekend before it, a Thursday or Friday one
  through the Sunday after it (Thanksgiving: Thursday to Sunday). "X week" and "the week of
  X" are the Monday-based week holding it, "the Tuesday of X week" that week's Tuesday.

When a question names several windows, the longest phrase wins ("since March" over
"March"), then the earliest. No clock is read: `now` is passed in.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from dateutil.relativedelta import relativedelta

from ingest.config import DatesSection
from ingest.printed_dates import default_rules

from .holiday_days import holiday_day

KINDS = ("day", "range", "since", "period")


@dataclass(frozen=True)
class TimeWindow:
    start: datetime   # aware, inclusive
    end: datetime     # aware, exclusive
    kind: str         # "day" | "range" | "since" | "period"
    text: str         # the words that named it
    # Words of `text` that also say what the question is about: a holiday's name
    # ("halloween": costumes and parades are filed under it; "2023" names only a time).
    subject: str = ""
    # The event that bounds the window, when it is "before/after <event>" (brainquery.query.anchor).
    anchor: str = ""


_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tues": 1, "tue": 1, "wednesday": 2,
    "thursday": 3, "thurs": 3, "thur": 3, "thu": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sunday": 6,
}
# Abbreviations that are also words ("we sat", "the sun", "wed in June"): a day only after
# a word that names a day ("on sat", "this sun", "next weds").
_WORD_WEEKDAYS = {"sat": 5, "sun": 6, "wed": 2, "weds": 2}
_ANY_WEEKDAY = {**_WEEKDAYS, **_WORD_WEEKDAYS}
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}
# Meteorological seasons: first month, and winter starts in the December of its year.
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple": 2}

_COUNT = "|".join([r"\d+", *_NUMBERS])
_EXACT = "|".join([r"\d+", *(w for w in _NUMBERS if w not in ("few", "couple"))])
_WD = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_WWD = "|".join(sorted(_WORD_WEEKDAYS, key=len, reverse=True))
# "Thursday night", "tomorrow morning": the part of the day belongs to the day named, not
# to what the question is about.
_PART_OF_DAY = r"(?:\s+(?:night|evening|morning|afternoon|lunchtime))?"
# "Wednesday next week", "Monday week" (a week on from the coming Monday), "the Friday after next".
_WEEK_AFTER = r"(?:\s+(?P<post>next\s+week|week|after\s+next)\b)?"
_MO = "|".join(sorted(_MONTHS, key=len, reverse=True))
_SE = "|".join(_SEASONS)
_YEAR = r"(?:19|20)\d\d"
_ORD = r"(?:st|nd|rd|th)?"
# A fraction before these words is an amount ("1/2 day", "3/4 inch"), not a date.
_NOT_DATE_AFTER = re.compile(r"\s*(?:-\s*)?(?:day|days|hour|hours|inch|inches|in\b|cup|cups|"
                             r"mile|miles|gallon|gallons|lb|lbs|off|price|time|of)\b")
# A bare month needs one of these before it: "may" and "march" are also verbs.
_MONTH_PREPOSITION = re.compile(
    r"\b(?:in|during|since|from|of|until|till|through|by|before|after|early|late|mid|"
    r"around)\s+(?:the\s+)?(?:month\s+of\s+)?$")
_THE = re.compile(r"\bthe\s+$")
_QUESTION_START = re.compile(r"^\W*$")
# "this may be", "next may need": the modal verb, not the month.
_MAY_VERB = re.compile(r"\s+(?:be|have|need|i|we|you|not|also|still|get|take|want|go|come)\b")
# A month named without a year is the coming one when it begins within this many months.
_MONTH_LOOKAHEAD = 3
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$")
# A weekday right after these words is the value talked about, not a day named.
_WEEKDAY_AS_VALUE = re.compile(r"\b(?:to|from|into|onto)\s+(?:a\s+)?$")
# Words kept in a window's text though they add nothing to its meaning.
_LEAD = re.compile(r"(?:\b(?:back|way\s+back)\s+)?\b(?:in|on|during|over|from|for|at)\s+(?:the\s+)?$")


# The words before a phrase that change its meaning ("since the", "way back in the") are
# short: looking further back than this found nothing more, but searching from the start of
# the question for every phrase made a long question quadratic (200 KB: 80 s).
_LOOKBEHIND_CHARS = 64


def _ending_at(pattern: re.Pattern, text: str, end: int) -> re.Match | None:
    """`pattern` (anchored with $) matched in the few characters just before `end`."""
    return pattern.search(text, max(0, end - _LOOKBEHIND_CHARS), end)


@dataclass(frozen=True)
class _Ctx:
    now: datetime
    today: date
    text: str
    since: bool   # "since" precedes the phrase: prefer the most recent start
    holidays: DatesSection


def find_window(question: str, now: datetime, *, dates: DatesSection | None = None) -> TimeWindow | None:
    """The time window the question names, or None. `now` must be timezone-aware; `dates`
    (the [dates] configuration: the household's holiday country) defaults to the
    configuration file's."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    dates = dates or default_rules()
    text = question.lower().replace("\u2019", "'")
    best: tuple[int, int, TimeWindow] | None = None
    for pattern, resolve in _RULES:
        for m in pattern.finditer(text):
            since = bool(_ending_at(_SINCE, text, m.start()))
            ctx = _Ctx(now=now, today=now.date(), text=text, since=since, holidays=dates)
            found = resolve(m, ctx)
            if found is None:
                continue
            window = _window(found, m, ctx)
            shift = _ending_at(_WEEK_SHIFT, text, m.start()) if found[1] - found[0] == _ONE_DAY else None
            if shift and not ctx.since:
                window = _shifted(window, found[0], shift, ctx, text[shift.start():m.end()])
            if window.start >= window.end:
                continue
            length = len(window.text)
            if best is None or (length, -m.start()) > (best[0], -best[1]):
                best = (length, m.start(), window)
    return best[2] if best else None


# "the week before August 3", "last weekend before April 10, 2023", "the weekend after
# Thanksgiving": a week or a weekend placed by a day, not the day.
_WEEK_SHIFT = re.compile(r"\b(?:the\s+)?(?:last\s+)?(?P<unit>week|weekend)\s+(?P<dir>before|after)\s+(?:the\s+)?$")
_ONE_DAY = timedelta(days=1)
_SATURDAY = 5


def _shifted(window: TimeWindow, day: date, shift: re.Match, ctx: _Ctx, words: str) -> TimeWindow:
    """The week (seven days) or the weekend (Saturday and Sunday) just before or after `day`."""
    before = shift["dir"] == "before"
    if shift["unit"] == "week":
        start, end = (day - 7 * _ONE_DAY, day) if before else (day + _ONE_DAY, day + 8 * _ONE_DAY)
    else:
        if before:      # the Saturday of the last Sunday before the day
            start = day - timedelta(days=(day.weekday() + 1) % 7 or 7) - _ONE_DAY
        else:           # the first Saturday after it
            start = day + timedelta(days=(_SATURDAY - day.weekday()) % 7 or 7)
        end = start + 2 * _ONE_DAY
    since = _ending_at(_SINCE, ctx.text, shift.start())
    if since:
        return TimeWindow(_midnight(start, ctx.now), ctx.now, "since",
                          " ".join(ctx.text[since.start():shift.start()].split() + words.split()), window.subject)
    kind = _kind(start, end, ctx.today, single=False)
    return TimeWindow(_midnight(start, ctx.now), _midnight(end, ctx.now), kind, " ".join(words.split()),
                      window.subject)


# --- resolution helpers -------------------------------------------------------------

_Found = tuple[date, date, str]   # start day, end day (exclusive), kind before "since"


def _midnight(day: date, now: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)


def _window(found: _Found, m: re.Match, ctx: _Ctx) -> TimeWindow:
    start, end, kind = found
    begin = m.start()
    words = m.group(0)
    if ctx.since:
        since = _ending_at(_SINCE, ctx.text, begin)
        return TimeWindow(_midnight(start, ctx.now), ctx.now, "since",
                          " ".join(ctx.text[since.start():m.end()].split()))
    if kind == "since":
        return TimeWindow(_midnight(start, ctx.now), ctx.now, kind, " ".join(words.split()))
    lead = _ending_at(_LEAD, ctx.text, begin)
    if lead:
        words = ctx.text[lead.start():m.end()]
    subject = m.groupdict().get("name") or ""
    return TimeWindow(_midnight(start, ctx.now), _midnight(end, ctx.now), kind,
                      " ".join(words.split()), " ".join(subject.split()))


def _kind(start: date, end: date, today: date, *, single: bool, explicit_year: bool = False) -> str:
    """One day is a "day" (a past one a "period" when its year was written out); longer
    spans are a "range", or a "period" once they are entirely over."""
    past = end <= today
    if single:
        return "period" if past and explicit_year else "day"
    return "period" if past else "range"


def _day(d: date, today: date, explicit_year: bool = False) -> _Found:
    end = d + timedelta(days=1)
    return d, end, _kind(d, end, today, single=True, explicit_year=explicit_year)


def _span(start: date, end: date, today: date) -> _Found:
    return start, end, _kind(start, end, today, single=False)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _closest(month: int, day: int, today: date, since: bool) -> date | None:
    """The occurrence of month/day nearest today (ties to the future); after "since",
    the most recent one not after today."""
    options = [d for y in (today.year - 1, today.year, today.year + 1)
               if (d := _safe_date(y, month, day)) is not None and not (since and d > today)]
    return _nearest(options, today) if options else None


def _nearest(days: Sequence[date], today: date) -> date:
    """The day nearest today, ties to the future."""
    return min(days, key=lambda d: (abs((d - today).days), d < today))


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _coming(weekday: int, today: date) -> date:
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def _previous(weekday: int, today: date) -> date:
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def _month(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, start + relativedelta(months=1)


def _season(year: int, first_month: int) -> tuple[date, date]:
    start = date(year, first_month, 1)
    return start, start + relativedelta(months=3)


def _cyclic(occurrence: Callable[[int], tuple[date, date]], modifier: str, today: date) -> _Found:
    """A month or season named without a year, by its modifier (see the module doc)."""
    return _span(*_choose([occurrence(y) for y in range(today.year - 2, today.year + 2)],
                          modifier, today), today)


def _choose(spans: Sequence[tuple[date, date]], modifier: str, today: date) -> tuple[date, date]:
    """Of a yearly span's occurrences, the one a modifier names: "last" the most recent
    that has ended, "next" the first not begun, "this" the one under way or this year's;
    otherwise the most recent begun ("soon": the coming one within the lookahead)."""
    if modifier == "last":
        start, end = max((s for s in spans if s[1] <= today), key=lambda s: s[0])
    elif modifier == "next":
        start, end = min((s for s in spans if s[0] > today), key=lambda s: s[0])
    elif modifier == "this":
        start, end = next((s for s in spans if s[0] <= today < s[1]),
                          min((s for s in spans if s[0].year == today.year), key=lambda s: s[0]))
    else:
        start, end = max((s for s in spans if s[0] <= today), key=lambda s: s[0])
        if modifier == "soon":
            upcoming = min((s for s in spans if s[0] > today), key=lambda s: s[0])
            if upcoming[0] <= today + relativedelta(months=_MONTH_LOOKAHEAD):
                start, end = upcoming
    return start, end


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _nth_weekday(month: int, weekday: int, n: int) -> Callable[[int], date]:
    """The n-th `weekday` of `month` (n = -1: the last one)."""
    def occurrence(year: int) -> date:
        if n > 0:
            first = date(year, month, 1)
            return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
        last = date(year, month, 1) + relativedelta(months=1) - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    return occurrence


_MON, _THU, _FRI, _SAT, _SUN = 0, 3, 4, 5, 6
# How people name holidays in a question (lower case, straight apostrophes), and the names
# the `holidays` package gives them; the day comes from the package, for the household's
# country ([dates] holiday_country), so "Labour Day" is September's in Canada and
# October's in New Zealand. A name the country does not have names no day.
_HOLIDAYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"new\s+year'?s'?\s+eve", ("New Year's Eve",)),
    (r"new\s+year'?s'?(?:\s+day)?", ("New Year's Day",)),
    (r"(?:mlk|martin\s+luther\s+king(?:\s+jr\.?)?)\s+day", ("Martin Luther King Jr. Day",)),
    (r"valentine'?s'?(?:\s+day)?", ("Valentine's Day",)),
    (r"presidents'?\s+day", ("Washington's Birthday", "Presidents' Day")),
    (r"(?:st\.?|saint)\s+patrick'?s(?:\s+day)?", ("Saint Patrick's Day",)),
    (r"good\s+friday", ("Good Friday",)),
    (r"easter(?:\s+sunday)?", ("Easter Sunday",)),
    (r"easter\s+monday", ("Easter Monday",)),
    (r"mother'?s'?\s+day", ("Mother's Day",)),
    (r"memorial\s+day", ("Memorial Day",)),
    (r"father'?s'?\s+day", ("Father's Day",)),
    (r"juneteenth", ("Juneteenth National Independence Day", "Juneteenth")),
    (r"(?:the\s+)?(?:fourth|4th)\s+of\s+july|independence\s+day", ("Independence Day",)),
    (r"labou?r\s+day", ("Labor Day", "Labour Day")),
    (r"columbus\s+day", ("Columbus Day",)),
    (r"halloween", ("Halloween",)),
    (r"veterans'?\s+day", ("Veterans Day",)),
    (r"thanksgiving(?:\s+day)?", ("Thanksgiving Day", "Thanksgiving")),
    (r"(?:christmas|xmas)\s+eve", ("Christmas Eve",)),
    (r"(?:christmas|xmas)(?:\s+day)?", ("Christmas Day",)),
    (r"boxing\s+day", ("Boxing Day",)),
)


def _count(word: str) -> int | None:
    return int(word) if word.isdigit() else _NUMBERS.get(word)


# --- rules: (pattern, resolver); a resolver returns None to decline a match --------

def _r_iso(m: re.Match, ctx: _Ctx) -> _Found | None:
    d = _safe_date(int(m["y"]), int(m["m"]), int(m["d"]))
    return _day(d, ctx.today, explicit_year=True) if d else None


def _r_numeric(m: re.Match, ctx: _Ctx) -> _Found | None:
    if m["y"] is None and _NOT_DATE_AFTER.match(ctx.text, m.end()):
        return None
    month, day = int(m["m"]), int(m["d"])
    if m["y"]:
        year = int(m["y"])
        year += 2000 if year < 100 else 0
        d = _safe_date(year, month, day)
        return _day(d, ctx.today, explicit_year=True) if d else None
    d = _closest(month, day, ctx.today, ctx.since)
    return _day(d, ctx.today) if d else None


def _r_month_day(m: re.Match, ctx: _Ctx) -> _Found | None:
    month, day = _MONTHS[m["mo"]], int(m["d"])
    if m["y"]:
        d = _safe_date(int(m["y"]), month, day)
        return _day(d, ctx.today, explicit_year=True) if d else None
    d = _closest(month, day, ctx.today, ctx.since)
    return _day(d, ctx.today) if d else None


def _r_day_of_month(m: re.Match, ctx: _Ctx) -> _Found | None:
    """A date (this month, the next or the last) with that day of the month, and with the
    named weekday when one is given: the next one from today ("what time does she land on
    the 19th", asked on the 24th: next month's), the last one when the question looks back
    ("what did we pay on the 19th"), else the nearest."""
    day = int(m["d"])
    candidates = []
    for shift in (-1, 0, 1, 2):
        year, month = divmod(ctx.today.month - 1 + shift, 12)
        d = _safe_date(ctx.today.year + year, month + 1, day)
        if d is not None and (m["wd"] is None or d.weekday() == _WEEKDAYS[m["wd"]]):
            candidates.append(d)
    if not candidates:
        return None
    ahead = [d for d in candidates if d >= ctx.today]
    behind = [d for d in candidates if d < ctx.today]
    looks_back = _LOOKS_BACK.search(ctx.text) is not None
    if looks_back and behind:
        return _day(max(behind), ctx.today)
    if ahead and not looks_back:
        return _day(min(ahead), ctx.today)
    return _day(min(candidates, key=lambda d: (abs((d - ctx.today).days), d < ctx.today)), ctx.today)


# A question that looks back in time ("what did we pay on the 19th").
_LOOKS_BACK = re.compile(r"\b(?:did|was|were|had|went|got|came|ago|happened)\b")


def _week_of(day: Callable[[re.Match, _Ctx], "_Found | None"]) -> Callable[[re.Match, _Ctx], "_Found | None"]:
    """"The week of <a day>": the Monday-based calendar week holding that day."""
    def resolve(m: re.Match, ctx: _Ctx) -> _Found | None:
        found = day(m, ctx)
        if found is None:
            return None
        monday = _monday(found[0])
        return _span(monday, monday + timedelta(days=7), ctx.today)
    return resolve


def _r_month_year(m: re.Match, ctx: _Ctx) -> _Found:
    return _span(*_month(int(m["y"]), _MONTHS[m["mo"]]), ctx.today)


def _r_season_year(m: re.Match, ctx: _Ctx) -> _Found:
    return _span(*_season(int(m["y"]), _SEASONS[m["se"]]), ctx.today)


def _r_month(m: re.Match, ctx: _Ctx) -> _Found | None:
    modifier = m["mod"] or ""
    # "the December meeting", "october energy bill was how much": a full month name used as
    # an adjective names that month.
    attributive = m["mo"] != "may" and len(m["mo"]) > 3 and (
        _ending_at(_THE, ctx.text, m.start()) or _ending_at(_QUESTION_START, ctx.text, m.start()))
    if not modifier and not attributive and not _ending_at(_MONTH_PREPOSITION, ctx.text, m.start()):
        return None
    if m["mo"] == "may" and _MAY_VERB.match(ctx.text, m.end()):
        return None
    if not modifier and not ctx.since:
        modifier = "soon"
    month = _MONTHS[m["mo"]]
    return _cyclic(lambda y: _month(y, month), modifier, ctx.today)


def _r_season(m: re.Match, ctx: _Ctx) -> _Found:
    first = _SEASONS[m["se"]]
    modifier = "last" if "past" in m["mod"] or m["mod"] == "last" else m["mod"]
    return _cyclic(lambda y: _season(y, first), modifier, ctx.today)


def _r_year(m: re.Match, ctx: _Ctx) -> _Found:
    return _span(date(int(m["y"]), 1, 1), date(int(m["y"]) + 1, 1, 1), ctx.today)


def _r_relative_day(m: re.Match, ctx: _Ctx) -> _Found:
    word = m["w"]
    offset = -1 if word == "yesterday" else 1 if word.startswith(("tom", "tmr")) else 0
    return _day(ctx.today + timedelta(days=offset), ctx.today)


def _r_weekday(m: re.Match, ctx: _Ctx) -> _Found | None:
    if not m["mod"] and _ending_at(_WEEKDAY_AS_VALUE, ctx.text, m.start()):
        return None   # "switched to Thursday", "moved from Monday": a weekday, not a day
    weekday, modifier = _ANY_WEEKDAY[m["wd"]], " ".join((m["mod"] or "").split())
    after = " ".join((m.groupdict().get("post") or "").split())
    if modifier == "next" or after == "next week":
        d = _monday(ctx.today) + timedelta(days=7 + weekday)
    elif after in ("week", "after next"):
        d = _coming(weekday, ctx.today + timedelta(days=1)) + timedelta(days=7)
    elif modifier in ("last", "this past", "past") or (ctx.since and weekday != ctx.today.weekday()):
        d = _previous(weekday, ctx.today)
    else:
        d = _coming(weekday, ctx.today)
    return _day(d, ctx.today)


def _r_week(m: re.Match, ctx: _Ctx) -> _Found:
    shift = {"this": 0, "next": 7, "last": -7}[m["mod"]]
    monday = _monday(ctx.today) + timedelta(days=shift)
    if m["unit"] == "weekend":
        return _span(monday + timedelta(days=5), monday + timedelta(days=7), ctx.today)
    return _span(monday, monday + timedelta(days=7), ctx.today)


def _r_month_rel(m: re.Match, ctx: _Ctx) -> _Found:
    shift = {"this": 0, "next": 1, "last": -1}[m["mod"]]
    first = date(ctx.today.year, ctx.today.month, 1) + relativedelta(months=shift)
    return _span(*_month(first.year, first.month), ctx.today)


def _r_year_rel(m: re.Match, ctx: _Ctx) -> _Found:
    year = ctx.today.year + {"this": 0, "next": 1, "last": -1}[m["mod"]]
    return _span(date(year, 1, 1), date(year + 1, 1, 1), ctx.today)


def _r_past_n(m: re.Match, ctx: _Ctx) -> _Found | None:
    n = _count(m["n"] or m["n2"] or "1")
    if n is None:
        return None
    unit = m["unit"].rstrip("s")
    start = ctx.today - relativedelta(**{f"{unit}s": n})
    return start, ctx.today + timedelta(days=1), "since"


def _r_ago(m: re.Match, ctx: _Ctx) -> _Found:
    """"two years ago" is that calendar year; "three weeks ago" that calendar week."""
    n = _count(m["n"])
    unit = m["unit"].rstrip("s")
    if unit == "day":
        return _day(ctx.today - timedelta(days=n), ctx.today)
    if unit == "week":
        monday = _monday(ctx.today) - timedelta(days=7 * n)
        return _span(monday, monday + timedelta(days=7), ctx.today)
    if unit == "month":
        first = date(ctx.today.year, ctx.today.month, 1) - relativedelta(months=n)
        return _span(*_month(first.year, first.month), ctx.today)
    year = ctx.today.year - n
    return _span(date(year, 1, 1), date(year + 1, 1, 1), ctx.today)


def _r_from_now_any(m: re.Match, ctx: _Ctx) -> _Found:
    d = m.groupdict()
    n, unit = (d["n"], d["unit"]) if d["n"] else (d["n2"], d["unit2"])
    n_days = _count(n) * (7 if unit.startswith("week") else 1)
    return _day(ctx.today + timedelta(days=n_days), ctx.today)


def _holiday(names: tuple[str, ...]) -> Callable[[re.Match, _Ctx], "_Found | None"]:
    def resolve(m: re.Match, ctx: _Ctx) -> _Found | None:
        today = ctx.today

        def day_in(year: int) -> date | None:
            return holiday_day(names, year, ctx.holidays)

        days = [d for d in (day_in(y) for y in range(today.year - 1, today.year + 2)) if d]
        year = int(m["y"]) if m["y"] else None
        if m["rel"]:
            year = today.year + {"last": -1, "this": 0, "next": 1}[m["rel"]]
        if year is not None:
            day = day_in(year)
        elif not days:
            day = None
        elif m["mod"]:
            day = _choose([(d, d + timedelta(days=1)) for d in days], m["mod"], today)[0]
        else:
            day = _nearest(days, today)
        if day is None:
            return None
        if m["shift"]:
            after = m["shift"] == "after"
            if m["shiftday"] == "day":
                day += timedelta(days=1 if after else -1)
            else:
                weekday = _WEEKDAYS[m["shiftday"]]
                day = _coming(weekday, day + timedelta(days=1)) if after else _previous(weekday, day)
            return _day(day, today, explicit_year=year is not None)
        if m["weekof"] or m["long"] == "week":
            monday = _monday(day)
            if m["ofday"]:
                return _day(monday + timedelta(days=_WEEKDAYS[m["ofday"]]), today, explicit_year=year is not None)
            return _span(monday, monday + timedelta(days=7), today)
        if m["over"] or m["long"]:
            return _span(*_long_weekend(day), today)
        return _day(day, today, explicit_year=year is not None)
    return resolve


def _long_weekend(day: date) -> tuple[date, date]:
    """A holiday with the weekend it makes long: Saturday to a Monday holiday, a Thursday
    or Friday one through its Sunday; otherwise the day itself (end exclusive)."""
    weekday = day.weekday()
    after_sunday = day + timedelta(days=_SUN - weekday + 1)
    if weekday == _MON:
        return day - timedelta(days=2), day + timedelta(days=1)
    if weekday in (_THU, _FRI):
        return day, after_sunday
    if weekday in (_SAT, _SUN):
        return day - timedelta(days=weekday - _SAT), after_sunday
    return day, day + timedelta(days=1)


_Resolver = Callable[[re.Match, _Ctx], "_Found | None"]
_RULES: tuple[tuple[re.Pattern, _Resolver], ...] = tuple((re.compile(p), f) for p, f in (
    (rf"\b(?P<y>{_YEAR})-(?P<m>\d{{1,2}})-(?P<d>\d{{1,2}})\b", _r_iso),
    (r"(?<![\d/.-])(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/])", _r_numeric),
    # An optional weekday before the date ("friday nov 27") belongs to it.
    ((rf"\b(?:(?:{_WD}|{_WWD}),?\s+)?(?P<mo>{_MO})\.?\s+(?P<d>\d{{1,2}}){_ORD}\b"
      rf"(?:,?\s+(?P<y>{_YEAR})\b)?"), _r_month_day),
    # "friday the 27th", "the 27th": a day of the month, the nearest one (with that weekday).
    (rf"\b(?:(?P<wd>{_WD}),?\s+)?the\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MO})\b)",
     _r_day_of_month),
    ((rf"\b(?:(?:{_WD}|{_WWD}),?\s+)?(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mo>{_MO})\b"
      rf"(?:,?\s+(?P<y>{_YEAR})\b)?"), _r_month_day),
    # "the week of December 1", "week of 12/1": longer than the day, so it wins.
    ((rf"\bweek\s+of\s+(?:(?:{_WD}),?\s+)?(?P<mo>{_MO})\.?\s+(?P<d>\d{{1,2}}){_ORD}\b"
      rf"(?:,?\s+(?P<y>{_YEAR})\b)?"), _week_of(_r_month_day)),
    ((rf"\bweek\s+of\s+(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mo>{_MO})\b"
      rf"(?:,?\s+(?P<y>{_YEAR})\b)?"), _week_of(_r_month_day)),
    (r"\bweek\s+of\s+(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/])",
     _week_of(_r_numeric)),
    (rf"\b(?P<mo>{_MO})\.?,?\s+(?:of\s+)?(?P<y>{_YEAR})\b", _r_month_year),
    (rf"\b(?:the\s+)?(?P<se>{_SE})\s+(?:of\s+)?(?P<y>{_YEAR})\b", _r_season_year),
    (rf"\b(?:(?P<mod>last|this|next)\s+)?(?P<mo>{_MO})\b(?!\.?\s*\d)", _r_month),
    (rf"\b(?P<mod>last|this|next|this\s+past|past)\s+(?P<se>{_SE})\b", _r_season),
    (rf"(?<![$#/-])\b(?P<y>{_YEAR})\b(?![-/]\d)", _r_year),
    ((r"\b(?P<w>today|tonight|this\s+(?:morning|afternoon|evening)|tomorrow|tomorow|"
      rf"tommorow|tommorrow|tmrw|tmr|yesterday)\b{_PART_OF_DAY}"), _r_relative_day),
    ((r"\b(?:(?P<mod>this\s+coming|this\s+past|coming|this|next|last|past|on)\s+)?"
      rf"(?P<wd>{_WD})\b{_PART_OF_DAY}{_WEEK_AFTER}"), _r_weekday),
    ((r"\b(?P<mod>this\s+coming|this\s+past|coming|this|next|last|past|on)\s+"
      rf"(?P<wd>{_WWD})\b(?!\s+(?:down|up|in|on|out|by|with)\b){_PART_OF_DAY}"), _r_weekday),
    (r"\b(?P<mod>this|next|last)\s+(?P<unit>week|weekend)\b(?!\s+of\b)", _r_week),
    (r"\b(?P<mod>this|next|last)\s+month\b(?!\s+of\b)", _r_month_rel),
    (r"\b(?P<mod>this|next|last)\s+year\b(?!\s+of\b)", _r_year_rel),
    # "the past week", "past 3 months", "the last 30 days"; not "last week" (the calendar
    # week) nor "the last day of school".
    ((rf"\b(?:(?:the\s+)?past\s+(?:(?P<n>{_COUNT})\s+(?:of\s+)?)?|(?:the\s+)?last\s+"
      rf"(?P<n2>{_COUNT})\s+(?:of\s+)?)(?P<unit>days?|weeks?|months?|years?)\b"), _r_past_n),
    *(((rf"\b(?:(?:the\s+)?(?P<shiftday>day|{_WD})\s+(?P<shift>after|before)\s+)?"
        rf"(?:(?:the\s+)?(?P<ofday>{_WD})\s+of\s+(?:the\s+)?)?(?P<weekof>week\s+of\s+)?"
        r"(?:(?P<over>over|during)\s+)?(?:(?P<mod>last|next|this)\s+)?"
        rf"(?P<name>{name})(?:\s+(?P<long>break|weekend|holiday|week))?(?![\w'])"
        rf"(?:,?\s+(?:of\s+|in\s+)?(?P<y>{_YEAR})\b|\s+(?P<rel>last|this|next)\s+year\b)?"),
       _holiday(names)) for name, names in _HOLIDAYS),
    # "a few years ago" is too vague to centre a period on: the router's cue covers it.
    (rf"\b(?P<n>{_EXACT})\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b", _r_ago),
    ((rf"\b(?P<n>{_EXACT})\s+(?P<unit>days?|weeks?)\s+from\s+(?:today|now)\b|"
      rf"\bin\s+(?P<n2>{_EXACT})\s+(?P<unit2>days?|weeks?)\b(?!\s+(?:ago|from))"), _r_from_now_any),
))
