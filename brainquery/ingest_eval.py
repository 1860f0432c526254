"""Score an ingest report against a MANIFEST.csv of expected dates and types.

    python -m brainquery.ingest_eval ../shared/realdata [--store DIR]

Rules (those of shared/realdata/README.md): one report line per file; for a container the
line of its lowest-numbered part ("x.mbox#0"); attachments are not scored; an unreadable
file should still have a line (doc_type "unknown"). `date_day` compares the UTC day for an
aware expected value and the written day for a naive or date-only one; `date_min` the
minute, where the expected value has a time.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

from .storage.indexer import ReportLine


@dataclasses.dataclass(frozen=True)
class Outcome:
    path: str
    expected_type: str
    got_type: str
    expected_date: str
    got_date: str | None
    day_ok: bool | None      # None: no expected date
    minute_ok: bool | None   # None: no expected time

    @property
    def type_ok(self) -> bool:
        return self.expected_type == self.got_type


@dataclasses.dataclass(frozen=True)
class Scores:
    outcomes: tuple[Outcome, ...]

    def _rate(self, values: Iterable[bool | None]) -> tuple[int, int]:
        judged = [v for v in values if v is not None]
        return sum(judged), len(judged)

    @property
    def date_day(self) -> tuple[int, int]:
        return self._rate(o.day_ok for o in self.outcomes)

    @property
    def date_min(self) -> tuple[int, int]:
        return self._rate(o.minute_ok for o in self.outcomes)

    @property
    def doc_type(self) -> tuple[int, int]:
        return self._rate(o.type_ok for o in self.outcomes)

    def table(self) -> str:
        lines = []
        for name, (hit, total) in (("date_day", self.date_day), ("date_min", self.date_min),
                                   ("doc_type", self.doc_type)):
            lines.append(f"{name:9} {hit:4d}/{total:<4d} {hit / max(total, 1):6.1%}")
        for o in self.outcomes:
            if o.day_ok is False or not o.type_ok:
                lines.append(f"  miss {o.path}: date {o.got_date} (expected {o.expected_date or '-'}), "
                             f"type {o.got_type} (expected {o.expected_type})")
        return "\n".join(lines)


def manifest_rows(root: Path) -> list[dict[str, str]]:
    with open(root / "MANIFEST.csv", newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["kind"] != "expected_json"]


def score(lines: Sequence[ReportLine], rows: Sequence[dict[str, str]], root: Path) -> Scores:
    by_source = _top_level_lines(lines)
    outcomes = []
    for row in rows:
        line = by_source.get(str((root / row["path"]).resolve()))
        got_type = line.doc_type if line else "missing"
        got_date = line.source_date if line else None
        expected = row["expected_source_date"]
        day_ok = minute_ok = None
        if expected:
            day_ok = _day(got_date) == _expected_day(expected)
            if "T" in expected:
                minute_ok = _minute(got_date) == _expected_minute(expected)
        outcomes.append(Outcome(row["path"], row["expected_doc_type"], got_type, expected,
                                got_date, day_ok, minute_ok))
    return Scores(tuple(outcomes))


_PART = re.compile(r"#(\d+)$")


def _top_level_lines(lines: Sequence[ReportLine]) -> dict[str, ReportLine]:
    """file path → its scored line: the lowest-numbered part, attachments ignored."""
    best: dict[str, tuple[int, ReportLine]] = {}
    for line in lines:
        if line.attachment:
            continue
        match = _PART.search(line.source)
        path = line.source[: match.start()] if match else line.source
        part = int(match.group(1)) if match else -1
        if path not in best or part < best[path][0]:
            best[path] = (part, line)
    return {path: line for path, (_, line) in best.items()}


def _expected_day(value: str) -> str:
    parsed = datetime.fromisoformat(value)
    return (parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed).date().isoformat()


def _expected_minute(value: str) -> str:
    parsed = datetime.fromisoformat(value)
    parsed = parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed
    return parsed.strftime("%Y-%m-%dT%H:%M")


def _day(value: str | None) -> str | None:
    return None if not value else datetime.fromisoformat(value).astimezone(timezone.utc).date().isoformat()


def _minute(value: str | None) -> str | None:
    if not value:
        return None
    return datetime.fromisoformat(value).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M")


def run(root: Path, store: str | None = None) -> Scores:
    from .brain import Brain

    with tempfile.TemporaryDirectory() as tmp:
        brain = Brain(store or Path(tmp) / "store")
        folders = [root / sub for sub in sorted(p.name for p in root.iterdir())
                   if (root / sub).is_dir() and sub != "expected"]
        summary = brain.ingest(folders)
    return score(summary.lines, manifest_rows(root), root)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder with MANIFEST.csv")
    parser.add_argument("--store", help="store to ingest into (default: a temporary one)")
    args = parser.parse_args(argv)
    from .cli import quiet_parsers

    quiet_parsers()
    print(run(args.root.resolve(), args.store).table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
