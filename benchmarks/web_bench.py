"""The page's latency over real HTTP, idle and while an ingest runs. Run by hand; prints
figures, asserts nothing.

    python benchmarks/web_bench.py                      # 3,000 notes ingested meanwhile
    python benchmarks/web_bench.py --notes 1000 --rounds 3

`brainquery ingest` puts fixtures/corpus in a fresh temporary store, `brainquery serve`
serves it on a free loopback port, and the fixture questions are asked `--rounds` times
through /api/ask and through the ask page (server-rendered HTML). Then a folder of
generated notes (benchmarks/household_text.py) is ingested from the API with
`"wait": false`, and the same questions are asked over and over until it is done: the
figures while it reads files and while it rebuilds the index say whether asking "keeps
working". The machine may be shared: read medians and ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from household_text import Household  # noqa: E402

DAY = "2026-11-18"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=3000, help="notes ingested during the asking")
    parser.add_argument("--rounds", type=int, default=5, help="passes over the questions when idle")
    args = parser.parse_args()
    questions = [json.loads(line)["question"]
                 for line in (REPO / "fixtures" / "queries.jsonl").read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="web-bench-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "BRAINQUERY_STORE": str(root / "store")}
        cli = [sys.executable, "-m", "brainquery"]
        subprocess.run([*cli, "ingest", str(REPO / "fixtures" / "corpus"), "--now", DAY],
                       env=env, check=True, capture_output=True)
        notes = _notes(root / "notes", args.notes)
        port = _free_port()
        started = time.perf_counter()
        server = subprocess.Popen([*cli, "serve", "--port", str(port), "--now", DAY], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_up(base, server)
            print(f"serve: up in {time.perf_counter() - started:.2f} s "
                  f"(store of fixtures/corpus, {len(questions)} questions)")
            api = [_timed(f"{base}/api/ask?q={urllib.parse.quote(q)}")[0]
                   for _ in range(args.rounds) for q in questions]
            page = [_timed(f"{base}/?q={urllib.parse.quote(q)}")[0]
                    for _ in range(args.rounds) for q in questions]
            docs = [_timed(f"{base}/documents")[0] for _ in range(args.rounds * 4)]
            _row("idle  /api/ask", api)
            _row("idle  ask page", page)
            _row("idle  /documents", docs)
            _during_ingest(base, notes, questions, statistics.median(api))
        finally:
            server.terminate()
            server.wait(timeout=30)


def _during_ingest(base: str, folder: Path, questions: list[str], idle_p50: float) -> None:
    body = json.dumps({"paths": [str(folder)], "wait": False}).encode()
    request = urllib.request.Request(f"{base}/api/ingest", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    job = json.load(urllib.request.urlopen(request))
    by_state: dict[str, list[float]] = {}
    errors = 0
    n = 0
    while True:
        state = json.load(urllib.request.urlopen(f"{base}/api/ingest/{job['id']}"))["state"]
        if state in ("done", "failed"):
            break
        seconds, status = _timed(f"{base}/api/ask?q={urllib.parse.quote(questions[n % len(questions)])}")
        errors += status != 200
        by_state.setdefault(state, []).append(seconds)
        n += 1
    took = time.perf_counter() - started
    print(f"ingest of {folder.name} ({len(list(folder.iterdir()))} files) from the API: {state} "
          f"in {took:.1f} s; {n} questions asked meanwhile, {errors} not answered with 200")
    for name, times in by_state.items():
        _row(f"while {name:8} /api/ask", times, idle_p50)


def _notes(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i, chunk in enumerate(Household(n, seed=23).chunks()):
        (folder / f"note-{i:05d}.md").write_text(chunk.text, encoding="utf-8")
    return folder


def _timed(url: str) -> tuple[float, int]:
    start = time.perf_counter()
    with urllib.request.urlopen(url) as response:
        response.read()
        status = response.status
    return time.perf_counter() - start, status


def _row(name: str, seconds: list[float], idle_p50: float | None = None) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    ratio = f"  ×{statistics.median(seconds) / idle_p50:.1f} idle" if idle_p50 else ""
    print(f"{name:28} n={len(ms):4}  p50 {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms{ratio}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_up(base: str, server: subprocess.Popen) -> None:
    for _ in range(600):
        if server.poll() is not None:
            raise SystemExit("brainquery serve exited")
        try:
            urllib.request.urlopen(f"{base}/api/documents").read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("brainquery serve did not come up")


if __name__ == "__main__":
    main()
