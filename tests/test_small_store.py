"""A store of a few documents still answers (issue 16): its parts degrade gracefully below
the sizes they are fitted for, instead of turning every score to zero or every question
into "I don't know"."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import ASK_NOW, INGEST_NOW, write_eml

from brainquery import Brain
from brainquery.config import load_config
from brainquery.query.coverage import topic_idf
from brainquery.query.scorers import dense_trust

VET_QUESTION = "What did Maggie get at the vet?"
PIANO_ICS = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//brainquery tests//EN\r
BEGIN:VEVENT\r
UID:piano-weekly@example.org\r
DTSTAMP:20260901T000000Z\r
DTSTART:20260907T230000Z\r
DTEND:20260908T000000Z\r
RRULE:FREQ=WEEKLY;BYDAY=MO\r
SUMMARY:Piano lesson\r
DESCRIPTION:Weekly piano lesson with Ms. Rivera.\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.fixture(scope="module")
def three_documents(tmp_path_factory) -> Brain:
    """The vet's thank-you note, grandma's visit and a weekly piano lesson: all the store holds."""
    folder = tmp_path_factory.mktemp("three") / "in"
    folder.mkdir()
    write_eml(folder / "vet.eml", {
        "From": "Riverside Animal Clinic <frontdesk@riversideanimal.example>", "To": "us@home.example",
        "Subject": "Thank you for your visit", "Date": "Wed, 14 Oct 2026 10:00:00 -0500",
        "Message-ID": "<visit-1013@riversideanimal.example>"},
        "Thanks for bringing Maggie (our favourite tabby cat) in on October 13 for her annual "
        "checkup. She got her rabies booster.")
    write_eml(folder / "grandma.eml", {
        "From": "Sue Novak <sue@family.example>", "To": "us@home.example",
        "Subject": "Grandma's visit", "Date": "Sun, 08 Nov 2026 09:00:00 -0600",
        "Message-ID": "<grandma-visit@family.example>"},
        "Grandma Maggie is flying in on December 19 and staying through December 27. "
        "Her flight lands at 3:45 pm at O'Hare.")
    (folder / "piano.ics").write_text(PIANO_ICS, encoding="utf-8", newline="")
    brain = Brain(folder.parent / "store")
    brain.ingest([folder], now=INGEST_NOW)
    return brain


def test_three_documents_answer_what_maggie_got_at_the_vet(three_documents):
    # "vet" is nowhere in the text: the sender, Riverside Animal Clinic, says it (synonyms:
    # vet ~ animal clinic). Grandma Maggie's visit shares the name and nothing else.
    result = three_documents.ask(VET_QUESTION, now=ASK_NOW)
    assert Path(result.results[0].source).name == "vet.eml", [s.source for s in result.results]
    assert "rabies booster" in (result.answer or ""), (result.answer, result.message)
    assert result.level != "unknown", result.message


def test_three_documents_never_score_all_zero(three_documents):
    result = three_documents.ask(VET_QUESTION, now=ASK_NOW)
    assert len(result.results) == 3, [s.source for s in result.results]
    assert result.results[0].score > 0, [s.scores for s in result.results]
    # An SVD of three chunks says nothing: its cosines are not believed (the part stays at its
    # neutral 1/2), so two texts sharing one name do not look alike.
    assert all(s.scores["dense"] == pytest.approx(0.5) for s in result.results), [s.scores for s in result.results]


@pytest.mark.parametrize("fitted, trust", [
    pytest.param(3, 0.0, id="a-few-chunks-say-nothing"),
    pytest.param(15, 0.0, id="up-to-the-minimum"),
    pytest.param(32.5, 0.5, id="halfway"),
    pytest.param(50, 1.0, id="from-the-full-size"),
    pytest.param(100_000, 1.0, id="a-large-store"),
])
def test_the_dense_model_is_believed_by_the_chunks_it_was_fitted_on(fitted, trust):
    scoring = load_config().scoring
    assert (scoring.dense_min_chunks, scoring.dense_full_chunks) == (15, 50), "update the table"
    assert dense_trust(fitted, scoring.dense_min_chunks, scoring.dense_full_chunks) == pytest.approx(trust)


def test_a_word_a_small_store_lacks_does_not_outweigh_the_words_it_holds():
    """Coverage's IDF leans to equal weights in a small store, and stays the store's own in a
    large one: in three chunks, two words of three present are more than half the question."""
    scoring = load_config().scoring
    prior = (scoring.coverage_prior_chunks, scoring.coverage_prior_df_share)
    seen_once, unseen = topic_idf(np.array([1.0, 0.0]), 3, "lucene", *prior)
    assert 2 * seen_once / (2 * seen_once + unseen) > load_config().confidence.min_coverage
    raw = topic_idf(np.array([1.0, 0.0, 30.0]), 10_000, "lucene", 0.0, 0.0)
    smoothed = topic_idf(np.array([1.0, 0.0, 30.0]), 10_000, "lucene", *prior)
    assert np.allclose(smoothed, raw, rtol=0.05), (raw, smoothed)
