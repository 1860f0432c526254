"""Store writes on a thread of their own, in order, while the ingest reads on.

A Chroma write (SQLite, the full-text index, the vector index) runs in native code that
lets go of the interpreter: while one batch is written, the next is parsed, chunked and
embedded. How much of the write that hides depends on the cores left free: on the 2-core
development machine, where an mbox's parse workers already keep both busy, a 10,000-message
ingest took about 3% less time (benchmarks/ingest_bench.py, paired runs).

Writes keep their order (one thread), so a file's record still lands after its chunks;
at most `depth` are queued, so memory stays a few batches; a write that failed raises in
the ingesting thread at its next write or at `drain`, and nothing after it is written.
"""
from __future__ import annotations

import collections
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable


class WriteBehind:
    def __init__(self, depth: int):
        self.depth = max(1, depth)
        self._pool: ThreadPoolExecutor | None = None
        self._queued: collections.deque[Future] = collections.deque()
        self._failed: BaseException | None = None

    def submit(self, write: Callable[..., Any], *args: Any) -> None:
        """Queue `write(*args)` after every write queued before it (waiting while `depth`
        are queued). Raises the error of an earlier write that failed."""
        self._settle(keep=self.depth - 1)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brainquery-write")
        self._queued.append(self._pool.submit(self._guarded, write, args))

    def drain(self) -> None:
        """Wait for every queued write; raise the first error among them."""
        self._settle(keep=0)

    def close(self) -> None:
        """Wait for the queued writes and stop the thread. (Called as the ingest ends,
        however it ends: a write's error is raised by `drain`, or the run is already
        failing with another.) The queue may be used again afterwards."""
        try:
            for future in self._queued:
                future.exception()
        finally:
            self._queued.clear()
            self._failed = None
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def _guarded(self, write: Callable[..., Any], args: tuple) -> None:
        if self._failed is not None:
            return   # after a failed write nothing more is written: the next run redoes it
        try:
            write(*args)
        except BaseException as err:
            self._failed = err
            raise

    def _settle(self, keep: int) -> None:
        while len(self._queued) > keep:
            self._queued.popleft().result()
        if self._failed is not None:
            raise self._failed
