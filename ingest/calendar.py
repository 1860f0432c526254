"""Calendar files (.ics): one document per event, dated by the day the event is about.

An event's date is its DTSTART, not when the invitation was sent; the sending date is kept
as `issued_date`. A recurring event keeps its RRULE, and `expand_occurrences` unrolls it
around a given moment (the query side passes `now`).
"""
from __future__ import annotations

import logging
import re
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import Any, Iterable, Iterator

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar
from dateutil import rrule as dateutil_rrule
from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

from .blob import Blob
from .dates import make_aware
from .document import IngestError, ItemFailure
from .provenance import blob_id, make_document
from .registry import Context, Item

log = logging.getLogger(__name__)

_CLAIM = 1.0            # sniffed BEGIN:VCALENDAR / BEGIN:VEVENT
_CLAIM_BY_NAME = 0.9    # plain text that only its name says is a calendar
_EXTENSIONS = frozenset({".ics", ".ical", ".icalendar", ".vcs"})

# When the invitation was issued, in order of preference (RFC 5545 3.8.7).
_ISSUED = (("LAST-MODIFIED", "last_modified"), ("DTSTAMP", "dtstamp"), ("CREATED", "created"))
# A TZID that only names a fixed offset ("UTC+11", "GMT-0500") when no VTIMEZONE defines it.
_OFFSET_TZID = re.compile(r"^\s*(?:UTC|GMT)\s*(?P<sign>[+-])\s*(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?")
_MINUTES_PER_HOUR = 60
_WHEN = "%A %d %B %Y %H:%M"
_DAY = "%A %d %B %Y"
# The lines event_text writes from the event's fields (before its DESCRIPTION): an answer
# read from the occurrences says these better.
FIELD_LINES = ("Starts ", "Until ", "Ends ", "Location: ", "Status: ", "Organizer: ", "Calendar: ", "Repeats")
_MAX_CALENDAR_NAME = 200    # characters of X-WR-CALNAME kept: a name, not a text
# RFC 5545 mandates UTF-8; anything else is a legacy Windows export.
_FALLBACK_ENCODING = "cp1252"


class CalendarIngestor:
    name = "calendar"

    def claim(self, blob: Blob, kind: str) -> float | None:
        if kind == "ics":
            return _CLAIM
        if kind == "text" and blob.extension in _EXTENSIONS:
            return _CLAIM_BY_NAME
        return None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        try:
            components = icalendar.Calendar.from_ical(_decode(blob.read()), multiple=True)
        except Exception as err:  # icalendar raises ValueError, KeyError, IndexError...
            raise IngestError(f"{blob.name}: not a readable calendar: {err}") from err
        # walk() includes the component itself, so a bare VEVENT counts too. A calendar's
        # own zone (X-WR-TIMEZONE) is where its UTC times are meant to be read.
        # Its name says whose it is ("Kasia", "Kids (Isla & Freddie)"): an event in it is
        # about them even when its summary does not say so.
        events = [(event, _zone_name(_text(component.get("X-WR-TIMEZONE"))),
                   _text(component.get("X-WR-CALNAME"))[:_MAX_CALENDAR_NAME])
                  for component in components for event in component.walk("VEVENT")]
        if not events:
            raise IngestError(f"{blob.name}: not a readable calendar: it holds no events")
        for index, (event, calendar_zone, calendar_name) in enumerate(events):
            try:
                yield event_document(blob, ctx, event, index, calendar_zone, calendar_name)
            except Exception as err:  # one odd event must not lose the rest of the file
                log.warning("%s: event %d unreadable: %s", blob.name, index, err)
                yield ItemFailure(source=f"{blob.source}#{index}", error=str(err),
                                  title=_text(event.get("SUMMARY")))


def event_document(blob: Blob, ctx: Context, event: Any, index: int, calendar_zone: str = "",
                   calendar_name: str = ""):
    start, all_day, floating = _when(event.get("DTSTART"), ctx)
    if not ctx.plausible(start):
        start = None
    end = _end(event, start, ctx)
    issued, issued_source = _issued(event)
    date_source = "dtstart"
    if start is None:
        # No usable DTSTART: the issued date is the best the file offers; say so.
        start, date_source, floating = issued, issued_source, False
        if not ctx.plausible(start):
            start, date_source = None, ""          # make_document takes the provenance date
    summary = _text(event.get("SUMMARY"))
    uid = _text(event.get("UID"))
    recurrence_id = _iso(_value(event.get("RECURRENCE-ID")))
    rrules = _rrules(event)
    meta = {
        "all_day": all_day,
        "issued_date": _iso(issued),
        "issued_date_source": issued_source if issued else "",
        "event_end": _iso(end),
        "location": _text(event.get("LOCATION")),
        "status": _text(event.get("STATUS")).upper(),
        "uid": uid,
        "recurrence_id": recurrence_id,
        "rrule": "\n".join(rrules),
        "exdates": ",".join(_iso(d) or "" for d in _dates(event, "EXDATE")),
        "rdates": ",".join(_iso(d) or "" for d in _dates(event, "RDATE")),
        "organizer": _organizer(event.get("ORGANIZER")),
        "sequence": _sequence(event.get("SEQUENCE")),
        "tzid": _zone_name(_tzid(event.get("DTSTART"))),
        "calendar_tz": calendar_zone,
        "calendar_name": calendar_name,
    }
    return make_document(
        blob, ctx,
        doc_id=blob_id(blob, uid, recurrence_id or "", str(index)),
        text=event_text(summary, event, start if date_source == "dtstart" else None, end,
                        all_day, meta),
        title=summary, doc_type="calendar_event", source_date=start, date_source=date_source,
        date_floating=floating, meta=meta)


def event_text(summary: str, event: Any, start: datetime | None, end: datetime | None,
               all_day: bool, meta: dict[str, Any]) -> str:
    """What a person would read in the event, with its time in words for word search."""
    lines = [summary] if summary else []
    if start is not None:
        lines.append(f"Starts {_words(start, all_day)}")
    if all_day and end is not None and not isinstance(end, datetime):
        last_day = end - timedelta(days=1)     # an all-day DTEND is exclusive
        if start is not None and last_day > start.date():
            lines.append(f"Until {_words(last_day, all_day)}")
    elif end is not None:
        lines.append(f"Ends {_words(end, all_day)}")
    if meta["location"]:
        lines.append(f"Location: {meta['location']}")
    if meta["status"]:
        lines.append(f"Status: {meta['status'].lower()}")
    if meta["organizer"]:
        lines.append(f"Organizer: {meta['organizer']}")
    if meta.get("calendar_name"):
        lines.append(f"Calendar: {meta['calendar_name']}")
    for rule in meta["rrule"].splitlines():
        freq = _rule_parts(rule).get("FREQ", "")
        lines.append(f"Repeats {freq.lower()}".rstrip())
    description = _text(event.get("DESCRIPTION"))
    if description:
        lines.append(description)
    return "\n".join(lines)


def expand_occurrences(dtstart: datetime, rrule: str, around: datetime, days: int,
                       max_count: int, exdates: Iterable[datetime | date] = (),
                       rdates: Iterable[datetime | date] = ()) -> list[datetime]:
    """Occurrences of a recurring event within ±`days` of `around`, at most `max_count`.

    `dtstart` must be aware; expand in the event's own zone (a ZoneInfo) so a weekly 18:00
    practice stays at 18:00 across a DST change. `rrule` is the RRULE text (one rule a line,
    "RRULE:" prefix optional). `rdates` are extra occurrences (a bare date at the start's
    time of day); `exdates` are left out, and a bare date drops that whole day.
    Raises ValueError for a rule dateutil cannot read.
    """
    if dtstart.tzinfo is None or around.tzinfo is None:
        raise ValueError("expand_occurrences needs timezone-aware dtstart and around")
    rules = dateutil_rrule.rruleset()
    window = timedelta(days=days)
    for line in rrule.splitlines():
        text = _normalise_rule(line, dtstart)
        start = dtstart
        if text:
            start, text = _fast_forward(text, dtstart, around - window)
        if text:
            rules.rrule(dateutil_rrule.rrulestr(text, dtstart=start))
    extra = list(rdates)
    if extra and not rrule.strip():
        rules.rdate(dtstart)       # RDATE without RRULE: DTSTART is still the first one
    for added in extra:
        if not isinstance(added, datetime):
            added = datetime.combine(added, dtstart.timetz())
        rules.rdate(make_aware(added, dtstart.tzinfo)[0].astimezone(dtstart.tzinfo))
    skip_days = set()
    for excluded in exdates:
        if isinstance(excluded, datetime):
            rules.exdate(make_aware(excluded, dtstart.tzinfo)[0])
        else:
            skip_days.add(excluded)
    found = []
    for occurrence in rules.xafter(around - window, inc=True):
        if occurrence > around + window or len(found) >= max_count:
            break
        if occurrence.date() not in skip_days:
            found.append(occurrence)
    return found


# Rules that fire more than daily, as a fixed step: expanding one from a start years back
# would walk every second (or minute, or hour) in between.
_STEPS = {"SECONDLY": timedelta(seconds=1), "MINUTELY": timedelta(minutes=1), "HOURLY": timedelta(hours=1)}


def _fast_forward(text: str, dtstart: datetime, lo: datetime) -> tuple[datetime, str]:
    """(start, rule) to expand from: a sub-daily rule with no BY-parts moved forward by whole
    steps to just before `lo`, its COUNT less the occurrences skipped ("" when none are
    left). Any other rule as it is: a daily or weekly one costs a few thousand steps."""
    parts = _rule_parts(text)
    step = _STEPS.get(parts.get("FREQ", "").upper())
    if step is None or any(key.startswith("BY") for key in parts):
        return dtstart, text
    step = step * max(1, int(parts.get("INTERVAL") or 1))
    skipped = int((lo - dtstart) / step) - 1
    if skipped <= 0:
        return dtstart, text
    if "COUNT" in parts:
        left = int(parts["COUNT"]) - skipped
        if left <= 0:
            return dtstart, ""
        parts["COUNT"] = str(left)
    return dtstart + step * skipped, ";".join(f"{k}={v}" for k, v in parts.items())


def _normalise_rule(line: str, dtstart: datetime) -> str:
    """The RRULE value dateutil accepts: no prefix, no blanks ("BYDAY=MO, TU" is what
    Exchange writes), and an UNTIL in UTC as dateutil requires for an aware DTSTART."""
    text = re.sub(r"\s+", "", line)
    if text.upper().startswith("RRULE:"):
        text = text[len("RRULE:"):]
    parts = _rule_parts(text)
    until = parts.get("UNTIL")
    if until and not until.upper().endswith("Z"):
        floating_until = datetime.strptime(until[:15], "%Y%m%dT%H%M%S") if "T" in until.upper() \
            else datetime.strptime(until[:8], "%Y%m%d").replace(
                hour=dtstart.hour, minute=dtstart.minute, second=dtstart.second)
        utc = floating_until.replace(tzinfo=dtstart.tzinfo).astimezone(timezone.utc)
        parts["UNTIL"] = utc.strftime("%Y%m%dT%H%M%SZ")
    return ";".join(f"{k}={v}" for k, v in parts.items())


def _rule_parts(text: str) -> dict[str, str]:
    parts = {}
    for piece in text.split(";"):
        key, _, value = piece.partition("=")
        if key:
            parts[key.strip().upper()] = value.strip()
    return parts


def _when(prop: Any, ctx: Context) -> tuple[datetime | None, bool, bool]:
    """(aware start, all_day, floating). A VALUE=DATE start is a date: midnight, floating.
    A start in a zone nobody defined is floating, unless the zone's name is an offset."""
    value = _value(prop)
    if value is None:
        return None, False, False
    if not isinstance(value, datetime):
        aware, _ = make_aware(value, ctx.floating_zone)
        return aware, True, True
    if value.tzinfo is None or value.utcoffset() is None:
        fixed = _offset_zone(_tzid(prop))
        if fixed is not None:
            return value.replace(tzinfo=fixed), False, False
    aware, floating = make_aware(value, ctx.floating_zone)
    return aware, False, floating


def _end(event: Any, start: datetime | None, ctx: Context) -> datetime | date | None:
    end = _value(event.get("DTEND"))
    if end is None and start is not None:
        duration = _value(event.get("DURATION"))
        if isinstance(duration, timedelta):
            return start + duration
    if isinstance(end, datetime) and (end.tzinfo is None or end.utcoffset() is None):
        fixed = _offset_zone(_tzid(event.get("DTEND")))
        return end.replace(tzinfo=fixed) if fixed else make_aware(end, ctx.floating_zone)[0]
    return end


def _issued(event: Any) -> tuple[datetime | None, str]:
    for prop, source in _ISSUED:
        value = _value(event.get(prop))
        if isinstance(value, datetime):
            # RFC 5545 requires these in UTC; a zoneless one is read as UTC too.
            return (value if value.utcoffset() is not None
                    else value.replace(tzinfo=timezone.utc)), source
    return None, ""


def _value(prop: Any) -> Any:
    """A property's parsed value, or None when it is missing or broken (icalendar keeps
    an unparseable value as vBroken and raises on `.dt`)."""
    if prop is None:
        return None
    if isinstance(prop, list):  # a property given twice: the first one counts
        prop = prop[0] if prop else None
        return _value(prop)
    try:
        return prop.dt
    except (AttributeError, ValueError):  # BrokenCalendarProperty is a ValueError
        return None


def _dates(event: Any, name: str) -> list[datetime | date]:
    """The dates of a date-list property (EXDATE, RDATE); an RDATE period counts by its start."""
    found = []
    props = event.get(name)
    for prop in props if isinstance(props, list) else [props] if props is not None else []:
        for item in getattr(prop, "dts", []):
            try:
                value = item.dt
            except (AttributeError, ValueError):
                continue
            value = value[0] if isinstance(value, tuple) else value
            if isinstance(value, (date, datetime)):
                found.append(value)
    return found


def _rrules(event: Any) -> list[str]:
    props = event.get("RRULE")
    found = []
    for prop in props if isinstance(props, list) else [props] if props is not None else []:
        if isinstance(prop, icalendar.vRecur):
            found.append(prop.to_ical().decode("utf-8", "replace"))
        else:
            found.append(str(prop))   # vBroken keeps the raw text; keep it for the reader
    return found


def _tzid(prop: Any) -> str:
    params = getattr(prop, "params", None)
    return str(params.get("TZID", "")) if params else ""


def _zone_name(tzid: str) -> str:
    """The IANA name of a TZID: Outlook writes Windows names ("Eastern Standard Time");
    a name no zone database knows is kept as written."""
    name = (tzid or "").strip().strip('"')
    if not name:
        return ""
    try:
        ZoneInfo(name)
        return name
    except (ZoneInfoNotFoundError, ValueError):
        return WINDOWS_TO_OLSON.get(name, name)


def _offset_zone(tzid: str) -> tzinfo | None:
    match = _OFFSET_TZID.match(tzid or "")
    if not match:
        return None
    minutes = int(match["h"]) * _MINUTES_PER_HOUR + int(match["m"] or 0)
    return timezone(timedelta(minutes=minutes if match["sign"] == "+" else -minutes))


def _organizer(prop: Any) -> str:
    if prop is None:
        return ""
    address = re.sub(r"^mailto:", "", str(prop), flags=re.IGNORECASE)
    name = str(getattr(prop, "params", {}).get("CN", "")).strip('"')
    return f"{name} <{address}>" if name else address


def _sequence(prop: Any) -> int | None:
    try:
        return int(prop) if prop is not None else None
    except (TypeError, ValueError):
        return None


def _text(prop: Any) -> str:
    if prop is None:
        return ""
    if isinstance(prop, list):
        return " ".join(_text(p) for p in prop)
    return str(prop).strip()


def _iso(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, (date, datetime)) else None


def _words(value: datetime | date, all_day: bool) -> str:
    if all_day or not isinstance(value, datetime):
        return f"{value.strftime(_DAY)} (all day)"
    zone_name = getattr(value.tzinfo, "key", None) or value.tzname() or ""
    return f"{value.strftime(_WHEN)} {zone_name}".rstrip()


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode(_FALLBACK_ENCODING, "replace")
