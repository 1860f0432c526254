"""Our recurrence expansion compared with recurring-ical-events (issue 11, item 8).

    python benchmarks/recurrence_compare.py [--days 400]

For every recurring series (RRULE or RDATE) in the shipped fixtures' and
../shared/realdata's .ics files, the occurrences that take place (not excluded by EXDATE,
not cancelled; moved ones where they moved to) in the `--days` from each series' first
start: as `brainquery ask` computes them (ingest/calendar.py stores the series,
brainquery/query/occurrences.py expands it from the stored fields) and as
recurring-ical-events computes them from the .ics itself. Prints each disagreement and a
summary with the time each took. recurring-ical-events is not a dependency: install it to
run this (`pip install --no-deps recurring-ical-events x-wr-timezone`).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import icalendar  # noqa: E402

from brainquery.config import load_config  # noqa: E402
from brainquery.query.occurrences import CANCELLED, Series  # noqa: E402
from ingest.blob import Blob  # noqa: E402
from ingest.calendar import CalendarIngestor  # noqa: E402
from ingest.config import load_ingest_config  # noqa: E402
from ingest.document import Document  # noqa: E402
from ingest.registry import Context, default_registry  # noqa: E402

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
REALDATA = REPO.parent / "shared" / "realdata" / "calendar"


def ics_files() -> list[Path]:
    files = sorted(REPO.joinpath("fixtures").rglob("*.ics"))
    return files + (sorted(REALDATA.glob("*.ics")) if REALDATA.exists() else [])


def index_rows(docs: list[Document]) -> tuple[list[dict], list[float]]:
    """The fields the query index keeps for each event document."""
    rows, epochs = [], []
    for doc in docs:
        rows.append({**doc.meta, "doc_type": doc.doc_type, "title": doc.title, "source": doc.source,
                     "source_date": doc.source_date.isoformat() if doc.source_date else "",
                     "date_floating": doc.date_floating})
        epochs.append(doc.source_date.timestamp() if doc.source_date else float("nan"))
    return rows, epochs


def instant(value: date | datetime, zone) -> tuple:
    """A comparable key: an instant for a timed start (floating ones read in `zone`), the
    day for an all-day one."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=zone)
        return ("t", aware.astimezone(timezone.utc).replace(microsecond=0))
    return ("d", value)


def ours(series: Series, row: int, first: date, stop: date) -> set[tuple]:
    out = set()
    for o in series.occurrences(row, first, stop, timezone.utc):
        if o.status != CANCELLED and first <= o.start.date() < stop:
            out.add(("d", o.start.date()) if o.all_day else instant(o.start, o.start.tzinfo))
    return out


def theirs(calendar, uid: str, first: date, stop: date, zone) -> set[tuple]:
    import recurring_ical_events

    out = set()
    for event in recurring_ical_events.of(calendar).between(first, stop):
        if str(event.get("UID", "")) != uid or str(event.get("STATUS", "")).upper() == "CANCELLED":
            continue
        start = event["DTSTART"].dt
        day = start.date() if isinstance(start, datetime) else start
        if first <= day < stop:
            out.add(instant(start, zone))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=400)
    args = parser.parse_args(argv)
    ctx = Context(config=load_ingest_config(), now=NOW, registry=default_registry())
    events_cfg = load_config().events
    series_count = agree = 0
    our_times, their_times = [], []
    for path in ics_files():
        try:
            docs = [d for d in CalendarIngestor().ingest(Blob.from_path(path), ctx) if isinstance(d, Document)]
            calendar = icalendar.Calendar.from_ical(path.read_bytes())
        except Exception as err:
            print(f"{path.name}: unreadable ({err})")
            continue
        rows, epochs = index_rows(docs)
        series = Series(rows, epochs, events_cfg)
        import numpy as np

        series.doc_epoch = np.array(epochs)
        for row, doc in enumerate(rows):
            if doc.get("recurrence_id") or not (doc.get("rrule") or doc.get("rdates")) or not doc.get("uid"):
                continue
            if doc.get("rrule") and "COUNT" not in doc["rrule"] and "UNTIL" not in doc["rrule"]:
                pass
            start = docs[row].source_date
            if start is None:
                continue
            zone = series.zone(row, timezone.utc)
            first = start.astimezone(zone).date()
            stop = first + timedelta(days=args.days)
            t = time.perf_counter()
            mine = ours(series, row, first, stop)
            our_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            try:
                other = theirs(calendar, str(doc["uid"]), first, stop, zone)
            except Exception as err:
                other = {("error", f"{type(err).__name__}: {err}")}
            their_times.append(time.perf_counter() - t)
            series_count += 1
            if mine == other:
                agree += 1
                continue
            label = f"{path.relative_to(path.parents[1])} {doc.get('title')!r}"
            print(f"DIFFER {label}: ours {len(mine)}, recurring-ical-events {len(other)}")
            for key in sorted(mine - other, key=str)[:4]:
                print(f"    only ours: {key[1]}")
            for key in sorted(other - mine, key=str)[:4]:
                print(f"    only theirs: {key[1]}")
    print(f"\n{series_count} recurring series over {args.days} days: {agree} agree, "
          f"{series_count - agree} differ")
    if our_times:
        print(f"median ms per series: ours {1000 * statistics.median(our_times):.2f}, "
              f"recurring-ical-events {1000 * statistics.median(their_times):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
