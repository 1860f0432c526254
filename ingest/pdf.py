"""PDF files: one Document per PDF, with its text, type, title and the date it was made.

The source date, first that is present and plausible:
  1. an embedded e-invoice's issue date (ZUGFeRD / Factur-X / XRechnung XML);
  2. an invoice's or receipt's printed issue date, or a letter's date line (a date in its
     first lines followed by a salutation). A date printed in a report, manual or agenda
     is *not* used: covers print edition dates and bulletins print run dates, while the
     file's CreationDate says when this document was made;
  3. /Info CreationDate, read from the raw string ("Z00'00", "+05'24'", no zone);
  4. XMP xmp:CreateDate;
  5. /Info ModDate;
  6. the provenance fallback (the parent message's date for an attachment, else file time).

Broken files are salvaged: whatever pages and metadata can be read make the Document.
Only a file from which nothing at all can be read raises IngestError. A PDF locked with
a user password still yields a Document (found by its name) that says it is locked.
"""
from __future__ import annotations

import dataclasses
import io
import logging
import re
from datetime import datetime, tzinfo
from typing import Any, Callable, Iterator

import pypdf
from dateutil import parser as dateutil_parser

from . import invoice as invoice_module
from .blob import Blob
from .classify import doc_type_for_text
from .config import IngestConfig, PdfSection
from .dates import make_aware, parse_pdf_date
from .document import Document, IngestError
from .printed_dates import find_dates, label_pattern
from .provenance import blob_id, make_document
from .registry import Context

log = logging.getLogger(__name__)

# pypdf raises many kinds of error on broken files (PdfReadError, ValueError, KeyError,
# TypeError, AssertionError, struct.error, RecursionError...): one bad PDF must never stop
# a run, so every call into a parsed file is guarded by this.
PDF_ERRORS = (Exception,)


@dataclasses.dataclass
class _Extracted:
    """What could be read from a PDF, and the first error met while reading it."""

    text: str = ""                   # every page's plain text, blank lines between pages
    analysis_text: str = ""          # the first pages in layout mode (labels beside values)
    page_count: int | None = None
    unreadable_pages: int = 0
    info: dict[str, str] = dataclasses.field(default_factory=dict)
    xmp_create_date: str = ""
    xmp_title: str = ""
    einvoice: invoice_module.InvoiceInfo | None = None
    error: BaseException | None = None

    @property
    def anything(self) -> bool:
        return bool(self.page_count is not None or self.text.strip() or self.info
                    or self.xmp_create_date or self.einvoice)

    def note(self, err: BaseException) -> None:
        if self.error is None:
            self.error = err


class PdfIngestor:
    name = "pdf"

    def claim(self, blob: Blob, kind: str) -> float | None:
        return 1.0 if kind == "pdf" else None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Document]:
        yield read_pdf(blob, ctx)


def read_pdf(blob: Blob, ctx: Context) -> Document:
    cfg = ctx.config
    try:
        reader = pypdf.PdfReader(io.BytesIO(blob.read()), strict=False)
    except PDF_ERRORS as err:
        raise IngestError(f"{blob.name}: not a readable PDF: {err}") from err

    encrypted = _guard(lambda: bool(reader.is_encrypted), default=False)
    if encrypted and not _unlock(reader):
        return _locked_document(blob, ctx)

    got = _extract(reader, cfg, ctx.floating_zone)
    if not got.anything:
        err = got.error or ValueError("no pages, text or metadata")
        raise IngestError(f"{blob.name}: not a readable PDF: {err}") from err
    if got.error is not None:
        log.warning("%s: PDF partly unreadable, salvaged what could be read: %s", blob.name, got.error)

    info = _invoice_info(got, cfg, ctx.floating_zone, got.info.get("/Title", ""))
    title = pdf_title(got, info, cfg) or blob.name
    date, date_source, floating = _source_date(got, info, ctx)

    if info is not None:
        doc_type, type_meta = info.kind, info.meta()
    else:
        doc_type = doc_type_for_text(got.text or got.analysis_text, title, cfg, default="static_pdf")
        type_meta = {}
    meta: dict[str, Any] = {
        "pages": got.page_count or 0,
        "pdf_title": got.info.get("/Title", "").strip(),
        "pdf_author": got.info.get("/Author", "").strip(),
        "pdf_producer": got.info.get("/Producer", "").strip(),
        "encrypted": encrypted,
        "pages_unreadable": got.unreadable_pages or None,
        **type_meta,
    }
    return make_document(
        blob, ctx,
        doc_id=blob_id(blob),
        text=got.text or got.analysis_text,
        title=title,
        doc_type=doc_type,
        source_date=date,
        date_source=date_source,
        date_floating=floating,
        meta=meta,
    )


# ---------------------------------------------------------------- reading

def _unlock(reader: pypdf.PdfReader) -> bool:
    """Open an owner-password-only file (the empty user password); False when locked."""
    try:
        return bool(reader.decrypt(""))
    except PDF_ERRORS as err:   # unsupported algorithm, missing `cryptography`
        log.info("PDF decryption failed: %s", err)
        return False


def _locked_document(blob: Blob, ctx: Context) -> Document:
    note = (f"{blob.name}: this PDF is password-protected; its content and metadata cannot "
            f"be read without the password.")
    doc = make_document(
        blob, ctx, doc_id=blob_id(blob), text=note, title=blob.name, doc_type="static_pdf",
        source_date=None, date_source="", meta={"encrypted": True},
    )
    return dataclasses.replace(doc, note="password-protected: only its name is stored")


def _extract(reader: pypdf.PdfReader, cfg: IngestConfig, floating: tzinfo) -> _Extracted:
    got = _Extracted()
    try:
        count = len(reader.pages)
        got.page_count = count
    except PDF_ERRORS as err:
        got.note(err)
        count = 0
    plain_pages: list[str] = []
    analysis_pages: list[str] = []
    for index in range(min(count, cfg.pdf.max_pages)):
        try:
            page = reader.pages[index]
            plain = page.extract_text() or ""
        except PDF_ERRORS as err:
            got.note(err)
            got.unreadable_pages += 1
            continue
        plain = plain.replace("\x00", "")
        plain_pages.append(plain.strip())
        if index < cfg.pdf.analysis_pages:
            analysis_pages.append(_layout_or_plain(page, plain, cfg.pdf))
    got.text = "\n\n".join(p for p in plain_pages if p)
    got.analysis_text = "\n\n".join(p for p in analysis_pages if p.strip())
    got.info = _guard(lambda: _info_strings(reader), default={}, on_error=got.note)
    got.xmp_create_date = _guard(lambda: _xmp_create_date(reader), default="", on_error=got.note)
    got.xmp_title = _guard(lambda: _xmp_title(reader), default="", on_error=got.note)
    got.einvoice = _guard(lambda: _einvoice(reader, cfg.pdf, floating), default=None, on_error=got.note)
    return got


def _layout_or_plain(page: Any, plain: str, cfg: PdfSection) -> str:
    """Layout mode keeps a label and its value on one line ("Invoice Date:  20-10-2015")
    where plain mode may part them; it loses text on some files, so plain is kept then."""
    try:
        layout = page.extract_text(extraction_mode="layout") or ""
    except PDF_ERRORS:
        return plain
    kept = len("".join(layout.split()))
    return layout if kept >= cfg.layout_min_ratio * len("".join(plain.split())) else plain


def _info_strings(reader: pypdf.PdfReader) -> dict[str, str]:
    """/Info entries as raw strings (dates unparsed: pypdf's parser rejects odd zones)."""
    info = reader.trailer.get("/Info")
    if info is None:
        return {}
    info = info.get_object()
    values = {}
    for key in list(info.keys()):
        try:
            value = info[key]
            value = value.get_object() if hasattr(value, "get_object") else value
        except PDF_ERRORS:
            continue
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if isinstance(value, str):
            values[str(key)] = value.replace("\x00", "")
    return values


_XMP_CREATE = re.compile(rb"xmp:CreateDate\s*(?:=\s*[\"']|>)\s*([^<\"']+)")


def _xmp_create_date(reader: pypdf.PdfReader) -> str:
    metadata = reader.root_object.get("/Metadata")
    if metadata is None:
        return ""
    match = _XMP_CREATE.search(metadata.get_object().get_data())
    return match.group(1).decode("ascii", "replace").strip() if match else ""


def _xmp_title(reader: pypdf.PdfReader) -> str:
    """XMP dc:title: the default language's, else the first one given."""
    xmp = reader.xmp_metadata
    titles = (xmp.dc_title if xmp is not None else None) or {}
    return str(titles.get("x-default") or next(iter(titles.values()), "") or "")


def _einvoice(reader: pypdf.PdfReader, cfg: PdfSection, floating: tzinfo):
    """The first embedded XML file that is a structured invoice (Factur-X, ZUGFeRD...)."""
    for name, contents in reader.attachments.items():
        if not name.lower().endswith(".xml"):
            continue
        for content in contents:
            if len(content) <= cfg.max_xml_bytes:
                found = invoice_module.from_einvoice_xml(content, floating)
                if found is not None:
                    return found
    return None


# ---------------------------------------------------------------- type and date

def _invoice_info(got: _Extracted, cfg: IngestConfig, floating: tzinfo, title: str):
    """The e-invoice's fields, completed from the printed text; else the printed invoice."""
    printed = invoice_module.analyse(got.analysis_text or got.text, cfg, floating, title=title)
    if got.einvoice is None:
        return printed
    if printed is None:
        return got.einvoice
    xml = got.einvoice
    return dataclasses.replace(
        xml,
        vendor=xml.vendor or printed.vendor,
        number=xml.number or printed.number,
        service_date=xml.service_date or printed.service_date,
        due_date=xml.due_date or printed.due_date,
        total=xml.total if xml.total is not None else printed.total,
        currency=xml.currency or printed.currency,
        items=tuple(dict.fromkeys((*xml.items, *printed.items))),
    )


def _source_date(got: _Extracted, info, ctx: Context) -> tuple[datetime | None, str, bool]:
    """(date, date_source, floating) by the order in the module docstring; (None, "", False)
    leaves the provenance fallback to make_document."""
    cfg = ctx.config
    candidates: list[Callable[[], tuple[datetime | None, str, bool]]] = [
        lambda: (info.invoice_date, info.date_source, info.date_floating) if info else (None, "", False),
        lambda: _letter_date(got.analysis_text or got.text, cfg, ctx.floating_zone),
        lambda: _pdf_date(got.info.get("/CreationDate"), "pdf_creation_date", ctx.floating_zone),
        lambda: _iso_date(got.xmp_create_date, "xmp_create_date", ctx.floating_zone),
        lambda: _pdf_date(got.info.get("/ModDate"), "pdf_mod_date", ctx.floating_zone),
    ]
    for candidate in candidates:
        value, source, floating = candidate()
        if ctx.plausible(value):
            return value, source, floating
    return None, "", False


def _pdf_date(raw: str | None, source: str, floating_zone: tzinfo):
    value, floating = parse_pdf_date(raw)
    if value is None:
        return None, source, False
    value, was_floating = make_aware(value, floating_zone)
    return value, source, floating or was_floating


def _iso_date(raw: str, source: str, floating_zone: tzinfo):
    if not raw:
        return None, source, False
    try:
        value = dateutil_parser.isoparse(raw)
    except (ValueError, OverflowError):
        return None, source, False
    value, floating = make_aware(value, floating_zone)
    return value, source, floating


def _letter_date(text: str, cfg: IngestConfig, floating: tzinfo):
    """A letter's date: a date among its first lines with a salutation ("Dear ...") after
    it within `letter_head_lines` lines."""
    head = text[: cfg.pdf.labelled_date_chars]
    lines = [line for line in head.splitlines() if line.strip()][: cfg.pdf.letter_head_lines]
    salutation = re.compile("|".join(
        rf"^\s*{label_pattern(s).pattern}" for s in cfg.pdf.salutations), re.IGNORECASE)
    for index, line in enumerate(lines):
        dates = find_dates(line, floating, rules=cfg.dates)
        if dates and any(salutation.search(after) for after in lines[index + 1:]):
            return dates[0].value, "printed_date", dates[0].floating
    return None, "", False


# ---------------------------------------------------------------- titles

_FILE_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}$")  # "Agenda.doc", "Binder1.pdf"
_LETTER = re.compile(r"[^\W\d_]")
_RCS_KEYWORD = re.compile(r"\$[A-Za-z]+(?::[^$]*)?\$")  # CVS/RCS "$Revision: 1.13 $", "$Id$"


def pdf_title(got: _Extracted, info: Any, cfg: IngestConfig) -> str:
    """/Info Title, else XMP dc:title, when meaningful; for an invoice whose metadata title
    names neither its number nor its vendor, "Invoice N — Vendor"; else ""."""
    label = info.title(cfg.invoice) if info is not None else ""
    for raw in (got.info.get("/Title", ""), got.xmp_title):
        title = _meaningful_title(raw, cfg.pdf)
        if title and (not label or info.named_by(title)):
            return title
    return label


def _meaningful_title(raw: str, cfg: PdfSection) -> str:
    """A metadata title unless it is a placeholder ("Untitled", "Model"), a file name
    ("Binder1.pdf", "905_Precinct_NoOU", "10811.exe"); a "Microsoft Word - " prefix and
    version-control keywords ("$Revision: 1.13 $") are dropped."""
    title = " ".join(_RCS_KEYWORD.sub(" ", str(raw or "")).split())
    for prefix in cfg.title_prefixes:
        if title.lower().startswith(prefix):
            title = title[len(prefix):].strip()
    title = _FILE_EXTENSION.sub("", title)
    single_token_name = " " not in title and (re.search(r"[\d_]", title) is not None)
    if (len(_LETTER.findall(title)) < cfg.title_min_letters or single_token_name
            or title.lower() in cfg.title_placeholders):
        return ""
    return title[: cfg.title_max_chars]


def _guard(read: Callable[[], Any], default: Any, on_error: Callable[[BaseException], None] | None = None):
    try:
        return read()
    except PDF_ERRORS as err:
        if on_error is not None:
            on_error(err)
        return default
