"""A large mbox parsed by worker processes, its items handed back in mailbox order.

Parsing (MIME, headers, classification) is most of an mbox ingest's time and is pure
Python, so it runs in processes; chunking, embedding and the Chroma writes stay in the
ingesting process, which reads the items exactly as `MboxIngestor.ingest` would yield
them: the same code (`ingest.mbox.message_items`) on the same messages, in the same order.

The mailbox's table of contents is read once here and sent to every worker, so no worker
scans the file again. A worker that dies (a parser crash in C code) or does not answer
within `parse_task_timeout_seconds` is replaced; its messages are read again one at a
time, and the message that kills or hangs a worker is a per-message failure: the rest of
the mailbox is not lost. Waiting uses `multiprocessing.connection.wait` (poll, not
select: the process may hold more than 1024 open files).
"""
from __future__ import annotations

import collections
import dataclasses
import logging
import os
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection, wait
from typing import Iterator

from ingest.blob import Blob
from ingest.config import IngestSection
from ingest.document import ItemFailure
from ingest.mbox import MboxIngestor, message_items, message_source, open_mbox
from ingest.registry import Context, Item

from . import worker_process

log = logging.getLogger(__name__)
# Workers are fresh interpreters running this module (worker_process.py says why).
_POLL_SECONDS = 1.0  # how often deadlines are checked while every worker is busy


def workers_for(limits: IngestSection) -> int:
    """One worker per core, up to the configured cap."""
    return max(1, min(os.cpu_count() or 1, limits.parse_workers_max))


def wants_pool(blob: Blob, kind: str, ctx: Context) -> bool:
    """Whether `blob` (sniffed as `kind`) is an mbox large enough for the workers."""
    limits = ctx.config.ingest
    if workers_for(limits) < 2 or kind != "mbox":
        return False
    if not isinstance(ctx.registry.pick(blob, kind), MboxIngestor):
        return False
    # A cheap lower bound on the message count: every message starts with a From_ line.
    # Worth reading only for a file that could hold enough messages at all.
    return _count_from_lines(blob, limits.parse_pool_min_messages) >= limits.parse_pool_min_messages


def _count_from_lines(blob: Blob, enough: int) -> int:
    count = 0
    tail = b"\n"
    with open(blob.path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            count += (tail + block).count(b"\nFrom ")
            if count >= enough:
                return count
            tail = block[-5:] if len(block) >= 5 else tail + block
    return count


def mbox_items(blob: Blob, ctx: Context) -> Iterator[Item]:
    """The items of the mbox `blob`, in order, parsed by worker processes. Raises
    IngestError as `MboxIngestor.ingest` does when the file is not a readable mbox."""
    box, keys = open_mbox(blob)
    try:
        toc = {key: box._lookup(key) for key in keys}  # read once; the workers reuse it
    finally:
        box.close()
    limits = ctx.config.ingest
    tasks = collections.deque(
        (start, min(start + limits.parse_task_messages, len(keys)))
        for start in range(0, len(keys), limits.parse_task_messages))
    pool = _Pool(workers_for(limits), _WorkerSetup(blob, ctx, keys, toc), tasks,
                 limits.parse_task_timeout_seconds)
    pool.start()
    try:
        position = 0
        while position < len(keys):
            stop, items = pool.result(position)
            yield from items
            position = stop
    finally:
        pool.close()


@dataclasses.dataclass(frozen=True)
class _WorkerSetup:
    blob: Blob
    ctx: Context
    keys: list
    toc: dict


def _serve(conn: Connection) -> None:
    """A worker: read its setup, then (start, stop) ranges of messages; answer each with
    their items."""
    try:
        setup = conn.recv()
    except (EOFError, KeyboardInterrupt):
        return
    box = _opened(setup)
    try:
        while True:
            task = conn.recv()
            if task is None:
                return
            start, stop = task
            items: list[Item] = []
            for position in range(start, stop):
                items.extend(message_items(box, setup.keys[position], position, len(setup.keys),
                                           setup.blob, setup.ctx))
            conn.send((start, stop, items))
    except (EOFError, KeyboardInterrupt):
        return
    finally:
        box.close()


def _opened(setup: _WorkerSetup):
    import mailbox

    box = mailbox.mbox(str(setup.blob.path), create=False)
    # The table of contents the ingesting process read; mailbox would otherwise scan the
    # whole file again in every worker.
    box._toc = dict(setup.toc)
    box._next_key = max(setup.keys, default=-1) + 1
    return box


class _Worker:
    def __init__(self, setup: _WorkerSetup):
        self.process, self.conn = worker_process.start(__name__)
        self.conn.send(setup)
        self.task: tuple[int, int] | None = None
        self.deadline = 0.0

    def give(self, task: tuple[int, int], timeout: float) -> None:
        self.task, self.deadline = task, time.monotonic() + timeout
        self.conn.send(task)

    def stop(self, kill: bool) -> None:
        worker_process.stop(self.process, self.conn, kill)


class _Pool:
    """Workers fed by a thread of the ingesting process, so they keep parsing while that
    process embeds and writes; results wait, keyed by their first message, until asked for."""

    def __init__(self, n_workers: int, setup: _WorkerSetup, tasks: collections.deque,
                 timeout: float):
        self.n_workers, self.setup, self.tasks, self.timeout = n_workers, setup, tasks, timeout
        self.results: dict[int, tuple[int, list[Item]]] = {}
        self.done = threading.Condition()
        self.closing = False
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="parse-pool", daemon=True)
        # Results not yet taken are bounded: the ingesting process holds at most this many.
        self.max_ahead = 4 * n_workers

    def start(self) -> None:
        self.thread.start()

    def result(self, position: int) -> tuple[int, list[Item]]:
        with self.done:
            while position not in self.results:
                if self.error is not None:
                    raise RuntimeError("the parse pool stopped") from self.error
                self.done.wait()
            out = self.results.pop(position)
            self.done.notify_all()
            return out

    def close(self) -> None:
        with self.done:
            self.closing = True
            self.done.notify_all()
        self.thread.join()

    # ---- the feeding thread -----------------------------------------------------------
    def _run(self) -> None:
        workers = [_Worker(self.setup) for _ in range(self.n_workers)]
        try:
            self._feed(workers)
        except BaseException as err:  # handed to the reader, never lost in a thread
            log.debug("parse pool failed", exc_info=True)
            with self.done:
                self.error = err
                self.done.notify_all()
        finally:
            for worker in workers:
                worker.stop(kill=worker.task is not None)

    def _feed(self, workers: list[_Worker]) -> None:
        while True:
            with self.done:
                if self.closing:
                    return
                for worker in workers:
                    if worker.task is None and self.tasks and self._may_start(self.tasks[0]):
                        worker.give(self.tasks.popleft(), self.timeout)
            busy = [w for w in workers if w.task is not None]
            if not busy:
                if not self.tasks:
                    return  # every task answered
                with self.done:  # far enough ahead of the reader: wait for it
                    self.done.wait(_POLL_SECONDS)
                continue
            ready = wait([w.conn for w in busy],
                         timeout=max(0.0, min(_POLL_SECONDS, min(w.deadline for w in busy) - time.monotonic())))
            for worker in busy:
                if worker.conn in ready:
                    self._collect(workers, worker)
                elif time.monotonic() > worker.deadline:
                    self._replace(workers, worker, f"the parser took over {self.timeout:g} s")

    def _may_start(self, task: tuple[int, int]) -> bool:
        """Parse ahead of the reader only so far; what it waits for always goes."""
        return len(self.results) < self.max_ahead or task[0] < min(self.results)

    def _collect(self, workers: list[_Worker], worker: _Worker) -> None:
        try:
            start, stop, items = worker.conn.recv()
        except (EOFError, OSError):
            try:
                code = worker.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            self._replace(workers, worker, f"the parser crashed (worker exit code {code})")
            return
        worker.task = None
        self._publish(start, stop, items)

    def _replace(self, workers: list[_Worker], worker: _Worker, why: str) -> None:
        start, stop = worker.task
        worker.stop(kill=True)
        worker.task = None
        workers[workers.index(worker)] = _Worker(self.setup)
        if stop - start > 1:
            log.info("a parse worker failed on messages %d-%d (%s): reading them one at a time",
                     start, stop - 1, why)
            self.tasks.extendleft((p, p + 1) for p in reversed(range(start, stop)))
            return
        total = len(self.setup.keys)
        self._publish(start, stop, [ItemFailure(source=message_source(self.setup.blob, start, total),
                                                error=f"message {start}: {why}")])

    def _publish(self, start: int, stop: int, items: list[Item]) -> None:
        with self.done:
            self.results[start] = (stop, items)
            self.done.notify_all()



if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
