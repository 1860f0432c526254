"""Real processes against one store: a second writer waits its turn (or exits 2 with
--no-wait), a dead writer's lock is broken with a notice, two ingests at once leave every
vector from the recorded model, a reader during a writer answers from a complete
generation, `serve`'s Brain sees what another process ingested, and a kill -9 at any phase
leaves nothing a reader or the next ingest cannot repair."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import INGEST_NOW, REPO
from test_integrity import _corpus, assert_store_and_index_agree

from brainquery import Brain
from brainquery.config import load_config

# Small batches and eager refits: every phase (fit, upsert, refit) happens on a few files.
SMALL = "[store]\nbatch_size = 4\nlock_poll_seconds = 0.1\n[embedding]\ninitial_fit_chunks = 1\nrefit_growth_ratio = 1.5\n"


@pytest.fixture()
def config(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def _env(config: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "BRAINQUERY_CONFIG": str(config)}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "brainquery", *args]


def _holder(store: Path, config: Path, ready: Path) -> subprocess.Popen:
    """A process that holds the writer lock until killed."""
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from brainquery import Brain
        with Brain({str(store)!r}).store.writer():
            Path({str(ready)!r}).touch()
            time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env=_env(config))
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the lock holder did not start"
        time.sleep(0.05)
    return proc


def test_a_second_writer_exits_2_with_no_wait_and_otherwise_waits_then_breaks_a_dead_lock(
        tmp_path, config):
    store, corpus = tmp_path / "store", _corpus(tmp_path / "corpus", 3)
    holder = _holder(store, config, tmp_path / "ready")
    try:
        refused = subprocess.run(_cli("ingest", str(corpus), "--store", str(store), "--no-wait"),
                                 cwd=REPO, env=_env(config), capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2
        assert f"being written by PID {holder.pid}" in refused.stderr
        assert refused.stderr.count("\n") == 1
        waiting = subprocess.Popen(_cli("ingest", str(corpus), "--store", str(store)), cwd=REPO,
                                   env=_env(config), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        time.sleep(3)
        assert waiting.poll() is None, "the second writer did not wait"
    finally:
        holder.kill()  # kill -9: its lock record stays behind
        holder.wait()
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "waiting for it to finish" in err
    assert f"broke a stale lock left by PID {holder.pid}" in err
    assert_store_and_index_agree(store, config)


def test_two_ingests_at_once_leave_every_vector_from_the_recorded_model(tmp_path, config):
    store = tmp_path / "store"
    a, b = _corpus(tmp_path / "a", 10), _corpus(tmp_path / "b", 10, first=10)
    procs = [subprocess.Popen(_cli("ingest", str(folder), "--store", str(store)), cwd=REPO,
                              env=_env(config), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for folder in (a, b)]
    results = [(p.wait(timeout=180), p.stderr.read()) for p in procs]
    assert [code for code, _ in results] == [0, 0], results
    assert len(Brain(store, load_config(config)).documents()) == 20
    assert_store_and_index_agree(store, config)


def test_a_reader_during_a_writer_answers_from_a_complete_generation(tmp_path, config):
    store, a = tmp_path / "store", _corpus(tmp_path / "a", 6)
    env = _env(config)
    subprocess.run(_cli("ingest", str(a), "--store", str(store)), cwd=REPO, env=env, check=True,
                   capture_output=True, timeout=120)
    b = _corpus(tmp_path / "b", 12, first=6)
    slow = textwrap.dedent(f"""
        import time
        from brainquery import Brain
        from brainquery.storage.store import Store
        real = Store.upsert
        def upsert(self, *a, **k):
            real(self, *a, **k)
            time.sleep(0.3)
        Store.upsert = upsert
        Brain({str(store)!r}).ingest([{str(b)!r}])
    """)
    writer = subprocess.Popen([sys.executable, "-c", slow], cwd=REPO, env=env)
    cfg = load_config(config)
    answers = []
    while writer.poll() is None:
        reader = Brain(store, cfg, read_only=True)
        answers.append(reader.ask("Where does the garden club meet?", now=INGEST_NOW))
    assert writer.wait() == 0
    assert answers and all(r.results for r in answers)
    # Checked from a fresh process: this one's embedded Chroma client read the store while
    # another process wrote it, and Chroma may then fail a full scan ("Error finding id").
    _agree_in_a_fresh_process(store, config)


def test_a_running_brain_sees_documents_another_process_ingested(tmp_path, config):
    store, a = tmp_path / "store", _corpus(tmp_path / "a", 3)
    served = Brain(store, load_config(config))
    served.ingest([a], now=INGEST_NOW)
    assert not served.ask("chess tournament", now=INGEST_NOW).answer
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "chess.md").write_text("The chess tournament is at the rec centre on Saturday.\n")
    subprocess.run(_cli("ingest", str(notes), "--store", str(store)), cwd=REPO, env=_env(config),
                   check=True, capture_output=True, timeout=120)
    assert "rec centre" in (served.ask("Where is the chess tournament?", now=INGEST_NOW).answer or "")


def _agree_in_a_fresh_process(store: Path, config: Path) -> None:
    script = ("import sys; sys.path.insert(0, 'tests'); from pathlib import Path; "
              f"from test_integrity import assert_store_and_index_agree as check; check(Path({str(store)!r}))")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=_env(config),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# kill -9 inside each phase of an ingest that grows the store past a refit.
PHASES = {
    "read": ("brainquery.storage.indexer", "Indexer", "_ingest_blob"),
    "upsert": ("brainquery.storage.store", "Store", "upsert"),
    "refit": ("brainquery.storage.store", "Store", "update_embeddings"),
    "cache write": ("brainquery.query.query_index", "", "write_arrays"),
}


@pytest.mark.parametrize("phase", PHASES)
def test_kill_9_in_any_phase_leaves_a_store_that_readers_and_ingests_repair(tmp_path, config, phase):
    store, a = tmp_path / "store", _corpus(tmp_path / "a", 3)
    b = _corpus(tmp_path / "b", 12, first=3)
    env = _env(config)
    subprocess.run(_cli("ingest", str(a), "--store", str(store)), cwd=REPO, env=env, check=True,
                   capture_output=True, timeout=120)
    owner, name, attr = PHASES[phase]
    script = textwrap.dedent(f"""
        import importlib, os, signal
        target = importlib.import_module({owner!r})
        holder = getattr(target, {name!r}) if {name!r} else target
        real = getattr(holder, {attr!r})
        calls = []
        def dying(*a, **k):
            calls.append(1)
            if len(calls) == {1 if phase in ("cache write", "refit") else 2}:  # part-way, where it can be
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*a, **k)
        setattr(holder, {attr!r}, dying)
        from brainquery import Brain
        Brain({str(store)!r}).ingest([{str(a)!r}, {str(b)!r}])
    """)
    killed = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    asked = subprocess.run(_cli("ask", "Where does the garden club meet?", "--store", str(store), "--json"),
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert asked.returncode == 0, asked.stderr
    _agree_in_a_fresh_process(store, config)
    again = subprocess.run(_cli("ingest", str(a), str(b), "--store", str(store), "--json"), cwd=REPO,
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert sum(json.loads(again.stdout)["doc_types"].values()) == 15
    _agree_in_a_fresh_process(store, config)
