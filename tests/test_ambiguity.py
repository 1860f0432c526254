"""A name shared by different entities is asked back ("Which Maggie do you mean?") unless
the question says which one; a qualifier picks one and is answered. The figures on the
ambiguity sets (fixtures/ambiguity16) have floors in config [evaluation]."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import FIXTURES

from brainquery import Brain
from brainquery.config import load_config
from brainquery.query.ambiguity_eval import AmbiguityScores, evaluate_ambiguity, format_outcomes, load_ambiguity_questions
from brainquery.query.evaluate import noon_utc

THRESHOLDS = load_config().evaluation
NOW = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)

VET = """From: Riverside Animal Clinic <front@riversideanimal.example>
To: Dana Lee <dana@example.org>
Subject: Maggie's checkup
Date: Wed, 14 Oct 2026 10:00:00 -0500

Thanks for bringing Maggie (our favourite tabby cat) in on October 13 for her annual checkup. She got her rabies booster.
"""
GRANDMA = """From: Dana Lee <dana@example.org>
To: Sam Lee <sam@example.org>
Subject: Grandma's visit
Date: Sun, 8 Nov 2026 18:00:00 -0500

Grandma Maggie is flying in on December 19 and staying through December 27. Her flight lands at 3:45 pm at O'Hare.
"""
PIANO = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:piano@test\r\n"
         "DTSTAMP:20260901T000000Z\r\nDTSTART;TZID=America/Chicago:20260901T160000\r\n"
         "DTEND;TZID=America/Chicago:20260901T164500\r\nRRULE:FREQ=WEEKLY;BYDAY=TU\r\n"
         "SUMMARY:Piano lesson - Harper\r\nLOCATION:Okafor Music Studio\\, 41 Elm St\r\n"
         "END:VEVENT\r\nEND:VCALENDAR\r\n")


@pytest.fixture(scope="module")
def three_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("maggie")
    (folder / "vet.eml").write_text(VET)
    (folder / "grandma.eml").write_text(GRANDMA)
    (folder / "piano.ics").write_text(PIANO)
    brain = Brain(tmp_path_factory.mktemp("store") / "store")
    brain.ingest([folder], now=NOW)
    return brain


def test_a_name_two_entities_share_is_asked_back(three_files):
    result = three_files.ask("When is Maggie's visit?", now=NOW).to_dict()
    assert result["answer_kind"] == "ambiguous", result["answer"]
    assert result["message"] == "Which Maggie do you mean?"
    assert result["confidence"] <= load_config().ambiguity.confidence_cap
    said = [f"{c['description']} {c['answer']}".lower() for c in result["candidates"]]
    assert len(said) == 2, said
    assert any(word in said[0] + said[1] for word in ("cat", "tabby", "vet", "clinic"))
    cat = next(s for s in said if any(w in s for w in ("cat", "tabby", "vet", "clinic")))
    other = next(s for s in said if s is not cat)
    assert "grand" in other, said
    for c in result["candidates"]:
        assert c["source"] and c["question"] != result["query"] and "Maggie" in c["question"]


@pytest.mark.parametrize("question", [
    pytest.param("When is Grandma Maggie arriving?", id="kinship"),
    pytest.param("When was Maggie's last vet visit?", id="topic"),
])
def test_a_qualifier_picks_one_and_is_not_asked_back(three_files, question):
    result = three_files.ask(question, now=NOW).to_dict()
    assert result["answer_kind"] != "ambiguous" and result["candidates"] == []


def test_the_cats_vet_visit_is_answered_without_grandmas_flight(three_files):
    result = three_files.ask("When was Maggie's last vet visit?", now=NOW)
    assert "October 13" in result.answer and result.evidence["title"] == "Maggie's checkup"
    # Grandma's email is about another Maggie (no vet in it): no rival date.
    assert result.conflicts == []


def test_what_the_cat_got_at_the_vet_is_found_in_a_three_file_store(three_files):
    result = three_files.ask("What did Maggie get at the vet?", now=NOW)
    assert "rabies booster" in (result.answer or "")


def test_a_name_only_one_entity_has_is_answered(three_files):
    assert three_files.ask("When is Harper's piano lesson?", now=NOW).answer_kind != "ambiguous"


@pytest.fixture(scope="module", params=["dev", "heldout"])
def ambiguity_set(request, tmp_path_factory):
    folder = FIXTURES / "ambiguity16" / request.param
    questions = load_ambiguity_questions(folder / "questions.jsonl")

    brain = Brain(tmp_path_factory.mktemp(f"ambiguity-{request.param}") / "store")
    brain.ingest([folder / "files"], now=noon_utc(max(q.now for q in questions)))
    outcomes = evaluate_ambiguity(lambda q, now: brain.ask(q, now=now).to_dict(), questions, noon_utc)
    return request.param, outcomes


def test_ambiguous_names_are_asked_back_and_qualified_ones_answered(ambiguity_set):
    name, outcomes = ambiguity_set
    # The held-out set's failures are not printed: it is never tuned on.
    table = format_outcomes(name, outcomes, failures=name == "dev")
    print(f"\n== ambiguity: {table}")
    scores = AmbiguityScores.of(outcomes)
    asked = getattr(THRESHOLDS, f"ambiguity_{name}_asked")
    qualified = getattr(THRESHOLDS, f"ambiguity_{name}_qualified_asked")
    assert scores.ambiguous_asked >= asked, table
    assert scores.qualified_asked <= qualified, table
