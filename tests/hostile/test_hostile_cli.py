"""Bad command-line input: one line on stderr and exit 2, never a traceback or a hang, and
nothing created on the way (each case in a child process capped at 2 GB)."""
from __future__ import annotations

import pytest

from hostile_inputs import good_files, run_capped

# (arguments with {store}, {folder}, {tmp} placeholders, config text, stdin, words in the error)
CASES = [
    pytest.param(["ask", "filter size", "--now", "9999-12-31"], "", None, "--now must lie", id="ask-now-9999"),
    pytest.param(["ingest", "{folder}", "--now", "9999-12-31"], "", None, "--now must lie", id="ingest-now-9999"),
    pytest.param(["ls"], '[ingest]\nfloating_timezone = "Mars/Olympus"\n', None, "floating_timezone",
                 id="unknown-zone-in-config"),
    pytest.param(["ingest", "{folder}"], "[chunking]\nchunk_chars = 0\n", None, "chunk_chars",
                 id="chunk-chars-0"),
    pytest.param(["ingest", "{folder}", "--report", "{tmp}/missing/report.jsonl"], "", None,
                 "cannot write the report", id="report-in-missing-folder"),
    pytest.param(["ingest", "{folder}", "--report", "{tmp}"], "", None, "cannot write the report",
                 id="report-is-a-folder"),
    pytest.param(["ask", ""], "", None, "question is empty", id="empty-question"),
    pytest.param(["ask", "   "], "", None, "question is empty", id="blank-question"),
    pytest.param(["ask", "-"], "", "what size " * 100_000 + "\n", "the limit is 2000",
                 id="1MB-question"),
    pytest.param(["ask", "filter", "--k", "0"], "", None, "--k", id="k-0"),
    pytest.param(["ask", "filter", "--k", "-5"], "", None, "--k", id="k-minus-5"),
    pytest.param(["serve", "--port", "99999"], "", None, "--port", id="port-99999"),
]


@pytest.mark.parametrize("args, config, stdin, words", CASES)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, config, stdin, words):
    folder = tmp_path / "in"
    folder.mkdir()
    good_files(folder)
    store = tmp_path / "store"
    argv = [a.format(folder=folder, tmp=tmp_path) for a in args] + ["--store", str(store)]
    if config:
        (tmp_path / "config.toml").write_text(config)
        argv += ["--config", str(tmp_path / "config.toml")]
    run = run_capped(argv, cwd=tmp_path, timeout=60, stdin=stdin)
    assert run.returncode == 2, (run.stdout[-500:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and words in run.stderr, run.stderr[-2000:]
    if "--report" in args or "--now" in args:
        assert not store.exists()  # refused before the store was created


def test_a_store_url_that_is_not_http_creates_nothing(tmp_path):
    run = run_capped(["ls", "--store", "ftp://x"], cwd=tmp_path, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "http" in run.stderr
    assert list(tmp_path.iterdir()) == []  # no folder named "ftp:"
