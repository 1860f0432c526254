"""The extractive answer: which sentences of a document answer the question, the value of
the expected kind they hold (a size, a time, an amount, a name...), and whether the
question's words are there at all (coverage: the basis of "I don't know")."""
from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from .config import AnswerSection

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n|\n(?=\s*[-*•]\s)|\n(?=[A-Z][\w /&-]{0,40}:)")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclasses.dataclass(frozen=True)
class Extract:
    text: str                # the sentence(s), whitespace collapsed
    value: str | None        # the first span of the expected kind in them, normalised
    score: float


@lru_cache(maxsize=8)
def _compiled(cfg: AnswerSection) -> tuple[list[tuple[str, re.Pattern]], dict[str, re.Pattern]]:
    kinds = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in cfg.kinds]
    spans = {kind: re.compile(pattern) for kind, pattern in cfg.spans}
    unknown = sorted({kind for kind, _ in kinds} - set(spans))
    if unknown:
        raise ValueError(f"answer.kinds names kind(s) with no span pattern: {', '.join(unknown)}")
    return kinds, spans


def expected_kind(question: str, cfg: AnswerSection) -> str | None:
    """The kind of span that answers the question (first cue that matches), or None."""
    kinds, _ = _compiled(cfg)
    for kind, pattern in kinds:
        if pattern.search(question):
            return kind
    return None


def split_sentences(text: str) -> list[str]:
    """Sentences, list items and 'Label: value' lines, whitespace collapsed."""
    pieces = []
    for block in text.split("\n"):
        pieces.extend(_SENTENCE_END.split(block))
    out = [_SPACE.sub(" ", p).strip() for p in pieces]
    return [p for p in out if len(p) > 1]


def extract(text: str, kind: str | None, term_weights: dict[str, float],
            tokenize: Callable[[str], Sequence[str]], cfg: AnswerSection) -> Extract:
    """The best `max_sentences` sentences of `text` for the question, in document order."""
    sentences = split_sentences(text)
    if not sentences:
        return Extract("", None, 0.0)
    _, spans = _compiled(cfg)
    span = spans.get(kind) if kind else None
    scores = np.array([_sentence_score(s, term_weights, tokenize) for s in sentences])
    found = [_longest(span, s) if span else None for s in sentences]
    has_span = np.array([f is not None for f in found])
    # Among equally good sentences the one with the most specific span wins ("16x25x4"
    # over "16x25").
    specificity = np.array([len(f) if f else 0 for f in found]) / 1000.0
    scores = scores + (cfg.kind_bonus * has_span + specificity) * (scores > 0)
    best = int(np.argmax(scores))
    chosen = [best]
    for i in np.argsort(-scores, kind="stable")[1:cfg.max_sentences]:
        if scores[i] > 0 and scores[i] >= 0.5 * scores[best]:
            chosen.append(int(i))
    chosen.sort()
    answer = " ".join(sentences[i] for i in chosen)
    if len(answer) > cfg.max_chars:
        answer = sentences[best][:cfg.max_chars].rstrip() + ("…" if len(sentences[best]) > cfg.max_chars else "")
    value = next((normalise_value(found[i]) for i in [best] + chosen if found[i]), None)
    return Extract(answer, value, float(scores[best]))


def _longest(span: re.Pattern, sentence: str) -> str | None:
    matches = [m.group(0) for m in span.finditer(sentence)]
    return max(matches, key=len) if matches else None


def _sentence_score(sentence: str, term_weights: dict[str, float],
                    tokenize: Callable[[str], Sequence[str]]) -> float:
    tokens = set(tokenize(sentence))
    return float(sum(w for t, w in term_weights.items() if t in tokens))


def normalise_value(value: str) -> str:
    """Compare '16 x 25 x 4' with '16x25x4', '$88.95' with '$ 88.95'."""
    return _SPACE.sub("", value).lower().rstrip(".")


def snippet(text: str, term_weights: dict[str, float], tokenize: Callable[[str], Sequence[str]],
            limit: int) -> str:
    """The passage of a chunk that best matches the question, at most `limit` characters."""
    sentences = split_sentences(text)
    if not sentences:
        return ""
    scores = [_sentence_score(s, term_weights, tokenize) for s in sentences]
    start = int(np.argmax(scores))
    out = sentences[start]
    for extra in sentences[start + 1:]:
        if len(out) + 1 + len(extra) > limit:
            break
        out += " " + extra
    return out if len(out) <= limit else out[:limit - 1].rstrip() + "…"


def coverage(base_terms: Sequence[str], term_idf: Callable[[str], float],
             alternatives: dict[str, set[str]], doc_tokens: set[str]) -> float:
    """The IDF-weighted share of the question's own terms found in a document, a term
    counting as found when one of its synonyms is. A term that occurs nowhere in the
    corpus weighs as much as the rarest term there is: asking for a fax number when no
    document mentions a fax is exactly the question we cannot answer."""
    if not base_terms:
        return 0.0
    weights = np.array([term_idf(t) for t in base_terms])
    found = np.array([t in doc_tokens or bool(alternatives.get(t, set()) & doc_tokens)
                      for t in base_terms])
    total = weights.sum()
    return float(weights[found].sum() / total) if total > 0 else 0.0


def words(text: str) -> list[str]:
    return _WORD.findall(text)
