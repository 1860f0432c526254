"""Store writes go behind the reading, in order; a failed write stops the ingest and nothing
after it is written (storage/write_behind.py)."""
from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

from brainquery import Brain
from brainquery.config import load_config
from brainquery.storage.store import Store, StoreWriteError
from brainquery.storage.write_behind import WriteBehind

NOW = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)


def test_writes_land_in_the_order_they_were_queued():
    done: list[int] = []
    writes = WriteBehind(depth=2)
    for n in range(50):
        writes.submit(done.append, n)
    writes.drain()
    writes.close()
    assert done == list(range(50))


def test_no_more_than_depth_writes_wait_behind_a_slow_one():
    gate = threading.Event()
    writes = WriteBehind(depth=2)
    writes.submit(gate.wait)
    writes.submit(lambda: None)
    blocked = threading.Thread(target=writes.submit, args=(lambda: None,))
    blocked.start()
    blocked.join(timeout=0.3)
    assert blocked.is_alive()          # the third waits for the first to finish
    gate.set()
    blocked.join(timeout=5)
    assert not blocked.is_alive()
    writes.drain()
    writes.close()


def test_a_failed_write_raises_and_nothing_after_it_is_written():
    done: list[str] = []

    def fail():
        raise OSError("disk full")

    writes = WriteBehind(depth=3)
    writes.submit(done.append, "before")
    writes.submit(fail)
    with pytest.raises(OSError, match="disk full"):
        writes.submit(done.append, "after")
        writes.drain()
    with pytest.raises(OSError):
        writes.drain()                 # and it stays failed
    writes.close()
    assert done == ["before"]
    writes.submit(done.append, "next run")   # closed, it starts afresh
    writes.drain()
    writes.close()
    assert done == ["before", "next run"]


def _mailbox(folder, n):
    folder.mkdir()
    for i in range(n):
        (folder / f"m{i:02d}.eml").write_text(
            f"From: Ana <ana@example.com>\nTo: Sam <sam@example.com>\nSubject: Note {i}\n"
            f"Message-ID: <note-{i}@example.com>\nDate: Mon, 16 Nov 2026 09:{i:02d}:00 +0000\n\n"
            f"Reminder number {i}: the recycling goes out on Tuesday.\n", encoding="utf-8")


@pytest.mark.parametrize("queue", [0, 2])
def test_a_store_that_cannot_write_stops_the_ingest_with_its_error(tmp_path, monkeypatch, queue):
    """However the writes are queued, a store that fails mid-ingest raises its one-line
    error to the caller, and no file is recorded as read past the failed write (the next
    run reads them again)."""
    _mailbox(tmp_path / "mail", 12)
    config_file = tmp_path / "small.toml"
    config_file.write_text(f"[store]\nbatch_size = 4\nwrite_queue = {queue}\n"
                           "[embedding]\ninitial_fit_chunks = 1\n")
    calls = {"n": 0}
    real = Store.upsert

    def upsert(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StoreWriteError(f"cannot write the store at {self.location}: disk full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "upsert", upsert)
    brain = Brain(tmp_path / "store", load_config(config_file))
    with pytest.raises(StoreWriteError, match="disk full"):
        brain.ingest([tmp_path / "mail"], now=NOW)
    recorded = set(brain.store.sources())
    stored = {d["file_path"] for d in brain.store.documents()}
    assert len(recorded) <= 4 and recorded <= stored   # a file is recorded only after its chunks
    monkeypatch.setattr(Store, "upsert", real)
    result = brain.ingest([tmp_path / "mail"], now=NOW)
    assert result.exit_code == 0
    assert len(brain.documents()) == 12
