"""IMAP folder URLs: `imaps://USER@HOST[:PORT]/FOLDER` named to ingest, and the source
string each message is stored under (`imaps://user@host/INBOX;UID=1234`).

A URL never carries a password: it is written to the report, the store and the latest
ingest record, so one in it is refused. `;AUTH=XOAUTH2` after the user (RFC 5092) asks for
an OAuth access token instead. The folder is the rest of the path, percent-decoded, so
`[Gmail]/All Mail` can be written as is (quoted for the shell) or as `%5BGmail%5D/All%20Mail`;
`*` reads every selectable folder.
"""
from __future__ import annotations

import base64
import dataclasses
import ipaddress
from urllib.parse import quote, unquote

SCHEMES = ("imaps", "imap")
DEFAULT_PORTS = {"imaps": 993, "imap": 143}   # IANA's
AUTH_PASSWORD, AUTH_XOAUTH2 = "password", "xoauth2"
_AUTH_NAMES = {"*": AUTH_PASSWORD, "plain": AUTH_PASSWORD, "login": AUTH_PASSWORD,
               "xoauth2": AUTH_XOAUTH2}
ALL_FOLDERS = "*"
MAX_PORT = 65535
# What a folder name keeps unescaped in a source string: readable, and still one token.
_FOLDER_SAFE = "/[]!$&'()*+,:=@-._~"


class ImapUrlError(ValueError):
    """A string that names no IMAP folder we can read; the message says why."""


def is_imap_url(text: str) -> bool:
    return text[:8].lower().startswith(tuple(f"{s}://" for s in SCHEMES))


@dataclasses.dataclass(frozen=True)
class Account:
    """Who to log in as, where: one connection serves every folder of one account."""

    scheme: str
    user: str
    host: str
    port: int
    auth: str = AUTH_PASSWORD

    @property
    def url(self) -> str:
        """`imaps://user@host[:port]` (the user percent-encoded: `me%40gmail.com`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{quote(self.user, safe='')}@{host}{port}"

    @property
    def loopback(self) -> bool:
        """Whether the server is this machine: only then may `imap://` go without TLS."""
        if self.host.lower() == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


@dataclasses.dataclass(frozen=True)
class FolderUrl:
    account: Account
    folder: str

    @property
    def url(self) -> str:
        return f"{self.account.url}/{quote(self.folder, safe=_FOLDER_SAFE)}"

    def named(self, folder: str) -> "FolderUrl":
        return dataclasses.replace(self, folder=folder)

    def message_source(self, uid: int) -> str:
        return f"{self.url};UID={uid}"


def parse_imap_url(text: str) -> FolderUrl:
    """The folder `text` names. Raises ImapUrlError (a password in it, no user, a bad port)."""
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        raise ImapUrlError(f"not an IMAP URL (imaps://USER@HOST/FOLDER): {text[:80]}")
    netloc, _, path = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")  # the user may be me@gmail.com
    if not at or not userinfo:
        raise ImapUrlError(f"{scheme}:// needs the user to log in as: {scheme}://USER@HOST/FOLDER")
    if ":" in userinfo:
        raise ImapUrlError("a password does not belong in the URL (it would be stored with every "
                           "message): use $BRAINQUERY_IMAP_PASSWORD, ~/.netrc or --password-command")
    user, _, auth_part = userinfo.partition(";")
    auth = AUTH_PASSWORD
    if auth_part:
        key, _, value = auth_part.partition("=")
        auth = _AUTH_NAMES.get(unquote(value).lower()) if key.lower() == "auth" else None
        if auth is None:
            raise ImapUrlError(f"unknown ;{auth_part} (the user may carry ;AUTH=XOAUTH2)")
    host, port = _host_port(hostport, scheme)
    folder = unquote(path) or "INBOX"
    if any(ord(c) < 32 or c == "\x7f" for c in folder):
        raise ImapUrlError("a folder name holds a control character")
    return FolderUrl(Account(scheme, unquote(user), host, port, auth), folder)


def _host_port(hostport: str, scheme: str) -> tuple[str, int]:
    if hostport.startswith("["):
        host, _, tail = hostport[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else tail
    else:
        host, _, port_text = hostport.partition(":")
    if not host:
        raise ImapUrlError(f"{scheme}:// needs a host: {scheme}://USER@HOST/FOLDER")
    if not port_text:
        return host.lower(), DEFAULT_PORTS[scheme]
    if not port_text.isdigit() or not 1 <= int(port_text) <= MAX_PORT:
        raise ImapUrlError(f"a port is 1 to {MAX_PORT}, got {port_text[:20]!r}")
    return host.lower(), int(port_text)


# ---- modified UTF-7 (RFC 3501 5.1.3): how IMAP spells folder names beyond ASCII -----------
def encode_folder(name: str) -> str:
    """`Entwürfe` -> `Entw&APw-rfe`."""
    out, pending = [], []

    def flush() -> None:
        if pending:
            raw = "".join(pending).encode("utf-16-be")
            out.append("&" + base64.b64encode(raw).decode("ascii").rstrip("=").replace("/", ",") + "-")
            pending.clear()

    for char in name:
        if 0x20 <= ord(char) <= 0x7e:
            flush()
            out.append("&-" if char == "&" else char)
        else:
            pending.append(char)
    flush()
    return "".join(out)


def decode_folder(name: str) -> str:
    """`Entw&APw-rfe` -> `Entwürfe`; a name that is not valid modified UTF-7 is kept as is."""
    out, pos = [], 0
    while pos < len(name):
        amp = name.find("&", pos)
        if amp < 0:
            out.append(name[pos:])
            break
        end = name.find("-", amp)
        if end < 0:
            return name
        out.append(name[pos:amp])
        chunk = name[amp + 1:end]
        if not chunk:
            out.append("&")
        else:
            b64 = chunk.replace(",", "/")
            try:
                out.append(base64.b64decode(b64 + "=" * (-len(b64) % 4)).decode("utf-16-be"))
            except (ValueError, UnicodeDecodeError):
                return name
        pos = end + 1
    return "".join(out)
