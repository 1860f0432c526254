"""Could the fusion weights be fitted rather than hand-picked? Cross-validated across sets.

Development sets only: the households' development question sets ([confidence]
calibration_sets: the fixture household with its rewordings, households 3, 5, 7, 8, 10 and
11) and LoCoMo's development conversations (26, 30, 41), each corpus a set of its own. For every question the top 40 documents are kept with their
score parts. Two fits, each scored leave-one-set-out (fit on three sets, P@1 on the fourth):

- logistic regression (scikit-learn, balanced classes) on the parts — the relevance parts
  as they are, the multiplicative ones as logarithms, on-topic as 0/1 — its coefficients
  printed as mean ± sd over the folds;
- a grid over the formula's own weights (alpha, beta, gamma, delta, coord_power), chosen by
  the mean P@1 of the other sets.

Both are printed beside the formula in config/default.toml, which stays the method unless a
fit beats it on the sets it was not fitted on.

    python benchmarks/fusion_cv.py /data/locomo10_v2
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from locomo_bench import DEVELOPMENT, commit, gold_sessions, load_conversations, session_of, write_mailbox

from brainquery.brain import Brain
from brainquery.config import load_config
from brainquery.query.evaluate import gold_matcher, load_queries

REPO = Path(__file__).resolve().parent.parent
POOL = 40
RELEVANCE = ("bm25", "dense", "graph", "ppr")
FACTORS = ("coverage", "decay", "type_weight", "answer_type", "type_hint", "window")
LOG_FLOOR = 1e-3
Candidate = tuple[dict, bool, bool]          # (score parts, on topic, gold)


def collect(locomo: Path, workdir: Path) -> dict[str, list[list[Candidate]]]:
    sets: dict[str, list[list[Candidate]]] = {}
    # The development question sets ([confidence] calibration_sets), one set per corpus: a
    # household's rewordings ask about the same documents, so they are never fitted on
    # while that household is the one scored.
    by_corpus: dict[Path, list[Path]] = {}
    for name in load_config().confidence.calibration_sets:
        path = REPO / name
        by_corpus.setdefault(path.parent / "corpus", []).append(path)
    for corpus, files in by_corpus.items():
        name = corpus.parent.name
        brain = Brain(workdir / name)
        brain.ingest([corpus], now=datetime(2026, 11, 23, tzinfo=timezone.utc))
        match = gold_matcher(corpus)
        sets[name] = [
            [(r["scores"], r["on_topic"], any(match(r, g) for g in q.gold))
             for r in brain.ask(q.question, now=q.now, k=POOL).to_dict()["results"]]
            for f in files for q in load_queries(f) if q.gold]
    conversations = load_conversations(locomo)
    for sid in DEVELOPMENT:
        conv = conversations[sid]
        write_mailbox(conv, workdir / f"mail-{sid}")
        brain = Brain(workdir / f"store-{sid}")
        brain.ingest([workdir / f"mail-{sid}"], now=conv.now)
        rows = []
        for qa in conv.qa:
            gold = gold_sessions(qa)
            if gold:
                results = brain.ask(qa["question"], now=conv.now, k=POOL).to_dict()["results"]
                rows.append([(r["scores"], r["on_topic"], session_of(r["source"]) in gold) for r in results])
        sets[f"locomo-{sid}"] = rows
    return sets


def formula(parts: dict, on_topic: bool, alpha=1.0, beta=1.0, gamma=0.5, delta=0.5, coord=1.0,
            off_topic=0.1) -> float:
    relevance = (alpha * parts["bm25"] + beta * parts["dense"] + gamma * parts["graph"]
                 + delta * parts["ppr"]) * parts["coverage"] ** coord
    product = np.prod([parts[f] for f in FACTORS if f != "coverage"])
    return float(relevance * product * (1.0 if on_topic else off_topic))


def features(parts: dict, on_topic: bool) -> list[float]:
    return ([parts[f] for f in RELEVANCE] + [float(np.log(max(parts[f], LOG_FLOOR))) for f in FACTORS]
            + [1.0 if on_topic else 0.0])


def p_at_1(questions: list[list[Candidate]], score) -> float:
    hits = [max(c, key=lambda x: score(x[0], x[1]))[2] if c else False for c in questions]
    return float(np.mean(hits)) if hits else float("nan")


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("locomo", type=Path, help="LoCoMo data (see locomo_bench.py)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fusion-cv-") as tmp:
        sets = collect(args.locomo, Path(tmp))
    names = list(sets)
    print(f"fusion cross-validation — commit {commit()}; sets: "
          + ", ".join(f"{n} ({len(sets[n])})" for n in names))
    grid = list(itertools.product((0.5, 1.0, 2.0), (0.5, 1.0, 2.0), (0.0, 0.5), (0.0, 0.5, 1.0), (0.5, 1.0, 2.0)))
    print(f"\n{'held-out set':<14}{'formula':>9}{'logreg':>9}{'grid':>9}  grid's choice (alpha, beta, gamma, delta, coord)")
    coefs = []
    for held in names:
        train = [n for n in names if n != held]
        X = np.array([features(c[0], c[1]) for n in train for q in sets[n] for c in q])
        y = np.array([c[2] for n in train for q in sets[n] for c in q])
        model = LogisticRegression(C=0.1, class_weight="balanced", max_iter=2000).fit(X, y)
        coefs.append(model.coef_[0])
        learned = p_at_1(sets[held], lambda parts, on: float(model.coef_[0] @ features(parts, on)))
        best = max(grid, key=lambda w: np.mean([p_at_1(sets[n], lambda parts, on: formula(parts, on, *w))
                                                 for n in train]))
        chosen = p_at_1(sets[held], lambda parts, on: formula(parts, on, *best))
        print(f"{held:<14}{p_at_1(sets[held], formula):>9.3f}{learned:>9.3f}{chosen:>9.3f}  {best}")
    coefs = np.array(coefs)
    print("\nlogistic regression coefficients over the folds (mean ± sd):")
    for name, mean, sd in zip([*RELEVANCE, *(f"log {f}" for f in FACTORS), "on_topic"], coefs.mean(0), coefs.std(0)):
        print(f"  {name:<16}{mean:+.3f} ± {sd:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
