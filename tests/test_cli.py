"""The CLI is a thin layer: it runs in-process, and results are checked through the library."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_eml

from brainquery import Brain
from brainquery.cli import main

REPORT_FIELDS = {"source", "message_id", "title", "doc_type", "source_date", "date_source",
                 "status", "error"}
LS_FIELDS = {"source", "message_id", "title", "doc_type", "source_date", "date_source"}


def _mail(folder: Path, name: str, subject: str) -> Path:
    return write_eml(folder / name, {
        "From": "coach@example.org", "Subject": subject,
        "Date": "Sat, 14 Nov 2026 09:00:00 -0500", "Message-ID": f"<{name}@example.org>",
    }, f"{subject}. See you there.")


@pytest.fixture()
def folder(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    _mail(root, "practice.eml", "Soccer practice moved to 5pm")
    _mail(root, "cancel.eml", "Saturday game cancelled")
    return root


def test_ingest_report_and_ls_json(tmp_path, folder, capsys):
    store, report = tmp_path / "store", tmp_path / "report.jsonl"
    code = main(["ingest", str(folder), "--store", str(store), "--report", str(report),
                 "--now", "2026-11-21"])
    assert code == 0
    assert "2 documents ingested" in capsys.readouterr().out
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(lines) == 2 and all(REPORT_FIELDS <= set(line) for line in lines)
    assert {line["status"] for line in lines} == {"ingested"}

    assert main(["ls", "--store", str(store), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(listed) == 2 and all(LS_FIELDS <= set(doc) for doc in listed)
    assert {d["title"] for d in listed} == {d["title"] for d in Brain(store).documents()}
    assert all(d["source_date"] == "2026-11-14T14:00:00+00:00" for d in listed)

    main(["ls", "--store", str(store)])
    text = capsys.readouterr().out
    assert "2026-11-14" in text and "Soccer practice moved to 5pm" in text


def test_ls_columns_line_up_for_wide_titles(tmp_path, capsys):
    """CJK characters take two terminal columns: the source column still starts at one
    column on every line, however long or wide the title."""
    from brainquery.terminal import display_width

    root = tmp_path / "in"
    root.mkdir()
    for name, subject in (("a.eml", "Soccer practice moved to 5pm"),
                          ("b.eml", "代开各地增值税发票"),
                          ("c.eml", "会議は金曜日の午後三時からです。資料を持ってきてください。" * 2),
                          ("d.eml", "Cafe\u0301 menu")):
        _mail(root, name, subject)
    store = tmp_path / "store"
    assert main(["ingest", str(root), "--store", str(store), "--now", "2026-11-21"]) == 0
    capsys.readouterr()
    main(["ls", "--store", str(store)])
    lines = capsys.readouterr().out.splitlines()
    starts = {display_width(line[:line.index(str(root))]) for line in lines}
    assert len(lines) == 4 and len(starts) == 1, lines


@pytest.mark.parametrize("text, width, expected", [
    pytest.param("abc", 5, "abc  ", id="pad"),
    pytest.param("abcdef", 4, "abcd", id="cut"),
    pytest.param("代开各地", 5, "代开 ", id="wide-cut-at-edge"),
    pytest.param("Cafe\u0301", 5, "Cafe\u0301 ", id="combining-takes-no-column"),
])
def test_fit(text, width, expected):
    from brainquery.terminal import display_width, fit

    assert fit(text, width) == expected and display_width(fit(text, width)) == width


def test_failures_are_reported_per_file_and_set_the_exit_code(tmp_path, folder, capsys):
    (folder / "empty.pdf").write_bytes(b"")
    (folder / "garbage.eml").write_text("not a message\n")
    report = tmp_path / "r.jsonl"
    code = main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 1
    assert "empty.pdf: empty file" in out and "garbage.eml" in out
    statuses = {Path(json.loads(l)["source"]).name: json.loads(l)["status"]
                for l in report.read_text().splitlines()}
    assert statuses == {"practice.eml": "ingested", "cancel.eml": "ingested",
                        "empty.pdf": "failed", "garbage.eml": "failed"}


def test_nothing_readable_is_exit_code_2(tmp_path, capsys):
    code = main(["ingest", str(tmp_path / "does-not-exist"), "--store", str(tmp_path / "s")])
    assert code == 2
    assert "no such file or folder" in capsys.readouterr().out


def test_bad_config_is_a_one_line_error(tmp_path, folder, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[chunking]\nchunk_size = 10\n")
    code = main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--config", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and "chunking.chunk_size" in err and "Traceback" not in err


def test_store_from_environment(tmp_path, folder, monkeypatch, capsys):
    monkeypatch.setenv("BRAINQUERY_STORE", str(tmp_path / "env-store"))
    assert main(["ingest", str(folder)]) == 0
    assert (tmp_path / "env-store").exists()


def test_json_summary(tmp_path, folder, capsys):
    main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["statuses"] == {"ingested": 2}
    assert summary["doc_types"] == {"email": 2} and summary["exit_code"] == 0


def test_oversized_and_unreadable_files_fail_alone(tmp_path, folder, capsys):
    (folder / "huge.eml").write_bytes(b"From: a@example.org\r\nSubject: big\r\n\r\n" + b"x" * 5000)
    (folder / "gone.pdf").symlink_to(tmp_path / "nowhere.pdf")  # unreadable: a dangling link
    small = tmp_path / "small.toml"
    small.write_text("[ingest]\nmax_file_bytes = 4096\n")
    report = tmp_path / "r.jsonl"
    code = main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--config", str(small),
                 "--report", str(report)])
    assert code == 1
    lines = {Path(json.loads(l)["source"]).name: json.loads(l) for l in report.read_text().splitlines()}
    assert lines["huge.eml"]["status"] == "failed" and "over the 4096-byte limit" in lines["huge.eml"]["error"]
    assert lines["gone.pdf"]["status"] == "failed"
    assert lines["practice.eml"]["status"] == "ingested"


def test_a_kind_of_file_nothing_reads_is_skipped_not_failed(tmp_path, folder, capsys):
    import zipfile

    with zipfile.ZipFile(folder / "spreadsheet.xlsx", "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    report = tmp_path / "r.jsonl"
    code = main(["ingest", str(folder), "--store", str(tmp_path / "s"), "--report", str(report)])
    lines = {Path(json.loads(l)["source"]).name: json.loads(l) for l in report.read_text().splitlines()}
    assert code == 0
    assert lines["spreadsheet.xlsx"]["status"] == "skipped"
    assert "no ingestor reads this kind of file (zip)" in lines["spreadsheet.xlsx"]["error"]
