"""What an ingestor is handed: a file on disk, a Maildir folder, or an attachment's bytes."""
from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from functools import cached_property
from pathlib import Path

from .bounds import storable
from .dates import from_timestamp


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
        with open(self.path, "rb") as fh:
            return fh.read(self.sniff_bytes)

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.path is None:
            return b""
        return self.path.read_bytes()

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
