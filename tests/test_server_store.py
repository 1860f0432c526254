"""A household that outgrows one machine points --store at a Chroma server."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from email.message import EmailMessage

import pytest

from brainquery import Brain
from brainquery.cli import main

from conftest import free_port

pytestmark = pytest.mark.server



@pytest.fixture()
def chroma_server(tmp_path):
    if shutil.which("chroma") is None:
        pytest.skip("the chroma command is not installed")
    port = free_port()
    proc = subprocess.Popen(
        ["chroma", "run", "--path", str(tmp_path / "server-data"), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={"ANONYMIZED_TELEMETRY": "False", "PATH": "/usr/bin:/bin:" + _path()})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if proc.poll() is not None:
                pytest.fail("chroma run exited early")
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma run did not start listening within 60 s")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _path() -> str:
    import os

    return os.environ.get("PATH", "")


def test_ingest_and_ls_against_a_chroma_server(tmp_path, chroma_server, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "mail"
    folder.mkdir()
    for n in range(3):
        msg = EmailMessage()
        msg["From"] = "school@example.org"
        msg["Subject"] = f"Field trip form {n}"
        msg["Date"] = f"Mon, 0{n + 1} Sep 2025 08:00:00 +0000"
        msg["Message-ID"] = f"<trip-{n}@example.org>"
        msg.set_content("Please sign and return the permission slip by Friday.")
        (folder / f"{n}.eml").write_bytes(bytes(msg))

    assert main(["ingest", str(folder), "--store", chroma_server]) == 0
    capsys.readouterr()
    assert main(["ls", "--store", chroma_server, "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3

    # The server is the source of truth: a second client with no local cache rebuilds it.
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
    brain = Brain(chroma_server)
    again = brain.ingest([folder])
    assert again.by_status() == {"unchanged": 3}
    assert len(brain.documents()) == 3


def test_ask_against_a_chroma_server_from_a_client_without_cache(tmp_path, chroma_server, monkeypatch):
    """A second machine pointed at the server answers: its query index is rebuilt from the
    collection, not read from the first machine's cache."""
    from datetime import datetime, timezone

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-a"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "wifi.md").write_text("Date: 2026-09-01\n\nWi-Fi network BiscuitNet, password otter-7731.\n")
    (folder / "trash.md").write_text("Date: 2026-09-02\n\nTrash pickup is on Thursday mornings.\n")
    (folder / "dentist.md").write_text("Date: 2026-09-03\n\nDentist appointment for Theo on Monday.\n")
    Brain(chroma_server).ingest([folder])

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-b"))
    result = Brain(chroma_server).ask("what is the wifi password?",
                                      now=datetime(2026, 9, 10, 12, tzinfo=timezone.utc))
    assert result.results and result.results[0].source.endswith("wifi.md")
    assert result.answer and "otter-7731" in result.answer


def test_the_page_over_a_chroma_server_opens_originals(tmp_path, chroma_server, monkeypatch):
    """The web page needs nothing of the embedded store: documents, originals and the
    latest ingest come through the same store layer."""
    from fastapi.testclient import TestClient

    from brainquery.web import create_app

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "mail"
    folder.mkdir()
    msg = EmailMessage()
    msg["From"] = "school@example.org"
    msg["Subject"] = "Picture day <moved>"
    msg["Date"] = "Mon, 07 Sep 2026 08:00:00 +0000"
    msg["Message-ID"] = "<picture-day@example.org>"
    msg.set_content("Picture day moves to Thursday, September 24.")
    (folder / "picture-day.eml").write_bytes(bytes(msg))
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
    brain = Brain(chroma_server)
    brain.ingest([folder])
    client = TestClient(create_app(brain), base_url="http://127.0.0.1:8765")
    [doc] = client.get("/api/documents").json()
    page = client.get(f"/original/{doc['doc_id']}").text
    assert "Picture day &lt;moved&gt;" in page and "September 24" in page
    assert "broken.pdf" in client.get("/documents").text
