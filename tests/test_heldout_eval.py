"""Question answering on the held-out sets (config [evaluation] heldout_sets): rewordings of
the fixture facts, and a second household from a generator written apart from this code.
Both were frozen before any tuning; their floors carry a stated slack below today's figures
and guard against breakage on questions and documents the code was not shaped on. Each
table is printed so CI logs show where we stand."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import REPO

from brainquery.brain import Brain
from brainquery.config import load_config
from brainquery.query.evaluate import evaluate, load_queries

THRESHOLDS = load_config().evaluation
# Ingest clock: any moment after every document; questions carry their own `now`.
INGESTED = datetime(2026, 11, 23, tzinfo=timezone.utc)


@pytest.fixture(scope="module", params=THRESHOLDS.heldout_sets)
def report(request, tmp_path_factory):
    queries = REPO / request.param
    corpus = queries.parent / "corpus"
    brain = Brain(tmp_path_factory.mktemp("heldout") / "store")
    brain.ingest([corpus], now=INGESTED)

    def ask(question, now, pattern):
        return brain.ask(question, now=now, pattern=pattern).to_dict()

    return request.param, evaluate(ask, load_queries(queries), corpus)


def test_the_table_has_questions(report):
    name, result = report
    print(f"\n== held out: {name}\n{result.format_table(failures=False)}")
    assert result.scores["overall"].n > 0


def test_precision_at_1(report):
    name, result = report
    assert result.scores["overall"].p_at_1 >= THRESHOLDS.heldout_floor(name, "p_at_1"), result.format_table()


def test_recall_at_3(report):
    name, result = report
    assert result.scores["overall"].r_at_3 >= THRESHOLDS.heldout_floor(name, "r_at_3"), result.format_table()


def test_routing(report):
    name, result = report
    assert result.scores["overall"].classifier_accuracy >= THRESHOLDS.heldout_floor(name, "routing"), result.format_table()


def test_every_held_out_set_has_its_corpus_and_manifest():
    for name in THRESHOLDS.heldout_sets:
        path = Path(REPO / name)
        assert (path.parent / "corpus").is_dir() and (path.parent / "corpus_manifest.csv").is_file(), name
