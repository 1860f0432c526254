"""What an index build reads of the texts: each chunk's BM25 tokens, the words the evidence
graph cuts shingles from and the kinds of answer span it holds, and each document's named
entities.

This is most of a build's time (about three quarters of a 16,000-chunk build under
cProfile), and each chunk's (each document's) analysis depends on its own text alone, so a
large build shares them out, in blocks, between the building process and worker processes,
one per further core (`workers_for`), started as storage/worker_process.py starts them. A
worker that cannot be started or fails hands its share back to the building process, which
analyses it itself: the index is the same whichever process read a text.
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import subprocess
import sys
import threading
from collections import Counter
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..config import Config
from ..storage import worker_process
from ..textproc import Analyzer
from .answer import span_patterns
from .entities import EntityExtractor, EntityIndex

log = logging.getLogger(__name__)


@dataclasses.dataclass
class ChunkAnalysis:
    kind_names: tuple[str, ...]     # config [answer] spans, in order
    kinds: np.ndarray               # bool (n_chunks, n_kinds): the chunk holds such a span
    tokens: list[list[str]]         # BM25 terms per chunk
    words: list[list[str]]          # the evidence graph's words per chunk


Texts = tuple[list[str], list[str], list[str]]   # per chunk: what BM25, the graph and the spans read
# Per document: the names it mentions with their descriptor sets (EntityExtractor.document),
# and the words' capitalised and total uses in it.
Found = tuple[list[dict[str, list[tuple[str, ...]]]], Counter, Counter]


def analyse(n: int, texts: Callable[[int, int], Texts], config: Config,
            workers: "Workers | None" = None) -> ChunkAnalysis:
    """The analysis of chunks 0..n-1; `texts(a, b)` gives chunks a..b-1's three texts (built
    by query_index). Shared out to `workers` (default: as many as `workers_for(n)`)."""
    with _own(workers, n, config) as pool:
        results = list(pool.shared("chunks", n, texts))
    if not results:
        results.append(_Readers(config).run("chunks", ([], [], [])))
    return ChunkAnalysis(results[0].kind_names, np.concatenate([r.kinds for r in results]),
                         [t for r in results for t in r.tokens], [w for r in results for w in r.words])


def entities(n: int, documents: Callable[[int, int], tuple[list[str], list[dict[str, Any]]]], config: Config,
             caps: Counter, total: Counter, workers: "Workers | None" = None) -> EntityIndex:
    """The entity index of documents 0..n-1; `documents(a, b)` gives documents a..b-1's
    whole texts and records. `caps` and `total` gain every word's uses."""
    def found() -> Iterator[dict[str, list[tuple[str, ...]]]]:
        with _own(workers, n, config) as pool:
            for names, share_caps, share_total in pool.shared("entities", n, documents):
                caps.update(share_caps)
                total.update(share_total)
                yield from names
    return EntityExtractor.index(found(), caps, total)


def workers_for(n: int, config: Config) -> int:
    """Worker processes for an analysis of `n` chunks: one per core beyond the first, up to
    the configured cap; none for an analysis too small to repay their start."""
    cfg = config.index
    if n < cfg.analysis_pool_min_chunks:
        return 0
    return max(0, min((os.cpu_count() or 1) - 1, cfg.analysis_workers_max))


class _Readers:
    """What analyses a share, made once per process when first needed."""

    def __init__(self, config: Config):
        self.config = config
        self._analyzer: Analyzer | None = None
        self._extractor: EntityExtractor | None = None

    def run(self, job: str, payload) -> Any:
        if job == "chunks":
            return self._chunks(*payload)
        if job == "entities":
            return self._entities(*payload)
        raise ValueError(f"no such analysis: {job}")

    @property
    def analyzer(self) -> Analyzer:
        if self._analyzer is None:
            self._analyzer = Analyzer(self.config.text)
        return self._analyzer

    def _chunks(self, bm25_texts: Sequence[str], graph_texts: Sequence[str], kind_texts: Sequence[str]
                ) -> ChunkAnalysis:
        spans = span_patterns(self.config.answer)
        kind_names = tuple(kind for kind, _ in self.config.answer.spans)
        patterns = [spans[kind] for kind in kind_names]
        kinds = np.array([[p.search(t) is not None for p in patterns] for t in kind_texts],
                         dtype=bool).reshape(len(kind_texts), len(patterns))
        return ChunkAnalysis(kind_names, kinds, [self.analyzer.tokens(t) for t in bm25_texts],
                             [self.analyzer.words(t) for t in graph_texts])

    def _entities(self, texts: Sequence[str], metas: Sequence[dict[str, Any]]) -> Found:
        if self._extractor is None:
            self._extractor = EntityExtractor(self.config.ambiguity, self.analyzer.stopwords)
        caps, total = Counter(), Counter()
        return [self._extractor.document(t, m, caps, total) for t, m in zip(texts, metas)], caps, total


class Workers:
    """The worker processes of an index build (none when `count` is 0), for every analysis
    it shares out; stopped on exit."""

    def __init__(self, config: Config, count: int):
        self.config = config
        self.readers = _Readers(config)
        self.workers = [_Worker(config) for _ in range(count)]

    def shared(self, job: str, n: int, inputs: Callable[[int, int], Any]) -> Iterator[Any]:
        """`job` over items 0..n-1, the result of each share in order. Items are read in
        blocks of `analysis_block_chunks` (only one block's inputs are held at a time),
        each block shared out between this process (the first share) and the workers."""
        block = max(1, self.config.index.analysis_block_chunks)
        for first in range(0, n, block):
            last = min(n, first + block)
            alive = [w for w in self.workers if w.conn is not None]
            shares = len(alive) + 1
            bounds = [first + (last - first) * s // shares for s in range(shares + 1)]
            jobs = [worker.start((job, inputs(a, b))) for worker, a, b in zip(alive, bounds[1:], bounds[2:])]
            yield self.readers.run(job, inputs(bounds[0], bounds[1]))
            for pending, a, b in zip(jobs, bounds[1:], bounds[2:]):
                result = pending.result()
                yield result if result is not None else self.readers.run(job, inputs(a, b))

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc) -> None:
        for worker in self.workers:
            worker.stop()


@contextlib.contextmanager
def _own(workers: Workers | None, n: int, config: Config) -> Iterator[Workers]:
    """`workers` as given (their owner stops them), or a pool of this analysis's own."""
    if workers is not None:
        yield workers
        return
    with Workers(config, workers_for(n, config)) as own:
        yield own


class _Worker:
    """A fresh interpreter running `_serve`; each share it is given is sent and read by a
    thread of the building process, which meanwhile analyses its own share."""

    def __init__(self, config: Config):
        self.process: subprocess.Popen | None = None
        self.conn: Connection | None = None
        try:
            self.process, self.conn = worker_process.start(__name__)
            self.conn.send(config)
        except Exception as err:   # no worker: the building process analyses every share
            log.warning("a chunk-analysis worker could not be started (%s); its chunks are analysed in process",
                        err)
            self.stop()

    def start(self, message: tuple[str, Any]) -> "_Job":
        return _Job(self, message)

    def stop(self) -> None:
        # Taken first: a job's thread that found the worker broken may stop it too.
        conn, self.conn = self.conn, None
        process, self.process = self.process, None
        if process is not None:
            worker_process.stop(process, conn)


class _Job:
    def __init__(self, worker: _Worker, message: tuple[str, Any]):
        self.worker, self.analysis = worker, None
        self.thread = threading.Thread(target=self._run, args=(message,), name="index-analysis", daemon=True)
        self.thread.start()

    def result(self) -> Any:
        """The share's analysis, or None when the worker failed (the caller analyses the
        share itself, and the worker is given no more)."""
        self.thread.join()
        return self.analysis

    def _run(self, message: tuple[str, Any]) -> None:
        try:
            self.worker.conn.send(message)
            self.analysis = self.worker.conn.recv()
        except Exception as err:   # a dead or broken worker: its share is analysed in process
            log.warning("a chunk-analysis worker failed (%s); its chunks are analysed in process", err)
            self.worker.stop()


def _serve(conn: Connection) -> None:
    """A worker: its configuration, then (analysis, share) messages until None."""
    with conn:
        try:
            readers = _Readers(conn.recv())
            while (message := conn.recv()) is not None:
                conn.send(readers.run(*message))
        except (EOFError, KeyboardInterrupt):
            return


if __name__ == "__main__":
    # Served by the module under its own name, so that what it sends back unpickles as
    # brainquery.query.chunk_analysis.ChunkAnalysis, not as a class of "__main__".
    from brainquery.query import chunk_analysis

    chunk_analysis._serve(Connection(int(sys.argv[1])))
