"""Wall time of a command from start to exit, as a user at a terminal feels it: the
median of --runs runs of `brainquery --help`, `--version`, `ls` and `ask` over the
fixture household's store. Run by hand; prints figures beside the issue's targets.

    python benchmarks/startup_bench.py                    # this checkout
    python benchmarks/startup_bench.py --tree /tmp/old    # another checkout, for a before/after

Every command runs as `python -m brainquery ...` in a child process with the tree first
on PYTHONPATH. The store is `fixtures/corpus` ingested once by that tree (as
tests/conftest.py does: ingest clock pinned to 2026-11-21) into a temporary folder,
and one untimed `ask` first lets a store built by another version settle its caches.
Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, so nothing is written into the
tree) as an installed package has it, even when PYTHONDONTWRITEBYTECODE is set: otherwise
every run would compile every module it imports. Beside the wall time, the CPU time
(user + system) of the child is printed: a shared machine inflates it much less.
The machine may be shared: read the medians, and rerun when the load was high.
"""
from __future__ import annotations

import argparse
import os
import resource
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


def child_env(tree: Path, pycache: Path, compile_every_run: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if compile_every_run:
        return {**env, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    return {**env, "PYTHONPATH": str(tree), "PYTHONPYCACHEPREFIX": str(pycache)}


def run(env: dict[str, str], tree: Path, args: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "brainquery", *args], cwd=tree, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to time (default: this one)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per command (default 10)")
    parser.add_argument("--compile-every-run", action="store_true",
                        help="no bytecode cache: every run compiles the modules it imports")
    args = parser.parse_args()
    tree = args.tree.resolve()
    folder = Path(tempfile.mkdtemp(prefix="startup_bench-"))
    try:
        store = folder / "store"
        env = child_env(tree, folder / "pycache", args.compile_every_run)
        built = subprocess.run([sys.executable, "-m", "brainquery", "ingest", str(tree / "fixtures" / "corpus"),
                                "--store", str(store), "--now", "2026-11-21"], cwd=tree,
                               env=env, capture_output=True, text=True)
        if built.returncode not in (0, 1):
            print(built.stderr, file=sys.stderr)
            return 1
        for _label, template, _target in COMMANDS:   # warm-up: caches, bytecode, page cache
            run(env, tree, [a.format(store=store) for a in template])
        cached = "no bytecode cache" if args.compile_every_run else "bytecode cached"
        print(f"tree {tree}  (median of {args.runs} runs, seconds; {cached})")
        print(f"{'command':12} {'wall':>8} {'min':>8} {'max':>8} {'cpu':>8} {'target':>8}  exit")
        for label, template, target in COMMANDS:
            argv = [a.format(store=store) for a in template]
            walls, cpus, codes = [], [], set()
            for _ in range(args.runs):
                wall, cpu, code = run(env, tree, argv)
                walls.append(wall)
                cpus.append(cpu)
                codes.add(code)
            median = statistics.median(walls)
            verdict = "ok" if median <= target else "over"
            print(f"{label:12} {median:8.3f} {min(walls):8.3f} {max(walls):8.3f} "
                  f"{statistics.median(cpus):8.3f} {target:8.2f}  {','.join(map(str, sorted(codes)))}  {verdict}")
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
