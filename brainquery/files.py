"""Writing caches so that a reader (or a crash) never sees half a file."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def replaced(path: Path, mode: str = "wb") -> Iterator[IO]:
    """Open a sibling of `path` for writing; on a clean exit it replaces `path` whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
        yield fh
    tmp.replace(path)
