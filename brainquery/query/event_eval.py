"""Grading calendar answers: a question set of occurrences asked about (fixtures/calendar16).

Each line: {"id", "question", "now": "YYYY-MM-DD", "expect": {...}} where `expect` holds
"kind" ("occurrence", "no_occurrence" or "field"), and as they apply "yes_no", "date" (the
local day of the occurrence that answers; for "no_occurrence" the next one), "start" and
"end" (local "HH:MM" in the event's zone), "moved_from", "contains" (for a field) and
"summary" (the event meant). An answer is right when every stated expectation holds.
"""
from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from typing import Any, Callable, Mapping

from .evaluate import normalise_text, read_rows


@dataclasses.dataclass(frozen=True)
class EventQuestion:
    id: str
    question: str
    now: str
    expect: Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class EventOutcome:
    question: EventQuestion
    ok: bool
    why: str
    answer: str | None


def load_event_questions(path: str | os.PathLike) -> list[EventQuestion]:
    return read_rows(path, "an event question", lambda row: EventQuestion(
        id=str(row["id"]), question=str(row["question"]), now=str(row["now"]), expect=dict(row["expect"])))


def grade(result: Mapping[str, Any], expect: Mapping[str, Any]) -> tuple[bool, str]:
    """(right, what was wrong) for one ask result in its dictionary (JSON) form."""
    answer = result.get("answer") or ""
    kind = expect.get("kind")
    if kind == "field":
        missing = [s for s in expect.get("contains", ()) if normalise_text(s) not in normalise_text(answer)]
        return (not missing, f"answer lacks {missing}" if missing else "")
    got = result.get("answer_kind")
    if got != kind:
        return False, f"answer_kind {got!r}, expected {kind!r}"
    if "yes_no" in expect:
        word = "Yes" if expect["yes_no"] == "yes" else "No"
        if not answer.startswith(word):
            return False, f"answer does not begin with {word!r}"
    occurrences = [o for o in result.get("occurrences") or () if o.get("status") != "cancelled"]
    if "summary" in expect and result.get("occurrences"):
        titles = {o.get("title") for o in result["occurrences"]}
        if expect["summary"] not in titles:
            return False, f"about {sorted(t for t in titles if t)}, expected {expect['summary']!r}"
    if "date" not in expect:
        return True, ""
    for occ in occurrences:
        if _matches(occ, expect):
            return True, ""
    shown = [f"{o.get('start')} ({o.get('status')})" for o in result.get("occurrences") or ()]
    return False, f"no occurrence {expect.get('date')} {expect.get('start', '')} among {shown}"


def _matches(occ: Mapping[str, Any], expect: Mapping[str, Any]) -> bool:
    start = str(occ.get("start") or "")
    if start[:10] != expect["date"]:
        return False
    if "start" in expect and start[11:16] != expect["start"]:
        return False
    if "end" in expect and str(occ.get("end") or "")[11:16] != expect["end"]:
        return False
    if "moved_from" in expect and str(occ.get("moved_from") or "")[:10] != expect["moved_from"]:
        return False
    return True


def evaluate_events(ask: Callable[[str, datetime], Mapping[str, Any]],
                    questions: list[EventQuestion], to_now: Callable[[str], datetime]) -> list[EventOutcome]:
    out = []
    for q in questions:
        result = ask(q.question, to_now(q.now))
        ok, why = grade(result, q.expect)
        out.append(EventOutcome(question=q, ok=ok, why=why, answer=result.get("answer")))
    return out


def format_outcomes(name: str, outcomes: list[EventOutcome], failures: bool = True) -> str:
    right = sum(o.ok for o in outcomes)
    lines = [f"{name}: {right}/{len(outcomes)} right ({right / max(1, len(outcomes)):.3f})"]
    by_kind: dict[str, list[bool]] = {}
    for o in outcomes:
        by_kind.setdefault(str(o.question.expect.get("kind")), []).append(o.ok)
    lines += [f"  {kind:<14} {sum(v)}/{len(v)}" for kind, v in sorted(by_kind.items())]
    if failures:
        lines += [f"  FAIL {o.question.id}: {o.question.question} — {o.why}; answer {str(o.answer)[:160]!r}"
                  for o in outcomes if not o.ok]
    return "\n".join(lines)
