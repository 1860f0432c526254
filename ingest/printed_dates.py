"""Dates printed in a document's text: numeric and month-name forms in six languages.

Every date found here is a wall-clock date with no zone (a receipt, an invoice, a letter
says "12.01.2020 12:00", never "+01:00"), so it is read in the floating zone and flagged.

Numeric day/month order: dotted dates ("03.08.2014") are always day first; slash and dash
dates are month first unless the same text settles it (an unambiguous "31/12/2018" makes
"01/12/2018" day first too) or the text is in a day-first language. `[dates].numeric_order`
can force either order.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from datetime import datetime, tzinfo
from typing import Iterable, Sequence

from .config import DatesSection
from .dates import make_aware
from . import text_lines
from .regex_guard import guarded

# Month names and their usual abbreviations: language data, not tuning. Accented and plain
# spellings both appear (OCR and ASCII-only systems drop accents).
_MONTHS: dict[int, tuple[str, ...]] = {
    # English, German, French, Dutch, Spanish, Italian, Swedish, Afrikaans; Polish as a
    # month is named (styczeń) and as a date names it (13 stycznia).
    1: ("january", "jan", "januar", "jänner", "janvier", "janv", "januari", "enero", "ene",
        "gennaio", "gen", "januarie", "styczeń", "stycznia"),
    2: ("february", "feb", "februar", "février", "fevrier", "févr", "fevr", "fév", "februari",
        "febrero", "febbraio", "februarie", "luty", "lutego"),
    3: ("march", "mar", "märz", "maerz", "mär", "mars", "maart", "mrt", "marzo", "marzec", "marca"),
    4: ("april", "apr", "avril", "avr", "abril", "abr", "aprile", "kwiecień", "kwietnia"),
    5: ("may", "mai", "mei", "mayo", "maggio", "mag", "maj", "maja"),
    6: ("june", "jun", "juni", "juin", "junio", "giugno", "giu", "junie", "czerwiec", "czerwca"),
    7: ("july", "jul", "juli", "juillet", "juil", "julio", "luglio", "lug", "julie", "lipiec", "lipca"),
    8: ("august", "aug", "août", "aout", "augustus", "agosto", "ago", "augusti", "sierpień", "sierpnia"),
    9: ("september", "sep", "sept", "septembre", "septiembre", "setiembre", "settembre", "set",
        "wrzesień", "września"),
    10: ("october", "oct", "oktober", "okt", "octobre", "octubre", "ottobre", "ott", "październik",
         "października"),
    11: ("november", "nov", "novembre", "noviembre", "listopad", "listopada"),
    12: ("december", "dec", "dezember", "dez", "décembre", "decembre", "déc", "diciembre", "dic",
         "dicembre", "desember", "grudzień", "grudnia"),
}
_MONTH_NUMBER = {name: number for number, names in _MONTHS.items() for name in names}
_MONTH_ALT = "|".join(sorted((re.escape(n) for n in _MONTH_NUMBER), key=len, reverse=True))
_MONTH = rf"(?P<month>{_MONTH_ALT})(?![^\W\d_])\.?"

# Small function words that tell the language of a text; the slash-date order follows it.
_LANGUAGE_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the and of to for with your you is this from please our are".split()),
    "de": frozenset("der die das und mit für ist nicht sie ihre wir bei auf zum zur ihr "
                    "eine einer den dem des".split()),
    "fr": frozenset("le les et des du pour vous est une avec sur votre nous au aux".split()),
    "nl": frozenset("het een en van voor niet zijn uw wij met op naar ook".split()),
    "es": frozenset("el los las y para con por una su del que".split()),
    "it": frozenset("il della di per che non una sono alla gli delle".split()),
}
_MONTH_FIRST_LANGUAGES = frozenset({"en"})
_WORD = re.compile(r"[^\W\d_]+")

_YMD = re.compile(r"(?<![\w.,/])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d)")
# OCR drops a narrow space: "12/01/202414:05" is a date and a time run together.
_NUMERIC = re.compile(
    r"(?<![\w.,/])(?P<a>\d{1,2})(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})"
    r"(?:(?!\d)|(?<=\d{4})(?=\d{1,2}:\d{2}(?!\d)))(?![.,/]\d)"
)
_DAY_MONTH = re.compile(
    rf"(?<![\w.,/])(?P<d>\d{{1,2}})(?:st|nd|rd|th|er|e|º|°)?\.?[ \t]*(?:de[ \t]+|of[ \t]+)?{_MONTH}"
    r"[ \t]*,?[ \t]*(?:de[ \t]+)?(?P<y>\d{4})(?!\d)",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"(?<![^\W\d_]){_MONTH}[ \t]+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?[ \t]*,?[ \t]*(?P<y>\d{{4}})(?!\d)",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"(?:T|[ \t]*(?:,|um|at|à|a las|alle|om)?[ \t]*)(?P<h>\d{1,2})(?::|h)(?P<mi>\d{2})"
    r"(?::(?P<s>\d{2}))?(?!\d)(?:[ \t]*(?P<ampm>[ap]\.?m\.?)(?!\w))?",
    re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class PrintedDate:
    """A date found in text: `value` is aware (floating zone), `start:end` its span."""

    value: datetime
    start: int
    end: int
    has_time: bool
    text: str
    floating: bool = True


def month_names() -> dict[str, int]:
    """Every month name and abbreviation of `_MONTHS`, lower-case, with its month number."""
    return dict(_MONTH_NUMBER)


@functools.lru_cache(maxsize=1)
def default_rules() -> DatesSection:
    """The [dates] section of the configuration, read once, for callers that pass none."""
    from .config import load_ingest_config

    return load_ingest_config().dates


def find_dates(text: str, floating: tzinfo, *, rules: DatesSection | None = None) -> list[PrintedDate]:
    """Every full date (day, month, year) printed in `text`, in order of position."""
    rules = rules or default_rules()
    found: list[tuple[int, int, datetime | None, re.Match]] = []
    for match in _YMD.finditer(text):
        found.append((match.start(), match.end(), _safe_date(match["y"], match["m"], match["d"]), match))
    numeric = list(_NUMERIC.finditer(text))
    orders = _slash_orders(text, numeric, rules.numeric_order, rules.day_first_currencies)
    for match in numeric:
        year = _full_year(match["y"], rules.two_digit_year_pivot)
        a, b = int(match["a"]), int(match["b"])
        day_first = match["sep"] == "." or a > 12 or (b <= 12 and orders[match["sep"]])
        day, month = (a, b) if day_first else (b, a)
        found.append((match.start(), match.end(), _safe_date(year, month, day), match))
    for pattern in (_DAY_MONTH, _MONTH_DAY):
        for match in pattern.finditer(text):
            month = _MONTH_NUMBER.get(match["month"].lower())
            value = _safe_date(match["y"], month, match["d"]) if month else None
            found.append((match.start(), match.end(), value, match))

    dates: list[PrintedDate] = []
    last_end = -1
    # Longest match first at each position; overlapping later matches are parts of it.
    for start, end, value, _ in sorted(found, key=lambda f: (f[0], -(f[1] - f[0]))):
        if value is None or start < last_end:
            continue
        value, end, has_time = _with_time(text, value, end, rules.time_gap_chars)
        aware, is_floating = make_aware(value, floating)
        dates.append(PrintedDate(aware, start, end, has_time, text[start:end], is_floating))
        last_end = end
    return dates


def find_labelled(
    text: str,
    labels: Sequence[str],
    floating: tzinfo,
    *,
    exclude: Iterable[str] = (),
    rules: DatesSection | None = None,
    dates: Sequence[PrintedDate] | None = None,
) -> tuple[PrintedDate, str] | None:
    """(date, label) for the first label, in order of preference, that has a date after it
    on its line (within `label_gap_chars`) or under it on the next non-blank line.

    A label inside one of the `exclude` labels ("date" in "due date") does not count.
    """
    rules = rules or default_rules()
    if dates is None:
        dates = find_dates(text, floating, rules=rules)
    if not dates:
        return None
    blocked = [m.span() for label in exclude for m in label_pattern(label).finditer(text)]
    for label in labels:
        for match in label_pattern(label).finditer(text):
            if any(s < match.end() and match.start() < e for s, e in blocked):
                continue
            date = date_after(text, match, dates, rules)
            if date is not None:
                return date, label
    return None


def date_after(text: str, label: re.Match, dates: Sequence[PrintedDate],
               rules: DatesSection) -> PrintedDate | None:
    """The date belonging to a label: on its line within the gap, else under it."""
    line_end = text_lines.line_end(text, label.end())
    for date in dates:
        if date.start < label.end():
            continue
        if date.start >= line_end:
            break
        gap = " ".join(text[label.end():date.start].split())
        if len(gap) <= rules.label_gap_chars:
            return date
        break
    next_start, next_end = text_lines.next_line(text, line_end)
    if next_start is None:
        return None
    column_lo = label.start() - text_lines.line_start(text, label.start()) - rules.label_column_slack
    column_hi = label.end() - text_lines.line_start(text, label.start()) + rules.label_column_slack
    first_token = len(text[next_start:next_end]) - len(text[next_start:next_end].lstrip())
    for date in dates:
        if date.start < next_start or date.start >= next_end:
            continue
        column = date.start - next_start
        if column_lo <= column <= column_hi or column == first_token:
            return date
    return None


@functools.lru_cache(maxsize=1024)
def label_pattern(label: str, plural: bool = False) -> re.Pattern:
    """A label matched case-insensitively as whole words, accents optional ("NET A PAYER"
    is "net à payer"); with `plural`, a trailing "s" is allowed ("Tax Invoices")."""
    return guarded(re.compile(rf"(?<!\w){_label_body(label)}{'s?' if plural else ''}(?!\w)", re.IGNORECASE))


def labels_pattern(labels: Sequence[str], plural: bool = False) -> re.Pattern:
    """Any of `labels`, as `label_pattern` matches each: the word boundary tested once for
    all of them rather than once per label at every position of a text."""
    bodies = "|".join(_label_body(label) for label in labels)
    return guarded(re.compile(rf"(?<!\w)(?:{bodies}){'s?' if plural else ''}(?!\w)", re.IGNORECASE))


def _label_body(label: str) -> str:
    return r"\s+".join(_folded(part) for part in label.split())


# Letters that lose their accents in print, OCR and ASCII-only systems.
_ACCENTS = {
    "a": "aàâáäã", "e": "eéèêë", "i": "iîïíì", "o": "oôöóòõ", "u": "uùûüú", "c": "cç",
    "n": "nñ", "y": "yÿý",
}
_BASE = {accented: base for base, group in _ACCENTS.items() for accented in group}


def _folded(word: str) -> str:
    return "".join(f"[{_ACCENTS[_BASE[ch]]}]" if ch in _BASE else re.escape(ch)
                   for ch in word.lower())


def day_first_language(text: str) -> bool:
    """True when the text's function words are mostly from a day-first language."""
    counts = dict.fromkeys(_LANGUAGE_WORDS, 0)
    for word in _WORD.findall(text.lower()):
        for language, words in _LANGUAGE_WORDS.items():
            if word in words:
                counts[language] += 1
    best = max(counts, key=lambda language: counts[language])
    return counts[best] > 0 and best not in _MONTH_FIRST_LANGUAGES and all(
        counts[best] > counts[other] for other in _MONTH_FIRST_LANGUAGES
    )


_ORDERS = {"day_first": True, "month_first": False}


def _slash_orders(text: str, matches: Sequence[re.Match], setting: str,
                  currencies: Sequence[str] = ()) -> dict[str, bool]:
    """Per separator ("/", "-"): True when ambiguous dates are day first."""
    if setting in _ORDERS:
        return {"/": _ORDERS[setting], "-": _ORDERS[setting], ".": True}
    if setting != "auto":
        raise ValueError(f"unknown [dates].numeric_order {setting!r}; valid: auto, "
                         + ", ".join(_ORDERS))
    language_day_first: bool | None = None
    orders = {".": True}
    for sep in "/-":
        day_votes = month_votes = 0
        for match in matches:
            if match["sep"] != sep:
                continue
            a, b = int(match["a"]), int(match["b"])
            day_votes += a > 12 >= b
            month_votes += b > 12 >= a
        if day_votes != month_votes:
            orders[sep] = day_votes > month_votes
            continue
        if language_day_first is None:
            language_day_first = day_first_language(text) or _priced_in(text, currencies)
        orders[sep] = language_day_first
    return orders


def _priced_in(text: str, currencies: Sequence[str]) -> bool:
    """Does the text state an amount in one of these currencies ("€398.00", "EUR 12")? A
    currency spelled with letters runs into no word, and its amount into none ("205/60R16"
    is a tyre and "R410A" a refrigerant, not rand)."""
    for c in currencies:
        lead = r"(?<!\w)" if c[:1].isalpha() else ""
        trail = r"(?!\w)" if c[-1:].isalpha() else ""
        if re.search(rf"{lead}{re.escape(c)}\s?\d[\d,.'’ ]*(?<=\d)(?!\w)|\d\s?{re.escape(c)}{trail}", text):
            return True
    return False


def _with_time(text: str, value: datetime, end: int, gap: int) -> tuple[datetime, int, bool]:
    match = _TIME.match(text, end)
    if not match or match.start("h") - end > gap:
        return value, end, False
    hour, minute = int(match["h"]), int(match["mi"])
    second = int(match["s"] or 0)
    ampm = (match["ampm"] or "").lower().replace(".", "")
    if ampm:
        if not 1 <= hour <= 12:
            return value, end, False
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return value, end, False
    return value.replace(hour=hour, minute=minute, second=second), match.end(), True


def _full_year(raw: str, pivot: int) -> int:
    year = int(raw)
    if len(raw) == 2:
        year += 2000 if year < pivot else 1900
    return year


def _safe_date(year, month, day) -> datetime | None:
    try:
        return datetime(int(year), int(month), int(day))
    except (TypeError, ValueError):
        return None
