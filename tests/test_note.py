"""Note ingestion: any bytes decode, titles from headings, dates from what the note says."""
from __future__ import annotations

import codecs
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingest.blob import Blob, Parent
from ingest.note import NoteIngestor, decode_text, note_title
from ingest.sniff import magic

UTC = timezone.utc
FALLBACKS = ("cp1252", "latin-1")


def ingest(tmp_path: Path, ctx, content: str | bytes, name: str = "note.md"):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    [doc] = NoteIngestor().ingest(Blob.from_path(path), ctx)
    return doc


@pytest.mark.parametrize("data, text, encoding", [
    pytest.param(codecs.BOM_UTF8 + "Grüße".encode(), "Grüße", "utf-8-sig", id="utf8-bom"),
    pytest.param("Grüße €5".encode(), "Grüße €5", "utf-8", id="utf8"),
    pytest.param(b"Caf\xe9 \x80 5", "Café € 5", "cp1252", id="cp1252"),
    pytest.param(b"Caf\xe9 \x81", "Café \x81", "latin-1", id="latin1-only-byte"),
    pytest.param(codecs.BOM_UTF16_LE + "list".encode("utf-16-le"), "list", "utf-16",
                 id="utf16-bom"),
    pytest.param(b"", "", "utf-8", id="empty"),
])
def test_decode_text(data, text, encoding):
    assert decode_text(data, FALLBACKS) == (text, encoding)


CHARSET_CASES = [
    pytest.param("会議は金曜日の午後三時からです。資料を持ってきてください。", "shift_jis", id="shift-jis"),
    pytest.param("Встреча в пятницу в три часа. Принесите документы, пожалуйста.", "cp1251",
                 id="cp1251-russian"),
    pytest.param("会议在星期五下午三点开始，请带上文件。", "gb2312", id="gb2312-chinese"),
    pytest.param("Η συνάντηση είναι την Παρασκευή στις τρεις.", "cp1253", id="cp1253-greek"),
    pytest.param("Spotkanie w piątek o godzinie trzeciej. Proszę przynieść dokumenty.", "cp1250",
                 id="cp1250-polish"),
    pytest.param("Réunion vendredi à quinze heures. Apportez les documents, s'il vous plaît.",
                 "latin-1", id="latin1-french"),
    pytest.param("Grüße aus München – das Café kostet 5 €", "cp1252", id="cp1252-german"),
]


@pytest.mark.parametrize("text, codec", CHARSET_CASES)
def test_note_charset_is_guessed(tmp_path, ctx, text, codec):
    """A note saved in a legacy charset reads as it was written, not as latin-1 mojibake."""
    doc = ingest(tmp_path, ctx, f"{text}\n".encode(codec), name="note.txt")
    assert doc.text.strip() == text and doc.title == text


@pytest.mark.parametrize("text, title", [
    pytest.param("intro line\n\n# Boiler service\n\nbody", "Boiler service", id="atx-heading"),
    pytest.param("## Packing list ##\n- socks", "Packing list", id="closed-atx-heading"),
    pytest.param("---\ntitle: 'Recipes'\ndate: 2024-01-01\n---\n# Other\n", "Recipes",
                 id="front-matter-title"),
    pytest.param("---\ndate: 2024-01-01\n---\n\nFirst real line\n", "First real line",
                 id="front-matter-without-title"),
    pytest.param("\n\n  Shopping: milk, eggs  \nmore", "Shopping: milk, eggs", id="first-line"),
    pytest.param("Garden plan\n===========\n\ntext", "Garden plan", id="setext"),
    pytest.param("", "", id="empty"),
    pytest.param("x" * 500, "x" * 120, id="capped"),
])
def test_note_title(text, title):
    assert note_title(text, max_chars=120) == title


# (content, file name, expected date (naive wall clock) or None for the file time, source)
DATE_CASES = [
    pytest.param("# Plumber\nDate: 2024-03-05\nCall back", "n.md", datetime(2024, 3, 5),
                 "text_date", id="labelled-iso"),
    pytest.param("Trip ideas\n\nLots of text\n" * 3 + "Updated: 5 March 2024\n", "n.md",
                 datetime(2024, 3, 5), "text_date", id="labelled-further-down"),
    pytest.param("> **Written:** 12.01.2020 14:30\n\nDear diary", "n.txt",
                 datetime(2020, 1, 12, 14, 30), "text_date", id="labelled-dotted-with-time"),
    pytest.param("---\ndate: 2023-11-02\ntags: [home]\n---\nbody", "n.md",
                 datetime(2023, 11, 2), "text_date", id="front-matter-date"),
    pytest.param("Due date: 2024-06-01\n", "n.md", None, "file_mtime",
                 id="due-date-is-not-the-notes-date"),
    pytest.param("2024-03-05 shopping\nmilk", "n.md", datetime(2024, 3, 5), "text_date",
                 id="first-line"),
    pytest.param("Meeting on March 5, 2024 about the roof", "n.txt", datetime(2024, 3, 5),
                 "text_date", id="month-name-first-lines"),
    pytest.param("a\nb\nc\nd\ne\nf\ng\n2024-03-05", "n.md", None, "file_mtime",
                 id="date-below-the-first-lines"),
    pytest.param("Date: 1066-10-14\nHastings", "2024-03-05-notes.md", datetime(2024, 3, 5),
                 "filename_date", id="implausible-label-then-file-name"),
    pytest.param("no dates here", "2024-03-05-notes.md", datetime(2024, 3, 5), "filename_date",
                 id="filename-dashes"),
    pytest.param("no dates here", "20240305_list.txt", datetime(2024, 3, 5), "filename_date",
                 id="filename-compact"),
    pytest.param("no dates here", "invoice_120240305.txt", None, "file_mtime",
                 id="filename-digits-inside-a-longer-number"),
    pytest.param("no dates here", "list.txt", None, "file_mtime", id="no-date"),
]


@pytest.mark.parametrize("content, name, expected, date_source", DATE_CASES)
def test_note_date(tmp_path, ctx, content, name, expected, date_source):
    doc = ingest(tmp_path, ctx, content, name)
    assert doc.date_source == date_source
    if expected is None:
        assert doc.source_date == Blob.from_path(tmp_path / name).mtime
    else:
        assert doc.date_floating
        assert doc.source_date.replace(tzinfo=None) == expected


def test_attachment_note_without_date_takes_its_message_date(ctx):
    sent = datetime(2021, 2, 3, 4, 5, tzinfo=UTC)
    parent = Parent(doc_id="m", source="a.eml", file_path="a.eml", message_id="<a@b>",
                    source_date=sent, date_source="header_date")
    [doc] = NoteIngestor().ingest(Blob(name="notes.txt", data=b"hello", parent=parent), ctx)
    assert (doc.source_date, doc.date_source, doc.attachment) == (sent, "parent_message",
                                                                  "notes.txt")


@pytest.mark.parametrize("content, doc_type", [
    pytest.param("Shopping\n- milk\n- eggs\n", "note", id="plain-note"),
    pytest.param("# Router User Guide\n\n" + "Click the Settings menu, then select the "
                 "Wireless tab. Troubleshooting: press the reset button.\n" * 5, "manual",
                 id="manual"),
    pytest.param("ACME Plumbing Ltd\nINVOICE\nInvoice Number: 1042\nInvoice Date: 5 March 2024\n"
                 "Bill To: Jane Doe\nBoiler repair 1 120.00\nSubtotal 120.00\nVAT 24.00\n"
                 "Total due $144.00\n", "invoice", id="saved-invoice"),
])
def test_note_doc_type(tmp_path, ctx, content, doc_type):
    assert ingest(tmp_path, ctx, content, name="doc.txt").doc_type == doc_type


def test_saved_invoice_is_dated_by_its_invoice_date(tmp_path, ctx):
    doc = ingest(tmp_path, ctx, "Updated: 2024-04-01\nINVOICE\nInvoice Date: 5 March 2024\n"
                                "Bill To: Jane Doe\nSubtotal 120.00\nTotal due $144.00\n")
    assert doc.doc_type == "invoice"
    assert doc.source_date.replace(tzinfo=None) == datetime(2024, 3, 5)
    assert doc.meta["invoice_total"] == 144.0


def test_note_document_fields(tmp_path, ctx):
    doc = ingest(tmp_path, ctx, "# Boiler\nService due in May\n", name="boiler.md")
    assert (doc.title, doc.text, doc.doc_type, doc.meta["encoding"]) == (
        "Boiler", "# Boiler\nService due in May\n", "note", "utf-8")
    assert doc.source == str(tmp_path / "boiler.md")


@pytest.mark.parametrize("name, data, expected", [
    pytest.param("todo.txt", b"buy milk", 0.6, id="txt"),
    pytest.param("README.md", b"# Title", 0.6, id="md"),
    pytest.param("notes.org", b"* heading", 0.6, id="org"),
    pytest.param("data.csv", b"a,b\n1,2", 0.2, id="other-text"),
    pytest.param("event.ics", b"BEGIN:VCALENDAR\r\n", None, id="calendar"),
    pytest.param("photo.txt", b"\xff\xd8\xff\xe0", None, id="jpeg-named-txt"),
    pytest.param("mail.txt", b"From: a@b\nTo: c@d\nSubject: hi\nDate: x\n\nbody", None,
                 id="email"),
    pytest.param("blob.bin", b"\x00\x01\x02", None, id="binary"),
])
def test_claim(name, data, expected):
    blob = Blob(name=name, data=data)
    assert NoteIngestor().claim(blob, magic(blob)) == expected


def test_saved_web_page_is_read_as_text(ctx, tmp_path):
    page = tmp_path / "recall-notice.html"
    page.write_text("<!DOCTYPE html><html><head><title>Dishwasher recall notice</title>"
                    "<style>p{color:red}</style><script>alert(1)</script></head>"
                    "<body><h1>Recall</h1><p>Updated: March 5, 2024</p><p>Model DW-4410 is recalled.</p>"
                    "</body></html>")
    [doc] = NoteIngestor().ingest(Blob.from_path(page), ctx)
    assert doc.title == "Dishwasher recall notice"
    assert "Model DW-4410 is recalled." in doc.text
    assert "<" not in doc.text and "alert" not in doc.text and "color" not in doc.text
