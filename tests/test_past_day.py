"""Asked about a day that is over ("on 7 July", "the week before August 3"), the letter
written on it, or just after ("last week we ..."), tells of it in its own words: it wins
over an older letter that shares more of the question's words."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from conftest import brain_of

NOW = datetime(2026, 8, 20, 12, 0, tzinfo=timezone.utc)


def _mail(subject: str, date: str, body: str) -> str:
    return (f"From: Dan Okoye <dan@example.com>\nTo: Ruth Okoye <ruth@example.com>\nSubject: {subject}\n"
            f"Date: {date}\n\n{body}\n")


FILES = {
    "residents.eml": _mail("Residents' meeting", "Wed, 28 Jan 2026 19:00:00 +0000",
                           "The residents' meeting talked about how any natural disaster would affect our old "
                           "area: the drains, the kids' park, the kids' school and the bridge. Nobody knew "
                           "the plan for our area if the river rose."),
    "flood.eml": _mail("Rough week", "Tue, 07 Jul 2026 18:29:00 +0000",
                       "It's been tough. The old neighbourhood was hit by a nasty flood last week and lots of "
                       "homes were ruined."),
    "camping.eml": _mail("Back home", "Mon, 03 Aug 2026 20:10:00 +0000",
                         "Last week we took Ayo and Temi camping at Lake Kariba, they loved the canoe."),
    "bins.eml": _mail("Bins", "Fri, 12 Jun 2026 08:00:00 +0000", "The council moved bin day to Thursday."),
    "dentist.eml": _mail("Dentist", "Mon, 15 Jun 2026 08:00:00 +0000", "Temi's check-up is on 2 September at 9:30."),
    "piano.eml": _mail("Piano", "Wed, 17 Jun 2026 08:00:00 +0000", "Ayo's piano lesson moves to Wednesdays."),
}


@pytest.fixture(scope="module")
def brain(tmp_path_factory):
    return brain_of(tmp_path_factory.mktemp("past-day"), FILES, NOW)


@pytest.mark.parametrize("question, top", [
    pytest.param("What natural disaster affected our old area on 7 July 2026?", "flood.eml", id="written-that-day"),
    pytest.param("What did we do with the kids the week before August 3, 2026?", "camping.eml",
                 id="written-just-after-the-week"),
])
def test_the_letter_of_the_day_asked_about_comes_first(brain, question, top):
    result = brain.ask(question, now=NOW).to_dict()
    assert result["results"][0]["source"].endswith(top)
