"""The record every ingestor yields, and the failure record for what could not be read."""
from __future__ import annotations

import dataclasses
import hashlib
import json
from datetime import datetime, timezone
from typing import Mapping, Union

# Metadata values Chroma accepts; anything else is serialised before it reaches the store.
Scalar = Union[str, int, float, bool]

DOC_TYPES = (
    "email", "newsletter", "invoice", "receipt", "manual", "calendar_event", "photo",
    "static_pdf", "note", "unknown",
)


@dataclasses.dataclass(frozen=True)
class Document:
    """One document a person could open: a message, a PDF, a photo, an event, a note.

    `source_date` is when the original was created (timezone-aware) or None when nothing
    in the file says; `date_source` names the field it came from. `ingestion_date` is
    only ever a fallback, announced as ``date_source="ingested"``.
    """

    doc_id: str
    text: str
    title: str
    source: str                      # what a person opens: a path, or "mbox#N"
    file_path: str                   # the file on disk this came from (for change tracking)
    doc_type: str
    source_date: datetime | None
    date_source: str
    ingestion_date: datetime
    message_id: str = ""
    parent_id: str = ""
    attachment: str = ""
    date_floating: bool = False      # the source stated a wall-clock time with no zone
    meta: Mapping[str, Scalar] = dataclasses.field(default_factory=dict)
    # What could not be read of a document that is stored all the same (a password-protected
    # PDF, found by its name): shown on its report line and in the summary.
    note: str = ""

    def __post_init__(self) -> None:
        if self.doc_type not in DOC_TYPES:
            raise ValueError(f"unknown doc_type {self.doc_type!r}; valid: {', '.join(DOC_TYPES)}")
        for name in ("source_date", "ingestion_date"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise ValueError(f"{name} must be timezone-aware, got {value!r}")

    @property
    def content_hash(self) -> str:
        """Hash of what we extracted: the same message read from an mbox and an .eml agrees."""
        payload = json.dumps(
            [self.text, self.title, self.doc_type, self.source_date_iso, self.date_source,
             sorted((k, v) for k, v in self.meta.items())],
            ensure_ascii=False, default=str,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    @property
    def source_date_iso(self) -> str | None:
        return iso_utc(self.source_date)

    @property
    def source_epoch(self) -> int | None:
        return None if self.source_date is None else int(self.source_date.timestamp())


@dataclasses.dataclass(frozen=True)
class ItemFailure:
    """A part of a container (one message of an mbox, one attachment) that could not be read."""

    source: str
    error: str
    title: str = ""
    message_id: str = ""
    attachment: str = ""


class IngestError(Exception):
    """A whole input could not be read; the message says which and why."""


class UnsupportedInput(IngestError):
    """No ingestor reads this kind of file (a .docx, a zip): skipped, not broken."""


def make_id(*parts: str) -> str:
    """A stable document id from the parts that identify it."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def iso_utc(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(timezone.utc).isoformat()
