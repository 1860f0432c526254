"""Asking: route the question, rank documents for the moment it is asked, answer with
the sentence that answers it, its sources, any conflicting values, and how far to trust it.

The result's dictionary form is a contract read by tools outside the repo
(`brainquery ask --json`): fields are only ever added.
"""
from __future__ import annotations

import calendar
import dataclasses
import functools
import logging
import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Callable, Iterator, Sequence

import numpy as np


from . import answer as answers
from .ambiguity import Ambiguity, AmbiguityFinder, describe, qualified_question, qualifier
from .entities import address_parts, display_name, name_key
from .anchor import anchored_window, find_anchor
from ..storage.chunking import join_chunks
from ..config import Config
from .associates import clause_associates
from .clock_style import household_clock
from .coverage import TopicTerms, WordForms
from .decay import SECONDS_PER_DAY, horizon_days, near_term, staleness
from .mentions import days_of
from .occurrences import Series, day_words, event_answer, field_asked
from .question import QuestionError, check_question  # noqa: F401 (importers name them here)
from .query_index import QueryIndex
from .relative_dates import resolve as resolve_relative
from .rank import Ranked, Ranker
from .router import PATTERNS, Route, Router, load_router, router_questions
from .scorers import Query, dense_trust
from .spelling import Speller
from ..textproc import LATIN_CAPITALS, LATIN_SMALL, fold, reuse_analyzer
from .timewindow import TimeWindow, find_window

_NAME = re.compile(rf"\b([{LATIN_CAPITALS}][{LATIN_SMALL}]+)(?:['’]s)?\b")
_QUESTION_WORD = re.compile(r"[^\W\d_]+")
IDK = "I don't know — nothing in your documents answers this"


log = logging.getLogger(__name__)

FRESH = "Recent information found"
POSSIBLY_OUTDATED = "Possibly outdated — check for newer updates"
STALE = "Stale information — verify with"    # ... whoever the source is: "the sender, …"
OLD_ENTITY = "Found only in an old document — verify it is still current"
HISTORICAL = "Historical record found"
STALE_MESSAGES = (POSSIBLY_OUTDATED, STALE, OLD_ENTITY)
# How far to trust an answer, in one word a page can colour: "fresh" (recent, current),
# "found" (a record: an entity's document, a historical receipt), "outdated" (possibly
# overtaken), "stale" (verify before relying on it), "unknown" (no answer).
LEVELS = ("fresh", "found", "outdated", "stale", "unknown")


_YEAR_ASKED = re.compile(r"\b(?:19|20)\d{2}\b")
_MIN_ORGANISATION_CHARS = 4     # a mail domain shorter than this spells no business name
_MAX_ORGANISATION_WORDS = 6     # a signature's business line, not a sentence that names it
_POSSESSIVE = re.compile(r"\b([^\W\d_]+)['’]s\b")


def is_stale_message(message: str) -> bool:
    return message.startswith(STALE_MESSAGES)


@dataclasses.dataclass(frozen=True)
class Conflict:
    answer: str
    source: str
    doc_type: str
    source_date: str | None
    title: str = ""
    attachment: str = ""


@dataclasses.dataclass(frozen=True)
class Source:
    source: str
    message_id: str
    title: str
    doc_type: str
    source_date: str | None
    date_source: str
    score: float
    scores: dict[str, float]
    snippet: str
    attachment: str
    doc_id: str
    age_days: float | None
    # [start, end) character spans of the snippet's words that match the question.
    highlights: list[list[int]] = dataclasses.field(default_factory=list)
    # False for a document shown only to fill the k sources: it is not about the question.
    on_topic: bool = True


@dataclasses.dataclass(frozen=True)
class AskResult:
    query: str
    now: str
    pattern: str
    pattern_scores: dict[str, float]
    answer: str | None
    confidence: float
    message: str
    conflicts: list[Conflict]
    halting: dict[str, Any]
    results: list[Source]
    recency: float = 0.0
    window: dict[str, str] | None = None
    cues: tuple[str, ...] = ()
    coverage: float = 0.0
    level: str = "unknown"          # one of LEVELS
    # What `answer` is: a kind of value ("amount", "time", "size"...) when it is that value
    # alone, "sentence" when it is the sentence(s) that answer, "unknown" with no answer.
    answer_kind: str = "unknown"
    # The sentence the answer came from, with its document (None with no answer).
    evidence: dict[str, Any] | None = None
    # A calendar answer's occurrences (answer_kind "occurrence" / "no_occurrence"): start,
    # end, status (confirmed, cancelled, moved), moved_from, location, title, source, all_day.
    occurrences: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # What the confidence was computed from (each in [0, 1]): coverage, margin, fresh,
    # kind_found, kind_missing, sentence_cover, route. Empty with no answer.
    signals: dict[str, float] = dataclasses.field(default_factory=dict)
    # Asked back (answer_kind "ambiguous"): the entities sharing the name, each with
    # `description` (what the documents say it is), `answer` (its best answer), `source`,
    # `title`, `doc_id`, `qualifier` and `question` (the question re-asked with it).
    candidates: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # Words of the question read as another word the documents use ({"sevice": "service"}):
    # a slip of the keys (query/spelling.py).
    read_as: dict[str, str] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["cues"] = list(self.cues)
        return out


class Asker:
    """Everything a question needs, loaded once: ask many questions in one process."""

    def __init__(self, index: QueryIndex, config: Config, router: Router | None = None):
        """`router`: one loaded from the store's cache (query_index.open_router); None fits
        the configured one here."""
        self.index = index
        self.config = config
        dense = index.dense
        # The index's embedder reads questions with the same settings: one analyzer to set up.
        self.analyzer = reuse_analyzer(dense.analyzer_ if dense is not None else None, config.text)
        self.router = router or load_router(config.router)
        # Calendar answers write the time the way the household's documents do.
        self._event_code = index.type_code("calendar_event")
        sample = list(self._sample_texts())
        # ... and how they write dates, for the calendar's answers and for a note that writes none.
        self._store_lean = sum(answers.day_first_lean(text) for text in sample)
        self._events = household_clock(config.events, sample, self._store_lean)
        # The calendar's occurrences, one reading for the answers and the time scorer.
        self._series = Series(index.docs, index.doc_epoch, self._events,
                              np.flatnonzero(index.doc_type == self._event_code).tolist())
        self.ranker = Ranker(index, config, self._series)
        # (Who a letter is written to: a letter to a group names everyone in it.)
        self._coverage = next((s for s in self.ranker.scorers if s.name == "coverage"), None)
        self._decay = next(s for s in self.ranker.scorers if s.name == "decay")
        self._extracts: dict[tuple[int, str | None], answers.Extract] = {}
        # A document's sentences and their words are the same for every question: read once
        # for many (the answer, its rivals and the sources of one question read a handful of
        # documents, and the next question mostly the same ones).
        memo = functools.lru_cache(maxsize=config.answer.memo_texts)
        self._lines_of = memo(lambda text: tuple(answers.speaker_lines(text, config.answer)))
        self._words_of = memo(lambda texts: tuple(tuple(t) for t in self.analyzer.tokens_many(texts)))
        self._sources: np.ndarray | None = None     # per chunk, its file (_chunk_sources)
        # Per document of this index, the days its text names (read once: the text is fixed).
        self._days_named: dict[int, list[tuple[str, date]]] = {}
        # Days are the household's: a document's day and today are read in the zone of the
        # question's `now` (a letter sent at 08:40 in Hamilton is of that day, not of the
        # day before in UTC).
        self._zone: tzinfo = UTC
        # A verb in the past tense, not after a modal ("we'll put"): a letter telling of
        # something done (_reports).
        router = config.router
        modals = "".join(rf"(?<!{re.escape(m)} )" if not m[0].isalpha() else rf"(?<!\b{re.escape(m)} )"
                         for m in config.answer.report_modals)
        self._done = re.compile(modals + r"\b(?!(?:%s)\b)(?:[a-z]+ed|%s)\b" % (
            "|".join(map(re.escape, router.not_past_verbs)) or "(?!)",
            "|".join(map(re.escape, router.past_verbs)) or "(?!)"))
        # Stemmed words that name a document type -> its type codes.
        codes = {name: i for i, name in enumerate(index.type_names)}
        hints: dict[str, list[int]] = {}
        for word, doc_type in config.scoring.type_hints.items():
            for stem in self.analyzer.tokens(word):
                if doc_type in codes:
                    hints.setdefault(stem, []).append(codes[doc_type])
        self._type_hints = {stem: np.asarray(c) for stem, c in hints.items()}
        self._named: set[str] = set()
        self._lent_words: frozenset[str] = frozenset()
        self._owed_asked = self._whole_asked = self._paid_asked = self._point_asked = False
        self._labels_asked: tuple[tuple[str, str], ...] = ()
        self._former_asked = self._first_asked = False
        self._naming_words: frozenset[str] = frozenset()
        self._rate: re.Pattern | None = None
        self._asked: frozenset[str] = frozenset()
        words = self.config.confidence.question_words
        self._question_words = set(self.analyzer.tokens(" ".join(words))) | set(words)
        self._weekday_words = set(self.analyzer.tokens(" ".join(calendar.day_name)))
        self._kind_words = {kind: set(self.analyzer.tokens(" ".join(ws))) | set(ws)
                            for kind, *ws in self.config.confidence.kind_words}
        # An owner before a relative ("Tom's mom", "Noah's grandma") is not who is asked about.
        kin = sorted({w for group in self.config.ambiguity.kinship for w in group}, key=len, reverse=True)
        self._kin_owner = re.compile(rf"\b([^\W\d_]+)['’]s\s+(?:{'|'.join(map(re.escape, kin))})\b", re.IGNORECASE)
        self._relation_words = set(self.analyzer.tokens(" ".join(self.config.answer.former_words)))
        self._compound_heads = frozenset(self.analyzer.words(" ".join(self.config.scoring.compound_heads)))
        # When each chunk's document was written (events: never "not yet"), per chunk.
        epoch = index.doc_epoch[index.chunk_doc]
        self._written_at = np.where(index.doc_type[index.chunk_doc] == self._event_code, -np.inf, epoch)
        self._ambiguity = AmbiguityFinder(index, config.ambiguity, self.analyzer, self._question_words)
        self._speller = Speller(self.analyzer, index.bm25.vocab_ if index.n_chunks else {},
                                index.bm25.idf_ if index.n_chunks else np.zeros(0),
                                lambda: [*words, *router_questions(config.router)], config.scoring.slip_min_letters,
                                config.scoring.slip_dictionary)
        self._store_form: str | None = None   # ... in numbers ("%d.%m.%Y"; "" in words: _written_as)
        self._asked_days: tuple[int, int] | None = None   # this question's (_days_asked)

    def ask(self, question: str, now: datetime, k: int | None = None,
            pattern: str | None = None) -> AskResult:
        if now.tzinfo is None:
            raise ValueError("ask needs a timezone-aware `now`")
        check_question(question, k, self.config.scoring.max_question_chars)
        k = k or self.config.scoring.default_k
        self._extracts = {}
        typed = question
        question, slips = self._speller.correct(question)
        question = self._ambiguity.mark_possessives(question)
        if now.tzinfo != self._zone:
            self._days_named = {}
        self._zone = now.tzinfo
        # Capitalised words of the question that may name a person ("Melanie's", "Caroline").
        self._named = {w.casefold() for w in _NAME.findall(question)}
        self._owed_asked = re.search(self.config.answer.owed_cue, question, re.IGNORECASE) is not None
        self._whole_asked = re.search(self.config.answer.whole_cue, question, re.IGNORECASE) is not None
        self._paid_asked = re.search(self.config.answer.paid_cue, question, re.IGNORECASE) is not None
        self._point_asked = re.search(self.config.answer.reference_point, question, re.IGNORECASE) is not None
        self._labels_asked = tuple((kind, label) for kind, cue, label in self.config.answer.asked_labels
                                   if re.search(cue, question, re.IGNORECASE))
        # Asked for the value before the current one ("the old code"), or the first of all.
        self._former_asked = re.search(self.config.answer.former_cue, question, re.IGNORECASE) is not None
        self._first_asked = re.search(self.config.answer.first_cue, question, re.IGNORECASE) is not None
        self._naming_words = frozenset(self.analyzer.tokens(question)) - self._question_words
        self._rate = answers.rate_asked(question, self.config.answer)
        route = self._anchored(self.router.route(question, now, pattern, self._proper(question, now)), question, now)
        if route.window is not None and route.window.anchor:
            # "Before we switched practices" bounds a window by the event's first mention:
            # the window says which value, and "switched" is what the letters about it say.
            self._former_asked = False
        log.debug("routed as %s (%s), window %s", route.pattern,
                  ", ".join(f"{p} {v:.2f}" for p, v in route.scores.items()), route.window)
        query = self._prepare(question, route, now)
        self._asked_days = self._days_asked(route)
        # What the household calls the question's words elsewhere ("U10 Green" for Mateo's soccer).
        self._lent_words = frozenset(query.topic.column_terms[p] for _, positions in query.topic.associates
                                     for p in positions)
        # Conflicts, supersession and the confidence margin look past the k shown.
        ranked, halting = self.ranker.rank(query, max(k, self.config.answer.evidence_pool))
        # The answer comes from documents about the question; the others still fill the k
        # sources, after them and marked off-topic, so the person (and recall) can find them.
        off_topic = [r for r in ranked if not r.on_topic]
        ranked = [r for r in ranked if r.on_topic] or off_topic
        term_weights = self._answer_terms(query)
        # A newer document that says the leading answer was replaced may match the question
        # too loosely to count as on topic: naming the old value makes it so.
        replacing = self._replacing(route, ranked, off_topic, query.kind, term_weights, query.now)
        if replacing is not None:
            ranked = [replacing] + [r for r in ranked if r is not replacing]
        else:
            ranked = self._supersede(question, route, ranked, query.kind, term_weights, query.now, off_topic)
        # The documents about something else fill the k places in the order they match the
        # question: a time weight says which of two documents about it is current, of
        # documents about something else nothing.
        shown = ranked + sorted((r for r in off_topic if r not in ranked), key=lambda r: -r.relevance)
        results = [self._source(r, term_weights) for r in shown[:k]]
        base = dict(query=typed, now=now.isoformat(), pattern=route.pattern, read_as=slips,
                    pattern_scores={p: round(float(route.scores[p]), 4) for p in PATTERNS},
                    halting={"stage": halting.stage, "reason": halting.reason}, results=results,
                    recency=round(route.recency, 4), cues=route.cues,
                    window=None if route.window is None else {
                        "start": route.window.start.isoformat(), "end": route.window.end.isoformat(),
                        "kind": route.window.kind, "text": route.window.text,
                        **({"anchor": route.window.anchor} if route.window.anchor else {})})
        # A time the question names (a holiday too) says when, not which one.
        when = set() if route.window is None else set(self.analyzer.tokens(route.window.text))
        ambiguity = self._ambiguity.find(question, query.hybrid_all, when, self._aside(question, self._question_words | when))
        if ambiguity is not None:
            return self._ask_back(question, ambiguity, query, term_weights, base)
        # The best coverage among the leading documents: the answer may sit in the second.
        top_cover = max((r.parts["coverage"] for r in ranked[:self.config.scoring.halt_top_k]),
                        default=0.0)
        cfg = self.config.confidence
        if not ranked or top_cover < cfg.min_coverage:
            return AskResult(answer=None, confidence=0.0, message=IDK, conflicts=[],
                             coverage=round(top_cover, 4), level="unknown", **base)

        kind = query.kind
        # A leading document neither written in nor mentioning the year asked about is about
        # some other time: "who serviced the boiler in 2021" is not answered by 2023's service.
        leading = ranked[:self.config.scoring.halt_top_k]
        if _YEAR_ASKED.search(question):
            # ... and the one that is may rank a little lower: look down the pool for it.
            leading = [r for r in ranked[:self.config.answer.evidence_pool] if self._qualified(r, query)
                       and r.parts["coverage"] >= cfg.min_coverage][:self.config.scoring.halt_top_k]
        if not leading:
            return AskResult(answer=None, confidence=0.0, message=IDK, conflicts=[],
                             coverage=round(top_cover, 4), level="unknown", **base)
        # The first of them whose words answer (in a transcript, one where the person asked
        # about says something about it). A calendar event the question does not name is
        # no answer, however it ranked.
        names = {query.topic.terms[j] for j in query.topic.name_terms}
        named = [r for r in leading if not self._unnamed_event(r.doc, route, term_weights, names)
                 and not self._lesser_event(r, leading, query.topic, route, question)] or leading
        lead = next((r for r in named if self._extract(r.doc, kind, term_weights).text), named[0])
        lead = self._calendar_first(question, route, kind, named, lead, now)
        lead = self._field_first(question, named, lead)
        if kind in self.config.answer.span_only_kinds and not self._extract(lead.doc, kind, term_weights).shown:
            # "How much did Nana's 70th come to": the calendar entry names it all but costs
            # nothing; the hotel's receipt just below it says what it came to.
            lead = next((r for r in leading if self._extract(r.doc, kind, term_weights).shown), lead)
        if lead is not ranked[0]:
            ranked = [lead] + [r for r in ranked if r is not lead]
        top = ranked[0]
        extract = self._extract(top.doc, kind, term_weights)
        if not extract.text:
            # The best document holds nothing said by or about the person asked about
            # (another speaker's words on the subject): nothing answers.
            return AskResult(answer=None, confidence=0.0, message=IDK, conflicts=[],
                             coverage=round(top_cover, 4), level="unknown", **base)
        by_issuer = kind in self.config.answer.issuer_kinds and self._answered_by_issuer(top.doc, question)
        issuer = self._issuer(top.doc) if by_issuer else ""
        if kind in self.config.answer.issuer_kinds and not issuer:
            # "Who is Ada's teacher": the letter signed by her teacher answers by who signed it.
            issuer = self._signer_in_role(top.doc, question)
        worker = self._worker(top.doc) if by_issuer else ""
        if worker and worker.casefold() not in issuer.casefold():
            issuer = f"{worker} ({issuer})" if issuer else worker
        if issuer:
            text = extract.text if issuer.casefold() in extract.text.casefold() else f"{issuer} — {extract.text}"
            extract = dataclasses.replace(extract, text=text, value=answers.normalise_value(issuer), shown=issuer)
        if kind in self.config.answer.difference_kinds:
            extract = self._beyond_the_quote(question, top, ranked, query.now) or extract
        relative = None
        if kind in self.config.answer.dated_kinds and not np.isnan(self.index.doc_epoch[top.doc]):
            written = datetime.fromisoformat(str(self.index.docs[top.doc].get("source_date"))).astimezone(now.tzinfo)
            past = route.pattern in self.config.answer.past_patterns
            if past and extract.value is not None and self._ahead(extract.shown, written, now):
                # "When was the car last serviced": the invoice's "next service due 18
                # September 2026" answers no question about the past; its own date does.
                extract = dataclasses.replace(extract, value=None, shown=None)
            if extract.value is None:
                # "I went to the support group yesterday", written on 8 May: 7 May.
                relative = resolve_relative(extract.text, written)
                if past and relative is not None and relative.start > now.date():
                    relative = None
            if relative is not None:
                # A day as the household writes its days ("went in yesterday", in a store
                # of "09.01.2026": 09.01.2026); a week or a month in words.
                one_day = relative.end - relative.start == timedelta(days=1)
                shown = self._written_as(top.doc, relative.start) if one_day else relative.words(self.config.events)
                extract = dataclasses.replace(extract, value=relative.start.isoformat(), shown=shown)
            elif extract.value is None and past:
                # No date in the words: the document's own date is the answer to "when" (it
                # happened then; "when is the market" is no question of when we read of it), as
                # it prints it ("Date: 16/09/2025" on a receipt, which may differ from the
                # file's own date), else as its metadata has it.
                printed = self._printed_date(top.doc, now.date())
                day, shown = printed or (written.date(), self._written_as(top.doc, written.date()))
                extract = dataclasses.replace(extract, text=f"{extract.text} ({shown})".strip(),
                                              value=day.isoformat(), shown=shown)
            elif extract.shown and (year := answers.year_of(
                    extract.shown, written.date(), self.config.answer.undated_year_lookback_days)) is not None:
                # "Fri 18 - Mon 21 August", written in June 2023: the year is the letter's.
                # (A month written with its abbreviation's dot, "5 Dec.", keeps no dot before the year.)
                full = f"{extract.shown.rstrip('.')} {year}"
                extract = dataclasses.replace(extract, text=f"{extract.text} ({full})", shown=full)
        event = self._event_answer(question, route, kind, top, now, term_weights, names)
        conflicts = self._conflicts(ranked, extract, kind, term_weights)
        if event is not None:
            # The series' own dates are one plan, not rival values: only other documents conflict.
            series = {str(self.index.docs[row].get("source", "")) for row in self._series.rows(top.doc)}
            conflicts = [c for c in conflicts if c.source not in series]
        message, staleness = self._message(route, top, query.now, kind, extract.text)
        level = _level(message, staleness)
        if conflicts:
            message = f"{message}. {_conflict_summary(conflicts)}"
        # After supersession the first document need not score highest: the margin is the
        # lead of the best score over the next, never negative.
        scores = sorted((r.score for r in ranked), reverse=True)
        margin = (scores[0] - scores[1]) / scores[0] if len(scores) > 1 and scores[0] > 0 else 1.0
        # "Who do I call about the hotel rooms?" wants the person beside the number: the line.
        value_answer = ((kind in self.config.answer.value_answers or relative is not None) and bool(extract.shown)
                        and not answers.compiled_regex(self.config.answer.sentence_head).search(question))
        meta = self.index.docs[top.doc]
        evidence = {"text": extract.text, "source": str(meta.get("source", "")),
                    "title": str(meta.get("title", "")), "doc_type": str(meta.get("doc_type", "")),
                    "source_date": meta.get("source_date") or None,
                    "attachment": str(meta.get("attachment", "")), "doc_id": str(meta.get("doc_id", ""))}
        signals = {
            "coverage": top_cover,                                   # of the question's words
            "margin": min(1.0, margin / cfg.margin_scale),           # lead over the next document
            "fresh": 1.0 - staleness,
            "kind_found": float(kind is not None and (extract.value is not None or event is not None)),
            "kind_missing": float(kind is not None and extract.value is None and event is None),
            "sentence_cover": self._sentence_cover(extract.text, term_weights),
            "route": max(route.scores.values()),                     # how sure the routing is
        }
        confidence = round(self._confidence(signals), 4)
        signals = {k: round(v, 4) for k, v in signals.items()}
        if event is not None:
            # The event's own description may say more than its fields ("doors open 6:00 pm").
            # (An event's lines are stored joined by "; ".)
            said = _note_lines(re.split(r";\s+", extract.text), str(meta.get("title", "")))
            timed = event.kind in ("occurrence", "no_occurrence")
            text = f"{event.text} — {'; '.join(said)}" if said and timed else event.text
            return AskResult(answer=text, confidence=confidence, message=message, signals=signals,
                             conflicts=conflicts, coverage=round(top_cover, 4), level=level,
                             answer_kind=event.kind, evidence=evidence,
                             occurrences=[o.to_dict() for o in event.occurrences], **base)
        return AskResult(answer=(extract.shown if value_answer else extract.text) or None,
                         confidence=confidence, signals=signals,
                         message=message, conflicts=conflicts, coverage=round(top_cover, 4),
                         level=level, answer_kind=kind if value_answer else "sentence",
                         evidence=evidence if extract.text else None, **base)

    def _answered_by_issuer(self, doc: int, question: str) -> bool:
        """A bill answers "who" by whoever issued it; asked who did a job ("who did we use
        for the gutters", `issuer_cue`), so does any letter from a business."""
        billed = str(self.index.docs[doc].get("doc_type", "")) in self.config.answer.issuer_types
        return billed or answers.compiled_regex(self.config.answer.issuer_cue).search(question) is not None

    def _signer_in_role(self, doc: int, question: str) -> str:
        """The sender of a letter the documents describe in the role the question asks who
        holds ("who is Ada's teacher": the welcome letter signed "Ms. Alvarez, 5th grade"),
        else ""."""
        words = [name_key(w) for w in self._ambiguity.extractor.word_re.findall(question)]
        roles = {tag for tag in self._ambiguity.vocabulary_said(words) if tag.startswith("roles:")}
        sender = display_name(str(self.index.docs[doc].get("from") or ""))
        if not roles or not sender:
            return ""
        entities = self.index.entities
        for word in sender.split():
            records = (entities.record(int(r)) for r in entities.record_rows(name_key(word)))
            if any(at == doc and roles & set(descriptors) for at, descriptors in records):
                return sender
        return ""

    def _issuer(self, doc: int) -> str:
        """Who issued a document: a bill's vendor, or the business that mailed it (not a
        person writing from a mailbox anyone can have): the line of its signature that
        spells its mail domain ("ClearFlow Gutters" from sean@clearflow-gutters.example),
        else its sender's name."""
        meta = self.index.docs[doc]
        vendor = str(meta.get("invoice_vendor") or "").strip()
        if vendor:
            return vendor
        sender = str(meta.get("from") or "")
        domain = self._issuer_domain(doc)
        if not domain:
            return ""
        label = re.sub(r"[^a-z0-9]", "", domain.split(".")[0].casefold())
        if len(label) >= _MIN_ORGANISATION_CHARS:
            for line in self._doc_text(doc, with_title=False).splitlines():
                letters = re.sub(r"[^a-z0-9]", "", fold(line).casefold())
                if letters.startswith(label) and len(line.split()) <= _MAX_ORGANISATION_WORDS:
                    return line.strip()
        return display_name(sender)

    def _worker(self, doc: int) -> str:
        """The person a bill names as doing the job, under a label ("Technician: Basheer
        Ahmed", "Work carried out by: Tadhg Lynch"), or ""."""
        found = answers.compiled_regex(self.config.answer.worker_label).search(self._doc_text(doc, with_title=False))
        return found.group("name").strip() if found else ""

    def _ask_back(self, question: str, ambiguity: Ambiguity, query: Query,
                  term_weights: dict[str, float], base: dict[str, Any]) -> AskResult:
        """The name is shared and the question does not say which: each entity with its
        best answer, and the question back."""
        cfg = self.config.ambiguity
        candidates = []
        for entity in ambiguity.entities[:cfg.max_candidates]:
            doc = entity.docs[0]
            meta = self.index.docs[doc]
            extract = self._extract(doc, query.kind, term_weights)
            word = qualifier(entity)
            candidates.append({
                "description": describe(entity, self.index, cfg.description_words),
                "answer": (extract.shown or extract.text) or None,
                "source": str(meta.get("source", "")), "title": str(meta.get("title", "")),
                "doc_type": str(meta.get("doc_type", "")), "source_date": meta.get("source_date") or None,
                "doc_id": str(meta.get("doc_id", "")), "qualifier": word,
                "question": qualified_question(question, ambiguity.name, word)})
        message = cfg.message.format(name=ambiguity.name)
        answer = message + " " + "; ".join(
            f"{ambiguity.name} ({c['description']}): {c['answer'] or c['title']}" for c in candidates)
        coverage = max(e.coverage for e in ambiguity.entities)
        return AskResult(answer=answer, confidence=round(cfg.confidence_cap, 4), message=message,
                         conflicts=[], coverage=round(coverage, 4), level="unknown",
                         answer_kind="ambiguous", candidates=candidates, **base)

    def _confidence(self, signals: dict[str, float]) -> float:
        """The probability that the answer is right: a logistic model of the signals fitted
        on the development sets (benchmarks/calibrate.py); without one, the product of
        coverage, margin and freshness mapped through the isotonic breakpoints."""
        cfg = self.config.confidence
        if cfg.signal_weights:
            z = cfg.signal_intercept + sum(w * signals[name] for name, w in cfg.signal_weights.items())
            return float(1.0 / (1.0 + np.exp(-z)))
        raw = (signals["coverage"] * (0.5 + 0.5 * signals["margin"])
               * (1.0 - cfg.freshness_weight * (1.0 - signals["fresh"])))
        return float(np.interp(raw, cfg.calibration_raw, cfg.calibration_right)) if cfg.calibration_raw else raw

    def _sentence_cover(self, text: str, term_weights: dict[str, float]) -> float:
        """The IDF-weighted share of the question's words the answer's own sentence holds."""
        weights = self._idf_weighted(term_weights)
        total = sum(weights.values())
        if not text or total <= 0:
            return 0.0
        held = set(self.analyzer.tokens(text))
        return sum(w for t, w in weights.items() if t in held) / total

    def _event_answer(self, question: str, route: Route, kind: str | None, top: Ranked,
                      now: datetime, term_weights: dict[str, float], names: set[str]):
        """A calendar event at the top answers "when" and "is there" from its occurrences,
        "where" and "who" from its fields; anything else from its text. Only an event the
        question names (`_unnamed_event`): "is Friday a half day for the kids" is not
        answered "No — no Grosi-Mittwoch on Friday", nor the mother-in-law's landing on the
        18th by the U9 training cancelled that day."""
        if (int(self.index.doc_type[top.doc]) != self._event_code
                or self._unnamed_event(top.doc, route, term_weights, names)):
            return None
        cfg = self._events
        if route.window is None and not self._asks_of_event(question, kind):
            return None
        window = None if route.window is None else (route.window.start.date(), route.window.end.date())
        past = route.pattern == "historical" or re.search(cfg.past, question, re.IGNORECASE) is not None
        return event_answer(self._series, top.doc, question, window, now, past, cfg)

    def _asks_of_event(self, question: str, kind: str | None) -> bool:
        """Does the question ask when, whether, or a field (where, who) of an event? A short
        question with no question word asks whether only when it asks no value of another
        kind: "ticket number for our tyres at Opony Oliwa?" asks for the number."""
        cfg = self._events
        return (kind in cfg.kinds or field_asked(question, cfg) is not None
                or ((kind is None or kind in cfg.kinds) and re.search(cfg.yes_no, question, re.IGNORECASE) is not None))

    def _calendar_first(self, question: str, route: Route, kind: str | None, leading: list[Ranked], lead: Ranked,
                        now: datetime) -> Ranked:
        """Asked when or whether something is on in a day or a few days, an event the
        question names with an occurrence then answers before a letter that only repeats its
        plan (the carpool letter's "Tuesday practices 5:30-6:45"): the calendar holds the
        occurrence, moved or cancelled ones too. A letter that changes the plan keeps the lead."""
        window = route.window
        if (route.pattern != "logistical" or int(self.index.doc_type[lead.doc]) == self._event_code
                or not near_term(window, self.config) or not self._asks_of_event(question, kind)):
            return lead
        first, stop = window.start.date(), window.end.date() + timedelta(days=1)
        # (`leading` holds only events the question names: `_unnamed_event`, `_lesser_event`.)
        for r in leading:
            if (int(self.index.doc_type[r.doc]) == self._event_code
                    and self._series.occurrences(r.doc, first, stop, now.tzinfo)
                    and self._decay.repeats_plan(lead.chunk, r.doc, now.timestamp())):
                return r
        return lead

    def _field_first(self, question: str, leading: list[Ranked], lead: Ranked) -> Ranked:
        """Asked who runs an event (coaches, teaches, organises it), an event the question
        names that says answers before a letter, which at best names someone near the
        words ("Who coaches Mateo's soccer team?": the team feed's organiser, not "Sloan's
        Lake Field" from the carpool letter)."""
        field = field_asked(question, self._events)
        if field != "organizer" or int(self.index.doc_type[lead.doc]) == self._event_code:
            return lead
        # (`leading` holds only events the question names: `_unnamed_event`, `_lesser_event`.)
        return next((r for r in leading if int(self.index.doc_type[r.doc]) == self._event_code
                     and str(self.index.docs[r.doc].get(field) or "")), lead)

    def _lesser_event(self, ranked: Ranked, leading: list[Ranked], topic: TopicTerms, route: Route,
                      question: str) -> bool:
        """Asked what is on (not what was: past its day an entry is the record of it), a
        calendar event naming much less of the question than a leading letter does
        (`rival.coverage_share`): "Diya - Bharatanatyam" on Friday is no answer to "what
        time is Diya's Kumon class", which the old Kumon letter names whole. Weekdays and
        the days the question names ("for Christmas") are left out: an event names its
        days by taking place on them."""
        if (int(self.index.doc_type[ranked.doc]) != self._event_code or not topic.terms
                or route.pattern == "historical" or re.search(self._events.past, question, re.IGNORECASE)):
            return False
        letters = [r.chunk for r in leading if int(self.index.doc_type[r.doc]) != self._event_code]
        if not letters:
            return False
        days = np.array([t in self._weekday_words for t in topic.terms], dtype=bool)
        days[list(topic.window_terms)] = True
        weights = np.where(days, 0.0, topic.weights)
        if weights.sum() <= 0:
            return False
        named = topic.cover_and_words(self.index.bm25, np.array([ranked.chunk, *letters], dtype=np.int64))[1]
        cover = named.astype(np.float64) @ weights
        return bool(cover[0] < self.config.time.rival.coverage_share * cover[1:].max())

    def _unnamed_event(self, doc: int, route: Route, term_weights: dict[str, float],
                       names: set[str] = frozenset()) -> bool:
        """A calendar event the question names by no word of its name (`_event_parts`) nor
        by one the household's writing lends a word of it (a team's feed "U10 Green" for
        "Mateo's soccer"), though it names something beyond its day: the event answers
        nothing of it."""
        if int(self.index.doc_type[doc]) != self._event_code:
            return False
        weekdays = self._window_words(route.window, self.analyzer.tokens) & self._weekday_words
        topic = {t for t in term_weights if t not in self._question_words and t not in weekdays}
        name, note_lines = self._event_parts(doc)
        if not topic or (topic | self._lent_words) & set(self.analyzer.tokens(name)):
            return False
        # ... nor by the first sentence of its note, which says what an event in another
        # language or a short code is ("Auswärtsspiel" / "Away game. Meeting point 13:15"),
        # when it holds the rarest word the question asks of the people it names, another
        # one, and at least `note_name_share` of them all: a word in passing does not ("Gran
        # has the kids from 12.00" for "is Friday a half day for the kids"), nor the person alone (Liam's holiday cabin is no futsal), nor a later sentence ("No class in
        # mid-term week" is no mid-term). (The question's own words: "collection" is not
        # outweighed by the synonyms it was widened with.)
        about = (topic & self._naming_words) - names
        total = sum(term_weights[t] for t in about)
        if total <= 0:
            return True
        sentences = answers.split_with_speakers("\n".join(note_lines))
        note = set(self.analyzer.tokens(sentences[0][0])) if sentences else set()
        rarest = max(sorted(about), key=lambda t: term_weights[t])
        held = about & note
        # (Two of them: "The school needs the hall on Thursday" in the training's note is no
        # answer to "when does school start again".)
        return (rarest not in held or len(held) < self._events.note_name_words
                or sum(term_weights[t] for t in held) < self._events.note_name_share * total)

    def _event_parts(self, doc: int) -> tuple[str, list[str]]:
        """What names an event, its title and fields (calendar, place, organiser), and its
        note's lines, read from its text once ("Grosi has the kids from 12.00" is note, and
        names no half day)."""
        title = str(self.index.docs[doc].get("title", ""))
        lines = self._doc_text(doc).split("\n")
        note = _note_lines(lines, title)
        kept = set(note)
        return "\n".join([title, *(line for line in lines if line not in kept)]), note

    # ---- the question ---------------------------------------------------------------
    def _anchored(self, route: Route, question: str, now: datetime) -> Route:
        """A historical question that names no date but an event ("before we moved") gets
        the window the event bounds."""
        if route.window is not None or route.pattern != "historical":
            return route
        anchor = find_anchor(question)
        if anchor is None:
            return route
        window = anchored_window(anchor, question, now, self.index, self.analyzer,
                                 self._question_words, self.config.time.period.anchor_match_share)
        return route if window is None else dataclasses.replace(route, window=window)

    def _prepare(self, question: str, route: Route, now: datetime) -> Query:
        index, scoring = self.index, self.config.scoring
        terms = self._weighted_terms(question)
        forms = WordForms(scoring.coverage_word_prefixes, scoring.coverage_word_suffixes,
                          scoring.coverage_word_min_stem, scoring.coverage_word_compound_min)
        # A word the store has only in compounds ("Kaminfegermeister") is searched as one.
        vocabulary = index.bm25.vocab_ if index.n_chunks else {}
        terms += [(c, w) for t, w in terms if t not in vocabulary
                  and (c := forms.compound(t, lambda: index.bm25.ordered_vocab)) is not None]
        bm25_all = index.bm25.scores(terms) if index.n_chunks else np.zeros(0)
        if index.dense is not None and index.n_chunks:
            # float32 like the matrix: a float64 vector would copy the whole matrix to float64.
            qvec = np.asarray(index.dense.transform_query(question, terms), dtype=np.float32)
            cosine_all = index.embeddings @ qvec
            # A model fitted on a few chunks is believed only in part (scorers.dense_trust).
            cosine_all *= dense_trust(index.dense.n_fit_, scoring.dense_min_chunks, scoring.dense_full_chunks)
        else:
            cosine_all = np.zeros(index.n_chunks, dtype=np.float32)
        top_bm25 = float(bm25_all.max()) if bm25_all.size else 0.0
        bm25_norm = bm25_all / top_bm25 if top_bm25 > 0 else np.zeros_like(bm25_all)
        hybrid = scoring.alpha * bm25_norm + scoring.beta * 0.5 * (1.0 + cosine_all)
        # A document written after `now` did not exist yet (a pinned --now in the past);
        # calendar events are about the future by nature and stay.
        not_yet = self._written_at > now.timestamp() + scoring.future_tolerance_days * 86400.0
        hybrid[not_yet] = -np.inf
        window_words = self._window_words(route.window, self.analyzer.words)
        subject = set() if route.window is None else set(self.analyzer.tokens(route.window.subject))
        aside = self._aside(question, self._question_words | window_words)
        # A name said in passing ("Nana Jude is popping over - what does she punch into the
        # keypad") is not who the question is about.
        names = self._asked_names(question, window_words | subject) - aside
        self._asked = frozenset(names)
        prior = dict(prior_chunks=scoring.coverage_prior_chunks,
                     prior_df_share=scoring.coverage_prior_df_share,
                     names=names, name_share=scoring.coverage_name_share,
                     name_max_df_share=scoring.coverage_name_max_df_share,
                     forms=forms)
        kind = answers.expected_kind(question, self.config.answer)
        # The words that name the kind of value asked for ("the dentist's phone number"): the
        # value itself is the evidence (answer_type), a letter need not say "phone".
        asked_kind = self._kind_words.get(kind, set())
        # Asked for the value before the current one, or the first: "old", "changed" say
        # which value, not what about (the old note never called itself old).
        before = self._relation_words if self._former_asked or self._first_asked else set()
        topic = TopicTerms.of(question, self.analyzer, index.bm25,
                              self._question_words | window_words | asked_kind | before, self._type_hints, subject,
                              aside=aside, aside_weight=scoring.aside_weight,
                              compound_heads=self._compound_heads, **prior)
        if not topic.terms and window_words:
            # "where are we doing thanksgiving": the window is all the question is about.
            topic = TopicTerms.of(question, self.analyzer, index.bm25, self._question_words,
                                  self._type_hints, **prior)
        topic = self._with_associates(topic, question, bm25_all)
        return Query(text=question, route=route, now=now.timestamp(), terms=terms,
                     bm25_all=bm25_all, cosine_all=np.asarray(cosine_all, dtype=np.float64),
                     hybrid_all=hybrid, topic=topic, kind=kind)

    def _with_associates(self, topic: TopicTerms, question: str, bm25_all: np.ndarray) -> TopicTerms:
        """The topic, its words standing in where the best BM25 chunks' short clauses say
        what else the household calls them (associates.py)."""
        scoring = self.config.scoring
        if scoring.associate_credit <= 0 or not topic.terms or not bm25_all.size:
            return topic
        n = min(scoring.associate_sources, bm25_all.size)
        best = np.argpartition(-bm25_all, n - 1)[:n]
        best = best[bm25_all[best] > 0]
        texts = [self.index.chunk_texts[int(row)] for row in best]
        share = self.config.ambiguity.capitalised_share
        names = {stem for word in _QUESTION_WORD.findall(question)
                 if self.index.entities.written_as_name(word, share) for stem in self.analyzer.tokens(word)}
        lent = clause_associates(topic, texts, self.analyzer, self.index.bm25,
                                 scoring.associate_clause_max_terms, scoring.associate_max_df_share,
                                 scoring.associate_max_df_floor, names,
                                 lambda word: self.index.entities.is_name(word, False, share),
                                 self._chunk_sources())
        return topic.with_associates(lent, scoring.associate_credit)

    def _chunk_sources(self) -> np.ndarray:
        """Per chunk row, a number for the file its document came from (the events of one
        calendar feed share theirs; the messages of an mbox each have their own)."""
        if self._sources is None:
            self._sources = self.index.doc_source[self.index.chunk_doc]
        return self._sources

    def _last_break(self, question: str) -> re.Match | None:
        """The last break (" - ", ", ", "; ", ". ") a question word opens: what comes before
        it may be said in passing (`aside_break`)."""
        match = None
        for match in answers.compiled_regex(self.config.scoring.aside_break).finditer(question):
            pass
        return match

    def _proper(self, question: str, now: datetime) -> str | None:
        """The question proper when words in passing come before it (the clause after the
        last break a question word opens: see `_aside`), else None. A clause that only says
        when ("Last November, which Friday was...") is no aside: it is the question's time."""
        match = self._last_break(question)
        if match is None:
            return None
        before = question[:match.start()]
        said = find_window(before, now)
        when = set(self.analyzer.tokens(said.text)) if said is not None else set()
        return question[match.end():] if set(self.analyzer.tokens(before)) - self._question_words - when else None

    def _aside(self, question: str, ignore: set[str]) -> set[str]:
        """The words said only around the question proper: the clause before the last
        break (" - ", ", ", "; ", ". ") that a question word opens, when the question proper
        names at least `aside_min_focus_terms` topic words of its own (in "I need to ring
        Lakeside Dental, which number do I use" the business is the subject, not an aside)."""
        scoring = self.config.scoring
        # ... and after it: a statement after the question mark that names no one ("When
        # is Khumalo next week? I need to plan my work days around it") says why it is
        # asked, not what ("... which number? I need to ring Lakeside Dental" says what).
        tail = answers.compiled_regex(scoring.aside_tail).search(question)
        after: set[str] = set()
        # (A weekday or a month capitalised there names no one: "I think it's a Wednesday".)
        if tail is not None and not any(capitalised for _, capitalised in self._ambiguity.names(
                tail.group(0).strip().partition(" ")[2], set())):
            question, after = question[:tail.start()], set(self.analyzer.tokens(tail.group(0))) - ignore
        match = self._last_break(question)
        if match is not None:
            before = set(self.analyzer.tokens(question[:match.start()])) - ignore
            focus = set(self.analyzer.tokens(question[match.end():])) - ignore
            if len(focus) >= scoring.aside_min_focus_terms:
                return (before | after) - focus
        return after - set(self.analyzer.tokens(question))

    def _qualified(self, ranked: Ranked, query: Query) -> bool:
        """Was the document written in (for an event: does it take place in), or does it
        mention, every year the question names? (A person's name is no such test: a team's
        or a school's letter names no child.)"""
        index = self.index
        rows = index.doc_rows(ranked.doc)
        years = {str(index.docs[ranked.doc].get("source_date") or "")[:4]}
        occurrences, _ = index.occurrence_slices(np.array([ranked.doc]))
        if occurrences.size:
            starts = index.occ_start[occurrences].astype("datetime64[s]").astype("datetime64[Y]")
            years |= {str(y) for y in np.unique(starts)}
        due = answers.compiled_regex(self.config.answer.due_cue)
        for year in _YEAR_ASKED.findall(query.text):
            if year in years:
                continue
            column = index.bm25.vocab_.get(year)
            if column is None or not index.bm25.weights_[rows, column].nnz:
                return False
            if (query.route.pattern in self.config.answer.past_patterns and not due.search(query.text)
                    and self._only_due_in(ranked.doc, year, due)):
                # "Next service recommended September 2024" in 2023's service letter: that
                # year is when the next one was due (which a question may ask), not when
                # anything happened.
                return False
        return True

    def _only_due_in(self, doc: int, year: str, due: re.Pattern) -> bool:
        """Does every line of the document that names `year` name it as when something is due?"""
        lines = [line for line in self._doc_text(doc).splitlines() if re.search(rf"\b{year}\b", line)]
        return bool(lines) and all(due.search(line) for line in lines)

    def _asked_names(self, question: str, when: set[str]) -> set[str]:
        """The stemmed names the question asks about: written capitalised mid-question, or
        an owner ("ada's dentist"). A lower-case word the documents happen to capitalise
        ("kids", from "Kids Club") is not one."""
        owners = {name_key(w) for w in _POSSESSIVE.findall(question)}
        relatives = {name_key(w) for w in self._kin_owner.findall(question)}
        return {t for word, capitalised in self._ambiguity.names(question, when)
                if (capitalised or name_key(word) in owners) and name_key(word) not in relatives
                for t in self.analyzer.tokens(word)}

    def _weighted_terms(self, question: str) -> list[tuple[str, float]]:
        """The analyzer's query terms, with the owner of a possessive ("ada's") weighted up."""
        # ("Tom's mom": the question is about his mother, not about Tom.)
        kin = set(self._kin_owner.findall(question))
        owners = set(self.analyzer.tokens(" ".join(w for w in _POSSESSIVE.findall(question) if w not in kin)))
        boost = self.config.scoring.possessive_weight
        return [(t, w * boost if t in owners else w) for t, w in self.analyzer.query_terms(question)]

    def _supersede(self, question: str, route: Route, ranked: list[Ranked], kind: str | None,
                   term_weights: dict[str, float], now: float, off_topic: list[Ranked] = ()) -> list[Ranked]:
        """Latest wins for a current value: when the leading documents of an entity question
        state different values of the kind asked for (34.5 lb in 2026, 33.2 lb in 2025),
        the newest of them goes first. So for any question asking for the last time
        something happened ("what did the last boiler service cost"), among documents
        written by now. Only documents that hold such a value, cover the question and score
        within `supersede_share` of the best of them compete. `off_topic`: the candidates
        too far below the best to be about the question, where the value before the current
        one may be (the old note never says "old")."""
        cfg = self.config
        if not ranked:
            return ranked
        # (A date asked for goes by the day named, not the document's: _last_time.)
        latest = re.search(cfg.answer.latest_cue, question, re.IGNORECASE) is not None
        # ("When did the furnace LAST get its tune-up" asks for the latest of them: below.)
        record = re.search(cfg.answer.record_cue, question, re.IGNORECASE) is not None
        if route.pattern in cfg.answer.past_patterns and not latest and (record or (
                kind in cfg.answer.dated_kinds and re.search(cfg.answer.transaction_cue, question, re.IGNORECASE))):
            return self._transaction(ranked, now)
        proposal = answers.compiled_regex(cfg.answer.proposal_cue)
        if proposal.search(question) and not record:
            # "What did they quote us": the quote, not the invoice that followed it (which
            # counts more as a record of what was paid).
            quote = next((r for r in ranked[:cfg.scoring.halt_top_k]
                          if r.score >= cfg.answer.supersede_share * ranked[0].score
                          and proposal.search(str(self.index.docs[r.doc].get("title", "")))), None)
            if quote is not None and quote is not ranked[0]:
                return [quote] + [r for r in ranked if r is not quote]
        if (self._former_asked or self._first_asked) and not latest:
            if kind not in cfg.answer.value_kinds:
                return ranked
            # A candidate too far below the best to be about the question joins when the
            # line holding its value names the question's subject ("Garage door keypad:
            # 5521" in the house note that never says "old").
            floor = cfg.answer.former_line_cover
            named = [r for r in off_topic if r not in ranked and self._sentence_cover(
                self._extract(r.doc, kind, term_weights).text, term_weights) >= floor]
            pool = ranked + named
            chosen = (self._first if self._first_asked else self._former)(pool, kind, term_weights, now)
            return [chosen] + [r for r in ranked if r is not chosen] if chosen is not ranked[0] else ranked
        if latest and kind not in cfg.answer.value_kinds and len(ranked) > 1 and route.window is None:
            # "What was wrong with Bramble the last time she was at the vets": the newest
            # record among the leading documents about it, whatever it states.
            return self._latest_record(ranked, now)
        if ((route.pattern not in cfg.answer.supersede_patterns and not latest)
                or kind not in cfg.answer.value_kinds or len(ranked) < 2 or route.window is not None):
            # (A question that names its time, "the July bill", asks for that time's value.)
            return ranked
        if latest and kind in cfg.answer.dated_kinds:
            return self._last_time(ranked, kind, term_weights, now)
        # "The last service" has happened: an appointment still ahead is not it, nor a
        # booking written before now for a day after it ("booked in for 21 October; price
        # this year is €150"). Both stay among the sources, after.
        if latest:
            today = self._today(now)
            pool = [r for r in ranked if _epoch(self.index, r.doc) <= now and not self._plan(r.doc, today)]
        else:
            pool = ranked
        if not pool:
            return ranked
        lead = pool[0]
        eligible = self._competing(lead, pool, by_issuer=True)
        values = {}
        for r in eligible:
            value = self._extract(r.doc, kind, term_weights).value
            if value is not None:
                values[r.doc] = value
        if not values or np.isnan(self.index.doc_epoch[lead.doc]):
            # An undated lead cannot be shown to be older than anything.
            return ranked
        newest = max((r for r in eligible if r.doc in values), key=lambda r: _epoch(self.index, r.doc))
        current = values.get(lead.doc)
        if lead is ranked[0] and (newest is lead or (
                current is not None and answers.same_value(current, values[newest.doc], kind))):
            return ranked   # the top document already states the latest value
        return [newest] + [r for r in ranked if r is not newest]

    def _latest_record(self, ranked: list[Ranked], now: float) -> list[Ranked]:
        """The last time something happened, asked for no value of a kind that supersedes
        (a reason, a name, a sentence): of the documents that may record it (`_done_by`),
        the newest goes first."""
        done = self._done_by(ranked, now)
        if not done:
            return ranked
        newest = max(done, key=lambda r: _epoch(self.index, r.doc))
        return [newest] + [r for r in ranked if r is not newest]

    def _done_by(self, ranked: list[Ranked], now: float) -> list[Ranked]:
        """The leading documents that may record something done by `now`: those competing
        (`_competing`) with the best of the evidence pool that is no plan, themselves no
        plan (a quote, a reminder, a booking ahead records nothing), no calendar entry (its
        last time is read from its occurrences), dated and written by then."""
        today = self._today(now)
        pool = ranked[:self.config.answer.evidence_pool]
        plans = {r.doc for r in pool if self._plan(r.doc, today)}
        lead = next((r for r in pool if r.doc not in plans), None)
        if lead is None:
            return []
        return [r for r in self._competing(lead, pool) if r.doc not in plans and self._written(r.doc) is not None
                and _epoch(self.index, r.doc) <= now and self.index.doc_type[r.doc] != self._event_code]

    def _transaction(self, ranked: list[Ranked], now: float) -> list[Ranked]:
        """"When did we replace the water heater": the invoice or receipt of it is the
        transaction's own record; the appointment confirmed for it beforehand is a plan
        (issue 10). The best-ranked record about the question scoring within supersede_share
        of the lead goes first. (Its coverage is not asked to match the lead's: the invoice
        says "install" where the question says "replace".) A quote or a reminder records
        nothing: the lead is the best document that is no plan. When a plan leads, it says
        which job is asked about: of the records within supersede_share of it, the one whose
        text is most like the plan's is its record (the roofer's invoice after the roofer's
        quote, not the plumber's invoice that also names a ROT deduction; a reminder of the
        next service that merely scores near the top says nothing of the installation)."""
        if not ranked:
            return ranked
        cfg = self.config.answer
        today = self._today(now)
        pool = [r for r in ranked[:cfg.evidence_pool] if not self._plan(r.doc, today)]
        if not pool:
            return ranked
        lead = pool[0]
        records = [r for r in pool if self.index.docs[r.doc].get("doc_type") in cfg.record_types
                   and r.score >= cfg.supersede_share * lead.score]
        if records and ranked[0] is not lead:
            first = self._most_like(records, ranked[0].doc)
        else:
            first = records[0] if records else lead
        return ranked if first is ranked[0] else [first] + [r for r in ranked if r is not first]

    def _beyond_the_quote(self, question: str, top: Ranked, ranked: list[Ranked], now: float) -> answers.Extract | None:
        """"Why was the bill more than the quote": the lines of the bill its quote did not
        have, when the question names a quote and the best document is the bill. The quote
        is the leading plan most like the bill (the roofer's, not the plumber's)."""
        cfg = self.config.answer
        if (not answers.compiled_regex(cfg.proposal_cue).search(question)
                or self.index.docs[top.doc].get("doc_type") not in cfg.record_types):
            return None
        today = self._today(now)
        plans = [r for r in ranked[:cfg.evidence_pool] if r is not top and self._plan(r.doc, today)]
        if not plans:
            return None
        quote = self._most_like(plans, top.doc)
        added = answers.added_lines(self._doc_text(top.doc), self._doc_text(quote.doc), self._tokens_many,
                                    answers.span_patterns(cfg)["amount"], cfg.quoted_line_share,
                                    cfg.added_lines_max)
        if not added:
            return None
        return answers.Extract("; ".join(added), None, 1.0)

    def _most_like(self, pool: list[Ranked], doc: int) -> Ranked:
        """Of `pool`, the document whose text is most like `doc`'s (the cosine of their
        embeddings): the record of a quote, the quote of a bill."""
        like = self.index.doc_vector(doc)
        return max(pool, key=lambda r: float(self.index.doc_vector(r.doc) @ like))

    def _former(self, ranked: list[Ranked], kind: str, term_weights: dict[str, float], now: float) -> Ranked:
        """"Which day did they used to collect the bins", "the GP's old number": of the
        documents stating a value of the kind asked for, the newest whose value differs from
        the newest value of all (the one that replaced it); else the lead."""
        by_age = self._dated_values(ranked, kind, term_weights, now)
        current = by_age[0][0] if by_age else None
        return next((r for value, r in by_age[1:] if not answers.same_value(value, current, kind)), ranked[0])

    def _first(self, ranked: list[Ranked], kind: str, term_weights: dict[str, float], now: float) -> Ranked:
        """"The very first tune-up", "when we first signed up": of the documents stating a
        value of the kind asked for, the oldest; else the lead."""
        by_age = self._dated_values(ranked, kind, term_weights, now)
        return min((r for _, r in by_age), key=lambda r: _epoch(self.index, r.doc), default=ranked[0])

    def _dated_values(self, ranked: list[Ranked], kind: str, term_weights: dict[str, float],
                      now: float) -> list[tuple[str, Ranked]]:
        """The leading documents written by now that state a value of the kind asked for,
        with their values, newest first. Those of an earlier value need only reach the
        coverage floor (`_competing` at_floor)."""
        pool = [r for r in ranked if _epoch(self.index, r.doc) <= now]
        if not pool:
            return []
        stating = [(value, r) for r in self._competing(pool[0], pool, at_floor=True)
                   if (value := self._extract(r.doc, kind, term_weights).value) is not None
                   and self._written(r.doc) is not None]
        return sorted(stating, key=lambda vr: -_epoch(self.index, vr[1].doc))

    def _competing(self, lead: Ranked, pool: list[Ranked], by_issuer: bool = False,
                   at_floor: bool = False) -> list[Ranked]:
        """The lead, then the documents of `pool` that may supersede it. A newer document
        supersedes only with evidence as complete as the lead's: a reminder about another
        vaccine does not replace the receipt that names rabies. (The lead always competes:
        an older document is never "newer" than it because the lead itself fell short of
        the coverage floor.) `by_issuer`, for a current value: a later letter from the
        lead's own issuer (or a competing letter's) need only reach the floor (the energy
        company that billed "gas" and "electricity" writes that the direct debit changes
        without naming either), if it names whoever the question asks about or writes to a
        group they are in ("Dear Swimmers and Parents": the club's new squad fee is Kiara's
        too). `at_floor`, for the value before the current one: the old value's document
        need only reach the floor (the note of the new modem says "modem"; the house note
        with the old password never did). Scores are compared before time."""
        cfg = self.config
        floor = cfg.confidence.min_coverage
        coverage = floor if at_floor else max(lead.parts["coverage"], floor)
        authority = cfg.answer.supersede_type_share * lead.parts["type_weight"]
        # The value before the current one is not asked about in the old document's words
        # ("the OLD code" is what the new note says): its score is no measure of it.
        share = 0.0 if at_floor else cfg.answer.supersede_share
        # Measured before time: a newer letter's own decay (a club's term letter ages as a
        # newsletter does) is no reason it cannot have replaced an older one.
        # A letter and its attachments were sent at once (the invoice PDF dated by its own
        # date, the mail that carries it by its Date header): neither replaced the other.
        letter = self._letter(lead.doc)
        able = [r for r in pool if r is not lead and self._letter(r.doc) != letter
                and _before_time(r) >= share * _before_time(lead)
                and r.parts["answer_type"] >= 1.0 and r.parts["type_weight"] >= authority - 1e-9]
        full = [r for r in able if r.parts["coverage"] >= coverage - 1e-9]
        # The issuers: the lead's, and (the lead being a calendar entry that states nothing
        # of it) that of any letter competing in full.
        issuers = {self._issuer_domain(r.doc) for r in [lead, *full]} - {""} if by_issuer else set()

        def by_its_issuer(r: Ranked) -> bool:
            return (r.parts["coverage"] >= floor - 1e-9 and self._issuer_domain(r.doc) in issuers
                    and (self._asked <= set(self.analyzer.tokens(self._doc_text(r.doc)))
                         or (self._coverage is not None and self._coverage.to_group(r.doc))))

        return [lead] + [r for r in able if r in full or (issuers and by_its_issuer(r))]

    def _letter(self, doc: int) -> str:
        """The message a document came in: an attachment's carrier, else the document."""
        record = self.index.docs[doc]
        return str(record.get("parent_id") or record.get("doc_id") or doc)

    def _issuer_domain(self, doc: int) -> str:
        """The mail domain a document came from, when it is a business's own (not webmail)."""
        _, domain = address_parts(str(self.index.docs[doc].get("from") or ""))
        return "" if not domain or domain in self.config.ambiguity.webmail_domains else domain

    def _last_time(self, ranked: list[Ranked], kind: str, term_weights: dict[str, float],
                   now: float) -> list[Ranked]:
        """"When was the boiler last serviced": among the leading documents about it, the one
        naming the latest day by now (its own date when it names none) goes first. A day
        still ahead ("your appointment is on 3 December") or one something is due by
        ("Bordetella vaccine - due 11/12/2026") is no time it happened: such a document does
        not compete. Eligibility is the latest-value rule's (`_competing`)."""
        cfg = self.config
        if self.index.doc_type[ranked[0].doc] == self._event_code:
            return ranked   # a calendar's last time is read from its occurrences (_event_answer)
        due = answers.compiled_regex(cfg.answer.due_cue)
        today = self._today(now)
        # A quote or a reminder at the top records nothing: the documents that may be the
        # last time compete with the best of the others.
        days: dict[int, date] = {}
        for r in self._done_by(ranked, now):
            written_day = self._written(r.doc)
            extract = self._extract(r.doc, kind, term_weights)
            if extract.shown and not self._due(r.doc, extract.shown, due):
                day = answers.date_of(extract.shown, written_day, cfg.answer.undated_year_lookback_days)
            elif ((not extract.shown and self.index.docs[r.doc].get("doc_type") not in cfg.answer.memo_types
                   and self._reports(r.doc))
                  or self.index.docs[r.doc].get("doc_type") in cfg.answer.record_types):
                # No day named, or only a day something is due: a receipt's own date is the
                # visit it records, as is a letter's that tells of it done ("Swept the chimney,
                # the flue was clear"); a reminder's is no visit at all, nor a letter's about
                # the visit to come ("before your sweep: let the fire go out"), and a memo's is
                # the day it was written ("Service every 12 months", in a note about the car).
                day = written_day
            else:
                continue
            if day is not None and day <= today:
                days[r.doc] = day
        if not days:
            return ranked
        # On the same day the record (the invoice) goes before the mail about it.
        last = max((r for r in ranked if r.doc in days), key=lambda r: (days[r.doc], r.parts["type_weight"]))
        return ranked if last is ranked[0] else [last] + [r for r in ranked if r is not last]

    def _reports(self, doc: int) -> bool:
        """Does the document tell of something done: a verb in the past tense in its own
        words (not in the lines it quotes), not after a modal ("we'll put drop sheets down")?"""
        return self._done.search(answers.strip_quoted(self._doc_text(doc, with_title=False)).casefold()) is not None

    def _plan(self, doc: int, today: date) -> bool:
        """Is the document a plan, not the record of something done: a quote or estimate (by
        its title), a reminder (reminder_cue), or a booking that names only days still ahead
        ("booked in for 21 October")? Days something is due by do not count ("next booster
        due 12/11/2026" under what was paid), and a receipt or invoice is a record whatever
        it names."""
        cfg = self.config.answer
        meta = self.index.docs[doc]
        written = self._written(doc)
        if written is None or meta.get("doc_type") in cfg.record_types:
            return False
        if answers.compiled_regex(cfg.proposal_cue).search(str(meta.get("title", ""))):
            return True
        # A reminder ("You're due for a check-up", "your heat pump is due its annual
        # service in May", a to-do note's "book with CoolBreeze") records no visit, whatever
        # day it names (the date a new price starts). A cue right before a date is the next
        # due date that closes a record ("Pickle's next vaccination is due 15/09/2027").
        cue, dated = answers.compiled_regex(cfg.reminder_cue), answers.span_patterns(cfg)["date"]
        text = self._doc_text(doc)
        if any(not dated.search(text[m.end():m.end() + cfg.due_date_gap_chars]) for m in cue.finditer(text)):
            return True
        due = answers.compiled_regex(cfg.due_cue)
        # (A note's own "Date:" line is when it was written, not a day it speaks of.)
        days = [day for shown, day in self._named_days(doc) if day != written and not self._due(doc, shown, due)]
        return bool(days) and min(days) > today

    def _named_days(self, doc: int) -> list[tuple[str, date]]:
        """The days a dated document's text names, as written and as read against its date."""
        found = self._days_named.get(doc)
        if found is None:
            found = self._days_named[doc] = self._read_days(doc)
        return found

    def _read_days(self, doc: int) -> list[tuple[str, date]]:
        written = self._written(doc)
        if written is None:
            return []
        # A reply's quoted lines and their "On Mon, 8 Feb 2027 ... wrote:" are the earlier
        # message's: its days are not the ones this letter names.
        found = answers.dates_in(answers.strip_quoted(self._doc_text(doc, with_title=False)), written,
                                 self.config.answer)
        return list({m.group(0): day for m, day in found if day is not None}.items())

    def _due(self, doc: int, shown: str, due: re.Pattern) -> bool:
        """Is this date when something is due: after a due word on its line ("due
        11/12/2026"), or a row of a table whose heading says so ("Vaccine / service  Next
        due" over "Rabies (3-year)  05/12/2029")?"""
        lines = self._doc_text(doc, with_title=False).splitlines()
        dated = answers.span_patterns(self.config.answer)["date"]
        at = next((i for i, line in enumerate(lines) if shown in line), None)
        if at is None:
            return False
        # The due word labels the date ("next service due: 18/09/2026", "due by 20/11"); one
        # further back on the line is about something else ("Your boiler is due its service.
        # I have you booked in for 25 November").
        before = lines[at][:lines[at].find(shown)].split()[-self.config.answer.due_label_words:]
        if due.search(" ".join(before)):
            return True
        above = at - 1
        while above >= 0 and dated.search(lines[above]):   # the table's other rows
            above -= 1
        heading = lines[above] if above >= 0 else ""
        return (above < at and len(heading.split()) <= self.config.answer.table_heading_max_words
                and due.search(heading) is not None)

    def _replacing(self, route: Route, ranked: list[Ranked], off_topic: list[Ranked], kind: str | None,
                   term_weights: dict[str, float], now: float) -> Ranked | None:
        """The best-ranked later document saying the leading answer was replaced: it names the
        lead's value on a line with a retraction word ("the old maple-lantern-42 no longer
        works") and states another value of the kind asked for. It need not match the
        question as well as the old document did (a note about a new router may never say
        "wifi"): naming the old value is the evidence that it is about the same thing."""
        cfg = self.config.answer
        if (route.pattern in cfg.past_patterns or route.window is not None
                or kind not in cfg.retraction_kinds or not ranked):
            return None
        lead = ranked[0]
        old = self._extract(lead.doc, kind, term_weights)
        written = _epoch(self.index, lead.doc)
        if old.value is None or not old.shown or self._written(lead.doc) is None:
            return None
        cue = answers.compiled_regex(cfg.retraction_cue)
        # "the monthly fee goes from €32 to €35.50": the change named on one line.
        change = re.compile(cfg.retraction_change.format(old=re.escape(old.shown)), re.IGNORECASE)
        named = old.shown.casefold()
        # A store's flyer that lists our filter size among others replaces nothing.
        authority = cfg.supersede_type_share * lead.parts["type_weight"]
        later = written + self.config.time.rival.min_gap_days * SECONDS_PER_DAY
        # What the old value was about: the question's words, and the old answer's own with
        # the names its document gives (a note about "Mrs. Ferreira's new mobile" need not
        # say "piano teacher"). Never a number: "08:00" and "5th" are about nothing.
        meta = self.index.docs[lead.doc]
        lead_text = "\n".join(line for line in self._doc_text(lead.doc).splitlines() if not answers.header_line(line))
        said = " ".join((str(meta.get("title", "")), old.text, *_NAME.findall(lead_text)))
        value_words = set(self.analyzer.tokens(old.shown))
        # (The question's own words: not the synonyms it was widened with, "full" for fibre.)
        asked = {t for t in self._naming_words if not any(c.isdigit() for c in t)} - value_words
        subject = asked | {t for t in self.analyzer.tokens(said) if not any(c.isdigit() for c in t)} - value_words
        for r in ranked[1:] + [r for r in off_topic if r not in ranked]:
            when = _epoch(self.index, r.doc)
            if not later <= when <= now or r.parts["type_weight"] < authority - 1e-9:
                continue
            body = self._doc_text(r.doc, with_title=False)
            if named not in body.casefold():
                continue   # (most candidates: no line to read)
            lines = [line for line in body.splitlines() if line.strip() and not answers.header_line(line)]
            tokens = [set(self.analyzer.tokens(line)) for line in lines]
            # ... on a line about the same subject, or next to one ("changed the alarm code
            # this morning. / the old one (3816) won't work anymore"): "£38.00 (was £35.50)"
            # among the nursery's fees replaces no broadband price of £35.50.
            retracting = [named in line.casefold()
                          and (cue.search(line) is not None or change.search(line) is not None)
                          and bool(subject & set().union(*tokens[max(0, i - 1):i + 2]))
                          for i, line in enumerate(lines)]
            if not any(retracting):
                continue
            # The new value is read with the old one blanked out where it was retracted.
            kept = "\n".join(_blank(line, old.shown) if out else line for line, out in zip(lines, retracting))
            new = self._extract_uncached(r.doc, kind, term_weights, text=kept)
            if new.value is not None and not answers.same_value(old.value, new.value, kind):
                # The best-matching such document (they come in rank order).
                self._extracts[(r.doc, kind)] = new
                return r
        return None

    def _written_as(self, doc: int, day: date) -> str:
        """A day as the document writes its dates: in numbers when it writes them so
        ("14.10.2025", "2025-10-14"), else in words, day or month first as it does. A
        document that writes no date (a note: "went in yesterday") writes them as the
        household's documents mostly do."""
        text = self._doc_text(doc)
        form = answers.numeric_date_form(text)
        if form is None and not answers.writes_dates(text):
            if self._store_form is None:
                self._store_form = answers.numeric_date_form("\n".join(self._sample_texts())) or ""
            form = self._store_form
        return day.strftime(form) if form else day_words(day, self.config.events, self._day_first(doc))

    def _day_first(self, doc: int) -> bool | None:
        """Does this document write its dates day first? When it does not say, how the
        store's documents mostly write theirs (a household writes the local way); None
        when they do not say either."""
        lean = answers.day_first_lean(self._doc_text(doc))
        if lean == 0:
            lean = self._store_lean
        return None if lean == 0 else lean > 0

    def _sample_texts(self) -> Iterator[str]:
        """Chunks spread over the store: how its documents write dates and times. Not a
        calendar event's: its text ("Starts Friday 26 March 2027 18:12") is written by the
        ingest, not by the household."""
        index = self.index
        texts = index.chunk_texts
        written = np.flatnonzero(index.doc_type[index.chunk_doc] != self._event_code)
        step = max(1, written.size // self.config.answer.date_style_sample_chunks)
        return (texts[int(i)] for i in written[::step])

    def _ahead(self, shown: str | None, written: datetime, now: datetime) -> bool:
        """Does a date span name a day still ahead?"""
        if not shown:
            return False
        day = answers.date_of(shown, written.date(), self.config.answer.undated_year_lookback_days)
        return day is not None and day > now.date()

    @staticmethod
    def _window_words(window: TimeWindow | None, split: Callable[[str], list[str]]) -> set[str]:
        """The words that named a time window did their work as the window, all but those
        that are the question's subject too (a holiday's name)."""
        if window is None:
            return set()
        return set(split(window.text)) - set(split(window.subject))

    def _answer_terms(self, query: Query) -> dict[str, float]:
        """The words an answer sentence should hold: the question's terms, those that only
        say what is wanted ("weight", "time") at a lower weight (a "Weight: 34.5 lb" line
        says it too), less those that named the time window ("in 2023": it did its work)."""
        question_words = self._question_words
        ignore = self._window_words(query.route.window, self.analyzer.tokens)
        factor = self.config.answer.question_word_weight
        # A weekday that named the window still picks the row of a week's table ("opening
        # hours on sunday": the Sunday line), as a question word does.
        weekdays = ignore & self._weekday_words
        kept = {t: w * (factor if t in question_words or t in weekdays else 1.0) for t, w in query.terms
                if t not in ignore - weekdays}
        return kept or dict(query.terms)

    # ---- documents ------------------------------------------------------------------
    def _doc_text(self, doc: int, with_title: bool = True) -> str:
        index = self.index
        rows = index.doc_rows(doc)
        title = str(index.docs[doc].get("title", ""))
        body = "\n".join(join_chunks([index.chunk_texts[i] for i in rows]))
        return f"{title}\n{body}" if title and with_title else body

    def _extract(self, doc: int, kind: str | None, term_weights: dict[str, float]) -> answers.Extract:
        """A document's extract for this question (asked again by supersession, conflicts
        and the answer: computed once per question)."""
        key = (doc, kind)
        if key not in self._extracts:
            self._extracts[key] = self._extract_uncached(doc, kind, term_weights)
        return self._extracts[key]

    def _tokens_many(self, texts: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """`Analyzer.tokens_many`, remembered (read-only)."""
        return self._words_of(tuple(texts))

    def _extract_uncached(self, doc: int, kind: str | None, term_weights: dict[str, float],
                          text: str | None = None) -> answers.Extract:
        """`text`: the document's body to read instead of the stored one (a replaced value blanked)."""
        meta = self.index.docs[doc]
        if meta.get("doc_type") == "calendar_event" and kind not in self.config.events.line_kinds:
            # An event is a record: what, when, where, note: its whole text is the extract,
            # unless the question asks for a value one line of it holds (a number to call),
            # or for something only its note says ("what to pack for the field trip").
            title, body = str(meta.get("title", "")), self._doc_text(doc, with_title=False)
            note = (self._event_note(title, body, term_weights)
                    if kind is None or kind in self.config.events.note_kinds else None)
            return note or answers.whole(f"{title}\n{body}" if title else body, kind, self.config.answer)
        text = self._doc_text(doc, with_title=False) if text is None else text
        if self._asked:
            # The names the question asks about found this document; inside it the answer
            # is the line with the rest of the question ("what did Dr. Solberg diagnose":
            # the diagnosis, not the "Doctor: Ingrid Solberg" line or the signature).
            factor = self.config.answer.asked_name_weight
            term_weights = {t: w * factor if t in self._asked else w for t, w in term_weights.items()}
        # The people the question names who speak in this document (a chat transcript).
        people = frozenset(self._named & answers.speakers(text)) if self._named else frozenset()
        if people:
            # Their names are who is asked about; the rest of the question is what.
            names = set(self.analyzer.tokens(" ".join(people)))
            term_weights = {t: w for t, w in term_weights.items() if t not in names}
        return answers.extract(text, kind, self._idf_weighted(term_weights),
                               self._tokens_many, self.config.answer,
                               title=str(self.index.docs[doc].get("title", "")), people=people,
                               owed_asked=self._owed_asked, whole_asked=self._whole_asked,
                               paid_asked=self._paid_asked, point_asked=self._point_asked,
                               labels_asked=self._labels_asked,
                               naming_words=self._naming_words,
                               rate=self._rate, on_day=self._day_of_line(doc), lines=self._lines_of(text),
                               asked_words=self._naming_words)

    def _days_asked(self, route: Route) -> tuple[int, int] | None:
        """The days (ordinals, end excluded) of a day or a few days ahead the question asks
        about; None for any other question."""
        window = route.window
        return days_of(window) if window is not None and near_term(window, self.config) else None

    def _day_of_line(self, doc: int) -> Callable[[str], tuple[int, bool]] | None:
        """Of a line of the document: does it write an asked day (1), only other days (-1)
        or none (0); and does its first date head it ("- Friday 13 November: ...", "Am
        Freitag, 13. November ist...")? None when the question asks about no day or the
        document is undated."""
        written = self.index.doc_epoch[doc]
        if self._asked_days is None or np.isnan(written):
            return None
        lo, hi = self._asked_days
        day_written = datetime.fromtimestamp(written, self._zone).date()
        head = self.config.answer.date_head_chars

        def on_day(line: str) -> tuple[int, bool]:
            found = [(m, d.toordinal()) for m, d in answers.dates_in(line, day_written, self.config.answer)
                     if d is not None]
            if not found:
                return 0, False
            headed = found[0][0].start() <= head
            return (1 if any(lo <= d < hi for _, d in found) else -1), headed
        return on_day

    def _event_note(self, title: str, body: str, term_weights: dict[str, float]) -> answers.Extract | None:
        """The sentence of an event's description that answers, after the event's title,
        when it holds a word of the question the title does not."""
        from ingest.calendar import FIELD_LINES  # (loads icalendar: only calendar answers need it)

        every = body.split("\n")
        lines = _note_lines(every, title)
        if not lines:
            return None
        note = answers.extract("\n".join(lines), None, self._idf_weighted(term_weights),
                               self._tokens_many, self.config.answer, title=title)
        said = set(self.analyzer.tokens(note.text)) - set(self.analyzer.tokens(title))
        if not note.text or not said & term_weights.keys():
            return None
        # The event's when stays with its note: "which day ..." is about the event too.
        when = [line.strip() for line in every if line.startswith(FIELD_LINES[:3])]
        head = "; ".join(x for x in (title, *when) if x)
        return dataclasses.replace(note, text=f"{head}: {note.text}" if head else note.text)

    def _idf_weighted(self, term_weights: dict[str, float]) -> dict[str, float]:
        bm25 = self.index.bm25
        return {t: w * float(bm25.idf_[bm25.vocab_[t]]) for t, w in term_weights.items()
                if t in bm25.vocab_ and bm25.idf_[bm25.vocab_[t]] > 0}

    def _conflicts(self, ranked: list[Ranked], top_extract: answers.Extract,
                   kind: str | None, term_weights: dict[str, float]) -> list[Conflict]:
        """Relevant documents that give another value of the expected kind, with the top
        document's: newest first. Never drops the older value silently."""
        if kind not in self.config.answer.value_kinds or top_extract.value is None:
            return []
        cfg = self.config.answer
        top = ranked[0]
        best = max(r.score for r in ranked)
        found: dict[str, tuple[Ranked, answers.Extract]] = {top_extract.value: (top, top_extract)}
        for other in ranked[1:]:
            if other.score < cfg.conflict_share * best:
                continue
            # A voice on the same question covers it about as fully as the answer does: a
            # document about another Maggie (no "vet" in it) is no rival on the cat's visit.
            if other.parts["coverage"] < max(self.config.confidence.min_coverage,
                                             cfg.conflict_coverage_share * top.parts["coverage"]):
                continue
            ext = self._extract(other.doc, kind, term_weights)
            if ext.value is None:
                continue
            key = next((v for v in found if answers.same_value(v, ext.value, kind)), ext.value)
            known = found.get(key)
            if known is None or _epoch(self.index, other.doc) > _epoch(self.index, known[0].doc):
                found[key] = (other, ext)
        if len(found) < 2:
            return []
        entries = sorted(found.values(), key=lambda pair: _epoch(self.index, pair[0].doc), reverse=True)
        out = []
        for ranked_doc, ext in entries[:cfg.max_conflicts]:
            meta = self.index.docs[ranked_doc.doc]
            out.append(Conflict(answer=ext.shown or ext.text, source=str(meta.get("source", "")),
                                doc_type=str(meta.get("doc_type", "")),
                                source_date=meta.get("source_date") or None,
                                title=str(meta.get("title", "")),
                                attachment=str(meta.get("attachment", ""))))
        return out

    def _message(self, route: Route, top: Ranked, now: float, kind: str | None,
                 evidence: str) -> tuple[str, float]:
        """The confidence message for the top document, and its staleness in [0, 1]."""
        meta = self.index.docs[top.doc]
        cfg = self.config.confidence
        type_name = str(meta.get("doc_type", ""))
        horizon = horizon_days(cfg, type_name)
        # A plan for a day still ahead (an event; the answer's own "next service due
        # 19/10/2027"; for a logistical question, a recent enough letter naming one) is the
        # plan as it stands: nothing has overtaken it.
        today = self._today(now)
        ahead = (bool(self.index.doc_last_end[top.doc] >= now)
                 or any(d >= today for d in self._days_in(top.doc, evidence))
                 or (route.pattern == "logistical" and (horizon <= 0 or top.age_days <= horizon)
                     and any(d >= today for _, d in self._named_days(top.doc))))
        state, stale = staleness(route, top.age_days, type_name, ahead, kind in cfg.standing_kinds, now,
                                 self.config)
        if state in ("found", "undated"):
            written = str(meta.get("source_date") or "")[:10]
            where = f"Found in {type_name.replace('_', ' ') or 'document'}"
            return (f"{where} from {written}" if written else f"{where} (undated)"), stale
        if state == "stale":
            return f"{STALE} {_who_to_ask(meta)}", stale
        return {"historical": HISTORICAL, "fresh": FRESH, "outdated": POSSIBLY_OUTDATED,
                "old": OLD_ENTITY}[state], stale

    def _printed_date(self, doc: int, today: date) -> tuple[date, str] | None:
        """The date a record prints under its own label ("Date: 16/09/2025", "Invoice date:
        04/09/2025"), as written, when it is no later than today."""
        label = answers.compiled_regex(self.config.answer.record_date_label)
        written = self._written(doc)
        for line in self._doc_text(doc, with_title=False).splitlines():
            if not label.search(line):
                continue
            days = [(m.group(0), d) for m, d in answers.dates_in(line, written, self.config.answer)
                    if d is not None and d <= today]
            if days:
                return days[0][1], days[0][0]
        return None

    def _today(self, now: float) -> date:
        """The household's day at `now` (epoch seconds), in the zone of the question's `now`."""
        return datetime.fromtimestamp(now, self._zone).date()

    def _written(self, doc: int) -> date | None:
        """The day a document was written; None when undated."""
        written = _epoch(self.index, doc)
        return datetime.fromtimestamp(written, self._zone).date() if np.isfinite(written) else None

    def _days_in(self, doc: int, text: str) -> list[date]:
        """The days a passage of a dated document names, read against the document's date."""
        written = self._written(doc)
        if not text or written is None:
            return []
        return [day for _, day in answers.dates_in(text, written, self.config.answer) if day is not None]

    def _source(self, ranked: Ranked, term_weights: dict[str, float]) -> Source:
        meta = self.index.docs[ranked.doc]
        snippet = answers.snippet(self.index.chunk_texts[ranked.chunk], term_weights,
                                  self._tokens_many, self.config.answer.snippet_chars)
        return Source(
            source=str(meta.get("source", "")), message_id=str(meta.get("message_id", "")),
            title=str(meta.get("title", "")), doc_type=str(meta.get("doc_type", "")),
            source_date=meta.get("source_date") or None, date_source=str(meta.get("date_source", "")),
            score=round(ranked.score, 6), scores={k: round(v, 6) for k, v in ranked.parts.items()},
            snippet=snippet, attachment=str(meta.get("attachment", "")), doc_id=str(meta.get("doc_id", "")),
            age_days=None if np.isnan(ranked.age_days) else round(ranked.age_days, 2),
            highlights=self.analyzer.spans(snippet, term_weights.keys()), on_topic=ranked.on_topic)


_ADDRESS = re.compile(r"^\s*\"?([^\"<]+?)\"?\s*<[^>]*>")


def _who_to_ask(meta: dict) -> str:
    """Who can confirm a stale answer: the event's organizer, the vendor of a bill, the
    sender of a message (the name before their address), else the source itself."""
    doc_type = str(meta.get("doc_type", ""))
    if doc_type == "calendar_event":
        name = str(meta.get("organizer") or "")
        return name or "the organizer"
    if doc_type in ("invoice", "receipt"):
        return str(meta.get("invoice_vendor") or "") or "the vendor"
    sender = str(meta.get("from") or "").split(",")[0]
    if sender:
        match = _ADDRESS.match(sender)
        return match.group(1).strip() if match else sender.strip()
    return "the source"


def _blank(line: str, value: str) -> str:
    """`line` with every occurrence of `value` (any case) taken out."""
    return re.sub(re.escape(value), " ", line, flags=re.IGNORECASE)


def _before_time(r: Ranked) -> float:
    """A document's score without its time weight."""
    decay = r.parts.get("decay", 1.0)
    return r.score / decay if decay > 0 else 0.0


def _epoch(index: QueryIndex, doc: int) -> float:
    value = index.doc_epoch[doc]
    return float("-inf") if np.isnan(value) else float(value)


def _note_lines(lines: list[str], title: str) -> list[str]:
    """An event's own words: its lines that are neither a field ("Starts ...",
    "Location: ...") nor its title."""
    from ingest.calendar import FIELD_LINES  # (loads icalendar: only calendar answers need it)

    return [line for line in lines
            if line.strip() and not line.startswith(FIELD_LINES) and line.strip() != title]


def _level(message: str, staleness: float) -> str:
    if message == FRESH:
        return "fresh"
    if staleness >= 1.0:
        return "stale"
    return "outdated" if staleness > 0.0 else "found"


def _conflict_summary(conflicts: list[Conflict]) -> str:
    first, *rest = conflicts
    parts = [f"Latest ({(first.source_date or 'undated')[:7]}): {first.answer}"]
    parts += [f"earlier ({(c.source_date or 'undated')[:7]}): {c.answer}" for c in rest]
    return "; ".join(parts)
