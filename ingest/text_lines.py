"""Line arithmetic over a text by character offset, for label-and-value parsing."""
from __future__ import annotations


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def next_line(text: str, end_of_line: int) -> tuple[int | None, int]:
    """(start, end) of the next non-blank line after the one ending at `end_of_line`."""
    pos = end_of_line + 1
    while pos < len(text):
        end = line_end(text, pos)
        if text[pos:end].strip():
            return pos, end
        pos = end + 1
    return None, len(text)
