"""The sources shown after those about the question: the documents that are not about it
fill the k places in the order they match the question, not by their age (a time weight
says which of two documents about a question is current; of documents about something
else it says nothing)."""
from __future__ import annotations

from datetime import datetime, timezone

from conftest import brain_of

NOW = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)


def _mail(day: str, subject: str, body: str) -> str:
    return f"From: Melanie <mel@example.net>\nTo: Caroline <caro@example.net>\nSubject: {subject}\nDate: {day}\n\n{body}\n"


def test_documents_about_something_else_follow_in_the_order_they_match(tmp_path):
    brain = brain_of(tmp_path, {
        "answer.eml": _mail("Mon, 02 Nov 2026 10:00:00 +0000", "Election",
                            "Caroline says her political leaning is progressive; she votes in every election."),
        "old.eml": _mail("Mon, 03 Feb 2020 10:00:00 +0000", "Catch-up",
                         "Caroline, Caroline! Caroline came round with the kids and we talked about Caroline's new flat."),
        "recent.eml": _mail("Mon, 16 Nov 2026 10:00:00 +0000", "Garden",
                            "The tomatoes did well this year and the beans were late; the shed roof needs fixing "
                            "before winter, and the hedge wants cutting too. Caroline might help on Saturday."),
        **{f"other{n}.eml": _mail(f"Mon, 0{n} Mar 2026 10:00:00 +0000", f"Note {n}",
                                  f"The bins go out on Thursday; parcel {n} came for Melanie.") for n in range(1, 6)},
    }, NOW)
    result = brain.ask("What would Caroline's political leaning likely be?", now=NOW).to_dict()
    sources = [r["source"].rsplit("/", 1)[-1] for r in result["results"]]
    assert sources[0] == "answer.eml", sources
    assert sources.index("old.eml") < sources.index("recent.eml"), sources
