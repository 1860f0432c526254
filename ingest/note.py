"""Plain-text and Markdown notes (and saved web pages, read as their text): decoded
whatever their bytes, titled by their first heading, dated by what they say ("Updated:
5 March 2024"), else by their file name (2024-03-05-notes.md), else by the file's own time.
"""
from __future__ import annotations

import codecs
import re
from datetime import date, datetime
from typing import Any, Iterator

from .blob import Blob
from .config import IngestConfig
from .dates import make_aware
from .html_text import html_to_text
from .sniff import magic
from .provenance import blob_id, make_document
from .registry import Context, Item

# Any text may be a note, but a container or calendar that also reads text should win.
_CLAIM = 0.2
_CLAIM_BY_NAME = 0.6
_EXTENSIONS = frozenset({".txt", ".md", ".markdown", ".text", ".org", ".rst"})
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?P<body>.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)",
                           re.DOTALL)
_FRONT_TITLE = re.compile(r"^title\s*:\s*['\"]?(?P<title>.+?)['\"]?\s*$", re.IGNORECASE | re.M)
_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}|\*{1,3}(?= ))\s+(?P<title>.+?)\s*#*\s*$", re.M)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_RST_UNDERLINE = re.compile(r"^([=\-~^*#+])\1{2,}\s*$")
# A date in a name: 2024-03-05, 2024_03_05, 20240305, not inside a longer number.
_NAME_DATE = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d{2})[-_.]?(?P<m>0[1-9]|1[0-2])[-_.]?(?P<d>0[1-9]|[12]\d|3[01])(?!\d)")


class NoteIngestor:
    name = "note"

    def claim(self, blob: Blob, kind: str) -> float | None:
        if kind == "html":
            return _CLAIM_BY_NAME
        if kind != "text":
            return None
        return _CLAIM_BY_NAME if blob.extension in _EXTENSIONS else _CLAIM

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        config = ctx.config
        text, encoding = decode_text(blob.read(), config.note.fallback_encodings,
                                     detect_min_bytes=config.note.charset_detect_min_bytes,
                                     exclude=config.note.charset_exclude)
        page_title = ""
        if magic(blob) == "html":
            found = _HTML_TITLE.search(text)
            page_title = " ".join(found.group(1).split()) if found else ""
            text = html_to_text(text)
        title = page_title or note_title(text, config.note.max_title_chars)
        found = note_date(text, blob.name, ctx)
        date_value, date_source, floating = found if found else (None, "", False)
        meta: dict[str, Any] = {"encoding": encoding}
        # A saved receipt or invoice is dated by its printed issue date; classify leaves
        # invoices to invoice.analyse, so that is asked first.
        invoice = _invoice(text, title, ctx)
        if invoice is not None:
            doc_type = invoice.kind
            meta.update(invoice.meta())
            if ctx.plausible(invoice.invoice_date):
                date_value, date_source = invoice.invoice_date, invoice.date_source
                floating = invoice.date_floating
        else:
            doc_type = _doc_type(text, title, config)
        yield make_document(
            blob, ctx, doc_id=blob_id(blob), text=text, title=title, doc_type=doc_type,
            source_date=date_value, date_source=date_source, date_floating=floating, meta=meta)


def decode_text(data: bytes, fallbacks: tuple[str, ...], *, detect_min_bytes: int = 0,
                exclude: tuple[str, ...] = ()) -> tuple[str, str]:
    """(text, encoding): a BOM decides; else UTF-8; else, for at least `detect_min_bytes`,
    charset-normalizer's guess (a Shift_JIS or cp1251 note reads as written, not as
    latin-1 mojibake); else each fallback in turn. latin-1 maps every byte, so some
    decoding always succeeds and no note is lost to its bytes."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data.decode(codec, "replace"), codec
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if detect_min_bytes and len(data) >= detect_min_bytes:
        guessed = _guess_charset(data, exclude)
        if guessed is not None:
            return guessed
    for codec in fallbacks:
        try:
            return data.decode(codec), codec
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("latin-1"), "latin-1"


def _guess_charset(data: bytes, exclude: tuple[str, ...]) -> tuple[str, str] | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_exclusion=list(exclude)).best()
    if best is None:
        return None
    try:
        return data.decode(best.encoding), best.encoding
    except (UnicodeDecodeError, LookupError):
        return None


def note_title(text: str, max_chars: int) -> str:
    """Front-matter title, else the first Markdown heading, else the first non-blank line."""
    body = text
    front = _FRONT_MATTER.match(text)
    if front:
        named = _FRONT_TITLE.search(front["body"])
        if named:
            return named["title"].strip()[:max_chars]
        body = text[front.end():]
    heading = _HEADING.search(body)
    if heading:
        return heading["title"].strip()[:max_chars]
    for line in body.splitlines():
        line = line.strip()
        if line and not _RST_UNDERLINE.match(line):
            return line.lstrip("#*>-= ").strip()[:max_chars]
    return ""


def note_date(text: str, name: str, ctx: Context) -> tuple[datetime, str, bool] | None:
    """(aware date, date_source, floating) or None: a labelled date near the top, a date in
    the first lines, a date in the file name — each only when plausible."""
    config = ctx.config.note
    head = text[: config.head_chars]
    label_pattern = re.compile(
        r"^[\s>*_#-]*(?:" + "|".join(re.escape(label) for label in config.date_labels)
        + r")\b[ \t]*[:=][ \t]*(?P<value>.+)$", re.IGNORECASE | re.MULTILINE)
    for match in label_pattern.finditer(head):
        found = _first_plausible(match["value"], ctx)
        if found:
            return found[0], "text_date", found[1]
    first_lines = "\n".join(head.splitlines()[: config.head_lines])
    found = _first_plausible(first_lines, ctx)
    if found:
        return found[0], "text_date", found[1]
    for match in _NAME_DATE.finditer(name):
        try:
            value = date(int(match["y"]), int(match["m"]), int(match["d"]))
        except ValueError:
            continue
        aware, _ = make_aware(value, ctx.floating_zone)
        if ctx.plausible(aware):
            return aware, "filename_date", True
    return None


def _first_plausible(text: str, ctx: Context) -> tuple[datetime, bool] | None:
    """The first plausible date in `text` that no due-date or other-date label on its line
    claims: "Due: 1 June" in a to-do list is not the day the list was written."""
    from .printed_dates import find_dates, label_pattern

    dates_cfg = ctx.config.dates
    foreign = [label_pattern(label) for label in (*dates_cfg.due_labels, *dates_cfg.other_labels)]
    for found in find_dates(text, ctx.floating_zone, rules=dates_cfg):
        line_before = text[text.rfind("\n", 0, found.start) + 1: found.start]
        if any(pattern.search(line_before) for pattern in foreign):
            continue
        if ctx.plausible(found.value):
            return found.value, found.floating
    return None



def _doc_type(text: str, title: str, config: IngestConfig) -> str:
    from .classify import doc_type_for_text

    return doc_type_for_text(text, title, config, default="note")


def _invoice(text: str, title: str, ctx: Context):
    from .invoice import analyse

    return analyse(text, ctx.config, ctx.floating_zone, title=title)
