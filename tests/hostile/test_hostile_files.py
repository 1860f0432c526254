"""One folder of hostile files beside good ones, ingested once by the CLI in a child process
capped at 2 GB: every hostile file gets its own line (stored, or a one-line reason), the
good files beside it are stored, nothing prints a traceback or a terminal escape."""
from __future__ import annotations

import json
import signal
import time

import pytest

from hostile_inputs import (FOLDER_CASES, GOOD_BESIDE, LIMITS_TOML, MB, build_folder,
                            popen_capped, read_report, run_capped)

NOW = "2026-01-01"


@pytest.fixture(scope="module")
def folder_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    build_folder(root / "in")
    (root / "limits.toml").write_text(LIMITS_TOML)
    run = run_capped(["ingest", str(root / "in"), "--store", str(root / "store"),
                      "--config", str(root / "limits.toml"), "--report", str(root / "report.jsonl"),
                      "--now", NOW], cwd=root, timeout=150)
    report = read_report(root / "report.jsonl")
    return root, run, report


def _lines(report: list[dict], suffix: str) -> list[dict]:
    return [line for line in report if line["source"].endswith(suffix)]


@pytest.mark.parametrize("case_id", list(FOLDER_CASES))
def test_each_hostile_file_gets_its_own_line(folder_run, case_id):
    case = FOLDER_CASES[case_id]
    _, _, report = folder_run
    lines = _lines(report, case.source)
    assert lines, f"no report line for {case.source}"
    assert any(line["status"] == case.status and case.error in line["error"] and case.check(line)
               for line in lines), lines


@pytest.mark.parametrize("name", GOOD_BESIDE)
def test_good_files_beside_hostile_ones_are_stored(folder_run, name):
    _, _, report = folder_run
    assert [line["status"] for line in _lines(report, name)] == ["ingested"]


def test_the_run_ends_with_exit_1_and_no_traceback(folder_run):
    _, run, _ = folder_run
    assert "Traceback" not in run.stderr
    assert run.returncode == 1, run.stderr[-2000:]  # some files failed, the rest went in


def test_summary_lines_are_bounded_and_printable(folder_run):
    _, run, _ = folder_run
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) < 600
    assert "truncated at 1 MB" in run.stdout and "password-protected" in run.stdout


def test_ls_and_ask_print_no_terminal_escapes(folder_run):
    root, _, _ = folder_run
    listed = run_capped(["ls", "--store", str(root / "store")], cwd=root)
    asked = run_capped(["ask", "pwned", "--store", str(root / "store"), "--now", NOW, "--k", "20"],
                       cwd=root)
    for run in (listed, asked):
        assert run.returncode == 0 and "Traceback" not in run.stderr
        assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    assert "2;pwned" in listed.stdout  # the title is shown, only its control characters go


def test_json_listing_keeps_the_escaped_non_utf8_name(folder_run):
    root, _, _ = folder_run
    listed = run_capped(["ls", "--json", "--store", str(root / "store")], cwd=root)
    sources = [json.loads(line)["source"] for line in listed.stdout.splitlines()]
    assert any(s.endswith("caf\\xe9.txt") for s in sources)
    assert not any("\x1b" in line for line in listed.stdout.splitlines())


def test_a_non_utf8_file_name_reopens_its_original(folder_run):
    from brainquery import Brain

    root, _, _ = folder_run
    brain = Brain(root / "store")
    doc = next(d for d in brain.documents() if d["source"].endswith("caf\\xe9.txt"))
    original = brain.original(doc["doc_id"])
    assert original.note == "" and "boiler was serviced" in original.text


NOTES = 8


def test_a_killed_ingest_leaves_the_lines_it_wrote(tmp_path):
    """The report is flushed per line: killed as soon as its first line shows, the ingest
    has read only part of the folder, and what it read is on disk."""
    folder = tmp_path / "in"
    folder.mkdir()
    # A few large notes: seconds of reading, but fewer report lines than fill a write
    # buffer (an unflushed report shows nothing until the end).
    for n in range(NOTES):
        (folder / f"note-{n}.txt").write_text(f"Note {n}: " + "word. " * (MB // 3), encoding="utf-8")
    report = tmp_path / "report.jsonl"
    proc = popen_capped(["ingest", str(folder), "--store", str(tmp_path / "store"),
                         "--report", str(report), "--now", NOW], cwd=tmp_path)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        if report.exists() and report.stat().st_size > 0:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    lines = read_report(report)  # each line is written and flushed whole
    assert lines and all(line["status"] == "ingested" for line in lines)
    # Unflushed, the report appeared only whole, at the end of the run.
    assert len(lines) < NOTES, "the report stayed empty until the ingest had finished"
