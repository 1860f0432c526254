"""What an ingestor is handed: a file on disk, a Maildir folder, or an attachment's bytes."""
from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
from datetime import datetime
from functools import cached_property
from pathlib import Path

from .bounds import storable
from .dates import from_timestamp


class NotRegularFile(OSError):
    """A FIFO, socket or device where a file was expected: opening it could block forever."""


@contextlib.contextmanager
def open_regular(path: os.PathLike | str):
    """Open `path` for binary reading only when it is a regular file. O_NONBLOCK makes the
    open itself return at once on a FIFO (a plain open waits for a writer that never
    comes); the type is then checked on the open descriptor, so no swap can slip in."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.path.basename(os.fsdecode(path))}: "
                                 "not a regular file (a FIFO, socket or device)")
        os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_regular(path: os.PathLike | str) -> bytes:
    with open_regular(path) as fh:
        return fh.read()


@dataclasses.dataclass(frozen=True)
class Parent:
    """The message an attachment came from: its record keeps the message's provenance."""

    doc_id: str
    source: str
    file_path: str
    message_id: str
    source_date: datetime | None
    date_source: str
    date_floating: bool = False


@dataclasses.dataclass(eq=False)
class Blob:
    name: str                         # file or attachment name, for sniffing and titles
    path: Path | None = None          # on-disk file or folder
    data: bytes | None = None         # in-memory content (attachments)
    parent: Parent | None = None
    content_type: str = ""            # declared MIME type, when a container declared one
    sniff_bytes: int = 4096
    # When the container received it (an IMAP server's INTERNALDATE), and that date's
    # name: the fallback for a message with no date of its own, in place of a file time.
    container_date: datetime | None = None
    container_date_source: str = ""

    @classmethod
    def from_path(cls, path: Path, sniff_bytes: int = 4096) -> "Blob":
        return cls(name=path.name, path=path, sniff_bytes=sniff_bytes)

    @property
    def is_dir(self) -> bool:
        return self.path is not None and self.data is None and self.path.is_dir()

    @property
    def extension(self) -> str:
        return os.path.splitext(self.name)[1].lower()

    @cached_property
    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return self.path.stat().st_size if self.path else 0

    @cached_property
    def mtime(self) -> datetime | None:
        if self.path is None or self.data is not None:
            return None
        return from_timestamp(self.path.stat().st_mtime)

    @cached_property
    def head(self) -> bytes:
        if self.data is not None:
            return self.data[: self.sniff_bytes]
        if self.path is None or self.is_dir:
            return b""
        with open_regular(self.path) as fh:
            return fh.read(self.sniff_bytes)

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.path is None:
            return b""
        return read_regular(self.path)

    @property
    def source(self) -> str:
        """What a person opens: the file, or for an attachment its message's source."""
        if self.parent is not None:
            return self.parent.source
        return storable(str(self.path)) if self.path else storable(self.name)

    @property
    def file_path(self) -> str:
        if self.parent is not None:
            return self.parent.file_path
        return storable(str(self.path)) if self.path else ""
