"""Is the confidence the probability that the answer is right? Fit it, then check it.

For every question of the development sets (config [confidence] calibration_sets) the raw
confidence (coverage x margin x freshness, the calibration switched off) is paired with
whether the answer was right: an "I don't know" where nothing answers; otherwise an
answer that contains the expected value, or, for a question with no expected string, a
gold document first. scikit-learn's IsotonicRegression maps raw to right; its breakpoints
are printed as config lines. Then the reliability table — buckets of confidence, the mean
confidence in each and the share right — for the development sets (in sample) and the
held-out sets ([evaluation] heldout_sets, only reported) with the calibration in force.

    python benchmarks/calibrate.py             # fit, print the config lines and both tables
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.config import Config, load_config
from brainquery.query.evaluate import contains_answer, gold_matcher, load_queries

REPO = Path(__file__).resolve().parent.parent
INGESTED = datetime(2026, 11, 23, tzinfo=timezone.utc)
BUCKETS = np.linspace(0.0, 1.0, 11)


def outcomes(sets: list[str], config: Config, workdir: Path) -> list[tuple[float, bool]]:
    """(confidence, right) per question of the sets, under `config`."""
    pairs = []
    for name in sets:
        path = REPO / name
        corpus = path.parent / "corpus"
        brain = Brain(workdir / path.parent.name / path.stem, config)
        brain.ingest([corpus], now=INGESTED)
        match = gold_matcher(corpus)
        for q in load_queries(path):
            result = brain.ask(q.question, now=q.now).to_dict()
            answered = result["answer"] is not None
            if q.expect == "idk":
                right = not answered
            elif not answered:
                right = False
            elif q.answer is not None:
                right = contains_answer(result["answer"], q.answer) or (
                    result.get("evidence") is not None and contains_answer(result["evidence"]["text"], q.answer))
            else:
                top = result["results"][0] if result["results"] else {}
                right = any(match(top, g) for g in q.gold)
            # "I don't know" is right or wrong with certainty 1 - 0: its confidence is 0.
            pairs.append((float(result["confidence"]) if answered else 0.0, bool(right) if answered else None))
    return [(c, r) for c, r in pairs if r is not None]


def reliability(pairs: list[tuple[float, bool]]) -> str:
    conf = np.array([c for c, _ in pairs])
    right = np.array([r for _, r in pairs], dtype=float)
    lines = [f"{'bucket':<12}{'n':>5}{'mean conf':>11}{'share right':>13}{'gap':>8}"]
    for lo, hi in zip(BUCKETS[:-1], BUCKETS[1:]):
        inside = (conf >= lo) & ((conf < hi) | ((hi == 1.0) & (conf <= hi)))
        n = int(inside.sum())
        if n:
            gap = right[inside].mean() - conf[inside].mean()
            flag = "" if n < 10 or abs(gap) <= 0.10 else "  > 0.10"
            lines.append(f"{lo:.1f}-{hi:.1f}{'':<5}{n:>5}{conf[inside].mean():>11.3f}{right[inside].mean():>13.3f}"
                         f"{gap:>+8.3f}{flag}")
    lines.append(f"{'all':<12}{len(pairs):>5}{conf.mean():>11.3f}{right.mean():>13.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from sklearn.isotonic import IsotonicRegression

    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    config = load_config()
    raw = dataclasses.replace(config, confidence=dataclasses.replace(
        config.confidence, calibration_raw=(), calibration_right=()))
    print(f"confidence calibration — commit {commit()}")
    with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
        dev = outcomes(list(config.confidence.calibration_sets), raw, Path(tmp) / "raw")
        x = np.array([c for c, _ in dev])
        y = np.array([r for _, r in dev], dtype=float)
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
        knots_x = np.round(iso.X_thresholds_, 4)
        knots_y = np.round(iso.y_thresholds_, 4)
        print(f"\n{len(dev)} answered development questions; paste into config [confidence]:")
        print(f"calibration_raw = {list(map(float, knots_x))}")
        print(f"calibration_right = {list(map(float, knots_y))}")
        print("\nraw confidence, development (in sample)\n" + reliability(dev))
        fitted = dataclasses.replace(config, confidence=dataclasses.replace(
            config.confidence, calibration_raw=tuple(map(float, knots_x)),
            calibration_right=tuple(map(float, knots_y))))
        held = outcomes(list(config.evaluation.heldout_sets), fitted, Path(tmp) / "held")
        print("\ncalibrated confidence, held out\n" + reliability(held))
        held_raw = outcomes(list(config.evaluation.heldout_sets), raw, Path(tmp) / "held-raw")
        print("\nraw confidence, held out (before calibration)\n" + reliability(held_raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
