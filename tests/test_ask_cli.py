"""`brainquery ask` and `brainquery eval` in-process: the --json contract read by tools
outside the repo (tests/golden/ask_contract.json), the readable answer, questions from
stdin, the pattern override, --k, and the evaluation table."""
from __future__ import annotations

import io
import json
import math
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from conftest import FIXTURES, REPO

from brainquery.cli import main

CONTRACT = json.loads((REPO / "tests" / "golden" / "ask_contract.json").read_text(encoding="utf-8"))
DAY = "2026-11-18"
# One question of each kind the product answers: a fresh schedule, a value with an older
# conflicting one, a past period, nothing at all, only stale evidence, a calendar day.
QUESTIONS = (
    "Is Friday a half-day?",
    "What size is our HVAC filter?",
    "What roofer did we use in 2023?",
    "What is the dentist's fax number?",
    "When does Theo's Cub Scout den meet?",
    "anything on our calendar this friday?",
)


def strict_json(line: str) -> dict:
    """JSON as other tools read it: NaN and Infinity are not JSON."""
    def refuse(name: str):
        raise ValueError(f"{name} in --json output")
    return json.loads(line, parse_constant=refuse)


def ask_json(capsys, monkeypatch, store: str, questions, *extra: str) -> list[dict]:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(questions) + "\n"))
    assert main(["ask", "-", "--store", store, "--now", DAY, "--json", *extra]) == 0
    return [strict_json(line) for line in capsys.readouterr().out.splitlines()]


def cli_now(brain) -> datetime:
    """--now YYYY-MM-DD is noon of that day in the household's floating time zone."""
    zone = ZoneInfo(brain.config.ingest.ingest.floating_timezone)
    return datetime.fromisoformat(DAY).replace(hour=12, tzinfo=zone)


@pytest.fixture(scope="module")
def answers(asked_corpus):
    """Every question of QUESTIONS through `brainquery ask - --json`, once."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(QUESTIONS) + "\n"))
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        assert main(["ask", "-", "--store", asked_corpus.store.location, "--now", DAY, "--json"]) == 0
    return [strict_json(line) for line in out.getvalue().splitlines()]


# ---- the --json contract ------------------------------------------------------------------------
def _missing(record: dict, keys: list[str]) -> list[str]:
    return [k for k in keys if k not in record]


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_date(value) -> bool:
    if value is None:
        return True
    return isinstance(value, str) and datetime.fromisoformat(value) is not None


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_json_has_the_contract_keys(answers, n):
    result = answers[n]
    assert _missing(result, CONTRACT["result"]) == []
    assert _missing(result["halting"], CONTRACT["halting"]) == []
    for source in result["results"]:
        assert _missing(source, CONTRACT["source"]) == [], source["source"]
        assert _missing(source["scores"], CONTRACT["scores"]) == [], source["source"]
    for conflict in result["conflicts"]:
        assert _missing(conflict, CONTRACT["conflict"]) == [], conflict


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_json_values_have_the_contract_types(answers, n):
    result = answers[n]
    assert result["query"] == QUESTIONS[n]
    assert datetime.fromisoformat(result["now"]).tzinfo is not None
    assert result["pattern"] in CONTRACT["patterns"]
    scores = result["pattern_scores"]
    assert sorted(scores) == sorted(CONTRACT["patterns"]) and all(0.0 <= v <= 1.0 for v in scores.values())
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-3)
    assert result["answer"] is None or (isinstance(result["answer"], str) and result["answer"].strip())
    assert _is_number(result["confidence"]) and 0.0 <= result["confidence"] <= 1.0, result["confidence"]
    assert isinstance(result["message"], str) and result["message"]
    assert isinstance(result["halting"]["stage"], int) and isinstance(result["halting"]["reason"], str)
    for source in result["results"]:
        texts = ("source", "message_id", "title", "doc_type", "date_source", "snippet")
        assert source["source"] and all(isinstance(source[k], str) for k in texts), source
        assert _is_date(source["source_date"]) and _is_number(source["score"])
        assert all(_is_number(v) for v in source["scores"].values()), source["scores"]
    for conflict in result["conflicts"]:
        assert isinstance(conflict["answer"], str) and conflict["answer"]
        assert conflict["source"] and isinstance(conflict["doc_type"], str)
        assert _is_date(conflict["source_date"])


def test_the_questions_exercise_every_part_of_the_contract(answers):
    """Otherwise a key check above passes over an empty list."""
    assert all(a["results"] for a in answers)
    assert any(a["conflicts"] for a in answers)
    assert any(a["answer"] is None for a in answers) and any(a["answer"] for a in answers)
    assert {a["pattern"] for a in answers} == set(CONTRACT["patterns"])


@pytest.mark.parametrize("question", [pytest.param(q, id=q) for q in QUESTIONS[:3]])
def test_json_is_the_library_result(asked_corpus, capsys, question):
    assert main(["ask", question, "--store", asked_corpus.store.location, "--now", DAY, "--json"]) == 0
    printed = strict_json(capsys.readouterr().out)
    now = cli_now(asked_corpus)
    assert printed["now"] == now.isoformat()
    assert printed == asked_corpus.ask(question, now=now).to_dict()


# ---- the readable answer, stdin, the options ------------------------------------------------------
def test_readable_answer_shows_answer_message_and_dated_sources(asked_corpus, capsys):
    question = "Is Friday a half-day?"
    assert main(["ask", question, "--store", asked_corpus.store.location, "--now", DAY]) == 0
    out = capsys.readouterr().out
    result = asked_corpus.ask(question, now=cli_now(asked_corpus))
    assert result.answer and result.answer in out
    assert result.message in out
    sources = out[out.index("Sources:"):]
    for source in result.results:
        day = (source.source_date or "undated")[:10]
        line = next((ln for ln in sources.splitlines() if source.doc_type in ln and day in ln), None)
        assert line is not None, (source.doc_type, day, sources)
        if source.age_days is not None:
            assert re.search(r"\((today|\d+ (day|week|month|year)s? ago|in \d+ (day|week|month|year)s?)\)",
                             line), line


def test_a_value_answer_shows_the_sentence_it_came_from(asked_corpus, capsys):
    assert main(["ask", "What size is our HVAC filter?", "--store", asked_corpus.store.location,
                 "--now", DAY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "A: 16x25x4"
    assert "16x25x4 MERV 11" in lines[2] and "Badger State Mechanical" in lines[2]


def test_questions_from_stdin_are_answered_in_order(asked_corpus, capsys, monkeypatch):
    questions = ["What size is our HVAC filter?", "", "Is Friday a half-day?",
                 "What is the dentist's fax number?"]
    printed = ask_json(capsys, monkeypatch, asked_corpus.store.location, questions)
    assert [p["query"] for p in printed] == [q for q in questions if q]


def test_pattern_option_overrides_the_router(asked_corpus, capsys, monkeypatch):
    question = ["Is Friday a half-day?"]
    routed = ask_json(capsys, monkeypatch, asked_corpus.store.location, question)
    forced = ask_json(capsys, monkeypatch, asked_corpus.store.location, question, "--pattern", "historical")
    assert routed[0]["pattern"] != "historical"
    assert forced[0]["pattern"] == "historical"


def test_an_unknown_pattern_is_a_usage_error(asked_corpus, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["ask", "Is Friday a half-day?", "--store", asked_corpus.store.location, "--pattern", "urgent"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'urgent'" in capsys.readouterr().err


def test_k_caps_the_sources(asked_corpus, capsys, monkeypatch):
    question = ["What size is our HVAC filter?"]
    default = ask_json(capsys, monkeypatch, asked_corpus.store.location, question)
    capped = ask_json(capsys, monkeypatch, asked_corpus.store.location, question, "--k", "2")
    assert len(default[0]["results"]) > 2
    assert len(capped[0]["results"]) == 2


# ---- brainquery eval --------------------------------------------------------------------------------
def test_eval_prints_the_metrics_per_pattern(asked_corpus, capsys, tmp_path):
    # The first question of each pattern keeps this quick; tests/test_ask_eval.py runs them all.
    chosen: dict[str, str] = {}
    for line in (FIXTURES / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            chosen.setdefault(json.loads(line)["pattern"], line)
    queries = tmp_path / "queries.jsonl"
    queries.write_text("\n".join(chosen.values()) + "\n", encoding="utf-8")
    code = main(["eval", str(queries), "--corpus", str(FIXTURES / "corpus"),
                 "--store", asked_corpus.store.location])
    out = capsys.readouterr().out
    assert code == 0
    table = out.split("\n\n")[0].splitlines()
    header = table[0].split()
    assert {"P@1", "R@3", "MRR"} <= set(header), header
    rows = {line.split()[0]: line.split()[1:] for line in table[2:]}
    for pattern in [*chosen, "overall"]:
        assert pattern in rows, out
        assert len(rows[pattern]) == len(header) - 1, rows[pattern]
