"""`brainquery mcp` (`brainquery[mcp]`), driven by the MCP SDK's own stdio client the way an
assistant app drives it: the tools listed, each called, each answering with the CLI's JSON;
read-only unless started with --allow-ingest; open_document refusing ids outside the store
and never reading a file outside the ingested folders."""
from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from adapter_cases import DAY, QUESTIONS, cli_answers  # noqa: E402
from conftest import REPO, write_eml  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from brainquery import Brain  # noqa: E402
from brainquery.cli import main  # noqa: E402

READ_TOOLS = {"ask", "documents", "open_document"}
INVOICE_ID = "2b71ba5c5380a850f3d99fee4d490cb1"   # fixtures: the HVAC invoice (a PDF attachment)
# Sessions are short, but a cold start loads the query index: generous, never hit when well.
SESSION_TIMEOUT_S = 120


def cli_json_lines(*args: str) -> list[dict]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        assert main([*args, "--json"]) == 0
    text = out.getvalue()
    return [json.loads(line) for line in text.splitlines()] if "\n" in text.strip() else [json.loads(text)]


def session(store, *args: str, calls):
    """Start `python -m brainquery mcp --store STORE ARGS` with the SDK's stdio client, list
    the tools, and make `calls` [(tool, arguments)]: (tools, [(is_error, json or text)])."""
    async def run():
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "brainquery", "mcp", "--store", str(store), *args],
            env={"PYTHONPATH": str(REPO), **({"BRAINQUERY_CONFIG": os.environ["BRAINQUERY_CONFIG"]}
                                               if "BRAINQUERY_CONFIG" in os.environ else {})},
            cwd=str(REPO))
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = {t.name: t for t in (await client.list_tools()).tools}
            results = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                text = "".join(c.text for c in result.content if c.type == "text")
                results.append((result.is_error, text if result.is_error else json.loads(text)))
            return tools, results

    return asyncio.run(asyncio.wait_for(run(), SESSION_TIMEOUT_S))


# ---- a read-only server over the fixture household -------------------------------------------------
DOC_CALLS = [
    ("documents", {}),
    ("documents", {"doc_type": "invoice"}),
    ("documents", {"since": "2026-11-01", "until": "2026-11-18", "limit": 4}),
    ("documents", {"since": "1 November"}),
]
OPEN_CALLS = [
    ("open_document", {"doc_id": INVOICE_ID}),
    ("open_document", {"doc_id": "0" * 32}),                 # an id, but of nothing stored
    ("open_document", {"doc_id": "../../../../etc/passwd"}),
    ("open_document", {"doc_id": str(REPO / "README.md")}),
]
OTHER_CALLS = [
    ("ask", {"question": QUESTIONS[1], "k": 2}),
    ("ask", {"question": QUESTIONS[1], "now": "2025-01-15"}),
    ("ask", {"question": "   "}),
    ("ingest", {"paths": [str(REPO / "fixtures" / "corpus")]}),
]


@pytest.fixture(scope="module")
def read_only(asked_corpus):
    calls = [("ask", {"question": q}) for q in QUESTIONS] + DOC_CALLS + OPEN_CALLS + OTHER_CALLS
    before = asked_corpus.store.count()
    tools, results = session(asked_corpus.store.location, "--now", DAY, calls=calls)
    assert asked_corpus.store.count() == before
    n = len(QUESTIONS)
    return {"tools": tools, "asks": results[:n], "docs": results[n:n + 4],
            "opens": results[n + 4:n + 8], "other": results[n + 8:]}


def test_the_read_tools_are_listed_and_ingest_is_not(read_only):
    assert set(read_only["tools"]) == READ_TOOLS
    assert all(t.annotations.read_only_hint for t in read_only["tools"].values())


def test_ask_answers_with_the_ask_json_object(asked_corpus, read_only):
    expected = cli_answers(asked_corpus.store.location)
    assert [error for error, _ in read_only["asks"]] == [False] * len(QUESTIONS)
    assert [got for _, got in read_only["asks"]] == expected


def test_ask_takes_k_and_its_own_now(asked_corpus, read_only):
    (e1, k2), (e2, then), (e3, empty), _ = read_only["other"]
    assert not e1 and len(k2["results"]) == 2
    expected = cli_answers(asked_corpus.store.location, QUESTIONS[1:2], "--k", "2")[0]
    assert k2 == expected
    assert not e2 and then["now"].startswith("2025-01-15T12:00")
    assert e3 and "the question is empty" in empty


def test_the_ask_tool_tells_an_assistant_how_to_relay_the_answer(read_only):
    """Without this an assistant would guess where Brain Query said it does not know."""
    description = read_only["tools"]["ask"].description
    for promise in ('"unknown"', "I don't know", "do not guess", '"stale"', "message",
                    "`confidence` is the probability", "conflicts", "ambiguous"):
        assert promise in description


def test_documents_are_the_ls_json_objects_filtered(asked_corpus, read_only):
    listed = cli_json_lines("ls", "--store", asked_corpus.store.location)
    (e0, every), (e1, invoices), (e2, window), (e3, bad) = read_only["docs"]
    assert not (e0 or e1 or e2)
    assert every["documents"] == listed
    assert invoices["documents"] == [d for d in listed if d["doc_type"] == "invoice"] != []
    in_window = [d for d in listed if d["source_date"] and "2026-11-01" <= d["source_date"][:10] <= "2026-11-18"]
    assert len(in_window) > 4 and window["documents"] == in_window[:4]
    assert e3 and "since: expected YYYY-MM-DD" in bad


def test_open_document_gives_stored_text_and_facts(asked_corpus, read_only):
    error, opened = read_only["opens"][0]
    assert not error and opened["doc_id"] == INVOICE_ID
    assert opened["facts"]["doc_type"] == "invoice" and opened["facts"]["title"].startswith("Invoice 26-0314")
    assert "16x25x4" in opened["text"] and opened["note"] == ""
    assert opened["text"] == asked_corpus.document_text(INVOICE_ID)  # a PDF: its text, never its bytes
    assert "content_hash" not in opened["facts"]


def test_open_document_refuses_ids_outside_the_store(read_only):
    (_, _), (e1, nothing), (e2, climbing), (e3, a_path) = read_only["opens"]
    assert e1 and "no such document in the store" in nothing
    assert e2 and "not a document id" in climbing and "root:" not in climbing
    assert e3 and "not a document id" in a_path and "Brain Query" not in a_path


def test_ingest_is_refused_without_allow_ingest(read_only):
    error, text = read_only["other"][3]
    assert error and "ingest" in text


# ---- originals outside the ingested folders; ingest when allowed -----------------------------------
def household(folder: Path, subject: str) -> Path:
    folder.mkdir(parents=True)
    write_eml(folder / "note.eml", {"From": "Ana <ana@example.org>", "To": "us@example.org",
                                    "Subject": subject, "Date": "Tue, 10 Nov 2026 09:00:00 -0600",
                                    "Message-ID": f"<{folder.name}@example.org>"},
              f"{subject}: the spare key is under the blue flowerpot.\n")
    return folder


def test_open_document_never_reads_a_file_outside_the_ingested_folders(tmp_path):
    forgotten = household(tmp_path / "forgotten", "Spare key")
    changed = household(tmp_path / "changed", "Gate code")
    store = tmp_path / "store"
    brain = Brain(store)
    brain.ingest([forgotten, changed])
    assert brain.forget_roots([str(forgotten)]) == [os.path.realpath(forgotten)]
    ids = {d["title"]: d["doc_id"] for d in brain.documents()}
    (changed / "note.eml").write_text("Subject: Gate code\n\nPlanted after the ingest.\n", encoding="utf-8")
    _, results = session(store, calls=[("open_document", {"doc_id": ids["Spare key"]}),
                                       ("open_document", {"doc_id": ids["Gate code"]})])
    (e1, outside), (e2, edited) = results
    assert not e1 and outside["note"] == "the file lies outside the folders you ingested"
    assert "blue flowerpot" in outside["text"] and outside["headers"] == {}
    assert not e2 and "changed since it was ingested" in edited["note"]
    assert "Planted" not in edited["text"] and "blue flowerpot" in edited["text"]


def test_with_allow_ingest_ingest_is_offered_and_answers_with_the_ingest_json(tmp_path):
    home = household(tmp_path / "allowed" / "home", "Spare key")
    elsewhere = household(tmp_path / "elsewhere", "Gate code")
    by_cli = cli_json_lines("ingest", str(home), "--store", str(tmp_path / "cli-store"))[0]
    tools, results = session(
        tmp_path / "store", "--allow-ingest", "--allow", str(tmp_path / "allowed"), "--now", DAY,
        calls=[("ingest", {"paths": [str(home)]}), ("ingest", {"paths": [str(home)]}),
               ("ingest", {"paths": [str(elsewhere)]}),
               ("ask", {"question": "Where is the spare key?"})])
    assert set(tools) == READ_TOOLS | {"ingest"}
    assert tools["ingest"].annotations.read_only_hint is False
    (e1, first), (e2, again), (e3, refused), (e4, asked) = results
    assert not e1 and first == by_cli and first["statuses"]["ingested"] == 1
    assert not e2 and again["statuses"]["unchanged"] == 1
    assert e3 and "outside the folders this server may ingest" in refused
    assert not e4 and "blue flowerpot" in asked["answer"]
    assert [d["title"] for d in Brain(tmp_path / "store", read_only=True).documents()] == ["Spare key"]


def test_without_the_sdk_the_command_says_which_extra_to_install(tmp_path):
    import subprocess

    # A store to serve: reading commands never create one.
    (tmp_path / "note.txt").write_text("Date: 2026-01-05\nThe plumber fixed the sink.\n", encoding="utf-8")
    assert main(["ingest", str(tmp_path / "note.txt"), "--store", str(tmp_path / "store")]) == 0
    script = ("import sys; sys.modules['mcp'] = None\n"
              "from brainquery.cli import main\n"
              f"sys.exit(main(['mcp', '--store', {str(tmp_path / 'store')!r}]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "pip install 'brainquery[mcp]'" in done.stderr and "Traceback" not in done.stderr


def test_allow_without_allow_ingest_is_refused_and_nothing_is_written(tmp_path, capsys):
    assert main(["mcp", "--store", str(tmp_path / "store"), "--allow", str(tmp_path)]) == 2
    assert "--allow-ingest" in capsys.readouterr().err
    assert not (tmp_path / "store").exists()
