"""What kind of document a text is, from cue words: a manual, a newsletter, or the default.

A document names itself on its cover ("User Guide", "Online Help", "Newsletter"): each
distinct *name* cue in the title or the first `head_chars` counts `name_weight`, and
`title_weight` more when it is in the title. *Hint* cues ("click", "menu", "unsubscribe")
count once per occurrence, up to `cue_count_cap` each, in the first `classify_chars`, scaled
to `hint_reference_chars` of text: a report uses a few of them, a manual many per page.
The best type wins when it reaches `min_score`
and beats every other type; otherwise the caller's default stands (static_pdf for a PDF,
note for a note). Invoices and receipts are `invoice.analyse`'s job.

All matching is on whole words, in any case, accents optional.
"""
from __future__ import annotations

from typing import Callable, Mapping

from .config import DocTypeSection, IngestConfig
from .printed_dates import label_pattern

CueLists = Callable[[DocTypeSection], tuple[tuple[str, ...], tuple[str, ...]]]

# Type name -> its (name cues, hint cues) in the config: a new type is one line here and
# two lists there.
CUE_LISTS: Mapping[str, CueLists] = {
    "manual": lambda cfg: (cfg.manual_names, cfg.manual_cues),
    "newsletter": lambda cfg: (cfg.newsletter_names, cfg.newsletter_cues),
}


def doc_type_for_text(text: str, title: str, config: IngestConfig, default: str) -> str:
    scores = type_scores(text, title, config.doc_type)
    best = max(scores, key=lambda name: scores[name])
    beaten = all(scores[best] > score for name, score in scores.items() if name != best)
    return best if scores[best] >= config.doc_type.min_score and beaten else default


def type_scores(text: str, title: str, cfg: DocTypeSection) -> dict[str, float]:
    """Cue score per type for `text` and `title`."""
    return {name: cue_score(*lists(cfg), text or "", title or "", cfg)
            for name, lists in CUE_LISTS.items()}


def cue_score(names: tuple[str, ...], hints: tuple[str, ...], text: str, title: str,
              cfg: DocTypeSection) -> float:
    head, body = text[: cfg.head_chars], text[: cfg.classify_chars]
    score = 0.0
    for cue in names:
        pattern = label_pattern(cue, plural=True)
        in_title = bool(title and pattern.search(title))
        if in_title or pattern.search(head):
            score += cfg.name_weight + (cfg.title_weight if in_title else 0.0)
    hint_score = 0.0
    for cue in hints:
        matches = label_pattern(cue, plural=True).finditer(body)
        hint_score += sum(1 for _ in zip(range(cfg.cue_count_cap), matches))
    # Hints are a density: scaled to hint_reference_chars for longer texts.
    return score + hint_score * min(1.0, cfg.hint_reference_chars / max(len(body), 1))
