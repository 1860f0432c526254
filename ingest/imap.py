"""Reading mail where it lives: one IMAP connection per account, read-only.

Folders are opened with EXAMINE and bodies fetched with BODY.PEEK[], so reading never sets
\\Seen, and no command here stores flags, copies, moves or expunges. Messages come in
batches, one UID FETCH for many UIDs; each message's bytes then go through the same email
ingestor as a file's (`message_items`).

TLS: `imaps://` is TLS from the first byte; `imap://` upgrades with STARTTLS, and only a
loopback server may be spoken to without it. Certificates are always verified (against
`imap.ca_file` when set, else the system's store).
"""
from __future__ import annotations

import dataclasses
import imaplib
import re
import socket
import ssl
from datetime import datetime
from typing import Iterable, Iterator, Sequence

from .blob import Blob
from .config import ImapSection
from .document import Document, ItemFailure
from .email_message import check_message_size, message_documents, parse_rfc822
from .imap_auth import ImapAuthError, ImapError, Secrets
from .imap_url import AUTH_XOAUTH2, Account, FolderUrl, decode_folder, encode_folder
from .registry import Context, Item

__all__ = ["ImapError", "ImapAuthError", "ImapConnectionLost", "ImapSession", "FolderStatus",
           "FetchedMessage", "message_items", "INTERNALDATE"]

INTERNALDATE = "internaldate"   # the date_source of a message dated by its server
# Special-use attributes (RFC 6154) of folders `/*` leaves out unless named.
_SKIPPED_USES = frozenset({"\\trash", "\\junk"})
_UNSELECTABLE = frozenset({"\\noselect", "\\nonexistent"})
# Saying goodbye to a server is a courtesy: a dead connection is not waited on for long.
_LOGOUT_SECONDS = 1.0


class ImapConnectionLost(ImapError):
    """The connection dropped or timed out part-way; what was stored stays, and the next
    run continues from the last UID recorded."""


@dataclasses.dataclass(frozen=True)
class FolderStatus:
    uidvalidity: int
    uidnext: int | None
    exists: int


@dataclasses.dataclass(frozen=True)
class FetchedMessage:
    uid: int
    raw: bytes
    internaldate: datetime | None


class ImapSession:
    """A logged-in connection to one account. Every call raises ImapConnectionLost when
    the connection fails and ImapError when the server refuses."""

    def __init__(self, account: Account, secrets: Secrets, cfg: ImapSection):
        self.account = account
        self.cfg = cfg
        self._conn = self._connect()
        try:
            self._login(secrets.secret_for(account))
            self._conn.sock.settimeout(cfg.timeout_seconds)
        except BaseException:
            self.close()
            raise

    # ---- connecting -------------------------------------------------------------------
    def _connect(self) -> imaplib.IMAP4:
        account, timeout = self.account, self.cfg.connect_timeout_seconds
        context = ssl.create_default_context(cafile=self.cfg.ca_file or None)
        where = account.url
        try:
            if account.scheme == "imaps":
                return imaplib.IMAP4_SSL(account.host, account.port, ssl_context=context,
                                         timeout=timeout)
            conn = imaplib.IMAP4(account.host, account.port, timeout=timeout)
        except ssl.SSLCertVerificationError as err:
            raise ImapError(f"{where}: the server's certificate is not trusted: "
                            f"{err.verify_message or err}") from err
        except (OSError, imaplib.IMAP4.error) as err:
            raise ImapError(f"{where}: cannot connect: {_reason(err)}") from err
        try:
            if "STARTTLS" in conn.capabilities:
                conn.starttls(ssl_context=context)
            elif not account.loopback:
                raise ImapError(f"{where}: the server offers no STARTTLS; the password is never sent "
                                "unencrypted to another machine (use imaps://)")
        except ssl.SSLCertVerificationError as err:
            _shut(conn)
            raise ImapError(f"{where}: the server's certificate is not trusted: "
                            f"{err.verify_message or err}") from err
        except (OSError, imaplib.IMAP4.error) as err:
            _shut(conn)
            raise ImapError(f"{where}: STARTTLS failed: {_reason(err)}") from err
        except ImapError:
            _shut(conn)
            raise
        return conn

    def _login(self, secret: str) -> None:
        conn, user = self._conn, self.account.user
        try:
            if self.account.auth == AUTH_XOAUTH2:
                conn.authenticate("XOAUTH2", _once(f"user={user}\x01auth=Bearer {secret}\x01\x01"))
            elif "AUTH=PLAIN" in conn.capabilities:
                # AUTHENTICATE PLAIN carries UTF-8; imaplib's LOGIN only ASCII.
                conn.authenticate("PLAIN", _once(f"\x00{user}\x00{secret}"))
            else:
                conn.login(user, secret)
        except imaplib.IMAP4.abort as err:
            raise ImapConnectionLost(f"{self.account.url}: connection lost while logging in: "
                                     f"{_reason(err)}") from err
        except imaplib.IMAP4.error as err:
            raise ImapAuthError(f"{self.account.url}: login failed: {_reason(err)}") from err
        except OSError as err:
            raise ImapConnectionLost(f"{self.account.url}: connection lost while logging in: "
                                     f"{_reason(err)}") from err

    def close(self) -> None:
        _shut(self._conn)

    # ---- folders ----------------------------------------------------------------------
    def folders(self, skip_names: Sequence[str]) -> list[str]:
        """Every selectable folder, without Trash and Junk (by special use or by name)."""
        typ, data = self._call("LIST", lambda c: c.list('""', "*"))
        skip = {name.lower() for name in skip_names}
        out = []
        for flags, delimiter, name in _list_entries(data):
            lowered = {f.lower() for f in flags}
            if lowered & _UNSELECTABLE or lowered & _SKIPPED_USES:
                continue
            leaf = name.rsplit(delimiter, 1)[-1] if delimiter else name
            if leaf.lower() in skip:
                continue
            out.append(name)
        return sorted(out, key=lambda n: (n.upper() != "INBOX", n))

    def examine(self, folder: str) -> FolderStatus:
        """Open `folder` read-only (EXAMINE)."""
        typ, data = self._call("EXAMINE", lambda c: c.select(_quoted(folder), readonly=True))
        if typ != "OK":
            raise ImapError(f"{self.account.url}: cannot open folder {folder!r}: {_text(data)}")
        codes = self._conn.untagged_responses
        uidvalidity = _first_int(codes.get("UIDVALIDITY"))
        if uidvalidity is None:
            raise ImapError(f"{self.account.url}: folder {folder!r} has no UIDVALIDITY")
        return FolderStatus(uidvalidity, _first_int(codes.get("UIDNEXT")), _first_int(data) or 0)

    def sizes_after(self, last_uid: int) -> list[tuple[int, int]]:
        """(uid, size) of every message with a UID above `last_uid`, in UID order."""
        typ, data = self._call("UID FETCH", lambda c: c.uid("FETCH", f"{last_uid + 1}:*", "(UID RFC822.SIZE)"))
        found = {}
        for head, _ in _fetch_records(data):
            uid, size = _int_field(_UID, head), _int_field(_SIZE, head)
            if uid is not None and size is not None and uid > last_uid:  # n:* always names the last
                found[uid] = size
        return sorted(found.items())

    def sizes_of(self, uids: Sequence[int]) -> list[tuple[int, int]]:
        """(uid, size) of those of `uids` the folder still holds."""
        typ, data = self._call("UID FETCH", lambda c: c.uid("FETCH", _uid_set(uids), "(UID RFC822.SIZE)"))
        wanted = set(uids)
        found = {}
        for head, _ in _fetch_records(data):
            uid, size = _int_field(_UID, head), _int_field(_SIZE, head)
            if uid in wanted and size is not None:
                found[uid] = size
        return sorted(found.items())

    def all_uids(self) -> set[int]:
        typ, data = self._call("UID SEARCH", lambda c: c.uid("SEARCH", "ALL"))
        return {int(t) for line in data if line for t in bytes(line).split() if t.isdigit()}

    def fetch(self, uids: Sequence[int]) -> list[FetchedMessage]:
        """The messages `uids`, in one UID FETCH (a UID the server no longer has is absent)."""
        if not uids:
            return []
        typ, data = self._call("UID FETCH", lambda c: c.uid(
            "FETCH", _uid_set(uids), "(UID INTERNALDATE BODY.PEEK[])"))
        out = []
        for head, literal in _fetch_records(data):
            uid = _int_field(_UID, head)
            if uid is None or literal is None:
                continue  # an unsolicited FLAGS update from another client
            out.append(FetchedMessage(uid, literal, _internaldate(head)))
        return out

    def _call(self, what: str, command):
        try:
            typ, data = command(self._conn)
        except imaplib.IMAP4.abort as err:
            raise ImapConnectionLost(f"connection lost during {what}: {_reason(err)}") from err
        except imaplib.IMAP4.error as err:
            raise ImapError(f"{what} refused: {_reason(err)}") from err
        except OSError as err:  # a timeout, a reset, a TLS error
            raise ImapConnectionLost(f"connection lost during {what}: {_reason(err)}") from err
        if typ != "OK" and what != "EXAMINE":  # EXAMINE's NO names the folder: said there
            raise ImapError(f"{what} refused: {_text(data)}")
        return typ, data


def batches(sizes: Sequence[tuple[int, int]], cfg: ImapSection) -> Iterator[list[tuple[int, int]]]:
    """(uid, size) pairs in groups of at most fetch_batch_messages, and fetch_batch_bytes
    by their sizes (a message larger than that is a batch of its own)."""
    batch: list[tuple[int, int]] = []
    total = 0
    for uid, size in sizes:
        if batch and (len(batch) >= cfg.fetch_batch_messages or total + size > cfg.fetch_batch_bytes):
            yield batch
            batch, total = [], 0
        batch.append((uid, size))
        total += size
    if batch:
        yield batch


def message_items(message: FetchedMessage, folder: FolderUrl, uidvalidity: int,
                  ctx: Context) -> Iterator[Item]:
    """The message's Document and its attachments', as for a message file: sourced as
    `imaps://user@host/INBOX;UID=1234`, dated by its Date header, else its INTERNALDATE."""
    source = folder.message_source(message.uid)
    blob = Blob(name=f"UID {message.uid}", data=message.raw, sniff_bytes=ctx.config.ingest.sniff_bytes,
                container_date=message.internaldate, container_date_source=INTERNALDATE)
    try:
        check_message_size(len(message.raw), ctx)
        parsed = parse_rfc822(message.raw)
        for item in message_documents(parsed, blob, ctx, source=source, fallback_key=message.raw):
            if isinstance(item, Document):
                # The folder is the "file": a message met again in another folder (a Gmail
                # label, All Mail) is a duplicate of the first, as for files. The UIDVALIDITY
                # tells a stored UID of this folder's epoch from an older one.
                item = dataclasses.replace(item, file_path=folder.url,
                                           meta={**item.meta, "imap_uidvalidity": uidvalidity})
            yield item
    except Exception as err:  # one broken message never stops the folder
        yield ItemFailure(source=source, error=f"message UID {message.uid}: {err}")


# ---- response parsing -------------------------------------------------------------------
_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_DATE = re.compile(rb'\bINTERNALDATE "([^"]+)"')
_LIST = re.compile(rb'^\((?P<flags>[^)]*)\) (?P<delim>NIL|"(?:[^"\\]|\\.)*") ?(?P<name>.*)$')


def _fetch_records(data: Iterable) -> Iterator[tuple[bytes, bytes | None]]:
    """(the response's text, its literal or None) per FETCH response. imaplib gives a
    response with a literal as (text before it, literal) followed by the text after it
    (`)` or ` UID 5)` from servers that put UID last)."""
    items = list(data or [])
    pos = 0
    while pos < len(items):
        item = items[pos]
        if isinstance(item, tuple):
            tail = items[pos + 1] if pos + 1 < len(items) and isinstance(items[pos + 1], bytes) else b""
            yield item[0] + b" " + tail, item[1]
            pos += 2 if tail else 1
        else:
            if item:
                yield bytes(item), None
            pos += 1


def _list_entries(data: Iterable) -> Iterator[tuple[list[str], str, str]]:
    """(flags, delimiter, name) per LIST line; names decoded from modified UTF-7."""
    for item in data or []:
        if item is None:
            continue
        if isinstance(item, tuple):  # a name sent as a literal
            line, literal = item[0], item[1]
        else:
            line, literal = bytes(item), None
        match = _LIST.match(line)
        if not match:
            continue
        flags = match["flags"].decode("ascii", "replace").split()
        delim = match["delim"]
        delimiter = "" if delim == b"NIL" else _unquote(delim).decode("utf-8", "replace")
        raw = literal if literal is not None else match["name"].strip()
        if literal is None and raw.startswith(b'"'):
            raw = _unquote(raw)
        yield flags, delimiter, decode_folder(raw.decode("utf-8", "replace"))


def _unquote(value: bytes) -> bytes:
    if value.startswith(b'"') and value.endswith(b'"'):
        value = value[1:-1]
    return re.sub(rb"\\(.)", rb"\1", value)


def _quoted(folder: str) -> str:
    """A folder name as an IMAP quoted string (imaplib sends arguments as they are)."""
    encoded = encode_folder(folder)
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _uid_set(uids: Sequence[int]) -> str:
    """`1:40,45,50:52`: ranges keep the command short for thousands of UIDs."""
    ordered = sorted(set(uids))
    parts, start, prev = [], ordered[0], ordered[0]
    for uid in ordered[1:] + [None]:
        if uid is not None and uid == prev + 1:
            prev = uid
            continue
        parts.append(str(start) if start == prev else f"{start}:{prev}")
        if uid is not None:
            start = prev = uid
    return ",".join(parts)


def _internaldate(head: bytes) -> datetime | None:
    found = _DATE.search(head)
    if not found:
        return None
    try:  # "23-Nov-2026 18:27:29 +0000" (the day may be space-padded)
        return datetime.strptime(found[1].decode("ascii").strip(), "%d-%b-%Y %H:%M:%S %z")
    except (ValueError, UnicodeDecodeError):
        return None


def _int_field(pattern: re.Pattern, head: bytes) -> int | None:
    found = pattern.search(head)
    return int(found[1]) if found else None


def _first_int(values) -> int | None:
    for value in values or []:
        try:
            return int(value)
        except (TypeError, ValueError):
            continue
    return None


def _text(data) -> str:
    parts = [d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d) for d in data or [] if d]
    return " ".join(parts)[:200]


def _reason(err: BaseException) -> str:
    """The server's words (imaplib passes them as bytes) or the socket error, in one line."""
    arg = err.args[0] if err.args else ""
    if isinstance(arg, bytes):
        arg = arg.decode("utf-8", "replace")
    if isinstance(err, socket.timeout) or isinstance(err, TimeoutError):
        return "timed out"
    text = str(arg) if arg else type(err).__name__
    if isinstance(err, OSError) and err.strerror:
        text = err.strerror
    return " ".join(text.split())[:200]


def _once(response: str):
    """A SASL answer for imaplib's authenticate: the credentials, then an empty line to a
    second challenge (a failed XOAUTH2 sends its error as one) so the server answers NO."""
    sent = []

    def answer(_challenge: bytes) -> bytes:
        if sent:
            return b""
        sent.append(True)
        return response.encode("utf-8")

    return answer


def _shut(conn: imaplib.IMAP4 | None) -> None:
    """Log out if the connection still answers; close it either way, promptly."""
    if conn is None:
        return
    try:
        conn.sock.settimeout(_LOGOUT_SECONDS)
        conn.logout()
    except Exception:  # already gone: nothing to say to it
        try:
            conn.shutdown()
        except Exception:
            pass
