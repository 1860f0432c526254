"""A minimal OLE2 compound-file writer for tests: flat streams under the root, each stored
in regular 512-byte sectors (streams are padded to the 4096-byte mini-stream cutoff, so no
mini stream is needed). Enough to build an Outlook .msg that olefile reads."""
from __future__ import annotations

import struct

SECTOR = 512
CUTOFF = 4096
FREE, END, FATSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _entry(name: str, kind: int, start: int, size: int, right: int = NOSTREAM,
           child: int = NOSTREAM) -> bytes:
    encoded = name.encode("utf-16-le") + b"\0\0"
    return (encoded.ljust(64, b"\0") + struct.pack("<HBB", len(encoded), kind, 1)
            + struct.pack("<III", NOSTREAM, right, child) + b"\0" * 16 + b"\0" * 4
            + b"\0" * 16 + struct.pack("<IQ", start, size))


def compound_file(streams: dict[str, bytes]) -> bytes:
    """The bytes of a compound file holding `streams` (name -> data) under its root."""
    names = sorted(streams)
    data = [streams[n].ljust(CUTOFF, b"\0") for n in names]
    fat: list[int] = []
    body = b""
    starts = []
    for blob in data:
        count = -(-len(blob) // SECTOR)
        starts.append(len(fat))
        fat += [len(fat) + i + 1 for i in range(count - 1)] + [END]
        body += blob.ljust(count * SECTOR, b"\0")
    # Directory: the root, then the streams chained as right siblings (a valid, if
    # unbalanced, tree).
    entries = [_entry("Root Entry", 5, END, 0, child=1 if names else NOSTREAM)]
    for index, (name, blob, start) in enumerate(zip(names, data, starts), start=1):
        entries.append(_entry(name, 2, start, len(blob),
                              right=index + 1 if index < len(names) else NOSTREAM))
    directory = b"".join(entries)
    directory = directory.ljust(-(-len(directory) // SECTOR) * SECTOR, b"\0")
    dir_start, dir_count = len(fat), len(directory) // SECTOR
    fat += [dir_start + i + 1 for i in range(dir_count - 1)] + [END]
    fat_start = len(fat)
    fat_count = -(-(len(fat) + 1) * 4 // SECTOR)
    while -(-(len(fat) + fat_count) * 4 // SECTOR) > fat_count:
        fat_count += 1
    fat += [FATSECT] * fat_count
    fat_bytes = struct.pack(f"<{len(fat)}I", *fat).ljust(fat_count * SECTOR, b"\xff")
    difat = [fat_start + i for i in range(fat_count)] + [FREE] * (109 - fat_count)
    header = (bytes.fromhex("D0CF11E0A1B11AE1") + b"\0" * 16
              + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\0" * 6
              + struct.pack("<IIIIIIIII", 0, fat_count, dir_start, 0, CUTOFF, END, 0, END, 0)
              + struct.pack("<109I", *difat))
    return header + body + directory + fat_bytes
