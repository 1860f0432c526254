"""What the framework retrievers share: a question through `Brain.ask`, read back from the
`ask --json` object (`AskResult.to_dict`), as one text and one metadata dict per source, in
Brain Query's rank order. No framework is imported here."""
from __future__ import annotations

import dataclasses
import os
from datetime import date, datetime, timezone
from typing import Any, Literal

from ..brain import Brain
from ..query.ask import QuestionError

# Each source's fields carried into the framework's metadata (the `results` objects of
# `ask --json`, under the same names).
SOURCE_FIELDS = ("source", "doc_id", "title", "doc_type", "source_date", "date_source", "score",
                 "scores", "message_id", "attachment", "age_days", "on_topic", "snippet")
# The question's own fields, on the first source only: a chain that reads one document
# still sees whether Brain Query knew the answer, and how fresh it is.
ANSWER_FIELDS = ("answer", "answer_kind", "confidence", "message", "level", "pattern", "now")
CONTENTS = ("document", "snippet")
Content = Literal["document", "snippet"]
# Any of: a datetime (used as it is), a date or "YYYY-MM-DD" (noon there, like --now),
# or None: this moment, read again at every question.
Now = datetime | date | str | None


@dataclasses.dataclass(frozen=True)
class Retrieved:
    """One source of an answer: `text` for the framework's content, `metadata` for its
    metadata, `score` Brain Query's fused score."""

    doc_id: str
    text: str
    score: float
    metadata: dict[str, Any]


def open_brain(store: str | os.PathLike | None = None, brain: Brain | None = None) -> Brain:
    """The Brain given, or one opened read-only on `store` (a folder, an http URL, or None
    for $BRAINQUERY_STORE / the per-user default): a retriever only asks."""
    if brain is not None and store is not None:
        raise ValueError("give a store or a Brain, not both")
    return brain if brain is not None else Brain(store, read_only=True)


def resolve_now(brain: Brain, now: Now) -> datetime:
    """The moment a question is asked at (see `Now`)."""
    if now is None:
        return datetime.now(timezone.utc).astimezone()
    if isinstance(now, datetime):
        return now
    if isinstance(now, str):
        try:
            now = date.fromisoformat(now)
        except ValueError as err:
            raise QuestionError(f"now: expected YYYY-MM-DD, got {now!r}") from err
    limits = brain.config.ingest.ingest
    if not limits.min_year <= now.year <= limits.max_clock_year:
        raise QuestionError(f"now must lie between the years {limits.min_year} and "
                            f"{limits.max_clock_year} (ingest.min_year, ingest.max_clock_year)")
    return brain.pinned_now(now)


def retrieve(brain: Brain, question: str, *, k: int | None = None, now: Now = None,
             pattern: str | None = None, content: Content = "document") -> list[Retrieved]:
    """The sources of `brain.ask(question)`, best first. `content` "document" gives each
    source's stored text, "snippet" the passage `ask --json` shows."""
    if content not in CONTENTS:
        raise ValueError(f"content must be one of {', '.join(CONTENTS)}, got {content!r}")
    result = brain.ask(question, now=resolve_now(brain, now), k=k, pattern=pattern).to_dict()
    out = []
    for rank, src in enumerate(result["results"], 1):
        meta = {field: src[field] for field in SOURCE_FIELDS}
        meta["rank"] = rank
        if rank == 1:
            meta.update({field: result[field] for field in ANSWER_FIELDS})
        text = src["snippet"]
        if content == "document":
            # An ingest may have replaced the document since it was ranked: its snippet then.
            text = brain.document_text(src["doc_id"]) or src["snippet"]
        out.append(Retrieved(doc_id=src["doc_id"], text=text, score=src["score"], metadata=meta))
    return out
