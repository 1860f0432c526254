"""A slip of the keys in a question is read as the word the documents use: a letter left
out ("sevice"), one too many, two swapped ("reciept"), one vowel for another
("recuperater"). A real word, a name, a short word or a consonant slip is taken as typed."""
from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest
from conftest import brain_of

from brainquery.config import load_config
from brainquery.query.spelling import Speller, slips
from brainquery.textproc import Analyzer

CFG = load_config()
ANALYZER = Analyzer(CFG.text)
NOW = datetime(2026, 3, 12, 12, tzinfo=timezone.utc)


def speller_of(words: dict[str, float], min_letters: int = 6, dictionary: str = "en") -> Speller:
    """A speller over a store using `words` (written form -> how rare: its IDF)."""
    stems = [ANALYZER.tokens(w)[0] for w in words]
    return Speller(ANALYZER, {s: i for i, s in enumerate(stems)}, np.array(list(words.values())),
                   list, min_letters, dictionary)


@pytest.mark.parametrize("typed, meant", [
    pytest.param("sevice", "service", id="a-letter-left-out"),
    pytest.param("dismisal", "dismissal", id="a-double-letter-typed-once"),
    pytest.param("reciept", "receipt", id="two-letters-swapped"),
    pytest.param("recuperater", "recuperator", id="a-vowel-for-a-vowel"),
    pytest.param("plumberr", "plumber", id="a-letter-too-many"),
])
def test_the_common_slips_are_undone(typed, meant):
    assert meant in slips(typed)
    assert speller_of({meant: 2.0, "boiler": 1.0}).corrections(f"who did the {typed} for the boiler") == {typed: meant}


def test_of_several_words_one_slip_away_the_one_the_store_uses_most_is_read():
    # "baet": "beat" with two letters swapped, "bait" with a vowel for a vowel.
    assert speller_of({"beat": 1.0, "bait": 3.0}, min_letters=4).corrections("the baet") == {"baet": "beat"}
    assert speller_of({"beat": 3.0, "bait": 1.0}, min_letters=4).corrections("the baet") == {"baet": "bait"}
    assert speller_of({"beat": 1.0}, min_letters=4).corrections("the bmat") == {}     # a consonant: no slip


@pytest.mark.parametrize("question", [
    pytest.param("what personality traits does she have", id="a-real-word-the-store-lacks"),
    pytest.param("when does Travis come back", id="a-capitalised-name-in-the-question"),
    pytest.param("is the hose fixed", id="a-short-word"),
    pytest.param("where is the house key", id="a-consonant-for-a-consonant"),
    pytest.param("which plumber did we use on monday", id="words-the-store-has"),
])
def test_words_typed_on_purpose_are_taken_as_typed(question):
    speller = speller_of({"tradition": 1.0, "traviss": 1.0, "horse": 1.0, "homes": 1.0, "plumber": 1.0})
    assert speller.corrections(question) == {}


def test_without_a_word_list_nothing_is_read_as_a_slip():
    assert speller_of({"service": 1.0}, dictionary="").corrections("boiler sevice") == {}


def test_a_question_with_a_slip_finds_and_answers_from_the_document_and_says_how_it_was_read(tmp_path):
    brain = brain_of(tmp_path, {
        "boiler-invoice.txt": "Invoice 2025/10/112 - Termo-Serwis Oliwa\n"
                              "Annual gas boiler service carried out on 14 October 2025 by technician Dariusz Wolny.\n"
                              "Total due: 475.00 zl\n",
        "garden.txt": "The gardener comes on Thursdays to mow the lawn and trim the hedge by the boiler house.\n",
    }, NOW)
    result = brain.ask("who did the boiler sevice last october", now=NOW).to_dict()
    assert result["read_as"] == {"sevice": "service"}
    assert result["query"] == "who did the boiler sevice last october"
    assert result["results"][0]["source"].endswith("boiler-invoice.txt")
    assert "Dariusz Wolny" in (result["answer"] or "")
