"""Question latency, query-index build time and memory at several corpus sizes. Run by
hand; prints figures beside the issue's targets, asserts nothing.

    python benchmarks/query_bench.py                          # 1,000 / 20,000 / 100,000 chunks
    python benchmarks/query_bench.py --sizes 1000 20000 --questions 200
    python benchmarks/query_bench.py --sizes 20000 --profile  # + cProfile of the slowest stage

The corpus is generated (benchmarks/household_text.py: a family's mail, newsletters,
bills, receipts, notes and calendar over five years) and written straight into a fresh
temporary store, one chunk per document, with indexer-shaped metadata and vectors from
`model_cache.first_fit`: the file ingestors are skipped to save time (ingest_bench.py
measures them). Each size runs in child processes of its own, and its store is deleted
afterwards:

- write: generate the chunks, fit the embedder and embed (first_fit + transform), upsert.
- ask:   `query_index.build` from the store (the total), save it as arrays as `rebuild` does and
         load it back, then an Asker answers --questions questions after one warm-up; its
         peak RSS is the figure held to the memory target.
- parts: the build's parts one by one on the same store: the Chroma scan, the text
         analysis, `SparseBM25.fit`, `EvidenceGraph.fit`, the calendar expansion.

Question latency is per `Asker.ask` call; the stage columns split it into the router, the
whole-corpus BM25 + dense pass (`_prepare`), ranking, and the rest (answer extraction,
coverage, conflicts). The machine may be shared: read ratios, not absolutes.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from household_text import NOW, Household, questions  # beside this script

REPO = Path(__file__).resolve().parent.parent

# The targets: table row -> (figure, ((corpus size or None for every size, limit), ...)).
TARGETS = {
    "query p50 ms": ("p50_ms", ((20_000, 20.0), (100_000, 50.0))),
    "query p95 ms": ("p95_ms", ((20_000, 50.0),)),
    "graph build s": ("graph_s", ((100_000, 60.0),)),
    "peak RSS ask MB": ("peak_rss_ask_mb", ((None, 2048.0),)),
}
STAGES = ("route", "prepare", "rank", "answer")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _rss_mb() -> float:
    """Resident memory now (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return 0.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# ---- the children ----------------------------------------------------------------------
def child_write(store_dir: str, n: int, seed: int) -> dict:
    import numpy as np

    from brainquery.storage import model_cache
    from brainquery.config import load_config
    from brainquery.storage.store import Store

    config = load_config()
    start = time.perf_counter()
    chunks = list(Household(n, seed=seed, chunk_chars=config.chunking.chunk_chars).chunks())
    generate_s = time.perf_counter() - start
    ids = [c.id for c in chunks]
    texts = [model_cache.embed_text(str(c.meta["title"]), c.text) for c in chunks]
    store = Store(store_dir, config.store)
    start = time.perf_counter()
    model = model_cache.first_fit(store, config.embedding, ids, texts)
    vectors = model.transform(texts)
    embed_s = time.perf_counter() - start
    start = time.perf_counter()
    store.upsert(ids, [c.text for c in chunks], [c.meta for c in chunks], np.asarray(vectors))
    write_s = time.perf_counter() - start
    return {"n_chunks": store.count(), "generate_s": generate_s, "embed_s": embed_s,
            "write_s": write_s, "chars_per_chunk": statistics.mean(len(c.text) for c in chunks),
            "peak_rss_write_mb": _peak_rss_mb()}


class _StageClock:
    """Wraps an Asker's steps (instance attributes, the modules stay untouched) to time
    each call, and to profile one stage when asked."""

    def __init__(self, asker):
        self.current: dict[str, float] = {}
        self.profile_stage: str | None = None
        self.profiler: cProfile.Profile | None = None
        asker.router.route = self._wrap("route", asker.router.route)
        asker._prepare = self._wrap("prepare", asker._prepare)
        asker.ranker.rank = self._wrap("rank", asker.ranker.rank)

    def _wrap(self, stage: str, fn):
        def timed(*args, **kwargs):
            profiling = self.profiler is not None and stage == self.profile_stage
            if profiling:
                self.profiler.enable()
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.current[stage] = self.current.get(stage, 0.0) + time.perf_counter() - start
                if profiling:
                    self.profiler.disable()
        return timed


def child_ask(store_dir: str, n_questions: int, profile: bool) -> dict:
    from brainquery.query import query_index
    from brainquery.query.ask import Asker
    from brainquery.config import load_config
    from brainquery.storage.store import Store

    config = load_config()
    store = Store(store_dir, config.store)
    start = time.perf_counter()
    index = query_index.build(store, config)
    build_s = time.perf_counter() - start
    peak_build = _peak_rss_mb()
    start = time.perf_counter()
    # The cache format the store uses: arrays in an .npz (no pickle), read back verified.
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **query_index.to_arrays(index, config))
    blob = buffer.getvalue()
    save_s = time.perf_counter() - start
    start = time.perf_counter()
    with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
        index = query_index.from_arrays({k: npz[k] for k in npz.files}, config)
    load_s = time.perf_counter() - start
    cache_mb = len(blob) / 2**20
    del blob
    gc.collect()

    asker = Asker(index, config)
    clock = _StageClock(asker)
    asked = [q for _, q in questions(n_questions + 1)]
    asker.ask(asked[0], now=NOW, k=5)             # warm-up: first-call imports and caches
    totals, stages = [], {s: [] for s in STAGES}
    answered = 0
    for question in asked[1:]:
        clock.current = {}
        start = time.perf_counter()
        result = asker.ask(question, now=NOW, k=5)
        total = time.perf_counter() - start
        totals.append(total * 1000)
        answered += result.answer is not None
        for stage in STAGES[:-1]:
            stages[stage].append(clock.current.get(stage, 0.0) * 1000)
        stages["answer"].append((total - sum(clock.current.values())) * 1000)
    out = {"build_s": build_s, "cache_save_s": save_s, "cache_load_s": load_s, "cache_mb": cache_mb,
           "n_docs": index.n_docs, "n_occurrences": int(index.occ_doc.size),
           "graph_edges": int(index.graph.adjacency_.nnz // 2), "answered": answered,
           "p50_ms": _percentile(totals, 0.5), "p95_ms": _percentile(totals, 0.95), "max_ms": max(totals),
           "stages": {s: {"p50": _percentile(v, 0.5), "p95": _percentile(v, 0.95), "mean": statistics.mean(v)}
                      for s, v in stages.items()},
           "slowest": sorted(zip(totals, asked[1:]), reverse=True)[:5],
           "peak_rss_build_mb": peak_build, "peak_rss_ask_mb": _peak_rss_mb()}
    if profile:
        out["profile"] = _profile(asker, clock, asked, out["stages"])
    return out


def _profile(asker, clock: _StageClock, asked: list[str], stages: dict) -> str:
    slowest = max(STAGES, key=lambda s: stages[s]["mean"])
    clock.profiler = cProfile.Profile()
    if slowest == "answer":   # the rest of ask(): profile whole calls
        clock.profiler.enable()
        for question in asked[1:]:
            asker.ask(question, now=NOW, k=5)
        clock.profiler.disable()
    else:
        clock.profile_stage = slowest
        for question in asked[1:]:
            asker.ask(question, now=NOW, k=5)
    text = io.StringIO()
    stats = pstats.Stats(clock.profiler, stream=text)
    stats.sort_stats("cumulative").print_stats(15)
    return f"slowest stage by mean: {slowest} ({len(asked) - 1} questions)\n{text.getvalue()}"


def child_parts(store_dir: str) -> dict:
    import numpy as np

    from brainquery.query import query_index

    from brainquery.storage import model_cache
    from brainquery.query.bm25 import SparseBM25
    from brainquery.config import load_config
    from brainquery.query.evidence import EvidenceGraph
    from brainquery.storage.store import Store
    from brainquery.textproc import Analyzer

    config = load_config()
    store = Store(store_dir, config.store)
    out = {}

    def timed(name, fn):
        """Run one part; its seconds, the memory its result holds, and how far the
        process's peak rose above the memory before it (its working set)."""
        before = _rss_mb()
        start = time.perf_counter()
        value = fn()
        out[f"{name}_s"] = time.perf_counter() - start
        out[f"{name}_held_mb"] = _rss_mb() - before
        out[f"{name}_peak_mb"] = _peak_rss_mb() - before
        return value

    rows = timed("scan", lambda: list(store.scan_with_embeddings()))
    rows.sort(key=lambda row: row[0])
    metas = [row[2] for row in rows]
    texts = [model_cache.embed_text(str(m.get("title", "")), row[1]) for row, m in zip(rows, metas)]
    analyzer = Analyzer(config.text)
    tokens = timed("tokens", lambda: [analyzer.tokens(t) for t in texts])
    words = timed("words", lambda: [analyzer.words(query_index.unquoted(t)) for t in texts])
    groups = [query_index._group(m) for m in metas]
    doc_of = np.unique([str(m.get("doc_id", "")) for m in metas], return_inverse=True)[1]
    bm25 = timed("bm25", lambda: SparseBM25(config.bm25).fit(tokens))
    graph = timed("graph", lambda: EvidenceGraph(config.graph).fit(words, groups, docs=doc_of))
    docs = [m for m in metas if int(m.get("chunk_no", 0)) == 0]
    epoch = np.array([float(d.get("source_epoch", np.nan)) for d in docs])
    calendar = np.flatnonzero([d.get("doc_type") == "calendar_event" for d in docs])
    timed("calendar", lambda: query_index._occurrences(docs, calendar, epoch, config))
    out.update(vocab=len(bm25.vocab_), shingle_limit=graph.shingle_limit_,
               graph_edges=int(graph.adjacency_.nnz // 2))
    return out


def run_child(phase: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", phase, *args], cwd=REPO,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{phase} child failed ({out.returncode}):\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---- the parent --------------------------------------------------------------------------
def measure(n: int, n_questions: int, seed: int, profile: bool, tmp_root: str | None) -> dict:
    tmp = tempfile.mkdtemp(prefix=f"query-bench-{n}-", dir=tmp_root)
    store = str(Path(tmp) / "store")
    try:
        started = time.perf_counter()
        result = run_child("write", store, str(n), str(seed))
        result.update(run_child("ask", store, str(n_questions), "1" if profile else "0"))
        result.update(run_child("parts", store))
        result["store_mb"] = sum(p.stat().st_size for p in Path(store).rglob("*") if p.is_file()) / 2**20
        result["wall_s"] = time.perf_counter() - started
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


ROWS = (  # label, key, format
    ("n_chunks", "n_chunks", "{:.0f}"),
    ("store write s", "write_s", "{:.1f}"),
    ("embedding fit s", "embed_s", "{:.1f}"),
    ("Chroma scan s", "scan_s", "{:.1f}"),
    ("text analysis s", "analysis_s", "{:.1f}"),
    ("BM25 build s", "bm25_s", "{:.2f}"),
    ("graph build s", "graph_s", "{:.1f}"),
    ("calendar expand s", "calendar_s", "{:.2f}"),
    ("total index build s", "build_s", "{:.1f}"),
    ("cache MB / load s", ("cache_mb", "cache_load_s"), "{:.0f} / {:.2f}"),
    ("query p50 ms", "p50_ms", "{:.1f}"),
    ("query p95 ms", "p95_ms", "{:.1f}"),
    ("query max ms", "max_ms", "{:.1f}"),
    *((f"  {s} p50/p95 ms", (f"{s}_p50", f"{s}_p95"), "{:.1f} / {:.1f}") for s in STAGES),
    ("answered / asked", ("answered", "asked"), "{:.0f} / {:.0f}"),
    ("graph edges", "graph_edges", "{:.0f}"),
    ("calendar occurrences", "n_occurrences", "{:.0f}"),
    ("peak RSS ask MB", "peak_rss_ask_mb", "{:.0f}"),
    ("  build held: rows/tok/words", ("scan_held_mb", "tokens_held_mb", "words_held_mb"), "{:.0f}/{:.0f}/{:.0f}"),
    ("  graph fit peak +MB", "graph_peak_mb", "{:.0f}"),
    ("peak RSS write MB", "peak_rss_write_mb", "{:.0f}"),
    ("store on disk MB", "store_mb", "{:.0f}"),
    ("wall s", "wall_s", "{:.0f}"),
)


def target_text(label: str) -> str:
    _, limits = TARGETS.get(label, ("", ()))
    return ", ".join(f"<= {limit:g}" + (f" at {size // 1000}k" if size else "") for size, limit in limits)


def flatten(result: dict, n_questions: int) -> dict:
    flat = dict(result)
    flat["analysis_s"] = result["tokens_s"] + result["words_s"]
    flat["asked"] = n_questions
    for stage, figures in result["stages"].items():
        flat[f"{stage}_p50"], flat[f"{stage}_p95"] = figures["p50"], figures["p95"]
    return flat


def verdicts(flat: dict) -> list[str]:
    out = []
    for label, (key, limits) in TARGETS.items():
        for size, limit in limits:
            if size is None or size == flat["n_chunks"]:
                value = flat[key]
                out.append(f"{label} {value:.1f} {'<=' if value <= limit else '>'} {limit:g}: "
                           f"{'met' if value <= limit else 'MISSED'}")
    return out


def print_table(results: list[dict]) -> None:
    width = 30
    print(f"{'':{width}}" + "".join(f"{r['n_chunks']:>18,}" for r in results) + "   target")
    for label, key, fmt in ROWS:
        cells = []
        for r in results:
            values = [r[k] for k in key] if isinstance(key, tuple) else [r[key]]
            cells.append(fmt.format(*values))
        print(f"{label:{width}}" + "".join(f"{c:>18}" for c in cells) + f"   {target_text(label)}")
    for r in results:
        print(f"{r['n_chunks']:,} chunks: " + "; ".join(verdicts(r)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 20_000, 100_000])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the slowest stage of the questions (top 15 by cumtime)")
    parser.add_argument("--tmp", help="folder for the temporary stores (default: the system's)")
    parser.add_argument("--json", help="also write the raw figures to this file")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(REPO))
        phase, *rest = args.child
        if phase == "write":
            result = child_write(rest[0], int(rest[1]), int(rest[2]))
        elif phase == "ask":
            result = child_ask(rest[0], int(rest[1]), rest[2] == "1")
        else:
            result = child_parts(rest[0])
        print(json.dumps(result))
        return 0

    results = []
    for n in args.sizes:
        print(f"... {n:,} chunks", file=sys.stderr, flush=True)
        result = flatten(measure(n, args.questions, args.seed, args.profile, args.tmp), args.questions)
        results.append(result)
        for slow_ms, question in result["slowest"]:
            print(f"    slow: {slow_ms:7.1f} ms  {question}", file=sys.stderr)
    print_table(results)
    for r in results:
        if "profile" in r:
            print(f"\n---- profile at {r['n_chunks']:,} chunks; {r['profile']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
