"""Does a small store still answer? P@1 by store size, over random subsets of the corpus.

    python benchmarks/store_size_sweep.py                      # sizes 3 5 10 30 and the full corpus
    python benchmarks/store_size_sweep.py --sizes 3 5 --draws 20 --failures [--config FILE]

For each size, `--draws` seeded subsets of the corpus's source files are drawn. Each
subset is anchored on questions: one gold file of a random question at a time until half
the subset is gold files, the rest drawn at random from the other files. Each subset is
ingested into a store of its own (with eval_bench's ingest clock), and every question with
at least one gold document in the subset is asked at its own `now` and judged as `brainquery
eval` judges it (brainquery/query/evaluate.py). A message the manifest lists twice (an
.eml and its copy in the mbox, `duplicate_of`) is gold in either place: a store may hold
only the copy. "I don't know" questions (no gold) are asked in every store.

Columns: P@1 per draw (median, mean) and pooled over every question asked; "answered", the
share of questions expecting an answer that got one rather than "I don't know"; "ans ok",
the share whose answer holds the expected text; "idk ok", the share of unanswerable
questions that still abstain (a store that answers everything cannot pass for one that
ranks well). A small store has few distractors, so its P@1 is no harder than the whole
corpus's: what it loses shows in "answered".

The unit drawn is a source file: a calendar (.ics, six events each here) or the family
mbox (six messages) comes whole, so a store of 3 files may hold more than 3 documents; the
table shows the mean count of documents and chunks stored. The questions are the
development set (fixtures/queries.jsonl): the held-out sets are never run here. A run by
hand that prints figures, not a test.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.config import Config, load_config
from brainquery.query.evaluate import EvalQuery, EvalReport, evaluate, load_queries

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "fixtures" / "corpus"
QUERIES = REPO / "fixtures" / "queries.jsonl"
MANIFEST = REPO / "fixtures" / "corpus_manifest.csv"
INGESTED = datetime(2026, 11, 23, tzinfo=timezone.utc)   # as benchmarks/eval_bench.py
FULL = "full"


def source_file(gold: str) -> str:
    """The file a gold entry lives in: "x.ics#3" and "x.eml::a.pdf" live in x.ics, x.eml."""
    return gold.partition("::")[0].partition("#")[0]


def corpus_files(manifest: Path) -> list[str]:
    """Every source file of the corpus (paths relative to it), in manifest order."""
    with open(manifest, newline="", encoding="utf-8") as fh:
        return list(dict.fromkeys(source_file(row["path"]) for row in csv.DictReader(fh)))


def draw(files: list[str], queries: list[EvalQuery], size: int, rng: np.random.Generator) -> list[str]:
    """`size` files: half of them gold files of random questions, the rest any others."""
    chosen: list[str] = []
    anchored = [q for q in queries if q.gold]
    for i in rng.permutation(len(anchored)):
        if len(chosen) >= (size + 1) // 2:
            break
        gold = sorted({source_file(g) for g in anchored[i].gold})
        pick = gold[rng.integers(len(gold))]
        if pick not in chosen:
            chosen.append(pick)
    others = [f for f in files if f not in chosen]
    chosen += [others[i] for i in rng.permutation(len(others))[:size - len(chosen)]]
    return chosen


def duplicates(manifest: Path) -> dict[str, set[str]]:
    """Gold entry -> the same message stored elsewhere (the manifest's duplicate_of): an
    mbox copy of an .eml is the document a store holds when only the mbox was drawn."""
    same: dict[str, set[str]] = {}
    with open(manifest, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["duplicate_of"]:
                same.setdefault(row["duplicate_of"], set()).add(row["path"])
                same.setdefault(row["path"], set()).add(row["duplicate_of"])
    return same


def with_duplicates(queries: list[EvalQuery], same: dict[str, set[str]]) -> list[EvalQuery]:
    return [dataclasses.replace(q, gold=tuple(dict.fromkeys(
        [g for entry in q.gold for g in (entry, *sorted(same.get(entry, ())))]))) for q in queries]


def askable(queries: list[EvalQuery], files: list[str]) -> tuple[list[EvalQuery], list[EvalQuery]]:
    """The questions with a gold document in these files, and the "I don't know" ones."""
    present = set(files)
    answerable = [q for q in queries if any(source_file(g) in present for g in q.gold)]
    return answerable, [q for q in queries if not q.gold]


def run_store(files: list[str], queries: list[EvalQuery], workdir: Path,
              config: Config) -> tuple[EvalReport, EvalReport, int, int]:
    """Ingest the files into a fresh store; the report on answerable and on idk questions,
    and how many documents and chunks the store holds."""
    brain = Brain(workdir / "store", config)
    brain.ingest([CORPUS / f for f in files], now=INGESTED)
    answerable, idk = askable(queries, files)

    def ask(question, now, pattern):
        return brain.ask(question, now=now, pattern=pattern).to_dict()

    return (evaluate(ask, answerable, CORPUS), evaluate(ask, idk, CORPUS), len(brain.documents()),
            brain.store.count())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[3, 5, 10, 30],
                   help="store sizes in source files (the full corpus is always added)")
    p.add_argument("--draws", type=int, default=10, help="random subsets per size")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--config", type=Path, help="a TOML file overriding config/default.toml")
    p.add_argument("--failures", action="store_true",
                   help="list each question whose gold is not first or that was not answered")
    args = p.parse_args(argv)

    config = load_config(args.config)
    queries = with_duplicates(load_queries(QUERIES), duplicates(MANIFEST))
    files = corpus_files(MANIFEST)
    print(f"Brain Query store-size sweep — commit {commit()}; {QUERIES.relative_to(REPO)}, "
          f"{len(files)} source files, {args.draws} draws per size, seed {args.seed}", flush=True)
    print(_header())
    rows = []
    for size in [s for s in args.sizes if s < len(files)] + [FULL]:
        n_draws = 1 if size == FULL else args.draws
        per_draw, pooled, idk, docs, chunks, started = [], [], [], [], [], time.perf_counter()
        answered, right = [], []
        for d in range(n_draws):
            if size == FULL:
                subset = files
            else:
                subset = draw(files, queries, size, np.random.default_rng([args.seed, size, d]))
            with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
                report, idk_report, n_docs, n_chunks = run_store(subset, queries, Path(tmp), config)
            outcomes = [o for o in report.outcomes if o.ranked]
            docs.append(n_docs)
            chunks.append(n_chunks)
            idk.extend(o.abstention_ok for o in idk_report.outcomes)
            answered.extend(not o.abstained for o in outcomes if o.query.expect == "answer")
            right.extend(o.answer_ok for o in outcomes if o.answer_ok is not None and o.query.expect == "answer")
            if outcomes:
                per_draw.append(sum(o.p_at_1 for o in outcomes) / len(outcomes))
                pooled.extend(o.p_at_1 for o in outcomes)
            if args.failures:
                for o in outcomes:
                    missed = [r for r in o.reasons() if r.startswith("top-1") or r == "abstained"]
                    if missed:
                        print(f"  [{size} #{d}] {o.query.id}: {'; '.join(missed)}")
        seconds = (time.perf_counter() - started) / n_draws
        rows.append((size, n_draws, statistics.mean(docs), statistics.mean(chunks), len(pooled),
                     statistics.median(per_draw) if per_draw else float("nan"),
                     statistics.mean(per_draw) if per_draw else float("nan"),
                     sum(pooled) / len(pooled) if pooled else float("nan"),
                     _share(answered), _share(right), _share(idk), seconds))
        print(_row(rows[-1]), flush=True)
    full = rows[-1][7]
    print("\nP@1 (pooled) minus the full corpus's: "
          + ", ".join(f"{r[0]}: {r[7] - full:+.3f}" for r in rows[:-1]))
    return 0


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def _header() -> str:
    return (f"{'size':>5}{'draws':>7}{'docs':>7}{'chunks':>8}{'asked':>7}{'P@1 med':>9}{'P@1 mean':>10}"
            f"{'P@1 pool':>10}{'answered':>10}{'ans ok':>8}{'idk ok':>8}{'s/draw':>8}\n" + "-" * 97)


def _row(row) -> str:
    size, draws, docs, chunks, asked, median, mean, pooled, answered, right, idk, seconds = row
    return (f"{size!s:>5}{draws:>7}{docs:>7.1f}{chunks:>8.1f}{asked:>7}{median:>9.3f}{mean:>10.3f}"
            f"{pooled:>10.3f}{answered:>10.3f}{right:>8.3f}{idk:>8.3f}{seconds:>8.1f}")


if __name__ == "__main__":
    sys.exit(main())
