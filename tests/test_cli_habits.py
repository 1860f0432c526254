"""The CLI behaves as a command-line user expects (issue 11): `--version`, options before or
after the command, paths on standard input, one-line refusals instead of tracebacks, quiet
by default, help for every option and examples that run; reading commands never create a
store; and a command starts without loading what it does not use."""
from __future__ import annotations

import argparse
import io
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

import brainquery
from brainquery import Brain
from brainquery import cli
from brainquery.cli import main

NOW = "2026-11-21"


def _note(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def notes(tmp_path):
    folder = tmp_path / "notes"
    _note(folder, "wifi.md", "Wifi password: correct-horse-battery")
    _note(folder, "filter.md", "The furnace takes a 16x25x4 media filter.")
    return folder


@pytest.fixture()
def stored(tmp_path, notes):
    store = tmp_path / "store"
    assert main(["ingest", str(notes), "--store", str(store), "--now", NOW]) == 0
    return store


def _run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brainquery", *args], cwd=REPO, input=stdin,
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)})


class _Stdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


# ---- --version ------------------------------------------------------------------------------
def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"brainquery {brainquery.__version__}\n"
    # One source of truth: the package metadata takes its version from brainquery.__version__.
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "brainquery.__version__"}


# ---- options before or after the command -------------------------------------------------------
def test_options_go_before_or_after_the_command(tmp_path, notes, capsys):
    store = str(tmp_path / "store")
    assert main(["--store", store, "--now", NOW, "ingest", str(notes)]) == 0
    capsys.readouterr()
    assert main(["--store", store, "--json", "ls"]) == 0
    before = capsys.readouterr().out
    assert main(["ls", "--store", store, "--json"]) == 0
    assert capsys.readouterr().out == before
    assert len(before.splitlines()) == 2 and before.startswith("{")
    # Given twice, the one after the command wins.
    assert main(["--store", str(tmp_path / "elsewhere"), "ls", "--store", store]) == 0
    assert "wifi" in capsys.readouterr().out


# ---- ingest - ---------------------------------------------------------------------------------
def test_ingest_dash_reads_paths_from_stdin_one_per_line(tmp_path, monkeypatch, capsys):
    spaced = _note(tmp_path / "in", "bin night.md", "Recycling goes out on Tuesday night.")
    other = _note(tmp_path / "in", "vet.md", "Biscuit's vet is Cedar Creek Animal Hospital.")
    monkeypatch.setattr(sys, "stdin", _Stdin(f"{spaced}\n\n{other}\n".encode()))
    store = tmp_path / "store"
    assert main(["ingest", "-", "--store", str(store), "--now", NOW]) == 0
    assert "2 documents ingested" in capsys.readouterr().out
    assert {Path(d["source"]).name for d in Brain(store).documents()} == {"bin night.md", "vet.md"}


def test_ingest_dash_0_reads_nul_separated_paths_as_find_print0_gives(tmp_path, monkeypatch, capsys):
    odd = _note(tmp_path / "in", "two\nlines.md", "The piano tuner comes in March.")
    plain = _note(tmp_path / "in", "vet.md", "Biscuit's vet is Cedar Creek Animal Hospital.")
    listed = subprocess.run(["find", str(tmp_path / "in"), "-type", "f", "-print0"],
                            capture_output=True, check=True).stdout
    monkeypatch.setattr(sys, "stdin", _Stdin(listed))
    store = tmp_path / "store"
    assert main(["ingest", "-", "-0", "--store", str(store), "--now", NOW]) == 0
    assert {d["source"] for d in Brain(store).documents()} == {str(odd), str(plain)}


def test_ingest_dash_joins_paths_named_on_the_line(tmp_path, monkeypatch):
    named = _note(tmp_path / "a", "wifi.md", "Wifi password: correct-horse-battery")
    piped = _note(tmp_path / "b", "vet.md", "Biscuit's vet is Cedar Creek Animal Hospital.")
    monkeypatch.setattr(sys, "stdin", _Stdin(f"{piped}\n".encode()))
    store = tmp_path / "store"
    assert main(["ingest", str(named), "-", "--store", str(store), "--now", NOW]) == 0
    assert len(Brain(store).documents()) == 2


@pytest.mark.parametrize("argv, stdin, said", [
    pytest.param(["ingest", "-"], b"\n \n", "no paths on standard input", id="empty-stdin"),
    pytest.param(["ingest", "somewhere", "-0"], b"", "give - as a PATH", id="dash-0-without-dash"),
])
def test_ingest_from_stdin_refuses_nonsense_in_one_line(tmp_path, monkeypatch, capsys, argv, stdin, said):
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    store = tmp_path / "store"
    assert main([*argv, "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert not store.exists()


# ---- eval outside a source checkout ------------------------------------------------------------
def test_eval_without_question_sets_says_what_to_pass(tmp_path, monkeypatch, capsys):
    # An installed package has no fixtures/ beside it.
    monkeypatch.setattr(cli, "FIXTURE_QUERIES", tmp_path / "site-packages" / "fixtures" / "queries.jsonl")
    assert main(["eval", "--store", str(tmp_path / "store")]) == 2
    err = capsys.readouterr().err
    assert "eval needs QUERIES" in err and "corpus/" in err and err.count("\n") == 1
    assert not (tmp_path / "store").exists()


def test_eval_of_a_missing_question_file_is_one_line(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "nope.jsonl"), "--store", str(tmp_path / "store")]) == 2
    assert "no question set at" in capsys.readouterr().err


# ---- -v and -vv --------------------------------------------------------------------------------
def test_v_shows_our_steps_and_vv_the_libraries_too(tmp_path, notes):
    once = _run("ingest", str(notes), "--store", str(tmp_path / "s1"), "-v")
    assert once.returncode == 0
    err = once.stderr.decode()
    assert "brainquery.storage.indexer: 2 inputs to read" in err and "query index built" in err
    assert "chromadb" not in err and "Posthog" not in err
    twice = _run("ingest", str(notes), "--store", str(tmp_path / "s2"), "-vv")
    assert twice.returncode == 0 and "DEBUG chromadb" in twice.stderr.decode()
    quiet = _run("ingest", str(notes), "--store", str(tmp_path / "s3"))
    assert quiet.returncode == 0 and quiet.stderr == b""


# ---- help --------------------------------------------------------------------------------------
def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    top = cli._parser()
    [sub] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return [("brainquery", top), *((f"brainquery {n}", p) for n, p in sub.choices.items())]


def test_every_option_and_argument_has_help():
    missing = [f"{name}: {'/'.join(action.option_strings) or action.dest}"
               for name, parser in _parsers() for action in parser._actions
               if not (action.help or "").strip() or action.help == argparse.SUPPRESS]
    assert not missing, missing


def test_the_examples_in_the_help_parse():
    examples = [line.strip() for _name, parser in _parsers()
                for line in (parser.description or "").splitlines()
                if (line.startswith("    ") and "brainquery " in line) or "| brainquery" in line]
    assert len(examples) >= 6
    for example in examples:
        words = shlex.split(example)   # an example cut in two by a stray newline fails here
        command = words[len(words) - words[::-1].index("|"):] if "|" in words else words
        assert command[0] == "brainquery", example
        assert callable(cli._parser().parse_args(command[1:]).run), example


def test_help_and_version_load_nothing_heavy():
    probe = ("import sys\nfrom brainquery.cli import main\n"
             "for argv in (['--help'], ['--version'], ['ask', '--help']):\n"
             "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
             "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('numpy', 'scipy', 'sklearn', 'chromadb', 'fastapi'))), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0 and done.stderr.strip() == ""


@pytest.mark.parametrize("argv, unloaded", [
    pytest.param(["ls"], ("chromadb", "sklearn", "scipy"), id="ls"),
    pytest.param(["ask", "what is the wifi password"], ("chromadb", "sklearn"), id="ask"),
])
def test_reading_commands_load_neither_chromadb_nor_scikit_learn(stored, argv, unloaded):
    probe = ("import sys, io\nfrom brainquery.cli import main\n"
             f"code = main({[*argv, '--store', str(stored)]!r})\n"
             "print(code, ' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    code, loaded = done.stderr.strip().splitlines()[-1].split(" ", 1)
    assert code == "0", done.stderr
    assert not set(unloaded) & set(loaded.split()), loaded
    assert "correct-horse-battery" in done.stdout or argv[0] == "ls"


# ---- a store that is not there -----------------------------------------------------------------
READING = [pytest.param(["ask", "wifi password?"], id="ask"), pytest.param(["ls"], id="ls"),
           pytest.param(["serve"], id="serve"), pytest.param(["check"], id="check"),
           pytest.param(["roots"], id="roots")]


@pytest.mark.parametrize("argv", READING)
def test_a_reading_command_never_creates_a_store(tmp_path, capsys, argv):
    typo = tmp_path / "typo"
    assert main([*argv, "--store", str(typo)]) == 2
    err = capsys.readouterr().err
    assert err == (f"brainquery: no Brain Query store at {typo} — run "
                   f"`brainquery ingest PATH --store {typo}` first\n")
    assert not typo.exists()


@pytest.mark.parametrize("argv", READING)
def test_an_empty_folder_is_no_store_either(tmp_path, capsys, argv):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*argv, "--store", str(empty)]) == 2
    assert "no Brain Query store at" in capsys.readouterr().err
    assert list(empty.iterdir()) == []


def test_a_store_of_a_newer_format_is_refused_by_readers_and_writers(stored, notes, capsys):
    from brainquery.storage.store import FORMAT_KEY, STORE_FORMAT

    brain = Brain(stored)
    assert brain.store.state()[FORMAT_KEY] == STORE_FORMAT   # the writer recorded it
    brain.store.set_state(**{FORMAT_KEY: STORE_FORMAT + 1})
    capsys.readouterr()
    for argv in (["ls"], ["ask", "wifi password?"], ["ingest", str(notes)], ["check"]):
        assert main([*argv, "--store", str(stored)]) == 2, argv
        err = capsys.readouterr().err
        assert "written by a newer version of Brain Query" in err and err.count("\n") == 1, argv


def test_a_store_written_before_formats_were_recorded_still_reads(stored, capsys):
    from brainquery.storage.store import FORMAT_KEY, STORE_FORMAT

    brain = Brain(stored)
    state = brain.store.state()
    del state[FORMAT_KEY]
    brain.store._chunks.modify(metadata=state)   # as the previous version left it
    assert FORMAT_KEY not in Brain(stored, read_only=True).store.state()
    capsys.readouterr()
    assert main(["ls", "--store", str(stored)]) == 0 and "wifi" in capsys.readouterr().out
    assert main(["check", "--store", str(stored)]) in (0, 1)
    assert Brain(stored).store.state()[FORMAT_KEY] == STORE_FORMAT   # its next writer records it


# ---- what the CLI reads without chromadb is what chromadb says ------------------------------------
def test_the_state_read_from_chroma_sqlite3_is_chromas_own(stored):
    reader = Brain(stored, read_only=True).store
    fast = reader.state()
    assert reader._deferred, "a read-only embedded store should not have loaded chromadb"
    assert fast == Brain(stored).store.state()
    assert {"query_index", "query_index_digest", "generation", "router_digest"} <= set(fast)


def test_ls_from_the_published_index_lists_what_the_store_holds(stored):
    from brainquery.brain import DOCUMENT_FIELDS
    from brainquery.query import index_state

    brain = Brain(stored, read_only=True)
    published = index_state.published_documents(brain.store, brain.config)
    assert published is not None

    def records(metas):
        return sorted(({f: m.get(f) for f in DOCUMENT_FIELDS} for m in metas), key=lambda m: m["doc_id"])

    assert records(published) == records(Brain(stored).store.documents())


def test_cli_exit_codes_are_the_indexers(tmp_path):
    from brainquery.storage import indexer

    assert (cli.EXIT_SOME_FAILED, cli.EXIT_NOTHING_RAN) == (indexer.EXIT_SOME_FAILED, indexer.EXIT_NOTHING_RAN)
