"""Ingests started from the page: one at a time, in a thread of their own, so questions
keep being answered while files are read. The page polls a job for its progress."""
from __future__ import annotations

import dataclasses
import logging
import threading
import uuid
from datetime import datetime, timezone
from typing import Any, Sequence

from ..brain import Brain

log = logging.getLogger(__name__)

QUEUED, READING, INDEXING, DONE, FAILED = "queued", "reading", "indexing", "done", "failed"


class Busy(RuntimeError):
    """An ingest is already running."""


@dataclasses.dataclass
class IngestJob:
    id: str
    paths: list[str]
    state: str = QUEUED
    done: int = 0          # inputs read so far
    total: int = 0         # inputs found (files, mailboxes, Maildir folders)
    current: str = ""      # the input being read
    # The share of the work done, 0 to 1: each input read is one step, and building the
    # search index at the end is the last one (the bar is full only when the job is done).
    progress: float = 0.0
    started: str = ""
    finished: str = ""
    summary: dict[str, Any] | None = None   # the `ingest --json` object, once done
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class IngestJobs:
    def __init__(self, brain: Brain, now: datetime | None):
        self.brain = brain
        self.now = now
        self._jobs: dict[str, IngestJob] = {}
        self._finished: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def start(self, paths: Sequence[str]) -> IngestJob:
        with self._lock:
            if any(job.state in (QUEUED, READING, INDEXING) for job in self._jobs.values()):
                raise Busy("an ingest is already running; wait for it to finish")
            job = IngestJob(id=uuid.uuid4().hex, paths=list(paths),
                            started=datetime.now(timezone.utc).isoformat())
            self._jobs[job.id] = job
            self._finished[job.id] = threading.Event()
        threading.Thread(target=self._run, args=(job,), name=f"ingest-{job.id[:8]}",
                         daemon=True).start()
        return job

    def get(self, job_id: str) -> IngestJob | None:
        return self._jobs.get(job_id)

    def wait(self, job: IngestJob) -> IngestJob:
        self._finished[job.id].wait()
        return job

    def _run(self, job: IngestJob) -> None:
        def on_input(done: int, total: int, path: str) -> None:
            job.done, job.total, job.current = done, total, path
            job.progress = done / (total + 1)
            job.state = INDEXING if done == total else READING

        job.state = READING
        try:
            summary = self.brain.ingest(job.paths, now=self.now, on_input=on_input)
        except Exception as err:  # the store went away, the disk filled: say so on the page
            log.exception("ingest of %s failed", job.paths)
            job.error, job.state = f"{type(err).__name__}: {err}", FAILED
        else:
            job.summary, job.progress, job.state = summary.to_dict(), 1.0, DONE
        job.finished = datetime.now(timezone.utc).isoformat()
        self._finished[job.id].set()
