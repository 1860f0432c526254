"""Is the confidence the probability that the answer is right? Fit it, then check it.

For every answered question of the development sets (config [confidence] calibration_sets)
the answer's signals (AskResult.signals: coverage, margin, freshness, whether a value of the
asked kind was found, how much of the question the answer's sentence holds, routing
certainty) are paired with whether the answer was right: it contains the expected value,
or, for a question with no expected string, a gold document is first. scikit-learn's
LogisticRegression maps signals to right; its weights are printed as config lines, each
with its cross-validated log-loss contribution. Then the reliability table — buckets of
confidence, the mean confidence in each and the share right — for the development sets
(in sample) and the held-out sets ([evaluation] heldout_sets, only reported) with the
fitted model in force, and the held-out table under the configuration as it stands.

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
from brainquery.config import SIGNALS, Config, load_config
from brainquery.query.evaluate import contains_answer, gold_matcher, load_queries

REPO = Path(__file__).resolve().parent.parent
INGESTED = datetime(2026, 11, 23, tzinfo=timezone.utc)
BUCKETS = np.linspace(0.0, 1.0, 11)
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def outcomes(sets: list[str], config: Config, workdir: Path) -> list[tuple[float, dict, bool]]:
    """(confidence, signals, right) per answered question of the sets, under `config`."""
    rows = []
    for name in sets:
        path = REPO / name
        corpus = path.parent / "corpus"
        brain = Brain(workdir / path.parent.name / path.stem, config)
        brain.ingest([corpus], now=INGESTED)
        match = gold_matcher(corpus)
        for q in load_queries(path):
            result = brain.ask(q.question, now=q.now).to_dict()
            if result["answer"] is None or not result.get("signals"):
                continue      # "I don't know" (or asked back): its confidence is no claim
            if q.expect == "idk":
                right = False
            elif q.answer is not None:
                right = contains_answer(result["answer"], q.answer) or (
                    result.get("evidence") is not None and contains_answer(result["evidence"]["text"], q.answer))
            else:
                top = result["results"][0] if result["results"] else {}
                right = any(match(top, g) for g in q.gold)
            rows.append((float(result["confidence"]), result["signals"], bool(right)))
    return rows


def reliability(rows: list[tuple[float, dict, bool]]) -> str:

    conf = np.array([c for c, _, _ in rows])
    right = np.array([r for _, _, r in rows], dtype=float)
    lines = [f"{'bucket':<12}{'n':>5}{'mean conf':>11}{'share right':>13}{'gap':>8}"]
    for lo, hi in zip(BUCKETS[:-1], BUCKETS[1:]):
        inside = (conf >= lo) & ((conf < hi) | ((hi == 1.0) & (conf <= hi)))
        n = int(inside.sum())
        if n:
            gap = right[inside].mean() - conf[inside].mean()
            flag = "" if n < 10 or abs(gap) <= 0.10 else "  > 0.10"
            lines.append(f"{lo:.1f}-{hi:.1f}{'':<5}{n:>5}{conf[inside].mean():>11.3f}{right[inside].mean():>13.3f}"
                         f"{gap:>+8.3f}{flag}")
    lines.append(f"{'all':<12}{len(rows):>5}{conf.mean():>11.3f}{right.mean():>13.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    config = load_config()
    print(f"confidence calibration — commit {commit()}")
    with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
        dev = outcomes(list(config.confidence.calibration_sets), config, Path(tmp) / "dev")
        x = np.array([[sig[name] for name in SIGNALS] for _, sig, _ in dev])
        y = np.array([r for _, _, r in dev], dtype=int)
        def cv_loss(c: float, columns: list[int]) -> float:
            return -cross_val_score(LogisticRegression(C=c, max_iter=1000), x[:, columns], y, cv=5,
                                    scoring="neg_log_loss").mean()

        every = list(range(len(SIGNALS)))
        # The regularisation is chosen by cross-validation on the development sets alone.
        losses = {c: cv_loss(c, every) for c in C_GRID}
        c = min(losses, key=losses.get)
        model = LogisticRegression(C=c, max_iter=1000).fit(x, y)
        print(f"\n{len(dev)} answered development questions, {y.mean():.3f} right; 5-fold "
              f"cross-validated log-loss by C: " + ", ".join(f"{k:g}: {v:.3f}" for k, v in losses.items())
              + f" (a constant {y.mean():.3f}: {_constant_loss(y):.3f}); signal_c = {c:g}")
        for j, name in enumerate(SIGNALS):
            without = cv_loss(c, [k for k in every if k != j])
            print(f"  {name:<15} weight {model.coef_[0][j]:+.3f}   log-loss without it {without:.3f}")
        weights = {name: round(float(w), 4) for name, w in zip(SIGNALS, model.coef_[0])}
        print("paste into config [confidence]:")
        print("signal_weights = { " + ", ".join(f"{k} = {v}" for k, v in weights.items()) + " }")
        print(f"signal_intercept = {round(float(model.intercept_[0]), 4)}")
        fitted = dataclasses.replace(config, confidence=dataclasses.replace(
            config.confidence, signal_weights=weights, signal_intercept=float(model.intercept_[0]), signal_c=c))
        dev_fitted = outcomes(list(config.confidence.calibration_sets), fitted, Path(tmp) / "dev")
        print("\nfitted confidence, development (in sample)\n" + reliability(dev_fitted))
        held = outcomes(list(config.evaluation.heldout_sets), fitted, Path(tmp) / "held")
        print("\nfitted confidence, held out\n" + reliability(held))
        held_now = outcomes(list(config.evaluation.heldout_sets), config, Path(tmp) / "held")
        print("\nconfidence as configured now, held out\n" + reliability(held_now))
    return 0


def _constant_loss(y: np.ndarray) -> float:
    p = min(max(y.mean(), 1e-6), 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


if __name__ == "__main__":
    sys.exit(main())
