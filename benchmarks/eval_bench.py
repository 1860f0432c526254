"""The ranking report: development and held-out question sets, then LoCoMo, with the commit.

    python benchmarks/eval_bench.py                          # fixtures: development + held-out
    python benchmarks/eval_bench.py --locomo /data/locomo10_v2 [--locomo-set heldout]

Development (fixtures/queries.jsonl) is what weights were tuned on; the held-out sets
(config [evaluation] heldout_sets) and LoCoMo's seven held-out conversations are only
reported. Each set is ingested into a store of its own under a temporary folder.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from locomo_bench import commit
from locomo_bench import main as locomo_main

from brainquery.brain import Brain
from brainquery.config import load_config
from brainquery.query.evaluate import EvalReport, evaluate, load_queries

REPO = Path(__file__).resolve().parent.parent
INGESTED = datetime(2026, 11, 23, tzinfo=timezone.utc)


def run_set(path: Path, workdir: Path) -> EvalReport:
    corpus = path.parent / "corpus"
    brain = Brain(workdir / path.parent.name / path.stem)
    brain.ingest([corpus], now=INGESTED)
    return evaluate(lambda q, now, pattern: brain.ask(q, now=now, pattern=pattern).to_dict(),
                    load_queries(path), corpus)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--locomo", type=Path, help="LoCoMo data (see locomo_bench.py); omitted: skipped")
    p.add_argument("--locomo-set", choices=("dev", "heldout", "all"), default="dev")
    args = p.parse_args(argv)
    print(f"Brain Query ranking report — commit {commit()}")
    sets = [("development", REPO / "fixtures" / "queries.jsonl")]
    sets += [("held out", REPO / name) for name in load_config().evaluation.heldout_sets]
    held: list = []
    with tempfile.TemporaryDirectory(prefix="eval-bench-") as tmp:
        for role, path in sets:
            report = run_set(path, Path(tmp))
            if role == "held out":
                held.extend(report.outcomes)
            print(f"\n== {role}: {path.relative_to(REPO)}\n{report.format_table(failures=False)}", flush=True)
    print(f"\n== held out, pooled\n{EvalReport(held).format_table(failures=False)}")
    if args.locomo:
        print()
        locomo_main([str(args.locomo), "--set", args.locomo_set])
    return 0


if __name__ == "__main__":
    sys.exit(main())
