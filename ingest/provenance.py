"""Where a document came from and which date to fall back on, shared by every ingestor.

An attachment keeps its message's `source`, `file_path` and `message_id`, names itself in
`attachment`, points at the message with `parent_id`, and inherits the message's date when
it carries none of its own. A file with no date of its own falls back to its file time (a
message on a mail server to the date the server received it); only a blob with neither
says "ingested".
"""
from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from .blob import Blob
from .document import Document, make_id
from .registry import Context


def blob_id(blob: Blob, *parts: str) -> str:
    """Stable id: an attachment by its message and name; a file by its bytes (so one file
    found at two paths is one document)."""
    if blob.parent is not None:
        return make_id("attachment", blob.parent.doc_id, blob.name, *parts)
    return make_id("file", content_digest(blob), *parts)


def content_digest(blob: Blob) -> str:
    return hashlib.sha256(blob.read()).hexdigest()


def fallback_date(blob: Blob, ctx: Context) -> tuple[datetime, str, bool]:
    """(date, date_source, floating) for a blob whose content states no date."""
    if blob.parent is not None and blob.parent.source_date is not None:
        return blob.parent.source_date, "parent_message", blob.parent.date_floating
    if blob.container_date is not None:
        return blob.container_date, blob.container_date_source, False
    if blob.mtime is not None:
        return blob.mtime, "file_mtime", False
    return ctx.now, "ingested", False


def make_document(
    blob: Blob,
    ctx: Context,
    *,
    doc_id: str,
    text: str,
    title: str,
    doc_type: str,
    source_date: datetime | None,
    date_source: str,
    date_floating: bool = False,
    meta: dict[str, Any] | None = None,
    source: str | None = None,
) -> Document:
    """A Document with the blob's provenance filled in; `source_date=None` takes the fallback."""
    if source_date is None:
        source_date, date_source, date_floating = fallback_date(blob, ctx)
    parent = blob.parent
    return Document(
        doc_id=doc_id,
        text=text,
        title=title or blob.name,
        source=source or blob.source,
        file_path=blob.file_path,
        doc_type=doc_type,
        source_date=source_date,
        date_source=date_source,
        ingestion_date=ctx.now,
        message_id=parent.message_id if parent else "",
        parent_id=parent.doc_id if parent else "",
        attachment=blob.name if parent else "",
        date_floating=date_floating,
        meta={k: v for k, v in (meta or {}).items() if v is not None and v != ""},
    )
