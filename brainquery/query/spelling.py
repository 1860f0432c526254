"""A question word the store never uses, one slip of the keys from a word it does ("sevice"
for "service", "recuperater", "wardobe", "reciept"): the question is read with that word.

Only the slips people make most are undone: a letter left out, one too many, two letters
swapped, one vowel for another. A consonant for a consonant is left alone: it turns real
words into other real words ("house" and "horse", "lunch" and "bunch"), and a word the store
lacks may be exactly what the question is about ("do we have a fax number"). Words a person
types on purpose are never read as slips: a word of the language's word list (pyspellchecker's,
bundled: "traits" is no slip of the "tradition" a store holds), the ones the configuration
knows (stopwords, question words, synonym and translation members, the router's example
questions, days and months), short words, and capitalised words inside the question (names).
Of several words one slip away, the one the store uses most is taken.
"""
from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from ..textproc import Analyzer

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_VOWELS = "aeiouy"
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@functools.lru_cache(maxsize=2)
def word_list(language: str):
    """The language's word list (a `SpellChecker`: `word in it`), loaded once a process."""
    from spellchecker import SpellChecker
    return SpellChecker(language=language, distance=1)


def slips(word: str) -> list[str]:
    """The words `word` may have been meant as, one common slip away (see the module): those
    of its length first (two letters swapped, a vowel for a vowel), then a letter less or more."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1 and b[0] != b[1]]
    out += [a + v + b[1:] for a, b in splits if b and b[0] in _VOWELS for v in _VOWELS if v != b[0]]
    out += [a + b[1:] for a, b in splits if b]
    out += [a + c + b for a, b in splits for c in _LETTERS]
    return list(dict.fromkeys(w for w in out if w != word))


class Speller:
    """Reads a question's slips against one store's vocabulary (BM25's stems and IDF)."""

    def __init__(self, analyzer: Analyzer, vocabulary: Mapping[str, int], idf: np.ndarray,
                 known_words: Callable[[], Iterable[str]], min_letters: int, dictionary: str):
        """`known_words()`: words typed on purpose wherever they are (never corrected; read
        the first time a word is in doubt);
        `min_letters`: shorter words are never corrected (0: nothing is); `dictionary`: the
        word list's language ("en"; "": none, and then nothing is corrected either)."""
        self.analyzer = analyzer
        self.vocabulary = vocabulary
        self.idf = idf
        self.min_letters = min_letters if dictionary else 0
        self.dictionary = dictionary
        self._known_words = known_words

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """The stems of the words typed on purpose (built when a word is first in doubt)."""
        words = [*self._known_words(), *calendar.day_name, *calendar.month_name[1:]]
        return frozenset(self.analyzer.tokens(" ".join(words))) | self.analyzer.member_stems

    def corrections(self, question: str) -> dict[str, str]:
        """{word as typed: the word read instead} for each slip of the question."""
        if not self.min_letters or not self.vocabulary:
            return {}
        out: dict[str, str] = {}
        for match in _WORD.finditer(question):
            typed = match.group()
            if len(typed) < self.min_letters or typed in out:
                continue
            if typed[0].isupper() and question[:match.start()].strip():
                continue
            stems = self.analyzer.tokens(typed)
            if len(stems) != 1 or stems[0] in self.vocabulary or stems[0] in self.known:
                continue
            candidates = slips(typed.casefold())
            stems = self.analyzer.stem_words(candidates)
            columns = [self.vocabulary.get(stem) for stem in stems]
            found = [(self.idf[c], i) for i, c in enumerate(columns) if c is not None]
            if not found:
                continue
            # (The word list is loaded only now, for a word the store has a spelling for.)
            words = word_list(self.dictionary)
            if typed.casefold() in words:
                continue
            rarity = min(found)[0]
            meant = [candidates[i] for r, i in found if r == rarity]
            # Of the spellings of that word, a word of the list (the way it is shown).
            out[typed] = next((w for w in meant if w in words), meant[0])
        return out

    def correct(self, question: str) -> tuple[str, dict[str, str]]:
        """The question with its slips replaced, and the replacements."""
        found = self.corrections(question)
        if not found:
            return question, found
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, found)) + r")\b")
        return pattern.sub(lambda m: found[m.group()], question), found
