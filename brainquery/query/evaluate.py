"""Score question answering against a labelled question set (fixtures/queries.jsonl).

Each line of the question file is one JSON object:

    {"id": "log-friday-half-day", "question": "is friday a half day?", "pattern": "logistical",
     "now": "2026-11-18T12:00:00-06:00", "gold": ["mail/2026-11-16-....eml"], "answer": "12:15",
     "expect": "answer", "criterion": "friday-half-day"}

`gold` names the documents that are a correct top answer by their manifest path (relative to
the corpus folder; "x.mbox#N" for an mbox message, "x.ics#N" for the N-th event of a calendar,
"<path>::<file name>" for an attachment); `expect` is "answer", "stale" (the only evidence is
old: a stale warning is right) or "idk" (nothing answers it); `answer` is a short text the
answer must contain. `absent` (optional) lists words the corpus must not contain, the proof
that an "idk" question is truly unanswerable.

`evaluate(ask, queries, corpus_root)` asks every question through `ask(question, now,
pattern_override) -> dict` (the `brainquery ask --json` object) and reports, per pattern and
overall, P@1, R@3 and MRR over questions with gold documents, the router's accuracy, answer,
stale-warning and abstention accuracy, and the issue's success criteria.
"""
from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .ask import is_stale_message

PATTERNS = ("logistical", "entity", "historical")
EXPECTS = ("answer", "stale", "idk")
CRITERIA = ("friday-half-day", "hvac-filter", "roofer-2023", "stale-or-idk")
OVERALL = "overall"

_REQUIRED = {"id": str, "question": str, "pattern": str, "now": str, "gold": list,
             "answer": (str, type(None)), "expect": str, "criterion": (str, type(None))}
_OPTIONAL = {"absent": list}

Ask = Callable[[str, datetime, str | None], Mapping[str, Any]]
Matcher = Callable[[Mapping[str, Any], str], bool]


class QuerySetError(ValueError):
    """A question file that cannot be used: the message names the line."""


@dataclasses.dataclass(frozen=True)
class EvalQuery:
    id: str
    question: str
    pattern: str
    now: datetime
    gold: tuple[str, ...]
    answer: str | None
    expect: str
    criterion: str | None
    absent: tuple[str, ...] = ()


def is_abstention(result: Mapping[str, Any]) -> bool:
    return result.get("answer") is None


def normalise_text(text: str) -> str:
    """Case and runs of white space do not matter when an answer is looked for in a text."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def contains_answer(text: str | None, answer: str) -> bool:
    return normalise_text(answer) in normalise_text(text or "")


def noon_utc(day: str) -> datetime:
    """A question set's `now` day ("2026-11-20") as `brainquery ask --now` reads it."""
    return datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)


def read_rows(path: str | os.PathLike, what: str, make: Callable[[dict], Any]) -> list:
    """`make(row)` for every JSON line of a question file; a line it cannot read is a
    ValueError naming the file, the line and `what` it should have been."""
    out = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                out.append(make(json.loads(line)))
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path}:{number}: not {what}: {err}") from err
    return out


# ---- the question file ---------------------------------------------------------------------
def load_queries(path: str | os.PathLike) -> list[EvalQuery]:
    """Every question of a JSON Lines file; any mistake is a QuerySetError naming its line."""
    queries: list[EvalQuery] = []
    first_line: dict[str, int] = {}
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise QuerySetError(f"{where}: not valid JSON: {err}") from err
            query = _parse_query(record, where)
            if query.id in first_line:
                raise QuerySetError(f"{where}: id {query.id!r} already used on line {first_line[query.id]}")
            first_line[query.id] = number
            queries.append(query)
    return queries


def _parse_query(record: Any, where: str) -> EvalQuery:
    if not isinstance(record, dict):
        raise QuerySetError(f"{where}: a question must be a JSON object")
    missing = sorted(set(_REQUIRED) - set(record))
    if missing:
        raise QuerySetError(f"{where}: missing field(s) {', '.join(missing)}")
    unknown = sorted(set(record) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise QuerySetError(f"{where}: unknown field(s) {', '.join(unknown)}")
    for name, kind in {**_REQUIRED, **_OPTIONAL}.items():
        if name in record and not isinstance(record[name], kind):
            raise QuerySetError(f"{where}: field {name} has the wrong type ({type(record[name]).__name__})")
    for name in ("gold", "absent"):
        if not all(isinstance(item, str) and item for item in record.get(name, [])):
            raise QuerySetError(f"{where}: {name} must be a list of non-empty strings")
    _check_choice(record["pattern"], PATTERNS, "pattern", where)
    _check_choice(record["expect"], EXPECTS, "expect", where)
    if record["criterion"] is not None:
        _check_choice(record["criterion"], CRITERIA, "criterion", where)
    try:
        now = datetime.fromisoformat(record["now"])
    except ValueError as err:
        raise QuerySetError(f"{where}: now {record['now']!r} is not an ISO 8601 date-time") from err
    if now.tzinfo is None:
        raise QuerySetError(f"{where}: now {record['now']!r} has no UTC offset")
    if (record["expect"] == "idk") != (not record["gold"]):
        raise QuerySetError(f"{where}: gold must be empty exactly when expect is 'idk'")
    if record["expect"] == "idk" and record["answer"] is not None:
        raise QuerySetError(f"{where}: an 'idk' question has no answer to check")
    if record["answer"] is not None and not record["answer"].strip():
        raise QuerySetError(f"{where}: answer must be null or a non-empty text")
    return EvalQuery(id=record["id"], question=record["question"], pattern=record["pattern"], now=now,
                     gold=tuple(record["gold"]), answer=record["answer"], expect=record["expect"],
                     criterion=record["criterion"], absent=tuple(record.get("absent", ())))


def _check_choice(value: str, allowed: Sequence[str], name: str, where: str) -> None:
    if value not in allowed:
        raise QuerySetError(f"{where}: {name} {value!r} is not one of {', '.join(allowed)}")


# ---- which result is a gold document -------------------------------------------------------
def gold_matcher(corpus_root: str | os.PathLike) -> Matcher:
    """`match(result, gold_entry)`: is this result the manifest document the entry names?

    A calendar event keeps its .ics file as `source`, so "x.ics#N" is told apart from the
    other events of the file by the title the manifest gives it (corpus_manifest.csv beside
    the corpus folder; without it, the file alone decides).
    """
    root = Path(corpus_root).resolve()
    titles = _manifest_titles(root.parent / "corpus_manifest.csv")

    def match(result: Mapping[str, Any], entry: str) -> bool:
        path, _, attachment = entry.partition("::")
        if (result.get("attachment") or "") != attachment:
            return False
        source = str(result.get("source") or "")
        relative = Path(os.path.relpath(source, root)).as_posix() if os.path.isabs(source) else source
        if relative == path:
            return True
        base, hashed, _ = path.partition("#")
        if not hashed or relative != base:
            return False
        title = titles.get((path, attachment))
        return title is None or result.get("title") == title

    return match


def _manifest_titles(manifest: Path) -> dict[tuple[str, str], str]:
    if not manifest.exists():
        return {}
    with open(manifest, newline="", encoding="utf-8") as fh:
        return {(row["path"], row["attachment"]): row["title"] for row in csv.DictReader(fh)}


# ---- one question's outcome ----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class QueryOutcome:
    query: EvalQuery
    routed_pattern: str | None
    rank: int | None              # 1-based rank of the first gold document; None: not returned
    top_source: str
    top_title: str
    answer_text: str | None
    message: str
    stale_warning: bool
    abstained: bool

    @property
    def ranked(self) -> bool:
        """P@1, R@3 and MRR only mean something for a question with gold documents."""
        return bool(self.query.gold)

    @property
    def p_at_1(self) -> bool:
        return self.rank == 1

    @property
    def r_at_3(self) -> bool:
        return self.rank is not None and self.rank <= 3

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0

    @property
    def routed_ok(self) -> bool:
        return self.routed_pattern == self.query.pattern

    @property
    def answer_ok(self) -> bool | None:
        if self.query.answer is None:
            return None
        return contains_answer(self.answer_text, self.query.answer)

    @property
    def stale_ok(self) -> bool:
        return self.stale_warning == (self.query.expect == "stale")

    @property
    def abstention_ok(self) -> bool:
        return self.abstained == (self.query.expect == "idk")

    @property
    def criterion_ok(self) -> bool | None:
        """The issue's promise for this question: a current answer from gold with no warning,
        a warning (or "I don't know") on stale evidence, "I don't know" on none."""
        if self.query.criterion is None:
            return None
        if self.query.expect == "idk":
            return self.abstained
        if self.query.expect == "stale":
            return self.stale_warning or self.abstained
        return self.p_at_1 and self.answer_ok is not False and not self.stale_warning

    def reasons(self) -> list[str]:
        """Why this question counts against a metric (empty when it counts for all)."""
        q = self.query
        out = []
        if self.ranked and not self.p_at_1:
            where = f"gold at rank {self.rank}" if self.rank else "no gold document returned"
            top = f"{self.top_source} {self.top_title!r}" if self.top_source else "nothing"
            out.append(f"top-1 is {top} ({where})")
        if not self.routed_ok:
            out.append(f"routed to {self.routed_pattern}, labelled {q.pattern}")
        if self.answer_ok is False:
            out.append(f"answer {_shorten(self.answer_text)!r} lacks {q.answer!r}")
        if not self.stale_ok:
            out.append(f"stale warning {'given' if self.stale_warning else 'missing'}: {self.message!r}")
        if not self.abstention_ok:
            out.append("abstained" if self.abstained else "answered instead of abstaining")
        if self.criterion_ok is False:
            out.append(f"criterion {q.criterion} failed")
        return out


def judge(query: EvalQuery, result: Mapping[str, Any], match: Matcher,
          corpus_root: str | os.PathLike | None = None) -> QueryOutcome:
    results = list(result.get("results") or [])
    rank = next((i for i, item in enumerate(results, start=1)
                 if any(match(item, entry) for entry in query.gold)), None)
    top = results[0] if results else {}
    top_source = _display_path(str(top.get("source") or ""), corpus_root)
    if top.get("attachment"):
        top_source += f"::{top['attachment']}"
    message = str(result.get("message") or "")
    return QueryOutcome(query=query, routed_pattern=result.get("pattern"), rank=rank,
                        top_source=top_source, top_title=str(top.get("title") or ""), answer_text=result.get("answer"), message=message,
                        stale_warning=is_stale_message(message), abstained=is_abstention(result))


def _shorten(text: str | None, limit: int = 100) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit - 1] + "…"


def _display_path(source: str, corpus_root: str | os.PathLike | None) -> str:
    if not source or corpus_root is None or not os.path.isabs(source):
        return source
    relative = os.path.relpath(source, Path(corpus_root).resolve())
    return source if relative.startswith("..") else Path(relative).as_posix()


# ---- the report ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Scores:
    """One group's metrics; a rate is None when no question of the group is judged by it."""
    n: int
    n_ranked: int
    p_at_1: float | None
    r_at_3: float | None
    mrr: float | None
    classifier_accuracy: float | None
    answer_accuracy: float | None
    stale_accuracy: float | None
    abstention_accuracy: float | None
    criteria: float | None

    @classmethod
    def of(cls, outcomes: Sequence[QueryOutcome]) -> Scores:
        ranked = [o for o in outcomes if o.ranked]
        return cls(
            n=len(outcomes),
            n_ranked=len(ranked),
            p_at_1=_mean(o.p_at_1 for o in ranked),
            r_at_3=_mean(o.r_at_3 for o in ranked),
            mrr=_mean(o.reciprocal_rank for o in ranked),
            classifier_accuracy=_mean(o.routed_ok for o in outcomes),
            answer_accuracy=_mean(o.answer_ok for o in outcomes if o.answer_ok is not None),
            stale_accuracy=_mean(o.stale_ok for o in outcomes),
            abstention_accuracy=_mean(o.abstention_ok for o in outcomes),
            criteria=_mean(o.criterion_ok for o in outcomes if o.criterion_ok is not None),
        )


def _mean(values: Iterable[float | bool]) -> float | None:
    values = [float(v) for v in values]
    return sum(values) / len(values) if values else None


_COLUMNS = (("n", "n"), ("ranked", "n_ranked"), ("P@1", "p_at_1"), ("R@3", "r_at_3"), ("MRR", "mrr"),
            ("route", "classifier_accuracy"), ("answer", "answer_accuracy"),
            ("stale", "stale_accuracy"), ("abstain", "abstention_accuracy"), ("criteria", "criteria"))


@dataclasses.dataclass
class EvalReport:
    outcomes: list[QueryOutcome]

    @property
    def scores(self) -> dict[str, Scores]:
        """Each pattern that has questions, then all of them together."""
        groups = {p: [o for o in self.outcomes if o.query.pattern == p] for p in PATTERNS}
        out = {p: Scores.of(group) for p, group in groups.items() if group}
        out[OVERALL] = Scores.of(self.outcomes)
        return out

    @property
    def criteria(self) -> dict[str, bool]:
        """Each success criterion the questions name: passed when all its questions pass."""
        verdicts: dict[str, bool] = {}
        for o in self.outcomes:
            if o.query.criterion is not None:
                verdicts[o.query.criterion] = verdicts.get(o.query.criterion, True) and bool(o.criterion_ok)
        return verdicts

    @property
    def failures(self) -> list[tuple[str, list[str]]]:
        return [(o.query.id, reasons) for o in self.outcomes if (reasons := o.reasons())]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": {name: dataclasses.asdict(s) for name, s in self.scores.items()},
            "criteria": self.criteria,
            "failures": [{"id": qid, "reasons": reasons} for qid, reasons in self.failures],
            "outcomes": [{"id": o.query.id, "pattern": o.query.pattern, "routed": o.routed_pattern,
                          "rank": o.rank, "top": o.top_source, "top_title": o.top_title,
                          "answer": o.answer_text,
                          "message": o.message} for o in self.outcomes],
        }

    def format_table(self, failures: bool = True) -> str:
        header = f"{'pattern':<12}" + "".join(f"{title:>9}" for title, _ in _COLUMNS)
        lines = [header, "-" * len(header)]
        for name, scores in self.scores.items():
            cells = "".join(f"{_cell(getattr(scores, field)):>9}" for _, field in _COLUMNS)
            lines.append(f"{name:<12}{cells}")
        if self.criteria:
            lines += ["", "criteria"]
            for name, ok in self.criteria.items():
                ids = ", ".join(o.query.id for o in self.outcomes if o.query.criterion == name)
                lines.append(f"  {name:<18}{'PASS' if ok else 'FAIL':<6}{ids}")
        if failures:
            failed = self.failures
            lines += ["", f"failures ({len(failed)})"]
            lines += [f"  {qid}: {'; '.join(reasons)}" for qid, reasons in failed]
        return "\n".join(lines)


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def evaluate(ask: Ask, queries: Sequence[EvalQuery], corpus_root: str | os.PathLike,
             use_labelled_pattern: bool = False) -> EvalReport:
    """Ask every question (at its own `now`) and judge the answers. With
    `use_labelled_pattern`, each question is forced to its labelled pattern, which measures
    retrieval and answering without the router's mistakes."""
    match = gold_matcher(corpus_root)
    outcomes = [judge(q, ask(q.question, q.now, q.pattern if use_labelled_pattern else None), match,
                      corpus_root) for q in queries]
    return EvalReport(outcomes)
