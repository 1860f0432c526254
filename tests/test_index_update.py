"""An ingest updates the query index in place, and the result is the index a rebuild from
the store would give (brainquery/query/index_update.py states the tolerance):

- the same chunks, documents, vectors, dates, occurrences, entity records and fingerprint,
  exactly (so `brainquery check` finds nothing to repair);
- BM25 weights equal term for term; evidence-graph edges equal up to the float32 the graph
  stores its Jaccards in (1e-6), centrality to 1e-6;
- the same ranking, top 10, for every question of fixtures/queries.jsonl.

Against a store built in one ingest the difference is the embedding model's, not the
index's: a three-step store keeps the model fitted at its first step until the corpus
doubles ([embedding] refit_growth_ratio). That difference is measured and bounded below.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from brainquery import Brain
from brainquery.config import load_config
from brainquery.files import JsonRecords
from brainquery.query import query_index
from brainquery.query.ask import Asker

from conftest import FIXTURES, INGEST_NOW

CORPUS = FIXTURES / "corpus"
TOP_K = 10
# Per-chunk and per-document arrays a rebuild and an update must agree on bit for bit.
EXACT = ("chunk_doc", "chunk_no", "embeddings", "doc_epoch", "doc_type", "doc_cancelled", "doc_source", "occ_doc",
         "occ_start", "occ_end", "chunk_kinds", "doc_chunk_order", "doc_chunk_ptr", "occ_ptr", "doc_last_end")
UPDATED = "query index updated"


def _config(**index):
    config = load_config()
    return dataclasses.replace(config, index=dataclasses.replace(config.index, **index))


def _questions() -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "queries.jsonl").read_text().splitlines() if line.strip()]


def _rankings(index, config) -> dict[str, list[str]]:
    asker = Asker(index, config)
    out = {}
    for q in _questions():
        result = asker.ask(q["question"], datetime.fromisoformat(q["now"]), k=TOP_K)
        out[q["id"]] = [s.doc_id for s in result.results]
    return out


def _files() -> list[str]:
    return sorted(str(p) for p in CORPUS.rglob("*") if p.is_file())


def _assert_same_index(updated, rebuilt) -> None:
    assert updated.fingerprint == rebuilt.fingerprint
    assert list(updated.chunk_ids) == list(rebuilt.chunk_ids)
    assert updated.chunk_texts == rebuilt.chunk_texts
    assert updated.docs == rebuilt.docs
    assert updated.type_names == rebuilt.type_names
    for name in EXACT:
        a, b = getattr(updated, name), getattr(rebuilt, name)
        assert a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    # BM25: the same terms with the same weights (terms may be numbered in another order).
    assert set(updated.bm25.vocab_) == set(rebuilt.bm25.vocab_)
    terms = sorted(rebuilt.bm25.vocab_)
    mine = updated.bm25.weights_[:, [updated.bm25.vocab_[t] for t in terms]].toarray()
    theirs = rebuilt.bm25.weights_[:, [rebuilt.bm25.vocab_[t] for t in terms]].toarray()
    assert np.array_equal(mine, theirs)
    assert np.allclose(updated.bm25.idf_[[updated.bm25.vocab_[t] for t in terms]],
                       rebuilt.bm25.idf_[[rebuilt.bm25.vocab_[t] for t in terms]], rtol=0, atol=1e-12)
    # The graph: the same edges; weights within float32 rounding.
    a, b = updated.graph.adjacency_, rebuilt.graph.adjacency_
    assert a.nnz == b.nnz and (a != 0).toarray().tolist() == (b != 0).toarray().tolist()
    assert np.abs(a - b).max() <= 1e-6
    assert np.array_equal(updated.graph.cluster_, rebuilt.graph.cluster_)
    assert np.allclose(updated.graph.centrality_, rebuilt.graph.centrality_, rtol=0, atol=1e-6)
    # Entities: the same names, records and counts.
    e, f = updated.entities, rebuilt.entities
    assert e.names == f.names and np.array_equal(e.capitals, f.capitals)
    assert [e.record(i) for i in range(len(e.rec_doc))] == [f.record(i) for i in range(len(f.rec_doc))]


@pytest.fixture(scope="module")
def three_steps(tmp_path_factory):
    """fixtures/corpus ingested in three steps (60%, 20%, 20% of its files), every step after
    the first an update."""
    config = _config(max_update_share=1.0)
    brain = Brain(tmp_path_factory.mktemp("three-steps") / "store", config=config)
    files = _files()
    first, second = int(len(files) * 0.6), int(len(files) * 0.8)
    brain.ingest(files[:first], now=INGEST_NOW)
    logger = logging.getLogger("brainquery.query.query_index")
    updates = []
    handler = logging.Handler()
    handler.emit = lambda record: updates.append(record.getMessage())
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        brain.ingest(files[first:second], now=INGEST_NOW)
        brain.ingest(files[second:], now=INGEST_NOW)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return brain, config, updates


def test_each_later_ingest_updates_the_index_instead_of_rebuilding_it(three_steps):
    _, _, messages = three_steps
    assert [m.startswith(UPDATED) for m in messages] == [True, True], messages


def test_an_index_updated_twice_is_the_index_a_rebuild_gives(three_steps):
    brain, config, _ = three_steps
    _assert_same_index(brain._answerer().index, query_index.build(brain.store, config))


def test_an_updated_index_ranks_every_fixture_question_as_a_rebuilt_one(three_steps):
    brain, config, _ = three_steps
    assert _rankings(brain._answerer().index, config) == _rankings(query_index.build(brain.store, config), config)


def test_check_finds_the_updated_index_true(three_steps):
    brain, _, _ = three_steps
    report = brain.check()
    assert report.exit_code == 0, report.text()
    assert any("query index matches" in line for line in report.checked)


def test_a_new_process_reads_the_updated_index(three_steps):
    brain, config, _ = three_steps
    reader = Brain(brain.store.location, config=config)
    assert reader._answerer().index.fingerprint == brain._answerer().index.fingerprint


def _constant_limit(config, limit: int):
    """A shingle's evidence limit that no longer moves with the corpus size, as in every store
    past max_df_limit / max_df_share chunks (1,000 by default): an update then looks only at
    the shingles its added and removed chunks hold."""
    return dataclasses.replace(config, graph=dataclasses.replace(config.graph, min_df_limit=limit,
                                                                 max_df_limit=limit))


@pytest.mark.parametrize("limit", [None, 3], ids=["limit-grows-with-the-corpus", "constant-limit"])
def test_changed_and_removed_documents_are_updated_in_place(tmp_path, caplog, limit):
    """A message edited in place, and one whose file now holds another message (a new
    Message-ID: the old document is gone from its file, so deleted): the update drops the
    removed document's rows and replaces the edited one's, as a rebuild would."""
    config = _config(max_update_share=1.0)
    config = config if limit is None else _constant_limit(config, limit)
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    brain = Brain(tmp_path / "store", config=config)
    brain.ingest([folder], now=INGEST_NOW)
    before = {str(d["doc_id"]) for d in brain._answerer().index.docs}
    mail = sorted((folder / "mail").glob("*.eml"))
    edited, replaced = mail[0], mail[1]
    edited.write_bytes(edited.read_bytes().replace(b"\n\n", b"\n\nThe furnace filter is 16x25x4, in the garage.\n\n", 1))
    data = replaced.read_bytes()
    start = data.index(b"Message-ID: <") + len(b"Message-ID: <")
    replaced.write_bytes(data[:start] + b"replaced-" + data[start:])
    with caplog.at_level(logging.INFO, logger="brainquery.query.query_index"):
        brain.ingest([folder], now=INGEST_NOW)
    assert any(r.getMessage().startswith(UPDATED) for r in caplog.records)
    updated = brain._answerer().index
    after = {str(d["doc_id"]) for d in updated.docs}
    assert len(before - after) == 1 and len(after - before) == 1
    assert any("16x25x4, in the garage" in t for t in updated.chunk_texts)
    _assert_same_index(updated, query_index.build(brain.store, config))


def test_a_large_change_rebuilds(tmp_path, caplog):
    """More than [index] max_update_share of the chunks touched: a rebuild, which is as quick
    and also re-derives everything from the store."""
    brain = Brain(tmp_path / "store", config=_config(max_update_share=0.0))
    files = _files()
    brain.ingest(files[:40], now=INGEST_NOW)
    with caplog.at_level(logging.INFO, logger="brainquery.query.query_index"):
        brain.ingest(files[40:], now=INGEST_NOW)
    assert not any(r.getMessage().startswith(UPDATED) for r in caplog.records)
    assert any(r.getMessage().startswith("query index built") for r in caplog.records)


def test_three_steps_rank_as_one_step_up_to_the_embedding_model(three_steps, tmp_path):
    """Against one ingest of the whole corpus, the three-step store differs in its
    embedding model (fitted on the first step's 60%), not in how the index was kept. Measured
    on this corpus: the top document is the same for 102 of the 105 fixture questions (the
    three others are questions about the furnace and Halloween, where the dense score
    decides between near ties), and the top-10 lists share 95.8% of their documents on
    average. Bounded here at 95% and 90%."""
    brain, config, _ = three_steps
    one = Brain(tmp_path / "one-step", config=config)
    one.ingest(_files(), now=INGEST_NOW)
    mine, theirs = _rankings(brain._answerer().index, config), _rankings(one._answerer().index, config)
    top1 = [mine[q][:1] == theirs[q][:1] for q in mine]
    overlap = [len(set(mine[q]) & set(theirs[q])) / max(len(theirs[q]), 1) for q in mine]
    assert sum(top1) >= 0.95 * len(top1), [q for q, same in zip(mine, top1) if not same]
    assert np.mean(overlap) >= 0.9


def test_without_its_writer_file_the_index_is_rebuilt(tmp_path, caplog):
    """The shingle sets an update needs live in a file only writers read: when it is gone
    (or was never written, by an older version), the next ingest rebuilds, and writes it."""
    from brainquery.query.index_update import WRITER_FILE

    brain = Brain(tmp_path / "store", config=_config(max_update_share=1.0))
    files = _files()
    brain.ingest(files[:40], now=INGEST_NOW)
    (brain.store.cache_dir / WRITER_FILE).unlink()
    with caplog.at_level(logging.INFO, logger="brainquery.query.query_index"):
        brain.ingest(files[40:48], now=INGEST_NOW)
    assert [r.getMessage().split(":")[0] for r in caplog.records if "query index" in r.getMessage()] \
        == ["query index built"]
    assert (brain.store.cache_dir / WRITER_FILE).exists()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="brainquery.query.query_index"):
        brain.ingest(files[48:], now=INGEST_NOW)
    assert any(r.getMessage().startswith(UPDATED) for r in caplog.records)


def _chunk_analysis_config(**index):
    return _config(analysis_pool_min_chunks=0, analysis_block_chunks=7, **index)


def test_chunks_analysed_by_worker_processes_give_the_index_one_process_gives(three_steps, monkeypatch, caplog):
    from brainquery.query import chunk_analysis

    brain, _, _ = three_steps
    alone = query_index.build(brain.store, _config(analysis_workers_max=0))
    monkeypatch.setattr("brainquery.query.chunk_analysis.os.cpu_count", lambda: 3)
    config = _chunk_analysis_config(analysis_workers_max=2)
    assert chunk_analysis.workers_for(alone.n_chunks, config) == 2
    with caplog.at_level(logging.WARNING, logger="brainquery.query.chunk_analysis"):
        shared = query_index.build(brain.store, config)
    assert caplog.text == ""     # both workers answered: no share fell back to this process
    _assert_same_index(shared, alone)


def test_a_worker_that_cannot_analyse_leaves_its_chunks_to_the_building_process(three_steps, monkeypatch, caplog):
    brain, _, _ = three_steps
    alone = query_index.build(brain.store, _config(analysis_workers_max=0))
    monkeypatch.setattr("brainquery.query.chunk_analysis.os.cpu_count", lambda: 2)
    monkeypatch.setattr("brainquery.query.chunk_analysis.sys.executable", "/bin/false")
    with caplog.at_level(logging.WARNING, logger="brainquery.query.chunk_analysis"):
        shared = query_index.build(brain.store, _chunk_analysis_config(analysis_workers_max=1))
    assert "analysed in process" in caplog.text
    _assert_same_index(shared, alone)


def test_steps_under_a_constant_limit_give_the_index_a_rebuild_gives(tmp_path):
    """Shingles that cross a constant limit as chunks arrive (a limit of 3: many do) make
    their chunks' edges computed again; the rest are kept."""
    config = _constant_limit(_config(max_update_share=1.0), 3)
    brain = Brain(tmp_path / "store", config=config)
    files = _files()
    for part in (files[:len(files) // 2], files[len(files) // 2:len(files) * 3 // 4], files[len(files) * 3 // 4:]):
        brain.ingest(part, now=INGEST_NOW)
        _assert_same_index(brain._answerer().index, query_index.build(brain.store, config))


_SERIES = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:piano-series@example.org
DTSTAMP:20260801T000000Z
DTSTART;TZID=America/Chicago:20260908T163000
DTEND;TZID=America/Chicago:20260908T171500
RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z
SUMMARY:Piano lesson
END:VEVENT
END:VCALENDAR
"""
_MOVED = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:piano-series@example.org
DTSTAMP:20261120T000000Z
RECURRENCE-ID;TZID=America/Chicago:20261201T163000
DTSTART;TZID=America/Chicago:20261203T170000
DTEND;TZID=America/Chicago:20261203T174500
SUMMARY:Piano lesson (moved)
END:VEVENT
END:VCALENDAR
"""


def test_an_override_in_a_later_ingest_moves_its_series_occurrences(tmp_path, caplog):
    """The series' record is untouched by an ingest that only adds an override from another
    file, yet its occurrences change (the moved one belongs to the override now): the
    update derives them again, as a rebuild does; an override gone gives it back."""
    config = _config(max_update_share=1.0)
    folder = tmp_path / "calendars"
    folder.mkdir()
    (folder / "piano.ics").write_text(_SERIES)
    brain = Brain(tmp_path / "store", config=config)
    brain.ingest([*_files(), str(folder)], now=INGEST_NOW)
    series = brain._answerer().index.occ_doc
    (folder / "moved.ics").write_text(_MOVED)
    with caplog.at_level(logging.INFO, logger="brainquery.query.query_index"):
        brain.ingest([folder], now=INGEST_NOW)
        moved = brain._answerer().index
        _assert_same_index(moved, query_index.build(brain.store, config))
        # The series lost an occurrence to the override, which has it.
        assert len(moved.occ_doc) == len(series)
        (folder / "moved.ics").write_text(_SERIES.replace("piano-series@", "another-series@"))
        brain.ingest([folder], now=INGEST_NOW)
        _assert_same_index(brain._answerer().index, query_index.build(brain.store, config))
    assert sum(r.getMessage().startswith(UPDATED) for r in caplog.records) == 2


def test_a_reader_decodes_only_the_document_records_it_reads(three_steps):
    """A new process answering a question decodes the records of the documents it looks
    at, not every one (issue 14: a cold process maps the index rather than loads it); a
    writer reading the same file gets them all, decoded at once."""
    brain, config, _ = three_steps
    reader = Brain(brain.store.location, config=config)
    reader.ask("what size is our furnace filter?", now=datetime.fromisoformat("2026-11-20T12:00:00+00:00"))
    docs = reader._answerer().index.docs
    assert isinstance(docs, JsonRecords)
    assert 0 < len(docs._decoded) < len(docs) and docs._all is None
    written = query_index.published(brain.store, config)
    assert isinstance(written.docs, list) and written.docs == docs
