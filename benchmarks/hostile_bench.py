"""Cost of hostile sizes: seconds and peak RSS at 1, 2, 4, 8 MB. Run by hand; prints
figures, asserts nothing (tests/hostile/ holds the promises).

    python benchmarks/hostile_bench.py                     # titles, paragraphs, questions
    python benchmarks/hostile_bench.py --only paragraph --sizes 1 2
    python benchmarks/hostile_bench.py --repo ../other     # the same against another checkout

- title: one .eml whose Subject is N MB, ingested into a fresh store (every chunk is
  embedded as title + chunk: quadratic while titles were uncapped).
- paragraph: one note holding an N MB paragraph with no sentence end, ingested.
- question: `Brain.ask` with an N MB question (refused at scoring.max_question_chars), and
  the router alone on it (routing must be linear even below the cap).

Each figure comes from its own child process (peak RSS is that run's alone), killed after
--timeout seconds. Linear cost shows as time and memory above the baseline doubling with N.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MB = 1 << 20

PRELUDE = """
import json, resource, sys, time
from pathlib import Path
size = int(sys.argv[1]) << 20
work = Path(sys.argv[2])
def report(seconds, **extra):
    print(json.dumps({"seconds": seconds, **extra,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

TITLE = PRELUDE + """
from brainquery import Brain
path = work / "long-subject.eml"
path.write_bytes(b"From: a@example.org\\nTo: b@example.org\\nSubject: " + b"x" * size +
                 b"\\nDate: Mon, 10 Mar 2025 10:00:00 +0000\\nMessage-ID: <t@x>\\n\\nbody\\n")
brain = Brain(work / "store")
start = time.perf_counter()
summary = brain.ingest([path], progress=False)
report(time.perf_counter() - start, statuses=dict(summary.by_status()))
"""

PARAGRAPH = PRELUDE + """
from brainquery import Brain
path = work / "endless.txt"
path.write_text("word " * (size // 5), encoding="utf-8")
brain = Brain(work / "store")
start = time.perf_counter()
summary = brain.ingest([path], progress=False)
report(time.perf_counter() - start, statuses=dict(summary.by_status()), chunks=brain.store.count())
"""

QUESTION = PRELUDE + """
from datetime import datetime, timezone
from brainquery import Brain
phrase = "who did we use for the roof since last year and what size filter today "
question = phrase * (size // len(phrase))
now = datetime(2026, 11, 18, 12, tzinfo=timezone.utc)
brain = Brain(work / "store")
start = time.perf_counter()
try:
    brain.ask(question, now=now)
    refused = ""
except ValueError as err:
    refused = str(err)[:60]
asked = time.perf_counter() - start
from brainquery.config import load_config
from brainquery.query.router import load_router
router = load_router(load_config().router)
router.route(phrase, now)
start = time.perf_counter()
router.route(question, now)
report(asked, route_seconds=time.perf_counter() - start, refused=refused)
"""

KINDS = {"title": TITLE, "paragraph": PARAGRAPH, "question": QUESTION}


def measure(repo: Path, script: str, size_mb: int, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as work:
        try:
            proc = subprocess.run([sys.executable, "-c", script, str(size_mb), work],
                                  capture_output=True, text=True, timeout=timeout,
                                  env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin",
                                       "HOME": work})
        except subprocess.TimeoutExpired:
            return {"error": f"over {timeout:g} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:80]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8], metavar="MB")
    parser.add_argument("--only", choices=sorted(KINDS), nargs="+", default=list(KINDS))
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to measure")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per figure")
    args = parser.parse_args()
    print(f"{'kind':10} {'MB':>3} {'seconds':>8} {'peak RSS MB':>12}  notes")
    for kind in args.only:
        for size in args.sizes:
            got = measure(args.repo.resolve(), KINDS[kind], size, args.timeout)
            if "error" in got:
                print(f"{kind:10} {size:3} {'-':>8} {'-':>12}  {got['error']}", flush=True)
                continue
            notes = {k: v for k, v in got.items() if k not in ("seconds", "peak_rss_mb")}
            if "route_seconds" in notes:
                notes["route_seconds"] = round(notes["route_seconds"], 2)
            print(f"{kind:10} {size:3} {got['seconds']:8.2f} {got['peak_rss_mb']:12.0f}  "
                  f"{json.dumps(notes)}", flush=True)


if __name__ == "__main__":
    main()
