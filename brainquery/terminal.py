"""Text from documents on its way to a terminal.

A Subject of `ESC]2;…BEL ESC[2J` retitles and clears the terminal of whoever lists their
mail: document text is data, never commands. Human-readable output drops every control
character but newline and tab; JSON escapes C0 itself, and C1 is escaped here.
"""
from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_C1 = re.compile(r"[\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` without the control characters a terminal would act on."""
    return _CONTROL.sub("", text)


def json_line(obj: Any) -> str:
    """One JSON object, non-ASCII kept readable, DEL and C1 controls written as escapes
    (json.dumps escapes only C0); still the same JSON to any parser."""
    text = json.dumps(obj, ensure_ascii=False)
    return _C1.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def char_width(char: str) -> int:
    """Terminal columns of one character: East Asian wide and fullwidth characters take two,
    combining marks and zero-width characters none."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    return sum(char_width(c) for c in text)


def fit(text: str, width: int) -> str:
    """`text` cut and padded to exactly `width` terminal columns, so the columns after it
    line up whatever script it is in (a wide character that would straddle the edge is
    replaced by a space)."""
    out, used = [], 0
    for char in text:
        cols = char_width(char)
        if used + cols > width:
            break
        out.append(char)
        used += cols
    return "".join(out) + " " * (width - used)
