"""One writer per store at a time.

Two ingests writing one store at once interleave their model fits and vector writes, and
the store ends up with vectors from two models. Every writer (ingest, repair, `check`,
`roots forget`) holds this lock; readers never need it.

- An embedded store: `brainquery.lock` in the store folder, held with `flock` (the kernel
  releases it when its holder dies, so a kill -9 never wedges the store). The file also
  says who holds it — PID, the process's start time (a reused PID is not the same
  process), host, since when — for the message a waiting writer prints, and for the notice
  when a dead holder's record is found.
- A Chroma server: a record in the chunk collection's metadata with a lease the holder
  renews; a lease not renewed in time (its holder died) is broken with a notice. Chroma
  has no compare-and-set, so a taker writes its record, waits a moment and reads it back.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import socket
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

LOCK_FILE = "brainquery.lock"
LEASE_KEY = "writer_lock"

Notify = Callable[[str], None]


class StoreBusy(RuntimeError):
    """Another process is writing the store (and we were asked not to wait)."""


@dataclasses.dataclass(frozen=True)
class Holder:
    pid: int
    started: str        # the process's start time as the kernel counts it ("" elsewhere)
    host: str
    since: str          # ISO time the lock was taken
    owner: str = ""     # a random id (the lease lock's way to tell takers apart)
    expires: float = 0  # lease locks: epoch seconds

    @classmethod
    def me(cls, owner: str = "", expires: float = 0) -> "Holder":
        return cls(pid=os.getpid(), started=process_start(os.getpid()), host=socket.gethostname(),
                   since=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   owner=owner, expires=expires)

    @classmethod
    def parse(cls, text: str | None) -> "Holder | None":
        try:
            data = json.loads(text or "")
            return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})
        except (ValueError, TypeError, KeyError):
            return None

    def dump(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    def alive(self) -> bool:
        """Is the process that took the lock still running (on this host)?"""
        if self.host != socket.gethostname():
            return True  # cannot tell: assume it is
        return bool(self.started) and process_start(self.pid) == self.started

    def describe(self) -> str:
        return f"PID {self.pid} on {self.host} since {self.since}"


def process_start(pid: int) -> str:
    """The start time of process `pid` in clock ticks after boot (Linux), "" when there is
    no such process or no /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: count from its end.
    return stat[stat.rindex(")") + 2:].split()[19]


class FileLock:
    def __init__(self, folder: Path):
        self.path = Path(folder) / LOCK_FILE

    def holder(self) -> Holder | None:
        """Who holds the lock now, or None when nobody does."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(fd) or Holder(pid=0, started="", host="?", since="?")
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def hold(self, wait: bool, notify: Notify, poll_seconds: float) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read(fd)
                who = holder.describe() if holder else "another process"
                if not wait:
                    raise StoreBusy(f"the store is being written by {who}") from None
                notify(f"the store is being written by {who}; waiting for it to finish")
                fcntl.flock(fd, fcntl.LOCK_EX)
            # A holder that exits cleanly erases its record: one still here belongs to a
            # process that died holding the lock (the kernel released the flock for it;
            # it may not even be reaped yet, so its PID can still look alive).
            previous = _read(fd)
            if previous is not None:
                notify(f"broke a stale lock left by {previous.describe()} (no longer running)")
            _write(fd, Holder.me().dump())
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)  # a clean exit leaves no record behind
        finally:
            os.close(fd)  # releases the flock


def _read(fd: int) -> Holder | None:
    with contextlib.suppress(OSError):
        return Holder.parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
    return None


def _write(fd: int, text: str) -> None:
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)
    except OSError as err:  # a full disk: the flock holds all the same
        if err.errno != errno.ENOSPC:
            raise


class LeaseLock:
    """`get_state()` / `set_state(value)` read and write the lease record."""

    def __init__(self, get_state: Callable[[], str | None], set_state: Callable[[str], None],
                 lease_seconds: float, settle_seconds: float):
        self.get_state = get_state
        self.set_state = set_state
        self.lease_seconds = lease_seconds
        self.settle_seconds = settle_seconds

    def holder(self) -> Holder | None:
        record = Holder.parse(self.get_state())
        return record if record is not None and record.expires > time.time() else None

    @contextlib.contextmanager
    def hold(self, wait: bool, notify: Notify, poll_seconds: float) -> Iterator[None]:
        owner = uuid.uuid4().hex
        told = False
        while True:
            record = Holder.parse(self.get_state())
            if record is None or record.expires <= time.time():
                if record is not None:
                    notify(f"broke a stale lock left by {record.describe()} (its lease ran out)")
                self.set_state(Holder.me(owner, time.time() + self.lease_seconds).dump())
                time.sleep(self.settle_seconds)   # another taker's write may land after ours
                record = Holder.parse(self.get_state())
                if record is not None and record.owner == owner:
                    break
            if not wait:
                raise StoreBusy(f"the store is being written by {record.describe() if record else 'another client'}")
            if not told:
                notify(f"the store is being written by {record.describe() if record else 'another client'}; "
                       "waiting for it to finish")
                told = True
            time.sleep(poll_seconds)
        stop = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(owner, stop), daemon=True,
                                   name="brainquery-lease")
        renewer.start()
        try:
            yield
        finally:
            stop.set()
            renewer.join()
            record = Holder.parse(self.get_state())
            if record is not None and record.owner == owner:
                self.set_state("")

    def _renew(self, owner: str, stop: threading.Event) -> None:
        while not stop.wait(self.lease_seconds / 3):
            with contextlib.suppress(Exception):  # a blip: the next renewal tries again
                self.set_state(Holder.me(owner, time.time() + self.lease_seconds).dump())


def stderr_notice(message: str) -> None:
    print(f"brainquery: {message}", file=sys.stderr, flush=True)
