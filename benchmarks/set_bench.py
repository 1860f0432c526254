"""What calendar_bench.py and ambiguity_bench.py share: each set of a fixtures folder
(files/ + questions.jsonl) ingested into a store of its own, every question asked at noon
UTC of its `now` day (as `brainquery ask --now` does), one table per set."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any, Callable

from locomo_bench import commit

from brainquery.brain import Brain
from brainquery.query.evaluate import noon_utc



def sets_in(root: Path) -> list[str]:
    """The sets of a fixtures folder: its subfolders holding questions, development sets first."""
    names = [p.parent.name for p in root.glob("*/questions.jsonl")]
    return sorted(names, key=lambda name: (name.startswith("heldout"), len(name), name))


def run(folder: Path, workdir: Path, load: Callable[[Path], list], evaluate: Callable[..., list]) -> list:
    brain = Brain(workdir / folder.name)
    questions = load(folder / "questions.jsonl")
    brain.ingest([folder / "files"], now=noon_utc(max(q.now for q in questions)))
    return evaluate(lambda q, now: brain.ask(q, now=now).to_dict(), questions, noon_utc)


def main(argv: list[str] | None, doc: str, title: str, root: Path, load: Callable[[Path], list],
         evaluate: Callable[..., list], table: Callable[[str, list, bool], Any]) -> int:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--set", choices=(*sets_in(root), "all"), default="all")
    p.add_argument("--failures", action="store_true", help="list every wrong outcome")
    args = p.parse_args(argv)
    print(f"Brain Query {title} — commit {commit()}")
    names = sets_in(root) if args.set == "all" else [args.set]
    with tempfile.TemporaryDirectory(prefix="set-bench-") as tmp:
        for name in names:
            print(table(name, run(root / name, Path(tmp), load, evaluate), args.failures), flush=True)
    return 0
