"""Grading ambiguous names (fixtures/ambiguity16): is a question asked back exactly when
the name in it is shared by entities it does not tell apart?

Each line: {"id", "question", "now": "YYYY-MM-DD", "name", "expect": {...}} where `expect`
holds "ask_back" (bool) and, for a question asked back, "entities" (descriptions, for
people); for one answered, "answer_contains" (strings the answer must hold, case-insensitive)
and "gold_file" (the file name of the document that holds the answer).

A question is "ambiguous" when it must be asked back, "qualified" when it names a shared
name with a qualifier that picks one entity (it must be answered), "unambiguous" when its
name belongs to one entity only; the last two are graded on their top source and answer.
"""
from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .evaluate import contains_answer, read_rows

AMBIGUOUS = "ambiguous"
GROUPS = ("ambiguous", "qualified", "unambiguous")


@dataclasses.dataclass(frozen=True)
class AmbiguityQuestion:
    id: str
    question: str
    now: str
    name: str
    expect: Mapping[str, Any]
    group: str = "ambiguous"     # one of GROUPS, from the set's other questions


@dataclasses.dataclass(frozen=True)
class AmbiguityOutcome:
    question: AmbiguityQuestion
    asked_back: bool
    top_file: str
    answer: str | None
    candidates: tuple[str, ...]

    @property
    def ask_back_ok(self) -> bool:
        return self.asked_back == bool(self.question.expect.get("ask_back"))

    @property
    def gold_at_1(self) -> bool | None:
        gold = self.question.expect.get("gold_file")
        return None if self.question.expect.get("ask_back") or not gold else self.top_file == gold

    @property
    def contains_ok(self) -> bool | None:
        wanted = self.question.expect.get("answer_contains")
        if self.question.expect.get("ask_back") or not wanted:
            return None
        return all(contains_answer(self.answer, s) for s in wanted)

    @property
    def ok(self) -> bool:
        return self.ask_back_ok and self.gold_at_1 is not False and self.contains_ok is not False

    def why(self) -> str:
        out = []
        if not self.ask_back_ok:
            out.append("asked back" if self.asked_back else "not asked back")
        if self.gold_at_1 is False:
            out.append(f"top source {self.top_file!r}, gold {self.question.expect['gold_file']!r}")
        if self.contains_ok is False:
            out.append(f"answer lacks {self.question.expect['answer_contains']}")
        return "; ".join(out)


def load_ambiguity_questions(path: str | os.PathLike) -> list[AmbiguityQuestion]:
    """The set's questions; a name some question must ask back about is shared, so the
    answered questions naming it are "qualified", the others "unambiguous"."""
    rows = read_rows(path, "an ambiguity question", lambda row: AmbiguityQuestion(
        id=str(row["id"]), question=str(row["question"]), now=str(row["now"]),
        name=str(row.get("name", "")), expect=dict(row["expect"])))
    shared = {q.name for q in rows if q.expect.get("ask_back")}
    return [dataclasses.replace(q, group="ambiguous" if q.expect.get("ask_back")
                                else "qualified" if q.name in shared else "unambiguous") for q in rows]


def grade(question: AmbiguityQuestion, result: Mapping[str, Any]) -> AmbiguityOutcome:
    """One ask result in its dictionary (JSON) form against what the question expects."""
    results = list(result.get("results") or [])
    top = Path(str(results[0].get("source") or "")).name if results else ""
    candidates = tuple(str(c.get("description", "")) for c in result.get("candidates") or ())
    return AmbiguityOutcome(question=question, asked_back=result.get("answer_kind") == AMBIGUOUS,
                            top_file=top, answer=result.get("answer"), candidates=candidates)


def evaluate_ambiguity(ask: Callable[[str, datetime], Mapping[str, Any]],
                       questions: Sequence[AmbiguityQuestion],
                       to_now: Callable[[str], datetime]) -> list[AmbiguityOutcome]:
    return [grade(q, ask(q.question, to_now(q.now))) for q in questions]


def share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclasses.dataclass(frozen=True)
class AmbiguityScores:
    """The issue's figures: ambiguous names asked back, qualified questions asked back
    (wrongly), and for the questions answered, the gold document first and the answer."""
    n: int
    ambiguous_asked: float | None
    qualified_asked: float | None
    unambiguous_asked: float | None
    gold_at_1: float | None
    answer_contains: float | None

    @classmethod
    def of(cls, outcomes: Sequence[AmbiguityOutcome]) -> AmbiguityScores:
        def group(name: str) -> list[AmbiguityOutcome]:
            return [o for o in outcomes if o.question.group == name]
        answered = [o for o in outcomes if not o.question.expect.get("ask_back")]
        return cls(n=len(outcomes),
                   ambiguous_asked=share([o.asked_back for o in group("ambiguous")]),
                   qualified_asked=share([o.asked_back for o in group("qualified")]),
                   unambiguous_asked=share([o.asked_back for o in group("unambiguous")]),
                   gold_at_1=share([bool(o.gold_at_1) for o in answered if o.gold_at_1 is not None]),
                   answer_contains=share([bool(o.contains_ok) for o in answered if o.contains_ok is not None]))


def _cell(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def format_outcomes(name: str, outcomes: Sequence[AmbiguityOutcome], failures: bool = True) -> str:
    s = AmbiguityScores.of(outcomes)
    counts = {g: sum(o.question.group == g for o in outcomes) for g in GROUPS}
    lines = [f"{name}: {len(outcomes)} questions ({counts['ambiguous']} ambiguous, "
             f"{counts['qualified']} qualified, {counts['unambiguous']} unambiguous)",
             f"  ambiguous asked back    {_cell(s.ambiguous_asked)}",
             f"  qualified asked back    {_cell(s.qualified_asked)}",
             f"  unambiguous asked back  {_cell(s.unambiguous_asked)}",
             f"  answered: gold@1        {_cell(s.gold_at_1)}",
             f"  answered: answer holds  {_cell(s.answer_contains)}"]
    if failures:
        for o in outcomes:
            if not o.ok:
                shown = f"candidates {list(o.candidates)}" if o.asked_back else f"answer {str(o.answer)[:140]!r}"
                lines.append(f"  FAIL {o.question.id} [{o.question.group}] {o.question.question} — {o.why()}; {shown}")
    return "\n".join(lines)
