"""What the page shows, built from the library's results: highlighted snippets, the
confidence badge, the timeline's bars. Document text is untrusted: everything here
escapes it before any markup of ours goes around it."""
from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime
from typing import Iterable, Sequence

from markupsafe import Markup, escape

from ..age import relative_age

# The badge: words and colour class per confidence level (ask.LEVELS).
BADGES = {
    "fresh": ("Fresh", "fresh"),
    "found": ("Found", "found"),
    "outdated": ("Possibly outdated", "outdated"),
    "stale": ("Stale — verify", "stale"),
    "unknown": ("I don't know", "unknown"),
}

# Where a date came from, in words (README "How dates and types are found").
DATE_SOURCES = {
    "date_header": "the email's Date header",
    "received_header": "the email's Received header",
    "parent_message": "the email it came with",
    "einvoice_xml": "the e-invoice's issue date",
    "invoice_date": "the invoice date printed on it",
    "printed_date": "a date printed on it",
    "pdf_creation_date": "the PDF's creation date",
    "xmp_create_date": "the PDF's XMP creation date",
    "pdf_mod_date": "the PDF's modification date",
    "exif_datetime_original": "EXIF DateTimeOriginal (when the photo was taken)",
    "exif_datetime_digitized": "EXIF DateTimeDigitized",
    "exif_datetime": "EXIF DateTime",
    "dtstart": "the event's start",
    "text_date": "a date in the text",
    "filename_date": "a date in the file name",
    "file_mtime": "the file's own time (nothing inside said)",
    "ingested": "when it was read (nothing said)",
}


def date_source(code: str | None) -> str:
    return DATE_SOURCES.get(code or "", code or "unknown")


def highlight(text: str, spans: Iterable[Sequence[int]]) -> Markup:
    """`text` escaped, with the [start, end) spans wrapped in <mark>."""
    out, at = [], 0
    for start, end in sorted((int(s), int(e)) for s, e in spans):
        if start < at or end <= start or end > len(text):
            continue  # overlapping or out of range: never cut a word twice
        out += [escape(text[at:start]), Markup("<mark>"), escape(text[start:end]), Markup("</mark>")]
        at = end
    out.append(escape(text[at:]))
    return Markup("").join(out)


def badge(level: str) -> tuple[str, str]:
    return BADGES.get(level, BADGES["unknown"])


def day_and_age(when: str | None, now: str) -> str:
    """'2026-11-16 (2 days ago)', or 'undated'."""
    if not when:
        return "undated"
    return f"{when[:10]} ({relative_age(when, now)})"


@dataclasses.dataclass(frozen=True)
class Bar:
    label: str       # "2025-07" or "2025-07 – 2025-09"
    count: int
    year_starts: bool  # the first bar of a year: the axis names the year here


def timeline(dates: Iterable[str | None], max_bars: int) -> list[Bar]:
    """Documents per period from the first source date to the last, empty periods kept
    (a gap is information). Periods are months, widened to 2, 3, 6 or 12 months until
    at most `max_bars` bars remain."""
    months = Counter()
    for value in dates:
        if value:
            day = datetime.fromisoformat(value)
            months[day.year * 12 + day.month - 1] += 1
    if not months:
        return []
    first, last = min(months), max(months)
    width = next((w for w in (1, 2, 3, 6, 12) if (last - first) // w + 1 <= max_bars), 12)
    start = first - first % width  # periods align to the calendar (quarters, halves, years)
    bars = []
    for begin in range(start, last + 1, width):
        end = begin + width - 1
        count = sum(months.get(m, 0) for m in range(begin, end + 1))
        label = _month(begin) if width == 1 else f"{_month(begin)} – {_month(end)}"
        bars.append(Bar(label=label, count=count, year_starts=begin % 12 == 0 or begin == start))
    return bars


def _month(index: int) -> str:
    return f"{index // 12:04d}-{index % 12 + 1:02d}"
