"""Time weights: how much a document's age counts for a question.

One small function per decay model, chosen by name; everything else is a mask over the
candidates. Ages are distances in days (|now - date|, or for a calendar event the distance
to its nearest occurrence), NaN for an undated document, which gets the pattern's
`undated` weight instead of being taken as fresh.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from ..config import DecayModel, PeriodWeight, RivalRule

SECONDS_PER_DAY = 86400.0


def _exponential(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    return np.power(0.5, age / half_life)


def _linear(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    # Falls by one half per half-life: 1 at age 0, 0.5 at one half-life, 0 at two.
    return 1.0 - 0.5 * age / half_life


def _none(age: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    return np.ones_like(age)


DECAY_FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "exponential": _exponential,
    "linear": _linear,
    "none": _none,
}


def decay_function(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    try:
        return DECAY_FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"unknown decay model {name!r}; valid: {', '.join(DECAY_FUNCTIONS)}") from None


def per_type(table: Mapping[str, float], default: float, type_names: Sequence[str]) -> np.ndarray:
    """A lookup array indexed by type code: table[type] or the default."""
    return np.array([float(table.get(name, default)) for name in type_names], dtype=np.float64)


def time_weight(model: DecayModel, age_days: np.ndarray, type_codes: np.ndarray,
                type_names: Sequence[str], recency: float, relevant: np.ndarray,
                rival: np.ndarray | None = None) -> np.ndarray:
    """The time weight of each candidate under `model`.

    `relevant` marks candidates that answer the question at all: the soft cutoff only
    demotes an old document when a relevant one inside the cutoff exists ("unless no newer
    source exists"), so a question whose only evidence is old still gets an answer, which
    the confidence message then flags as stale.
    """
    age = np.asarray(age_days, dtype=np.float64)
    dated = ~np.isnan(age)
    safe_age = np.where(dated, age, 0.0)
    half_life = per_type(model.half_life_by_type, model.half_life_days, type_names)[type_codes]
    floor = per_type(model.floor_by_type, model.floor, type_names)[type_codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = decay_function(model.model)(safe_age, np.where(half_life > 0, half_life, np.inf))
    # The floor itself fades slowly: among documents that have all decayed to it, the
    # newer still ranks first (a flat floor would tie a 2022 note with a 2025 notice).
    if model.floor_half_life_days > 0:
        floor = floor * np.power(0.5, safe_age / model.floor_half_life_days)
    weight = np.clip(raw, floor, 1.0)
    if model.cutoff_days > 0:
        inside = dated & (safe_age <= model.cutoff_days)
        if np.any(inside & relevant):
            # Only a document a newer one rivals is cut: the council's letter that moved the
            # bin day is not out of date because a calendar reminder happens this week.
            cut = dated & ~inside & (rival if rival is not None else True)
            weight = np.where(cut, weight * model.cutoff_factor, weight)
    weight = np.where(dated, weight, model.undated)
    if model.recency_blend:
        # weight ** r: no time weight for r = 0, all of it for r = 1, and in between the
        # order of ages is kept (a linear blend would flatten every old document to 1 - r).
        weight = np.power(weight, recency)
    if rival is not None:
        weight = np.where(rival, weight, np.power(weight, model.unrivalled_power))
    return weight


def rivalled(epochs: np.ndarray, coverage: np.ndarray, evidence: np.ndarray, on_topic: np.ndarray,
             has_value: np.ndarray, cfg: RivalRule) -> np.ndarray:
    """Which candidates a newer one about the same subject may have superseded: a document
    written at least `min_gap_days` later, about the question, covering its words nearly as
    fully, with evidence (its score before time) about as strong — or, when both state a
    value of the kind asked for (a size, an amount, a time), at least `value_match_share`
    as strong. An old document with no such rival is not out of date, only old (a pet's
    microchip number, who someone is)."""
    match = evidence
    epochs = np.asarray(epochs, dtype=np.float64)
    dated = ~np.isnan(epochs)
    newer = (epochs[None, :] - epochs[:, None]) >= cfg.min_gap_days * SECONDS_PER_DAY   # [i, j]: j newer
    newer &= dated[None, :] & dated[:, None] & on_topic[None, :]
    covers = coverage[None, :] >= cfg.coverage_share * coverage[:, None] - 1e-9
    matches = match[None, :] >= cfg.match_share * match[:, None]
    values = (has_value[None, :] & has_value[:, None]) & (match[None, :] >= cfg.value_match_share * match[:, None])
    return (newer & covers & (matches | values)).any(axis=1) | ~dated


def period_weight(cfg: PeriodWeight, epochs: np.ndarray, start: float, end: float,
                  anchored: bool = False) -> np.ndarray:
    """1 inside [start, end), decaying with the distance outside (with the anchored
    half-life for a window bounded by an event; 0 is a hard edge); undated documents get
    the floor (they cannot be placed in the period)."""
    epochs = np.asarray(epochs, dtype=np.float64)
    distance = np.maximum(start - epochs, 0.0) + np.maximum(epochs - end, 0.0)
    days = np.where(np.isnan(distance), np.inf, distance / SECONDS_PER_DAY)
    half_life = cfg.anchor_half_life_days if anchored else cfg.half_life_days
    if half_life <= 0:
        return np.where(days > 0, cfg.floor, 1.0)
    return np.maximum(np.power(0.5, days / half_life), cfg.floor)
