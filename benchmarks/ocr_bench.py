"""OCR engines compared on the receipt and invoice images of ../shared/realdata.

    python benchmarks/ocr_bench.py                    # every engine available here
    python benchmarks/ocr_bench.py --engines rapidocr --repeat 3

Each image goes through the photo ingestor with one engine at a time, as `ingest` reads it,
and is scored against MANIFEST.csv: the printed date (same day), the document type, and the
total where an expected amount is known (the upstream expected JSON or the manifest's
"amount="). Seconds are per image, the median over --repeat runs, after the engine has
loaded (its load time is printed apart). Prints figures, asserts nothing.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import re
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ingest import ocr  # noqa: E402
from ingest.blob import Blob  # noqa: E402
from ingest.config import load_ingest_config  # noqa: E402
from ingest.photo import PhotoIngestor  # noqa: E402
from ingest.registry import Context, default_registry  # noqa: E402
from ingest.sniff import magic  # noqa: E402

REALDATA = REPO.parent / "shared" / "realdata"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
_AMOUNT = re.compile(r"amount=([0-9.]+)")


def image_rows() -> list[dict[str, str]]:
    with open(REALDATA / "MANIFEST.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for row in rows:
        path = REALDATA / row["path"]
        if row["kind"] not in ("invoice", "receipt") or not path.exists():
            continue
        blob = Blob.from_path(path)
        if PhotoIngestor().claim(blob, magic(blob)) is not None:
            out.append(row)
    return out


def expected_total(row: dict[str, str]) -> float | None:
    """The upstream expected amount: its JSON beside a PDF of the same name, else the
    manifest's note."""
    stem = Path(row["path"]).stem
    expected = REALDATA / "expected" / "invoices" / f"{stem}.json"
    if expected.exists():
        data = json.loads(expected.read_text(encoding="utf-8"))
        data = data[0] if isinstance(data, list) else data
        if "amount" in data:
            return float(data["amount"])
    found = _AMOUNT.search(row["notes"])
    return float(found.group(1)) if found else None


def context(engine: str) -> Context:
    config = load_ingest_config()
    photo = dataclasses.replace(config.photo, ocr_engines=(engine,))
    return Context(config=dataclasses.replace(config, photo=photo), now=NOW,
                   registry=default_registry())


def run(engine: str, rows: list[dict[str, str]], repeat: int) -> list[dict]:
    ctx = context(engine)
    start = time.perf_counter()
    ocr.ocr_image(b"not an image", ctx.config.photo)    # load the engine (worker, models)
    print(f"{engine}: engine ready in {time.perf_counter() - start:.1f} s", flush=True)
    results = []
    for row in rows:
        blob = Blob.from_path(REALDATA / row["path"])
        times, doc = [], None
        for _ in range(repeat):
            start = time.perf_counter()
            [doc] = PhotoIngestor().ingest(blob, ctx)
            times.append(time.perf_counter() - start)
        want_total = expected_total(row)
        got_total = doc.meta.get("invoice_total")
        results.append({
            "image": Path(row["path"]).name,
            "date": doc.source_date.date().isoformat() if doc.source_date else "-",
            "date_ok": bool(doc.source_date) and row["expected_source_date"][:10]
            == doc.source_date.date().isoformat(),
            "type": doc.doc_type, "type_ok": doc.doc_type == row["expected_doc_type"],
            "total": got_total, "want_total": want_total,
            "total_ok": None if want_total is None else
            got_total is not None and abs(float(got_total) - want_total) < 0.005,
            "seconds": statistics.median(times)})
    return results


def table(engine: str, results: list[dict]) -> str:
    lines = [f"{'engine':<10} {'image':<36} {'date':<11} ok  {'type':<8} ok  "
             f"{'total':>9} {'want':>9} ok  {'s':>6}"]
    mark = {True: "y", False: "n", None: "-"}
    for r in results:
        total = "-" if r["total"] is None else f"{float(r['total']):.2f}"
        want = "-" if r["want_total"] is None else f"{r['want_total']:.2f}"
        lines.append(f"{engine:<10} {r['image']:<36} {r['date']:<11} {mark[r['date_ok']]:<3} "
                     f"{r['type']:<8} {mark[r['type_ok']]:<3} {total:>9} {want:>9} "
                     f"{mark[r['total_ok']]:<3} {r['seconds']:6.2f}")
    knowable = [r for r in results if r["total_ok"] is not None]
    lines.append(f"{engine:<10} {'SUMMARY':<36} dates {sum(r['date_ok'] for r in results)}/"
                 f"{len(results)}, types {sum(r['type_ok'] for r in results)}/{len(results)}, "
                 f"totals {sum(bool(r['total_ok']) for r in knowable)}/{len(knowable)}, "
                 f"median {statistics.median(r['seconds'] for r in results):.2f} s/image")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", nargs="+", default=list(ocr.ENGINES))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (REALDATA / "MANIFEST.csv").exists():
        sys.exit(f"{REALDATA} is absent")
    rows = image_rows()
    config = load_ingest_config().photo
    for engine in args.engines:
        if not ocr.ENGINES[engine].available(config):
            print(f"{engine}: not available here, skipped")
            continue
        print(table(engine, run(engine, rows, args.repeat)), flush=True)


if __name__ == "__main__":
    main()
