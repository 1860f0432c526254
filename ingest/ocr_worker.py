"""The RapidOCR worker process: loads the engine once, then reads images until its input
closes. Run as a script by ingest/ocr.py (no import of `ingest`, so it starts in any
environment that has rapidocr), it speaks length-prefixed frames on its standard input and
output: in, the image bytes; out, a status byte (0 text, 1 error) and UTF-8 text.
"""
from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any, BinaryIO

_LENGTH = struct.Struct(">Q")
OK, ERROR = 0, 1


def read_frame(stream: BinaryIO) -> bytes | None:
    """One frame, or None at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    body = stream.read(size)
    return body if len(body) == size else None


def write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def rapid_lines(engine: Any, data: bytes) -> str:
    """The lines RapidOCR reads in `data`, top to bottom; boxes on one line joined left to
    right, the way tesseract prints them (a receipt's "TOTAL ... 4.48" stays one line)."""
    result = engine(data)
    boxes, texts = getattr(result, "boxes", None), getattr(result, "txts", None)
    if boxes is None or not texts:
        return ""
    items = sorted((min(p[1] for p in box), max(p[1] for p in box), min(p[0] for p in box), text)
                   for box, text in zip(boxes, texts))
    lines: list[list[tuple[float, str]]] = []
    top = bottom = 0.0
    for y0, y1, x0, text in items:
        if lines and top <= (y0 + y1) / 2 <= bottom:
            lines[-1].append((x0, text))
            continue
        lines.append([(x0, text)])
        top, bottom = y0, y1
    return "\n".join(" ".join(t for _, t in sorted(line)) for line in lines) + "\n"


def main() -> None:
    # Our frames own the real standard output; anything the engine prints goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    params = json.loads(sys.argv[1])
    from rapidocr import RapidOCR

    engine = RapidOCR(params=params)
    source = sys.stdin.buffer
    while (data := read_frame(source)) is not None:
        try:
            reply = bytes([OK]) + rapid_lines(engine, data).encode("utf-8")
        except Exception as err:  # a broken image; the worker lives on for the next one
            reply = bytes([ERROR]) + f"{type(err).__name__}: {err}".encode("utf-8")
        write_frame(out, reply)


if __name__ == "__main__":
    main()
