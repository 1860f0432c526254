"""The household corpus goes in with the dates, date sources and types its builder planted
(fixtures/corpus_manifest.csv is the golden file, written by fixtures/build_corpus.py)."""
from __future__ import annotations

import collections
import csv
from datetime import datetime, timezone

import pytest
from conftest import FIXTURES, INGEST_NOW

from brainquery import Brain
from ingest.dates import zone

CORPUS = FIXTURES / "corpus"
with open(FIXTURES / "corpus_manifest.csv", newline="", encoding="utf-8") as _fh:
    ROWS = list(csv.DictReader(_fh))


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    brain = Brain(tmp_path_factory.mktemp("golden") / "store")
    summary = brain.ingest([CORPUS], now=INGEST_NOW)
    return brain, summary


def _line_for(row, lines):
    """The report line a manifest row describes ("file.ics#N" is the N-th event of a file)."""
    path, _, part = row["path"].partition("#")
    source = str((CORPUS / path).resolve())
    if row["attachment"]:
        matches = [l for l in lines if l.source == source and l.attachment == row["attachment"]]
    elif path.endswith(".mbox"):
        matches = [l for l in lines if l.source == f"{source}#{part}"]
    else:
        matches = [l for l in lines if l.source == source and not l.attachment]
        if part:
            matches = matches[int(part):int(part) + 1]
    assert matches, f"no report line for {row['path']} {row['attachment']}"
    return matches[0]


def test_everything_goes_in(ingested):
    _, summary = ingested
    assert summary.exit_code == 0, [l.error for l in summary.failures]
    statuses = summary.by_status()
    duplicates = sum(1 for r in ROWS if r["duplicate_of"])
    assert statuses["skipped"] == duplicates
    assert statuses["ingested"] == len(ROWS) - duplicates


@pytest.mark.parametrize("row", [pytest.param(r, id=f"{r['path']}|{r['attachment']}") for r in ROWS])
def test_document_matches_its_manifest_row(ingested, row):
    _, summary = ingested
    line = _line_for(row, summary.lines)
    if row["duplicate_of"]:
        assert line.status == "skipped" and "duplicate" in line.error
        return
    assert line.doc_type == row["doc_type"]
    assert line.date_source == row["date_source"]
    if row["source_date"]:
        expected = datetime.fromisoformat(row["source_date"])
        got = datetime.fromisoformat(line.source_date)
        if "T" in row["source_date"] and expected.tzinfo is None:
            # A floating wall clock (EXIF without an offset) is kept as written.
            floating = zone(ingested[0].config.ingest.ingest.floating_timezone)
            assert got.astimezone(floating).replace(tzinfo=None) == expected
        elif "T" in row["source_date"]:
            assert got == expected
        else:
            assert got.astimezone(timezone.utc).date() == expected.date()


def test_listing_has_one_line_per_document(ingested):
    brain, _ = ingested
    docs = brain.documents()
    assert len(docs) == sum(1 for r in ROWS if not r["duplicate_of"])
    assert collections.Counter(d["doc_type"] for d in docs) == collections.Counter(
        r["doc_type"] for r in ROWS if not r["duplicate_of"])
