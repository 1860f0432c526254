"""The query router: which pattern a question follows, how much recency matters, and when.

- ``logistical``: schedules and current status ("Is Friday a half day?"): the freshest
  source wins.
- ``entity``: the value of an attribute ("What size is our HVAC filter?"): the latest
  value wins.
- ``historical``: a past event ("Who replaced our roof?"): old documents count fully.

A TF-IDF (word + character n-grams) -> logistic-regression model trained on the labelled
questions in `config/router_queries.tsv` gives p_model; explicit cues from `[router]` vote
for a pattern; the two are fused as

    p(pattern) ∝ p_model(pattern) * exp(cue_weight * min(votes(pattern), cue_cap))

(`fuse`). The recency need r(q) and the named time window (`timewindow.find_window`) are
extracted alongside; `now` is always passed in, never read from the clock.
"""
from __future__ import annotations

import csv
import functools
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from ingest.config import config_file

from ..config import RouterSection
from ..files import from_json_array, json_array
from .patterns import PATTERNS
from .timewindow import TimeWindow, find_window

_IS_CONTRACTION = re.compile(r"\b(what|who|where|when|how|which|that|it|there|here)'s\b")


@dataclass(frozen=True)
class Route:
    pattern: str
    scores: dict[str, float]      # probabilities, sum to 1, keys = PATTERNS
    recency: float                # r(q) in [0, 1]
    window: TimeWindow | None
    cues: tuple[str, ...]         # "<pattern>:<words>" and "recency:<words>", in text order


@dataclass(frozen=True)
class CueMatch:
    group: str        # a pattern, or "recency"
    words: str        # the question's words that matched
    start: int        # character span in the normalised question
    end: int


def normalise(text: str) -> str:
    """Lowercase tokens joined by single spaces: "who's" is "who is", a possessive "'s" is
    dropped, other apostrophes removed, any other punctuation a separator ("What's Theo's
    wi-fi?" -> "what is theo wi fi")."""
    text = text.lower().replace("\u2019", "'")
    text = _IS_CONTRACTION.sub(r"\1 is", text)
    text = re.sub(r"'s\b", "", text).replace("'", "")
    return " ".join(re.findall(r"[a-z0-9]+", text))


def model_text(question: str) -> str:
    """What the classifier reads: the normalised question with 4-digit years made one
    token, so a year it never saw in training still reads as a year."""
    return re.sub(r"\b(?:19|20)\d\d\b", "yearnum", normalise(question))


def fuse(proba: np.ndarray, votes: np.ndarray, weight: float, cap: int) -> np.ndarray:
    """Model probabilities (..., n_patterns) times exp(weight * capped cue votes), renormalised."""
    logits = np.log(np.clip(proba, 1e-12, None)) + weight * np.minimum(votes, cap)
    logits -= logits.max(axis=-1, keepdims=True)
    fused = np.exp(logits)
    return fused / fused.sum(axis=-1, keepdims=True)


def recency_need(scores: np.ndarray, recency_cue: bool, window: TimeWindow | None,
                 cfg: RouterSection) -> float:
    """r(q): probability-weighted pattern recency, floored by a recency cue, capped when a
    past period is named."""
    per_pattern = np.array([cfg.recency_logistical, cfg.recency_entity, cfg.recency_historical])
    r = float(scores @ per_pattern)
    if recency_cue:
        r = max(r, cfg.recency_cue_floor)
    if window is not None and window.kind == "period":
        r = min(r, cfg.recency_period_cap)
    return float(np.clip(r, 0.0, 1.0))


class CueMatcher:
    """Cue phrases compiled to token-boundary regexes over `normalise`d text."""

    _WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                 "tues", "thurs", "fri")
    _MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december", "jan", "feb", "apr", "jun",
               "jul", "aug", "sept", "sep", "oct", "nov", "dec")
    _SEASONS = ("spring", "summer", "fall", "autumn", "winter")

    def __init__(self, groups: dict[str, Sequence[str]], past_verbs: Sequence[str],
                 not_past_verbs: Sequence[str]):
        not_past = "|".join(map(re.escape, not_past_verbs)) or "(?!)"
        irregular = "|".join(map(re.escape, past_verbs)) or "(?!)"
        self._slots = {
            "weekday": _alternation(self._WEEKDAYS),
            "month": _alternation(self._MONTHS),
            "season": _alternation(self._SEASONS),
            "past_year": r"(?P<past_year>(?:19|20)\d\d)",
            "past": rf"(?!(?:{not_past})(?!\S))(?:[a-z]+ed|{irregular})",
            "any": r"[a-z0-9]+",
        }
        self.cues = [(group, phrase, self._compile(phrase))
                     for group, phrases in groups.items() for phrase in phrases]

    def _compile(self, phrase: str) -> re.Pattern:
        parts = []
        for token in phrase.split():
            slot = re.fullmatch(r"\{(\w+)\}", token)
            if slot:
                if slot[1] not in self._slots:
                    raise ValueError(f"unknown cue placeholder {token} in {phrase!r}; "
                                     f"valid: {', '.join('{' + s + '}' for s in self._slots)}")
                parts.append(self._slots[slot[1]])
            else:
                parts.extend(map(re.escape, normalise(token).split()))
        return re.compile(r"(?<!\S)" + " ".join(parts) + r"(?!\S)")

    def match(self, text: str, now: datetime) -> list[CueMatch]:
        """The cues in normalised `text`, without those inside a longer match: a pattern's
        phrase inside another pattern's longer phrase is dropped too ("how much" in "how
        much did"), but recency cues are a separate layer."""
        found = []
        for group, _phrase, pattern in self.cues:
            for m in pattern.finditer(text):
                year = m.groupdict().get("past_year")
                if year is not None and int(year) >= now.year:
                    continue
                found.append(CueMatch(group, m.group(0), m.start(), m.end()))
        kept = [c for layer in (False, True)
                for c in _outermost([c for c in found if (c.group == "recency") == layer])]
        unique = {(c.group, c.start, c.end): c for c in kept}
        return sorted(unique.values(), key=lambda c: (c.start, c.end, c.group))


def _outermost(matches: list[CueMatch]) -> list[CueMatch]:
    """The matches not inside a strictly longer one, in one sweep (a pairwise check was
    quadratic: 42 s for a 300 KB question). In (start, -end) order, everything before a
    span that starts no later and reaches at least as far contains it; equal spans (one
    phrase in two patterns) do not drop each other."""
    ordered = sorted(matches, key=lambda c: (c.start, -c.end))
    kept: list[CueMatch] = []
    reach = -1  # the furthest end among the spans before the current one
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and (ordered[j].start, ordered[j].end) == (ordered[i].start, ordered[i].end):
            j += 1
        if reach < ordered[i].end:
            kept.extend(ordered[i:j])
        reach = max(reach, ordered[i].end)
        i = j
    return kept


def cue_votes(matches: Sequence[CueMatch]) -> np.ndarray:
    """Votes per pattern: separate phrases; overlapping phrases of one pattern vote once."""
    votes = np.zeros(len(PATTERNS))
    for k, pattern in enumerate(PATTERNS):
        end = -1
        for c in sorted((c for c in matches if c.group == pattern), key=lambda c: c.start):
            if c.start >= end:
                votes[k] += 1
            end = max(end, c.end)
    return votes


class TextModel:
    """The fitted classifier as plain arrays, answering without scikit-learn (loading it
    costs a second a command): the word and char_wb TF-IDF vocabularies and idf of the
    fitted `TfidfVectorizer`s, and the multinomial logistic regression's coefficients.
    `predict_proba` repeats scikit-learn's arithmetic step for step (counts, sublinear tf,
    idf, row L2 norm, one sparse product, softmax), so its probabilities are the fitted
    pipeline's to the bit (tests/test_router.py compares them)."""

    _WHITE_SPACES = re.compile(r"\s\s+")      # TfidfVectorizer's, for char_wb
    _TOKEN = re.compile(r"\b\w+\b")           # the word part's token_pattern

    def __init__(self, cfg: RouterSection, word_vocab: dict[str, int], word_idf: np.ndarray,
                 char_vocab: dict[str, int], char_idf: np.ndarray, coef: np.ndarray,
                 intercept: np.ndarray, columns: np.ndarray):
        self.cfg = cfg
        self.word_vocab, self.word_idf = word_vocab, word_idf
        self.char_vocab, self.char_idf = char_vocab, char_idf
        self.coef, self.intercept, self.columns = coef, intercept, columns

    @classmethod
    def from_sklearn(cls, cfg: RouterSection, union, logistic, columns: np.ndarray) -> TextModel:
        (_, word), (_, char) = union.transformer_list
        return cls(cfg, dict(word.vocabulary_), word.idf_, dict(char.vocabulary_), char.idf_,
                   logistic.coef_, logistic.intercept_, columns)

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        from scipy import sparse

        parts = [self._tfidf([self._words(t) for t in texts], self.word_vocab, self.word_idf),
                 self._tfidf([self._chars(t) for t in texts], self.char_vocab, self.char_idf)]
        width = len(self.word_vocab)
        data = [np.concatenate([parts[0][0][i], parts[1][0][i]]) for i in range(len(texts))]
        cols = [np.concatenate([parts[0][1][i], parts[1][1][i] + width]) for i in range(len(texts))]
        indptr = np.concatenate([[0], np.cumsum([len(d) for d in data])])
        features = sparse.csr_matrix(
            (np.concatenate(data) if data else np.zeros(0), np.concatenate(cols) if cols else np.zeros(0, np.int32),
             indptr), shape=(len(texts), width + len(self.char_vocab)))
        decision = features @ self.coef.T + self.intercept
        # sklearn.utils.extmath.softmax, in place as there.
        decision -= np.max(decision, axis=1).reshape((-1, 1))
        np.exp(decision, out=decision)
        decision /= np.sum(decision, axis=1).reshape((-1, 1))
        return decision[:, self.columns]

    def _words(self, text: str) -> list[str]:
        """TfidfVectorizer's word analyzer: lowercase, token_pattern, 1..n-grams."""
        tokens = self._TOKEN.findall(text.lower())
        grams = list(tokens)
        for n in range(2, min(self.cfg.word_ngram_max + 1, len(tokens) + 1)):
            grams += [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
        return grams

    def _chars(self, text: str) -> list[str]:
        """TfidfVectorizer's char_wb analyzer: n-grams inside space-padded words (a word
        shorter than n counts once)."""
        grams = []
        for word in self._WHITE_SPACES.sub(" ", text.lower()).split():
            padded = f" {word} "
            for n in range(self.cfg.char_ngram_min, self.cfg.char_ngram_max + 1):
                grams += [padded[i:i + n] for i in range(max(1, len(padded) - n + 1))]
                if len(padded) <= n:
                    break
        return grams

    def _tfidf(self, docs: list[list[str]], vocab: dict[str, int], idf: np.ndarray
               ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per text, the sorted feature columns and their L2-normalised tf-idf weights."""
        values, columns = [], []
        for grams in docs:
            counts: dict[int, int] = {}
            for gram in grams:
                col = vocab.get(gram)
                if col is not None:
                    counts[col] = counts.get(col, 0) + 1
            cols = np.array(sorted(counts), dtype=np.int32)
            data = np.array([counts[c] for c in cols], dtype=np.float64)
            if self.cfg.sublinear_tf:
                np.log(data, data)
                data += 1.0
            data *= idf[cols]
            total = 0.0
            for x in data.tolist():   # summed in order, as scikit-learn's row normaliser does
                total += x * x
            if total != 0.0:
                data /= math.sqrt(total)
            values.append(data)
            columns.append(cols)
        return values, columns

    # Persistence: arrays and JSON text only (a cache file must never be able to run code).
    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"format": np.array(_MODEL_FORMAT), "settings": np.array(settings_key(self.cfg)),
                "word_vocab": json_array(_ordered(self.word_vocab)), "word_idf": self.word_idf,
                "char_vocab": json_array(_ordered(self.char_vocab)), "char_idf": self.char_idf,
                "coef": self.coef, "intercept": self.intercept, "columns": self.columns}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], cfg: RouterSection) -> TextModel | None:
        """The model saved by `to_arrays`, or None when it was fitted with other settings
        or other questions, or its arrays do not fit together."""
        try:
            if int(arrays["format"]) != _MODEL_FORMAT or str(arrays["settings"]) != settings_key(cfg):
                return None
            words, chars = from_json_array(arrays["word_vocab"]), from_json_array(arrays["char_vocab"])
            word_idf = np.asarray(arrays["word_idf"], dtype=np.float64)
            char_idf = np.asarray(arrays["char_idf"], dtype=np.float64)
            coef = np.asarray(arrays["coef"], dtype=np.float64)
            intercept = np.asarray(arrays["intercept"], dtype=np.float64)
            columns = np.asarray(arrays["columns"])
            ok = (isinstance(words, list) and isinstance(chars, list)
                  and all(isinstance(t, str) for t in words + chars)
                  and len(set(words)) == len(words) and len(set(chars)) == len(chars)
                  and word_idf.shape == (len(words),) and char_idf.shape == (len(chars),)
                  and coef.shape == (len(PATTERNS), len(words) + len(chars))
                  and intercept.shape == (len(PATTERNS),) and columns.dtype.kind in "iu"
                  and sorted(columns.tolist()) == list(range(len(PATTERNS))))
        except (KeyError, ValueError, TypeError):
            return None
        if not ok:
            return None
        return cls(cfg, {t: i for i, t in enumerate(words)}, word_idf,
                   {t: i for i, t in enumerate(chars)}, char_idf, coef, intercept, columns)


_MODEL_FORMAT = 1  # bump when the saved layout changes; an old cache is then refitted


def _ordered(vocab: dict[str, int]) -> list[str]:
    return sorted(vocab, key=vocab.__getitem__)


def settings_key(cfg: RouterSection) -> str:
    """What makes a saved router this configuration's: its settings and the labelled
    questions it learns from (a file edited since is another router)."""
    digest = hashlib.sha256(repr(cfg).encode())
    digest.update(Path(config_file(cfg.queries_file)).read_bytes())
    return digest.hexdigest()


class Router:
    """Classifier + cues. Parameters in `cfg`; `fit` learns the model from labelled questions."""

    def __init__(self, cfg: RouterSection):
        self.cfg = cfg

    def fit(self, questions: Sequence[str], patterns: Sequence[str]) -> Router:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion
        from threadpoolctl import threadpool_limits

        unknown = sorted(set(patterns) - set(PATTERNS))
        if unknown:
            raise ValueError(f"unknown pattern(s) {', '.join(unknown)}; valid: {', '.join(PATTERNS)}")
        cfg = self.cfg
        self.vectorizer_ = FeatureUnion([
            ("word", TfidfVectorizer(ngram_range=(1, cfg.word_ngram_max),
                                     sublinear_tf=cfg.sublinear_tf, token_pattern=r"\b\w+\b")),
            ("char", TfidfVectorizer(analyzer="char_wb",
                                     ngram_range=(cfg.char_ngram_min, cfg.char_ngram_max),
                                     sublinear_tf=cfg.sublinear_tf)),
        ])
        features = self.vectorizer_.fit_transform([model_text(q) for q in questions])
        self.model_ = LogisticRegression(C=cfg.logistic_c, max_iter=cfg.max_iter,
                                         random_state=cfg.random_state)
        # A few hundred rows: BLAS threads only contend (5x slower on a busy 2-core machine).
        with threadpool_limits(limits=1):
            self.model_.fit(features, list(patterns))
        # Columns of predict_proba in PATTERNS order, whatever order sklearn sorted them in.
        columns = np.array([list(self.model_.classes_).index(p) for p in PATTERNS])
        return self.with_model(TextModel.from_sklearn(cfg, self.vectorizer_, self.model_, columns))

    def with_model(self, model: TextModel) -> Router:
        """Answer with `model` (fitted here, or loaded from a cache by `from_arrays`)."""
        cfg = self.cfg
        self.text_model_ = model
        self.cues_ = CueMatcher(
            {"logistical": cfg.logistical_cues, "entity": cfg.entity_cues,
             "historical": cfg.historical_cues, "recency": cfg.recency_cues},
            cfg.past_verbs, cfg.not_past_verbs)
        return self

    def predict_proba(self, questions: Sequence[str]) -> np.ndarray:
        """The model's probabilities alone, shape (n, 3), columns in PATTERNS order."""
        return self.text_model_.predict_proba([model_text(q) for q in questions])

    def match_cues(self, question: str, now: datetime) -> list[CueMatch]:
        return self.cues_.match(normalise(question), now)

    def route(self, question: str, now: datetime, pattern: str | None = None, proper: str | None = None) -> Route:
        """Pattern, probabilities, recency need, time window and cues of one question.
        `pattern` forces the pattern (probability 1); the rest is still extracted.
        `proper`: the question proper, after words said in passing ("sorry, brain is mush
        this week - when are we seeing Niamh, around Easter?"): a time it names is the
        question's, whatever the aside names."""
        if now.tzinfo is None or now.utcoffset() is None:
            raise ValueError("now must be timezone-aware")
        if pattern is not None and pattern not in PATTERNS:
            raise ValueError(f"unknown pattern {pattern!r}; valid: {', '.join(PATTERNS)}")
        window = (find_window(proper, now) if proper else None) or find_window(question, now)
        matches = self.match_cues(question, now)
        if window is None:
            # A weekday that names no day ("switched to Thursday") is no schedule cue.
            matches = [c for c in matches if not (c.group == "logistical" and c.words in CueMatcher._WEEKDAYS)]
        elif window.kind == "period" and not any(c.group == "historical" and c.words == window.text for c in matches):
            # A time entirely over ("the July bill", "last year") is a vote for history.
            matches = matches + [CueMatch("historical", window.text, -1, -1)]
        elif window.kind == "day" and window.end > now and not any(c.group == "logistical" for c in matches):
            # ... and a day still to come ("on December 6") one for the schedule.
            matches = matches + [CueMatch("logistical", window.text, -1, -1)]
        if pattern is None:
            scores = fuse(self.predict_proba([question])[0], cue_votes(matches),
                          self.cfg.cue_weight, self.cfg.cue_cap)
        else:
            scores = np.array([float(p == pattern) for p in PATTERNS])
        recency = recency_need(scores, any(c.group == "recency" for c in matches), window,
                               self.cfg)
        return Route(
            pattern=PATTERNS[int(np.argmax(scores))],
            scores={p: float(s) for p, s in zip(PATTERNS, scores)},
            recency=recency,
            window=window,
            cues=tuple(f"{c.group}:{c.words}" for c in matches),
        )


def router_questions(cfg: RouterSection) -> list[str]:
    """The example questions the router is fitted on (`queries_file`)."""
    return read_queries(config_file(cfg.queries_file))[0]


def read_queries(path) -> tuple[list[str], list[str]]:
    """(questions, patterns) from a `pattern<TAB>question` file with a header line."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or [c.strip() for c in rows[0]] != ["pattern", "question"]:
        raise ValueError(f"{path}: the first line must be the header pattern<TAB>question")
    questions, patterns = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 2 or row[0] not in PATTERNS or not row[1].strip():
            raise ValueError(f"{path}:{line}: expected pattern<TAB>question with a pattern "
                             f"among {', '.join(PATTERNS)}, got {row!r}")
        patterns.append(row[0])
        questions.append(row[1].strip())
    return questions, patterns


@functools.lru_cache(maxsize=8)
def load_router(cfg: RouterSection) -> Router:
    """The router trained on the configured labelled questions; fitted once per config."""
    questions, patterns = read_queries(config_file(cfg.queries_file))
    return Router(cfg).fit(questions, patterns)


def held_out_accuracy(cfg: RouterSection) -> dict[str, float]:
    """Accuracy of the full router (model + cues) on a stratified held-out share of the
    labelled set, trained on the rest: "overall", one key per pattern, "model_only" (the
    classifier without cues) and "n_test"."""
    from sklearn.model_selection import train_test_split

    questions, patterns = read_queries(config_file(cfg.queries_file))
    train_q, test_q, train_p, test_p = train_test_split(
        questions, patterns, test_size=cfg.held_out_fraction, random_state=cfg.held_out_seed,
        stratify=patterns)
    router = Router(cfg).fit(train_q, train_p)
    now = datetime.fromisoformat(cfg.held_out_now)
    predicted = np.array([router.route(q, now).pattern for q in test_q])
    model_only = np.array(PATTERNS)[router.predict_proba(test_q).argmax(axis=1)]
    truth = np.array(test_p)
    result = {"overall": float(np.mean(predicted == truth)),
              "model_only": float(np.mean(model_only == truth)),
              "n_test": float(len(truth))}
    for p in PATTERNS:
        result[p] = float(np.mean(predicted[truth == p] == p))
    return result


def _alternation(words: Sequence[str]) -> str:
    return "(?:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + ")"
