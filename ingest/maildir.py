"""Maildir folders (cur/ new/ tmp/): every message file is its own document."""
from __future__ import annotations

import mailbox
import os
from typing import Iterator

from .blob import Blob, open_regular
from .document import IngestError, ItemFailure
from .email_message import check_message_size, message_documents, parse_rfc822
from .registry import Context, Item


def is_maildir(path: os.PathLike | str) -> bool:
    return all(os.path.isdir(os.path.join(path, sub)) for sub in ("cur", "new"))


class MaildirIngestor:
    name = "maildir"

    def claim(self, blob: Blob, kind: str) -> float | None:
        return 1.0 if kind == "dir" and is_maildir(blob.path) else None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        try:
            box = mailbox.Maildir(str(blob.path), factory=None, create=False)
            keys = sorted(box.keys())
        except (OSError, mailbox.Error) as err:
            raise IngestError(f"{blob.name}: not a readable Maildir: {err}") from err
        for key in keys:
            source = _message_path(box, blob, key)
            try:
                raw = _message_bytes(box, blob, key, ctx)
                check_message_size(len(raw), ctx)
                message = parse_rfc822(raw)
                yield from message_documents(message, blob, ctx, source=source, fallback_key=raw)
            except Exception as err:  # one broken message never stops the folder
                yield ItemFailure(source=source, error=f"message {key}: {err}")


def _message_bytes(box: mailbox.Maildir, blob: Blob, key: str, ctx: Context) -> bytes:
    """One message file's bytes, read only when it is a regular file of a message's size
    (a FIFO in cur/ would block `mailbox`'s plain open forever)."""
    try:
        path = os.path.join(str(blob.path), box._lookup(key))
    except (AttributeError, KeyError):
        return box.get_bytes(key)
    with open_regular(path) as fh:
        check_message_size(os.fstat(fh.fileno()).st_size, ctx)  # before reading it
        return fh.read()


def _message_path(box: mailbox.Maildir, blob: Blob, key: str) -> str:
    # The message file is what a person can open; mailbox only exposes it privately.
    try:
        return os.path.join(str(blob.path), box._lookup(key))
    except (AttributeError, KeyError):
        return f"{blob.path}#{key}"
