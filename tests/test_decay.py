"""Time weights: the decay models from config/default.toml, as promised in the issue."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from brainquery.config import load_config
from brainquery.query.decay import (DECAY_FUNCTIONS, decay_function, period_weight, rivalled, shared_words,
                                    time_weight)

CONFIG = load_config()
TYPES = ("email", "newsletter", "invoice", "manual", "calendar_event", "static_pdf")
CODE = {name: i for i, name in enumerate(TYPES)}


def weights(pattern: str, ages, types, recency=1.0, relevant=None, **changes):
    model = dataclasses.replace(getattr(CONFIG.time, pattern), **changes)
    ages = np.asarray(ages, dtype=float)
    codes = np.array([CODE[t] for t in types])
    relevant = np.ones(len(ages), bool) if relevant is None else np.asarray(relevant)
    return time_weight(model, ages, codes, TYPES, recency, relevant)


def test_logistical_halves_every_seven_days():
    w = weights("logistical", [0, 7, 14], ["email"] * 3, cutoff_days=0.0)
    assert w == pytest.approx([1.0, 0.5, 0.25])


def test_logistical_soft_cutoff_only_when_something_newer_answers():
    ages, types = [2, 40], ["email", "email"]
    with_newer = weights("logistical", ages, types)
    alone = weights("logistical", [40], ["email"])
    assert with_newer[1] == pytest.approx(alone[0] * CONFIG.time.logistical.cutoff_factor)
    # The newer document does not answer the question: the old one keeps its weight.
    not_relevant = weights("logistical", ages, types, relevant=[False, True])
    assert not_relevant[1] == pytest.approx(alone[0])


def test_an_event_still_ahead_is_spared_the_cutoff():
    # This week's newsletter names the winter concert six weeks ahead: the concert's entry is
    # the plan for its day, not an old document the newsletter makes stale.
    model = CONFIG.time.logistical
    ages, codes = np.array([5.0, 43.5]), np.array([CODE["newsletter"], CODE["calendar_event"]])
    relevant, rival = np.ones(2, bool), np.ones(2, bool)
    cut = time_weight(model, ages, codes, TYPES, 1.0, relevant, rival)
    spared = time_weight(model, ages, codes, TYPES, 1.0, relevant, rival, uncut=np.array([False, True]))
    assert spared[1] == pytest.approx(cut[1] / model.cutoff_factor)
    assert spared[0] == pytest.approx(cut[0])


def test_entity_is_linear_with_a_ninety_day_half_life_and_a_floor():
    w = weights("entity", [0, 90, 120, 1000], ["email"] * 4, floor_half_life_days=0.0)
    assert w[:3] == pytest.approx([1.0, 0.5, 1 - 0.5 * 120 / 90])
    assert w[3] == CONFIG.time.entity.floor


def test_the_floor_fades_so_old_documents_still_rank_by_age():
    """A 2022 note and a 2025 notice have both decayed to the floor; the newer still leads."""
    model = CONFIG.time.logistical
    old, older = weights("logistical", [600, 1500], ["email", "email"], cutoff_days=0.0)
    assert older < old <= model.floor
    assert old == pytest.approx(model.floor * 0.5 ** (600 / model.floor_half_life_days))


def test_manuals_decay_slower_than_newsletters():
    manual, newsletter = weights("logistical", [60, 60], ["manual", "newsletter"])
    assert manual > 5 * newsletter


def test_historical_questions_have_no_recency_penalty():
    w = weights("historical", [1, 400, 4000], ["invoice"] * 3)
    assert np.all(w == 1.0)


def test_undated_is_not_fresh():
    """A document whose only date is when we read it must not win as 'the newest'."""
    undated, fresh = weights("logistical", [np.nan, 0], ["email", "email"])
    assert undated == CONFIG.time.logistical.undated < fresh


def test_recency_need_blends_the_decay_in():
    none, full = (weights("entity", [1000], ["email"], recency=r, floor_half_life_days=0.0)[0]
                  for r in (0.0, 1.0))
    assert none == 1.0 and full == CONFIG.time.entity.floor


def test_period_weight_is_a_window_not_a_decay_from_now():
    day = 86400.0
    start, end = 1000 * day, 1365 * day
    w = period_weight(CONFIG.time.period, np.array([1100 * day, 1365 * day + 120 * day,
                                                    -5000 * day, np.nan]), start, end)
    assert w[0] == 1.0
    assert w[1] == pytest.approx(0.5 ** (120 / CONFIG.time.period.half_life_days))
    assert w[2] == CONFIG.time.period.floor and w[3] == CONFIG.time.period.floor


def test_a_short_period_fades_faster_outside_than_a_long_one():
    """'Camping in June': a letter of late July tells less of June than one of early July,
    and much less than a letter of late January tells of "2023"."""
    day = 86400.0
    cfg = CONFIG.time.period
    june = (0.0, 30 * day)
    early_july, late_july = period_weight(cfg, np.array([36 * day, 50 * day]), *june)
    assert late_july < early_july < 1.0
    assert late_july == pytest.approx(0.5 ** (20 / (cfg.length_share * 30)))
    year = (0.0, 365 * day)
    late_january = period_weight(cfg, np.array([385 * day]), *year)[0]
    assert late_january == pytest.approx(0.5 ** (20 / cfg.half_life_days))
    # A day asked about historically fades over a week at least, not within hours.
    day_after = period_weight(cfg, np.array([2 * day]), 0.0, day)[0]
    assert day_after == pytest.approx(0.5 ** (1 / cfg.min_half_life_days))


@pytest.mark.parametrize("half_life", [0.0, 10.0])
def test_a_window_an_event_bounds_has_its_own_edge(half_life):
    day = 86400.0
    cfg = dataclasses.replace(CONFIG.time.period, anchor_half_life_days=half_life)
    epochs = np.array([900 * day, 1000 * day + 3600, 1010 * day])
    w = period_weight(cfg, epochs, 0.0, 1000 * day, anchored=True)
    assert w[0] == 1.0
    if half_life == 0:   # the day of the event itself is already after it
        assert list(w[1:]) == [cfg.floor, cfg.floor]
    else:
        assert w[2] == pytest.approx(0.5) and w[1] > w[2]


def test_unknown_decay_model_names_the_valid_ones():
    with pytest.raises(ValueError, match="exponential"):
        decay_function("hyperbolic")
    assert set(DECAY_FUNCTIONS) == {"exponential", "linear", "none"}


def test_a_rival_names_what_the_old_document_names_not_as_much_of_the_question():
    # "till what time is the gym open in the evening": the gym's old newsletter names "gym"
    # and "open"; a newer letter about the babysitter's evenings names "open", "evening" and
    # "till", more of the question but not the gym. A newer gym notice is a rival.
    terms_weights = np.array([3.2, 4.0, 3.0, 3.0])            # till, gym, open, evening
    words = np.array([[False, True, True, False],             # the gym's newsletter, 2023
                      [True, False, True, True],              # the babysitter, 2025
                      [False, True, True, True]])             # the gym's new hours, 2025
    day = 86400.0
    epochs = np.array([0.0, 900 * day, 900 * day])
    coverage = words.astype(float) @ terms_weights / terms_weights.sum()
    evidence = np.array([0.4, 0.6, 0.6])
    on_topic, no_value = np.ones(3, bool), np.zeros(3, bool)
    rule = CONFIG.time.rival
    assert not rivalled(epochs[:2], coverage[:2], evidence[:2], on_topic[:2], no_value[:2], rule,
                        shared=shared_words(words[:2], terms_weights))[0]
    assert rivalled(epochs, coverage, evidence, on_topic, no_value, rule,
                    shared=shared_words(words, terms_weights))[0]
    # (Compared by how much of the question each covers, the babysitter's letter was one.)
    assert rivalled(epochs[:2], coverage[:2], evidence[:2], on_topic[:2], no_value[:2], rule)[0]
