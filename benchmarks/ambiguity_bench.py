"""Ambiguous names asked back (issue 16): the development and held-out sets.

    python benchmarks/ambiguity_bench.py [--set dev|heldout|all] [--failures]

Each set (fixtures/ambiguity16/<set>/) is ingested into a store of its own; every question
is asked at noon UTC of its `now` day, as `brainquery ask --now` does. Prints per set the
share of ambiguous names asked back, of qualified questions asked back (wrongly), and for
the questions answered the gold document at 1 and the answer's containment. Tune on `dev`
only; `heldout` was written before any tuning and is only reported.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.query.ambiguity_eval import evaluate_ambiguity, format_outcomes, load_ambiguity_questions

REPO = Path(__file__).resolve().parent.parent
SETS = REPO / "fixtures" / "ambiguity16"


def noon(day: str) -> datetime:
    return datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)


def run(name: str, workdir: Path):
    folder = SETS / name
    brain = Brain(workdir / name)
    questions = load_ambiguity_questions(folder / "questions.jsonl")
    brain.ingest([folder / "files"], now=noon(max(q.now for q in questions)))
    return evaluate_ambiguity(lambda q, now: brain.ask(q, now=now).to_dict(), questions, noon)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", choices=("dev", "dev2", "heldout", "all"), default="all")
    p.add_argument("--failures", action="store_true", help="list every wrong outcome")
    args = p.parse_args(argv)
    print(f"Brain Query ambiguous names — commit {commit()}")
    names = ("dev", "dev2", "heldout") if args.set == "all" else (args.set,)
    with tempfile.TemporaryDirectory(prefix="ambiguity-bench-") as tmp:
        for name in names:
            print(format_outcomes(name, run(name, Path(tmp)), failures=args.failures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
