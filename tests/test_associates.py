"""What the household's own writing says a question's words stand for (associates.py)."""
from __future__ import annotations

import numpy as np
import pytest

from brainquery.config import load_config
from brainquery.query.associates import clause_associates
from brainquery.query.bm25 import SparseBM25
from brainquery.query.coverage import TopicTerms
from brainquery.textproc import Analyzer

CONFIG = load_config()

NOTE = ("Oisín: swimming Thursdays (Lee Swim Academy), hurling Saturdays (Carrigrohane Rovers U9s)\n"
        "Great news, Oisín moved up a group in Swimming Club today\n"
        "Saoirse: Irish dancing Tuesdays (Scoil Rince)")
STORE = [NOTE,
         "From this Saturday U9 training will be on the new pitch. Carrigrohane Rovers",
         "Lee Swim Academy: Thursday lessons start at 5.45pm",
         "Oisín's school photo day is Monday",
         "Saturday market: fresh bread and flowers",
         "Saturday car boot sale at the school",
         "Saturday parking is free in town",
         "The bins go out on Saturday night"]


@pytest.fixture(scope="module")
def analyzer():
    return Analyzer(CONFIG.text)


@pytest.fixture(scope="module")
def bm25(analyzer):
    return SparseBM25(CONFIG.bm25).fit([analyzer.tokens(text) for text in STORE])


def lent(analyzer, bm25, question, names=()):
    topic = TopicTerms.of(question, analyzer, bm25, ignore={"what", "time"})
    found = clause_associates(topic, [NOTE], analyzer, bm25, max_terms=10, max_df_share=0.05,
                              max_df_floor=3, names=set(names))
    words = {column: word for word, column in bm25.vocab_.items()}
    return topic, {topic.terms[j]: {words[int(c)] for c in columns} for j, columns in found.items()}


def test_a_list_clause_lends_a_word_the_names_beside_it_and_only_those(analyzer, bm25):
    _, words = lent(analyzer, bm25, "what time is hurling")
    # Its own clause, not the swimming beside it on the line; names, not "Saturdays".
    assert words == {"hurl": {"carrigrohan", "rover", "u9"}}


def test_a_name_asked_about_and_a_common_word_borrow_nothing(analyzer, bm25):
    assert "oisin" in lent(analyzer, bm25, "when is oisin's swimming club")[1]
    _, words = lent(analyzer, bm25, "when is oisin's swimming club", names={"oisin"})
    assert "oisin" not in words and words["swim"] >= {"lee", "academi"}
    # "Great news, ..." opens a sentence: its capital says nothing.
    assert not any("great" in lenders for lenders in words.values())
    _, words = lent(analyzer, bm25, "what is on saturday")
    assert words == {}


def test_a_stand_in_names_the_word_part_of_the_way_where_the_word_is_missing(analyzer, bm25):
    topic, _ = lent(analyzer, bm25, "what time is hurling on saturday")
    found = clause_associates(topic, [NOTE], analyzer, bm25, 10, 0.05, 3)
    plain = topic.of_chunks(bm25, np.arange(len(STORE)))
    widened = topic.with_associates(found, 0.75).of_chunks(bm25, np.arange(len(STORE)))
    assert plain[0] == pytest.approx(widened[0]) == pytest.approx(1.0)       # the note says "hurling"
    assert plain[1] < widened[1] < 1.0                                         # the club's letter
    assert widened[4:] == pytest.approx(plain[4:])                             # other Saturdays
    # Lines of a chunk are read against the widened topic's columns, which know their words.
    lines = [set(analyzer.tokens("Hurling Saturdays")), set(analyzer.tokens("Carrigrohane Rovers U9s"))]
    assert topic.with_associates(found, 0.75).of_union(bm25, np.arange(2), lines) == pytest.approx(
        topic.of_union(bm25, np.arange(2), lines))


def test_a_name_a_calendar_feed_repeats_in_every_event_is_rare_by_the_files_that_name_it(analyzer):
    # The team's feed writes "U10 Green" in each of its events: in chunks the name is common,
    # in files it is in two, the feed and the carpool letter that says whose team it is.
    letter = "Eli is thrilled that Mateo is on U10 Green with him for soccer again this fall"
    feed = [f"Practice – U10 Green, Sloan's Lake Field {n % 3 + 1}" for n in range(12)]
    others = [f"Library hold {n} is ready for pickup" for n in range(8)]
    texts = [letter, *feed, *others]
    bm25 = SparseBM25(CONFIG.bm25).fit([analyzer.tokens(text) for text in texts])
    sources = np.array([0] + [1] * len(feed) + list(range(2, 2 + len(others))))
    topic = TopicTerms.of("what time is soccer practice", analyzer, bm25, ignore={"what", "time"})
    words = {column: word for word, column in bm25.vocab_.items()}

    def lent(**files):
        found = clause_associates(topic, [letter], analyzer, bm25, max_terms=10, max_df_share=0.05,
                                  max_df_floor=3, **files)
        return {topic.terms[j]: {words[int(c)] for c in columns} for j, columns in found.items()}

    assert not lent().get("soccer", set()) & {"u10", "green"}
    assert lent(sources=sources)["soccer"] >= {"u10", "green"}


def test_a_person_borrows_the_code_of_the_group_a_clause_puts_them_in(analyzer):
    # "Mateo is on U10 Green": what the team's feed writes to U10 is written to Mateo; his
    # name borrows the code, not the other names beside it ("Eli", "Green").
    letter = "Eli is thrilled that Mateo is on U10 Green with him for soccer again this fall"
    texts = [letter, "Practice – U10 Green, Sloan's Lake Field 3", "Eli's birthday party is on Saturday",
             *[f"Library hold {n} is ready for pickup" for n in range(8)]]
    bm25 = SparseBM25(CONFIG.bm25).fit([analyzer.tokens(text) for text in texts])
    topic = TopicTerms.of("what time is mateo's soccer practice", analyzer, bm25, ignore={"what", "time"})
    found = clause_associates(topic, [letter], analyzer, bm25, max_terms=10, max_df_share=0.05,
                              max_df_floor=3, names={"mateo"})
    words = {column: word for word, column in bm25.vocab_.items()}
    lent = {topic.terms[j]: {words[int(c)] for c in columns} for j, columns in found.items()}
    assert lent["mateo"] == {"u10"}
    assert lent["soccer"] >= {"u10", "green"}
