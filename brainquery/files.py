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
import mmap
import os
import zipfile
from collections.abc import Sequence
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
    returns the file's digest, for the store to record. Streamed to the file and hashed as
    it goes: no copy of a 400 MB index in memory, and no second pass to hash it."""
    with replaced(path) as fh:
        stream = _HashingWriter(fh)
        with zipfile.ZipFile(stream, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, array in arrays.items():
                array = np.asanyarray(array)
                info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                # Pad the local header so the member starts on an ARRAY_ALIGN boundary: its
                # .npy header is padded to the same, so the data lands aligned and a reader
                # can use it in place (`_views`). Local header: 30 bytes, the name, the
                # extra field (ours, then zipfile's 20-byte zip64 one).
                fixed = stream.tell() + 30 + len(info.filename.encode()) + 4 + _ZIP64_EXTRA
                pad = -fixed % np.lib.format.ARRAY_ALIGN
                info.extra = _PADDING_ID.to_bytes(2, "little") + pad.to_bytes(2, "little") + bytes(pad)
                with archive.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    return stream.hexdigest()


_ZIP64_EXTRA = 20        # what zipfile appends to a local header written with force_zip64
_PADDING_ID = 0xD935     # an extra-field id readers skip (Android's zipalign uses it too)


class _HashingWriter(io.RawIOBase):
    """Writes through to `fh` and hashes what passes. It cannot seek, so zipfile writes the
    archive front to back (sizes in data descriptors) rather than patching headers."""

    def __init__(self, fh: IO[bytes]):
        self._fh, self._sha, self._written = fh, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        self._fh.write(data)
        self._sha.update(data)
        self._written += size
        return size

    def tell(self) -> int:
        return self._written

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


def read_arrays(path: Path, expected_digest: str | None) -> dict[str, np.ndarray] | None:
    """The arrays saved at `path`, or None when the file is missing, unreadable, or not
    byte for byte the one whose digest the store recorded. The arrays are views into the
    verified bytes (one copy of a 400 MB index in memory, not two), writable like any."""
    data = read_verified(path, expected_digest)
    return None if data is None else _views(data)


def load_arrays(source: Path | io.BytesIO) -> dict[str, np.ndarray] | None:
    """The arrays of an .npz (never a pickle), or None when it cannot be read as one."""
    try:
        with np.load(source, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _views(data: bytearray | mmap.mmap) -> dict[str, np.ndarray] | None:
    """The arrays of an uncompressed .npz as views into `data`, without copying them out
    (np.load copies every member: 2.3 s for an index of 100,000 chunks); a member stored
    any other way is read by np.load."""
    arrays: dict[str, np.ndarray] = {}
    view = memoryview(data)
    try:
        with zipfile.ZipFile(_ViewReader(view)) as archive:
            for info in archive.infolist():
                name = info.filename.removesuffix(".npy")
                if info.compress_type != zipfile.ZIP_STORED:
                    return load_arrays(io.BytesIO(data))
                # The local header: 30 bytes, then the file name and extra field.
                head = bytes(view[info.header_offset:info.header_offset + 30])
                if len(head) < 30 or head[:4] != b"PK\x03\x04":
                    return None
                start = info.header_offset + 30 + int.from_bytes(head[26:28], "little") \
                    + int.from_bytes(head[28:30], "little")
                member = _ViewReader(view[start:start + info.file_size])
                version = np.lib.format.read_magic(member)
                if version not in ((1, 0), (2, 0)):
                    return load_arrays(io.BytesIO(data))
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = read_header(member)
                if dtype.hasobject:
                    return None
                count = int(np.prod(shape, dtype=np.int64))
                if member.tell() + count * dtype.itemsize > info.file_size:
                    return None
                array = np.frombuffer(data, dtype=dtype, count=count, offset=start + member.tell())
                arrays[name] = array.reshape(shape, order="F" if fortran else "C")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    return arrays


class _ViewReader(io.RawIOBase):
    """A read-only, seekable file over a memoryview (io.BytesIO would copy the buffer)."""

    def __init__(self, view: memoryview):
        self._view, self._pos = view, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: len(self._view)}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer) -> int:
        chunk = self._view[self._pos:self._pos + len(buffer)]
        n = len(chunk)
        memoryview(buffer).cast("B")[:n] = chunk
        self._pos += n
        return n


def read_verified(path: Path, expected_digest: str | None) -> bytearray | mmap.mmap | None:
    """The file's bytes when their digest is the one expected, else None. On POSIX the file
    is mapped, privately (copy on write), rather than read: a cold process maps a 400 MB
    index instead of zeroing and filling a buffer of its own (0.5 s at 100,000 chunks), and
    the page cache serves every reader. Writers replace cache files by renaming (never in
    place), so a mapped file never changes under its readers."""
    if not expected_digest:
        return None
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if os.name == "posix" and size:
                data: bytearray | mmap.mmap = mmap.mmap(fh.fileno(), size, access=mmap.ACCESS_COPY)
            else:
                data = bytearray(size)
                if fh.readinto(data) != len(data) or fh.read(1):
                    return None     # the file changed size while it was read
    except (OSError, ValueError):
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


def text_arrays(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Many strings as one UTF-8 buffer and their end offsets in characters: written and
    read four to six times faster than the same list as JSON (100,000 chunks of text: 0.09 s
    against 0.53 s to write, 0.08 s against 0.32 s to read)."""
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    return np.frombuffer("".join(texts).encode("utf-8"), dtype=np.uint8), ends


def texts_from_arrays(buffer: np.ndarray, ends: np.ndarray) -> list[str]:
    if buffer.dtype != np.uint8 or buffer.ndim != 1 or ends.ndim != 1 or ends.dtype.kind not in "iu":
        raise ValueError("expected a text buffer and its end offsets")
    whole = buffer.tobytes().decode("utf-8")
    bounds = np.r_[0, ends].astype(np.int64)
    if np.any(np.diff(bounds) < 0) or bounds[-1] != len(whole):
        raise ValueError("text offsets do not fit the buffer")
    bounds = bounds.tolist()
    return [whole[a:b] for a, b in zip(bounds, bounds[1:])]


def from_json_array(array: np.ndarray) -> Any:
    import json

    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("expected a JSON text array")
    return json.loads(array.tobytes())


def record_arrays(records: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Records as the UTF-8 text of one JSON array (what `json_array` writes, byte for byte)
    and the byte offset where each record ends, so a reader can decode one record alone."""
    import json

    if isinstance(records, JsonRecords):
        return records.buffer, records.ends
    encode = json.JSONEncoder(ensure_ascii=False).encode    # json.dumps makes one per call
    pieces = [encode(r).encode("utf-8") for r in records]
    ends = 1 + np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))) \
        + 2 * np.arange(len(pieces), dtype=np.int64)
    return np.frombuffer(b"[" + b", ".join(pieces) + b"]", dtype=np.uint8), ends


class JsonRecords(Sequence):
    """The records of a JSON array text (`record_arrays`), each decoded when first read: a
    reader that looks at a few hundred documents of 100,000 neither decodes the rest (0.4 s)
    nor keeps them as Python objects (135 MB). Iterating over all of them decodes the
    whole array at once, as a list would have been."""

    def __init__(self, buffer: np.ndarray, ends: np.ndarray):
        if buffer.dtype != np.uint8 or buffer.ndim != 1 or ends.ndim != 1 or ends.dtype.kind not in "iu":
            raise ValueError("expected a JSON text array and its record ends")
        starts = np.r_[1, ends[:-1] + 2].astype(np.int64) if len(ends) else np.zeros(0, np.int64)
        if len(buffer) < 2 or buffer[0] != ord("[") or buffer[-1] != ord("]") \
                or np.any(ends <= starts) or (len(ends) and ends[-1] != len(buffer) - 1):
            raise ValueError("record ends do not fit the JSON text")
        self.buffer, self.ends, self._starts = buffer, ends, starts.tolist()
        self._ends = ends.tolist()
        self._decoded: dict[int, dict[str, Any]] = {}
        self._all: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if self._all is not None:
            return self._all[i]
        i = range(len(self))[i]     # negative indices; an IndexError past the end
        record = self._decoded.get(i)
        if record is None:
            import json

            record = self._decoded[i] = json.loads(self.buffer[self._starts[i]:self._ends[i]].tobytes())
            if not isinstance(record, dict):
                raise ValueError(f"record {i} is not a JSON object")
        return record

    def __iter__(self):
        if self._all is None:
            everything = from_json_array(self.buffer)
            # Records already handed out stay the objects their readers hold.
            self._all = [self._decoded.get(i, record) for i, record in enumerate(everything)]
            self._decoded = {}
        return iter(self._all)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, (str, bytes)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
