"""Ingest throughput and peak memory. Run by hand; prints figures, asserts nothing.

    python benchmarks/ingest_bench.py                 # fixtures + 10,000 generated emails
    python benchmarks/ingest_bench.py --emails 2000 --repeat 1

Each run ingests into a fresh temporary store in a child process, so peak RSS is that
run's alone. A second line says where the time went: Chroma writes (the time the ingest
waits for them: a batch written behind the reading is hidden), the embedding model's
fit and its vectors, the query index (reading the store back, the chunk analysis, the
entities, publishing, the rest) and what is left: reading, parsing and chunking. Medians
over --repeat runs; the machine is shared, so read ratios, not absolutes.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import json, resource, sys, time
from brainquery import Brain
from brainquery.query import chunk_analysis, query_index
from brainquery.storage import model_cache
from brainquery.storage.embedding import DenseEmbedder
from brainquery.storage.indexer import Indexer
from brainquery.storage.store import Store

clocks = {}

def timed(owner, name, key):
    fn = getattr(owner, name)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            clocks[key] = clocks.get(key, 0.0) + time.perf_counter() - start
    setattr(owner, name, wrapper)

# Where the time goes: the parts below are timed where they run (each once, none inside
# another); what is left is reading, parsing and chunking the input.
# (A write queued behind the reading, [store] write_queue, counts only while the ingest waits
# for it: the time a batch takes to write while the next is parsed is hidden.)
for owner, name, key in [(Indexer, "_write", "chroma_write"), (Indexer, "_drain", "chroma_write"),
                         (Store, "update_embeddings", "chroma_write"),
                         (model_cache, "first_fit", "embed_fit"), (DenseEmbedder, "transform", "embed"),
                         (query_index, "_scan", "index_read"), (chunk_analysis, "analyse", "index_analysis"),
                         (chunk_analysis, "entities", "index_entities"), (query_index, "publish", "index_publish")]:
    timed(owner, name, key)
timed(query_index, "refresh", "index")
brain = Brain(sys.argv[1])
start = time.perf_counter()
summary = brain.ingest(sys.argv[2:], progress=False)
seconds = time.perf_counter() - start
statuses = summary.by_status()
index = clocks.pop("index", 0.0)
clocks["index_other"] = index - sum(v for k, v in clocks.items() if k.startswith("index_"))
clocks["read_parse_chunk"] = seconds - index - sum(v for k, v in clocks.items() if not k.startswith("index_"))
print(json.dumps({"seconds": seconds, "documents": statuses["ingested"],
                  "failed": statuses["failed"], "chunks": brain.store.count(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "parts": clocks}))
"""

SENDERS = ["Maple Grove Elementary <office@maplegrove.example>", "Coach Dana <dana@soccer.example>",
           "Cedar Creek Animal Hospital <front@cedarcreek.example>", "Grandma <gran@example.org>",
           "City Utilities <billing@utility.example>", "Summit Ridge Roofing <info@summitridge.example>"]
TOPICS = ["field trip permission slip", "practice moved to Thursday", "Biscuit's vaccine reminder",
          "your monthly statement", "roof inspection quote", "Sunday dinner plans",
          "parent-teacher conference schedule", "furnace filter replacement", "library books due"]
FILLER = ("Please let us know by Friday. The schedule may change if the weather turns. "
          "Thanks again for your help with everything this month. ")


def generate_messages(count: int, seed: int = 7):
    """`count` varied household messages (fixed seed: the same corpus every run)."""
    rng = random.Random(seed)
    start = datetime(2022, 1, 1, tzinfo=timezone.utc)
    for n in range(count):
        msg = EmailMessage()
        msg["From"] = rng.choice(SENDERS)
        msg["To"] = "family@example.org"
        topic = rng.choice(TOPICS)
        msg["Subject"] = f"{topic.capitalize()} #{n}"
        msg["Date"] = format_datetime(start + timedelta(minutes=rng.randrange(2_400_000)))
        msg["Message-ID"] = f"<bench-{n}@example.org>"
        paragraphs = [f"Hello! About the {topic}: item {rng.randrange(10_000)}."]
        paragraphs += [FILLER * rng.randint(1, 6) for _ in range(rng.randint(1, 4))]
        msg.set_content("\n\n".join(paragraphs))
        yield bytes(msg)


def write_mbox(count: int, out: Path) -> Path:
    path = out / f"household-{count}.mbox"
    with open(path, "wb") as fh:
        for raw in generate_messages(count):
            fh.write(b"From bench@example.org Thu Jan  1 00:00:00 2026\n")
            fh.write(raw.replace(b"\nFrom ", b"\n>From ") + b"\n")
    return path


def write_eml_folder(count: int, out: Path) -> Path:
    folder = out / f"household-{count}-eml"
    folder.mkdir()
    for n, raw in enumerate(generate_messages(count)):
        (folder / f"{n:06d}.eml").write_bytes(raw)
    return folder


def run_once(paths: list[Path]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", CHILD, str(Path(tmp) / "store"), *map(str, paths)],
                             cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(name: str, paths: list[Path], repeat: int) -> None:
    runs = [run_once(paths) for _ in range(repeat)]
    seconds = statistics.median(r["seconds"] for r in runs)
    docs = runs[0]["documents"]
    print(f"{name:28} docs={docs:6d} chunks={runs[0]['chunks']:6d} failed={runs[0]['failed']:3d} "
          f"median={seconds:7.2f}s  {docs / seconds:8.1f} docs/s  "
          f"peak_rss={max(r['peak_rss_mb'] for r in runs):7.1f} MB  (runs={repeat})")
    parts = sorted(runs[0]["parts"], key=lambda k: -runs[0]["parts"][k])
    print(f"{'':28} where the time goes (median s): " + ", ".join(
        f"{k} {statistics.median(r['parts'].get(k, 0.0) for r in runs):.2f}" for k in parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emails", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    report("fixtures/corpus", [REPO / "fixtures" / "corpus"], args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        report(f"generated mbox ({args.emails})", [write_mbox(args.emails, Path(tmp))], args.repeat)
        report(f"generated .eml files ({args.emails})", [write_eml_folder(args.emails, Path(tmp))],
               args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
