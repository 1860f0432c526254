"""Content sniffing: what a blob *is*, from its first bytes, not its name."""
from __future__ import annotations

import re

from .blob import Blob

_EMAIL_HEADER = re.compile(
    rb"^(received|from|to|subject|date|message-id|mime-version|return-path|delivered-to|"
    rb"x-[a-z0-9-]+|reply-to|content-type|cc|sender|envelope-to|dkim-signature|"
    rb"authentication-results|arc-[a-z-]+|thread-[a-z]+|in-reply-to|references)\s*:",
    re.IGNORECASE | re.MULTILINE,
)
_HTML = re.compile(rb"\s*(<!--.*?-->\s*)*<(!doctype\s+html|html[\s>]|head[\s>])", re.IGNORECASE | re.DOTALL)
_FTYP_BRANDS = {
    b"heic": "heic", b"heix": "heic", b"hevc": "heic", b"heim": "heic", b"heis": "heic",
    b"mif1": "heic", b"msf1": "heic", b"avif": "avif", b"avis": "avif",
}


def magic(blob: Blob) -> str:
    """A short format name: pdf, jpeg, png, tiff, heic, avif, gif, webp, ole2, zip,
    mbox, ics, email, html, text, binary, empty, dir."""
    if blob.is_dir:
        return "dir"
    head = blob.head
    if not head:
        return "empty"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if head[4:8] == b"ftyp":
        return _FTYP_BRANDS.get(head[8:12], "isobmff")
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "ole2"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if b"%PDF-" in head[:1024]:
        return "pdf"
    text = head.lstrip(b"\xef\xbb\xbf\r\n\t ")
    if text.startswith(b"From ") and _EMAIL_HEADER.search(head):
        return "mbox"
    upper = text[:200].upper()
    if upper.startswith(b"BEGIN:VCALENDAR") or upper.startswith(b"BEGIN:VEVENT"):
        return "ics"
    if b"\x00" in head:
        return "binary"
    if len(_EMAIL_HEADER.findall(head)) >= 2 and _looks_like_header_block(head):
        return "email"
    if _HTML.match(text):
        return "html"
    return "text"


def _looks_like_header_block(head: bytes) -> bool:
    """Most of the first lines are `Name: value` or folded continuations."""
    lines = head.split(b"\n", 40)[:40]
    header_like = 0
    seen = 0
    for line in lines:
        line = line.rstrip(b"\r")
        if not line:
            break
        seen += 1
        if line[:1] in (b" ", b"\t") or re.match(rb"^[!-9;-~]+:", line):
            header_like += 1
    return seen > 0 and header_like / seen >= 0.8
