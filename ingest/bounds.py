"""What one document may put into the store, and a storable form of every string in it.

Documents come from files nobody vetted: a 1 MB Subject, a PDF page with 50 MB of text, a
file name that is not UTF-8 (`caf\\xe9.txt` from an old disk). The store accepts only valid
UTF-8 and every chunk repeats the title and metadata, so each string is capped and made
storable here, once, before a document is chunked: cost stays linear in the input.
"""
from __future__ import annotations

import dataclasses
import os
import re

from .config import IngestSection
from .document import Document

MB = 1 << 20
# C0/C1 control characters but tab and newline: a terminal acts on them (retitle, clear).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def storable(text: str) -> str:
    """`text` as valid UTF-8: a byte that was not UTF-8 (a surrogate escape, as Python
    decodes a non-UTF-8 file name) becomes its backslash escape, `caf\\xe9.txt`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stood for no byte (from JSON, say)
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


def raw_path_hex(path: str) -> str:
    """The file name's bytes (hex) when its storable form differs, so it can be re-opened;
    "" for the ordinary UTF-8 name."""
    return os.fsencode(path).hex() if storable(path) != path else ""


def capped(text: str, limit: int) -> str:
    """At most `limit` characters, storable; a cut string ends with an ellipsis."""
    text = text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
    return storable(text)


def error_line(text: str, limit: int) -> str:
    """A one-line, printable error of at most `limit` characters: parsers quote raw bytes."""
    return capped(" ".join(_CONTROL.sub(" ", text).split()), limit)


def truncate_text(text: str, max_bytes: int) -> tuple[str, str]:
    """(text of at most `max_bytes` UTF-8 bytes, note) - the note says where it was cut."""
    # Characters never outnumber bytes: a text this short fits without encoding it.
    if len(text) <= max_bytes // 4:
        return text, ""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text, ""
    cut = raw[:max_bytes].decode("utf-8", "ignore")  # "ignore": no half character at the cut
    return cut, f"truncated at {max_bytes / MB:g} MB"


def bound_document(doc: Document, cfg: IngestSection) -> tuple[Document, str]:
    """`doc` with its text, title and metadata strings capped and storable, and a note
    ("truncated at 20 MB") when its text was cut."""
    text, cut = truncate_text(doc.text, cfg.max_text_bytes)
    note = "; ".join(n for n in (doc.note, cut) if n)
    meta_limit = cfg.max_metadata_chars
    bounded = dataclasses.replace(
        doc,
        text=storable(text),
        title=capped(doc.title, cfg.max_title_chars),
        source=storable(doc.source),
        file_path=storable(doc.file_path),
        message_id=capped(doc.message_id, meta_limit),
        attachment=capped(doc.attachment, meta_limit),
        meta={k: capped(v, meta_limit) if isinstance(v, str) else v for k, v in doc.meta.items()},
    )
    return bounded, note
