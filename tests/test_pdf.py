"""The PDF ingestor: text, type, title and source date of PDFs built here and of real files."""
from __future__ import annotations

import dataclasses
import io
import json
import os
from datetime import date, datetime, timezone
from pathlib import Path

import pypdf
import pytest
from conftest import INGEST_NOW, REALDATA, realdata_rows, requires_realdata
from fpdf import FPDF
from pypdf.generic import DecodedStreamObject, NameObject
from test_invoice import CII

from ingest.blob import Blob, Parent
from ingest.document import IngestError
from ingest.pdf import PdfIngestor
from ingest.provenance import blob_id
from ingest.registry import Context

FILE_TIME = datetime(2021, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def build_pdf(path: Path, pages: list[str], *, info: dict[str, str] | None = None,
              attachments: dict[str, bytes] | None = None, xmp_create: str | None = None,
              xmp_title: str | None = None, user_password: str | None = None) -> Path:
    """A real PDF: text pages by fpdf2, then metadata exactly as given (raw strings) by pypdf."""
    writer = pypdf.PdfWriter()
    if pages:
        pdf = FPDF()
        pdf.set_font("Helvetica", size=10)
        for text in pages:
            pdf.add_page()
            pdf.multi_cell(0, 5, text)
        writer.append(pypdf.PdfReader(io.BytesIO(bytes(pdf.output()))))
    if info:
        writer.add_metadata(info)
    if xmp_create:
        stream = DecodedStreamObject()
        stream.set_data(f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description '
                        f'xmp:CreateDate="{xmp_create}"/></x:xmpmeta>'.encode())
        stream[NameObject("/Type")] = NameObject("/Metadata")
        writer.root_object[NameObject("/Metadata")] = writer._add_object(stream)
    if xmp_title is not None:
        stream = DecodedStreamObject()
        stream.set_data(
            '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
            '02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/'
            f'elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">{xmp_title}'
            '</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>'.encode())
        stream[NameObject("/Type")] = NameObject("/Metadata")
        writer.root_object[NameObject("/Metadata")] = writer._add_object(stream)
    for name, data in (attachments or {}).items():
        writer.add_attachment(name, data)
    if user_password is not None:
        writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    path.write_bytes(buffer.getvalue())
    os.utime(path, (FILE_TIME.timestamp(), FILE_TIME.timestamp()))
    return path


def ingest(path: Path, ctx: Context, **blob_args):
    blob = Blob(name=path.name, data=path.read_bytes(), **blob_args) if blob_args else Blob.from_path(path)
    docs = list(PdfIngestor().ingest(blob, ctx))
    assert len(docs) == 1
    return docs[0]


HVAC_TEXT = """Comfort Heating & Air LLC
INVOICE
Invoice Number: INV-20931
Invoice Date: March 14, 2023
Date of Service: March 9, 2023
Bill To: Jane Doe
Description                     Qty   Amount
Replace water heater XG40T06     1    $1,450.00
16x25x4 MERV 11 filter           2    $79.98
Subtotal                              $1,529.98
Sales Tax                             $61.20
Total Due                             $1,591.18"""


@pytest.mark.parametrize("kind, expected", [
    pytest.param("pdf", 1.0, id="pdf"), pytest.param("text", None, id="text"),
    pytest.param("jpeg", None, id="jpeg"), pytest.param("zip", None, id="zip"),
])
def test_claim(kind, expected):
    assert PdfIngestor().claim(Blob(name="x.pdf", data=b""), kind) == expected


DATE_CASES = [
    pytest.param(dict(info={"/CreationDate": "D:20150604133406-06'00'"}),
                 "2015-06-04T19:34:06+00:00", "pdf_creation_date", False, id="creation-date-offset"),
    pytest.param(dict(info={"/CreationDate": "D:20151212184957Z00'00'"}),
                 "2015-12-12T18:49:57+00:00", "pdf_creation_date", False, id="creation-date-z00"),
    pytest.param(dict(info={"/CreationDate": "D:20220414132421+05'24'"}),
                 "2022-04-14T08:00:21+00:00", "pdf_creation_date", False, id="odd-offset"),
    pytest.param(dict(info={"/CreationDate": "D:20130829102832"}),
                 "2013-08-29T10:28:32+00:00", "pdf_creation_date", True, id="no-zone-floating"),
    pytest.param(dict(info={"/CreationDate": "garbage", "/ModDate": "D:20200101120000Z"}),
                 "2020-01-01T12:00:00+00:00", "pdf_mod_date", False, id="bad-creation-mod-date"),
    pytest.param(dict(xmp_create="2019-03-01T10:00:00+01:00"),
                 "2019-03-01T09:00:00+00:00", "xmp_create_date", False, id="xmp-only"),
    pytest.param(dict(info={"/CreationDate": "D:18500101000000Z"}),
                 FILE_TIME.isoformat(), "file_mtime", False, id="implausible-year-falls-back"),
    pytest.param(dict(info={"/CreationDate": "D:20990101000000Z"}),
                 FILE_TIME.isoformat(), "file_mtime", False, id="far-future-falls-back"),
    pytest.param(dict(), FILE_TIME.isoformat(), "file_mtime", False, id="no-metadata-file-time"),
]


@pytest.mark.parametrize("build, expected, source, floating", DATE_CASES)
def test_metadata_dates(tmp_path, ctx, build, expected, source, floating):
    doc = ingest(build_pdf(tmp_path / "a.pdf", ["A plain page of text."], **build), ctx)
    assert doc.source_date.astimezone(timezone.utc).isoformat() == expected
    assert (doc.date_source, doc.date_floating) == (source, floating)
    assert doc.doc_type == "static_pdf"


PRINTED_CASES = [
    pytest.param("Quarterly water quality report\nPrinted 12/3/2014\nResults for the district.",
                 "2016-02-28", "pdf_creation_date", "static_pdf", id="report-printed-date-ignored"),
    pytest.param("Dishwasher User Guide\nVersion 1.5, 2018-01-13\nSafety information. Read the "
                 "instructions before you install it. Press the menu button, select the program.",
                 "2016-02-28", "pdf_creation_date", "manual", id="manual-cover-date-ignored"),
    pytest.param("Anna Schmidt\n12 Elm Road\n\n3 August 2014\n\nDear Mr Jones,\nthank you for "
                 "your letter.", "2014-08-03", "printed_date", "static_pdf", id="dated-letter"),
    pytest.param(HVAC_TEXT, "2023-03-14", "invoice_date", "invoice", id="invoice-issue-date"),
]


@pytest.mark.parametrize("text, expected_day, source, doc_type", PRINTED_CASES)
def test_printed_dates_only_for_invoices_and_letters(tmp_path, ctx, text, expected_day, source, doc_type):
    path = build_pdf(tmp_path / "doc.pdf", [text], info={"/CreationDate": "D:20160228174501-05'00'"})
    doc = ingest(path, ctx)
    assert (doc.source_date.date().isoformat(), doc.date_source, doc.doc_type) == \
        (expected_day, source, doc_type)


def test_invoice_pdf_fields(tmp_path, ctx):
    doc = ingest(build_pdf(tmp_path / "hvac.pdf", [HVAC_TEXT]), ctx)
    assert doc.doc_type == "invoice"
    assert doc.date_floating
    assert doc.meta["invoice_number"] == "INV-20931"
    assert doc.meta["service_date"].startswith("2023-03-09")
    assert doc.meta["invoice_total"] == 1591.18
    assert doc.meta["invoice_currency"] == "USD"
    assert doc.meta["item_sizes"] == "16x25x4"
    assert "16x25x4 MERV 11 filter" in doc.meta["invoice_items"]
    assert "XG40T06" in doc.meta["model_numbers"]
    assert "Date of Service" in doc.text


def test_embedded_einvoice_wins(tmp_path, ctx):
    printed = "Rechnung F20180027\nRechnungsdatum: 02.01.2019\nGesamtbetrag 110,00 EUR\nMwSt. 10,00"
    path = build_pdf(tmp_path / "fx.pdf", [printed], attachments={"factur-x.xml": CII},
                     info={"/CreationDate": "D:20190314190814+00'00'"})
    doc = ingest(path, ctx)
    assert (doc.doc_type, doc.date_source, doc.source_date.date()) == \
        ("invoice", "einvoice_xml", date(2018, 12, 31))
    assert doc.meta["invoice_number"] == "F20180027"
    assert doc.meta["invoice_vendor"] == "LE FOURNISSEUR"
    assert doc.meta["invoice_total"] == 110.0


def test_einvoice_without_invoice_text(tmp_path, ctx):
    doc = ingest(build_pdf(tmp_path / "x.pdf", ["See attachment."], attachments={"factur-x.xml": CII}), ctx)
    assert (doc.doc_type, doc.date_source) == ("invoice", "einvoice_xml")


def test_text_pages_and_meta(tmp_path, ctx):
    path = build_pdf(tmp_path / "two.pdf", ["First page words.", "Second page words."],
                     info={"/Title": "Garden plan", "/Author": "Ann", "/Producer": "fpdf2",
                           "/CreationDate": "D:20200101000000Z"})
    doc = ingest(path, ctx)
    assert doc.text == "First page words.\n\nSecond page words."
    assert doc.title == "Garden plan"
    assert doc.meta["pages"] == 2 and doc.meta["pdf_author"] == "Ann" and doc.meta["encrypted"] is False
    assert doc.meta["pdf_producer"] == "fpdf2"
    assert doc.doc_id == blob_id(Blob.from_path(path))
    assert doc.source == str(path) and doc.ingestion_date == INGEST_NOW


def test_page_limit_from_config(tmp_path, ingest_config, ctx):
    config = dataclasses.replace(ingest_config, pdf=dataclasses.replace(ingest_config.pdf, max_pages=1))
    small = dataclasses.replace(ctx, config=config)
    doc = ingest(build_pdf(tmp_path / "two.pdf", ["Page one.", "Page two."]), small)
    assert doc.text == "Page one." and doc.meta["pages"] == 2


@pytest.mark.parametrize("pdf_title, xmp_title, first_line, expected", [
    pytest.param("Untitled", None, "Annual statement 2019", "t.pdf", id="placeholder"),
    pytest.param("Binder1.pdf", None, "Siege of Vicksburg", "t.pdf", id="file-name"),
    pytest.param("905_Precinct_NoOU", None, "Precinct bulletin", "t.pdf", id="code-name"),
    pytest.param("Microsoft Word - SPECIAL BOARD AGENDA.doc", None, "x", "SPECIAL BOARD AGENDA",
                 id="word-prefix-and-extension"),
    pytest.param("ZUGFeRD Rechnung $Revision: 1.13 $", None, "x", "ZUGFeRD Rechnung",
                 id="version-control-keyword"),
    pytest.param("", "Garden plan 2024", "x", "Garden plan 2024", id="xmp-title"),
    pytest.param("Untitled", "Garden plan 2024", "x", "Garden plan 2024",
                 id="xmp-title-after-placeholder"),
    pytest.param("Roof survey", "Garden plan 2024", "x", "Roof survey", id="info-title-first"),
    pytest.param("", None, "FACTUUR", "t.pdf", id="first-line-is-no-title"),
    pytest.param("", None, "", "t.pdf", id="file-name-last"),
])
def test_title(tmp_path, ctx, pdf_title, xmp_title, first_line, expected):
    info = {"/Title": pdf_title} if pdf_title else None
    doc = ingest(build_pdf(tmp_path / "t.pdf", [first_line], info=info, xmp_title=xmp_title), ctx)
    assert doc.title == expected


@pytest.mark.parametrize("pdf_title, expected", [
    pytest.param(None, "Invoice INV-20931 — Comfort Heating & Air LLC", id="number-and-vendor"),
    pytest.param("Rechnung", "Invoice INV-20931 — Comfort Heating & Air LLC",
                 id="generic-metadata-title"),
    pytest.param("Comfort Heating furnace service", "Comfort Heating furnace service",
                 id="metadata-title-naming-the-vendor"),
])
def test_invoice_title(tmp_path, ctx, pdf_title, expected):
    info = {"/Title": pdf_title} if pdf_title else None
    doc = ingest(build_pdf(tmp_path / "scan_0001.pdf", [HVAC_TEXT], info=info), ctx)
    assert doc.doc_type == "invoice" and doc.title == expected


def test_attachment_inherits_the_message_date(tmp_path, ctx):
    path = build_pdf(tmp_path / "att.pdf", ["No dates here."])
    sent = datetime(2022, 5, 1, 9, 30, tzinfo=timezone.utc)
    parent = Parent(doc_id="m1", source="mail.eml", file_path="mail.eml", message_id="<a@b>",
                    source_date=sent, date_source="header_date")
    doc = ingest(path, ctx, parent=parent)
    assert (doc.source_date, doc.date_source, doc.parent_id, doc.attachment) == \
        (sent, "parent_message", "m1", "att.pdf")


def test_user_password_pdf_is_still_found_by_name(tmp_path, ctx):
    path = build_pdf(tmp_path / "tax-return-2021.pdf", ["Secret content"], user_password="secret",
                     info={"/CreationDate": "D:20200101000000Z"})
    doc = ingest(path, ctx)
    assert doc.doc_type == "static_pdf" and doc.meta["encrypted"] is True
    assert "tax-return-2021.pdf" in doc.text and "password" in doc.text
    assert "Secret content" not in doc.text
    assert doc.date_source == "file_mtime"


def test_owner_password_only_pdf_is_read(tmp_path, ctx):
    path = build_pdf(tmp_path / "owner.pdf", ["Readable text"], user_password="",
                     info={"/CreationDate": "D:20220414132421+05'24'"})
    doc = ingest(path, ctx)
    assert doc.text == "Readable text" and doc.meta["encrypted"] is True
    assert doc.date_source == "pdf_creation_date"


@pytest.mark.parametrize("data", [
    pytest.param(b"%PDF-1.4\nthis is not a pdf body at all", id="garbage-after-header"),
    pytest.param(b"%PDF-1.7\n", id="header-only"),
])
def test_unreadable_pdf_raises_ingest_error(tmp_path, ctx, data):
    path = tmp_path / "broken.pdf"
    path.write_bytes(data)
    with pytest.raises(IngestError, match=r"broken\.pdf: not a readable PDF"):
        ingest(path, ctx)


@pytest.mark.parametrize("fraction", [0.3, 0.6, 0.9, 0.98])
def test_truncated_pdf_is_salvaged_or_refused_clearly(tmp_path, ctx, fraction):
    whole = build_pdf(tmp_path / "whole.pdf", ["Some text " * 50, "More text"],
                      info={"/CreationDate": "D:20200101000000Z"}).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole[: int(len(whole) * fraction)])
    try:
        doc = ingest(path, ctx)
    except IngestError as err:
        assert "cut.pdf: not a readable PDF" in str(err) and err.__cause__ is not None
    else:
        assert doc.doc_type == "static_pdf"


def test_an_unreadable_page_is_skipped(tmp_path, ctx, monkeypatch):
    path = build_pdf(tmp_path / "p.pdf", ["Good page", "BROKEN page", "Last page"])
    original = pypdf.PageObject.extract_text

    def flaky(self, *args, **kwargs):
        text = original(self, *args, **kwargs)
        if "BROKEN" in text:
            raise pypdf.errors.PdfReadError("bad content stream")
        return text

    monkeypatch.setattr(pypdf.PageObject, "extract_text", flaky)
    doc = ingest(path, ctx)
    assert doc.text == "Good page\n\nLast page" and doc.meta["pages_unreadable"] == 1


def test_zero_pages(tmp_path, ctx):
    doc = ingest(build_pdf(tmp_path / "empty.pdf", [], info={"/CreationDate": "D:20200101000000Z"}), ctx)
    assert (doc.text, doc.meta["pages"], doc.title, doc.date_source) == \
        ("", 0, "empty.pdf", "pdf_creation_date")


# ---------------------------------------------------------------- real data

def _realdata_cases():
    rows = realdata_rows("pdf") + [r for r in realdata_rows() if r["kind"] in ("invoice", "receipt")
                                   and r["path"].lower().endswith(".pdf")]
    return [pytest.param(row, id=Path(row["path"]).stem) for row in rows]


def _same_day(doc, expected: str) -> bool:
    """README "How a run is scored": aware values on the UTC day, others as written."""
    value = datetime.fromisoformat(expected)
    if value.tzinfo is not None:
        return doc.source_date.astimezone(timezone.utc).date() == value.astimezone(timezone.utc).date()
    written = doc.source_date if doc.date_floating else doc.source_date.astimezone(timezone.utc)
    return written.date() == value.date()


@requires_realdata
@pytest.mark.realdata
@pytest.mark.parametrize("row", _realdata_cases())
def test_realdata_pdf(ctx, row):
    doc = ingest(REALDATA / row["path"], ctx)
    assert doc.doc_type == row["expected_doc_type"]
    if row["expected_source_date"]:
        assert _same_day(doc, row["expected_source_date"]), (doc.source_date, doc.date_source)
    else:
        # The file states no date: only the provenance fallback may stand in.
        assert doc.date_source in ("file_mtime", "parent_message", "ingested")


def _expected_invoices():
    folder = REALDATA / "expected" / "invoices"
    cases = []
    for expected in sorted(folder.glob("*.json")) if folder.exists() else []:
        pdf = REALDATA / "invoices" / f"{expected.stem}.pdf"
        if pdf.exists():
            cases.append(pytest.param(pdf, json.loads(expected.read_text())[0], id=expected.stem))
    return cases


@requires_realdata
@pytest.mark.realdata
@pytest.mark.parametrize("pdf, expected", _expected_invoices())
def test_realdata_invoice_fields(ctx, pdf, expected):
    doc = ingest(pdf, ctx)
    meta = doc.meta
    # Titled by what it is ("Invoice 993548900 — Coolblue B.V."), not its first line
    # ("FACTUUR"); without a vendor found, by its file name.
    if meta.get("invoice_vendor"):
        assert str(expected["invoice_number"]).lstrip("#") in doc.title, doc.title
    else:
        assert doc.title == pdf.name
    # "#BLR_WFLD..." and "BLR_WFLD...": the "#" is the label's, not the number's.
    assert meta["invoice_number"].lstrip("#") == str(expected["invoice_number"]).lstrip("#")
    assert meta["invoice_total"] == pytest.approx(float(expected["amount"]))
    assert meta["invoice_currency"] == expected["currency"]
