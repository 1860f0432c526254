"""The query router: every question gets a pattern, probabilities, a recency need and cues."""
from __future__ import annotations

import dataclasses
import re
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from brainquery.config import load_config
from brainquery.query.router import (
    PATTERNS,
    Router,
    cue_votes,
    held_out_accuracy,
    load_router,
    read_queries,
)
from ingest.config import config_file

NOW = datetime(2026, 11, 18, 12, 0, tzinfo=ZoneInfo("America/Chicago"))   # a Wednesday


@pytest.fixture(scope="module")
def cfg():
    return load_config().router


@pytest.fixture(scope="module")
def router(cfg):
    return load_router(cfg)


@pytest.fixture(scope="module")
def labelled(cfg):
    return read_queries(config_file(cfg.queries_file))


def _key(question: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", question.lower()))


# Hand-written questions that are NOT in config/router_queries.tsv (a test checks it).
UNSEEN = [
    pytest.param("Is soccer still on today?", "logistical", id="still-on-today"),
    pytest.param("Is the school open on Monday after the storm?", "logistical", id="open-monday"),
    pytest.param("what time does theo get out of school on fridays", "logistical", id="lowercase-recurring"),
    pytest.param("Are the kids in school next Wednesday?", "logistical", id="next-wednesday"),
    pytest.param("When's the next early release day?", "logistical", id="next-early-release"),
    pytest.param("Do I need to put the recycling out this week?", "logistical", id="recycling-week"),
    pytest.param("Has the swim meet been cancelled?", "logistical", id="cancelled"),
    pytest.param("any school tmrw?", "logistical", id="terse-typed"),
    pytest.param("what's the plan for Friday pickup", "logistical", id="friday-pickup"),
    pytest.param("Which day is recycling?", "logistical", id="which-day"),
    pytest.param("where is soccer practice tonight", "logistical", id="where-tonight"),
    pytest.param("is garbage pickup on thursday or friday now", "logistical", id="garbage-now"),
    pytest.param("Do you know the wifi password", "entity", id="know-is-not-now"),
    pytest.param("What's the model of our furnace?", "entity", id="furnace-model"),
    pytest.param("What is the account number on the water bill?", "entity", id="account-number"),
    pytest.param("How many watts is the microwave?", "entity", id="watts"),
    pytest.param("What's the code for the front door keypad?", "entity", id="door-code"),
    pytest.param("Which size furnace filter should I buy?", "entity", id="filter-to-buy"),
    pytest.param("What's the name of our homeowners insurance company?", "entity", id="insurer"),
    pytest.param("How much is the monthly water bill right now?", "entity", id="amount-right-now"),
    pytest.param("What's the latest balance on the propane account?", "entity", id="latest-balance"),
    pytest.param("alarm pin", "entity", id="two-words"),
    pytest.param("What is the water heater's serial?", "entity", id="serial"),
    pytest.param("When did we get the new water heater?", "historical", id="new-is-not-recent"),
    pytest.param("Who did we use for the roof back in 2023?", "historical", id="roof-2023"),
    pytest.param("Who painted the house exterior?", "historical", id="who-painted"),
    pytest.param("How much did we spend on the plumber in 2024?", "historical", id="spent-2024"),
    pytest.param("What was the name of the tutor Ada had in 3rd grade?", "historical", id="tutor-name"),
    pytest.param("What did we pay for Biscuit's teeth cleaning last spring?", "historical", id="last-spring"),
    pytest.param("When did Theo have his first dentist visit?", "historical", id="first-visit"),
    pytest.param("what was the wifi password before the new router", "historical", id="what-was-before"),
    pytest.param("what were we paying the cleaner when she started", "historical", id="were-we-paying"),
    pytest.param("What furnace filter size did we used to buy?", "historical", id="used-to"),
    pytest.param("the roofing company from a few years back, what was it called", "historical", id="few-years-back"),
    pytest.param("who fixed the furnace in 2022", "historical", id="who-fixed-2022"),
    pytest.param("what was our old address in Madison", "historical", id="old-address"),
]


@pytest.mark.parametrize("question, pattern", UNSEEN)
def test_unseen_questions_route_to_their_pattern(router, question, pattern):
    route = router.route(question, NOW)
    assert route.pattern == pattern, route
    assert set(route.scores) == set(PATTERNS)
    assert sum(route.scores.values()) == pytest.approx(1.0)
    assert route.pattern == max(route.scores, key=route.scores.get)


def test_unseen_questions_are_not_in_the_training_set(labelled):
    seen = {_key(q) for q in labelled[0]}
    assert not [p.values[0] for p in UNSEEN if _key(p.values[0]) in seen]


def test_the_issue_examples(router, cfg):
    cases = {
        "logistical": ["Is Friday a half-day?", "What time is pickup on Friday?",
                       "Is there soccer practice today?", "What day is trash pickup?",
                       "When is Theo's next dentist appointment?"],
        "entity": ["What size is our HVAC filter?", "What's the Wi-Fi password?",
                   "How much does Biscuit weigh?", "What model is our water heater?",
                   "How much is our latest energy bill?"],
        "historical": ["What roofer did we use in 2023?", "Who replaced our roof?",
                       "When did we replace the water heater?", "How much did Biscuit weigh in 2023?"],
    }
    wrong = [(q, router.route(q, NOW).pattern) for p, qs in cases.items() for q in qs
             if router.route(q, NOW).pattern != p]
    assert not wrong


def test_roof_2023_names_a_past_period_and_needs_no_recency(router, cfg):
    route = router.route("Who did we use for the roof back in 2023?", NOW)
    assert route.window.kind == "period"
    assert route.window.start == datetime(2023, 1, 1, tzinfo=NOW.tzinfo)
    assert route.window.end == datetime(2024, 1, 1, tzinfo=NOW.tzinfo)
    assert route.recency <= cfg.recency_period_cap
    assert "historical:in 2023" in route.cues


@pytest.mark.parametrize("question, day, logistical", [
    # A day still to come is a vote for the schedule ...
    ("Does Jonas have a swimming lesson on December 6?", "on december 6", True),
    ("jonas swimming sat 22 nov?", "sat 22 nov", True),
    # ... a day that is over is none.
    ("What did we pay the plumber on November 3?", "on november 3", False),
])
def test_a_day_still_to_come_is_a_vote_for_the_schedule(router, question, day, logistical):
    route = router.route(question, NOW)
    assert route.window is not None and route.window.kind == "day"
    assert (f"logistical:{day}" in route.cues) is logistical, route.cues
    assert (route.pattern == "logistical") is logistical, route.scores


@pytest.mark.parametrize("question, fired, not_fired", [
    pytest.param("When did we get the new water heater?", "historical:did we", "recency:", id="new-is-no-recency"),
    pytest.param("Do you know the wifi password", "entity:password", "recency:now", id="now-not-in-know"),
    pytest.param("Is the snowplow coming today?", "logistical:today", "recency:now", id="now-not-in-snowplow"),
    pytest.param("Is the Stillwater pool open today?", "recency:today", "logistical:still", id="still-not-in-stillwater"),
    pytest.param("Is soccer still on today?", "recency:still", "entity:", id="still"),
    pytest.param("What sizes does the model come in?", "entity:sizes", "logistical:", id="whole-words"),
    pytest.param("who did we use for the gutters", "historical:who did we use", "historical:did we", id="longest-phrase-only"),
    pytest.param("What did we pay in 2031?", "historical:what did", "historical:2031", id="future-year-is-not-past"),
    pytest.param("we need the dentist number", "entity:number", "historical:", id="need-is-not-past-tense"),
])
def test_cues_match_whole_tokens(router, question, fired, not_fired):
    cues = router.route(question, NOW).cues
    assert fired in cues
    assert not any(c.startswith(not_fired) if not_fired.endswith(":") else c == not_fired for c in cues)


def test_overlapping_phrases_of_one_pattern_vote_once(router):
    matches = router.match_cues("When did we replace the roof in 2023?", NOW)
    assert {m.words for m in matches if m.group == "historical"} >= {"when did", "did we", "in 2023"}
    assert cue_votes(matches).tolist() == [0, 0, 2]


@pytest.mark.parametrize("question", [
    "Is Friday a half-day?", "How much does Biscuit weigh?", "How much did Biscuit weigh in 2023?",
    "Is soccer still on today?", "How much is the monthly water bill right now?", "wifi password?",
])
def test_scores_are_model_probabilities_times_exp_cue_votes(router, cfg, question):
    proba = router.predict_proba([question])[0]
    votes = cue_votes(router.match_cues(question, NOW))
    reference = proba * np.exp(cfg.cue_weight * np.minimum(votes, cfg.cue_cap))
    reference /= reference.sum()
    route = router.route(question, NOW)
    assert np.allclose([route.scores[p] for p in PATTERNS], reference)


@pytest.mark.parametrize("question", [
    "Is Friday a half-day?", "What's the latest energy bill?", "Who replaced our roof?",
    "How much did Biscuit weigh in 2023?", "Is soccer still on today?", "What model is our water heater?",
])
def test_recency_follows_its_definition(router, cfg, question):
    route = router.route(question, NOW)
    scores = np.array([route.scores[p] for p in PATTERNS])
    r = scores @ [cfg.recency_logistical, cfg.recency_entity, cfg.recency_historical]
    if any(c.startswith("recency:") for c in route.cues):
        r = max(r, cfg.recency_cue_floor)
    if route.window is not None and route.window.kind == "period":
        r = min(r, cfg.recency_period_cap)
    assert route.recency == pytest.approx(float(np.clip(r, 0, 1)))
    assert 0.0 <= route.recency <= 1.0


def test_recency_is_high_for_now_and_low_for_the_past(router):
    assert router.route("Is there soccer practice today?", NOW).recency >= 0.9
    assert router.route("How much is our latest energy bill?", NOW).recency >= 0.9
    assert router.route("When did we get the new water heater?", NOW).recency <= 0.2
    assert router.route("How much did Biscuit weigh in 2023?", NOW).recency <= 0.2


def test_a_forced_pattern_still_extracts_window_and_recency(router, cfg):
    route = router.route("Is Friday a half day?", NOW, pattern="entity")
    assert route.pattern == "entity"
    assert route.scores == {"logistical": 0.0, "entity": 1.0, "historical": 0.0}
    assert route.window.start == datetime(2026, 11, 20, tzinfo=NOW.tzinfo)
    assert route.recency == pytest.approx(cfg.recency_entity)
    assert "logistical:half day" in route.cues


def test_an_unknown_pattern_names_the_valid_ones(router):
    with pytest.raises(ValueError, match="logistical, entity, historical"):
        router.route("Is Friday a half day?", NOW, pattern="schedule")


def test_now_must_be_aware(router):
    with pytest.raises(ValueError, match="timezone-aware"):
        router.route("Is Friday a half day?", datetime(2026, 11, 18, 12))


def test_held_out_accuracy_meets_the_configured_threshold(cfg):
    result = held_out_accuracy(cfg)
    assert result["n_test"] >= 0.2 * 300
    assert result["overall"] >= cfg.min_held_out_accuracy, result
    assert all(result[p] >= cfg.min_held_out_accuracy for p in PATTERNS), result


def test_labelled_set_is_large_varied_and_without_duplicates(labelled):
    questions, patterns = labelled
    assert len(questions) >= 300
    assert all(patterns.count(p) >= 100 for p in PATTERNS)
    keys = [_key(q) for q in questions]
    assert len(set(keys)) == len(keys), sorted(k for k in set(keys) if keys.count(k) > 1)
    # Typed the ways people type: some without a question mark, some all lowercase.
    assert sum(not q.endswith("?") for q in questions) >= 0.1 * len(questions)
    assert sum(q == q.lower() for q in questions) >= 0.1 * len(questions)


def test_fitting_is_fast_deterministic_and_cached(cfg, labelled):
    questions, patterns = labelled
    Router(cfg).fit(questions, patterns)   # the first fit pays for sklearn's lazy imports
    timings, probas = [], []
    for _ in range(2):
        start = time.perf_counter()
        fitted = Router(cfg).fit(questions, patterns)
        timings.append(time.perf_counter() - start)
        probas.append(fitted.predict_proba(questions[:50]))
    assert min(timings) < 1.0
    assert np.array_equal(probas[0], probas[1])
    assert load_router(cfg) is load_router(cfg)


def test_a_bad_cue_placeholder_is_named(cfg, labelled):
    bad = dataclasses.replace(cfg, entity_cues=("{colour}",))
    with pytest.raises(ValueError, match=r"\{colour\}"):
        Router(bad).fit(*labelled)


@pytest.mark.parametrize("text, named", [
    pytest.param("question\tpattern\nhello\tentity\n", "header", id="header"),
    pytest.param("pattern\tquestion\nschedule\tIs it on?\n", ":2:", id="unknown-pattern"),
    pytest.param("pattern\tquestion\nentity\n", ":2:", id="missing-question"),
])
def test_a_malformed_query_file_names_the_line(tmp_path, text, named):
    path = tmp_path / "q.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=named):
        read_queries(path)


def _evaluation_questions() -> list[str]:
    import json

    from conftest import FIXTURES
    return [json.loads(line)["question"] for path in sorted(FIXTURES.rglob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_no_router_row_is_a_near_copy_of_an_evaluation_question():
    # A labelled row that restates an evaluation question makes routing accuracy on it
    # in-sample. Near = the same words, or a token Jaccard of 0.6 or more.
    from brainquery.query.router import normalise, read_queries
    from ingest.config import config_file

    rows, _ = read_queries(config_file(load_config().router.queries_file))
    asked = [set(normalise(q).split()) for q in _evaluation_questions()]
    copies = [row for row in rows
              if any(len(set(normalise(row).split()) & q) / len(set(normalise(row).split()) | q) >= 0.6
                     for q in asked if q)]
    assert not copies, copies[:10]


def test_no_router_row_names_the_fixture_household():
    from brainquery.query.router import normalise, read_queries
    from ingest.config import config_file

    names = {"ada", "theo", "biscuit", "chidi", "maja", "ingrid", "okafor", "lindqvist", "alvarez",
             "hoffman", "driftless", "northstar", "birchwood", "natarajan", "hilltop", "lakeview"}
    rows, _ = read_queries(config_file(load_config().router.queries_file))
    assert not [row for row in rows if names & set(normalise(row).split())]


# ---- the fitted router as plain arrays (issue 11: commands start without scikit-learn) ----------
def _fixture_questions() -> list[str]:
    import json

    from conftest import FIXTURES

    files = [FIXTURES / "queries.jsonl", FIXTURES / "dev_rewordings.jsonl",
             FIXTURES / "household3" / "queries.jsonl"]
    return [json.loads(line)["question"] for f in files for line in f.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def test_the_array_model_gives_scikit_learns_probabilities_to_the_bit(router, labelled):
    from scipy import sparse

    from brainquery.query.router import model_text

    texts = [model_text(q) for q in [*labelled[0], *_fixture_questions(),
                                     "", "   ", "a", "Straße ünïcode 2023?", "x" * 3000]]
    features = sparse.hstack([part.transform(texts) for _, part in router.vectorizer_.transformer_list],
                             format="csr")
    expected = router.model_.predict_proba(features)[:, router.text_model_.columns]
    assert np.array_equal(router.text_model_.predict_proba(texts), expected)


def test_a_saved_router_answers_as_the_fitted_one(cfg, router, labelled):
    from brainquery.query.router import TextModel

    saved = {k: np.asarray(v) for k, v in router.text_model_.to_arrays().items()}
    loaded = Router(cfg).with_model(TextModel.from_arrays(saved, cfg))
    questions = [*labelled[0][:100], *_fixture_questions()[:100]]
    assert np.array_equal(loaded.predict_proba(questions), router.predict_proba(questions))
    assert [loaded.route(q, NOW) for q in questions[:30]] == [router.route(q, NOW) for q in questions[:30]]


def test_a_saved_router_of_other_settings_or_shape_is_not_used(cfg, router):
    from brainquery.query.router import TextModel

    saved = {k: np.asarray(v) for k, v in router.text_model_.to_arrays().items()}
    other = dataclasses.replace(cfg, logistic_c=cfg.logistic_c * 2)
    assert TextModel.from_arrays(saved, other) is None
    assert TextModel.from_arrays({**saved, "coef": saved["coef"][:, :-1]}, cfg) is None
    assert TextModel.from_arrays({**saved, "columns": np.array([0, 0, 1])}, cfg) is None


def test_a_store_publishes_its_router_and_a_planted_one_is_refitted(asked_corpus):
    from brainquery.query import query_index

    store = asked_corpus.store
    config = asked_corpus.config
    path = store.cache_dir / query_index.ROUTER_FILE
    published = query_index.open_router(store, config)
    assert not hasattr(published, "model_")   # loaded from the arrays, not fitted here
    original = path.read_bytes()
    try:
        other = dataclasses.replace(config.router, logistic_c=config.router.logistic_c * 2)
        from brainquery.files import write_arrays
        write_arrays(path, Router(other).fit(*read_queries(config_file(other.queries_file))).text_model_.to_arrays())
        refitted = query_index.open_router(store, config)   # not the digest the store recorded
        assert hasattr(refitted, "model_")
        assert np.array_equal(refitted.predict_proba(["is friday a half day"]),
                              published.predict_proba(["is friday a half day"]))
    finally:
        path.write_bytes(original)
