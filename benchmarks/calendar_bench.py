"""Calendar answers read from occurrences (issue 16): the development and held-out sets.

    python benchmarks/calendar_bench.py [--set dev|heldout|all] [--failures]

Each set (fixtures/calendar16/<set>/: dev and dev2 to tune on, heldout) is ingested into a store of its own; every question
is asked at noon UTC of its `now` day, as `brainquery ask --now` does. Tune on `dev` only;
`heldout` was written before any tuning and is only reported.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.query.event_eval import evaluate_events, format_outcomes, load_event_questions

REPO = Path(__file__).resolve().parent.parent
SETS = REPO / "fixtures" / "calendar16"


def noon(day: str) -> datetime:
    return datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)


def run(name: str, workdir: Path):
    folder = SETS / name
    brain = Brain(workdir / name)
    questions = load_event_questions(folder / "questions.jsonl")
    brain.ingest([folder / "files"], now=noon(max(q.now for q in questions)))
    return evaluate_events(lambda q, now: brain.ask(q, now=now).to_dict(), questions, noon)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", choices=("dev", "dev2", "heldout", "all"), default="all")
    p.add_argument("--failures", action="store_true", help="list every wrong answer")
    args = p.parse_args(argv)
    print(f"Brain Query calendar answers — commit {commit()}")
    names = ("dev", "dev2", "heldout") if args.set == "all" else (args.set,)
    with tempfile.TemporaryDirectory(prefix="calendar-bench-") as tmp:
        for name in names:
            print(format_outcomes(name, run(name, Path(tmp)), failures=args.failures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
