"""Date helpers shared by the ingestors: every date leaves here timezone-aware.

A date with no zone (EXIF without an offset, a PDF date without one, a printed receipt
time) is a *floating* wall-clock time: it is read in the configured floating zone and
flagged, so the wall clock a person saw is never shifted by guesswork.
"""
from __future__ import annotations

import email.utils
import re
from datetime import date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import parser as dateutil_parser

# Obsolete RFC 822 zones and common abbreviations mail still carries.
_ZONE_OFFSETS = {
    "UT": 0, "GMT": 0, "UTC": 0, "Z": 0,
    "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "CET": 1, "CEST": 2, "BST": 1, "JST": 9, "IST": 5.5, "AEST": 10, "AEDT": 11,
}
TZINFOS = {name: int(hours * 3600) for name, hours in _ZONE_OFFSETS.items()}

_DEFAULT = datetime(2000, 1, 1)  # dateutil fills missing parts from this, never from today


def zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ValueError(f"unknown time zone {name!r}") from err


def make_aware(value: datetime | date, floating: tzinfo) -> tuple[datetime, bool]:
    """(aware datetime, was_floating). A bare date becomes midnight in the floating zone."""
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=floating), True
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        return value.replace(tzinfo=floating), True
    return value, False


def plausible(value: datetime | None, now: datetime, min_year: int, max_future_days: int) -> bool:
    """False for dates no household document carries: before min_year or far in the future."""
    if value is None:
        return False
    return value.year >= min_year and value <= now + timedelta(days=max_future_days)


_BAD_ZONE = re.compile(r"\s+(?:[A-Za-z][A-Za-z0-9+-]*|[+-]\d{1,3})\s*$")
_COMMENT = re.compile(r"\([^()]*\)")


# Years the parsers silently rewrite: "1 Jan 0001" becomes 2001 (a two-digit-year rule),
# "10 Mar -2026" becomes 2000 (the default year, the minus read as a zone).
_ZERO_YEAR = re.compile(r"(?<![\w+\-:.])0\d{3}(?![\d:])")
_NEGATIVE_YEAR = re.compile(r"(?<![\d:])-\d{1,4}\s+\d{1,2}:\d{2}")


def parse_header_date(raw: str | None) -> tuple[datetime | None, bool]:
    """Parse an RFC 822 Date/Received date. Returns (datetime or None, floating).

    RFC 2822 parsing first (obsolete zones, two-digit years, folded lines with comments);
    dateutil for sloppier forms; an unknown zone ("H0500") keeps the wall clock, floating.
    A broken date (a zone offset of a day or more, a year the parsers would rewrite) is
    None, as if there were none: the caller falls back, the message is not lost.
    """
    if not raw:
        return None, False
    text = " ".join(_COMMENT.sub(" ", str(raw)).split())
    if not text or _ZERO_YEAR.search(text) or _NEGATIVE_YEAR.search(text):
        return None, False
    parsed, floating = _parse_header_text(text)
    if parsed is None or not _valid_offset(parsed):
        return None, False
    return parsed, floating


def _valid_offset(value: datetime) -> bool:
    """A zone offset Python can convert: strictly within a day (`+9999` is not)."""
    try:
        offset = value.utcoffset()
    except ValueError:
        return False
    return offset is None or abs(offset) < timedelta(hours=24)


def _parse_header_text(text: str) -> tuple[datetime | None, bool]:
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        parsed = None
    if parsed is not None:
        # parsedate_to_datetime returns naive for "-0000" (zone unknown by RFC 5322).
        return (parsed, False) if parsed.tzinfo else (parsed, True)
    try:
        parsed = dateutil_parser.parse(text, default=_DEFAULT, tzinfos=TZINFOS, fuzzy=False)
        return (parsed, parsed.tzinfo is None)
    except (ValueError, OverflowError):
        pass
    stripped = _BAD_ZONE.sub("", text)
    if stripped != text:
        try:
            parsed = dateutil_parser.parse(stripped, default=_DEFAULT)
            if parsed.tzinfo is None:
                return parsed, True
        except (ValueError, OverflowError):
            pass
    return None, False


_PDF_DATE = re.compile(
    r"^D?:?\s*(?P<y>\d{4})(?P<mo>\d{2})?(?P<d>\d{2})?(?P<h>\d{2})?(?P<mi>\d{2})?(?P<s>\d{2})?"
    r"(?P<tz>[Zz+\-])?(?P<th>\d{2})?'?(?P<tm>\d{2})?'?"
)


def parse_pdf_date(raw: object) -> tuple[datetime | None, bool]:
    """Parse a PDF date string (D:YYYYMMDDHHmmSSOHH'mm'), tolerating the common breakage:
    missing parts, "Z00'00", offsets like +05'24', no zone at all (floating)."""
    if raw is None:
        return None, False
    if isinstance(raw, datetime):
        return raw, raw.tzinfo is None
    match = _PDF_DATE.match(str(raw).strip())
    if not match:
        return None, False
    g = match.groupdict()
    try:
        value = datetime(
            int(g["y"]), int(g["mo"] or 1), int(g["d"] or 1),
            int(g["h"] or 0), int(g["mi"] or 0), int(g["s"] or 0),
        )
    except ValueError:
        return None, False
    sign = g["tz"]
    if sign in ("Z", "z"):
        return value.replace(tzinfo=timezone.utc), False
    if sign in ("+", "-") and g["th"]:
        minutes = int(g["th"]) * 60 + int(g["tm"] or 0)
        if minutes >= 24 * 60:
            return value, True
        offset = timedelta(minutes=minutes if sign == "+" else -minutes)
        return value.replace(tzinfo=timezone(offset)), False
    return value, True


_EXIF_DATE = re.compile(r"^\s*(\d{4})[:\-/](\d{2})[:\-/](\d{2})[ T]?(\d{2})?:?(\d{2})?:?(\d{2})?")
_OFFSET = re.compile(r"^\s*([+-])(\d{2}):?(\d{2})\s*$")


def parse_exif_date(raw: str | None, offset: str | None = None) -> tuple[datetime | None, bool]:
    """EXIF "YYYY:MM:DD HH:MM:SS" plus OffsetTime* ("+02:00") when the camera wrote one."""
    if not raw:
        return None, False
    match = _EXIF_DATE.match(str(raw))
    if not match:
        return None, False
    parts = [int(p) if p else 0 for p in match.groups()]
    try:
        value = datetime(*parts)
    except ValueError:  # "0000:00:00 00:00:00" is what cameras write for "unset"
        return None, False
    off = _OFFSET.match(offset or "")
    minutes = int(off.group(2)) * 60 + int(off.group(3)) if off else 0
    if off and minutes < 24 * 60:  # "+99:99" is no zone: keep the wall clock, floating
        delta = timedelta(minutes=minutes if off.group(1) == "+" else -minutes)
        return value.replace(tzinfo=timezone(delta)), False
    return value, True


def from_timestamp(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)
