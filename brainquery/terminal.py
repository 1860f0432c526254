"""Text from documents on its way to a terminal.

A Subject of `ESC]2;…BEL ESC[2J` retitles and clears the terminal of whoever lists their
mail: document text is data, never commands. Human-readable output drops every control
character but newline and tab; JSON escapes C0 itself, and C1 is escaped here.
"""
from __future__ import annotations

import json
import re
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
