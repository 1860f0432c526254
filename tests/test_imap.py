"""Mail where it lives: an IMAP folder is ingested read-only and incrementally, from a real
dovecot server on a loopback port (skipped where dovecot cannot be started)."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import selectors
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from dovecot import PASSWORD, Dovecot, DovecotUnavailable

from brainquery import Brain
from brainquery.cli import main
from brainquery.config import load_config
from conftest import REPO
from ingest.imap import _fetch_records, _uid_set
from ingest.imap_auth import ImapAuthError, Secrets
from ingest.imap_url import ImapUrlError, decode_folder, encode_folder, parse_imap_url

pytestmark = pytest.mark.imap
NOW = "2026-11-21"


# ---- the server -----------------------------------------------------------------------
def _server(tls: bool):
    try:
        server = Dovecot(tls=tls).start()
    except DovecotUnavailable as err:
        pytest.skip(f"no IMAP server: {err}")
    return server


@pytest.fixture(scope="module")
def dovecot():
    server = _server(tls=False)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def dovecot_tls():
    server = _server(tls=True)
    yield server
    server.stop()


@pytest.fixture()
def user(dovecot):
    """A mailbox of the test's own."""
    return dovecot.new_user()


@pytest.fixture(autouse=True)
def password(monkeypatch, tmp_path):
    monkeypatch.setenv("BRAINQUERY_IMAP_PASSWORD", PASSWORD)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.netrc of the machine's


def mail(n: int, subject: str | None = None, *, date: bool = True, attachment: bytes = b"") -> bytes:
    msg = EmailMessage()
    msg["From"] = "Coach Dana <coach@example.org>"
    msg["To"] = "family@example.org"
    msg["Subject"] = subject or f"Practice note {n}"
    if date:
        msg["Date"] = f"Sat, {n % 27 + 1:02d} Nov 2026 09:00:00 -0500"
    msg["Message-ID"] = f"<note-{n}@example.org>"
    msg.set_content(f"Practice {n} moves to field {n} at 5pm. Bring water bottles.")
    if attachment:
        msg.add_attachment(attachment, maintype="application", subtype="pdf", filename="roster.pdf")
    return bytes(msg)


def ingest(*args: str, store: Path, report: Path | None = None, config: Path | None = None) -> int:
    argv = ["ingest", *args, "--store", str(store), "--now", NOW]
    if report is not None:
        argv += ["--report", str(report)]
    if config is not None:
        argv += ["--config", str(config)]
    return main(argv)


def report_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def documents(store: Path) -> list[dict]:
    return Brain(store, read_only=True).documents()


def flags(server: Dovecot, user: str, folder: str = "INBOX") -> dict[int, set[str]]:
    """Every message's flags as the server holds them, read without changing them."""
    conn = server.client(user)
    try:
        conn.select(folder, readonly=True)
        typ, data = conn.uid("FETCH", "1:*", "(UID FLAGS)")
    finally:
        conn.logout()
    out = {}
    for line in data:
        found = re.search(rb"UID (\d+) FLAGS \(([^)]*)\)", line) or re.search(
            rb"FLAGS \(([^)]*)\) UID (\d+)", line)
        uid, names = (found[1], found[2]) if found.re.pattern.startswith(rb"UID") else (found[2], found[1])
        out[int(uid)] = set(names.decode().split())
    return out


def settled_log(server: Dovecot, user: str) -> str:
    """The server's log once every session of `user` has ended (dovecot logs a session's
    end, with its counters, a moment after the client hung up)."""
    deadline = time.monotonic() + 5
    while True:
        text = server.log()
        started = len(re.findall(rf"Login: user=<{user}>", text))
        ended = len(re.findall(rf"imap\({user}\)<[^>]*><[^>]*>: Info: Disconnected", text))
        if started == ended or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def bodies_fetched(server: Dovecot, user: str, since: int) -> int:
    """How many message bodies the server says it sent `user` after log offset `since`."""
    text = settled_log(server, user)[since:]
    return sum(int(n) for n in re.findall(rf"imap\({user}\).*Disconnected.*body_count=(\d+)", text))


def config_file(tmp_path: Path, **imap) -> Path:
    path = tmp_path / "imap.toml"
    lines = ["[imap]"] + [f"{k} = {json.dumps(v)}" for k, v in imap.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


# ---- syncing ----------------------------------------------------------------------------
def test_first_sync_reads_every_message_through_the_email_ingestor(tmp_path, dovecot, user, capsys):
    for n in (1, 2):
        dovecot.append(user, mail(n))
    received = datetime(2026, 10, 3, 8, 30, tzinfo=timezone.utc)
    dovecot.append(user, mail(3, date=False), when=received)
    dovecot.append(user, mail(4, "Team roster", attachment=b"%PDF-1.4 not really a pdf"))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"

    assert ingest(dovecot.url(user), store=store, report=report) == 1  # the fake PDF failed

    url = dovecot.url(user)
    docs = {d["source"] + d["attachment"]: d for d in documents(store)}
    assert set(docs) == {f"{url};UID={n}" for n in (1, 2, 3, 4)}
    assert docs[f"{url};UID=1"]["date_source"] == "date_header"
    # No Date header: the server's INTERNALDATE, said so, instead of the ingest time.
    assert docs[f"{url};UID=3"]["date_source"] == "internaldate"
    assert docs[f"{url};UID=3"]["source_date"] == received.isoformat()
    lines = report_lines(report)
    attachment_failure = [line for line in lines if line["status"] == "failed"]
    assert [(f["source"], f["attachment"]) for f in attachment_failure] == [(f"{url};UID=4", "roster.pdf")]
    out = capsys.readouterr().out
    assert f"{url}: 4 new messages" in out


def test_resync_with_nothing_new_fetches_nothing(tmp_path, dovecot, user):
    for n in range(1, 4):
        dovecot.append(user, mail(n))
    store = tmp_path / "store"
    assert ingest(dovecot.url(user), store=store) == 0
    mark = len(settled_log(dovecot, user))

    brain = Brain(store)
    summary = brain.ingest([dovecot.url(user)])

    assert summary.lines == []
    assert summary.mail_folders[0]["new"] == 0
    assert bodies_fetched(dovecot, user, mark) == 0
    assert len(brain.documents()) == 3


def test_new_mail_then_resync_fetches_only_it(tmp_path, dovecot, user):
    for n in range(1, 4):
        dovecot.append(user, mail(n))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"
    assert ingest(dovecot.url(user), store=store) == 0
    new = [dovecot.append(user, mail(n)) for n in (4, 5)]
    mark = len(settled_log(dovecot, user))

    assert ingest(dovecot.url(user), store=store, report=report) == 0

    assert [(line["source"], line["status"]) for line in report_lines(report)] == [
        (f"{dovecot.url(user)};UID={uid}", "ingested") for uid in new]
    assert bodies_fetched(dovecot, user, mark) == 2
    assert len(documents(store)) == 5


def test_a_changed_uidvalidity_relists_the_folder_without_duplicates(tmp_path, dovecot, user, capsys):
    for n in range(1, 4):
        dovecot.append(user, mail(n), folder="Receipts")
    url, store = dovecot.url(user, "Receipts"), tmp_path / "store"
    assert ingest(url, store=store) == 0
    before = {d["message_id"]: d["doc_id"] for d in documents(store)}
    # The folder is deleted and made again (a restore, a server move): new UIDVALIDITY,
    # the same messages, and one of them is gone.
    conn = dovecot.client(user)
    conn.delete("Receipts")
    conn.logout()
    for n in (2, 3):
        dovecot.append(user, mail(n), folder="Receipts")

    brain = Brain(store)
    summary = brain.ingest([url])

    after = brain.documents()
    assert {d["message_id"]: d["doc_id"] for d in after} == before
    assert len(after) == 3  # the message deleted on the server stays: the household's archive
    folder = summary.mail_folders[0]
    assert folder["relisted"] and folder["new"] == 2 and folder["gone"] == 1
    assert sorted(d["source"] for d in after if d["message_id"] != "note-1@example.org") == [
        f"{url};UID=1", f"{url};UID=2"]  # the new epoch's UIDs


def test_the_same_message_in_two_folders_is_one_document(tmp_path, dovecot, user):
    dovecot.append(user, mail(1))
    dovecot.append(user, mail(1), folder="Archive")   # a Gmail label, All Mail
    dovecot.append(user, mail(2), folder="Trash")
    dovecot.append(user, mail(3), folder=encode_folder("Entwürfe"))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"

    assert ingest(dovecot.url(user, "*"), store=store, report=report) == 0

    docs = documents(store)
    # Trash is not read.
    assert sorted(d["message_id"] for d in docs) == ["note-1@example.org", "note-3@example.org"]
    statuses = {(line["source"].rsplit("/", 1)[1], line["status"]) for line in report_lines(report)}
    assert statuses == {("Archive;UID=1", "skipped"), ("INBOX;UID=1", "ingested"),
                        ("Entw%C3%BCrfe;UID=1", "ingested")}
    # Named, Trash is read.
    assert ingest(dovecot.url(user, "Trash"), store=store) == 0
    assert len(documents(store)) == 3


def test_reading_never_changes_flags_or_moves_anything(tmp_path, dovecot, user):
    dovecot.append(user, mail(1))
    dovecot.append(user, mail(2), flags="\\Seen")
    dovecot.append(user, mail(3), flags="\\Flagged \\Answered")
    before = flags(dovecot, user)
    assert "\\Seen" not in before[1]

    assert ingest(dovecot.url(user), store=tmp_path / "store") == 0

    assert flags(dovecot, user) == before


def test_a_connection_dropped_mid_sync_is_finished_by_the_next_run(tmp_path, dovecot, user):
    for n in range(1, 31):
        dovecot.append(user, mail(n))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"
    small_batches = config_file(tmp_path, fetch_batch_messages=4)
    with CuttingProxy(dovecot.port, cut_after=6000) as proxy:
        url = dovecot.url(user, port=proxy.port)
        assert ingest(url, store=store, config=small_batches) == 1
        stored = len(documents(store))
        assert 0 < stored < 30

        proxy.cut_after = None  # the network is back
        assert ingest(url, store=store, report=report, config=small_batches) == 0

    docs = documents(store)
    assert sorted(int(d["message_id"].split("-")[1].split("@")[0]) for d in docs) == list(range(1, 31))
    ingested = [line for line in report_lines(report) if line["status"] == "ingested"]
    assert len(ingested) == 30 - stored


def test_a_killed_ingest_is_finished_by_the_next_run(tmp_path, dovecot, user):
    for n in range(1, 41):
        dovecot.append(user, mail(n))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"
    small_batches = config_file(tmp_path, fetch_batch_messages=2)
    with CuttingProxy(dovecot.port, delay=0.05) as proxy:
        url = dovecot.url(user, port=proxy.port)
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainquery", "ingest", url, "--store", str(store), "--now", NOW,
             "--report", str(report), "--config", str(small_batches)],
            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if report.exists() and len(report.read_text().splitlines()) >= 8:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the ingest finished before it could be killed"
        proc.kill()  # SIGKILL: no clean-up of any kind
        proc.wait()

        assert ingest(url, store=store) == 0

    docs = documents(store)
    assert len(docs) == 40
    assert len({d["doc_id"] for d in docs}) == 40


def test_a_wrong_password_is_one_line_and_exit_2(tmp_path, dovecot, user, monkeypatch, capsys):
    dovecot.append(user, mail(1))
    monkeypatch.setenv("BRAINQUERY_IMAP_PASSWORD", "not-the-password")

    code = ingest(dovecot.url(user), store=tmp_path / "store")

    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "login failed" in err and "AUTHENTICATIONFAILED" in err
    assert documents(tmp_path / "store") == []


def test_a_broken_message_is_one_failure_and_the_run_goes_on(tmp_path, dovecot, user, capsys):
    dovecot.append(user, mail(1))
    broken = dovecot.append(user, b"\x00\x01\x02 binary junk with no headers at all\r\n" * 3)
    nested = (b"From: a@example.org\r\nSubject: nested\r\nMessage-ID: <nested@example.org>\r\n"
              b"Content-Type: multipart/mixed; boundary=\"x\"\r\n\r\n--x\r\nContent-Type: multipart/"
              b"alternative; boundary=\"y\"\r\n\r\n--y\r\nContent-Transfer-Encoding: base64\r\n\r\n"
              b"@@@ not base64 @@@\r\n--x--\r\n")  # a part never closed, a bad encoding
    dovecot.append(user, nested)
    dovecot.append(user, mail(2))
    store, report = tmp_path / "store", tmp_path / "report.jsonl"

    assert ingest(dovecot.url(user), store=store, report=report) == 1

    failed = [line for line in report_lines(report) if line["status"] == "failed"]
    source = f"{dovecot.url(user)};UID={broken}"
    assert [line["source"] for line in failed] == [source]
    assert f"{source}: message UID {broken}: not an email message" in capsys.readouterr().out
    assert {d["message_id"] for d in documents(store)} == {
        "note-1@example.org", "note-2@example.org", "nested@example.org"}
    # Like a broken file, it is read again next time, and only it.
    mark = len(settled_log(dovecot, user))
    assert ingest(dovecot.url(user), store=store, report=report) == 1
    assert [line["source"] for line in report_lines(report)] == [source]
    assert bodies_fetched(dovecot, user, mark) == 1


def test_the_password_never_reaches_the_store_the_report_or_the_output(tmp_path, dovecot, user, capsys):
    for n in range(1, 4):
        dovecot.append(user, mail(n))
    dovecot.append(user, b"junk without headers\r\n")
    store, report = tmp_path / "store", tmp_path / "report.jsonl"

    ingest(dovecot.url(user), store=store, report=report)
    ingest(dovecot.url(user), "--json", store=store)
    Brain(store).ask("When is practice?")
    out = capsys.readouterr()

    secret = PASSWORD.encode()
    files = [p for p in store.rglob("*") if p.is_file()] + [report]
    assert len(files) > 3
    assert [str(p) for p in files if secret in p.read_bytes()] == []
    assert PASSWORD not in out.out + out.err


def test_password_command_and_xoauth2_token(tmp_path, dovecot, user, monkeypatch, capsys):
    dovecot.append(user, mail(1))
    monkeypatch.delenv("BRAINQUERY_IMAP_PASSWORD")
    command = f"printf '%s\\n' '{PASSWORD}'"
    store = tmp_path / "store"

    assert ingest(dovecot.url(user), "--password-command", command, store=store) == 0
    # Dovecot checks an XOAUTH2 bearer token against its password database.
    oauth = f"imap://{user};AUTH=XOAUTH2@127.0.0.1:{dovecot.port}/Other"
    dovecot.append(user, mail(2), folder="Other")
    assert ingest(oauth, "--password-command", command, store=store) == 0
    assert len(documents(store)) == 2
    # A failing command is one line, and its output is never shown.
    capsys.readouterr()
    assert ingest(dovecot.url(user), "--password-command", "echo s3cr3t-oops; exit 3", store=store) == 2
    err = capsys.readouterr().err
    assert "password command failed (exit 3)" in err and "s3cr3t-oops" not in err


def test_an_explicit_password_command_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("BRAINQUERY_IMAP_PASSWORD", "from-env")
    account = parse_imap_url("imaps://me@example.org/INBOX").account
    assert Secrets(password_command="echo from-command").secret_for(account) == "from-command"
    assert Secrets().secret_for(account) == "from-env"


def test_netrc_gives_the_password(tmp_path, dovecot, user, monkeypatch):
    dovecot.append(user, mail(1))
    monkeypatch.delenv("BRAINQUERY_IMAP_PASSWORD")
    netrc = tmp_path / ".netrc"
    netrc.write_text(f"machine 127.0.0.1 login {user} password {PASSWORD}\n")
    netrc.chmod(0o600)
    assert ingest(dovecot.url(user), store=tmp_path / "store") == 0


# ---- TLS ------------------------------------------------------------------------------
def test_imaps_and_starttls_verify_the_certificate(tmp_path, dovecot_tls, capsys):
    user = dovecot_tls.new_user()
    dovecot_tls.append(user, mail(1))
    store = tmp_path / "store"
    trusted = config_file(tmp_path, ca_file=dovecot_tls.ca_file)

    imaps = dovecot_tls.url(user, scheme="imaps", port=dovecot_tls.tls_port, host="localhost")
    assert ingest(imaps, store=store, config=trusted) == 0
    starttls = dovecot_tls.url(user, host="localhost")
    dovecot_tls.append(user, mail(2), folder="Other")
    assert ingest(starttls.replace("/INBOX", "/Other"), store=store, config=trusted) == 0
    assert len(documents(store)) == 2
    assert "TLS" in dovecot_tls.log().rsplit(f"user=<{user}>", 1)[1].split("\n", 1)[0]

    # Without the test CA the certificate is not trusted, and nothing is sent.
    capsys.readouterr()
    assert ingest(imaps, store=store) == 2
    assert "certificate is not trusted" in capsys.readouterr().err


def test_plain_imap_to_another_machine_is_refused_before_the_password_is_sent(tmp_path, dovecot, user,
                                                                              capsys):
    # The same server, reached through an address of this machine that is not loopback.
    address = _outward_address()
    if not address or address.startswith("127."):
        pytest.skip("this machine has no address besides loopback")
    with CuttingProxy(dovecot.port, host=address) as proxy:
        code = ingest(f"imap://{user}@{address}:{proxy.port}/INBOX", store=tmp_path / "store")
    assert code == 2
    assert "offers no STARTTLS" in capsys.readouterr().err
    assert PASSWORD.encode() not in bytes(proxy.from_client)


def _outward_address() -> str:
    """This machine's address on its default route (a UDP connect sends nothing)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached
            return sock.getsockname()[0]
    except OSError:
        return ""


# ---- the page -------------------------------------------------------------------------
def test_the_page_syncs_a_folder_the_cli_synced_and_refuses_others(tmp_path, dovecot, user):
    from fastapi.testclient import TestClient

    from brainquery.web import create_app

    dovecot.append(user, mail(1))
    store = tmp_path / "store"
    assert ingest(dovecot.url(user), store=store) == 0
    dovecot.append(user, mail(2))
    client = TestClient(create_app(Brain(store)), base_url="http://127.0.0.1:8765")

    done = client.post("/api/ingest", json={"paths": [dovecot.url(user)]})
    assert done.status_code == 200 and done.json()["statuses"] == {"ingested": 1}
    # Another host would be handed $BRAINQUERY_IMAP_PASSWORD: not without a token.
    other = client.post("/api/ingest", json={"paths": [f"imaps://{user}@mail.example.net/INBOX"]})
    assert other.status_code == 403
    # A message's original is the text stored: the page never logs in to the server.
    doc_id = documents(store)[0]["doc_id"]
    page = client.get(f"/original/{doc_id}")
    assert page.status_code == 200 and "a message on a mail server" in page.text


# ---- the pieces, without a server -----------------------------------------------------
@pytest.mark.parametrize("url, account_url, folder, auth", [
    pytest.param("imaps://me@example.org/INBOX", "imaps://me@example.org", "INBOX", "password", id="plain"),
    pytest.param("imaps://me@gmail.com@imap.gmail.com/[Gmail]/All%20Mail",
                 "imaps://me%40gmail.com@imap.gmail.com", "[Gmail]/All Mail", "password", id="gmail"),
    pytest.param("imaps://me%40gmail.com;AUTH=XOAUTH2@imap.gmail.com/INBOX",
                 "imaps://me%40gmail.com@imap.gmail.com", "INBOX", "xoauth2", id="oauth"),
    pytest.param("IMAP://bob@Mail.Example.org:1143", "imap://bob@mail.example.org:1143", "INBOX",
                 "password", id="default-folder"),
    pytest.param("imap://bob@[::1]:143/*", "imap://bob@[::1]", "*", "password", id="ipv6-all"),
])
def test_imap_urls(url, account_url, folder, auth):
    parsed = parse_imap_url(url)
    assert (parsed.account.url, parsed.folder, parsed.account.auth) == (account_url, folder, auth)


@pytest.mark.parametrize("url, reason", [
    pytest.param("imaps://me:hunter2@example.org/INBOX", "password does not belong", id="password"),
    pytest.param("imaps://example.org/INBOX", "needs the user", id="no-user"),
    pytest.param("imaps://me@example.org:0/INBOX", "a port is 1 to", id="port"),
    pytest.param("imaps://me;AUTH=GSSAPI@example.org/INBOX", "unknown ;AUTH", id="auth"),
])
def test_bad_imap_urls_are_refused(url, reason):
    with pytest.raises(ImapUrlError, match=reason):
        parse_imap_url(url)


def test_a_password_in_the_url_is_refused_before_the_store_is_touched(tmp_path, capsys):
    assert ingest("imaps://me:hunter2@example.org/INBOX", store=tmp_path / "store") == 2
    captured = capsys.readouterr()
    assert "hunter2" not in captured.err and not (tmp_path / "store").exists()


def test_plain_imap_is_only_for_loopback():
    assert parse_imap_url("imap://me@127.0.0.1/INBOX").account.loopback
    assert parse_imap_url("imap://me@localhost/INBOX").account.loopback
    assert not parse_imap_url("imap://me@192.168.1.10/INBOX").account.loopback


@pytest.mark.parametrize("name, wire", [("Entwürfe", "Entw&APw-rfe"), ("A&B", "A&-B"),
                                        ("日本語", "&ZeVnLIqe-"), ("[Gmail]/Sent Mail", "[Gmail]/Sent Mail")])
def test_folder_names_in_modified_utf7(name, wire):
    assert encode_folder(name) == wire and decode_folder(wire) == name


def test_uid_sets_and_fetch_responses_in_either_order():
    assert _uid_set([5, 1, 2, 3, 9, 10]) == "1:3,5,9:10"
    data = [(b"1 (UID 7 INTERNALDATE \"01-Nov-2026 10:00:00 +0000\" BODY[] {3}", b"abc"), b")",
            (b"2 (BODY[] {2}", b"xy"), b" UID 8)", b"3 (FLAGS (\\Seen))"]
    records = list(_fetch_records(data))
    assert [r[1] for r in records] == [b"abc", b"xy", None]
    assert b"UID 8" in records[1][0]


def test_no_password_anywhere_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("BRAINQUERY_IMAP_PASSWORD")
    with pytest.raises(ImapAuthError, match="no password"):
        Secrets().secret_for(parse_imap_url("imaps://me@example.org/INBOX").account)


# ---- a proxy that drops the connection ------------------------------------------------
class CuttingProxy:
    """A loopback TCP proxy to the server that cuts every connection once `cut_after`
    bytes came from the server, or slows each server write by `delay` seconds."""

    def __init__(self, target_port: int, cut_after: int | None = None, delay: float = 0.0,
                 host: str = "127.0.0.1"):
        self.target_port, self.cut_after, self.delay = target_port, cut_after, delay
        self.from_client = bytearray()  # everything the client sent
        self.listener = socket.create_server((host, 0))
        self.port = self.listener.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> "CuttingProxy":
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            thread = threading.Thread(target=self._pump, args=(client, upstream), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        sent = 0
        waiting = selectors.DefaultSelector()   # select() fails on descriptors past 1024
        try:
            for sock in (client, upstream):
                waiting.register(sock, selectors.EVENT_READ)
            while not self._stop.is_set():
                for key, _ in waiting.select(0.2):
                    sock = key.fileobj
                    data = sock.recv(4096)
                    if not data:
                        return
                    if sock is upstream:
                        if self.cut_after is not None and sent + len(data) > self.cut_after:
                            return
                        if self.delay:
                            time.sleep(self.delay)
                        sent += len(data)
                        client.sendall(data)
                    else:
                        self.from_client += data
                        upstream.sendall(data)
        except OSError:
            return
        finally:
            waiting.close()
            for sock in (client, upstream):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
