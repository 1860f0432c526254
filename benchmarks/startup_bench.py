"""Wall time of a command from start to exit, as a user at a terminal feels it: the
median of --runs runs of `brainquery --help`, `--version`, `ls` and `ask` over the
fixture household's store. Run by hand; prints figures beside the issue's targets.

    python benchmarks/startup_bench.py                    # this checkout
    python benchmarks/startup_bench.py --tree /tmp/old    # another checkout, for a before/after

Every command runs as `python -m brainquery ...` in a child process with the tree first
on PYTHONPATH. The store is `fixtures/corpus` ingested once by that tree (as
tests/conftest.py does: ingest clock pinned to 2026-11-21) into a temporary folder,
and one untimed `ask` first lets a store built by another version settle its caches.
The machine may be shared: read the medians, and rerun when the load was high.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTION = "What size is our HVAC filter?"
# (label, arguments after `brainquery`, target seconds from issue 11)
COMMANDS = (
    ("--help", ["--help"], 0.2),
    ("--version", ["--version"], 0.2),
    ("ls", ["ls", "--store", "{store}"], 0.5),
    ("ask", ["ask", QUESTION, "--now", "2026-11-18", "--store", "{store}"], 0.7),
)


def run(tree: Path, args: list[str]) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "brainquery", *args], cwd=tree, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to time (default: this one)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per command (default 10)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    folder = Path(tempfile.mkdtemp(prefix="startup_bench-"))
    try:
        store = folder / "store"
        built = subprocess.run([sys.executable, "-m", "brainquery", "ingest", str(tree / "fixtures" / "corpus"),
                                "--store", str(store), "--now", "2026-11-21"], cwd=tree,
                               env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
        if built.returncode not in (0, 1):
            print(built.stderr, file=sys.stderr)
            return 1
        run(tree, ["ask", QUESTION, "--store", str(store)])  # warm-up: caches, page cache
        print(f"tree {tree}  (median of {args.runs} runs, seconds)")
        print(f"{'command':12} {'median':>8} {'min':>8} {'max':>8} {'target':>8}  exit")
        for label, template, target in COMMANDS:
            argv = [a.format(store=store) for a in template]
            times, codes = [], set()
            for _ in range(args.runs):
                seconds, code = run(tree, argv)
                times.append(seconds)
                codes.add(code)
            median = statistics.median(times)
            verdict = "ok" if median <= target else "over"
            print(f"{label:12} {median:8.3f} {min(times):8.3f} {max(times):8.3f} {target:8.2f}  "
                  f"{','.join(map(str, sorted(codes)))}  {verdict}")
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
