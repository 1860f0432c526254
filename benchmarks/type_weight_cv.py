"""Could the per-pattern document-type weights be fitted rather than hand-picked? Leave one
development household out.

For every question of the development sets (the files given, by default [confidence]
calibration_sets) the top 40 documents are kept with their scores and types. The ranker's
score is a product, so a type weight changed from w to w' multiplies a candidate's score by
w'/w: each candidate set is re-ranked exactly as the ranker would (the reorderings after it —
supersession, the former value, the last time — are not replayed, so a fitted table is a
proposal to check with `brainquery eval` on the same sets, never a result by itself).

The fit is a coordinate search over a grid of weights that keeps the product's promises:
for logistical questions calendar >= email >= newsletter, for entity questions invoices,
receipts and manuals above every other type, and each pattern's heaviest type fixed at 1.0
(so absolute scores, which confidence reads, keep their scale). A weight moves only when it
gains more than --min-gain of P@1 on the training sets. Each household is scored by a table
fitted on the others: the figure to trust. The table fitted on all of them is printed last.

    python benchmarks/type_weight_cv.py fixtures/household13/queries.jsonl ...
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.config import load_config
from brainquery.query.evaluate import gold_matcher, load_queries

REPO = Path(__file__).resolve().parent.parent
POOL = 40
GRID = tuple(round(0.1 * i, 1) for i in range(2, 11))
INGEST_NOW = datetime(2026, 11, 23, tzinfo=timezone.utc)
# One question: its pattern, its candidates' scores with the type weight divided out, their
# types, and which are gold.
Question = tuple[str, np.ndarray, list[str], np.ndarray]
Table = dict[tuple[str, str], float]


def collect(files: list[Path], workdir: Path) -> dict[str, list[Question]]:
    """Questions per corpus: a household's rewordings ask about its documents, so they are
    never fitted on while that household is the one scored."""
    table = load_config().type_weight
    by_corpus: dict[Path, list[Path]] = {}
    for path in files:
        by_corpus.setdefault(path.resolve().parent / "corpus", []).append(path)
    sets = {}
    for corpus, paths in by_corpus.items():
        name = corpus.parent.name
        brain = Brain(workdir / name)
        brain.ingest([corpus], now=INGEST_NOW)
        match = gold_matcher(corpus)
        rows = []
        for q in (q for path in paths for q in load_queries(path) if q.gold):
            answer = brain.ask(q.question, now=q.now, k=POOL).to_dict()
            results = answer["results"]
            if not results:
                continue
            pattern = answer["pattern"]
            types = [r["doc_type"] for r in results]
            base = np.array([r["score"] / table.weight(pattern, t) for r, t in zip(results, types)])
            gold = np.array([any(match(r, g) for g in q.gold) for r in results])
            rows.append((pattern, base, types, gold))
        sets[name] = rows
        print(f"  {name}: {len(rows)} questions", file=sys.stderr)
    return sets


def p_at_1(questions: list[Question], weights: Table) -> float:
    hits = [gold[int(np.argmax(base * np.array([weights[(pattern, t)] for t in types])))]
            for pattern, base, types, gold in questions]
    return float(np.mean(hits)) if hits else float("nan")


def keeps_promises(w: Table, types: list[str]) -> bool:
    if not w[("logistical", "calendar_event")] >= w[("logistical", "email")] >= w[("logistical", "newsletter")]:
        return False
    first = min(w[("entity", t)] for t in ("invoice", "receipt", "manual"))
    return all(w[("entity", t)] <= first for t in types if t not in ("invoice", "receipt", "manual"))


def fit(sets: dict[str, list[Question]], train: list[str], start: Table, types: list[str],
        min_gain: float) -> Table:
    w = dict(start)
    fixed = {(p, t) for p in {p for p, _ in w} for t in types if start[(p, t)] >= 1.0}

    def objective(table: Table) -> float:
        return float(np.mean([p_at_1(sets[n], table) for n in train]))

    best = objective(w)
    for _ in range(3):
        moved = False
        for key in [k for k in w if k not in fixed]:
            old, choice = w[key], None
            for value in GRID:
                w[key] = value
                if keeps_promises(w, types):
                    score = objective(w)
                    if score > best + min_gain and (choice is None or score > choice[1]):
                        choice = (value, score)
            w[key] = old
            if choice is not None:
                w[key], best, moved = choice[0], choice[1], True
        if not moved:
            break
    return w


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("questions", nargs="*", type=Path,
                   help="development question files (default: [confidence] calibration_sets)")
    p.add_argument("--min-gain", type=float, default=0.002, help="P@1 a weight must gain to move")
    args = p.parse_args(argv)
    config = load_config()
    files = args.questions or [REPO / f for f in config.confidence.calibration_sets]
    with tempfile.TemporaryDirectory(prefix="type-weight-cv-") as tmp:
        sets = collect(files, Path(tmp))
    names = list(sets)
    types = sorted({t for rows in sets.values() for _, _, ts, _ in rows for t in ts})
    patterns = sorted({pattern for rows in sets.values() for pattern, *_ in rows})
    start = {(pat, t): config.type_weight.weight(pat, t) for pat in patterns for t in types}
    print(f"type-weight cross-validation — commit {commit()}; sets: "
          + ", ".join(f"{n} ({len(sets[n])})" for n in names))
    print(f"\n{'held-out set':<14}{'config':>9}{'fitted':>9}  (P@1 of the ranker's order, before its reorderings)")
    before, after = [], []
    for held in names:
        table = fit(sets, [n for n in names if n != held], start, types, args.min_gain)
        before.append(p_at_1(sets[held], start))
        after.append(p_at_1(sets[held], table))
        print(f"{held:<14}{before[-1]:>9.3f}{after[-1]:>9.3f}")
    print(f"{'mean':<14}{np.mean(before):>9.3f}{np.mean(after):>9.3f}")
    table = fit(sets, names, start, types, args.min_gain)
    print("\nfitted on all sets (changed weights):")
    for (pattern, t), value in sorted(table.items()):
        if value != start[(pattern, t)]:
            print(f"  {pattern:<11} {t:<15} {start[(pattern, t)]:.1f} -> {value:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
