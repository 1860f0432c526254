"""Dates a document writes relative to itself are read as of the document's own date."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from brainquery.config import load_config
from brainquery.query.relative_dates import resolve

WRITTEN = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)     # a Monday


@pytest.mark.parametrize("sentence, start, end", [
    ("I went to a LGBTQ support group yesterday and it was so powerful.", date(2023, 5, 7), date(2023, 5, 8)),
    ("We're going camping next Tuesday.", date(2023, 5, 16), date(2023, 5, 17)),
    ("Last Saturday we went to the beach.", date(2023, 5, 6), date(2023, 5, 7)),
    ("We painted it two weeks ago.", date(2023, 4, 24), date(2023, 5, 1)),
    ("Last year I ran a charity race.", date(2022, 1, 1), date(2023, 1, 1)),
    ("See you tomorrow at 3!", date(2023, 5, 9), date(2023, 5, 10)),
])
def test_a_relative_date_is_resolved_against_the_document(sentence, start, end):
    found = resolve(sentence, WRITTEN)
    assert found is not None and (found.start, found.end) == (start, end)


@pytest.mark.parametrize("sentence", [
    "It was 7 May 2023.", "The party is on May 20.", "No date here.",
    # a weekday that comes round names no one day
    "The organic market is every Sunday, 7 AM to 11 AM.", "The loppis is on the first Sunday of every month.",
    "Swimming is on Tuesdays.", "The cleaner comes every other Thursday.",
])
def test_a_written_out_date_or_none_is_not_relative(sentence):
    assert resolve(sentence, WRITTEN) is None


def test_the_resolved_date_is_written_out():
    cfg = load_config().events
    assert resolve("I went there yesterday", WRITTEN).words(cfg) == "May 7, 2023"
    assert resolve("Last year I ran", WRITTEN).words(cfg) == "2022"
