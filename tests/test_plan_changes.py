"""A plan changed after it was written down: for the day it is about, the later letter
that changes it is the answer, not the calendar entry or the booking it overtook; a later
letter about another day changes nothing."""
from __future__ import annotations

import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from brainquery.brain import Brain

NOW = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)

CALENDAR = textwrap.dedent("""\
    BEGIN:VCALENDAR
    VERSION:2.0
    PRODID:-//test//EN
    BEGIN:VEVENT
    UID:gran-lands@example.com
    DTSTAMP:20261001T190000Z
    DTSTART;TZID=Europe/Dublin:20261212T084000
    DTEND;TZID=Europe/Dublin:20261212T093000
    SUMMARY:Gran lands - Dublin T2 (NW 204)
    DESCRIPTION:NW 204 from Heathrow. Niamh collects her.
    END:VEVENT
    BEGIN:VEVENT
    UID:bins@example.com
    DTSTAMP:20260901T190000Z
    DTSTART;TZID=Europe/Dublin:20261203T070000
    DTEND;TZID=Europe/Dublin:20261203T073000
    SUMMARY:Bins out - brown and green
    END:VEVENT
    END:VCALENDAR
    """)


def _mail(sender: str, subject: str, date: str, body: str) -> str:
    return f"From: {sender}\nTo: Niamh <niamh@example.com>\nSubject: {subject}\nDate: {date}\n\n{body}\n"


BOOKING = _mail("Northwind Air <bookings@northwind.example>", "Your booking ZT4K9P", "Thu, 01 Oct 2026 18:30:00 +0100",
                "Passenger: MRS EILEEN DOYLE\nFlight NW 204 on Saturday 12 December 2026: departs London Heathrow "
                "at 07:15 and arrives at Dublin Terminal 2 at 08:40.\nBooking reference ZT4K9P.")
CHANGE = _mail("Northwind Air <bookings@northwind.example>", "Schedule change - booking ZT4K9P",
               "Tue, 10 Nov 2026 07:02:00 +0000",
               "We have had to change the schedule of a flight on booking ZT4K9P.\nPassenger: MRS EILEEN DOYLE\n"
               "Flight NW 204 on Saturday 12 December 2026 now departs London Heathrow at 09:05 and arrives at "
               "Dublin Terminal 2 at 10:30.\nNo action is needed if the new time suits you.")
DENTIST = _mail("Liffey Dental <hello@liffeydental.example>", "Reminder: Eileen's check-up",
                "Wed, 11 Nov 2026 09:00:00 +0000",
                "Gran's dental check-up is on Tuesday 17 November 2026 at 14:00 with Dr Walsh.\n"
                "Please arrive ten minutes early.")
OTHERS = [
    _mail("Scoil Mhuire <office@scoilmhuire.example>", "Christmas concert", "Mon, 02 Nov 2026 15:00:00 +0000",
          "The Christmas concert is on Thursday 17 December 2026 at 18:30 in the hall."),
    _mail("Dublin City Council <waste@dcc.example>", "Collection days", "Fri, 04 Sep 2026 10:00:00 +0100",
          "Your brown and green bins are collected on Thursdays from 7am."),
]


def _brain(root: Path, with_change: bool, with_booking: bool = True) -> Brain:
    files = root / "files"
    files.mkdir(parents=True)
    (files / "family.ics").write_text(CALENDAR.replace("\n", "\r\n"), encoding="utf-8")
    letters = {"booking.eml": BOOKING, "dentist.eml": DENTIST, **{f"other{i}.eml": t for i, t in enumerate(OTHERS)}}
    if with_change:
        letters["change.eml"] = CHANGE
    if not with_booking:
        del letters["booking.eml"]
    for name, text in letters.items():
        (files / name).write_text(text, encoding="utf-8")
    brain = Brain(root / "store")
    brain.ingest([files], now=NOW)
    return brain


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> Brain:
    return _brain(tmp_path_factory.mktemp("changed"), with_change=True)


@pytest.mark.parametrize("question", ["what time does gran land on the 12th",
                                      "what time does gran's flight arrive on saturday 12 december"])
def test_the_later_letter_for_the_day_overtakes_the_entry_and_the_booking(changed, question):
    result = changed.ask(question, now=NOW)
    assert result.results[0].source.endswith("change.eml"), [r.source for r in result.results]
    # (A time is answered by its sentence: "... now departs at 09:05 and arrives at 10:30.")
    assert "10:30" in result.answer and "08:40" not in result.answer, result.answer


def test_the_later_letter_overtakes_the_calendar_entry_it_changed(tmp_path):
    # The entry was written on 1 October (DTSTAMP), the airline wrote on 10 November.
    result = _brain(tmp_path, with_change=True, with_booking=False).ask("what time does gran land on the 12th",
                                                                         now=NOW)
    assert result.results[0].source.endswith("change.eml"), [r.source for r in result.results]


def test_a_later_letter_about_another_day_changes_nothing(changed):
    # The dentist's reminder names Gran and a time and came after the flight was written
    # down, but for 17 November: the flight's plan stands where nothing changed it.
    result = changed.ask("when is gran's dental check-up", now=NOW)
    assert result.results[0].source.endswith("dentist.eml")
    result = changed.ask("what time are the bins out on 3 december", now=NOW)
    assert result.results[0].source.endswith("family.ics#1") or "Bins" in (result.answer or "")


def test_without_a_change_the_plan_as_written_answers(tmp_path):
    result = _brain(tmp_path, with_change=False).ask("what time does gran land on the 12th", now=NOW)
    assert "08:40" in (result.answer or "") or "8:40" in (result.answer or ""), result.answer


SWIM_CALENDAR = textwrap.dedent("""\
    BEGIN:VCALENDAR
    VERSION:2.0
    PRODID:-//test//EN
    BEGIN:VEVENT
    UID:swim@example.com
    DTSTAMP:20260110T190000Z
    DTSTART;TZID=Europe/Dublin:20260112T160000
    DTEND;TZID=Europe/Dublin:20260112T170000
    RRULE:FREQ=WEEKLY;BYDAY=MO
    SUMMARY:Aoife - swimming (Marlins Squad B)
    END:VEVENT
    END:VCALENDAR
    """)
SWIM_LETTERS = {
    "welcome.eml": _mail("Marlins Swim Club <coach@marlins.example>", "Aoife's place in Squad B",
                         "Tue, 20 Jan 2026 18:00:00 +0000",
                         "Hi Niamh, Aoife has a place in Squad B on Mondays. The squad fee is EUR 52 per month, "
                         "paid by standing order."),
    "term.eml": "List-Id: Marlins members <members.marlins.example>\n" + _mail(
                      "Marlins Swim Club <coach@marlins.example>", "Term news", "Mon, 28 Sep 2026 18:00:00 +0100",
                      "Dear Swimmers and Parents\n\nFEES: from 1 October the monthly squad fee goes up to EUR 56. "
                      "This is our first increase in two years.\n\nCLUB GALA: Saturday 21 November. Entry is "
                      "EUR 12 per swimmer.\n\nUnsubscribe from club news: marlins.example/unsubscribe"),
    "other.eml": OTHERS[0],
    "bins.eml": OTHERS[1],
    "dentist.eml": DENTIST,
}


def test_a_club_letter_to_all_its_members_overtakes_the_fee_it_raised(tmp_path):
    # The club's welcome named Aoife and her fee; its later letter to every swimmer raises it
    # without naming her, and the calendar's swimming entry names both and states neither.
    files = tmp_path / "files"
    files.mkdir()
    (files / "family.ics").write_text(SWIM_CALENDAR.replace("\n", "\r\n"), encoding="utf-8")
    for name, text in SWIM_LETTERS.items():
        (files / name).write_text(text, encoding="utf-8")
    brain = Brain(tmp_path / "store")
    brain.ingest([files], now=NOW)
    result = brain.ask("how much is aoife's swimming a month now", now=NOW)
    assert result.answer == "EUR 56", (result.answer, [r.source for r in result.results])


JUDO_CALENDAR = textwrap.dedent("""\
    BEGIN:VCALENDAR
    VERSION:2.0
    PRODID:-//test//EN
    BEGIN:VEVENT
    UID:judo@example.com
    DTSTAMP:20260901T190000Z
    DTSTART;TZID=Europe/Dublin:20260907T170000
    DTEND;TZID=Europe/Dublin:20260907T180000
    RRULE:FREQ=WEEKLY;BYDAY=MO,TH
    SUMMARY:Cian - judo (Tora club)
    LOCATION:School hall
    END:VEVENT
    END:VCALENDAR
    """)
CARPOOL = _mail("Dana <dana@example.com>", "Judo carpool", "Tue, 10 Nov 2026 20:00:00 +0000",
                "Hi Niamh, Cian and Eli are both in the Tora judo group again, so here's the carpool plan:\n"
                "- Monday judo (5:00-6:00 in the school hall): I'll drive.\n"
                "- Thursday judo: Tom drives.\n"
                "And for Eli's party on Saturday, come at 2:30.\nDana")
MOVED = _mail("Tora Judo Club <coach@tora.example>", "Thursday judo moves",
              "Mon, 05 Oct 2026 19:00:00 +0100",
              "Dear parents, from Monday 12 October the Thursday judo group moves to Fridays, 16:30-17:30 "
              "(the hall is taken on Thursdays). Monday judo stays the same, 17:00. Cian's coach, Michał")


def _judo_brain(root: Path, letters: dict[str, str]) -> Brain:
    files = root / "files"
    files.mkdir(parents=True)
    (files / "family.ics").write_text(JUDO_CALENDAR.replace("\n", "\r\n"), encoding="utf-8")
    for name, text in {**letters, "other.eml": OTHERS[0], "bins.eml": OTHERS[1]}.items():
        (files / name).write_text(text, encoding="utf-8")
    brain = Brain(root / "store")
    brain.ingest([files], now=NOW)
    return brain


def test_a_letter_repeating_the_plan_leaves_the_calendar_current(tmp_path):
    # The carpool letter writes the practice's own times and days: it agrees with the
    # calendar, which answers from its occurrence.
    brain = _judo_brain(tmp_path, {"carpool.eml": CARPOOL})
    result = brain.ask("what time is cian's judo tomorrow", now=datetime(2026, 11, 18, 12, tzinfo=timezone.utc))
    assert result.results[0].source.endswith("family.ics"), [r.source for r in result.results]
    assert result.answer_kind == "occurrence" and "17:00" in result.answer, result.answer


def test_the_letter_that_moved_a_series_outranks_it_on_the_new_day(tmp_path):
    # The club moved Thursdays to Fridays after the series went in the calendar: asked about
    # a Friday, its letter of six weeks ago is the plan, not the series it moved.
    brain = _judo_brain(tmp_path, {"moved.eml": MOVED})
    result = brain.ask("what time is cian's judo tomorrow", now=datetime(2026, 11, 19, 12, tzinfo=timezone.utc))
    assert result.results[0].source.endswith("moved.eml"), [r.source for r in result.results]
    assert "16:30" in (result.answer or ""), result.answer
