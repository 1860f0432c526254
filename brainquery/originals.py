"""The original of a stored document, for a person to open.

A document is named by its id, never by a path: whoever asks cannot steer the lookup to a
file. The file the store recorded is read only while it still lies (symlinks resolved)
inside a folder that was ingested and is still the file that was ingested (size and mtime
as recorded). Otherwise the page shows the text as stored, and says why.
"""
from __future__ import annotations

import dataclasses
import mailbox
import os
import re
from pathlib import Path
from typing import Any, Sequence

from ingest.blob import Blob, read_regular
from ingest.document import IngestError
from ingest.email_message import ParsedMessage, address_list, header_text, parse_rfc822
from ingest.msg import parse_msg
from ingest.sniff import magic

from .storage.chunking import join_chunks
from .storage.indexer import file_stat
from .storage.mail_sync import RECORD_KIND as IMAP_FOLDER
from .storage.store import Store

DOC_ID = re.compile(r"[0-9a-f]{32}")
# What a browser shows inline, by sniffed content (never by file name or declared type).
INLINE_TYPES = {"pdf": "application/pdf", "jpeg": "image/jpeg", "png": "image/png",
                "gif": "image/gif", "webp": "image/webp"}
_MESSAGE_KINDS = frozenset({"email", "mbox", "ole2"})
# Shown as the file's own text. An .ics file holds many events: an event shows as read.
_TEXT_KINDS = frozenset({"text"})
EMAIL_HEADERS = ("From", "To", "Cc", "Date", "Subject")


class NoSuchDocument(LookupError):
    """The id names no stored document (or is not an id at all)."""


@dataclasses.dataclass(frozen=True)
class Original:
    """What a page shows for one document. `kind` is pdf, image, email or text; `data`
    holds the bytes of a pdf or image (served with `media_type`); `note` says why only the
    stored text is shown, when that is so."""

    meta: dict[str, Any]
    kind: str
    text: str
    headers: tuple[tuple[str, str], ...] = ()
    data: bytes | None = None
    media_type: str = ""
    note: str = ""


def open_original(store: Store, doc_id: str, roots: Sequence[str], max_bytes: int) -> Original:
    """The original of stored document `doc_id`. Raises NoSuchDocument."""
    if not DOC_ID.fullmatch(doc_id):
        raise NoSuchDocument("not a document id")
    found = store.document(doc_id)
    if found is None:
        raise NoSuchDocument("no such document in the store")
    meta, chunks = found
    stored = Original(meta=meta, kind="text", text="\n".join(join_chunks(chunks)))
    path, problem = _checked_file(store, meta, roots)
    if path is None:
        return dataclasses.replace(stored, note=problem)
    try:
        data = _document_bytes(path, meta, max_bytes)
    except (OSError, IngestError, mailbox.Error, LookupError, ValueError) as err:
        return dataclasses.replace(stored, note=f"the original could not be read: {err}")
    return _view(stored, data)


def _checked_file(store: Store, meta: dict[str, Any], roots: Sequence[str]) -> tuple[Path | None, str]:
    """The document's file when it may be read, else None and the reason."""
    file_path = str(meta.get("file_path") or "")
    record = store.source(file_path) if file_path else None
    if record is None:
        return None, "the store has no record of the file this came from"
    if record.get("kind") == IMAP_FOLDER:
        # Opening it would mean logging in to the server: the page shows what was stored.
        return None, "a message on a mail server: shown as stored"
    # A name that is not UTF-8 is stored escaped (`caf\xe9.txt`); its bytes open the file.
    raw = record.get("path_bytes")
    path = Path(os.fsdecode(bytes.fromhex(raw))) if raw else Path(file_path)
    if not inside(str(path), roots):
        return None, "the file lies outside the folders you ingested"
    if path.is_dir():
        return path, ""  # a Maildir folder gains mail all the time: its messages are checked
    try:
        stat = file_stat(Blob.from_path(path))  # what the indexer recorded, the same way
    except OSError:
        return None, "the file is no longer where it was ingested from"
    if any(stat[key] != record.get(key) for key in stat):
        return None, "the file has changed since it was ingested; ingest it again to see it"
    return path, ""


def inside(path: str, roots: Sequence[str]) -> bool:
    """Whether `path`, symlinks resolved, is one of `roots` or lies under one."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _document_bytes(path: Path, meta: dict[str, Any], max_bytes: int) -> bytes:
    """The bytes of the document itself: the file, one message of a mailbox, or one
    attachment of a message."""
    container = magic(Blob.from_path(path))
    attachment = str(meta.get("attachment") or "")
    if container in ("mbox", "dir") or attachment:
        raw = _message_bytes(path, container, str(meta.get("source") or ""), max_bytes)
    else:
        raw = _read_limited(path, max_bytes)
    if not attachment:
        return raw
    message = _parse_message(raw, magic(Blob(name=path.name, data=raw)), path.name)
    for part in message.attachments:
        if part.name == attachment:
            return part.data
    raise LookupError(f"the message no longer holds the attachment {attachment!r}")


def _message_bytes(path: Path, container: str, source: str, max_bytes: int) -> bytes:
    if container == "dir":  # Maildir: the source is the message file inside the folder
        if not inside(source, [os.path.realpath(path)]):
            raise LookupError("the message file lies outside its Maildir folder")
        return _read_limited(Path(source), max_bytes)
    if container != "mbox":
        return _read_limited(path, max_bytes)
    box = mailbox.mbox(str(path), create=False)
    try:
        keys = box.keys()
        _, _, position = source.rpartition("#")
        index = int(position) if "#" in source and position.isdigit() else 0
        if index >= len(keys):
            raise LookupError(f"the mailbox no longer has message {index}")
        raw = box.get_bytes(keys[index])
    finally:
        box.close()
    if len(raw) > max_bytes:
        raise ValueError(f"the message is over the {max_bytes}-byte limit")
    return raw


def _read_limited(path: Path, max_bytes: int) -> bytes:
    if path.stat().st_size > max_bytes:
        raise ValueError(f"the file is over the {max_bytes}-byte limit")
    return read_regular(path)


def _parse_message(raw: bytes, kind: str, name: str) -> ParsedMessage:
    return parse_msg(raw, name) if kind == "ole2" else parse_rfc822(raw)


def _view(stored: Original, data: bytes) -> Original:
    kind = magic(Blob(name="document", data=data))
    if kind in INLINE_TYPES:
        shown = "pdf" if kind == "pdf" else "image"
        return dataclasses.replace(stored, kind=shown, data=data, media_type=INLINE_TYPES[kind])
    if kind in _MESSAGE_KINDS:
        message = _parse_message(data, kind, "message")
        headers = tuple((name, _header(message, name)) for name in EMAIL_HEADERS)
        return dataclasses.replace(stored, kind="email", text=message.text,
                                   headers=tuple(h for h in headers if h[1]))
    if kind in _TEXT_KINDS:
        return dataclasses.replace(stored, text=data.decode("utf-8", errors="replace"))
    return stored  # html, calendars, HEIC: the text as stored reads better than the bytes


def _header(message: ParsedMessage, name: str) -> str:
    if name in ("From", "To", "Cc"):
        return address_list(message.headers.get_all(name))
    return header_text(message.headers.get(name))
