"""What the LangChain and LlamaIndex adapter tests share: the CLI's answers to the same
questions (the reference the adapters must agree with), the typed metadata every source
carries, and a guard that no test opens a network connection."""
from __future__ import annotations

import io
import json
import math
import socket
from datetime import datetime

import pytest
# The ask CLI tests' questions (one of each kind the product answers) and day: the
# adapters must agree with the CLI on exactly those.
from test_ask_cli import DAY, QUESTIONS  # noqa: F401

from brainquery.cli import main
from brainquery.query.ask import LEVELS


def cli_answers(store: str, questions=QUESTIONS, *extra: str) -> list[dict]:
    """`brainquery ask - --store STORE --now DAY --json`, one object per question."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(questions) + "\n"))
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        assert main(["ask", "-", "--store", store, "--now", DAY, "--json", *extra]) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _iso_or_none(value) -> bool:
    return value is None or (isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None)


# field -> what its value must be, on every source / on the first source only.
SOURCE_TYPES = {
    "source": lambda v: isinstance(v, str) and v != "",
    "doc_id": lambda v: isinstance(v, str) and len(v) == 32 and int(v, 16) >= 0,
    "title": lambda v: isinstance(v, str),
    "doc_type": lambda v: isinstance(v, str) and v != "",
    "source_date": _iso_or_none,
    "date_source": lambda v: isinstance(v, str),
    "score": _number,
    "scores": lambda v: isinstance(v, dict) and v and all(_number(x) for x in v.values()),
    "rank": lambda v: isinstance(v, int) and v >= 1,
}
ANSWER_TYPES = {
    "answer": lambda v: v is None or (isinstance(v, str) and v.strip() != ""),
    "confidence": lambda v: _number(v) and 0.0 <= v <= 1.0,
    "message": lambda v: isinstance(v, str) and v != "",
    "level": lambda v: v in LEVELS,
}


def badly_typed(metadata: dict, first: bool) -> list[str]:
    """The fields missing from `metadata` or of the wrong type."""
    wanted = {**SOURCE_TYPES, **(ANSWER_TYPES if first else {})}
    return [f for f, ok in wanted.items() if f not in metadata or not ok(metadata[f])]


@pytest.fixture()
def no_network(monkeypatch):
    """Any attempt to open an internet connection fails the test."""
    def refuse(self, address, *args):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"a network connection to {address} was attempted")
        return real_connect(self, address, *args)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
