"""Asked about a day ahead ("is Friday a half day"), the letter that writes that very day
answers, on the lines about it, in its own words ("School closes at 12:00") and in its
own language ("Freitag, 13. November"); a word of the question that means something else
alone ("half" of "half six") does not make a letter about it."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from brainquery.brain import Brain

SAST = timezone(timedelta(hours=2))
NOW = datetime(2026, 11, 10, 18, 30, tzinfo=SAST)   # a Tuesday: "Friday" is 13 November


def _mail(sender: str, subject: str, date: str, body: str) -> str:
    return f"From: {sender}\nTo: Priya <priya@example.com>\nSubject: {subject}\nDate: {date}\n\n{body}\n"


NEWSLETTER = _mail("Westridge Primary <office@westridge.example>", "Westridge Weekly - Term 4",
                   "Fri, 30 Oct 2026 12:00:00 +0200",
                   "Dear Parents\n\nDATES TO DIARISE\n"
                   "- Friday 13 November: staff development afternoon. School closes at 12:00. "
                   "Aftercare runs as normal from 12:00.\n"
                   "- Friday 20 November: Civvies Day - R10 per learner for Highway Hospice.\n"
                   "- Friday 4 December: last day of term. School closes at 11:00.\n")
SITTER = _mail("Megan <megan@example.com>", "Re: Babysitting Saturday?", "Fri, 06 Nov 2026 13:12:00 +0200",
               "Yes I can do Saturday the 14th, I'll be there at half six. My rate is R90 an hour "
               "from this month.\n")
SCHULE = _mail("Schule Tannenrain <schulleitung@tannenrain.example>", "Tannenrain-Post November 2026",
               "Mon, 02 Nov 2026 12:00:00 +0100",
               "Räbeliechtli-Umzug\n\nAm Donnerstag, 12. November findet unser Räbeliechtli-Umzug statt. "
               "Besammlung um 17.45 Uhr auf dem Pausenplatz.\n\nSchulfreier Nachmittag\n\n"
               "Am Freitag, 13. November ist am Nachmittag schulfrei (Weiterbildung der Lehrpersonen). "
               "Der Unterricht endet am Morgen regulär um 11.50 Uhr. Der Hort ist geöffnet.\n")
OTHERS = [
    _mail("Dr Zulu <rooms@smile.example>", "Appointment", "Mon, 02 Nov 2026 09:00:00 +0200",
          "Kiara and Ruan are booked with Dr Zulu on Monday 23 November at 15:00.\n"),
    _mail("Umgeni Aquatics <swim@umgeni.example>", "Term 4 squads", "Mon, 28 Sep 2026 09:00:00 +0200",
          "Squad training is on Tuesdays and Thursdays from 15:00 to 16:00 all term.\n"),
]


@pytest.fixture(scope="module")
def brain(tmp_path_factory):
    root = tmp_path_factory.mktemp("asked-day")
    mail = root / "mail"
    mail.mkdir()
    for n, text in enumerate([NEWSLETTER, SITTER, SCHULE, *OTHERS]):
        (mail / f"{n:02d}.eml").write_text(text, encoding="utf-8")
    brain = Brain(root / "store")
    brain.ingest([mail], now=NOW)
    return brain


def test_the_letter_writing_the_asked_day_answers_on_that_days_line(brain):
    result = brain.ask("is friday a half day", now=NOW).to_dict()
    assert "Westridge Weekly" in result["results"][0]["title"]
    assert "12:00" in result["answer"]
    # The other Fridays the letter lists are not this one.
    assert "Civvies" not in result["answer"] and "11:00" not in result["answer"]


def test_half_of_a_phrase_is_not_the_phrase(brain):
    # "half six" in the sitter's mail is no half day: the question's topic is the whole phrase.
    result = brain.ask("is friday a half day", now=NOW).to_dict()
    sitter = next(r for r in result["results"] if "Babysitting" in r["title"])
    assert sitter["scores"]["coverage"] < 0.5


def test_a_date_written_the_german_way_is_the_asked_day(brain):
    # "Am Freitag, 13. November ist am Nachmittag schulfrei": the letter names the day asked.
    result = brain.ask("when does school finish on friday", now=NOW).to_dict()
    tannenrain = next(r for r in result["results"] if "Tannenrain" in r["title"])
    assert tannenrain["scores"]["window"] > 1.0
