"""Question answering on the fixture household (fixtures/queries.jsonl) meets the floors in
config [evaluation], pattern by pattern; the issue's success criteria all pass; the router
routes held-out questions well enough. The table is printed into the output pytest shows
for a failing test (or with -s): a passing run stays quiet."""
from __future__ import annotations

import pytest
from conftest import FIXTURES

from brainquery.config import load_config
from brainquery.query.evaluate import CRITERIA, PATTERNS, evaluate, load_queries
from brainquery.query.router import held_out_accuracy

CONFIG = load_config()
THRESHOLDS = CONFIG.evaluation


@pytest.fixture(scope="module")
def report(asked_corpus):
    queries = load_queries(FIXTURES / "queries.jsonl")

    def ask(question, now, pattern):
        return asked_corpus.ask(question, now=now, pattern=pattern).to_dict()

    return evaluate(ask, queries, FIXTURES / "corpus")


def _failures(report, pattern: str | None = None) -> str:
    ids = {o.query.id for o in report.outcomes if pattern is None or o.query.pattern == pattern}
    return "\n".join(f"{qid}: {'; '.join(reasons)}" for qid, reasons in report.failures if qid in ids)


def test_the_table_covers_every_pattern(report):
    table = report.format_table()
    print("\n" + table)
    assert all(f"\n{p}" in table for p in PATTERNS)


@pytest.mark.parametrize("pattern", [pytest.param(p, id=p) for p in PATTERNS])
def test_precision_at_1(report, pattern):
    scores = report.scores[pattern]
    assert scores.n_ranked > 0
    assert scores.p_at_1 >= THRESHOLDS.ask_p_at_1, _failures(report, pattern)


@pytest.mark.parametrize("pattern", [pytest.param(p, id=p) for p in PATTERNS])
def test_recall_at_3(report, pattern):
    scores = report.scores[pattern]
    assert scores.n_ranked > 0
    assert scores.r_at_3 >= THRESHOLDS.ask_r_at_3, _failures(report, pattern)


def test_the_success_criteria_pass(report):
    verdicts = report.criteria
    assert set(verdicts) == set(CRITERIA), "a criterion has no question"
    passed = sum(verdicts.values()) / len(verdicts)
    assert passed >= THRESHOLDS.ask_criteria, (verdicts, _failures(report))


def test_the_router_routes_held_out_questions():
    accuracy = held_out_accuracy(CONFIG.router)
    print("\nrouter held-out accuracy: " + ", ".join(f"{k} {v:.3f}" for k, v in accuracy.items()))
    assert accuracy["overall"] >= CONFIG.router.min_held_out_accuracy, accuracy
