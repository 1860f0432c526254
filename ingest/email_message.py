"""Email messages: one RFC 822 message in, its Document and its attachments' Documents out.

mail-parser decodes bodies and charsets; the raw headers are read from the standard
library message underneath, because mail-parser's `.date` swallows errors and returns
None. The .eml, mbox, Maildir and Outlook ingestors all end in `message_documents`.
"""
from __future__ import annotations

import dataclasses
import email
import email.parser
import email.policy
import email.utils
import hashlib
import logging
import re
from email.header import decode_header, make_header
from email.message import Message
from typing import Iterator, Sequence

from .blob import Blob, Parent
from .config import EmailSection
from .dates import make_aware, parse_header_date
from .document import Document, IngestError, ItemFailure, make_id
from .html_text import html_to_text
from .provenance import fallback_date
from .registry import Context, Item

log = logging.getLogger(__name__)
# mail-parser logs every part type it does not render ("Email content 'jpg' not handled").
logging.getLogger("mailparser").setLevel(logging.ERROR)


@dataclasses.dataclass
class Attachment:
    name: str
    content_type: str
    data: bytes


@dataclasses.dataclass
class ParsedMessage:
    """What every mail format reduces to before it becomes a Document."""

    headers: Message
    text: str
    attachments: list[Attachment]
    # The HTML alternative as text, when the body came from text/plain: marketing mail
    # often carries a one-line plain part and keeps its footer in the HTML.
    alternative_text: str = ""
    # Display headers (DECODED_HEADERS) as email.policy.default reads them from the raw
    # bytes: RFC 2047 words and raw UTF-8 (RFC 6532) alike. Empty: use `headers`.
    decoded: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def header(self, name: str) -> str:
        """A display header as readable text."""
        if name in self.decoded:
            return self.decoded[name][0]
        return header_text(self.headers.get(name))

    def addresses(self, name: str) -> str:
        if name in self.decoded:
            return _format_addresses(self.decoded[name])
        return address_list(self.headers.get_all(name))


# Headers shown to people; the others (dates, ids) are read raw from `headers`.
DECODED_HEADERS = ("Subject", "From", "To", "Cc", "Sender", "List-Id")


def decoded_headers(raw: bytes) -> dict[str, list[str]]:
    """The display headers of a raw message, decoded by the standard library's modern
    policy. A header it cannot read is left out (the caller falls back to compat32's)."""
    parsed = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
    out: dict[str, list[str]] = {}
    for name in DECODED_HEADERS:
        try:
            values = [" ".join(str(v).split()) for v in parsed.get_all(name) or ()]
        except Exception as err:  # the header classes raise assorted errors on odd input
            log.debug("header %s unreadable by policy.default: %s", name, err)
            continue
        if values and not any("\ufffd" in v or _SURROGATE.search(v) for v in values):
            out[name] = values
    return out


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def parse_rfc822(raw: bytes) -> ParsedMessage:
    """Parse raw message bytes. Raises IngestError for bytes that are not a message."""
    import mailparser

    if not raw.strip():
        raise IngestError("empty message")
    try:
        parsed = mailparser.parse_from_bytes(raw)
        headers = parsed.message
        plain = "\n\n".join(t for t in parsed.text_plain if t and t.strip())
        html = "\n".join(t for t in parsed.text_html if t)
    except Exception as err:  # mail-parser raises a zoo of errors on broken input
        log.debug("mail-parser failed (%s); falling back to the standard library", err)
        headers = email.message_from_bytes(raw, policy=email.policy.compat32)
        plain, html = _stdlib_bodies(headers)
    if not _has_message_headers(headers):
        raise IngestError("not an email message: no From/Date/Subject/Message-ID headers")
    html_text = html_to_text(html) if html else ""
    if plain.strip():
        text, alternative = plain, html_text
    else:
        text, alternative = html_text, ""
    return ParsedMessage(headers=headers, text=text.strip(), attachments=list(_attachments(headers)),
                         alternative_text=alternative, decoded=decoded_headers(raw))


def check_message_size(size: int, ctx: Context) -> None:
    """Containers call this with a message's size before they read it: a 300 MB message
    in an mbox is refused without being held in memory."""
    limit = ctx.config.ingest.max_message_bytes
    if size > limit:
        raise IngestError(f"message is {size} bytes, over the {limit}-byte limit")


def message_documents(
    message: ParsedMessage, blob: Blob, ctx: Context, *, source: str, fallback_key: bytes
) -> Iterator[Item]:
    """The message's Document, then its attachments' (each traced back to the message)."""
    cfg = ctx.config
    headers = message.headers
    message_id = _clean_id(headers.get("Message-ID") or headers.get("Message-Id"))
    doc_id = make_id("message", message_id) if message_id else make_id(
        "message-bytes", hashlib.sha256(fallback_key).hexdigest())
    subject = message.header("Subject")

    source_date, date_source, floating = _message_date(headers, ctx)
    if source_date is None:
        source_date, date_source, floating = fallback_date(blob, ctx)

    text = message.text
    doc_type, invoice_meta = _message_type(message, subject, cfg, ctx)
    meta = {
        "from": message.addresses("From"),
        "to": message.addresses("To"),
        "cc": message.addresses("Cc"),
        "subject": subject,
        "in_reply_to": _clean_id(headers.get("In-Reply-To")),
        "references": " ".join(_ids(headers.get("References"))),
        "thread_id": _thread_root(headers, message_id),
        "list_id": message.header("List-Id"),
        "attachments": "; ".join(a.name for a in message.attachments),
        **invoice_meta,
    }
    body = "\n\n".join(part for part in (f"Subject: {subject}" if subject else "", text) if part)
    yield Document(
        doc_id=doc_id,
        text=body or subject,
        title=subject or "(no subject)",
        source=source,
        file_path=blob.file_path,
        doc_type=doc_type,
        source_date=source_date,
        date_source=date_source,
        ingestion_date=ctx.now,
        message_id=message_id,
        parent_id=blob.parent.doc_id if blob.parent else "",
        attachment=blob.name if blob.parent else "",
        date_floating=floating,
        meta={k: v for k, v in meta.items() if v},
    )
    parent = Parent(doc_id=doc_id, source=source, file_path=blob.file_path, message_id=message_id,
                    source_date=source_date, date_source=date_source, date_floating=floating)
    yield from _attachment_documents(message.attachments, parent, ctx)


def _attachment_documents(attachments: Sequence[Attachment], parent: Parent, ctx: Context) -> Iterator[Item]:
    cfg = ctx.config
    for att in attachments:
        if not _wanted(att, cfg.email):
            continue
        if len(att.data) > cfg.ingest.max_attachment_bytes:
            yield ItemFailure(source=parent.source, title=att.name, message_id=parent.message_id,
                              attachment=att.name, error=f"attachment {att.name!r} is {len(att.data)} bytes, over the "
                                    f"{cfg.ingest.max_attachment_bytes}-byte limit")
            continue
        blob = Blob(name=att.name, data=att.data, parent=parent, content_type=att.content_type,
                    sniff_bytes=cfg.ingest.sniff_bytes)
        try:
            yield from ctx.registry.ingest(blob, ctx)
        except Exception as err:  # one bad attachment never loses its message
            yield ItemFailure(source=parent.source, title=att.name, message_id=parent.message_id,
                              attachment=att.name, error=str(err))


def _wanted(att: Attachment, cfg: EmailSection) -> bool:
    ext = ("." + att.name.rsplit(".", 1)[-1].lower()) if "." in att.name else ""
    ctype = att.content_type.lower()
    if not (ext in cfg.attachment_extensions
            or any(ctype.startswith(t) for t in cfg.attachment_content_types)):
        return False
    is_image = ctype.startswith("image/") or ext in (".jpg", ".jpeg", ".png", ".gif", ".webp")
    return not (is_image and len(att.data) < cfg.min_image_attachment_bytes)


def _message_date(headers: Message, ctx: Context):
    """Date header, else the newest Received stamp. (None, "", False) when neither parses."""
    zone = ctx.floating_zone
    for raw, name in ((headers.get("Date"), "date_header"),
                      (_received_date_text(headers.get_all("Received")), "received_header")):
        value, floating = parse_header_date(header_text(raw) if raw else None)
        if value is None:
            continue
        value, _ = make_aware(value, zone)
        if ctx.plausible(value):
            return value, name, floating
    return None, "", False


def _received_date_text(received: Sequence[str] | None) -> str | None:
    # The topmost Received header is the last hop: closest to when the mailbox got it.
    for value in received or ():
        text = str(value)
        if ";" in text:
            return text.rsplit(";", 1)[1].strip()
    return None


def _message_type(message: ParsedMessage, subject: str, cfg, ctx: Context):
    body = f"{message.text}\n{message.alternative_text}"
    if bulk_score(message.headers, subject, body, cfg.email) >= cfg.email.newsletter_threshold:
        return "newsletter", {}
    from .invoice import analyse

    info = analyse(message.text, cfg, ctx.floating_zone, title=subject)
    if info is not None:
        return info.kind, info.meta()
    return "email", {}


_CAMPAIGN_HEADERS = re.compile(r"^(x-campaign|x-mailchimp|x-mc-user|feedback-id|x-sfmc|x-marketo|"
                               r"x-mailgun-tag|x-sg-eid|x-ems|x-newsletter)", re.IGNORECASE)


def bulk_score(headers: Message, subject: str, text: str, cfg: EmailSection) -> float:
    """Points of evidence that a message went to a list rather than to a person."""
    names = {k.lower() for k in headers.keys()}
    precedence = str(headers.get("Precedence", "")).strip().lower()
    relayed = [
        cfg.header_list_unsubscribe if "list-unsubscribe" in names else 0.0,
        cfg.header_list_id if "list-id" in names else 0.0,
        cfg.header_precedence_bulk if precedence in ("bulk", "list") else 0.0,
        cfg.header_precedence_junk if precedence == "junk" else 0.0,
        cfg.header_mailing_list if names & {"mailing-list", "x-mailing-list", "list-post",
                                            "list-help", "list-subscribe"} else 0.0,
    ]
    score = max(relayed)
    if any(_CAMPAIGN_HEADERS.match(n) for n in names):
        score += cfg.header_campaign
    if _ids(headers.get("In-Reply-To")) or _ids(headers.get("References")):
        score += cfg.reply_weight
    score += _address_score(headers, cfg)
    mailer = str(headers.get("X-Mailer") or headers.get("User-Agent") or "").lower()
    if mailer and any(name in mailer for name in cfg.personal_mailers):
        score += cfg.personal_mailer_weight
    lowered = f"{subject}\n{text}".lower()
    strong = sum(1 for cue in cfg.strong_body_cues if cue in lowered)
    weak = sum(1 for cue in cfg.bulk_body_cues if cue in lowered)
    score += min(cfg.body_cue_cap, strong * cfg.strong_body_cue + weak * cfg.body_cue)
    if any(cue in lowered for cue in cfg.personal_cues):
        score += cfg.personal_cue_weight
    if headers.get_content_type() == "multipart/report":
        score += cfg.report_content_type_weight
    return score


_TOKEN = re.compile(r"[a-z0-9]+")
_GROUP = re.compile(r"(?:^|,)\s*([^:,<>@\"\n]+):", re.MULTILINE)


def _address_score(headers: Message, cfg: EmailSection) -> float:
    """Bulk evidence from who sent it or whom it went to: "news@", "IETF-Announce:;"."""
    values = [header_text(v) for name in ("From", "Sender", "To", "Cc")
              for v in (headers.get_all(name) or [])]
    # Display names and local parts only: a domain ("newsome-family.org") says nothing.
    names = [f"{display} {addr.split('@', 1)[0]}" for display, addr in email.utils.getaddresses(values)]
    names += _GROUP.findall("\n".join(values))  # "IETF-Announce:;" names a group, not a mailbox
    tokens = {t for value in names for t in _TOKEN.findall(value.lower())}
    if any(t.startswith(word) for t in tokens for word in cfg.bulk_address_words):
        return cfg.bulk_address
    return 0.0


def header_text(value) -> str:
    """A header as readable text: RFC 2047 words decoded, whitespace folded."""
    if value is None:
        return ""
    try:
        text = str(make_header(decode_header(str(value))))
    except (UnicodeError, LookupError, ValueError, email.errors.HeaderParseError):
        text = str(value)
    return " ".join(text.split())


def address_list(values) -> str:
    if not values:
        return ""
    return _format_addresses([header_text(v) for v in values])


def _format_addresses(values: list[str]) -> str:
    """Addresses as people read them: a display name stays in its own script
    (email.utils.formataddr would RFC 2047-encode a non-ASCII one)."""
    pairs = email.utils.getaddresses(values)
    return ", ".join(_display_address(n, a) if n else a for n, a in pairs if n or a)


def _display_address(name: str, address: str) -> str:
    if name.isascii():
        return email.utils.formataddr((name, address))
    if _SPECIALS.search(name):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{address}>"


_SPECIALS = re.compile(r'[()<>@,;:\\".\[\]]')


_ID = re.compile(r"<([^<>\s]+)>")


def _ids(value) -> list[str]:
    return _ID.findall(str(value)) if value else []


def _clean_id(value) -> str:
    if not value:
        return ""
    found = _ids(value)
    return found[0] if found else str(value).strip().strip("<>").strip()


def _thread_root(headers: Message, message_id: str) -> str:
    refs = _ids(headers.get("References"))
    if refs:
        return refs[0]
    return _clean_id(headers.get("In-Reply-To")) or message_id


def _has_message_headers(headers: Message) -> bool:
    return any(headers.get(h) for h in ("From", "Date", "Subject", "Message-ID", "Received", "To"))


def _attachments(message: Message) -> Iterator[Attachment]:
    for index, part in enumerate(message.walk()):
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        name = part.get_filename()
        if name is None and ctype in ("text/plain", "text/html"):
            continue  # the body, already read as text
        if name is None and not ctype.startswith(("image/", "application/", "text/calendar")):
            continue
        try:
            data = part.get_payload(decode=True)
        except (ValueError, TypeError, AssertionError):
            continue
        if not data:
            continue
        name = header_text(name) if name else f"part-{index}{_extension_for(ctype)}"
        yield Attachment(name=name, content_type=ctype, data=data)


def _extension_for(ctype: str) -> str:
    return {"application/pdf": ".pdf", "text/calendar": ".ics", "image/jpeg": ".jpg",
            "image/png": ".png", "image/gif": ".gif"}.get(ctype, "")


def _stdlib_bodies(message: Message) -> tuple[str, str]:
    plain, html = [], []
    for part in message.walk():
        if part.is_multipart() or part.get_filename():
            continue
        ctype = part.get_content_type()
        if ctype not in ("text/plain", "text/html"):
            continue
        payload = part.get_payload(decode=True) or b""
        text = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
        (plain if ctype == "text/plain" else html).append(text)
    return "\n\n".join(plain), "\n".join(html)


class EmailIngestor:
    """A single message file (.eml), or an email attached to another (message/rfc822)."""

    name = "email"

    def claim(self, blob: Blob, kind: str) -> float | None:
        if kind == "email":
            return 1.0
        if kind == "text" and blob.extension in (".eml", ".msg", ".mail"):
            return 0.5  # claim it so a broken .eml is reported as a broken message
        return None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        raw = blob.read()
        try:
            message = parse_rfc822(raw)
        except IngestError as err:
            raise IngestError(f"{blob.name}: {err}") from err
        yield from message_documents(message, blob, ctx, source=blob.source, fallback_key=raw)
