"""The cost of keeping the index current in a large store (issue 14). Run by hand; prints
figures beside the issue's targets, asserts nothing.

    python benchmarks/scale_bench.py                       # 100,000 chunks
    python benchmarks/scale_bench.py --sizes 100000 1000000
    python benchmarks/scale_bench.py --sizes 100000 --ingest-throughput   # + ingest_bench.py

The store of each size is generated once (benchmarks/household_text.py: a family's mail,
bills, newsletters, calendar..., one chunk per document, written straight into Chroma with
indexer-shaped metadata and vectors of `model_cache.first_fit`, as query_bench.py does)
under --data (default /work/data/scale/<size>, never inside the repository) and reused by
later runs. Every step runs in a child process of its own, so its peak RSS is its own:

- build:   `query_index.rebuild` from scratch (the Chroma scan, the text analysis, BM25,
           the graph, entities; then the cache files written), seconds and peak RSS;
- one / batch: new .eml files (1, then --batch) ingested with `Brain.ingest` into the full
           store by a fresh process, as cron would: wall time end to end, and the index
           part of it (`query_index.refresh`: loading the published index and its writer
           file, the update, publishing) with the update alone beside it. Each run adds
           its emails to the reused store (the store grows by 1 + --batch documents);
- ask:     question latency p50/p95 over --questions questions, warm (an Asker over the
           published index, one warm-up question first), and the process's peak RSS;
- cold:    `python -m brainquery ask` wall time in a new process (median of --cold runs).

--server URL (a `chroma run` server, e.g. http://127.0.0.1:8123) keeps the store there: it
is generated once (when the server's collection is empty), then every step runs as a client
of its own whose cache folder (XDG_CACHE_HOME) starts empty, as a second machine's would:
"build" is then that client's first index, read from the server, the embedding model
refitted from the server's texts (the fit is deterministic: its vectors are the ones
stored, written again), and the later steps reuse that client's cache.

--ingest-throughput also runs benchmarks/ingest_bench.py (10,000-message mbox throughput),
when it is there, and prints its output: the hook for the issue's emails/s figure.
The machine may be shared: read medians and ratios, not absolutes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from household_text import NOW, Household, questions  # beside this script

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = Path("/work/data/scale")
# The targets: row -> ((corpus size, limit), ...).
TARGETS = {
    "one email end to end s": ((100_000, 3.0), (1_000_000, 10.0)),
    "build s": ((1_000_000, 1200.0),),
    "peak RSS build MB": ((1_000_000, 4096.0),),
    "peak RSS ask MB": ((1_000_000, 4096.0),),
    "query p50 ms": ((1_000_000, 50.0),),
    "query p95 ms": ((1_000_000, 150.0),),
}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _quiet() -> None:
    import logging

    logging.basicConfig(level=logging.WARNING)


# ---- the children ----------------------------------------------------------------------
def child_generate(store_dir: str, n: int, seed: int) -> dict:
    """Write n generated chunks into a new store (in pages: a million never sit in memory
    twice)."""
    import numpy as np

    from brainquery.config import load_config
    from brainquery.storage import model_cache
    from brainquery.storage.store import Store

    config = load_config()
    household = Household(n, seed=seed, chunk_chars=config.chunking.chunk_chars)
    store = Store(store_dir, config.store)
    start = time.perf_counter()
    # The model is fitted on every chunk, as a store is right after a refit: an ingest into
    # it then updates the index (a store whose model was fitted on less than 1 /
    # refit_growth_ratio of it would refit on its next ingest).
    sample = [household.chunk(i) for i in range(n)]
    model = model_cache.first_fit(store, config.embedding, [c.id for c in sample],
                                  [model_cache.embed_text(str(c.meta["title"]), c.text) for c in sample])
    page = 20_000
    for lo in range(0, n, page):
        chunks = [household.chunk(i) for i in range(lo, min(lo + page, n))]
        vectors = model.transform([model_cache.embed_text(str(c.meta["title"]), c.text) for c in chunks])
        store.upsert([c.id for c in chunks], [c.text for c in chunks], [c.meta for c in chunks],
                     np.asarray(vectors))
    return {"n_chunks": store.count(), "generate_s": time.perf_counter() - start}


def _timed(clocks: dict[str, float], name: str, fn):
    """`fn`, adding the seconds of every call to clocks[name]."""
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            clocks[name] = clocks.get(name, 0.0) + time.perf_counter() - start
    return wrapper


def child_build(store_dir: str) -> dict:
    from brainquery.config import load_config
    from brainquery.query import query_index
    from brainquery.storage import model_cache
    from brainquery.storage.store import Store

    config = load_config()
    store = Store(store_dir, config.store)
    clocks = {"refit_s": 0.0}
    model_cache.refit_from_store = _timed(clocks, "refit_s", model_cache.refit_from_store)
    start = time.perf_counter()
    with store.writer():
        index = query_index.rebuild(store, config)
    return {"build_s": time.perf_counter() - start, "peak_rss_build_mb": _peak_rss_mb(), **clocks,
            "n_chunks": index.n_chunks, "graph_edges": int(index.graph.adjacency_.nnz // 2),
            "cache_mb": (store.cache_dir / query_index.INDEX_FILE).stat().st_size / 2**20}


def child_ingest(store_dir: str, folder: str) -> dict:
    """Brain.ingest of a folder of new emails, timed end to end and in its index part."""
    from brainquery import Brain
    from brainquery.query import index_update, query_index

    clocks: dict[str, float] = {}
    query_index.refresh = _timed(clocks, "index_s", query_index.refresh)
    index_update.update = _timed(clocks, "update_s", index_update.update)
    query_index.rebuild = _timed(clocks, "rebuild_s", query_index.rebuild)
    query_index.publish = _timed(clocks, "publish_s", query_index.publish)
    start = time.perf_counter()
    brain = Brain(store_dir)
    summary = brain.ingest([folder], now=NOW)
    wall = time.perf_counter() - start
    return {"wall_s": wall, **clocks, "statuses": summary.to_dict()["statuses"],
            "peak_rss_ingest_mb": _peak_rss_mb()}


def child_ask(store_dir: str, n_questions: int) -> dict:
    from brainquery.config import load_config
    from brainquery.query import query_index
    from brainquery.query.ask import Asker
    from brainquery.storage.store import Store

    config = load_config()
    store = Store(store_dir, config.store, read_only=True)
    start = time.perf_counter()
    index = query_index.open_index(store, config)
    load_s = time.perf_counter() - start
    asker = Asker(index, config, query_index.open_router(store, config))
    asked = [q for _, q in questions(n_questions + 1)]
    asker.ask(asked[0], now=NOW, k=5)
    totals = []
    for question in asked[1:]:
        start = time.perf_counter()
        asker.ask(question, now=NOW, k=5)
        totals.append((time.perf_counter() - start) * 1000)
    return {"load_s": load_s, "p50_ms": statistics.median(totals),
            # the 19th of 20-quantiles, interpolated between samples: the 95th percentile
            "p95_ms": statistics.quantiles(totals, n=20, method="inclusive")[-1],
            "peak_rss_ask_mb": _peak_rss_mb()}


def child_count(store_dir: str) -> dict:
    from brainquery.config import load_config
    from brainquery.storage.store import Store

    return {"n_chunks": Store(store_dir, load_config().store).count()}


CHILDREN = {"generate": child_generate, "build": child_build, "ingest": child_ingest, "ask": child_ask,
            "count": child_count}


# ---- the parent ------------------------------------------------------------------------
CHILD_ENV: dict[str, str] = {}   # what every child's environment adds (--server: its cache folder)


def _run_child(name: str, *args) -> dict:
    env = {**os.environ, **CHILD_ENV,
           "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run([sys.executable, __file__, "--child", name, *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=Path(__file__).parent)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _write_emails(folder: Path, count: int, tag: str) -> None:
    """`count` new messages as .eml files (generated like the store's mail, with ids no
    earlier run used)."""
    household = Household(1000)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        rng = random.Random(f"{tag}:{i}")
        subject, text, meta = household._email(rng, i)
        msg = EmailMessage()
        msg["From"] = meta["from"]
        msg["To"] = "family@example.org"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(NOW)
        msg["Message-ID"] = f"<scale-{tag}-{i}@example.org>"
        msg.set_content(text)
        (folder / f"{tag}-{i:04d}.eml").write_bytes(bytes(msg))


def _cold_ask(store_dir: str, runs: int) -> float:
    env = {**os.environ, **CHILD_ENV,
           "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "brainquery", "ask", "when is the next dentist appointment",
                        "--store", store_dir], capture_output=True, env=env, cwd=tempfile.gettempdir())
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def run_size(n: int, data: Path, args) -> dict:
    figures: dict = {"size": n}
    if args.server:
        store_dir = args.server
        CHILD_ENV["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="scale-generator-cache-")
        if _run_child("count", store_dir)["n_chunks"] == 0:
            figures["generate"] = _run_child("generate", store_dir, n, args.seed)
        # Every later step is a client that has never seen this store.
        CHILD_ENV["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="scale-client-cache-")
    else:
        store_dir = data / str(n)
        if not (store_dir / "chroma.sqlite3").exists():
            figures["generate"] = _run_child("generate", store_dir, n, args.seed)
    if not args.skip_build:
        figures["build"] = _run_child("build", store_dir)
    tag = f"{int(time.time())}"
    with tempfile.TemporaryDirectory(prefix="scale-mail-") as tmp:
        one, batch = Path(tmp) / "one", Path(tmp) / "batch"
        _write_emails(one, 1, f"one-{tag}")
        _write_emails(batch, args.batch, f"batch-{tag}")
        figures["one"] = _run_child("ingest", store_dir, one)
        figures["batch"] = _run_child("ingest", store_dir, batch)
    figures["ask"] = _run_child("ask", store_dir, args.questions)
    figures["cold_ask_s"] = _cold_ask(str(store_dir), args.cold)
    return figures


def _table(results: list[dict]) -> str:
    rows = [
        ("build s", lambda r: r.get("build", {}).get("build_s")),
        ("  of which model refit s", lambda r: r.get("build", {}).get("refit_s")),
        ("peak RSS build MB", lambda r: r.get("build", {}).get("peak_rss_build_mb")),
        ("index file MB", lambda r: r.get("build", {}).get("cache_mb")),
        ("one email end to end s", lambda r: r["one"]["wall_s"]),
        ("  index part s", lambda r: r["one"].get("index_s")),
        ("  of which update s", lambda r: r["one"].get("update_s")),
        ("  of which publish s", lambda r: r["one"].get("publish_s")),
        ("  of which rebuild s", lambda r: r["one"].get("rebuild_s")),
        ("batch end to end s", lambda r: r["batch"]["wall_s"]),
        ("  index part s", lambda r: r["batch"].get("index_s")),
        ("  of which update s", lambda r: r["batch"].get("update_s")),
        ("  of which publish s", lambda r: r["batch"].get("publish_s")),
        ("documents ingested", lambda r: float(r["one"]["statuses"].get("ingested", 0)
                                             + r["batch"]["statuses"].get("ingested", 0))),
        ("peak RSS ingest MB", lambda r: max(r["one"]["peak_rss_ingest_mb"], r["batch"]["peak_rss_ingest_mb"])),
        ("query p50 ms", lambda r: r["ask"]["p50_ms"]),
        ("query p95 ms", lambda r: r["ask"]["p95_ms"]),
        ("peak RSS ask MB", lambda r: r["ask"]["peak_rss_ask_mb"]),
        ("index load (ask) s", lambda r: r["ask"]["load_s"]),
        ("cold `ask` wall s", lambda r: r["cold_ask_s"]),
    ]
    head = f"{'':28}" + "".join(f"{r['size']:>14,}" for r in results) + "   target"
    lines = [head]
    for label, get in rows:
        cells = []
        for r in results:
            value = get(r)
            cells.append(f"{value:>14.3f}" if isinstance(value, float) else f"{'-':>14}")
        target = "; ".join(f"<= {limit:g} at {size:,}" for size, limit in TARGETS.get(label.strip(), ()))
        lines.append(f"{label:28}" + "".join(cells) + (f"   {target}" if target else ""))
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        _quiet()
        name, rest = sys.argv[2], sys.argv[3:]
        fn = CHILDREN[name]
        typed = [int(a) if a.isdigit() else a for a in rest]
        print(json.dumps(fn(*typed)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--cold", type=int, default=3, help="cold `ask` runs (the median is shown)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-build", action="store_true", help="reuse the published index")
    parser.add_argument("--server", help="a Chroma server's URL (`chroma run`): the store lives there, "
                                         "and each run's client starts with an empty cache folder")
    parser.add_argument("--ingest-throughput", action="store_true",
                        help="also run benchmarks/ingest_bench.py (10,000-message mbox) and print it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if REPO in args.data.resolve().parents or args.data.resolve() == REPO:
        parser.error("--data must be outside the repository")
    results = []
    for n in args.sizes:
        results.append(run_size(n, args.data, args))
        print(json.dumps(results[-1]) if args.json else f"done: {n:,} chunks", flush=True)
    print(_table(results))
    bench = Path(__file__).parent / "ingest_bench.py"
    if args.ingest_throughput and bench.exists():
        print(subprocess.run([sys.executable, str(bench)], capture_output=True, text=True).stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
