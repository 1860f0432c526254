"""The fixture corpus keeps three promises:

1. `fixtures/build_corpus.py` rebuilds it byte for byte (the committed `fixtures/corpus/`
   and `fixtures/corpus_manifest.csv` are exactly what the script writes);
2. the manifest describes every file and every document type;
3. the ground truth in the manifest agrees with what the files themselves say, by the date
   rules the ingestors follow, and the facts FACTS.md plants are really in the documents.
"""
from __future__ import annotations

import csv
import email
import email.policy
import email.utils
import hashlib
import importlib.util
import io
import mailbox
import re
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from icalendar import Calendar
from PIL import Image
from pypdf import PdfReader

from ingest.document import DOC_TYPES

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
CORPUS = FIXTURES / "corpus"
MANIFEST = FIXTURES / "corpus_manifest.csv"
FACTS = FIXTURES / "FACTS.md"


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_corpus", FIXTURES / "build_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _rows(path: Path = MANIFEST) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


ROWS = _rows()
DOCUMENTS = [r for r in ROWS if not r["duplicate_of"]]


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    out = tmp_path_factory.mktemp("fixture-build")
    builder.build(out / "corpus", out / "manifest.csv")
    return out / "corpus", out / "manifest.csv"


# --------------------------------------------------------------------------- 1. reproducible

def test_rebuild_matches_committed_corpus_byte_for_byte(rebuilt):
    import fpdf
    import PIL

    corpus, _ = rebuilt
    ours, committed = _tree(corpus), _tree(CORPUS)
    missing = sorted(committed.keys() - ours.keys())
    extra = sorted(ours.keys() - committed.keys())
    changed = sorted(k for k in ours.keys() & committed.keys() if ours[k] != committed[k])
    assert not (missing or extra or changed), (
        f"rebuild differs from fixtures/corpus (fpdf2 {fpdf.__version__}, Pillow "
        f"{PIL.__version__}); missing={missing} extra={extra} changed={changed}. "
        "If the change is intended, run: python fixtures/build_corpus.py")


def test_rebuild_matches_committed_manifest(rebuilt):
    _, manifest = rebuilt
    assert manifest.read_bytes() == MANIFEST.read_bytes()


def test_two_builds_are_identical(rebuilt, tmp_path):
    corpus, _ = rebuilt
    builder.build(tmp_path / "again", tmp_path / "again.csv")
    assert _tree(tmp_path / "again") == _tree(corpus)


def test_build_refuses_to_delete_a_folder_that_is_not_a_corpus(tmp_path):
    precious = tmp_path / "thesis.txt"
    precious.write_text("years of work")
    with pytest.raises(SystemExit, match="refusing to delete"):
        builder.build(tmp_path, None)
    assert precious.read_text() == "years of work"


# --------------------------------------------------------------------------- 2. manifest

def _file_part(path: str) -> str:
    return path.partition("#")[0]


def test_manifest_covers_every_file():
    on_disk = {rel for rel in _tree(CORPUS) if not any(p.startswith(".") for p in rel.split("/"))}
    listed = {_file_part(r["path"]) for r in ROWS}
    assert listed == on_disk


def test_manifest_covers_every_doc_type():
    assert {r["doc_type"] for r in DOCUMENTS} == set(DOC_TYPES) - {"unknown"}


def test_manifest_columns():
    with open(MANIFEST, newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert tuple(header) == builder.MANIFEST_COLUMNS


def _row_id(row: dict[str, str]) -> str:
    return row["path"] + ("/" + row["attachment"] if row["attachment"] else "")


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_manifest_row_is_well_formed(row):
    assert row["doc_type"] in DOC_TYPES and row["doc_type"] != "unknown"
    assert row["date_source"] in builder.DATE_SOURCES
    assert row["title"]
    value = row["source_date"]
    if row["date_source"] == "file_mtime":
        assert value == ""
    elif len(value) == 10:
        date.fromisoformat(value)
    else:
        datetime.fromisoformat(value)  # no offset means a floating wall-clock time
    if row["date_source"] == "parent_message":
        assert row["attachment"], "only attachments inherit their message's date"
    if row["duplicate_of"]:
        originals = [r for r in ROWS if r["path"] == row["duplicate_of"] and not r["attachment"]]
        assert len(originals) == 1 and not originals[0]["duplicate_of"]


def test_manifest_keys_are_unique():
    keys = [(r["path"], r["attachment"]) for r in ROWS]
    assert len(keys) == len(set(keys))


def test_corpus_shape():
    assert len(DOCUMENTS) >= 60
    files = _tree(CORPUS)
    assert sum(k.endswith(".eml") for k in files) >= 20
    assert sum(k.endswith(".pdf") for k in files) >= 10
    assert sum(k.lower().endswith(".jpg") for k in files) >= 6
    assert sum(k.endswith(".ics") for k in files) == 2
    assert sum(k.startswith("notes/") for k in files) >= 4
    assert len(mailbox.mbox(CORPUS / "mail/family.mbox", create=False)) == 6
    assert len(mailbox.Maildir(CORPUS / "mail/Maildir", factory=None, create=False)) == 4
    for sub in ("cur", "new", "tmp"):
        assert (CORPUS / "mail/Maildir" / sub).is_dir()
    # Everything a person wrote falls in 2022-01 .. 2026-11; only calendar events lie ahead.
    for r in DOCUMENTS:
        if r["source_date"] and r["doc_type"] != "calendar_event":
            assert "2022-01-01" <= r["source_date"][:10] <= "2026-11-30", r["path"]


def test_corpus_is_small():
    assert sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file()) < 2 * 1024 * 1024


def test_the_one_repeated_message_id_is_the_declared_duplicate():
    seen: dict[str, list[str]] = {}
    for r in ROWS:
        if r["attachment"] or not r["path"].startswith("mail/"):
            continue
        seen.setdefault(_message(r["path"])["Message-ID"], []).append(r["path"])
    repeated = {mid: paths for mid, paths in seen.items() if len(paths) > 1}
    declared = [(r["duplicate_of"], r["path"]) for r in ROWS if r["duplicate_of"]]
    assert [tuple(sorted(p)) for p in repeated.values()] == [tuple(sorted(d)) for d in declared]


# --------------------------------------------------------------------------- 3. ground truth

def _message(path: str) -> email.message.EmailMessage:
    file_part, _, index = path.partition("#")
    if index:
        raw = mailbox.mbox(CORPUS / file_part, create=False).get_bytes(int(index))
    else:
        raw = (CORPUS / file_part).read_bytes()
    return email.message_from_bytes(raw, policy=email.policy.default)


def _attachment(row: dict[str, str]) -> bytes:
    for part in _message(row["path"]).iter_attachments():
        if part.get_filename() == row["attachment"]:
            return part.get_payload(decode=True)
    raise AssertionError(f"{row['attachment']} not attached to {row['path']}")


def _blob(row: dict[str, str]) -> bytes:
    return _attachment(row) if row["attachment"] else (CORPUS / _file_part(row["path"])).read_bytes()


def _body_text(msg) -> str:
    parts = [p.get_content() for p in msg.walk()
             if p.get_content_maintype() == "text" and not p.is_attachment()]
    return "\n".join(parts)


def _pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def _text(row: dict[str, str]) -> str:
    """What a person would read in the document (enough to find the planted facts)."""
    data = _blob(row)
    name = row["attachment"] or _file_part(row["path"])
    if data.startswith(b"%PDF"):
        return _pdf_text(data)
    if row["doc_type"] == "photo":
        return str(Image.open(io.BytesIO(data)).getexif().get(270, ""))
    if name.endswith(".ics"):  # the unfolded lines of this one VEVENT
        events = re.sub(r"\r\n[ \t]", "", data.decode("utf-8")).split("BEGIN:VEVENT")[1:]
        return events[_event_index(row)].split("END:VEVENT")[0].replace("\\,", ",")
    if row["path"].startswith("mail/") and not row["attachment"]:
        msg = _message(row["path"])
        return f"{msg['Subject']}\n{_body_text(msg)}"
    return data.decode("utf-8")


def _same_instant_and_offset(parsed: datetime, expected: str) -> None:
    assert parsed.isoformat() == expected


def _check_date_header(row, expected):
    parsed = email.utils.parsedate_to_datetime(str(_message(row["path"])["Date"]))
    _same_instant_and_offset(parsed, expected)


_PDF_DATE = re.compile(r"D:(\d{14})([+-])(\d\d)'(\d\d)'")


def _check_pdf_creation_date(row, expected):
    raw = PdfReader(io.BytesIO(_blob(row))).metadata["/CreationDate"]
    stamp, sign, hh, mm = _PDF_DATE.fullmatch(raw).groups()
    offset = timedelta(hours=int(hh), minutes=int(mm)) * (1 if sign == "+" else -1)
    parsed = datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=timezone(offset))
    _same_instant_and_offset(parsed, expected)


def _check_invoice_date(row, expected):
    day = date.fromisoformat(expected)
    text = _text(row)
    long_form = f"{day:%B} {day.day}, {day.year}"
    short_form = f"{day:%b} {day.day}, {day.year}"
    label = r"(Invoice Date|Receipt Date|Statement Date|Date):\s*"
    assert re.search(label + f"({re.escape(long_form)}|{re.escape(short_form)})", text), text[:400]


@pytest.mark.parametrize("row", [r for r in ROWS if r["date_source"] == "pdf_creation_date"],
                         ids=_row_id)
def test_creation_dated_pdfs_print_no_issue_label(row):
    """A PDF dated by its metadata prints no "Date:"/"Issued" label, so the ingestors' rule
    (a labelled issue date wins over metadata) and the manifest cannot disagree."""
    assert not re.search(r"(?i)\b(date\w*|issued?|dated)\b", _text(row))


def _exif(row) -> tuple[dict, dict]:
    exif = Image.open(io.BytesIO(_blob(row))).getexif()
    return dict(exif), dict(exif.get_ifd(0x8769))


def _exif_value(raw: str, offset: str | None) -> str:
    value = datetime.strptime(raw, "%Y:%m:%d %H:%M:%S").isoformat()
    return value + offset if offset else value


def _check_exif_datetime_original(row, expected):
    _, sub = _exif(row)
    assert _exif_value(sub[36867], sub.get(36881)) == expected


def _check_exif_datetime_digitized(row, expected):
    _, sub = _exif(row)
    assert 36867 not in sub
    assert _exif_value(sub[36868], sub.get(36882)) == expected


def _check_exif_datetime(row, expected):
    top, sub = _exif(row)
    assert 36867 not in sub and 36868 not in sub
    assert _exif_value(top[306], sub.get(36880)) == expected


def _event_index(row: dict[str, str]) -> int:
    """VEVENT N of a calendar file (`path#N`); an attached invitation holds one event."""
    return 0 if row["attachment"] else int(row["path"].partition("#")[2])


def _check_dtstart(row, expected):
    start = Calendar.from_ical(_blob(row)).walk("VEVENT")[_event_index(row)]["DTSTART"].dt
    if isinstance(start, datetime):
        start = start.replace(tzinfo=timezone(start.utcoffset()))
    assert start.isoformat() == expected


def _check_text_date(row, expected):
    day = date.fromisoformat(expected)
    head = "\n".join(_text(row).splitlines()[:3])
    forms = (day.isoformat(), f"{day:%b} {day.day}, {day.year}", f"{day:%B} {day.day}, {day.year}")
    assert any(form in head for form in forms), head


def _check_filename_date(row, expected):
    assert Path(row["path"]).name.startswith(expected)
    head = "\n".join(_text(row).splitlines()[:5])
    assert not re.search(r"\b20\d\d\b", head), "a date in the first lines would win over the name"


def _check_parent_message(row, expected):
    _check_date_header(row, expected)
    if row["doc_type"] == "photo":
        top, sub = _exif(row)
        assert not ({306} & top.keys() or {36867, 36868} & sub.keys())


def _check_file_mtime(row, expected):
    if row["doc_type"] == "photo":
        top, sub = _exif(row)
        assert not ({306} & top.keys() or {36867, 36868} & sub.keys())
    else:
        assert not re.search(r"\b(19|20)\d\d\b", _text(row))


DATE_CHECKS = {
    "date_header": _check_date_header,
    "pdf_creation_date": _check_pdf_creation_date,
    "invoice_date": _check_invoice_date,
    "exif_datetime_original": _check_exif_datetime_original,
    "exif_datetime_digitized": _check_exif_datetime_digitized,
    "exif_datetime": _check_exif_datetime,
    "dtstart": _check_dtstart,
    "text_date": _check_text_date,
    "filename_date": _check_filename_date,
    "parent_message": _check_parent_message,
    "file_mtime": _check_file_mtime,
}


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_source_date_agrees_with_the_file(row):
    try:
        check = DATE_CHECKS[row["date_source"]]
    except KeyError:
        pytest.fail(f"no check for date_source {row['date_source']!r}; valid: {', '.join(DATE_CHECKS)}")
    check(row, row["source_date"])


def _row(path: str, attachment: str = "") -> dict[str, str]:
    [row] = [r for r in ROWS if r["path"] == path and r["attachment"] == attachment]
    return row


# (document, attachment, text that FACTS.md says it holds)
PLANTED = [
    pytest.param("documents/school/MGE-2026-27-school-year-calendar.pdf", "",
                 "Fri, Nov 20, 2026 Regular full day", id="fact1-calendar-says-full-day"),
    pytest.param("mail/2026-11-16-schedule-change-friday-early-release.eml", "",
                 "Dismissal: 12:15 pm", id="fact1-email-says-half-day"),
    pytest.param("mail/maple-grove-minute-2026-11-13.eml", "",
                 "Friday, November 20 is a regular school day", id="fact1-newsletter-stale"),
    pytest.param("mail/2025-11-17-early-release-reminder.eml", "",
                 "this Friday, November 21, is an early release day", id="fact1-old-friday"),
    pytest.param("documents/invoices/Lakeshore-Heating-Invoice-22-10417.pdf", "",
                 "Air filter 20x25x1", id="fact2-old-filter"),
    pytest.param("mail/2026-03-14-invoice-26-0314-badger-state-mechanical.eml",
                 "BSM-Invoice-26-0314.pdf", "Media filter 16x25x4 MERV 11", id="fact2-new-filter"),
    pytest.param("documents/manuals/Hearthline-HL96V-furnace-owners-manual.pdf", "",
                 "16x25x4 media filter", id="fact2-manual"),
    pytest.param("documents/invoices/Summit-Ridge-Roofing-Invoice-SRR-23-0117.pdf", "",
                 "Completion Date: May 19, 2023", id="fact3-roof-invoice"),
    pytest.param("mail/2026-04-02-birchwood-commons-hoa-spring-news.eml", "",
                 "Apex Roofing", id="fact3-roofer-ad"),
    pytest.param("documents/invoices/Hoffman-Plumbing-Invoice-24-0187.pdf", "",
                 "Date of Service: February 6, 2024", id="fact4-service-date"),
    pytest.param("documents/receipts/Cedar-Creek-receipt-2023-05-08.pdf", "",
                 "Weight: 31.0 lb", id="fact5-weight-2023"),
    pytest.param("documents/receipts/Cedar-Creek-receipt-2026-05-12.pdf", "",
                 "Weight: 34.5 lb", id="fact5-weight-2026"),
    pytest.param("documents/receipts/Cedar-Creek-receipt-2026-05-12.pdf", "",
                 "Rabies (3-year) 05/12/2029", id="fact5-rabies-due"),
    pytest.param("notes/wifi-network.txt", "", "Password: maple-lantern-42", id="fact6-old-wifi"),
    pytest.param("notes/router-replacement.txt", "", "Password: otter-Birchwood-7731",
                 id="fact6-new-wifi"),
    pytest.param("family.mbox#5", "", "every other Monday, 6:30-7:30 pm", id="fact7-stale-only"),
    pytest.param("notes/2022-02-20-house-routines.md", "", "picks up **Monday** morning",
                 id="fact8-old-trash-day"),
    pytest.param("documents/notices/City-of-Alder-Falls-collection-day-change.pdf", "",
                 "Garbage Monday Thursday", id="fact8-new-trash-day"),
    pytest.param("mail/2026-11-06-driftless-energy-bill.eml", "", "$88.95", id="fact9-last-bill"),
    pytest.param("calendars/okafor-lindqvist-family.ics#0", "", "RRULE:FREQ=WEEKLY;BYDAY=WE",
                 id="fact10-weekly-soccer"),
    pytest.param("calendars/maple-grove-elementary-events.ics#0", "", "STATUS:CANCELLED",
                 id="fact10-cancelled"),
]


@pytest.mark.parametrize("path, attachment, needle", PLANTED)
def test_planted_fact_is_in_the_document(path, attachment, needle):
    if path.startswith("family.mbox"):
        path = "mail/" + path
    assert needle in _text(_row(path, attachment))


@pytest.mark.parametrize("needle", ["fax", "Fax", "FAX"])
def test_no_document_states_the_dentists_fax(needle):
    for row in DOCUMENTS:
        assert needle not in _text(row), row["path"]


def test_den_meeting_time_is_stated_only_in_2024():
    hits = [r for r in DOCUMENTS if "den" in _text(r).lower().split()]
    assert [r["source_date"][:4] for r in hits] == ["2024"]


def test_facts_md_names_only_manifest_documents():
    text = FACTS.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:mail|documents|photos|calendars|notes)/[^`<]+)`", text))
    assert named, "FACTS.md names no gold files"
    paths = {r["path"] for r in ROWS} | {_file_part(r["path"]) for r in ROWS}
    attachments = {r["attachment"] for r in ROWS if r["attachment"]}
    for name in named:
        assert name in paths or name in attachments, name
