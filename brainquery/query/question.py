"""A question refused before anything is loaded to answer it."""
from __future__ import annotations


class QuestionError(ValueError):
    """A question that cannot be asked: empty, longer than scoring.max_question_chars, or
    asking for fewer than one source. The CLI says so in one line (exit 2), the API with 422."""


def check_question(question: str, k: int | None, max_chars: int) -> None:
    if not question.strip():
        raise QuestionError("the question is empty")
    if len(question) > max_chars:
        raise QuestionError(f"the question is {len(question)} characters; the limit is "
                            f"{max_chars} (scoring.max_question_chars)")
    if k is not None and k < 1:
        raise QuestionError(f"--k must be at least 1, got {k}")
