"""Cache files are plain .npz archives any numpy reads, written front to back and hashed as
they go, with every member aligned so that a verified file's arrays are used where they
lie rather than copied out; texts travel as one UTF-8 buffer with offsets."""
from __future__ import annotations

import hashlib
import zipfile

import numpy as np
import pytest

from brainquery.files import (JsonRecords, json_array, read_arrays, record_arrays, text_arrays, texts_from_arrays,
                              write_arrays)

ARRAYS = {
    "ints": np.arange(10),
    "fortran": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    "scalar_text": np.array("café"),
    "empty": np.zeros(0),
    "bytes": np.frombuffer("héllo".encode(), dtype=np.uint8),
    "a.longer.dotted_name": np.ones((5, 7), dtype=np.float64),
    "small": np.array([1, 2, 3], dtype=np.int16),
}


def test_written_arrays_read_back_equal_aligned_and_writable(tmp_path):
    path = tmp_path / "cache.npz"
    digest = write_arrays(path, ARRAYS)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    read = read_arrays(path, digest)
    assert read.keys() == ARRAYS.keys()
    for name, array in ARRAYS.items():
        assert read[name].dtype == array.dtype and np.array_equal(read[name], array), name
        assert read[name].flags.aligned, name
    read["ints"][0] = 99           # views into a private buffer: the file is untouched
    assert read_arrays(path, digest)["ints"][0] == 0


def test_the_file_is_an_ordinary_npz(tmp_path):
    path = tmp_path / "cache.npz"
    write_arrays(path, ARRAYS)
    assert zipfile.ZipFile(path).testzip() is None
    with np.load(path, allow_pickle=False) as npz:
        assert sorted(npz.files) == sorted(ARRAYS)
        assert all(np.array_equal(npz[name], array) for name, array in ARRAYS.items())


def test_a_file_other_than_the_recorded_one_is_not_read(tmp_path):
    path = tmp_path / "cache.npz"
    digest = write_arrays(path, ARRAYS)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert read_arrays(path, digest) is None
    assert read_arrays(path, None) is None
    assert read_arrays(tmp_path / "missing.npz", digest) is None


def test_a_compressed_archive_with_the_recorded_digest_is_still_read(tmp_path):
    """Written by someone else's numpy (np.savez_compressed): read through np.load."""
    path = tmp_path / "cache.npz"
    np.savez_compressed(path, **ARRAYS)
    read = read_arrays(path, hashlib.sha256(path.read_bytes()).hexdigest())
    assert all(np.array_equal(read[name], array) for name, array in ARRAYS.items())


@pytest.mark.parametrize("texts", [
    pytest.param([], id="none"),
    pytest.param([""], id="one-empty"),
    pytest.param(["plain", "", "réservation Straße", "emoji 🏠 and \x00 and \x1f", "\n\nlast"], id="mixed"),
])
def test_texts_round_trip_through_one_buffer(texts):
    buffer, ends = text_arrays(texts)
    assert buffer.dtype == np.uint8 and len(ends) == len(texts)
    assert texts_from_arrays(buffer, ends) == texts


def test_text_offsets_that_do_not_fit_are_refused():
    buffer, ends = text_arrays(["one", "two"])
    with pytest.raises(ValueError):
        texts_from_arrays(buffer, ends + 1)
    with pytest.raises(ValueError):
        texts_from_arrays(buffer, ends[::-1].copy())
    with pytest.raises(ValueError):
        texts_from_arrays(buffer.astype(np.int32), ends)


RECORDS = [[], [{}], [{"doc_id": "a", "title": "Zoë's \"piano\", 4:30"}, {"n": 1, "x": None, "list": [1, 2]}, {}],
           [{"title": "ünïcödé ✓", "source": "mail/2026-11-16.eml"}] * 3]


@pytest.mark.parametrize("records", RECORDS)
def test_records_are_the_json_array_text_and_decode_one_by_one(records):
    """The records' text is what a JSON array of them always was, byte for byte (an older
    reader parses it whole); each is decoded alone, on first reading."""
    buffer, ends = record_arrays(records)
    assert buffer.tobytes() == json_array(records).tobytes()
    lazy = JsonRecords(buffer, ends)
    assert len(lazy) == len(records)
    assert [lazy[i] for i in range(len(records))] == records
    assert list(reversed(lazy)) == list(reversed(records)) and lazy[1:] == records[1:]
    assert lazy == records and list(JsonRecords(buffer, ends)) == records


def test_a_record_read_before_all_are_decoded_stays_the_same_object():
    lazy = JsonRecords(*record_arrays([{"a": 1}, {"b": 2}]))
    first = lazy[0]
    assert list(lazy)[0] is first


@pytest.mark.parametrize("ends", [[3, 2], [5], [4, 9, 20]])
def test_record_ends_that_do_not_fit_are_refused(ends):
    buffer, _ = record_arrays([{"a": 1}, {"b": 2}])
    with pytest.raises(ValueError):
        JsonRecords(buffer, np.asarray(ends, dtype=np.int64))
