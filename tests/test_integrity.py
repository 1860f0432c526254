"""The caches beside a store are data, verified against it: a planted pickle runs no code,
a file of the right format but the wrong shape is rebuilt, `brainquery check` finds and
repairs vectors of another model, a store that lost its database says so, and a full disk
is one line, never a traceback or a leftover temporary file."""
from __future__ import annotations

import errno
import io
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from conftest import INGEST_NOW, write_eml

from brainquery import Brain

from brainquery.query import query_index

from brainquery.storage import model_cache
from brainquery.cli import main

QUESTION = "Where does the garden club meet?"


def _corpus(folder: Path, n: int = 8, first: int = 0) -> Path:
    """`n` garden-club mails numbered from `first` (distinct numbers, distinct messages)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(first, first + n):
        write_eml(folder / f"mail-{i:02d}.eml", {
            "From": f"Neighbour {i} <n{i}@example.org>", "To": "family@example.org",
            "Subject": f"Garden club meeting {i}", "Date": f"Mon, {1 + i % 27:02d} Jun 2025 10:00:00 +0000",
            "Message-ID": f"<garden-{i}@example.org>"},
            f"The garden club meets on day {i} behind the library. Bring tomatoes and basil.\n")
    return folder


@pytest.fixture()
def stored(tmp_path):
    corpus = _corpus(tmp_path / "corpus")
    brain = Brain(tmp_path / "store")
    brain.ingest([corpus], now=INGEST_NOW)
    return tmp_path / "store", corpus, brain


class _Payload:
    """Unpickling this creates the marker file: proof that code ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


CACHE_FILES = ["query_index.pkl", "dense.pkl", query_index.INDEX_FILE, model_cache.MODEL_FILE,
               "last_ingest.json"]


@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_planted_pickle_runs_no_code_and_the_cache_is_rebuilt(stored, tmp_path, name):
    store, corpus, brain = stored
    marker = tmp_path / "pwned"
    cache = brain.store.cache_dir / name
    cache.write_bytes(pickle.dumps({"format": 2, "index": _Payload(marker), "model": _Payload(marker)}))
    answer = Brain(store).ask(QUESTION, now=INGEST_NOW)
    Brain(store).ingest([corpus], now=INGEST_NOW)
    Brain(store).documents()
    Brain(store).last_ingest()
    assert not marker.exists(), f"unpickling {name} ran code"
    assert _answers_from_the_corpus(answer)
    assert not (brain.store.cache_dir / name).exists() or name.endswith((".npz", ".json"))


def _answers_from_the_corpus(result) -> bool:
    return bool(result.results) and Path(result.results[0].source).name.startswith("mail-")


def _plant_and_publish(brain: Brain, name: str, arrays: dict, key: str) -> None:
    """A file of our format but the wrong shape, with the store's state naming its digest
    (as if whoever planted it could write the store's metadata too)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    (brain.store.cache_dir / name).write_bytes(data)
    import hashlib

    brain.store.set_state(**{key: hashlib.sha256(data).hexdigest()})


def test_a_query_index_of_the_wrong_shape_is_rebuilt_not_indexed_into(stored):
    store, _, brain = stored
    path = brain.store.cache_dir / query_index.INDEX_FILE
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["embeddings"] = arrays["embeddings"][:2, :3]
    arrays["chunk_doc"] = arrays["chunk_doc"] + 1000
    _plant_and_publish(brain, query_index.INDEX_FILE, arrays, query_index.DIGEST_KEY)
    answer = Brain(store).ask(QUESTION, now=INGEST_NOW)
    assert _answers_from_the_corpus(answer)
    index = query_index.load(path, brain.config, Brain(store).store.state()[query_index.DIGEST_KEY])
    assert index is not None and index.embeddings.shape[0] == brain.store.count()


def test_a_dense_model_of_the_wrong_shape_is_refitted(stored):
    store, corpus, brain = stored
    path = brain.store.cache_dir / model_cache.MODEL_FILE
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["components"] = arrays["components"][:, :5]
    _plant_and_publish(brain, model_cache.MODEL_FILE, arrays, model_cache.DIGEST_KEY)
    model = model_cache.open_model(Brain(store).store, brain.config.embedding, brain.config.text)
    assert model.fingerprint_ == brain.store.state()[model_cache.STATE_KEY]
    assert Brain(store).ingest([corpus], now=INGEST_NOW).exit_code == 0


def test_a_last_ingest_record_of_the_wrong_shape_reads_as_none(stored):
    _, _, brain = stored
    (brain.store.cache_dir / "last_ingest.json").write_text("[1, 2, 3]")
    assert brain.last_ingest() is None


# ---- brainquery check --------------------------------------------------------------------------
def stored_vectors(brain: Brain) -> tuple[list[str], np.ndarray, list[str]]:
    rows = sorted(brain.store.scan_with_embeddings(), key=lambda row: row[0])
    return ([r[0] for r in rows], np.stack([np.asarray(r[3], dtype=np.float32) for r in rows]),
            [model_cache.embed_text(str(r[2].get("title", "")), r[1]) for r in rows])


def assert_store_and_index_agree(store: Path, config: Path | None = None) -> None:
    """Every stored vector is the recorded model's vector of its chunk, and the index a
    reader opens holds exactly the store's vectors, row for row. `config`: the file the
    store was written with (another embedding config would refit)."""
    from brainquery.config import load_config

    brain = Brain(store, load_config(config))
    ids, vectors, texts = stored_vectors(brain)
    model = model_cache.open_model(brain.store, brain.config.embedding, brain.config.text)
    np.testing.assert_allclose(vectors, model.transform(texts), atol=1e-5)
    index = query_index.open_index(brain.store, brain.config)
    assert list(index.chunk_ids) == ids
    np.testing.assert_array_equal(index.embeddings, vectors)
    assert index.fingerprint == query_index.build(brain.store, brain.config).fingerprint


def test_check_finds_vectors_of_another_model_and_rewrites_them(stored, capsys):
    store, _, brain = stored
    ids, vectors, _ = stored_vectors(brain)
    rng = np.random.default_rng(7)
    foreign = rng.normal(size=(3, vectors.shape[1])).astype(np.float32)
    brain.store.update_embeddings(ids[:3], foreign / np.linalg.norm(foreign, axis=1, keepdims=True))
    assert main(["check", "--store", str(store)]) == 1
    out = capsys.readouterr().out
    assert "repaired: 3 of" in out and "vectors were not the recorded model's" in out
    assert_store_and_index_agree(store)
    assert main(["check", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["repaired"] == []


def test_check_removes_leftovers_and_rebuilds_a_foreign_index(stored, capsys):
    store, _, brain = stored
    (brain.store.cache_dir / "query_index.npz.tmp").write_bytes(b"half a file")
    (brain.store.cache_dir / query_index.INDEX_FILE).write_bytes(b"PK not ours")
    assert main(["check", "--store", str(store)]) == 1
    out = capsys.readouterr().out
    assert "removed leftover files: query_index.npz.tmp" in out
    assert "the query index was missing, foreign or unreadable: rebuilt" in out
    assert_store_and_index_agree(store)


def test_a_store_that_lost_its_database_warns_instead_of_looking_empty(stored):
    import os
    import subprocess
    import sys

    from conftest import REPO

    store, _, brain = stored
    (store / "chroma.sqlite3").unlink()
    # Another process: this one's Chroma client still holds the deleted file open.
    listed = subprocess.run([sys.executable, "-m", "brainquery", "ls", "--store", str(store)],
                            cwd=REPO, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert listed.returncode == 0 and listed.stdout == ""
    assert "cache describes" in listed.stderr and "chroma.sqlite3" in listed.stderr


# ---- a full disk -----------------------------------------------------------------------------------
class _FullDisk(io.FileIO):
    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device", self.name)


def test_a_full_disk_during_a_cache_write_is_one_line_and_leaves_no_temporary_file(
        tmp_path, monkeypatch, capsys):
    from brainquery import files

    corpus = _corpus(tmp_path / "corpus")
    monkeypatch.setattr(files, "open", lambda path, mode, **kw: _FullDisk(path, "w"), raising=False)
    code = main(["ingest", str(corpus), "--store", str(tmp_path / "store")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert not list((tmp_path / "store").rglob("*.tmp"))


def test_a_store_write_that_fails_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    from brainquery.storage import store as store_module

    corpus = _corpus(tmp_path / "corpus")

    def full(self, *args, **kwargs):
        raise RuntimeError("Error in compaction: Failed to apply logs: No space left on device (os error 28)")

    monkeypatch.setattr(store_module.Store, "upsert", store_module._writes(full))
    code = main(["ingest", str(corpus), "--store", str(tmp_path / "store")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "No space left on device" in err


def test_while_the_disk_is_full_ls_and_ask_still_answer(stored, monkeypatch, capsys):
    from brainquery import files

    store, _, _ = stored
    monkeypatch.setattr(files, "open", lambda path, mode, **kw: _FullDisk(path, "w"), raising=False)
    assert main(["ls", "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["ask", QUESTION, "--store", str(store), "--json"]) == 0
    assert "mail-" in json.loads(capsys.readouterr().out)["results"][0]["source"]
