"""A first-character guard for a regular expression, so a search skips quickly past the
positions where no match can begin.

Python's `re` tries a pattern at every position of a text, and a pattern that opens with
`\\b` or with a lookbehind ("(?<![\\d/])\\b(?:0?[1-9]|...)") enters all of its branches at
each one. The span patterns of config [answer] are searched in every chunk at index time
and in every candidate sentence at question time; most positions of a letter hold a
letter or a space that none of a phone number's or date's branches can open with.
`guarded` reads which characters a match can begin with from the pattern's parse and puts
them in front as a lookahead ("(?=[(+\\d])" for a phone number): the matches are the
same, found several times faster. A pattern whose first character cannot be told (".",
a backreference, a pattern that matches the empty string) is returned as it is. A pattern
that opens with lookbehinds ("(?<=network: )|(?<=ssid )") also gets a lookbehind of the
characters a match must follow ("(?<=[ ])"), which fails at most positions in one test.
"""
from __future__ import annotations

import re

try:    # the stdlib's own parser; private, so its absence only costs the speed-up
    from re import _parser
except ImportError:  # pragma: no cover - other Pythons
    _parser = None

_LEADING_FLAGS = re.compile(r"^(?:\(\?[aiLmsux]+\))+")
_ESCAPE = re.compile(r"\\.")
_CATEGORY = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
             "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


class _Unknown(Exception):
    """The first character of a match cannot be told from the parse."""


def guarded(pattern: re.Pattern) -> re.Pattern:
    """`pattern` with a lookahead naming the characters a match can begin with (and a
    lookbehind of those it must follow, when it opens with lookbehinds); the same matches,
    spans and groups. Unchanged when those characters cannot be told."""
    if _parser is None or not isinstance(pattern.pattern, str):
        return pattern
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        items = list(tree)
        if items and str(items[0][0]) == "ASSERT" and items[0][1][0] == 1:
            return pattern       # it opens with a lookahead of its own ("(?=[\\d$])...")
        classes, nullable, costly = _first(items, bool(tree.state.flags & re.IGNORECASE))
    except (_Unknown, re.error, AttributeError, TypeError, ValueError):
        return pattern
    try:
        behind = _preceding(items, bool(tree.state.flags & re.IGNORECASE))
    except (_Unknown, AttributeError, TypeError, ValueError):
        behind = None
    ahead = not (nullable or not costly or not classes or any(_broad(body) for _, body in classes))
    behind = behind if behind and not any(_broad(body) for _, body in behind) else None
    if not ahead and not behind:
        return pattern
    body = _LEADING_FLAGS.sub("", pattern.pattern)
    guard = ("(?<=" + "|".join(_merged(behind)) + ")" if behind else "") \
        + ("(?=" + "|".join(_merged(classes)) + ")" if ahead else "")
    try:
        return re.compile(f"{guard}(?:{body})", pattern.flags)
    except re.error:
        return pattern


def _preceding(items: list, ignorecase: bool) -> list[tuple[bool, str]] | None:
    """The characters a match must follow, when the pattern opens with lookbehinds that
    each end in a known character ("(?<=network: )|(?<=ssid )": a space), read past
    lookaheads and anchors; None when that cannot be told. A guard of them skips, with
    one class test, the positions where every lookbehind would be tried and fail."""
    for op, av in items:
        name = str(op)
        if name in ("AT", "ASSERT_NOT") or (name == "ASSERT" and av[0] == 1):
            continue                      # zero-width and no promise about what precedes
        if name == "ASSERT":             # a lookbehind: its last item precedes the match
            last = list(av[1])[-1:] if av[1] else []
            if not last or str(last[0][0]) not in ("LITERAL", "IN"):
                return None
            return [_class(str(last[0][0]), last[0][1], ignorecase)]
        if name == "SUBPATTERN":
            _group, add, remove, sub = av
            case = (ignorecase or bool(add & re.IGNORECASE)) and not (remove & re.IGNORECASE)
            return _preceding(list(sub), case)
        if name == "BRANCH":
            found: list[tuple[bool, str]] = []
            for branch in av[1]:
                more = _preceding(list(branch), ignorecase)
                if not more:
                    return None
                found += more
            return found
        return None                       # a consuming item: nothing is promised before it
    return None


def _first(items: list, ignorecase: bool) -> tuple[list[tuple[bool, str]], bool, bool]:
    """The character classes the sequence `items` can begin with, whether it can match
    the empty string, and whether trying it at a position costs more than one class test
    (a choice of branches, a lookbehind) before those classes decide."""
    classes: list[tuple[bool, str]] = []
    costly = False
    for n, (op, av) in enumerate(items):
        name = str(op)
        if name in ("ASSERT", "ASSERT_NOT"):
            costly = costly or n == 0
            continue
        if name == "AT":
            continue                      # zero-width: the next item opens the match
        if name == "SUBPATTERN":
            _group, add, remove, sub = av
            case = (ignorecase or bool(add & re.IGNORECASE)) and not (remove & re.IGNORECASE)
            found, nullable, dear = _first(list(sub), case)
        elif name == "ATOMIC_GROUP":
            found, nullable, dear = _first(list(av), ignorecase)
        elif name == "BRANCH":
            found, nullable, dear = [], False, True
            for branch in av[1]:
                more, empty, _ = _first(list(branch), ignorecase)
                found += more
                nullable = nullable or empty
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = av
            found, nullable, dear = _first(list(sub), ignorecase)
            nullable = nullable or low == 0
        elif name in ("LITERAL", "NOT_LITERAL", "IN"):
            found, nullable, dear = [_class(name, av, ignorecase)], False, False
        else:                             # ANY, a backreference, a conditional group
            raise _Unknown(name)
        classes += found
        costly = costly or dear
        if not nullable:
            return classes, False, costly
    return classes, True, costly


def _class(name: str, av, ignorecase: bool) -> tuple[bool, str]:
    """One consuming item as the inside of a character class, with its case flag (the
    guard stands outside whatever scoped flags the item had)."""
    if name == "LITERAL":
        return ignorecase, _char(av)
    if name == "NOT_LITERAL":
        return ignorecase, "^" + _char(av)
    return ignorecase, "".join(_member(op, value) for op, value in av)


def _broad(body: str) -> bool:
    """A class most characters of a text are in: as a guard it would cost, not save."""
    return body.startswith("^") or any(c in body for c in (r"\w", r"\W", r"\S", r"\D"))


def _cased(body: str) -> bool:
    """Does the class name a letter (an escape's letter aside)? Else its case flag is moot."""
    return any(c.lower() != c.upper() for c in _ESCAPE.sub("", body))


def _merged(classes: list[tuple[bool, str]]) -> list[str]:
    """One class per case flag (a negated class never gets here: it is `_broad`)."""
    merged: dict[bool, str] = {}
    for ignorecase, body in dict.fromkeys(classes):
        case = ignorecase and _cased(body)
        merged[case] = merged.get(case, "") + body
    return [f"(?{'i' if case else '-i'}:[{body}])" for case, body in merged.items()]


def _member(op, value) -> str:
    name = str(op)
    if name == "NEGATE":
        return "^"
    if name == "LITERAL":
        return _char(value)
    if name == "RANGE":
        return f"{_char(value[0])}-{_char(value[1])}"
    if name == "CATEGORY" and str(value) in _CATEGORY:
        return _CATEGORY[str(value)]
    raise _Unknown(f"{name} {value}")


def _char(code: int) -> str:
    char = chr(code)
    return "\\" + char if char in "\\]^-[" else char
