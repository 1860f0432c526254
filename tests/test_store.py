"""The store: incremental, idempotent, crash-safe ingestion, a model that can always be
rebuilt from Chroma alone, and nothing that reaches for the network."""
from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from email.message import EmailMessage
from pathlib import Path

import numpy as np
import pytest
from conftest import INGEST_NOW, REPO, write_eml

from brainquery import Brain

from brainquery.storage import model_cache
from brainquery.config import load_config


def _write_mail(folder: Path, n: int, *, subject: str | None = None, body: str | None = None,
                message_id: str | None = None) -> Path:
    return write_eml(folder / f"mail-{n:03d}.eml", {
        "From": f"Neighbour {n} <n{n}@example.org>", "To": "family@example.org",
        "Subject": subject or f"Garden club meeting {n}",
        "Date": f"Mon, {1 + n % 27:02d} Jun 2025 10:{n % 60:02d}:00 +0000",
        "Message-ID": message_id or f"<garden-{n}@example.org>",
    }, body or (f"The garden club meets on day {n}. Bring tomatoes, basil and "
                f"seedlings number {n}. Parking behind the library.\n\n" * 3))


@pytest.fixture()
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for n in range(12):
        _write_mail(folder, n)
    return folder


def _brain(tmp_path, name="store"):
    return Brain(tmp_path / name)


def _all_chunks(brain):
    return sorted(brain.store.scan(include=("documents", "metadatas")))


def test_reingesting_unchanged_files_does_nothing(tmp_path, corpus):
    brain = _brain(tmp_path)
    first = brain.ingest([corpus], now=INGEST_NOW)
    assert first.by_status()["ingested"] == 12 and first.exit_code == 0
    before = _all_chunks(brain)
    again = brain.ingest([corpus], now=INGEST_NOW)
    assert again.by_status() == {"unchanged": 12}
    assert _all_chunks(brain) == before


def test_touched_file_is_unchanged_and_changed_file_replaces_its_chunks(tmp_path, corpus):
    brain = _brain(tmp_path)
    brain.ingest([corpus], now=INGEST_NOW)
    touched = corpus / "mail-000.eml"
    touched.touch()
    assert brain.ingest([corpus], now=INGEST_NOW).by_status() == {"unchanged": 12}

    _write_mail(corpus, 1, subject="Garden club moved", body="Now on Thursdays.")
    result = brain.ingest([corpus], now=INGEST_NOW)
    assert result.by_status() == {"ingested": 1, "unchanged": 11}
    docs = {d["title"]: d for d in brain.documents()}
    assert "Garden club moved" in docs and "Garden club meeting 1" not in docs
    texts = [doc for _, doc, meta in brain.store.scan(include=("documents", "metadatas"))
             if meta["doc_id"] == docs["Garden club moved"]["doc_id"]]
    assert texts == ["Subject: Garden club moved\n\nNow on Thursdays."]


def test_a_file_whose_message_changes_id_drops_the_old_document(tmp_path, corpus):
    brain = _brain(tmp_path)
    brain.ingest([corpus], now=INGEST_NOW)
    _write_mail(corpus, 2, message_id="<replaced@example.org>")
    brain.ingest([corpus], now=INGEST_NOW)
    ids = [d["message_id"] for d in brain.documents()]
    assert "replaced@example.org" in ids and "garden-2@example.org" not in ids
    assert len(ids) == 12


def test_same_message_id_in_mbox_and_eml_is_one_document(tmp_path, corpus):
    import mailbox

    box = mailbox.mbox(str(corpus / "archive.mbox"))
    box.add((corpus / "mail-003.eml").read_bytes())
    box.close()
    brain = _brain(tmp_path)
    result = brain.ingest([corpus], now=INGEST_NOW)
    skipped = [line for line in result.lines if line.status == "skipped"]
    assert len(skipped) == 1 and "duplicate of" in skipped[0].error
    assert [d["message_id"] for d in brain.documents()].count("garden-3@example.org") == 1


def test_killed_ingest_is_completed_without_duplicates(tmp_path, corpus):
    store = tmp_path / "store"
    # Kill -9 the ingest right after its first batch of chunks reached Chroma.
    script = textwrap.dedent(f"""
        import os, signal
        from brainquery import Brain
        from brainquery.storage.store import Store
        real = Store.upsert
        def upsert(self, *a, **k):
            real(self, *a, **k)
            os.kill(os.getpid(), signal.SIGKILL)
        Store.upsert = upsert
        Brain({str(store)!r}).ingest([{str(corpus)!r}])
    """)
    env_config = tmp_path / "small-batches.toml"
    env_config.write_text("[store]\nbatch_size = 4\n[embedding]\ninitial_fit_chunks = 1\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO,
                          env={**_env(), "BRAINQUERY_CONFIG": str(env_config)})
    assert proc.returncode == -9
    brain = Brain(store, load_config(env_config))
    partial = brain.store.count()
    assert 0 < partial < 12 * 3
    result = brain.ingest([corpus], now=INGEST_NOW)
    assert result.exit_code == 0
    ids = [chunk_id for chunk_id, _, _ in brain.store.scan()]
    assert len(ids) == len(set(ids))
    assert len(brain.documents()) == 12
    fresh = _brain(tmp_path, "fresh")
    fresh.ingest([corpus], now=INGEST_NOW)
    assert sorted(ids) == sorted(chunk_id for chunk_id, _, _ in fresh.store.scan())


def test_index_built_twice_is_identical(tmp_path, corpus):
    stores = []
    for name in ("a", "b"):
        brain = _brain(tmp_path, name)
        brain.ingest([corpus], now=INGEST_NOW)
        stores.append(brain.store)
    emb = [_embeddings(s) for s in stores]
    assert emb[0][0] == emb[1][0]
    np.testing.assert_array_equal(emb[0][1], emb[1][1])


def _embeddings(store):
    page = store._chunks.get(include=["embeddings"])
    order = np.argsort(page["ids"])
    return [page["ids"][i] for i in order], np.asarray(page["embeddings"])[order]


def test_lost_model_cache_is_rebuilt_from_the_store(tmp_path, corpus):
    brain = _brain(tmp_path)
    brain.ingest([corpus], now=INGEST_NOW)
    fingerprint = brain.store.state()[model_cache.STATE_KEY]
    ids, before = _embeddings(brain.store)
    (brain.store.cache_dir / model_cache.MODEL_FILE).unlink()
    model = model_cache.open_model(brain.store, brain.config.embedding)
    assert model.fingerprint_ == fingerprint  # same corpus, same deterministic fit
    np.testing.assert_allclose(_embeddings(brain.store)[1], before, atol=1e-6)


def test_growing_corpus_refits_and_rewrites_every_vector(tmp_path, corpus):
    brain = _brain(tmp_path)
    brain.ingest([corpus / "mail-000.eml", corpus / "mail-001.eml"], now=INGEST_NOW)
    first = brain.store.state()[model_cache.STATE_KEY]
    brain.ingest([corpus], now=INGEST_NOW)
    second = brain.store.state()[model_cache.STATE_KEY]
    assert second != first
    model = model_cache.open_model(brain.store, brain.config.embedding)
    assert model.fingerprint_ == second and model.n_fit_ == brain.store.count()
    ids, stored = _embeddings(brain.store)
    texts = {cid: model_cache.embed_text(meta["title"], doc)
             for cid, doc, meta in brain.store.scan(include=("documents", "metadatas"))}
    np.testing.assert_allclose(stored, model.transform([texts[i] for i in ids]), atol=1e-5)


def test_chunks_carry_dates_as_iso_and_epoch(tmp_path, corpus):
    brain = _brain(tmp_path)
    brain.ingest([corpus], now=INGEST_NOW)
    hits = brain.store._chunks.get(where={"source_epoch": {"$gte": 1749081600}},  # 2025-06-05
                                   include=["metadatas"])
    assert hits["ids"]
    for meta in hits["metadatas"]:
        assert meta["source_date"] >= "2025-06-05" and meta["date_source"] == "date_header"


def test_ingest_never_touches_the_network(tmp_path, corpus, monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    brain = _brain(tmp_path)
    assert brain.ingest([corpus], now=INGEST_NOW).exit_code == 0
    assert brain.documents()
    assert attempts == []


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "BRAINQUERY_CONFIG"}


def test_a_mailbox_over_the_file_limit_streams_in_message_by_message(tmp_path):
    import mailbox

    folder = tmp_path / "mail"
    folder.mkdir()
    for n in range(30):
        _write_mail(folder, n)
    box = mailbox.mbox(str(tmp_path / "takeout.mbox"))
    for path in sorted(folder.iterdir()):
        box.add(path.read_bytes())
    big = EmailMessage()
    big["From"] = "a@example.org"
    big["Subject"] = "scan of everything"
    big["Date"] = "Mon, 02 Mar 2026 10:00:00 +0000"
    big.set_content("x" * 20000)
    box.add(big)
    box.close()
    small = tmp_path / "small.toml"
    small.write_text("[ingest]\nmax_file_bytes = 4096\nmax_message_bytes = 8192\n"
                     "[store]\nbatch_size = 5\n")
    brain = Brain(tmp_path / "store", load_config(small))
    result = brain.ingest([tmp_path / "takeout.mbox"], now=INGEST_NOW)
    statuses = result.by_status()
    assert statuses["ingested"] == 30 and statuses["failed"] == 1
    [failure] = result.failures
    assert failure.source.endswith("#30") and "over the 8192-byte limit" in failure.error
    assert len(brain.documents()) == 30
