"""mbox files: every message is its own document, sourced as "file.mbox#N"."""
from __future__ import annotations

import mailbox
from typing import Iterator

from .blob import Blob
from .document import IngestError, ItemFailure
from .email_message import check_message_size, message_documents, parse_rfc822
from .registry import Context, Item


class MboxIngestor:
    name = "mbox"

    def claim(self, blob: Blob, kind: str) -> float | None:
        return 1.0 if kind == "mbox" and blob.path is not None and blob.data is None else None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        box, keys = open_mbox(blob)
        try:
            for position, key in enumerate(keys):
                yield from message_items(box, key, position, len(keys), blob, ctx)
        finally:
            box.close()


def open_mbox(blob: Blob) -> tuple[mailbox.mbox, list]:
    """The mailbox and its message keys (reading the keys scans the file once)."""
    try:
        box = mailbox.mbox(str(blob.path), create=False)
        keys = box.keys()
    except (OSError, mailbox.Error) as err:
        raise IngestError(f"{blob.name}: not a readable mbox: {err}") from err
    return box, keys


def message_source(blob: Blob, position: int, total: int) -> str:
    # A lone message saved with its From_ line is still just that file.
    return blob.source if total == 1 else f"{blob.source}#{position}"


def message_items(box: mailbox.mbox, key, position: int, total: int, blob: Blob,
                  ctx: Context) -> Iterator[Item]:
    """The items of the message at `position` of `total` (a worker process reads its share
    of a mailbox with this too: storage/parse_pool.py)."""
    source = message_source(blob, position, total)
    try:
        check_message_size(_stored_size(box, key), ctx)
        raw = box.get_bytes(key)
        check_message_size(len(raw), ctx)
        message = parse_rfc822(raw)
        yield from message_documents(message, blob, ctx, source=source, fallback_key=raw)
    except Exception as err:  # one broken message never stops the mailbox
        yield ItemFailure(source=source, error=f"message {position}: {err}")


def _stored_size(box: mailbox.mbox, key) -> int:
    """A message's size from the mailbox's table of contents, without reading it (the
    table holds each message's start and end offset; mailbox exposes it only privately)."""
    try:
        start, stop = box._lookup(key)
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0  # no table: get_bytes reads it, and the size is checked after all
    return stop - start
