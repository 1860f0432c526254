"""The extractive answer: which sentences of a document answer the question, the value of
the expected kind they hold (a size, a time, an amount, a name...), and whether the
question's words are there at all (coverage: the basis of "I don't know")."""
from __future__ import annotations

import dataclasses
import collections
import re
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Callable, Collection, Sequence

import numpy as np

from ingest.money import amount_value
from ingest.regex_guard import guarded

from ..config import AnswerSection
from ..textproc import LATIN_CAPITALS

# A full stop after a title, an initial or an abbreviation that always goes on ends no
# sentence: "Dr. Hannah Brooks", "J. Smith", "Annual premium (incl. 3% levy) €612.40",
# "Ballincollig, Co. Cork"; nor does a degree's in a title ("Dr. med. dent. Selina Amrein",
# "Dipl.-Ing.", "Mag. phil."), a currency's ("Total: Rs. 6,318.00", "kr. 450"), the
# Scandinavian clock's ("stänger kl. 17.30") or an approximation's ("ca. 20 minutes").
_NOT_AN_END = "".join(rf"(?<!\b{re.escape(word)})" for word in (
    "Dr.", "Mr.", "Mrs.", "Ms.", "Mx.", "St.", "Jr.", "Sr.", "Prof.", "Mt.", "Rev.", "Hr.", "Fr.", "Nr.", "No.",
    "med.", "dent.", "vet.", "phil.", "rer.", "nat.", "iur.", "jur.", "oec.", "Dipl.", "Ing.", "Mag.", "lic.",
    "Rs.", "kr.", "Kr.", "kl.", "Kl.", "ca.", "Ca.",
    "incl.", "Incl.", "excl.", "Excl.", "approx.", "Approx.", "inkl.", "zzgl.", "e.g.", "i.e.", "vs.", "Co."))
_MIN_TURNS, _MIN_VOICES = 2, 2     # what makes lines opening "Name:" a conversation
# A transcript line: a name (one to three capitalised words) and a colon ("Caroline: ...").
_SPEAKER = re.compile(rf"^[ \t]*([{LATIN_CAPITALS}][\w'’.-]*(?: [{LATIN_CAPITALS}][\w'’.-]*){{0,2}}):[ \t]", re.MULTILINE)
# (The cheap look back at the full stop comes first: at every other position the
# abbreviations' look-backs are never tried, which makes a split ~18x cheaper.)
# (Dot leaders end no sentence: "Anna (Luke's mum) ........ 7900 0077".)
_SENTENCE_END_TEXT = (r"(?<=[.!?])" + _NOT_AN_END + r"(?<!\b[A-Z]\.)(?<!\.\.\.)(?!{ordinal})\s+(?=[\"'(\[]?[A-Z0-9])"
                      r"|\n\s*\n|\n(?=\s*[-*•]\s)|\n(?=[A-Z][\w /&-]{{0,40}}:)")
_MAYBE_END = re.compile(r"[.!?]\s")
_SPACE = re.compile(r"\s+")
# A day written with dots (17.06.2026): day first wherever dates are written so.
_DOTTED_DAY = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{2,4}\b")
# A day written in numbers whose first two may be read either way round (01-12 both).
_NUMERIC_DAY = re.compile(r"\b(0?[1-9]|1[0-2])[/.-](0?[1-9]|1[0-2])[/.-]\d{2,4}\b")
_YEAR = re.compile(r"\b\d{4}\b|['’]\d{2}\b|\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b")
# A sentence in progress ends its line on a word or a comma; a table row ends on a number.
_MID_SENTENCE = re.compile(r"[a-z,]\s*$")
_GOES_ON = re.compile(r"\s*[a-z0-9(£$€]")
# A line ending on a word no sentence ends with ("Entry forms to" / "Caitríona by 16
# October"): the next line goes on with it even when it opens with a name.
_OPEN_END = re.compile(r"\b(?:to|for|with|by|at|of|from|the|a|an|and|or|but|into|onto|via|your|our|their|his|her|my)\s*$")
_COLUMNS = re.compile(r"\S(?: {2,}|\t)\S.*\S(?: {2,}|\t)\S")     # a table laid out in columns
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d{1,2}[.)])\s")
_NUMBERED = re.compile(r"\s*\d{1,2}[.)]\s+")


@dataclasses.dataclass(frozen=True)
class Extract:
    text: str                # the sentence(s), whitespace collapsed
    value: str | None        # the most specific span of the expected kind, normalised to compare
    score: float
    shown: str | None = None # that span as the document writes it


@lru_cache(maxsize=8)
def _compiled(cfg: AnswerSection) -> tuple[list[tuple[str, re.Pattern]], dict[str, re.Pattern]]:
    kinds = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in cfg.kinds]
    # Searched in every chunk at index time and every candidate sentence at question time.
    spans = {kind: guarded(date_span(pattern) if kind == "date" else re.compile(pattern))
             for kind, pattern in cfg.spans}
    unknown = sorted({kind for kind, _ in kinds} - set(spans))
    if unknown:
        raise ValueError(f"answer.kinds names kind(s) with no span pattern: {', '.join(unknown)}")
    return kinds, spans


def span_patterns(cfg: AnswerSection) -> dict[str, re.Pattern]:
    """Each kind's span pattern (config [answer] spans; dates in other languages too)."""
    return _compiled(cfg)[1]


def expected_kind(question: str, cfg: AnswerSection) -> str | None:
    """The kind of span that answers the question: the one its opening asks for ("when's
    the electric bill due": a date, though it names a bill), else the first cue that
    matches, or None. A question word typed with its "'s" run on ("whens", "whos") is that
    word."""
    question = _RUN_ON.sub(r"\1's", question)
    for kind, pattern in cfg.kind_heads:
        if compiled_regex(pattern).search(question):
            return kind
    kinds, _ = _compiled(cfg)
    for kind, pattern in kinds:
        if pattern.search(question):
            return kind
    return None


_RUN_ON = re.compile(r"\b(when|who|where|what|how)s\b", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences, list items and 'Label: value' lines, whitespace collapsed."""
    return [s for s, _ in split_with_speakers(text)]


def split_with_speakers(text: str, wrapped_line_chars: int = 0) -> list[tuple[str, str | None]]:
    """Sentences with who says them: a transcript's line "Caroline: ..." is Caroline's,
    every sentence of it; elsewhere None. With `wrapped_line_chars`, a hard-wrapped
    paragraph (see `unwrap`) is read as the one text it is."""
    out = []
    for block in (unwrap(text, wrapped_line_chars) if wrapped_line_chars else text).split("\n"):
        match = _SPEAKER.match(block)
        speaker = match.group(1).casefold() if match else None
        # A numbered item's "1." ends no sentence: it opens the item.
        number = _NUMBERED.match(block)
        rest = block[number.end():] if number else block
        # A line without ". " (most of a letter's) has no sentence end to split at: the
        # lookbehinds of _SENTENCE_END need not be tried at every position of it.
        pieces = _sentence_end().split(rest) if _MAYBE_END.search(rest) else [rest]
        if number:
            pieces[0] = number.group(0) + pieces[0]
        for piece in pieces:
            piece = _SPACE.sub(" ", piece).strip()
            if len(piece) > 1:
                out.append((piece, speaker))
    return out


def speaker_lines(text: str, cfg: AnswerSection) -> list[tuple[str, str | None]]:
    """The sentences `extract` reads in a document's text: its own, not the lines it quotes."""
    return split_with_speakers(strip_quoted(text), cfg.wrapped_line_chars)


def unwrap(text: str, min_chars: int) -> str:
    """Plain-text mail is wrapped at ~72 columns, mid-sentence: "can babysit Leo on Saturday" /
    "12th from 18:30". A line at least `min_chars` long that ends mid-sentence (on a
    lower-case word or a comma) joins the next when that one goes on in lower case, a
    number or an amount, or whatever it opens with after a word no sentence ends on ("to",
    "the"); a list item, a "Label:" line, a blank line, a capitalised line (a
    new item, heading or name) or a table row (ending on a number) keeps its own."""
    lines = text.split("\n")
    out = [lines[0]] if lines else []
    for previous, line in zip(lines, lines[1:]):
        if (len(previous.rstrip()) >= min_chars and _MID_SENTENCE.search(previous)
                and not _COLUMNS.search(previous) and not _LIST_ITEM.match(line)
                and (_GOES_ON.match(line) or (_OPEN_END.search(previous) and line.strip()))):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def _asked_just_before(pairs: Sequence[tuple[str, str | None]], overlap: np.ndarray,
                       asks: np.ndarray) -> np.ndarray:
    """Per sentence of a turn in a conversation, the question words held by a question
    (`asks`: "...?") in the turn just before it, by another speaker (0 elsewhere)."""
    out = np.zeros(len(pairs))
    previous: tuple[str | None, float] = (None, 0.0)      # (speaker, its best question)
    current: tuple[str | None, float] = (None, 0.0)
    for i, (sentence, who) in enumerate(pairs):
        if who is None:
            continue
        if who != current[0]:
            previous, current = current, (who, 0.0)
        if previous[0] is not None and previous[0] != who:
            out[i] = previous[1]
        if asks[i]:
            current = (who, max(current[1], float(overlap[i])))
    return out


def speakers(text: str) -> set[str]:
    """Who speaks in a transcript (casefolded), empty for anything else: a transcript has
    at least two voices, each opening several lines ("Location: ..." once is a label)."""
    counts = collections.Counter(m.group(1).casefold() for m in _SPEAKER.finditer(text))
    voices = {name for name, n in counts.items() if n >= _MIN_TURNS}
    return voices if len(voices) >= _MIN_VOICES else set()


def extract(text: str, kind: str | None, term_weights: dict[str, float],
            tokenize: Callable[[Sequence[str]], list[list[str]]], cfg: AnswerSection,
            title: str = "", people: frozenset[str] = frozenset(), owed_asked: bool = False,
            whole_asked: bool = False, paid_asked: bool = False, point_asked: bool = False,
            labels_asked: tuple[tuple[str, str], ...] = (),
            naming_words: frozenset[str] | None = None, rate: re.Pattern | None = None,
            on_day: Callable[[str], tuple[int, bool]] | None = None,
            lines: Sequence[tuple[str, str | None]] | None = None,
            asked_words: Collection[str] | None = None) -> Extract:
    """The best `max_sentences` sentences of `text` for the question, in document order.

    A sentence scores by the question's words it holds (IDF-weighted, normalised by the
    best sentence), plus `context_weight` of its neighbours' (a value often sits on the line
    after the words that name it: "Your Driftless Energy bill" ... "Amount Due $88.95"),
    plus `kind_bonus` when it holds a span of the kind the question wants. Headers that
    only repeat the title, and quoted reply lines, are never the answer. `on_day`: of a
    sentence, 1 when it writes a day the question asks about, -1 when it writes only other
    days, else 0; and is the sentence headed by its first date (`asked_day_line_share`,
    `other_day_line_factor`). `lines`: `speaker_lines` of the text, when already read.
    `asked_words`: the words the question itself says, of `term_weights` (the rest are their
    synonyms): what a speaker's line must hold a share of.
    """
    every = list(lines) if lines is not None else speaker_lines(text, cfg)
    kinds, spans = _compiled(cfg)
    span = spans.get(kind) if kind else None
    # A one-line note is its own title: then the title line is the answer. So is a title
    # that holds the value asked for ("Jan 8, 2023 - new mesh Wi-Fi set up" for "when").
    salutation = compiled_regex(cfg.salutation)
    pairs = [p for p in every if _answerable_line(p[0], title, span, salutation)] or every
    if not pairs:
        return Extract("", None, 0.0)
    token_sets = [set(t) for t in tokenize([s for s, _ in pairs])]
    overlap = _term_weight(token_sets, term_weights)
    asks = np.array([s.rstrip().endswith("?") for s, _ in pairs], dtype=bool)
    # In a conversation a reply answers the question put just before it ("What motivated
    # you to pursue counseling?" / "My own journey and the support I got"): the reply
    # holds that question's words too.
    replied = _asked_just_before(pairs, overlap, asks)
    if people:
        # Asked about someone who speaks here: the answer is in their own words, never in
        # what another speaker says of themselves (or says to them: "Hey Melanie!").
        keep = [i for i, (_, who) in enumerate(pairs) if who is None or who in people]
        others = [i for i, (_, who) in enumerate(pairs) if who is not None and who not in people]
        # What another speaker says of themselves that holds the question far better than
        # anything the person asked about says: the question is about the other one's story.
        # What one asks the other ("What motivated you to pursue counseling?") is the other
        # one's story, not theirs: it holds the question's words and answers nothing.
        said = np.where(asks, 0.0, overlap)
        rival = float(said[others].max()) if others else 0.0
        pairs = [pairs[i] for i in keep]
        token_sets = [token_sets[i] for i in keep]
        overlap, replied, said, asks = overlap[keep], replied[keep], said[keep], asks[keep]
        own = float(np.maximum(said, cfg.reply_share * replied).max()) if pairs else 0.0
        # The share is of the question's own words: "kids" is asked once, whatever synonyms
        # ("children", "son", "daughter") it was widened with.
        said_weights = [w for t, w in term_weights.items() if asked_words is None or t in asked_words]
        if (not pairs or own < cfg.speaker_min_cover * sum(said_weights or term_weights.values())
                or own < cfg.speaker_rival_share * rival):
            # Nothing the person asked about says (or is asked) holds enough of the
            # question's words: the question may be about someone else's story.
            return Extract("", None, 0.0)
    sentences = [s for s, _ in pairs]
    cue = dict(kinds).get(kind) if kind else None
    # A question in the text restates the question's words but does not answer it.
    overlap = overlap * np.where(asks, cfg.question_sentence_factor, 1.0)
    overlap = np.maximum(overlap, cfg.reply_share * replied)
    if overlap.max() > 0:
        overlap = overlap / overlap.max()
    if on_day is not None:
        marks = [on_day(s) for s in sentences]
        day = np.array([mark for mark, _ in marks], dtype=np.int8)
        # The sentences after a line headed by its date are about that day ("- Friday 13
        # November: staff development afternoon. School closes at 12:00."), up to the next
        # date or list item; after a date in passing ("which listed November 20 as a full
        # day"), they are not.
        headed = False
        for i in range(len(day)):
            if day[i] != 0 or _LIST_ITEM.match(sentences[i]):
                headed = marks[i][1]
            elif headed:
                day[i] = day[i - 1]
        if not ((day > 0).any() and (day < 0).any()):
            day[:] = 0    # a letter about one day (or none asked) says nothing by its dates
        overlap = np.where(day > 0, np.maximum(overlap, cfg.asked_day_line_share),
                           np.where(day < 0, overlap * cfg.other_day_line_factor, overlap))
    # A sentence that opens with a pronoun is about what the one before it named ("Thanks
    # for bringing Maggie in. She got her rabies booster."): it holds that one's words too.
    follows = np.array([bool(_continues(cfg, s)) for s in sentences])
    overlap[1:] = np.where(follows[1:], np.maximum(overlap[1:], overlap[:-1]), overlap[1:])
    # A neighbour lends its words (a label on the line above its value), but not one item
    # of a list to the next: "- Heating service: Gubler in autumn" and "- Kitchen drain
    # blocked on 17 June" are two things.
    item = np.array([bool(_LIST_ITEM.match(s)) for s in sentences])
    siblings = item[1:] & item[:-1]
    context = np.zeros_like(overlap)
    context[1:] += np.where(siblings, 0.0, overlap[:-1])
    context[:-1] += np.where(siblings, 0.0, overlap[1:])
    rival = _rival_label(cfg, kind)
    retired = compiled_regex(cfg.retired_value) if kind in cfg.retraction_kinds else None
    spans_of = [list(span.finditer(s)) for s in sentences] if span else [[] for _ in sentences]
    if kind in cfg.delta_kinds:
        # "Weight up 1.2 kg on last year" says by how much, not what: no weight of the dog.
        change = compiled_regex(cfg.delta_value)
        spans_of = [[m for m in found if not change.search(s, 0, m.start())] for found, s in zip(spans_of, sentences)]
    if rate is None and kind in cfg.total_kinds:
        # What a stay cost is the total a rate comes to, not the rate ("$38.00/night x 7
        # nights = $266.00"); a rate nothing totals still names the price ("now €28 per child").
        spans_of = [[m for m in found if not (_PER_UNIT.search(m.group(0)) and any(
            n.start() >= m.end() and not _PER_UNIT.search(n.group(0)) for n in found))] for found in spans_of]
    found = [_longest_of(m, s, rival, retired) for m, s in zip(spans_of, sentences)]
    several = [i for i, m in enumerate(spans_of) if len(m) > 1]
    if kind in cfg.nearest_word_kinds and several:
        # "Now departs George at 11:20 and arrives at King Shaka at 13:25", asked when she
        # lands: the value the question's own words come right before (only a sentence with
        # a choice to make is read word by word).
        near = _naming_positions([sentences[i] for i in several], tokenize, term_weights.keys())
        for i, words in zip(several, near):
            found[i] = _nearest_after(_current(spans_of[i], sentences[i], retired), words) or found[i]
    if kind in cfg.total_kinds:
        # A total row of a table with a column per tax ("Total 4 096,00 5 120,00" under
        # "Excl. moms Incl. moms") ends with what was paid: its last column.
        found = [_last_column(m, s) or f for m, s, f in zip(spans_of, sentences, found)]
    # A table row holds one value per column ("Buildings £325,000 £350" under "Section Sum
    # insured Excess"): the question naming a column picks that column's value.
    columns = _column_values(sentences, spans_of, term_weights, tokenize, cfg, rate, retired,
                             _value_label(cfg, kind))
    found = [c or f for (c, _), f in zip(columns, found)]
    if kind in cfg.total_kinds:
        # A document that writes its amounts with a currency ("Invoice amount: €130.00")
        # names no amount without one ("nozzle 0.60 US gal"); one that writes a table of
        # bare amounts and a currency once ("Of which moms 1 243,00 kr.") names both.
        currency = compiled_regex(cfg.currency_mark)
        marked = sum(bool(f and currency.search(f)) for f in found)
        if marked and marked >= sum(bool(f and not currency.search(f)) for f in found):
            found = [f if f and currency.search(f) else None for f in found]
    has_span = np.array([f is not None for f in found], dtype=np.float64)
    # A letter changing a plan sets the old line beside the new one: the old answers nothing.
    superseded_lines = np.zeros(len(sentences), dtype=bool)
    if kind in cfg.value_kinds:
        new_lines = _labelled(sentences, cfg.new_line) & (has_span > 0)
        if new_lines.any():
            superseded_lines = _labelled(sentences, cfg.old_line) & ~new_lines
            if superseded_lines.any():
                # ... and what made the old line relevant (the heading above both) makes the new.
                context[new_lines] = np.maximum(context[new_lines],
                                                float((overlap + context)[superseded_lines].max()))
    # Among equally good sentences the one with the most specific span wins ("16x25x4"
    # over "16x25").
    specificity = np.array([len(f) if f else 0 for f in found]) / 1000.0
    # A sentence is in play when it holds the question's words, or its neighbour does, or
    # it names the asked property itself ("Weight: 34.5 lb" for "how heavy is the dog").
    labelled = np.array([bool(cue and cue.search(s)) for s in sentences])
    # "Network: Tranan-5G", "Key: Moln-Sparv-7741": a line whose own label the question
    # names holds what it asks ("what's our network called", "what's the key").
    # A word most lines repeat is the document's subject, and names no line.
    naming_set = set(term_weights.keys() if naming_words is None else naming_words)
    lines_of = {t: sum(t in tokens for tokens in token_sets) for t in naming_set}
    rare = {t for t, n in lines_of.items() if n <= cfg.line_term_max_sentences}
    label_named = _label_named(sentences, tokenize, rare, cfg.named_label_max_words,
                               [bool(tokens & rare) for tokens in token_sets])
    labelled |= label_named
    # A value's own label ("Total", "Amount due", "Lands at") says it is the one asked for,
    # unless the question names another line ("the deposit"): its words then lead.
    label = _value_label(cfg, kind)
    has_label = np.array([bool(label and label.search(s)) for s in sentences])
    asked_label = np.zeros(len(sentences), dtype=bool)
    for asked_kind, pattern in labels_asked:
        # The question says which value of its kind it wants: a policy's premium, not the
        # sums it insures; the date a form is due by, not the event's.
        if asked_kind == kind:
            asked_label |= _labelled(sentences, pattern)
    has_label |= asked_label
    # A table row splits label and value over two lines ("Total € Incl." / "VAT 681.87");
    # a label with its own value beside it ("Total: $7,098.52") labels no line after it
    # (the "Deposit received: -$2,000.00" under the total). A total's label alone on its
    # line over several lines of amounts heads their column ("Lp. Usluga / Service Brutto"
    # over the items): the first item is no total (a "Next due" column does date each row).
    label_near = has_label.copy()
    rows_below = np.zeros(len(sentences), dtype=bool)
    if kind in cfg.total_kinds:
        rows_below[:-2] = (has_span[1:-1] > 0) & (has_span[2:] > 0)
    label_near[1:] |= has_label[:-1] & (has_span[:-1] == 0) & ~rows_below[:-1]
    labelled_value = label_near & (has_span > 0)
    label_bonus = cfg.value_label_bonus * labelled_value
    # A total is asked for unless the question's own words name a line: the synonyms it
    # was widened with name none ("gas" for "utilities" is no "Natural gas" row).
    naming = naming_words if kind in cfg.total_kinds else None
    titled = set(tokenize([title])[0]) if title else set()
    naming_weight = (_named_lines(token_sets, found, term_weights, cfg, naming, titled) if span
                     else np.zeros(len(sentences)))
    named = naming_weight > 0
    deduction = (_labelled(sentences, cfg.deduction_label) if kind in cfg.total_kinds
                 else np.zeros(len(sentences), dtype=bool))
    if point_asked:
        # "What did they charge after ROT": the deduction is where the value is taken, not
        # the line asked for.
        named &= ~deduction
    if kind in cfg.total_kinds and whole_asked:
        # "What did the inverter and batteries END UP costing": the job the lines make up,
        # its total, however many of them the question names.
        named = np.zeros_like(named)
    if kind in cfg.total_kinds and named.sum() > 1:
        # "The eavestrough and flashing job" names several lines of a quote: the job is
        # all of them, and its total is the answer; unless one line holds several times as
        # many of the question's words ("the electric direct debit": "Your monthly direct debit: £96.00",
        # not the "Electricity" row of the bill).
        first, second = np.sort(naming_weight)[::-1][:2]
        named = naming_weight == first if first >= cfg.line_name_dominance * second else np.zeros_like(named)
    if kind in cfg.total_kinds and named.sum() == 1:
        # The first line of a bill or receipt that totals its lines is the job itself
        # ("Full service - labour", "Consultation - ear infection", "Service Gold"), and so
        # is its dearest ("Dental scale and polish, one extraction R890,00" beside the
        # anaesthetic and the pain medication): the question naming it asks what the job
        # came to, the total.
        totalled = _labelled(sentences, cfg.total_label) & (has_span > 0)
        line = int(np.flatnonzero(named)[0])
        if token_sets[line] & naming_set and totalled[line + 1:].any() and not totalled[line]:
            items = [i for i in np.flatnonzero(has_span > 0) if i < np.flatnonzero(totalled)[0]]
            amounts = [amount_value(found[i]) or 0.0 for i in items]
            if items and (line == items[0] or line == items[int(np.argmax(amounts))]):
                named = np.zeros_like(named)
    if rate is not None and span is not None and kind in cfg.total_kinds:
        # "How much a night": the lines stating a rate are named, each by its amount
        # nearest the unit ("$42.00/night", not the "$294.00" the nights come to).
        qualifiers = _naming_positions(sentences, tokenize, naming_set)
        per_unit = [c if by_rate else _per_unit(span, s, rate, retired, near)
                    for s, (c, by_rate), near in zip(sentences, columns, qualifiers)]
        if any(per_unit):
            found = [p or f for p, f in zip(per_unit, found)]
            named = np.array([p is not None for p in per_unit])
    if kind not in cfg.total_kinds and named.any():
        # "The guest wifi password": the line the question names holds it, not the one
        # labelled "Password:"; but a label the question asks for by its cue ("have to be
        # in by") still says which.
        label_bonus = cfg.value_label_bonus * (named + (asked_label & (has_span > 0)).astype(np.float64))
    elif kind in cfg.total_kinds:
        # "How much did the water heater cost": the document is about the water heater, the
        # total is the answer; "how much was the deposit" names a line of its own, which
        # then is the labelled value. What is still owed ("Balance due" after a deposit)
        # answers only a question about what is owed.
        if named.any():
            label_bonus = cfg.value_label_bonus * cfg.total_label_weight * named
        else:
            total = _labelled(sentences, cfg.total_label)
            # ("TOTAL balance due R30 140,00" under the invoice total is what remains.)
            owed = _labelled(sentences, cfg.owed_label) & (~total | _labelled(sentences, cfg.remaining_label))
            deducted = np.flatnonzero(deduction & (has_span > 0))
            before_deduction = np.zeros(len(sentences), dtype=bool)
            if paid_asked and deducted.size and (owed[deducted[0]:] & (has_span[deducted[0]:] > 0)).any():
                # What was paid after a deduction ("ROT avdrag -12 800,00") is what is to pay,
                # not the total before it.
                before_deduction = np.arange(len(sentences)) < deducted[0]
                owed &= before_deduction
                before_deduction &= total
            # A subtotal is the total only when no other total follows it ("Subtotal £120.83
            # / VAT £24.17 / TOTAL £145.00": £145.00, though the subtotal sits next to the
            # job's lines).
            net = _labelled(sentences, cfg.net_total_label) & (has_span > 0)
            gross = total & ~net & (has_span > 0)
            net &= np.cumsum(gross[::-1])[::-1] > 0
            label_bonus = label_bonus * np.where((owed & (not owed_asked)) | net | before_deduction,
                                                 1.0, cfg.total_label_weight)
    relevant = ((overlap + context) > 0) | labelled | labelled_value
    # An item of a list that holds the question's words says what the list has on it; the
    # other items are other things, whatever kind of value they name. Words the title or
    # the lines around the list hold too are its subject ("Smilla" atop a note about the
    # cat, the "Kita" of a daycare's letter): they name every item, not one.
    subject = set().union(*(t for t, in_list in zip(token_sets, item) if not in_list),
                          *(tokenize([title]) if title else []))
    own_words = {t: w for t, w in term_weights.items() if t not in subject}
    named_item = item & (_term_weight(token_sets, own_words) > 0) if own_words else np.zeros_like(item)
    other_items = item & ~named_item if named_item.any() else np.zeros_like(item)
    relevant &= ~other_items
    if kind in cfg.value_kinds and not (relevant & (has_span > 0)).any():
        # The document was found for the question and asked for a value ("what time does
        # Priya's party start"), but no line naming the question holds one: the lines that
        # hold a value are in play ("11:00 am - 1:00 pm" under the invitation's greeting),
        # not only the signature that repeats a name. Where the line naming it is an item
        # of a list, the other items are other things: their values are not in play.
        relevant |= (has_span > 0) & ~other_items
    # Totals close a document: among equally good labelled values the later wins (the
    # gross after the net, the amount due after the subtotal).
    position = np.arange(len(sentences)) / (len(sentences) * 1e4)
    scores = (overlap + cfg.context_weight * context + cfg.named_label_bonus * label_named
              + (cfg.kind_bonus * has_span + label_bonus + specificity
                 + position * labelled_value) * relevant)
    # Asked for a value the document holds ("how much is Oscar's invoice"): the answer is
    # one of its values, not the signature line that repeats the question's names; but
    # not another item's value when the list item naming the question holds none.
    with_value = (has_span > 0) & ~other_items
    if kind in cfg.span_only_kinds and with_value.any():
        scores = np.where(with_value, scores, -np.inf)
    scores = np.where(superseded_lines, -np.inf, scores)
    best = int(np.argmax(scores))
    chosen = [best]
    for i in np.argsort(-scores, kind="stable")[1:cfg.max_sentences]:
        if scores[i] > 0 and scores[i] >= cfg.second_sentence_share * scores[best]:
            chosen.append(int(i))
    chosen.sort()
    answer = " ".join(sentences[i] for i in chosen)
    # "Homework for this week:" says what follows: the list under it is the answer.
    lines = list(dict.fromkeys(j for i in chosen for j in [i, *_introduced(sentences, i, cfg.introduced_lines_max,
                                                                           cfg.table_header_max_words, chosen)]))
    if len(lines) > len(chosen):
        # Over max_chars, the last introduced lines go first, never a chosen sentence.
        added = [i for i in lines if i not in chosen]
        while len(added) > 1 and len(" ".join(sentences[i] for i in lines)) > cfg.max_chars:
            lines.remove(added.pop())
        answer = " ".join(sentences[i] for i in lines)
    if len(answer) > cfg.max_chars:
        answer = sentences[best][:cfg.max_chars].rstrip() + ("…" if len(sentences[best]) > cfg.max_chars else "")
    # The value: the best sentence's span; else the most specific among the chosen ("16x25x4"
    # over the "16x25" of a cabinet on the line before).
    # An amount is the best sentence's own: the longest of the chosen could be a neighbour's total.
    shown = found[best] if found[best] and (labelled_value[best] or kind in cfg.total_kinds) else None
    if shown is None:
        # (Of two as specific, the one on the line holding more of the question's own words:
        # "Saturday and Sunday: 08.00–20.00" asked about the weekend, not the weekdays' row
        # that only sits beside the title; else the first.)
        holding = [i for i in chosen if found[i]]
        shown = found[max(holding, key=lambda i: (len(found[i]), overlap[i]))] if holding else None
    return Extract(answer, normalise_value(shown) if shown else None, float(scores[best]), shown)


_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# A label's colon ends a word ("Weight: 34.5 lb"); a time's ("MAN 12:40") does not.
_LABEL_COLON = re.compile(r"[^\W\d_]:(?:\s|$)")


def _column_values(sentences: Sequence[str], spans_of: Sequence[list[re.Match]], term_weights: dict[str, float],
                   tokenize: Callable[[Sequence[str]], list[list[str]]], cfg: AnswerSection,
                   rate: re.Pattern | None, retired: re.Pattern | None,
                   label: re.Pattern | None = None) -> list[tuple[str | None, bool]]:
    """For each table row (a line with two or more values of the kind asked), the value in
    the column whose heading the question names, else None; and whether that heading states
    the rate asked for ("Daily rate" for "how much is a day").

    The heading is the nearest line above the row's block of rows that holds no value and
    only a few words. Text taken from a PDF has lost the gaps between cells, so a heading of
    n words over a row of m values is read as one word a cell, aligned at the right ("Sum
    insured Excess" over "£325,000 £350": "excess" is the last value, "insured" the one
    before it). Where as many heading words as the row has values are labels of the kind
    asked (`label`: "Departs PNQ Arrives BLR" over "11:55 13:30"), they are the columns."""
    out: list[tuple[str | None, bool]] = [(None, False)] * len(sentences)
    if all(len(m) < 2 for m in spans_of):
        return out
    rows = [_current(m, s, retired) for m, s in zip(spans_of, sentences)]
    heading_words: dict[int, tuple[list[str], np.ndarray] | None] = {}
    for i, values in enumerate(rows):
        # "Weight: 34.5 lb (33.2 lb on 06/03/2025)" is a labelled value, not a table row.
        if len(values) < 2 or _LABEL_COLON.search(sentences[i]):
            continue
        j = i - 1
        while j >= 0 and i - j <= cfg.table_header_lines and len(rows[j]) >= 2:
            j -= 1
        if j < 0 or i - j > cfg.table_header_lines or rows[j]:
            continue
        if j not in heading_words:
            heading_words[j] = _heading(sentences[j], term_weights, tokenize, cfg, rate)
        heading = heading_words[j]
        if heading is None:
            continue
        words, weight = heading
        if weight.max() <= 0:
            continue
        at = int(np.argmax(weight))
        labels = [k for k, word in enumerate(words) if label is not None and label.fullmatch(word)]
        if len(labels) == len(values) and weight[labels].max() > 0:
            # (The heading may name the question's subject too, "Flight": the label decides.)
            column = int(np.argmax(weight[labels]))
            at = labels[column]
        else:
            column = max(0, len(values) - 1 - (len(words) - 1 - at))
        out[i] = (values[column].group(0), rate is not None and bool(rate.search(words[at])))
    return out


def _heading(line: str, term_weights: dict[str, float], tokenize: Callable[[Sequence[str]], list[list[str]]],
             cfg: AnswerSection, rate: re.Pattern | None) -> tuple[list[str], np.ndarray] | None:
    """A table heading's words and how much each names the question (a stated rate, when
    one is asked, counts most), or None for a line that reads as prose."""
    words = _heading_words(line, cfg.table_header_max_words)
    if not words:
        return None
    tokens = tokenize(words)
    weight = np.array([max((term_weights.get(t, 0.0) for t in toks), default=0.0) for toks in tokens])
    if rate is not None:
        weight = np.where([bool(rate.search(w)) for w in words], weight.max(initial=0.0) + 1.0, weight)
    return words, weight


def _introduced(sentences: Sequence[str], best: int, most: int, heading_words: int = 0,
                chosen: Collection[int] = ()) -> list[int]:
    """The lines a line ending in a colon introduces: the list items right after it (up
    to `most`), else the one line after it. A table's heading ("Patient Date Time Dentist":
    a few words, no figures, no sentence's stops) introduces the rows under it
    (`_table_row`: "Kiara Botha Monday 23 November 2026 14:30 Dr Anele Zulu"): the heading names
    the question's words, the rows hold the answer; unless one of them is `chosen` already
    (the flight's "New" row under "Flight Date Departs Arrives", not its "Old" one too)."""
    if best + 1 >= len(sentences):
        return []
    if _heading_words(sentences[best], heading_words):
        rows = []
        for i in range(best + 1, min(len(sentences), best + 1 + most)):
            if not _table_row(sentences[i]) or (rows and _cells(sentences[i]) != _cells(sentences[rows[0]])):
                break
            rows.append(i)
        # Rows of one shape, two at least: a letterhead's address and phone under the
        # firm's name are no table.
        return rows if len(rows) >= 2 and not set(rows) & set(chosen) else []
    if not sentences[best].rstrip().endswith(":"):
        return []
    items = []
    for i in range(best + 1, min(len(sentences), best + 1 + most)):
        if not _LIST_ITEM.match(sentences[i]):
            break
        items.append(i)
    return items or [best + 1]


def _heading_words(line: str, most_words: int) -> list[str]:
    """The words of a line of column labels (two to `most_words` words, no figure, no stop
    or colon), or none for a line that is no heading."""
    words = _WORD.findall(line)
    return words if 2 <= len(words) <= most_words and not re.search(r"[.!?,;]\s*$|[\d:]", line) else []


def _cells(line: str) -> int:
    """How many figures a table row holds ("Reto 1984 2'500 392.40 61.80 454.20": 5)."""
    return len(_FIGURES.findall(line))


_FIGURES = re.compile(r"\d[\d'’.,/:]*")


def _table_row(line: str) -> bool:
    """A line of cells: it holds a figure, and no clause's comma or label's colon, and
    ends in no sentence's stop after a word ("Please arrive 10 minutes early.", "Date of
    issue: 14/04/2026" and "Schaffhauserstrasse 210, 8057 Zürich" are no rows)."""
    return (bool(re.search(r"\d", line)) and not re.search(r"[^\W\d_][.!?]\s*$|,\s", line)
            and not _LABEL_COLON.search(line))


@lru_cache(maxsize=8)
def _continuation(cfg: AnswerSection) -> re.Pattern | None:
    words = "|".join(map(re.escape, cfg.continuation_words))
    return re.compile(rf"(?:{words})\b", re.IGNORECASE) if words else None


def _continues(cfg: AnswerSection, sentence: str) -> bool:
    pattern = _continuation(cfg)
    return bool(pattern and pattern.match(sentence))


def _named_lines(token_sets: list[set[str]], found: list[str | None], term_weights: dict[str, float],
                 cfg: AnswerSection, naming_words: frozenset[str] | None = None,
                 titled: set[str] = frozenset()) -> np.ndarray:
    """How much each line is named by the question (0: not at all): how many of the
    question's words it holds that only a few sentences hold (a word most lines repeat is
    the subject), for lines holding a value. With `naming_words`, only those name a line."""
    counts: dict[str, int] = {}
    subject = term_weights.keys() if naming_words is None else term_weights.keys() & naming_words
    for tokens in token_sets:
        for t in tokens & subject:
            counts[t] = counts.get(t, 0) + 1
    rare = {t for t, n in counts.items() if n <= cfg.line_term_max_sentences}
    named = np.array([len(tokens & rare) if f is not None else 0 for tokens, f in zip(token_sets, found)],
                     dtype=np.float64)
    if naming_words is None:
        return named
    # Asked for an amount, a word only headings (a table's short lines without a value) hold
    # ("Deductible Amount" over "All perils $1,000" / "Sewer backup $2,500") names the rows
    # under each of them, up to the next line without a value: the first row (the general
    # case) in full, the others by a share. A word of the document's title is what it is
    # about ("Indlovu Insure" over "Item Sum insured"): it names no heading.
    valued = set().union(*(tokens for tokens, f in zip(token_sets, found) if f is not None)) & subject
    heading = [bool((tokens & subject) - valued - titled) and f is None and len(tokens) <= cfg.heading_max_words
               for tokens, f in zip(token_sets, found)]
    share = 0.0
    # A row that says, with its table's heading, every word the question names a line by
    # ("Sewer backup (endorsement) $25,000" under "Coverage Limit", asked how much sewer
    # backup coverage there is; the "Sewer backup $2,500" under "Deductible" says less)
    # is the one asked for, when it is the only one. (The title's words name the document:
    # "QualityHosting AG" in its small print is no line asked for.)
    asked = (subject & set().union(*token_sets)) - titled
    under: set[str] = set()
    whole = np.zeros(len(found), dtype=bool)
    for i, f in enumerate(found):
        if f is None:
            share = 1.0 if heading[i] else 0.0
            under = token_sets[i] if heading[i] else set()
        else:
            whole[i] = len(asked) > 1 and asked <= (token_sets[i] | under)
            if share:
                named[i] += share
                share = cfg.heading_row_share
    if whole.sum() == 1:
        named[whole] = max(float(named.max()) * cfg.line_name_dominance, 1.0) * len(asked)
    return named


_LINE_LABEL = re.compile(r"^\s*(?:[-*•]\s*)?([^\W\d_][\w'’ -]{0,30}?)\s*:\s+\S")


def _label_named(sentences: Sequence[str], tokenize: Callable[[Sequence[str]], list[list[str]]],
                 naming: Collection[str], max_words: int, holds: Sequence[bool]) -> np.ndarray:
    """Which lines open with a label of at most `max_words` words ("Key: ...", "- Network:
    ...") holding one of the `naming` words (`holds`: does the line hold one at all)."""
    labels = [m.group(1) if held and (m := _LINE_LABEL.match(s)) and len(m.group(1).split()) <= max_words else ""
              for s, held in zip(sentences, holds)]
    if not any(labels):
        return np.zeros(len(sentences), dtype=bool)
    naming = set(naming)
    return np.array([bool(label and naming.intersection(tokens)) for label, tokens in zip(labels, tokenize(labels))])


def _labelled(sentences: Sequence[str], pattern: str) -> np.ndarray:
    regex = compiled_regex(pattern)
    return np.array([bool(regex.search(s)) for s in sentences], dtype=bool)


@lru_cache(maxsize=16)
def compiled_regex(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE)


@lru_cache(maxsize=32)
def _value_label(cfg: AnswerSection, kind: str | None) -> re.Pattern | None:
    pattern = dict(cfg.value_labels).get(kind) if kind else None
    return re.compile(pattern, re.IGNORECASE) if pattern else None


def same_value(a: str, b: str, kind: str | None = None) -> bool:
    """One value, compared as a value of its kind: times as times (1:30 is not 11:30),
    dates as dates (May 1 is not May 12), amounts as numbers, sizes as dimensions ("16x25"
    is "16x25x4" written less fully). Other kinds: the same text."""
    if a == b:
        return True
    compare = _COMPARERS.get(kind or "")
    if compare is None:
        return False
    try:
        return compare(a, b)
    except (ValueError, OverflowError):
        return False


def _same_size(a: str, b: str) -> bool:
    x, y = a.split("x"), b.split("x")
    shorter, longer = sorted((x, y), key=len)
    return longer[:len(shorter)] == shorter


_CLOCK = re.compile(r"(\d{1,2})(?:(?:[:.]|\s?h\s?)(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?")   # "17 h 15" too


def _minutes(value: str) -> int:
    if "noon" in value:
        return 12 * 60
    m = _CLOCK.search(value)
    if m is None:
        raise ValueError(value)
    return _clock_minutes(m)


def clock_minutes(text: str) -> list[int]:
    """Every clock time `text` writes, in minutes after midnight ("5:30-6:45 pm": 330, 1125)."""
    return [_clock_minutes(m) for m in _CLOCK.finditer(text)]


def _clock_minutes(m: re.Match) -> int:
    hour, minute = int(m.group(1)) % 12 if m.group(3) else int(m.group(1)), int(m.group(2) or 0)
    if m.group(3) and m.group(3).startswith("p"):
        hour += 12
    return hour * 60 + minute


def _same_time(a: str, b: str) -> bool:
    return _minutes(a) == _minutes(b)


def _same_date(a: str, b: str) -> bool:
    from dateutil import parser as dateparser

    # Two defaults: a part neither names (the year) cannot make them differ.
    first, second = (datetime(1904, 2, 29), datetime(1908, 2, 29))
    return all(dateparser.parse(a, default=d, fuzzy=True) == dateparser.parse(b, default=d, fuzzy=True)
               for d in (first, second))


def _same_amount(a: str, b: str) -> bool:
    x, y = amount_value(a), amount_value(b)
    return x is not None and y is not None and abs(x - y) < 0.005


_COMPARERS = {"size": _same_size, "time": _same_time, "date": _same_date, "amount": _same_amount,
              "percent": _same_amount}


def whole(text: str, kind: str | None, cfg: AnswerSection) -> Extract:
    """A short record (a calendar event) as the answer: its lines, up to `max_chars`."""
    lines = list(dict.fromkeys(split_sentences(text)))   # the title repeats the summary
    answer = ""
    for line in lines:
        if len(answer) + len(line) + 2 > cfg.max_chars:
            break
        answer = f"{answer}; {line}" if answer else line
    _, spans = _compiled(cfg)
    span = spans.get(kind) if kind else None
    value = _longest(span, answer) if span else None
    return Extract(answer, normalise_value(value) if value else None, 1.0, value)


_QUOTED = re.compile(r"^[ \t]*>.*$|^On .{5,200} wrote:[ \t]*$", re.MULTILINE)


def strip_quoted(text: str) -> str:
    """A reply without the lines it quotes (and the "On … wrote:" before them)."""
    return _QUOTED.sub("", text)
_HEADER = re.compile(r"^(subject|from|to|cc|date|sent):", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s")


def header_line(line: str) -> bool:
    """A mail header kept in a message's text ("Subject: ...", "From: ...")."""
    return _HEADER.match(line) is not None


def _answerable_line(sentence: str, title: str, span: re.Pattern | None, salutation: re.Pattern) -> bool:
    """Not a mail header line, nor a line that only greets ("Hi all,"), nor a line that only
    repeats the title or is a heading ("# Gift ideas": what the lines under it are about)
    unless it holds a value of the kind asked for."""
    if header_line(sentence) or salutation.fullmatch(sentence.strip()):
        return False
    if (title and sentence.strip().lower() == title.strip().lower()) or _HEADING.match(sentence):
        return span is not None and span.search(sentence) is not None
    return True


def _term_weight(token_sets: Sequence[set[str]], term_weights: dict[str, float]) -> np.ndarray:
    """The weight of the question's terms each sentence holds."""
    return np.array([sum(term_weights.get(t, 0.0) for t in tokens) for tokens in token_sets],
                    dtype=np.float64)


def year_of(shown: str, written: date, lookback_days: int) -> int | None:
    """The year of a date written without one ("21 August" in a letter of June 2023): the
    first such day from `lookback_days` before the document on. None when `shown` has a
    year, or is no day and month."""
    if _YEAR.search(shown) or not any(c.isdigit() for c in shown):
        return None
    day = _parsed_day(shown, written.year - 1, fuzzy=False, dayfirst=False)
    if day is None:
        return None
    earliest = written - timedelta(days=lookback_days)
    while day < earliest:
        try:
            day = day.replace(year=day.year + 1)
        except ValueError:      # 29 February
            day = day.replace(year=day.year + 1, day=28)
    return day.year


# Whole month names of fewer than five letters; the other short ones are abbreviations.
_SHORT_MONTH_NAMES = ("mai", "mei", "mars", "märz", "juin", "juni", "juli", "août", "aout", "mayo", "maj", "maja",
                      "luty")
_ENGLISH_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                   "october", "november", "december")


@lru_cache(maxsize=1)
def _sentence_end() -> re.Pattern:
    """Where a sentence ends (see _SENTENCE_END_TEXT): not at the dot of a day written as
    an ordinal before its month, as German and the Scandinavian languages write it ("ab 1.
    Dezember", "den 5. mars")."""
    months = "|".join([*_ENGLISH_MONTHS, _foreign_months()[0]])
    ordinal = rf"(?:(?<=\b\d\.)|(?<=\b\d\d\.))\s+(?i:{months})\b"
    return re.compile(_SENTENCE_END_TEXT.format(ordinal=ordinal))


@lru_cache(maxsize=1)
def _foreign_months() -> tuple[str, re.Pattern, dict[str, str]]:
    """The other languages' month names ingestion reads ("février", "März", "mayo"): whole
    names, not abbreviations ("ago" is no month); as a regex alternation, as a pattern
    matching one as a word, and with the English name of each."""
    from ingest.printed_dates import month_names

    names = {name: _ENGLISH_MONTHS[number - 1] for name, number in month_names().items()
             if name not in _ENGLISH_MONTHS and (len(name) >= 5 or name in _SHORT_MONTH_NAMES)}
    alternation = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    return alternation, re.compile(rf"\b({alternation})\b", re.IGNORECASE), names


@lru_cache(maxsize=4)
def date_span(pattern: str) -> re.Pattern:
    """The configured date span, or a day and a month named in another language ("Lundi 15
    février", "1er mars 2027", "12. März", "15 de febrero de 2027")."""
    months = _foreign_months()[0]
    # An ordinal's dot is German, Scandinavian or Polish whatever the month's spelling:
    # "Freitag, 13. November".
    english = "|".join(_ENGLISH_MONTHS)
    foreign = (rf"\b\d{{1,2}}(?:(?:er|e)?\.?\s+(?:de\s+)?(?:{months})|\.\s+(?:{english}))\b"
               rf"(?:\s+(?:de\s+)?\d{{4}}\b)?")
    # The foreign form first: "4 mars" is not the "4 mar" of an English abbreviation.
    return re.compile(f"{foreign}|{pattern.removeprefix('(?i)')}", re.IGNORECASE)


def in_english(shown: str) -> str:
    """A written date with its month named in English ("lundi 15 février" -> "lundi 15
    February"; a French ordinal "1er" -> "1"), for the date parser, which reads English."""
    _, pattern, names = _foreign_months()
    shown = pattern.sub(lambda m: names[m.group(1).lower()], shown)
    return _FRENCH_ORDINAL.sub(r"\1", shown)


_FRENCH_ORDINAL = re.compile(r"\b(\d{1,2})(?:er|e)\b")


def date_of(shown: str, written: date, lookback_days: int) -> date | None:
    """The day a date span names, its year the letter's when it has none (`year_of`);
    None when it names no day."""
    shown = in_english(shown)
    default_year = year_of(shown, written, lookback_days) or written.year
    day = _parsed_day(shown, default_year, fuzzy=True, dayfirst=False)
    if day is None:
        return None
    if _DOTTED_DAY.search(shown):
        # "03.09.2026" is written day first wherever dates are written with dots.
        return _parsed_day(shown, default_year, fuzzy=True, dayfirst=True) or day
    if _NUMERIC_DAY.search(shown):
        # "05/12/2025" is 12 May in Madison and 5 December in Manchester: of the two
        # readings, the one nearer the day it was written.
        other = _parsed_day(shown, default_year, fuzzy=True, dayfirst=True)
        if other is None:
            return day
        day = min((day, other), key=lambda d: abs((d - written).days))
    return day


@lru_cache(maxsize=4096)
def _parsed_day(shown: str, default_year: int, fuzzy: bool, dayfirst: bool) -> date | None:
    """dateutil's reading of a date span, its missing parts from 1 January of
    `default_year`; None when it reads none. Remembered: a household writes the same
    days in many letters, and the parser is the dearest part of reading a chunk's days."""
    from dateutil.parser import parse as parse_date   # loads with the first date read
    try:
        return parse_date(shown, default=datetime(default_year, 1, 1), fuzzy=fuzzy, dayfirst=dayfirst).date()
    except (ValueError, OverflowError):
        return None


def dates_in(text: str, written: date | None, cfg: AnswerSection) -> list[tuple[re.Match, date | None]]:
    """Every date span of `text`, each with the day it names read against the day the text
    was written (`date_of`; None when it names none, or nothing says when it was written)."""
    read: dict[str, date | None] = {}
    out = []
    for m in span_patterns(cfg)["date"].finditer(text):
        shown = m.group(0)
        if shown not in read:
            read[shown] = None if written is None else date_of(shown, written, cfg.undated_year_lookback_days)
        out.append((m, read[shown]))
    return out


_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY_MONTH = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?=\W|$)", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?!\d)", re.IGNORECASE)
_NUMERIC = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.]\d{2,4}\b")


_DOTTED_DATE = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# How a text writing its dates in numbers writes them, as a strftime format.
_NUMBER_FORMS = ((_DOTTED_DATE, "%d.%m.%Y"), (_ISO_DATE, "%Y-%m-%d"))


def numeric_date_form(text: str) -> str | None:
    """The strftime format of the way a text writes its dates when it writes them in
    numbers more often than in words ("Datum: 17.06.2026", "Date: 2025-05-14"); else None."""
    in_words = len(_DAY_MONTH.findall(text)) + len(_MONTH_DAY.findall(text))
    counts = [(len(pattern.findall(text)), form) for pattern, form in _NUMBER_FORMS]
    count, form = max(counts)
    return form if count > in_words else None


def writes_dates(text: str) -> bool:
    """Does a text write any date, in words or in numbers?"""
    return any(p.search(text) for p in (_DAY_MONTH, _MONTH_DAY, *(pattern for pattern, _ in _NUMBER_FORMS)))


def day_first_lean(text: str) -> int:
    """How a text writes its dates: > 0 day first ("9 October", "17/03/2023"), < 0 month
    first ("October 9", "03/17/2023"), 0 when it does not say."""
    lean = len(_DAY_MONTH.findall(text)) - len(_MONTH_DAY.findall(text))
    for first, second in _NUMERIC.findall(text):
        lean += (int(first) > 12) - (int(second) > 12)
    return lean


def normalise_value(value: str) -> str:
    """Compare '16 x 25 x 4' with '16x25x4', '$88.95' with '$ 88.95'."""
    return _SPACE.sub("", value).lower().rstrip(".")


def added_lines(record: str, plan: str, tokenize: Callable[[Sequence[str]], list[list[str]]],
                priced: re.Pattern, share: float, most: int) -> list[str]:
    """The priced lines of a bill that its quote did not have ("Thermal expansion tank
    (required by inspector) $145.00", "Extra: putty + damp-proof coat - 4,450.00"): what
    made it come to more. A line is the quote's when an item of the quote (a line ending in
    its price, not the condition "if the inspector requires an expansion tank, it will be
    added at $145.00 plus tax") holds at least `share` of its words, amounts aside; at most
    `most` lines, in the bill's order."""
    lines = [line.strip() for line in record.splitlines() if priced.search(line)]
    items = [line for line in plan.splitlines() if _ends_priced(line, priced)]
    quoted = [set(t) for t in tokenize(items)]
    words = [{t for t in tokens if not t[:1].isdigit()} for tokens in tokenize(lines)]
    added = [line for line, own in zip(lines, words)
             if own and not any(len(own & q) >= share * len(own) for q in quoted)]
    return added[:most]


def _ends_priced(line: str, priced: re.Pattern) -> bool:
    found = None
    for found in priced.finditer(line):
        pass
    return found is not None and not line[found.end():].strip(" \t|.")


def snippet(text: str, term_weights: dict[str, float], tokenize: Callable[[Sequence[str]], list[list[str]]],
            limit: int) -> str:
    """The passage of a chunk that best matches the question, at most `limit` characters."""
    sentences = split_sentences(text)
    if not sentences:
        return ""
    scores = _term_weight([set(t) for t in tokenize(sentences)], term_weights)
    start = int(np.argmax(scores))
    out = sentences[start]
    for extra in sentences[start + 1:]:
        if len(out) + 1 + len(extra) > limit:
            break
        out += " " + extra
    return out if len(out) <= limit else out[:limit - 1].rstrip() + "…"


# An amount's unit, as the amount span reads it: "/night", "/h", " an hour", " pro Stunde".
_PER_UNIT = re.compile(r"(?:/\s?[^\W\d_]{1,6}\.?|\s(?:an?|per|pro|each|i|la|de l'|par)\s[^\W\d_]+)$", re.IGNORECASE)


def rate_asked(question: str, cfg: AnswerSection) -> re.Pattern | None:
    """The rate a question asks for ("how much a night", "the monthly premium"), as the
    pattern of that unit's rate in a text; None when it asks for no rate ("last month")."""
    for pattern in _rate_patterns(cfg):
        if pattern.search(question):
            return pattern
    return None


@lru_cache(maxsize=8)
def _rate_patterns(cfg: AnswerSection) -> tuple[re.Pattern, ...]:
    def other(way: str) -> str:
        return rf"/\s*{re.escape(way[1:])}\b" if way.startswith("/") else rf"\b{re.escape(way)}\b"
    return tuple(re.compile(rf"(?:/\s*|\b(?:per|a|an|each|every)\s+){re.escape(unit)}\b"
                            + "".join("|" + other(way) for way in ways), re.IGNORECASE)
                 for unit, *ways in cfg.rate_units)


def _per_unit(span: re.Pattern, sentence: str, rate: re.Pattern, retired: re.Pattern | None = None,
              near: Sequence[tuple[int, int]] = ()) -> str | None:
    """The amount of `sentence` nearest a statement of the rate, or None; of several as
    near, the one nearest a word the question names (`near`: their spans): "560 kr/h
    (280 kr/h after RUT deduction)" asked "per hour after rut"."""
    units = [(m.start(), m.end()) for m in rate.finditer(sentence)]
    if not units:
        return None
    amounts = _current(list(span.finditer(sentence)), sentence, retired)
    if not amounts:
        return None
    def distance(m: re.Match, spans: Sequence[tuple[int, int]]) -> int:
        return min(u0 - m.end() if u0 >= m.end() else m.start() - u1 if m.start() >= u1 else 0
                   for u0, u1 in spans)
    return min(amounts, key=lambda m: (distance(m, units), distance(m, near) if near else 0)).group(0)


def _naming_positions(sentences: Sequence[str], tokenize: Callable[[Sequence[str]], list[list[str]]],
                      naming: Collection[str]) -> list[list[tuple[int, int]]]:
    """Per sentence, the character spans of its words that are among `naming` (stems)."""
    words = [list(_WORD.finditer(s)) for s in sentences]
    flat = [m.group(0) for found in words for m in found]
    stems = iter(tokenize(flat) if flat else [])
    wanted = set(naming)
    return [[m.span() for m in found if wanted.intersection(next(stems))] for found in words]


def _nearest_after(matches: list[re.Match], words: list[tuple[int, int]]) -> str | None:
    """Of several values, the one nearest after one of `words` (character spans); None
    when there is no choice to make or no such word comes before any of them."""
    if len(matches) < 2 or not words:
        return None
    gaps = [min((m.start() - end for _, end in words if end <= m.start()), default=None) for m in matches]
    placed = [(gap, k) for k, gap in enumerate(gaps) if gap is not None]
    return matches[min(placed)[1]].group(0) if placed else None


def _longest(span: re.Pattern, sentence: str, rival: re.Pattern | None = None,
             retired: re.Pattern | None = None) -> str | None:
    """The longest span in `sentence`, skipping one that another kind's label names
    ("serial 2401A118734" is no model number) and, beside another, one the sentence says
    was replaced ("goes from €32 to €35.50", "£38.00 (was £35.50)")."""
    return _longest_of(list(span.finditer(sentence)), sentence, rival, retired)


_ROW_TAIL = re.compile(r"[\s|]*")


def _last_column(found: list[re.Match], sentence: str) -> str | None:
    """The last of several values ending a line with nothing but values after the first
    (a table row's columns), else None."""
    if len(found) < 2 or not _ROW_TAIL.fullmatch(sentence, found[-1].end()):
        return None
    if not all(_ROW_TAIL.fullmatch(sentence, a.end(), b.start()) for a, b in zip(found, found[1:])):
        return None
    return found[-1].group(0)


def _longest_of(found: list[re.Match], sentence: str, rival: re.Pattern | None = None,
                retired: re.Pattern | None = None) -> str | None:
    """`_longest` over the span matches already found in `sentence`."""
    matches = _current([m for m in found if rival is None or not rival.search(sentence, 0, m.start())],
                       sentence, retired)
    return max((m.group(0) for m in matches), key=len) if matches else None


def _current(matches: list[re.Match], sentence: str, retired: re.Pattern | None) -> list[re.Match]:
    """Of several values in a sentence, those it does not say were replaced."""
    if retired is None or len(matches) < 2:
        return matches
    return [m for m in matches if not retired.search(sentence, 0, m.start())] or matches


@lru_cache(maxsize=32)
def _rival_label(cfg: AnswerSection, kind: str | None) -> re.Pattern | None:
    """The labels of kinds whose values look alike, right before a span: "serial: " when a
    model number is asked."""
    rivals = {r for k, r in cfg.label_rivals if k == kind}
    others = [pattern for other, pattern in cfg.value_labels if other in rivals]
    return re.compile(rf"(?:{'|'.join(others)})\W{{0,3}}$", re.IGNORECASE) if others and kind else None
