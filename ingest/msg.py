"""Outlook .msg files (OLE2 compound documents), read with olefile.

The message's own RFC 822 headers survive in PR_TRANSPORT_MESSAGE_HEADERS; when a
message was never sent (a draft) they are missing and PR_CLIENT_SUBMIT_TIME or the
creation time stand in for the Date header. The body is the plain-text property, else
the HTML one, else PR_RTF_COMPRESSED — the only copy many Outlook messages keep —
decompressed by compressed-rtf and read as text by striprtf (whether it wraps plain text
or HTML). extract-msg would do all of this, but it is GPL-3.0 and pins olefile.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import io
import logging
import re
import struct
from datetime import datetime, timedelta, timezone
from typing import Iterator

from .blob import Blob
from .document import IngestError
from .email_message import Attachment, ParsedMessage, message_documents
from .html_text import html_to_text
from .registry import Context, Item

log = logging.getLogger(__name__)

# MAPI property ids (hex) as stream-name suffixes; 001F = UTF-16 string, 001E = 8-bit.
_TRANSPORT_HEADERS = "007D"
_SUBJECT = "0037"
_BODY = "1000"
_HTML = "1013"
_RTF_COMPRESSED = "1009"
_RTF_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_SENDER_NAME = "0C1A"
_SENDER_EMAIL = "0C1F"
_DISPLAY_TO = "0E04"
_MESSAGE_ID = "1035"
_SUBMIT_TIME = 0x0039
_CREATION_TIME = 0x3007
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=timezone.utc)


class OutlookMsgIngestor:
    name = "outlook-msg"

    def claim(self, blob: Blob, kind: str) -> float | None:
        return 1.0 if kind == "ole2" and blob.extension in (".msg", "") else (
            0.5 if kind == "ole2" else None)

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        raw = blob.read()
        message = parse_msg(raw, blob.name)
        yield from message_documents(message, blob, ctx, source=blob.source, fallback_key=raw)


def parse_msg(raw: bytes, name: str) -> ParsedMessage:
    """An Outlook .msg file's headers, body and attachments. Raises IngestError."""
    import olefile

    try:
        ole = olefile.OleFileIO(io.BytesIO(raw))
    except (OSError, ValueError) as err:
        raise IngestError(f"{name}: not a readable Outlook message: {err}") from err
    with ole:
        if not ole.exists(f"__substg1.0_{_SUBJECT}001F") and not ole.exists(
                f"__substg1.0_{_SUBJECT}001E") and not ole.exists("__properties_version1.0"):
            raise IngestError(f"{name}: an OLE2 file, but not an Outlook message")
        return _parsed(ole)


def _parsed(ole) -> ParsedMessage:
    headers_text = _string(ole, _TRANSPORT_HEADERS)
    headers = email.message_from_string(headers_text or "", policy=email.policy.compat32)
    # Drop the MIME structure the transport headers describe: we rebuild the body ourselves.
    for name in ("Content-Type", "Content-Transfer-Encoding"):
        del headers[name]
    fill = {
        "Subject": _string(ole, _SUBJECT),
        "From": email.utils.formataddr((_string(ole, _SENDER_NAME) or "", _string(ole, _SENDER_EMAIL) or "")),
        "To": _string(ole, _DISPLAY_TO),
        "Message-ID": _string(ole, _MESSAGE_ID),
    }
    for name, value in fill.items():
        if value and not headers.get(name):
            headers[name] = value
    if not headers.get("Date"):
        stamp = _filetime(ole, _SUBMIT_TIME) or _filetime(ole, _CREATION_TIME)
        if stamp is not None:
            headers["Date"] = email.utils.format_datetime(stamp)
    text = _string(ole, _BODY) or ""
    if not text.strip():
        html = _binary(ole, _HTML)
        if html:
            text = html_to_text(html.decode("utf-8", errors="replace"))
    if not text.strip():
        text = rtf_body(_binary(ole, _RTF_COMPRESSED))
    return ParsedMessage(headers=headers, text=text.strip(), attachments=list(_attachments(ole)))


def rtf_body(compressed: bytes | None) -> str:
    """The text of a PR_RTF_COMPRESSED body, or "" when it is absent or unreadable."""
    if not compressed:
        return ""
    import compressed_rtf
    from striprtf.striprtf import rtf_to_text

    try:
        rtf = compressed_rtf.decompress(compressed)
        found = _RTF_CODEPAGE.search(rtf[:1024])
        codepage = f"cp{int(found.group(1))}" if found else "cp1252"
        try:
            "".encode(codepage)
        except LookupError:
            codepage = "cp1252"
        return rtf_to_text(rtf.decode(codepage, errors="replace"), encoding=codepage,
                           errors="replace")
    except Exception as err:  # compressed-rtf and striprtf raise assorted errors on bad data
        log.debug("unreadable RTF body: %s", err)
        return ""


def _string(ole, prop: str, prefix: str = "") -> str | None:
    for suffix, encoding in (("001F", "utf-16-le"), ("001E", "cp1252")):
        name = f"{prefix}__substg1.0_{prop}{suffix}"
        if ole.exists(name):
            return ole.openstream(name).read().decode(encoding, errors="replace").rstrip("\x00")
    return None


def _binary(ole, prop: str, prefix: str = "") -> bytes | None:
    name = f"{prefix}__substg1.0_{prop}0102"
    return ole.openstream(name).read() if ole.exists(name) else None


def _filetime(ole, prop_id: int) -> datetime | None:
    """A PT_SYSTIME property from the top-level property stream (32-byte header)."""
    if not ole.exists("__properties_version1.0"):
        return None
    data = ole.openstream("__properties_version1.0").read()
    for offset in range(32, len(data) - 15, 16):
        tag, _flags, value = struct.unpack_from("<IIQ", data, offset)
        if tag >> 16 == prop_id and tag & 0xFFFF == 0x0040 and value:
            return _FILETIME_EPOCH + timedelta(microseconds=value // 10)
    return None


def _attachments(ole) -> Iterator[Attachment]:
    prefixes = sorted({entry[0] for entry in ole.listdir() if entry[0].startswith("__attach_version1.0_")})
    for prefix in prefixes:
        data = _binary(ole, "3701", prefix + "/")
        if not data:
            continue
        name = _string(ole, "3707", prefix + "/") or _string(ole, "3704", prefix + "/") or prefix
        mime = _string(ole, "370E", prefix + "/") or "application/octet-stream"
        yield Attachment(name=name, content_type=mime.lower(), data=data)
