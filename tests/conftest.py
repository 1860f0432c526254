from __future__ import annotations

import csv
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ingest.config import load_ingest_config
from ingest.registry import Context, default_registry

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
REALDATA = REPO.parent / "shared" / "realdata"
# A pinned ingest clock: tests never depend on the day they run.
INGEST_NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
# The fixture household's evaluation clock (fixtures/FACTS.md): Wednesday noon in Alder Falls.
ASK_NOW = datetime(2026, 11, 18, 12, 0, tzinfo=timezone(timedelta(hours=-6)))


def free_port() -> int:
    """A loopback port nothing listens on (for a server a test starts)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def ingest_config():
    return load_ingest_config()


@pytest.fixture(scope="session")
def asked_corpus(tmp_path_factory):
    """fixtures/corpus ingested once per session (~5 s): a Brain to ask questions of.
    Read-only: a test that ingests builds its own store."""
    from brainquery import Brain

    brain = Brain(tmp_path_factory.mktemp("asked_corpus") / "store")
    brain.ingest([FIXTURES / "corpus"], now=INGEST_NOW)
    return brain


@pytest.fixture()
def ctx(ingest_config):
    return Context(config=ingest_config, now=INGEST_NOW, registry=default_registry())


def realdata_rows(kind: str | None = None) -> list[dict[str, str]]:
    """MANIFEST.csv rows of ../shared/realdata (empty when the folder is absent)."""
    manifest = REALDATA / "MANIFEST.csv"
    if not manifest.exists():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] != "expected_json"]
    return [r for r in rows if kind is None or r["kind"] == kind]


requires_realdata = pytest.mark.skipif(
    not (REALDATA / "MANIFEST.csv").exists(), reason="../shared/realdata is absent"
)


def brain_of(tmp_path: Path, files: dict[str, str], now: datetime):
    """A Brain whose store holds these files (name: text), ingested at `now`."""
    from brainquery import Brain

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    brain = Brain(tmp_path / "store")
    brain.ingest([docs], now=now)
    return brain


def write_eml(path: Path, headers: dict[str, str], body: str = "Hello.", charset: str = "utf-8") -> Path:
    """Write a real RFC 822 message with these headers and a text body."""
    from email.message import EmailMessage

    msg = EmailMessage()
    for key, value in headers.items():
        msg[key] = value
    msg.set_content(body, charset=charset)
    path.write_bytes(bytes(msg))
    return path


# ---- a household with a hostile sender, for the web page ------------------------------
# Every payload sets window.__pwned if it ever runs; the browser tests read it back.
HOSTILE_SUBJECT = "<script>window.__pwned='subject'</script> Zoo field trip permission slip"
HOSTILE_BODY = ("The zoo field trip permission slip is due Thursday.\n"
                "<img src=x onerror=\"window.__pwned='body'\">\n"
                "<a href=\"javascript:window.__pwned='link'\">Sign the slip here</a>\n")
HOSTILE_NOTE_NAME = "<b onmouseover=\"window.__pwned='name'\">zoo packing list.md"
HOSTILE_QUESTION = "When is the zoo field trip permission slip due?"


def write_hostile_household(folder: Path) -> Path:
    """An email whose subject and body hold script, an event handler and a javascript:
    link (plain text and HTML parts), and a note whose file name is markup."""
    from email.message import EmailMessage

    folder.mkdir(parents=True, exist_ok=True)
    msg = EmailMessage()
    msg["From"] = "Room 114 <room114@maplegrove.example>"
    msg["To"] = "parents@maplegrove.example"
    msg["Subject"] = HOSTILE_SUBJECT
    msg["Date"] = "Mon, 16 Nov 2026 08:00:00 -0600"
    msg["Message-ID"] = "<zoo-trip-2026@maplegrove.example>"
    msg.set_content(HOSTILE_BODY)
    msg.add_alternative(f"<html><body><p>{HOSTILE_BODY}</p></body></html>", subtype="html")
    (folder / "zoo-trip.eml").write_bytes(bytes(msg))
    (folder / HOSTILE_NOTE_NAME).write_text("Zoo packing list: sunscreen, water bottle, lunch.\n",
                                            encoding="utf-8")
    return folder
