"""A large mbox parsed by worker processes stores exactly what the serial path stores."""
from __future__ import annotations

import dataclasses
import json
import shutil

from brainquery import Brain
from brainquery.config import load_config
from brainquery.storage.parse_pool import wants_pool
from conftest import ASK_NOW, FIXTURES
from ingest.blob import Blob

BROKEN = b"From x@example.org Thu Jan  1 00:00:00 2026\nContent-Type: multipart/mixed; boundary=\n\n--\n"


def _config(workers: int, min_messages: int):
    config = load_config()
    limits = dataclasses.replace(config.ingest.ingest, parse_workers_max=workers,
                                 parse_pool_min_messages=min_messages, parse_task_messages=3)
    return dataclasses.replace(config, ingest=dataclasses.replace(config.ingest, ingest=limits))


def _stored(store: str, config) -> tuple[list, list]:
    brain = Brain(store, config=config)
    summary = brain.ingest([store + "-in"], now=ASK_NOW)
    chunks = sorted(json.dumps([i, d, m], sort_keys=True) for i, d, m in brain.store.scan(("documents", "metadatas")))
    lines = [(line.source, line.status, line.doc_id, line.error) for line in summary.lines]
    return chunks, lines


def test_pooled_mbox_stores_the_serial_paths_chunks_in_the_same_report_order(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    for box in ("corpus/mail/family.mbox", "household3/corpus/mail/archive-2020-2023.mbox",
                "household2/corpus/mail/archive-2021-2023.mbox"):
        shutil.copy(FIXTURES / box, mail / box.replace("/", "_"))
    # A broken message in the middle of a mailbox is its own FAILED line either way.
    family = (FIXTURES / "corpus/mail/family.mbox").read_bytes()
    (mail / "mixed.mbox").write_bytes(family + BROKEN + family.replace(b"Message-ID: <", b"Message-ID: <copy-"))
    runs = {}
    for name, config in (("serial", _config(1, 1)), ("pooled", _config(2, 1))):
        shutil.copytree(mail, tmp_path / f"{name}-in")
        runs[name] = _stored(str(tmp_path / name), config)
    # The inputs' paths differ by their folder only.
    serial, pooled = (json.dumps(runs[n]).replace(f"{n}-in", "IN") for n in ("serial", "pooled"))
    assert json.loads(serial)[0], "nothing was stored"
    assert any(line[1] == "failed" for line in json.loads(serial)[1])
    assert pooled == serial


def test_a_handful_of_messages_is_parsed_in_process():
    config = _config(2, 400)
    from ingest.registry import Context, default_registry

    ctx = Context(config=config.ingest, now=ASK_NOW, registry=default_registry())
    assert not wants_pool(Blob.from_path(FIXTURES / "corpus/mail/family.mbox"), "mbox", ctx)
    assert wants_pool(Blob.from_path(FIXTURES / "corpus/mail/family.mbox"), "mbox",
                      dataclasses.replace(ctx, config=_config(2, 6).ingest))


def test_a_parser_that_overruns_costs_its_messages_a_failed_line_not_the_ingest(tmp_path):
    # Every worker misses the deadline: each task is split into single messages, each of
    # those is a FAILED line, and the ingest still finishes with a report for every message.
    config = _config(2, 1)
    limits = dataclasses.replace(config.ingest.ingest, parse_task_timeout_seconds=0.001)
    config = dataclasses.replace(config, ingest=dataclasses.replace(config.ingest, ingest=limits))
    inbox = tmp_path / "slow-in"
    inbox.mkdir()
    shutil.copy(FIXTURES / "corpus/mail/family.mbox", inbox / "family.mbox")
    summary = Brain(str(tmp_path / "slow"), config=config).ingest([inbox], now=ASK_NOW)
    serial = Brain(str(tmp_path / "serial"), config=_config(1, 1)).ingest([inbox], now=ASK_NOW)
    assert len(summary.lines) == len(serial.lines) > 1
    assert all(line.status == "failed" and "took over" in line.error for line in summary.lines)
