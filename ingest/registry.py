"""One interface for every ingestor, and the registry that picks one by content.

An ingestor looks at a blob (its sniffed format, name, declared type) and claims it with
a score, or declines with None; the highest claim wins. It then yields Document records
(and ItemFailure records for parts of a container it could not read).
"""
from __future__ import annotations

import dataclasses
import logging
from datetime import datetime
from typing import Iterator, Protocol, Sequence, Union

from .blob import Blob
from .config import IngestConfig
from .dates import plausible, zone
from .document import Document, IngestError, ItemFailure, UnsupportedInput

log = logging.getLogger(__name__)

Item = Union[Document, ItemFailure]
_KIND_WORDS = {"binary": "binary data", "zip": "a zip archive", "ole2": "an Office file",
               "isobmff": "a video or other media file"}


@dataclasses.dataclass(frozen=True)
class Context:
    """What every ingestor may read besides its blob: config, the ingest clock, the registry
    (so a container can hand its attachments on)."""

    config: IngestConfig
    now: datetime
    registry: "Registry"

    @property
    def floating_zone(self):
        return zone(self.config.ingest.floating_timezone)

    def plausible(self, value: datetime | None) -> bool:
        """Whether a parsed date could be a household document's (not a misparse)."""
        limits = self.config.ingest
        return plausible(value, self.now, limits.min_year, limits.max_future_days)


class Ingestor(Protocol):
    name: str

    def claim(self, blob: Blob, kind: str) -> float | None:
        """A score (higher wins) when this ingestor can read `blob` of sniffed `kind`."""

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        """Yield the documents in `blob`. Raise IngestError when nothing can be read."""


class Registry:
    def __init__(self, ingestors: Sequence[Ingestor]):
        self.ingestors = tuple(ingestors)

    def pick(self, blob: Blob, kind: str) -> Ingestor | None:
        best, best_score = None, None
        for ingestor in self.ingestors:
            score = ingestor.claim(blob, kind)
            if score is not None and (best_score is None or score > best_score):
                best, best_score = ingestor, score
        return best

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        from .sniff import magic

        kind = magic(blob)
        ingestor = self.pick(blob, kind)
        if ingestor is None and blob.extension in ctx.config.ingest.document_extensions:
            raise IngestError(f"{blob.name}: not a readable {blob.extension[1:]} file "
                              f"(its content is {_KIND_WORDS.get(kind, kind)})")
        if ingestor is None:
            raise UnsupportedInput(f"{blob.name}: no ingestor reads this kind of file ({kind})")
        return ingestor.ingest(blob, ctx)


def default_registry() -> Registry:
    """Every ingestor we ship, in no particular order: claims decide."""
    from . import calendar, email_message, maildir, mbox, msg, note, pdf, photo

    return Registry([
        email_message.EmailIngestor(),
        mbox.MboxIngestor(),
        maildir.MaildirIngestor(),
        msg.OutlookMsgIngestor(),
        pdf.PdfIngestor(),
        photo.PhotoIngestor(),
        calendar.CalendarIngestor(),
        note.NoteIngestor(),
    ])
