"""Calendar ingestion: one document per VEVENT, dated by DTSTART, recurrences expandable."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import REALDATA, realdata_rows, requires_realdata

from ingest.blob import Blob, Parent
from ingest.calendar import CalendarIngestor, expand_occurrences
from ingest.document import Document, IngestError, ItemFailure
from ingest.sniff import magic

UTC = timezone.utc


def ics(*events: str, extra: str = "") -> str:
    body = "".join(f"BEGIN:VEVENT\r\n{e.strip()}\r\nEND:VEVENT\r\n" for e in events)
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\n{extra}{body}END:VCALENDAR\r\n"


def ingest_text(tmp_path: Path, ctx, text: str, name: str = "event.ics") -> list:
    path = tmp_path / name
    path.write_text(text.replace("\r\n", "\n").replace("\n", "\r\n"), encoding="utf-8", newline="")
    return list(CalendarIngestor().ingest(Blob.from_path(path), ctx))


VTIMEZONE_PLUS_11 = """BEGIN:VTIMEZONE
TZID:UTC+11
BEGIN:STANDARD
DTSTART:16010101T000000
TZOFFSETFROM:+1100
TZOFFSETTO:+1100
END:STANDARD
END:VTIMEZONE
"""
VTIMEZONE_EXCHANGE = """BEGIN:VTIMEZONE
TZID:GMT +0100 (Standard) / GMT +0200 (Daylight)
BEGIN:STANDARD
DTSTART:16010101T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTH=10;BYDAY=-1SU
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
RRULE:FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
END:VTIMEZONE
"""

# (ics text, expected start as aware datetime or (wall clock, floating), date_source)
DTSTART_CASES = [
    pytest.param(ics("UID:a\nSUMMARY:Dentist\nDTSTART:20240305T093000Z"),
                 datetime(2024, 3, 5, 9, 30, tzinfo=UTC), False, "dtstart", id="utc"),
    pytest.param(ics("UID:a\nSUMMARY:Parents evening\nDTSTART;TZID=Europe/Berlin:20240705T180000"),
                 datetime(2024, 7, 5, 16, 0, tzinfo=UTC), False, "dtstart", id="iana-tzid-summer"),
    pytest.param(ics("UID:a\nDTSTART;TZID=Eastern Standard Time:20241028T170000"),
                 datetime(2024, 10, 28, 21, 0, tzinfo=UTC), False, "dtstart",
                 id="windows-tzid-without-vtimezone"),
    pytest.param(ics("UID:a\nDTSTART;TZID=UTC+11:20170228T230000", extra=VTIMEZONE_PLUS_11),
                 datetime(2017, 2, 28, 12, 0, tzinfo=UTC), False, "dtstart",
                 id="custom-vtimezone-utc+11"),
    pytest.param(ics("UID:a\nDTSTART;TZID=UTC+11:20170228T230000"),
                 datetime(2017, 2, 28, 12, 0, tzinfo=UTC), False, "dtstart",
                 id="offset-tzid-without-vtimezone"),
    pytest.param(ics('UID:a\nDTSTART;TZID="GMT +0100 (Standard) / GMT +0200 (Daylight)":20150703T100000',
                     extra=VTIMEZONE_EXCHANGE),
                 datetime(2015, 7, 3, 8, 0, tzinfo=UTC), False, "dtstart",
                 id="exchange-vtimezone-dst"),
    pytest.param(ics("UID:a\nDTSTART:20240305T093000"),
                 datetime(2024, 3, 5, 9, 30), True, "dtstart", id="floating"),
    pytest.param(ics("UID:a\nDTSTART;TZID=Nowhere/Special:20240305T093000"),
                 datetime(2024, 3, 5, 9, 30), True, "dtstart", id="unknown-tzid-is-floating"),
    pytest.param(ics("UID:a\nDTSTART;VALUE=DATE:20240814\nDTEND;VALUE=DATE:20240815"),
                 datetime(2024, 8, 14), True, "dtstart", id="all-day"),
    pytest.param("BEGIN:VEVENT\r\nUID:a\r\nDTSTART;TZID=America/New_York:20120712T183000\r\n"
                 "END:VEVENT\r\n",
                 datetime(2012, 7, 12, 22, 30, tzinfo=UTC), False, "dtstart", id="bare-vevent"),
    pytest.param(ics("UID:a\nDTSTART:INVALID-DATE\nDTSTAMP:20190612T104813Z"),
                 datetime(2019, 6, 12, 10, 48, 13, tzinfo=UTC), False, "dtstamp",
                 id="invalid-dtstart-falls-back-to-dtstamp"),
    pytest.param(ics("UID:a\nDTSTART:INVALID-DATE\nDTSTAMP:20190612T104813Z\n"
                     "LAST-MODIFIED:20190611T080000Z"),
                 datetime(2019, 6, 11, 8, 0, tzinfo=UTC), False, "last_modified",
                 id="invalid-dtstart-prefers-last-modified"),
    pytest.param(ics("UID:a\nDTSTART:18000101T000000Z\nCREATED:20200101T000000Z"),
                 datetime(2020, 1, 1, tzinfo=UTC), False, "created", id="implausible-dtstart"),
]


@pytest.mark.parametrize("text, expected, floating, date_source", DTSTART_CASES)
def test_event_start(tmp_path, ctx, text, expected, floating, date_source):
    [doc] = ingest_text(tmp_path, ctx, text)
    assert isinstance(doc, Document)
    assert doc.doc_type == "calendar_event"
    assert doc.date_source == date_source
    assert doc.date_floating is floating
    if floating:
        assert doc.source_date.replace(tzinfo=None) == expected
    else:
        assert doc.source_date == expected


def test_invalid_dtstart_without_any_date_takes_the_file_time(tmp_path, ctx):
    [doc] = ingest_text(tmp_path, ctx, ics("UID:a\nDTSTART:INVALID-DATE"))
    assert doc.date_source == "file_mtime"


def test_attachment_without_dates_takes_its_message_date(ctx):
    sent = datetime(2023, 5, 1, 8, 0, tzinfo=UTC)
    parent = Parent(doc_id="m1", source="inbox.mbox#3", file_path="inbox.mbox",
                    message_id="<m1@x>", source_date=sent, date_source="header_date")
    blob = Blob(name="invite.ics", data=ics("UID:a\nDTSTART:bad").encode(), parent=parent)
    [doc] = CalendarIngestor().ingest(blob, ctx)
    assert (doc.source_date, doc.date_source, doc.parent_id, doc.source) == (
        sent, "parent_message", "m1", "inbox.mbox#3")


def test_meta_and_text(tmp_path, ctx):
    [doc] = ingest_text(tmp_path, ctx, ics(
        "UID:soccer-1@club\nSUMMARY:Soccer practice\nDESCRIPTION:Bring shin guards\n"
        "LOCATION:Riverside field\nSTATUS:CANCELLED\nSEQUENCE:3\n"
        "ORGANIZER;CN=Coach Sam:mailto:sam@club.example\n"
        "DTSTART;TZID=Europe/Berlin:20240402T173000\nDTEND;TZID=Europe/Berlin:20240402T190000\n"
        "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20240625T153000Z\nEXDATE;TZID=Europe/Berlin:20240521T173000\n"
        "DTSTAMP:20240301T120000Z\nCREATED:20240228T120000Z"))
    assert doc.title == "Soccer practice"
    assert dict(doc.meta) == {
        "all_day": False,
        "issued_date": "2024-03-01T12:00:00+00:00",
        "issued_date_source": "dtstamp",
        "event_end": "2024-04-02T19:00:00+02:00",
        "location": "Riverside field",
        "status": "CANCELLED",
        "uid": "soccer-1@club",
        "rrule": "FREQ=WEEKLY;UNTIL=20240625T153000Z;BYDAY=TU",
        "exdates": "2024-05-21T17:30:00+02:00",
        "organizer": "Coach Sam <sam@club.example>",
        "sequence": 3,
        "tzid": "Europe/Berlin",
    }
    for words in ("Soccer practice", "Bring shin guards", "Riverside field", "cancelled",
                  "Tuesday 02 April 2024 17:30", "Repeats weekly", "Coach Sam"):
        assert words in doc.text


def test_all_day_text_and_meta(tmp_path, ctx):
    [doc] = ingest_text(tmp_path, ctx, ics(
        "UID:a\nSUMMARY:Camping\nDTSTART;VALUE=DATE:20240814\nDTEND;VALUE=DATE:20240817"))
    assert doc.meta["all_day"] is True and doc.meta["event_end"] == "2024-08-17"
    assert "Wednesday 14 August 2024 (all day)" in doc.text
    assert "Until Friday 16 August 2024" in doc.text   # DTEND of an all-day event is exclusive


def test_every_event_is_a_document_with_its_own_id(tmp_path, ctx):
    docs = ingest_text(tmp_path, ctx, ics(
        "UID:same\nSUMMARY:First\nDTSTART:20060102T170000Z\nRRULE:FREQ=DAILY;COUNT=5",
        "UID:same\nSUMMARY:Moved\nRECURRENCE-ID:20060104T170000Z\nDTSTART:20060104T190000Z"))
    assert [d.title for d in docs] == ["First", "Moved"]
    assert docs[1].meta["recurrence_id"] == "2006-01-04T17:00:00+00:00"
    assert len({d.doc_id for d in docs}) == 2


@pytest.mark.parametrize("content", [
    pytest.param(b"BEGIN:VCALENDAR\r\nthis is not a content line\r\nEND:VCALENDAR\r\n",
                 id="garbage-line"),
    pytest.param(b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", id="no-events"),
    pytest.param(b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20240101\r\n", id="truncated"),
])
def test_unreadable_calendar_raises(tmp_path, ctx, content):
    path = tmp_path / "broken.ics"
    path.write_bytes(content)
    with pytest.raises(IngestError, match="broken.ics: not a readable calendar"):
        list(CalendarIngestor().ingest(Blob.from_path(path), ctx))


def test_one_bad_event_is_a_failure_and_the_rest_carry_on(tmp_path, ctx, monkeypatch, caplog):
    import ingest.calendar as calendar

    real = calendar.event_document

    def flaky(blob, ctx, event, index, *rest):
        if str(event.get("SUMMARY")) == "Bad":
            raise ValueError("cannot read this event")
        return real(blob, ctx, event, index, *rest)

    monkeypatch.setattr(calendar, "event_document", flaky)
    items = ingest_text(tmp_path, ctx, ics("UID:1\nSUMMARY:Bad\nDTSTART:20240101T100000Z",
                                           "UID:2\nSUMMARY:Good\nDTSTART:20240102T100000Z"))
    assert isinstance(items[0], ItemFailure) and items[0].title == "Bad"
    assert "cannot read this event" in items[0].error
    assert isinstance(items[1], Document) and items[1].title == "Good"
    assert "event 0 unreadable" in caplog.text


def test_non_utf8_calendar_is_still_read(tmp_path, ctx):
    path = tmp_path / "legacy.ics"
    path.write_bytes(ics("UID:a\nSUMMARY:Caf\xe9 meeting\nDTSTART:20240101T100000Z")
                     .encode("cp1252"))
    [doc] = CalendarIngestor().ingest(Blob.from_path(path), ctx)
    assert doc.title == "Café meeting"


@pytest.mark.parametrize("name, content, expected", [
    pytest.param("a.ics", b"BEGIN:VCALENDAR\r\n", 1.0, id="sniffed-vcalendar"),
    pytest.param("a.txt", b"BEGIN:VEVENT\r\n", 1.0, id="sniffed-bare-vevent"),
    pytest.param("a.ics", b"\r\n\r\nVERSION:2.0\r\nBEGIN:VCALENDAR\r\n", 0.9, id="text-named-ics"),
    pytest.param("a.txt", b"just words", None, id="plain-text"),
    pytest.param("a.ics", b"%PDF-1.4", None, id="pdf-named-ics"),
])
def test_claim(name, content, expected):
    blob = Blob(name=name, data=content)
    assert CalendarIngestor().claim(blob, magic(blob)) == expected


BERLIN = ZoneInfo("Europe/Berlin")
PRACTICE = datetime(2024, 3, 5, 17, 30, tzinfo=BERLIN)   # Tuesdays; DST starts 31 March


@pytest.mark.parametrize("rrule, around, days, max_count, exdates, expected", [
    pytest.param("FREQ=WEEKLY;BYDAY=TU", datetime(2024, 3, 28, tzinfo=UTC), 7, 50, (),
                 [datetime(2024, 3, 26, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 4, 2, 17, 30, tzinfo=BERLIN)],
                 id="weekly-keeps-wall-clock-across-dst"),
    pytest.param("RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20240319T163000Z",
                 datetime(2024, 3, 19, tzinfo=UTC), 30, 50, (),
                 [datetime(2024, 3, 5, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 12, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 19, 17, 30, tzinfo=BERLIN)], id="until-utc"),
    pytest.param("FREQ=WEEKLY;UNTIL=20240312T173000", datetime(2024, 3, 19, tzinfo=UTC), 30, 50,
                 (), [datetime(2024, 3, 5, 17, 30, tzinfo=BERLIN),
                      datetime(2024, 3, 12, 17, 30, tzinfo=BERLIN)], id="until-floating"),
    pytest.param("FREQ=WEEKLY;COUNT=2", datetime(2025, 1, 1, tzinfo=UTC), 400, 50, (),
                 [datetime(2024, 3, 5, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 12, 17, 30, tzinfo=BERLIN)], id="count"),
    pytest.param("FREQ=WEEKLY", datetime(2024, 3, 19, 12, tzinfo=UTC), 8, 50,
                 (datetime(2024, 3, 19, 16, 30, tzinfo=UTC),),
                 [datetime(2024, 3, 12, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 26, 17, 30, tzinfo=BERLIN)], id="exdate-instant"),
    pytest.param("FREQ=WEEKLY", datetime(2024, 3, 19, 12, tzinfo=UTC), 8, 50,
                 (date(2024, 3, 12),),
                 [datetime(2024, 3, 19, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 26, 17, 30, tzinfo=BERLIN)], id="exdate-day"),
    pytest.param("FREQ=DAILY", datetime(2024, 6, 1, tzinfo=UTC), 60, 3, (),
                 [datetime(2024, 4, 2, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 4, 3, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 4, 4, 17, 30, tzinfo=BERLIN)], id="max-count"),
    pytest.param("FREQ=DAILY;BYDAY=MO, TU, WE;UNTIL=20240307T163000Z",
                 datetime(2024, 3, 5, tzinfo=UTC), 7, 50, (),
                 [datetime(2024, 3, 5, 17, 30, tzinfo=BERLIN),
                  datetime(2024, 3, 6, 17, 30, tzinfo=BERLIN)], id="exchange-spaces"),
    pytest.param("FREQ=WEEKLY;COUNT=3", datetime(2020, 1, 1, tzinfo=UTC), 30, 50, (), [],
                 id="window-before-start"),
])
def test_expand_occurrences(rrule, around, days, max_count, exdates, expected):
    assert expand_occurrences(PRACTICE, rrule, around, days, max_count, exdates) == expected


def test_expand_occurrences_with_config_window(ingest_config):
    section = ingest_config.calendar
    found = expand_occurrences(PRACTICE, "FREQ=WEEKLY", PRACTICE, section.recurrence_expand_days,
                               section.max_occurrences)
    assert found[0] == PRACTICE and found[-1] - PRACTICE <= timedelta(
        days=section.recurrence_expand_days)


def test_expand_occurrences_rejects_naive_and_bad_rules():
    with pytest.raises(ValueError):
        expand_occurrences(PRACTICE.replace(tzinfo=None), "FREQ=DAILY", PRACTICE, 1, 5)
    with pytest.raises(ValueError):
        expand_occurrences(PRACTICE, "FREQ=SOMETIMES", PRACTICE, 1, 5)


# --- realdata -------------------------------------------------------------------------

def same_day(value: datetime, expected: str) -> bool:
    """Aware expected values compare on the UTC day; naive and date-only as written."""
    wanted = datetime.fromisoformat(expected)
    if wanted.tzinfo is not None:
        return value.astimezone(UTC).date() == wanted.astimezone(UTC).date()
    return value.date() == wanted.date()


def same_minute(value: datetime, expected: str) -> bool:
    wanted = datetime.fromisoformat(expected)
    if wanted.tzinfo is not None:
        return value.astimezone(UTC).replace(second=0) == wanted.astimezone(UTC).replace(second=0)
    return value.replace(tzinfo=None, second=0) == wanted.replace(second=0)


CONTENT_FREE_SOURCES = {"file_mtime", "parent_message", "ingested"}


@requires_realdata
@pytest.mark.realdata
@pytest.mark.parametrize(
    "row", [pytest.param(r, id=Path(r["path"]).name) for r in realdata_rows("calendar")])
def test_realdata_calendar(ctx, row):
    blob = Blob.from_path(REALDATA / row["path"])
    kind = magic(blob)
    assert CalendarIngestor().claim(blob, kind) is not None
    first = next(iter(CalendarIngestor().ingest(blob, ctx)))
    assert isinstance(first, Document)
    assert first.doc_type == row["expected_doc_type"]
    expected = row["expected_source_date"]
    if not expected:
        assert first.date_source in CONTENT_FREE_SOURCES
        return
    assert first.date_source == "dtstart"
    assert same_day(first.source_date, expected), first.source_date
    if "T" in expected:
        assert same_minute(first.source_date, expected), first.source_date
