"""The local web page's promises, through its HTTP interface (no browser): the API returns
exactly what the CLI prints with --json, hostile documents render inert, the original of a
document can be opened and nothing else can, and a token guards a server on the network."""
from __future__ import annotations

import json
import os
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from brainquery import Brain
from brainquery.age import relative_age
from brainquery.cli import _ask_now, main
from brainquery.web import create_app
from brainquery.web.present import highlight, timeline

from test_pdf import build_pdf

from conftest import (FIXTURES, HOSTILE_NOTE_NAME, HOSTILE_QUESTION, HOSTILE_SUBJECT,
                      INGEST_NOW, write_hostile_household)

ASK_DAY = "2026-11-18"
LOCAL = "http://127.0.0.1:8765"
MANUAL = FIXTURES / "corpus" / "documents" / "manuals" / "Hearthline-HL96V-furnace-owners-manual.pdf"


@pytest.fixture(scope="module")
def household(tmp_path_factory):
    """The fixture corpus and a hostile folder: a script-laden email, a markup file name,
    a broken PDF, a PDF reached by a symlink out of the folder, and a PDF that a symlink
    replaces after the ingest."""
    root = tmp_path_factory.mktemp("web")
    outside = root / "outside"
    outside.mkdir()
    build_pdf(outside / "elsewhere.pdf", ["Dishwasher quick guide: clean the filter monthly."])
    build_pdf(outside / "secret.pdf", ["Not a household document: never to be served."])
    folder = write_hostile_household(root / "household")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<>> garbage")
    (folder / "linked-manual.pdf").symlink_to(outside / "elsewhere.pdf")
    build_pdf(folder / "statement.pdf", ["Bank statement for October: balance 1,204.55."])
    store = root / "store"
    brain = Brain(store)
    # follow_symlinks: the link out is stored, so the originals route's own guard is tested.
    brain.ingest([FIXTURES / "corpus", folder], now=INGEST_NOW, follow_symlinks=True)
    (folder / "statement.pdf").unlink()
    (folder / "statement.pdf").symlink_to(outside / "secret.pdf")
    return brain, store, folder


@pytest.fixture(scope="module")
def client(household, tmp_path_factory):
    brain, _, _ = household
    now = _ask_now(brain, datetime.strptime(ASK_DAY, "%Y-%m-%d"))
    # Web ingests may name the tests' temporary folders (as `serve --allow` would).
    return TestClient(create_app(brain, now=now, allowed_roots=[str(tmp_path_factory.getbasetemp())]),
                      base_url=LOCAL)


def doc_id(brain: Brain, name: str) -> str:
    [doc] = [d for d in brain.documents() if os.path.basename(d["source"]) == name and not d["attachment"]]
    return doc["doc_id"]


def cli_json(capsys, *args: str) -> list:
    capsys.readouterr()
    assert main([*args, "--json"]) in (0, 1)
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


# ---- the API is the CLI's --json ---------------------------------------------------------
@pytest.mark.parametrize("question", ["Is Friday a half day?", "What size is our HVAC filter?",
                                      "What is the dentist's fax number?"])
def test_api_ask_is_exactly_the_cli_json(client, household, capsys, question):
    _, store, _ = household
    [printed] = cli_json(capsys, "ask", question, "--store", str(store), "--now", ASK_DAY)
    response = client.get("/api/ask", params={"q": question})
    assert response.status_code == 200
    assert response.json() == printed


def test_api_documents_is_the_ls_json_lines_as_one_array(client, household, capsys):
    _, store, _ = household
    assert client.get("/api/documents").json() == cli_json(capsys, "ls", "--store", str(store))


def test_api_ingest_answers_with_the_ingest_json(client, household, capsys, tmp_path):
    _, store, _ = household
    (tmp_path / "hoa.md").write_text("HOA dues are $310 a quarter.\n", encoding="utf-8")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    first = client.post("/api/ingest", json={"paths": [str(tmp_path)]})
    assert first.status_code == 200
    assert first.json()["statuses"] == {"ingested": 1, "failed": 1}
    again = client.post("/api/ingest", json={"paths": [str(tmp_path)]}).json()
    [printed] = cli_json(capsys, "ingest", str(tmp_path), "--store", str(store))
    assert again == printed and again["statuses"] == {"unchanged": 1, "failed": 1}


def test_openapi_describes_the_three_endpoints(client):
    spec = client.get("/api/openapi.json").json()
    assert {"/api/ask", "/api/documents", "/api/ingest"} <= set(spec["paths"])
    ask = spec["components"]["schemas"]["AskResult"]["properties"]
    assert {"answer", "message", "level", "conflicts", "results"} <= set(ask)


def test_a_question_read_with_a_slip_of_the_keys_says_how_it_was_read(client):
    page = client.get("/", params={"q": "what size is our furnace fliter"}).text
    assert '<p class="read-as">Read as: <s>fliter</s> filter</p>' in page
    assert "16x25x4" in page


# ---- untrusted text renders inert --------------------------------------------------------
class _Markup(HTMLParser):
    """Every element and attribute a page really has (escaped text is not an element)."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def assert_inert(html: str) -> str:
    page = _Markup()
    page.feed(html)
    for tag, attrs in page.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert not (attrs.get("href") or "").strip().lower().startswith("javascript:"), (tag, attrs)
        if tag == "script":
            assert attrs.get("src") == "/static/app.js", attrs  # ours, never inline
    return "".join(page.text)


def test_a_hostile_email_renders_as_text_on_the_ask_page(client):
    response = client.get("/", params={"q": HOSTILE_QUESTION})
    text = assert_inert(response.text)
    assert "<script>window.__pwned='subject'</script>" in text  # shown, as text
    assert "onerror" in text and "javascript:" not in response.text.split("<body>")[0]
    assert "default-src 'self'" in response.headers["content-security-policy"]


def test_a_hostile_email_renders_as_text_when_opened(client, household):
    brain, _, _ = household
    [doc] = [d for d in brain.documents() if d["title"] == HOSTILE_SUBJECT]
    text = assert_inert(client.get(f"/original/{doc['doc_id']}").text)
    assert "Room 114 <room114@maplegrove.example>" in text
    assert "<img src=x onerror=" in text


def test_a_file_name_of_markup_is_escaped_wherever_it_shows(client, household):
    text = assert_inert(client.get("/", params={"q": "what goes on the zoo packing list"}).text)
    assert HOSTILE_NOTE_NAME in text
    text = assert_inert(client.get(f"/original/{doc_id(household[0], HOSTILE_NOTE_NAME)}").text)
    assert HOSTILE_NOTE_NAME in text


def test_highlight_escapes_before_marking():
    text = "<b>filter</b> & 16x25x4"
    assert str(highlight(text, [(3, 9), (20, 27)])) == "&lt;b&gt;<mark>filter</mark>&lt;/b&gt; &amp; 16x25x4"
    assert str(highlight(text, [(3, 9), (5, 12), (0, 99)])) == "&lt;b&gt;<mark>filter</mark>&lt;/b&gt; &amp; 16x25x4"


# ---- opening originals ---------------------------------------------------------------------
def test_a_pdf_opens_inline(client, household):
    response = client.get(f"/original/{doc_id(household[0], MANUAL.name)}/file")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("inline")
    assert response.content == MANUAL.read_bytes()


def test_an_email_opens_as_text_with_its_headers(client, household):
    name = "2026-11-16-schedule-change-friday-early-release.eml"
    text = assert_inert(client.get(f"/original/{doc_id(household[0], name)}").text)
    for header in ("From", "To", "Date", "Subject"):
        assert header in text
    assert "EARLY RELEASE" in text


def test_an_attachment_opens_as_the_attached_file(client, household):
    brain = household[0]
    [doc] = [d for d in brain.documents() if d["attachment"] == "BSM-Invoice-26-0314.pdf"]
    response = client.get(f"/original/{doc['doc_id']}/file")
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")


def test_a_mailbox_message_opens_as_that_message(client, household):
    brain = household[0]
    messages = [d for d in brain.documents() if "family.mbox#" in d["source"] and not d["attachment"]]
    assert len(messages) >= 2
    for doc in messages:
        text = assert_inert(client.get(f"/original/{doc['doc_id']}").text)
        assert doc["title"] in text


def test_a_photo_opens_with_its_exif_date(client, household):
    brain = household[0]
    [doc] = [d for d in brain.documents() if d["doc_type"] == "photo"
             and d["date_source"] == "exif_datetime_original" and not d["attachment"]][:1]
    page = client.get(f"/original/{doc['doc_id']}").text
    assert doc["source_date"][:10] in page and "EXIF DateTimeOriginal (when the photo was taken)" in page
    image = client.get(f"/original/{doc['doc_id']}/file")
    assert image.headers["content-type"] == "image/jpeg"


@pytest.mark.parametrize("path", [
    "/original/../../../etc/passwd",
    "/original/..%2F..%2F..%2Fetc%2Fpasswd",
    "/original/%2Fetc%2Fpasswd/file",
    "/original/%252e%252e%252fetc%252fpasswd/file",
    "/original/00000000000000000000000000000000/file",
    "/original/0123456789abcdef0123456789ABCDEF/file",
    "/original/0123456789abcdef0123456789abcdef0/file",
    "/static/../../../../etc/passwd",
    "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
])
def test_the_original_route_cannot_be_steered_off_the_store(client, path):
    response = client.get(path)
    assert response.status_code in (400, 404)
    assert b"root:" not in response.content


def test_a_symlink_out_of_the_ingested_folder_is_not_served(client, household):
    brain, _, _ = household
    linked = doc_id(brain, "linked-manual.pdf")
    assert client.get(f"/original/{linked}/file").status_code == 404
    assert "outside the folders you ingested" in client.get(f"/original/{linked}").text


def test_a_file_swapped_for_a_symlink_after_ingest_is_not_served(client, household):
    brain, _, _ = household
    swapped = doc_id(brain, "statement.pdf")
    assert client.get(f"/original/{swapped}/file").status_code == 404
    page = client.get(f"/original/{swapped}").text
    assert "Showing the text as stored" in page


# ---- the documents view ----------------------------------------------------------------------
def test_the_documents_view_counts_types_and_lists_the_last_failures(client, household):
    brain, _, _ = household
    page = client.get("/documents").text
    text = assert_inert(page)
    assert f"{len(brain.documents())} documents" in text
    assert "calendar event" in text and "<svg class=\"timeline-chart\"" in page
    assert "broken.pdf" in text


def test_the_timeline_keeps_empty_months_and_widens_to_fit():
    months = ["2024-01-05T00:00:00+00:00", "2024-03-09T00:00:00+00:00", "2024-03-20T00:00:00+00:00", None]
    bars = timeline(months, max_bars=12)
    assert [(b.label, b.count) for b in bars] == [("2024-01", 1), ("2024-02", 0), ("2024-03", 2)]
    wide = timeline(["2019-05-01T00:00:00+00:00", "2026-11-01T00:00:00+00:00"], max_bars=12)
    assert len(wide) <= 12 and sum(b.count for b in wide) == 2
    assert wide[0].label.startswith("2019-01")


# ---- ingesting from the page while asking -------------------------------------------------------
def test_questions_are_answered_while_an_ingest_runs(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in (("wifi.md", "Wifi password: correct-horse-battery"),
                       ("vet.md", "Biscuit's vet is Cedar Creek Animal Hospital."),
                       ("filter.md", "The furnace takes a 16x25x4 media filter.")):
        (notes / name).write_text(text + "\n", encoding="utf-8")
    brain = Brain(tmp_path / "store")
    brain.ingest([notes], now=INGEST_NOW)
    (notes / "bins.md").write_text("Recycling goes out on Tuesday night.\n", encoding="utf-8")
    client = TestClient(create_app(brain), base_url=LOCAL)
    with brain._ingest_lock:  # hold the next ingest at its start, however fast the machine
        job = client.post("/api/ingest", json={"paths": [str(notes)], "wait": False})
        assert job.status_code == 202
        asked = client.get("/api/ask", params={"q": "what is the wifi password"})
        assert asked.status_code == 200 and "correct-horse-battery" in asked.json()["answer"]
        assert client.post("/api/ingest", json={"paths": [str(notes)]}).status_code == 409
    state = client.get(f"/api/ingest/{job.json()['id']}").json()
    for _ in range(600):
        if state["state"] in ("done", "failed"):
            break
        state = client.get(f"/api/ingest/{job.json()['id']}").json()
    assert state["state"] == "done", state
    assert state["summary"]["statuses"] == {"ingested": 1, "unchanged": 3}
    assert "Tuesday" in client.get("/api/ask", params={"q": "when does recycling go out"}).json()["answer"]


def test_a_cross_site_post_is_refused(client):
    response = client.post("/api/ingest", json={"paths": ["/"]}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403


def test_a_foreign_host_header_is_refused(client):
    assert client.get("/", headers={"Host": "evil.example:8765"}).status_code == 400


# ---- a token guards the page ---------------------------------------------------------------------
def test_with_a_token_every_request_must_carry_it(household):
    brain = household[0]
    client = TestClient(create_app(brain, token="s3cret-household", bound_host="192.168.1.20"), base_url=LOCAL)
    assert client.get("/api/documents").status_code == 401
    assert client.get("/api/documents", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/documents", headers={"Authorization": "Bearer s3cret-household"}).status_code == 200
    opened = client.get("/", params={"token": "s3cret-household"})  # the link `serve` prints
    assert opened.status_code == 200 and "brainquery_token" in opened.headers["set-cookie"]
    assert client.get("/documents").status_code == 200  # the cookie now carries it


def test_serving_beyond_loopback_without_a_token_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BRAINQUERY_TOKEN", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--store", str(tmp_path / "store")]) == 2
    assert "--token" in capsys.readouterr().err


@pytest.mark.parametrize("when, now, said", [
    ("2026-11-16T13:42:01+00:00", "2026-11-18T12:00:00+00:00", "2 days ago"),
    ("2026-11-18T23:00:00+00:00", "2026-11-18T12:00:00+00:00", "today"),
    ("2026-11-17T23:30:00+00:00", "2026-11-18T00:10:00+00:00", "1 day ago"),
    ("2026-11-04T09:00:00+00:00", "2026-11-18T12:00:00+00:00", "2 weeks ago"),
    ("2026-03-14T00:00:00+00:00", "2026-11-18T12:00:00+00:00", "8 months ago"),
    ("2023-05-26T00:00:00+00:00", "2026-11-18T12:00:00+00:00", "3 years ago"),
    ("2026-12-11T18:00:00+00:00", "2026-11-18T12:00:00+00:00", "in 3 weeks"),
])
def test_ages_read_as_a_person_says_them(when, now, said):
    assert relative_age(when, now) == said


def test_questions_asked_at_once_get_the_answers_asked_one_by_one(client):
    from concurrent.futures import ThreadPoolExecutor

    questions = ["Is Friday a half day?", "What size is our HVAC filter?",
                 "What roofer did we use in 2023?", HOSTILE_QUESTION] * 6
    one_by_one = {q: client.get("/api/ask", params={"q": q}).json() for q in set(questions)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        at_once = list(pool.map(lambda q: client.get("/api/ask", params={"q": q}).json(), questions))
    assert at_once == [one_by_one[q] for q in questions]


# ---- issue 17: bounded requests, validated paths, roots, --allow, symlinks ----------------------
def test_a_body_over_the_limit_is_refused_before_it_is_read(client):
    huge = "x" * (2 << 20)
    response = client.post("/api/ingest", content=json.dumps({"paths": [huge]}),
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and len(response.content) < 200


@pytest.mark.parametrize("body, reason", [
    pytest.param('{"paths": ["/tmp/' + "a" * 5000 + '"]}', "PATH_MAX", id="longer-than-path-max"),
    pytest.param('{"paths": ["/tmp/a\\u0000b"]}', "NUL", id="nul"),
    pytest.param('{"paths": ["/tmp/\\ud800"]}', "surrogate", id="lone-surrogate"),
    pytest.param('{"paths": ["/tmp"], "wait": 1e999999}', "", id="infinite-wait"),
])
def test_an_impossible_path_is_refused_before_anything_is_written(household, client, body, reason):
    brain, _, _ = household
    roots = brain.roots()
    response = client.post("/api/ingest", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and reason in response.text and len(response.content) < 1000
    assert brain.roots() == roots


def test_a_failed_ingest_records_no_root(tmp_path):
    brain = Brain(tmp_path / "store")
    summary = brain.ingest([tmp_path / "no-such-folder"], now=INGEST_NOW)
    assert summary.exit_code == 2 and brain.roots() == []


def test_roots_are_listed_and_forgotten_from_the_cli(tmp_path, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("The spare key is under the blue pot.\n")
    store = str(tmp_path / "store")
    assert main(["ingest", str(notes), "--store", store]) == 0
    capsys.readouterr()
    assert main(["roots", "--store", store]) == 0
    assert capsys.readouterr().out.strip() == os.path.realpath(notes)
    assert main(["roots", "forget", str(notes), "--store", store]) == 0
    assert main(["roots", "--store", store, "--json"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "[]"


def test_without_a_token_web_ingest_stays_under_the_allowed_roots(tmp_path):
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    for folder in (allowed / "bills", allowed / ".ssh", outside):
        folder.mkdir(parents=True)
        (folder / "note.md").write_text("Water bill is due on the 5th.\n")
    brain = Brain(tmp_path / "store")
    brain.ingest([allowed / "bills"], now=INGEST_NOW)
    default = TestClient(create_app(brain), base_url=LOCAL)  # default: the CLI's roots
    assert default.post("/api/ingest", json={"paths": [str(outside)]}).status_code == 403
    assert default.post("/api/ingest", json={"paths": [str(allowed / "bills")]}).status_code == 200
    given = TestClient(create_app(brain, allowed_roots=[str(allowed)]), base_url=LOCAL)
    assert given.post("/api/ingest", json={"paths": [str(allowed / ".ssh")]}).status_code == 403
    assert given.post("/api/ingest", json={"paths": [str(outside)]}).status_code == 403
    token = TestClient(create_app(brain, token="t0ken", allowed_roots=[str(allowed)]), base_url=LOCAL)
    assert token.post("/api/ingest", json={"paths": [str(outside)]},
                      headers={"Authorization": "Bearer t0ken"}).status_code == 200
    assert os.path.realpath(outside) in brain.roots()


def test_a_symlink_out_of_an_ingested_folder_is_followed_only_when_asked(tmp_path):
    folder, outside = tmp_path / "docs", tmp_path / "elsewhere"
    folder.mkdir()
    outside.mkdir()
    (outside / "passwd.md").write_text("root:x:0:0 not a household document\n")
    (folder / "inside.md").write_text("Spare key under the blue pot.\n")
    (folder / "link.md").symlink_to(outside / "passwd.md")
    (folder / "alias.md").symlink_to(folder / "inside.md")
    brain = Brain(tmp_path / "store")
    summary = brain.ingest([folder], now=INGEST_NOW)
    by_name = {os.path.basename(line.source): line for line in summary.lines}
    assert by_name["link.md"].status == "skipped" and "outside the ingested folders" in by_name["link.md"].error
    assert by_name["alias.md"].status == "ingested"  # a link inside the folder is followed
    assert all("root:x" not in d["title"] for d in brain.documents())
    followed = Brain(tmp_path / "store2").ingest([folder], now=INGEST_NOW, follow_symlinks=True)
    assert {os.path.basename(l.source): l.status for l in followed.lines}["link.md"] == "ingested"


def test_the_api_docs_page_is_gone_and_the_spec_stays(client):
    assert client.get("/api/docs").status_code == 404
    assert client.get("/api/openapi.json").status_code == 200


def test_a_value_answer_shows_big_with_its_evidence_sentence_under_it(client):
    page = client.get("/", params={"q": "What size is our HVAC filter?"}).text
    assert '<p class="answer value">16x25x4</p>' in page
    evidence = page.split('<blockquote class="evidence">', 1)[1].split("</blockquote>", 1)[0]
    assert "16x25x4 MERV 11" in evidence
    assert "Invoice 26-0314 - Badger State Mechanical" in evidence


# ---- page details (issue 11) -----------------------------------------------------------------
class _NewestRows(HTMLParser):
    """The (date cell text, title) of each row of the Newest table."""

    def __init__(self):
        super().__init__()
        self.rows, self._in_newest, self._cell, self._cells = [], False, None, []

    def handle_starttag(self, tag, attrs):
        if tag == "section" and ("class", "newest") in attrs:
            self._in_newest = True
        elif self._in_newest and tag == "td":
            self._cell = ""
        elif self._in_newest and tag == "tr":
            self._cells = []

    def handle_endtag(self, tag):
        if tag == "section":
            self._in_newest = False
        elif self._in_newest and tag == "td" and self._cell is not None:
            self._cells.append(self._cell.strip())
            self._cell = None
        elif self._in_newest and tag == "tr":
            self.rows.append((self._cells[0], self._cells[2]))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def test_the_newest_list_marks_dates_that_are_only_file_times(client, household):
    brain, _, _ = household
    parser = _NewestRows()
    parser.feed(client.get("/documents").text)
    shown = brain.documents()[:brain.config.web.newest_shown]
    assert len(parser.rows) == len(shown)
    weak = [d["date_source"] in ("file_mtime", "ingested") for d in shown]
    assert any(weak) and not all(weak), "the household should show both kinds of date"
    for (date_cell, _title), doc, is_weak in zip(parser.rows, shown, weak):
        assert date_cell.endswith("*") == is_weak, (date_cell, doc["date_source"], doc["title"])
    assert "only the file's own time" in client.get("/documents").text


@pytest.mark.parametrize("path", ["/", "/documents", "/api/documents", "/api/openapi.json",
                                  "/static/app.js", "/api/ingest/no-such-job"])
def test_head_answers_like_get_without_a_body(client, path):
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code
    assert head.content == b""
    assert head.headers.get("content-type") == got.headers.get("content-type")
    assert head.headers.get("content-security-policy") == got.headers.get("content-security-policy")


def test_the_progress_reaches_its_end_only_when_the_index_is_built(tmp_path):
    import threading

    from brainquery.web.jobs import DONE, INDEXING, IngestJobs

    indexing, release = threading.Event(), threading.Event()

    class Indexing:
        """A brain whose ingest reads two inputs, then builds its index until released."""

        def ingest(self, paths, now=None, on_input=None):
            on_input(0, 2, "a")
            on_input(1, 2, "b")
            on_input(2, 2, "")
            indexing.set()
            release.wait(10)
            return type("Summary", (), {"to_dict": lambda self: {"statuses": {}}})()

    jobs = IngestJobs(Indexing(), None)
    job = jobs.start(["x"])
    assert indexing.wait(10)
    seen = job.to_dict()
    assert seen["state"] == INDEXING and seen["done"] == seen["total"] == 2
    assert 0 < seen["progress"] < 1      # the bar does not say "done" while the index is built
    release.set()
    jobs.wait(job)
    assert job.to_dict()["state"] == DONE and job.to_dict()["progress"] == 1.0
