"""Calendar answers read from a series' occurrences, not from the text of its first date.

A calendar series is every event document with one UID: the master (DTSTART, RRULE,
RDATE, EXDATE) and its overrides (RECURRENCE-ID: a moved or cancelled occurrence). The
question names a window ("on November 24", "the week of December 1", "tomorrow") or none
(the next occurrence from now; for a question about the past, the last one before now).
Days are compared as local days in the event's own zone, so an 18:00 practice is on the
day its calendar shows whatever zone `now` was given in.
"""
from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


from ..config import EventsSection
from .query_index import parse_iso

CONFIRMED, CANCELLED, MOVED = "confirmed", "cancelled", "moved"
_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_BYDAY = {"MO": 0, "TU": 1, "WE": 2, "TH": 3, "FR": 4, "SA": 5, "SU": 6}
_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", -1: "last"}


@dataclasses.dataclass(frozen=True)
class Occurrence:
    start: datetime              # aware, in the event's zone
    end: datetime | None
    all_day: bool
    status: str                  # CONFIRMED | CANCELLED | MOVED
    moved_from: datetime | None  # the slot a moved occurrence was planned for
    location: str
    title: str
    source: str
    doc: int                     # the document row it comes from (master or override)

    def last_day(self) -> date:
        if self.end is None:
            return self.start.date()
        # An all-day DTEND (and any end at midnight) is exclusive.
        end = self.end - timedelta(microseconds=1)
        return max(self.start.date(), end.date())

    def here(self, first: date, stop: date) -> bool:
        """Does it take place on one of the days [first, stop)?"""
        return self.status != CANCELLED and self.start.date() < stop and self.last_day() >= first

    def meets(self, first: date, stop: date) -> bool:
        """Does it lie in the days [first, stop), by where it is now or where it was?"""
        on = self.start.date() < stop and self.last_day() >= first
        was = self.moved_from is not None and first <= self.moved_from.date() < stop
        return on or was

    def to_dict(self) -> dict[str, Any]:
        return {"start": _iso(self.start, self.all_day), "end": _iso(self.end, self.all_day),
                "status": self.status,
                "moved_from": _iso(self.moved_from, self.all_day) if self.moved_from else None,
                "location": self.location, "title": self.title, "source": self.source,
                "all_day": self.all_day}


@dataclasses.dataclass(frozen=True)
class EventAnswer:
    kind: str                    # "occurrence" | "no_occurrence" | a field name ("location")
    text: str
    occurrences: list[Occurrence]


class Series:
    """The calendar series of the index's documents, found by UID."""

    def __init__(self, docs: Sequence[dict[str, Any]], doc_epoch, cfg: EventsSection,
                 calendar: Sequence[int] | None = None):
        """`calendar`: the rows of the calendar events, when the caller knows them (the
        others' records need not be read)."""
        self.docs, self.doc_epoch, self.cfg = docs, doc_epoch, cfg
        self._by_uid: dict[str, list[int]] = {}
        zones: collections.Counter[str] = collections.Counter()
        rows = enumerate(docs) if calendar is None else ((row, docs[row]) for row in calendar)
        for row, doc in rows:
            if doc.get("doc_type") == "calendar_event" and doc.get("uid"):
                self._by_uid.setdefault(str(doc["uid"]), []).append(row)
            if doc.get("doc_type") == "calendar_event" and _valid_zone(doc.get("tzid")):
                zones[str(doc["tzid"])] += 1
        # The household's zone, as its calendars say: where an event given in UTC is read.
        self.household_zone = ZoneInfo(zones.most_common(1)[0][0]) if zones else None

    def rows(self, doc: int) -> list[int]:
        uid = self.docs[doc].get("uid")
        return self._by_uid.get(str(uid), [doc]) if uid else [doc]

    def occurrences(self, doc: int, first: date, stop: date, home: tzinfo) -> list[Occurrence]:
        """The series' occurrences (cancelled ones included) that lie in or were planned
        for the days [first, stop), in time order. An event with a TZID, or a floating
        one, is read in its own zone; one in UTC in its calendar's (X-WR-TIMEZONE), else
        the household's (its calendars' most common zone), else `home`, the asker's."""
        rows = self.rows(doc)
        overrides = {}
        masters = []
        for row in rows:
            rid = parse_iso(self.docs[row].get("recurrence_id"))
            if rid is None:
                masters.append(row)
            else:
                overrides[_key(rid)] = row
        found: list[Occurrence] = []
        for master in masters:
            for planned in self._planned(master, first, stop, home):
                override = overrides.pop(_key(planned.start), None)
                if override is None and planned.all_day:
                    override = overrides.pop(planned.start.date(), None)
                found.append(planned if override is None else self._moved(planned, override, home))
        # An override whose planned slot lies outside the days expanded may still have
        # moved into them.
        for row in overrides.values():
            occ = self._single(row, home)
            rid = parse_iso(self.docs[row].get("recurrence_id"))
            if occ is None or rid is None:
                continue
            slot = (rid.astimezone(occ.start.tzinfo) if isinstance(rid, datetime)
                    else datetime.combine(rid, datetime.min.time(), occ.start.tzinfo))
            found.append(self._moved(dataclasses.replace(occ, start=slot), row, home))
        found = [o for o in found if o.meets(first, stop)]
        return sorted(found, key=lambda o: o.start)

    def _planned(self, row: int, first: date, stop: date, home: tzinfo) -> list[Occurrence]:
        base = self._single(row, home)
        if base is None:
            return []
        doc = self.docs[row]
        rrule, rdates = str(doc.get("rrule") or ""), _dates(doc.get("rdates"))
        if not rrule and not rdates:
            return [base]
        zone = base.start.tzinfo
        # Expand the days asked about (from as early as an occurrence still under way on
        # the first of them began), nothing more: a rule with no end, or one firing every
        # second, costs only the window.
        length = (base.end - base.start) if base.end is not None else timedelta(0)
        lo = datetime.combine(first, datetime.min.time(), zone) - length
        # expand_occurrences reads ±days around a moment: centred so that it starts at lo.
        half = timedelta(days=(stop - first).days // 2 + 2)
        from ingest.calendar import expand_occurrences  # (loads icalendar: only calendar answers need it)

        try:
            starts = expand_occurrences(base.start, rrule, lo + half, half.days,
                                        self.cfg.max_occurrences, rdates=rdates)
        except ValueError:
            return [base]
        excluded = {_key(d) for d in _dates(doc.get("exdates"))}
        excluded_days = {d for d in _dates(doc.get("exdates")) if not isinstance(d, datetime)}
        duration = (base.end - base.start) if base.end is not None else None
        out = []
        for start in starts:
            start = start.astimezone(zone) if not base.all_day else start
            gone = _key(start) in excluded or start.date() in excluded_days
            out.append(dataclasses.replace(
                base, start=start, end=start + duration if duration is not None else None,
                status=CANCELLED if gone or base.status == CANCELLED else CONFIRMED))
        return out

    def _single(self, row: int, home: tzinfo) -> Occurrence | None:
        doc = self.docs[row]
        epoch = self.doc_epoch[row]
        if epoch != epoch:      # NaN: an event without a usable start
            return None
        zone = self.zone(row, home)
        all_day = bool(doc.get("all_day"))
        start = datetime.fromtimestamp(float(epoch), tz=timezone.utc).astimezone(zone)
        end = parse_iso(doc.get("event_end"))
        if isinstance(end, datetime):
            end = end.astimezone(zone)
        elif isinstance(end, date):
            end = datetime.combine(end, datetime.min.time(), zone)
        elif all_day:
            end = start + timedelta(days=1)
        if end is not None and end <= start:
            end = None
        status = CANCELLED if str(doc.get("status", "")).upper() == "CANCELLED" else CONFIRMED
        return Occurrence(start=start, end=end, all_day=all_day, status=status, moved_from=None,
                          location=str(doc.get("location") or ""), title=str(doc.get("title") or ""),
                          source=str(doc.get("source") or ""), doc=row)

    def _moved(self, planned: Occurrence, row: int, home: tzinfo) -> Occurrence:
        actual = self._single(row, home)
        if actual is None:
            return planned
        if actual.status == CANCELLED:
            return dataclasses.replace(planned, status=CANCELLED, doc=row)
        moved = actual.start != planned.start
        return dataclasses.replace(actual, status=MOVED if moved else CONFIRMED,
                                   moved_from=planned.start if moved else None,
                                   location=actual.location or planned.location)

    def zone(self, row: int, home: tzinfo) -> tzinfo:
        """Where the event's wall-clock times are read: its TZID; a floating or all-day
        event's own stored zone (its written time); else (UTC) the asker's zone."""
        doc = self.docs[row]
        stored = (datetime.fromisoformat(str(doc["source_date"])).tzinfo if doc.get("source_date")
                  else None) or timezone.utc
        if _valid_zone(doc.get("tzid")):
            return ZoneInfo(str(doc["tzid"]))
        if doc.get("tzid") or doc.get("date_floating") or doc.get("all_day"):
            # A zone no database knows (its offset was read from the file), a floating or
            # an all-day time: as the event wrote it.
            return stored
        if _valid_zone(doc.get("calendar_tz")):
            return ZoneInfo(str(doc["calendar_tz"]))
        return self.household_zone or home

    def ends(self, doc: int) -> bool:
        """Does the series have a last occurrence (UNTIL or COUNT; no rule at all)?"""
        rules = [str(self.docs[row].get("rrule") or "") for row in self.rows(doc)]
        return all(not rule or re.search(r"\b(?:UNTIL|COUNT)=", rule, re.IGNORECASE)
                   for rule in rules if rule) and any(rules)

    def describe(self, doc: int, home: tzinfo) -> str:
        """The series' rule in words ("Tuesdays 16:30–17:15"), or "" for a single event."""
        for row in self.rows(doc):
            rule = str(self.docs[row].get("rrule") or "").splitlines()
            base = self._single(row, home)
            if rule and base is not None:
                return f"{_rule_words(rule[0], base.start)} {_times(base, self.cfg)}".strip()
        return ""


def event_answer(series: Series, doc: int, question: str, window_days: tuple[date, date] | None,
                 now: datetime, past: bool, cfg: EventsSection) -> EventAnswer | None:
    """The answer a calendar event gives to the question, or None when it asks something
    the event's occurrences do not answer (the caller falls back to its sentences)."""
    field = field_asked(question, cfg)
    if field is not None:
        value = str(series.docs[doc].get(field) or "")
        if window_days is not None and field == "location":
            # "Where is book club this month?": the occurrence's own place (an override
            # may have moved it).
            held = [o for o in series.occurrences(doc, *window_days, now.tzinfo) if o.here(*window_days)]
            value = next((o.location for o in held if o.location), value)
        return EventAnswer(field, value, []) if value else None
    yes = "Yes — " if re.search(cfg.yes_no, question, re.IGNORECASE) else ""
    home = now.tzinfo
    today = now.astimezone(series.zone(doc, home)).date()
    title = str(series.docs[doc].get("title") or "") or "the event"
    horizon = timedelta(days=cfg.horizon_days)
    if window_days is not None:
        first, stop = window_days
        found = series.occurrences(doc, first, stop, home)
        held = [o for o in found if o.here(first, stop)]
        if held:
            text = "; ".join(_occurrence_words(o, now, cfg) for o in held[:cfg.max_listed])
            return EventAnswer("occurrence", f"{yes}{title}: {text}", held)
        gone = [o for o in found if o not in held]
        after = max(stop, today)
        upcoming = _next(series.occurrences(doc, after, after + horizon, home), now, after)
        why = ("; ".join(_gone_words(o, cfg) for o in gone[:cfg.max_listed]) if gone
               else f"no {title} {_days_words(first, stop, series.zone(doc, home), cfg)}")
        told = {o.start for o in gone}
        fresh = upcoming is not None and upcoming.start not in told
        nxt = f"; next: {_occurrence_words(upcoming, now, cfg)}" if fresh else ""
        return EventAnswer("no_occurrence", f"No — {title}: {why}{nxt}" if gone else f"No — {why}{nxt}",
                           gone + ([upcoming] if fresh else []))
    if past:
        before = series.occurrences(doc, today - horizon, today + timedelta(days=1), home)
        held = [o for o in before if o.status != CANCELLED and o.start <= now]
        if not held:
            return None
        return EventAnswer("occurrence", f"{yes}{title}: {_occurrence_words(held[-1], now, cfg)}", [held[-1]])
    ahead = series.occurrences(doc, today, today + horizon, home)
    if re.search(cfg.final, question, re.IGNORECASE) and series.ends(doc):
        held = [o for o in ahead if o.status != CANCELLED]
        if held:
            return EventAnswer("occurrence", f"{yes}{title}: {_occurrence_words(held[-1], now, cfg)}", [held[-1]])
    upcoming = _next(ahead, now, today)
    if upcoming is None:
        # The series is over (or never had a date ahead): say when it last happened.
        before = series.occurrences(doc, today - horizon, today + timedelta(days=1), home)
        last = [o for o in before if o.status != CANCELLED]
        if not last:
            return None
        return EventAnswer("no_occurrence", f"No — nothing ahead for {title}; the last was "
                           f"{_occurrence_words(last[-1], now, cfg)}", [last[-1]])
    skipped = [o for o in ahead if o.status == CANCELLED and now <= o.start < upcoming.start]
    steps = [f"{_gone_words(o, cfg)} →" for o in skipped[:cfg.max_listed]]
    text = " ".join(["next:", *steps, _occurrence_words(upcoming, now, cfg)])
    rule = series.describe(doc, home)
    text = f"{rule} ({text})" if rule else text.removeprefix("next: ") if not skipped else text
    return EventAnswer("occurrence", f"{yes}{title}: {text}", skipped + [upcoming])


def _next(occurrences: list[Occurrence], now: datetime, first: date) -> Occurrence | None:
    """The first occurrence still to come (or under way) on or after the day `first`."""
    return next((o for o in occurrences if o.status != CANCELLED and o.start.date() >= first
                 and (o.end or o.start) >= now), None)


def field_asked(question: str, cfg: EventsSection) -> str | None:
    """The event field the question asks for ("where": location), or None."""
    for field, pattern in cfg.fields:
        if re.search(pattern, question, re.IGNORECASE):
            return field
    return None


def _occurrence_words(o: Occurrence, now: datetime, cfg: EventsSection) -> str:
    text = f"{_day(o.start, cfg)} {_times(o, cfg)}{_zone_note(o, now, cfg)}".strip()
    if o.moved_from is not None:
        text += f" (moved from {_day(o.moved_from, cfg)})"
    return f"{text}, {o.location}" if o.location else text


def _gone_words(o: Occurrence, cfg: EventsSection) -> str:
    if o.status == CANCELLED:
        return f"{_day(o.start, cfg)} is cancelled"
    return f"{_day(o.moved_from or o.start, cfg)} moved to {_day(o.start, cfg)} {_times(o, cfg)}".strip()


def _days_words(first: date, stop: date, zone: tzinfo, cfg: EventsSection) -> str:
    def day(d: date) -> str:   # a bare day, written the way its event's zone writes days
        return _day(datetime.combine(d, datetime.min.time(), zone), cfg)
    if stop - first == timedelta(days=1):
        return f"on {day(first)}"
    return f"from {day(first)} to {day(stop - timedelta(days=1))}"


def _twelve_hour(value: date | datetime, cfg: EventsSection) -> bool:
    """Written the way the household writes time, where its documents say; else the way
    the calendar's own region does: its zone says where."""
    if cfg.clock != "zone":
        return cfg.clock == "12h"
    return _zone_in(value, cfg.twelve_hour_zones, cfg)


def _month_first(value: date | datetime, cfg: EventsSection) -> bool:
    """... and dates, as the household writes them where its documents say; else month
    first in the Americas, day first in India and Australia too."""
    if cfg.date_order != "zone":
        return cfg.date_order == "month_first"
    return _zone_in(value, cfg.month_first_zones, cfg)


def _zone_in(value: date | datetime, prefixes: tuple[str, ...], cfg: EventsSection) -> bool:
    zone = getattr(value, "tzinfo", None)
    name = str(getattr(zone, "key", "") or "")
    if not name:
        return cfg.default_clock == "12h"
    return name.startswith(tuple(prefixes))


def day_words(value: date | datetime, cfg: EventsSection, day_first: bool | None = None) -> str:
    """A date answer ("May 7, 2023"), written the way its zone's region writes dates (a
    bare date: the default), without the weekday an occurrence shows. `day_first`: the way
    the documents it comes from write their dates ("7 May 2023"), when they say."""
    month_first = _month_first(value, cfg) if day_first is None else not day_first
    form = cfg.date_format_12h if month_first else cfg.date_format_24h
    return value.strftime(form.replace("{day}", str(value.day)))


def _day(value: date | datetime, cfg: EventsSection) -> str:
    form = cfg.day_format_12h if _month_first(value, cfg) else cfg.day_format_24h
    return value.strftime(form.replace("{day}", str(value.day)))


def _clock(value: datetime, cfg: EventsSection) -> str:
    if not _twelve_hour(value, cfg):
        return f"{value.hour:02d}{cfg.clock_separator}{value.minute:02d}"
    suffix = cfg.clock_am if value.hour < 12 else cfg.clock_pm
    return f"{value.hour % 12 or 12}{cfg.clock_separator}{value.minute:02d}{cfg.clock_gap}{suffix}"


def _times(o: Occurrence, cfg: EventsSection) -> str:
    if o.all_day:
        last = o.last_day()
        return "(all day)" if last == o.start.date() else f"(all day, until {_day(last, cfg)})"
    start = _clock(o.start, cfg)
    if o.end is None:
        return start
    end = _clock(o.end, cfg) if o.end.date() == o.start.date() else f"{_day(o.end, cfg)} {_clock(o.end, cfg)}"
    between = cfg.time_range_12h if _twelve_hour(o.start, cfg) else cfg.time_range_24h
    return f"{start}{between}{end}"


def _zone_note(o: Occurrence, now: datetime, cfg: EventsSection) -> str:
    """The event's zone, and the time where the person is, when the two differ."""
    local = o.start.astimezone(now.tzinfo)
    if o.all_day or o.start.utcoffset() == local.utcoffset():
        return ""
    return f" {o.start.tzname()} ({_clock(local, cfg)} {local.tzname()})"


def _rule_words(rule: str, start: datetime) -> str:
    parts = dict(p.split("=", 1) for p in rule.replace("RRULE:", "").split(";") if "=" in p)
    freq, interval = parts.get("FREQ", "").upper(), int(parts.get("INTERVAL", "1") or 1)
    days = [d.strip() for d in parts.get("BYDAY", "").split(",") if d.strip()]
    if freq == "WEEKLY":
        names = [_WEEKDAY_NAMES[_BYDAY[d[-2:]]] for d in days if d[-2:] in _BYDAY] or [_WEEKDAY_NAMES[start.weekday()]]
        every = "every other " if interval == 2 else f"every {interval} weeks on " if interval > 2 else ""
        return every + " and ".join(n if every else f"{n}s" for n in names)
    if freq == "MONTHLY":
        if days:
            m = re.match(r"([+-]?\d+)?(\w\w)$", days[0])
            if m and m.group(2) in _BYDAY:
                nth = _ORDINALS.get(int(m.group(1) or 1), f"{m.group(1)}th")
                return f"the {nth} {_WEEKDAY_NAMES[_BYDAY[m.group(2)]]} of the month"
        return f"monthly on day {parts.get('BYMONTHDAY', start.day)}"
    return {"DAILY": "daily", "YEARLY": "yearly", "HOURLY": "hourly", "MINUTELY": "every minute",
            "SECONDLY": "every second"}.get(freq, "")


def _valid_zone(name: Any) -> bool:
    if not name:
        return False
    try:
        ZoneInfo(str(name))
        return True
    except (ZoneInfoNotFoundError, ValueError):
        return False


def _key(value: datetime | date) -> Any:
    """Equal for the same instant (an aware datetime) or the same day (a date)."""
    if isinstance(value, datetime):
        return value.timestamp() if value.tzinfo is not None else value.replace(tzinfo=timezone.utc).timestamp()
    return value


def _dates(text: Any) -> list[datetime | date]:
    return [d for d in (parse_iso(x) for x in str(text or "").split(",")) if d is not None]


def _iso(value: datetime | None, all_day: bool) -> str | None:
    if value is None:
        return None
    return value.date().isoformat() if all_day else value.isoformat()
