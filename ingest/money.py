"""How a household's papers write money, read one way by ingestion and by answers.

Invoices, receipts and letters write an amount with the local currency before or after
it ("CHF 1'327.80", "2 150 kr", "Fr. 145.–", "R1 250,00", "56,02 €", "$4.11"), grouped by
commas, dots, apostrophes or (thin) spaces, with cents, or with a dash for none. The
currencies are configuration ([invoice] currency_symbols, currency_codes); this module
turns them into one regex alternation and a number into its value.
"""
from __future__ import annotations

import functools
import re

# Spaces a number may be grouped by: a plain, a no-break and a narrow no-break space.
_GROUP_SPACES = " \u00a0\u202f"
_NUMBER = re.compile(rf"\d[\d.,'’{_GROUP_SPACES}]*")


@functools.lru_cache(maxsize=8)
def currency_alternation(currencies: tuple[str, ...], attached: tuple[str, ...] = ()) -> str:
    """A regex alternation of the currencies, longest first; one written in letters
    ("kr", "CHF", "Fr.") stands as a word of its own, a sign ("$", "€") anywhere. One of
    `attached` names money only written against its amount ("R350", "R1 450,00") or a
    space before one with cents ("R 250,00"), never after a digit, a letter or a tyre's
    width nor before a letter: "205/60R16" and "205/55 R16" are tyres, "R410A" a
    refrigerant, "Block R 12" a block."""
    # Longest first, then by name: the same string in every process (the configuration's
    # key, which names the published index, is built from it).
    ordered = sorted(set(currencies), key=lambda c: (-len(c), c))
    grouped = rf"\d{{1,3}}(?:[{_GROUP_SPACES},.]\d{{3}})*"
    close = rf"(?=(?:{grouped}(?:[.,]\d{{2}})?(?!\w|[.,]\d)|[ \u00a0]{grouped}[.,]\d{{2}}(?!\d)))"

    def one(c: str) -> str:
        if c in attached:
            return rf"(?<![\w/.-])(?<!\d/\d\d ){re.escape(c)}{close}"
        if c[:1].isalpha() or c[-1:].isalpha():
            return rf"(?<![^\W\d_]){re.escape(c)}(?![^\W\d_])"
        return re.escape(c)

    return "|".join(one(c) for c in ordered)


@functools.lru_cache(maxsize=8)
def currency_initials(currencies: tuple[str, ...]) -> str:
    """A regex class of the characters a currency can start with: an amount written with
    one starts with one of them or with a digit, and a pattern can say so up front."""
    return "[" + "".join(sorted({re.escape(c[0]) for c in currencies if c})) + "]"


def normalise_number(raw: str) -> str:
    """A written number as Python reads one: "1'327.80" -> "1327.80", "1.005,55" ->
    "1005.55", "2 150" -> "2150", "298.-" -> "298"; one separator before exactly three digits groups them."""
    raw = re.sub(rf"['’{_GROUP_SPACES}]", "", raw).rstrip("-–—").rstrip(".,")
    if "," in raw and "." in raw:
        decimal = "," if raw.rfind(",") > raw.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        return raw.replace(thousands, "").replace(decimal, ".")
    for sep in ",.":
        if sep in raw:
            head, _, tail = raw.rpartition(sep)
            if len(tail) == 3:
                return raw.replace(sep, "")
            return head.replace(sep, "") + "." + tail
    return raw


def amount_value(text: str) -> float | None:
    """The value of the first number written in `text` ("Fr. 145.–" -> 145.0)."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    try:
        return float(normalise_number(match.group(0).rstrip(_GROUP_SPACES)))
    except ValueError:
        return None
