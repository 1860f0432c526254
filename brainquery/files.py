"""Cache files: written so that a reader (or a crash, or a full disk) never sees half a
file, and read in formats that cannot run code.

Every cache is data only — numpy arrays read with `allow_pickle=False`, or JSON — and a
reader is handed the bytes only after their SHA-256 matched the digest the store recorded
when the cache was published, so a planted, foreign or half-copied file is never parsed
as ours: it is rebuilt.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import zipfile
from pathlib import Path
from typing import IO, Any, Iterator

import numpy as np

TMP_SUFFIX = ".tmp"


@contextlib.contextmanager
def replaced(path: Path, mode: str = "wb") -> Iterator[IO]:
    """Open a sibling of `path` for writing; on a clean exit it replaces `path` whole.
    On any error (a full disk) the sibling is removed and the old `path` stays."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    try:
        with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())  # the bytes are on disk before the name points at them
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Save arrays as one .npz (no object arrays: saving one fails rather than pickles);
    returns the file's digest, for the store to record."""
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    data = buffer.getvalue()
    with replaced(path) as fh:
        fh.write(data)
    return digest(data)


def read_arrays(path: Path, expected_digest: str | None) -> dict[str, np.ndarray] | None:
    """The arrays saved at `path`, or None when the file is missing, unreadable, or not
    byte for byte the one whose digest the store recorded."""
    data = read_verified(path, expected_digest)
    return None if data is None else load_arrays(io.BytesIO(data))


def load_arrays(source: Path | io.BytesIO) -> dict[str, np.ndarray] | None:
    """The arrays of an .npz (never a pickle), or None when it cannot be read as one."""
    try:
        with np.load(source, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def read_verified(path: Path, expected_digest: str | None) -> bytes | None:
    if not expected_digest:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if digest(data) == expected_digest else None


def remove_leftovers(folder: Path, legacy_names: tuple[str, ...] = ()) -> list[str]:
    """Delete temporary files a crash left behind and caches of retired formats (pickles:
    never read, so never a way in); returns what was removed."""
    removed = []
    if not folder.is_dir():
        return removed
    for entry in folder.iterdir():
        if entry.name.endswith(TMP_SUFFIX) or entry.name in legacy_names:
            with contextlib.suppress(OSError):
                entry.unlink()
                removed.append(entry.name)
    return removed


def json_array(value: Any) -> np.ndarray:
    """A JSON document as its UTF-8 bytes in a uint8 array: text, never a pickled object.
    (A numpy unicode array holds 4 bytes a character: at 100,000 chunks of text that cost
    over a gigabyte at load.)"""
    import json

    return np.frombuffer(json.dumps(value, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)


def from_json_array(array: np.ndarray) -> Any:
    import json

    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("expected a JSON text array")
    return json.loads(array.tobytes())
