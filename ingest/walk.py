"""Turn the paths a person named into blobs: files, and Maildir folders as one unit."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable, Iterator, Union

from .blob import Blob
from .config import IngestConfig
from .maildir import is_maildir


@dataclasses.dataclass(frozen=True)
class WalkProblem:
    """A named path that could not be walked (missing, unreadable folder)."""

    path: str
    error: str


def iter_inputs(paths: Iterable[str | os.PathLike], cfg: IngestConfig) -> Iterator[Union[Blob, WalkProblem]]:
    """Files in sorted order, recursing into folders; a Maildir folder is one input.
    Folder symlinks are not followed (they loop); file symlinks are."""
    sniff = cfg.ingest.sniff_bytes
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            yield WalkProblem(str(path), "no such file or folder")
        elif path.is_dir() and is_maildir(path):
            yield Blob.from_path(path.resolve(), sniff)
        elif path.is_dir():
            yield from _walk(path.resolve(), cfg, sniff)
        else:
            yield Blob.from_path(path.resolve(), sniff)


def _walk(root: Path, cfg: IngestConfig, sniff: int) -> Iterator[Union[Blob, WalkProblem]]:
    problems: list[WalkProblem] = []

    def on_error(err: OSError) -> None:
        problems.append(WalkProblem(str(err.filename), f"cannot read folder: {err.strerror}"))

    for folder, dirs, files in os.walk(root, onerror=on_error):
        dirs.sort()
        if cfg.ingest.skip_hidden:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in list(dirs):
            sub = Path(folder) / name
            if is_maildir(sub):
                dirs.remove(name)
                yield Blob.from_path(sub, sniff)
        for name in sorted(files):
            if cfg.ingest.skip_hidden and name.startswith("."):
                continue
            yield Blob.from_path(Path(folder) / name, sniff)
        yield from problems
        problems.clear()
