"""Text analysis shared by BM25, TF-IDF and the evidence graph.

People and their paperwork use different word forms ("roofer" / "Roofing", "weigh" /
"Weight", "vet" / "Veterinary"). One analysis, applied to documents and questions alike:

- case folded and accents stripped ("Réservation" -> "reservation", "Straße" -> "strasse"),
  so a question typed without accents meets a document written with them; "16 x 25 x 4" and '16" x 25"' become "16x25x4"; thousands separators go
  and zero decimals go ("$14,850.00" -> "14850", "34.50" -> "34.5"); a possessive "'s" goes and other apostrophes close up ("don't" ->
  "dont"); a unit or clock suffix glued to a number is split off ("12:15pm" -> "12 15 pm").
- tokens are runs of letters and digits, so "16x25x4", "hl96v" and "5th" stay whole, and
  decimals ("34.5") stay whole. A hyphenated compound gives its parts and the parts joined
  ("wi-fi" -> "wi", "fi", "wifi"; "hl96v-080c3" -> "hl96v", "080c3", "hl96v080c3"), so
  either spelling in a question meets either in a document.
- scikit-learn's English stopwords, minus the words questions hinge on (config), are
  dropped from `tokens`; `words` keeps them (a 3-gram shingle needs its "of" and "the").
- Snowball stems (PyStemmer, C), then the `[stems]` normalisations of the synonyms file
  ("roofer" -> "roof").

Synonyms expand the question only (`query_terms`): documents are indexed as written.
"""
from __future__ import annotations

import hashlib
import os
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from ingest.config import ConfigError, config_file

from .config import TextSection

_VERSION = 4  # bump when the analysis of documents changes; cached models then refit

# Numbers as a person would type them, in one pass (anchored on a digit, which is fast):
# '16" x 25" x 4"' -> '16x25x4'; "$14,850.00" -> "14850"; "34.50" -> "34.5".
_NUMBER = re.compile(r"(\d)(?:(?P<dim>[\"”″']?\s*[x×]\s*)(?=\d)|(?P<thousands>,)(?=\d{3}(?!\d))"
                     r"|(?P<zeros>\.0+)(?![\d.])|(?P<decimals>\.\d*[1-9])0+(?![\d.]))")
_POSSESSIVE = re.compile(r"['’]s\b")
_APOSTROPHE = re.compile(r"['’]")
# A decimal number, else a run of letters/digits possibly joined by hyphens.
# "the 27th" is the 27 of "Friday 27 November".
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")
# Joins texts normalised together; no pattern of _normalise matches it or spans it.
_SEPARATOR = "\x00"
# Character-class ranges of the Latin letters a name may open with, and go on in: A-Z,
# Latin-1 and Latin Extended-A ("Łukasz", "Óscar", "Żak"; Extended-A mixes both cases, so a
# capital's class holds its small letters too: names are found where they stand capitalised).
LATIN_CAPITALS = "A-ZÀ-ÖØ-ÞĀ-ž"
LATIN_SMALL = "a-zß-öø-ÿĀ-ž"
# A letter, or a character of the Indic scripts (Devanagari to Sinhala): their vowel signs
# and viramas are marks, not letters, and a word of Hindi or Kannada ("बिजली", "ವಿದ್ಯುತ್")
# is one token, not its consonants; the dandas ("।", "॥") end sentences.
_INDIC = "\u0900-\u0963\u0966-\u0DFF"
_LETTER = rf"(?:[^\W_]|[{_INDIC}])"
_TOKEN = re.compile(rf"\d+(?:\.\d+)+|{_LETTER}+(?:-{_LETTER}+)*")
# _TOKEN over a normalised text, which holds no underscore: one character class a letter
# rather than a choice of two, half the cost on every chunk indexed.
_NORMALISED_LETTER = rf"[\w{_INDIC}]"
_NORMALISED_TOKEN = re.compile(rf"\d+(?:\.\d+)+|{_NORMALISED_LETTER}+(?:-{_NORMALISED_LETTER}+)*")
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


# Letters Unicode does not decompose into a base letter and an accent: "szkoła" is written
# "szkola" as often ("wpłata", "wplata"), "Søren" "Soren".
_UNDECOMPOSED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ı": "i", "ŀ": "l"})


def fold(text: str) -> str:
    """Lowercase without accents: "Réservation" -> "reservation", "Straße" -> "strasse",
    "Wpłata" -> "wplata". ASCII text (most of it) only pays for lower()."""
    if text.isascii():
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text.casefold())).translate(_UNDECOMPOSED)


_TABLE_ATTRIBUTES = ("_group_weight", "_first_translation", "_stem_map", "_phrases", "_group_terms",
                     "_group_phrases", "_group_members", "_phrase_content", "_group_reduced",
                     "_group_words", "_longest_phrase")
_GROUP_TABLES: dict[tuple, dict[str, Any]] = {}
_GROUP_TABLES_KEPT = 8      # settings seen in one process (tests vary them)


def _tables_key(cfg: TextSection) -> tuple:
    """The settings and the synonyms file's identity (path, size, modification time)."""
    path = config_file(cfg.synonyms_file) if cfg.synonyms_file else None
    try:
        stat = os.stat(path) if path is not None else None
    except OSError:
        stat = None
    return (repr(cfg), str(path), stat and (stat.st_size, stat.st_mtime_ns))


def reuse_analyzer(candidate: "Analyzer | None", cfg: TextSection) -> "Analyzer":
    """`candidate` (the index's embedder's) when it has these settings, else a new one:
    setting one up costs more than answering a question."""
    return candidate if candidate is not None and candidate.cfg == cfg else Analyzer(cfg)


class Analyzer:
    """`tokens(text)` for indexing, `words(text)` for shingles, `query_terms(question)`.

    Picklable (it travels inside the pickled TF-IDF model) and callable: `analyzer(text)`
    is `analyzer.tokens(text)`, the shape scikit-learn's `analyzer=` expects.
    """

    def __init__(self, cfg: TextSection):
        self.cfg = cfg
        self._setup()

    # ---- the three views of a text --------------------------------------------------
    def __call__(self, text: str) -> list[str]:
        return self.tokens(text)

    @property
    def stopwords(self) -> frozenset[str]:
        return frozenset(self._stopwords)

    def tokens(self, text: str) -> list[str]:
        """Stemmed content terms, in no particular order: a bag of words for BM25 and TF-IDF."""
        parts, joined = self._split(text)
        language = self.language(parts)
        stop, longest = self._stopwords_of[language], self.cfg.max_token_chars
        return self._bilingual([t for t in parts + joined if t not in stop and len(t) <= longest], language)

    def _bilingual(self, words: list[str], language: str) -> list[str]:
        """Stems in the text's language and, where they differ, in the default one too: a
        Spanish booking meets "reserva" asked in Spanish and "Nerja" asked in English."""
        stems = self._stem(words, language)
        if language == self.cfg.stemmer_language:
            return stems
        return stems + [d for d, own in zip(self._stem(words), stems) if d != own]

    def tokens_many(self, texts: Sequence[str]) -> list[list[str]]:
        """`tokens` of each text, normalised in one pass over all of them (the sentences of
        a document: one regex pass instead of one per sentence), in the language of all of
        them together (a sentence alone is too short to tell)."""
        if not texts:
            return []
        normalised = self._normalise(_SEPARATOR.join(t.replace(_SEPARATOR, " ") for t in texts))
        language = self.language(_NORMALISED_TOKEN.findall(normalised))
        stop, longest = self._stopwords_of[language], self.cfg.max_token_chars
        out = []
        for piece in normalised.split(_SEPARATOR):
            raw = _NORMALISED_TOKEN.findall(piece)
            joined = [c.replace("-", "") for c in raw if "-" in c]
            if joined:
                raw = " ".join(raw).replace("-", " ").split()
            out.append(self._bilingual([t for t in raw + joined if t not in stop and len(t) <= longest], language))
        return out

    def words(self, text: str) -> list[str]:
        """Stemmed words in reading order, stopwords kept, compounds as their parts only:
        the sequence 3-gram shingles and synonym phrases are cut from."""
        longest = self.cfg.max_token_chars
        parts = self._split(text)[0]
        return self._stem([t for t in parts if len(t) <= longest], self.language(parts))

    def language(self, words: Sequence[str]) -> str:
        """The Snowball language of a text's (normalised) words: another language than the
        default when at least `language_min_hits` of its marker words occur, more than the
        default's do (German mail, a French invoice); else the default."""
        if not self._markers:
            return self.cfg.stemmer_language
        present = set(words)
        hits = {lang: len(present & markers) for lang, markers in self._markers.items()}
        best = max(hits, key=hits.get)
        default = hits.get(self.cfg.stemmer_language, 0)
        if best != self.cfg.stemmer_language and hits[best] >= self.cfg.language_min_hits and hits[best] > default:
            return best
        return self.cfg.stemmer_language

    def spans(self, text: str, stems: Iterable[str]) -> list[list[int]]:
        """[start, end) spans of the words of `text` whose stems are among `stems` (the
        question's terms): what a page highlights in a snippet."""
        wanted = set(stems)
        words = list(_TOKEN.finditer(text))
        return [list(m.span()) for m, tokens in zip(words, self.tokens_many([m.group() for m in words]))
                if wanted.intersection(tokens)]

    def query_terms(self, question: str) -> list[tuple[str, float]]:
        """The question's terms (weight 1, repeats kept: BM25 counts them again), then the
        content words of every synonym group a word or phrase of the question belongs to,
        each once with weight `synonym_weight` (`translation_weight` for a translation)
        unless the question already has it."""
        terms = [(t, 1.0) for t in self.tokens(question)]
        have = {t for t, _ in terms}
        expansions: dict[str, float] = {}
        for group in self.matched_groups(question):
            for term in self._group_terms[group]:
                if term not in have:
                    expansions[term] = max(expansions.get(term, 0.0), self._group_weight[group])
        return terms + list(expansions.items())

    def synonyms(self, term: str) -> set[str]:
        """The one-word synonyms of a stemmed term ("vet" -> "veterinarian"), itself
        excluded. A phrase member is no synonym of its own ("fax number" does not make
        "number" mean "fax")."""
        found = self._synonym_memo.get(term)
        if found is None:
            found = self._synonym_memo[term] = {
                word for g in self._phrases.get((term,), ()) for word in self._group_words[g] if word != term}
        return found

    def is_translation(self, group: int) -> bool:
        """Is synonym group `group` one of the translations (not of the synonyms)?"""
        return group >= self._first_translation

    def translations(self, term: str) -> set[str]:
        """The one-word members of the translation groups of a stemmed term ("plumb" ->
        "sanitar", "rormokar"...): the word in other languages, not another word for it."""
        found = self._translation_memo.get(term)
        if found is None:
            found = self._translation_memo[term] = {
                word for g in self._phrases.get((term,), ()) if g >= self._first_translation
                for word in self._group_words[g] if word != term}
        return found

    def phrase_synonyms(self, term: str) -> list[tuple[str, ...]]:
        """The several-word synonyms of a stemmed term, each as its content terms
        ("vet" -> ("anim", "hospit"), ...): a text with all of them names the term."""
        found = self._phrase_memo.get(term)
        if found is None:
            found = self._phrase_memo[term] = list(dict.fromkeys(
                content for g in self._phrases.get((term,), ())
                for content in self._group_phrases[g] if term not in content))
        return found

    def matched_groups(self, question: str) -> list[int]:
        """Indices of the synonym groups the question names: at each position the longest
        member phrase that matches wins and its words are consumed."""
        found: list[int] = []
        for _, groups in self.matched_phrases(question):
            found.extend(g for g in groups if g not in found)
        return found

    def matched_phrases(self, question: str) -> list[tuple[tuple[str, ...], list[int]]]:
        """The member phrases the question names, as (its stemmed words, its groups)."""
        seq = self.words(question)
        found: list[tuple[tuple[str, ...], list[int]]] = []
        i = 0
        while i < len(seq):
            for n in range(min(self._longest_phrase, len(seq) - i), 0, -1):
                phrase = tuple(seq[i:i + n])
                groups = self._phrases.get(phrase)
                if groups:
                    found.append((phrase, groups))
                    i += n
                    break
            else:
                i += 1
        return found

    def phrase_content(self, phrase: tuple[str, ...]) -> tuple[str, ...]:
        """The content terms of a member phrase given as its words (`matched_phrases`)."""
        return self._phrase_content.get(phrase, ())

    def group_members(self, group: int) -> tuple[tuple[str, ...], ...]:
        """The content terms of each member of a synonym group, one tuple a member."""
        return self._group_members[group]

    @property
    def member_stems(self) -> frozenset[str]:
        """Every stemmed word of every synonym and translation member: words the
        configuration knows."""
        return frozenset(w for phrase in self._phrases for w in phrase)

    def stem_words(self, words: Sequence[str]) -> list[str]:
        """The default language's stems of plain lower-case words, one call and no memo
        (for many words asked once: the spellings a slip may have been meant as)."""
        stems = self._stemmers[self.cfg.stemmer_language].stemWords(list(words))
        return [self._stem_map.get(s, s) for s in stems]

    def reduced_members(self, group: int) -> frozenset[tuple[str, ...]]:
        """The members of a group written in several words of which one is a content
        word ("early out" is ("earli",)): as loose as that word alone."""
        return self._group_reduced[group]

    @property
    def fingerprint(self) -> str:
        """Changes whenever the analysis of a document would: a model fitted with another
        analysis must be refitted. Synonym groups touch only questions and are left out."""
        digest = hashlib.sha256(repr((
            _VERSION, self.cfg.stemmer_language, sorted(self._stopwords),
            sorted((k, sorted(v)) for k, v in self._markers.items()), self.cfg.language_min_hits,
            sorted(self._stem_map.items()), self.cfg.unit_suffixes, self.cfg.max_token_chars,
        )).encode())
        return digest.hexdigest()[:16]

    # ---- internals ------------------------------------------------------------------
    def _normalise(self, text: str) -> str:
        text = _ORDINAL.sub(r"\1", _NUMBER.sub(_fix_number, fold(text)))
        text = _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))
        if "_" in text:
            text = text.replace("_", " ")       # no letter (see _NORMALISED_TOKEN)
        return self._unit.sub(" ", text) if self._unit is not None else text

    def _split(self, text: str) -> tuple[list[str], list[str]]:
        """Unstemmed parts in reading order, and each hyphenated compound joined."""
        raw = _NORMALISED_TOKEN.findall(self._normalise(text))
        compounds = [t for t in raw if "-" in t]
        if not compounds:
            return raw, []
        # String operations in C rather than a Python branch per token.
        return " ".join(raw).replace("-", " ").split(), [c.replace("-", "") for c in compounds]

    def _stem(self, tokens: list[str], language: str | None = None) -> list[str]:
        """Stems (in `language`, default the configured one) with the normalisations
        applied. A word's stem is looked up once per process and language (a dict hit costs
        less than a call into the stemmer); a memo is emptied at `stem_cache_words`."""
        language = language or self.cfg.stemmer_language
        cache = self._caches[language]
        try:
            return [cache[t] for t in tokens]
        except KeyError:
            pass
        if len(cache) > self.cfg.stem_cache_words:
            cache.clear()
        missing = list({t for t in tokens if t not in cache})
        # The [stems] normalisations are written for the default language's stems.
        get = self._stem_map.get if language == self.cfg.stemmer_language else {}.get
        cache.update((t, get(s, s)) for t, s in zip(missing, self._stemmers[language].stemWords(missing)))
        return [cache[t] for t in tokens]

    def _setup(self) -> None:
        import Stemmer
        from .english_stopwords import ENGLISH_STOP_WORDS

        cfg = self.cfg
        try:
            self._stemmer = Stemmer.Stemmer(cfg.stemmer_language)
        except KeyError as err:
            raise ConfigError(f"text.stemmer_language: no Snowball stemmer for "
                              f"{cfg.stemmer_language!r}") from err
        self._stopwords = frozenset(
            (set(ENGLISH_STOP_WORDS) - {w.lower() for w in cfg.stopwords_keep})
            | {w.lower() for w in cfg.stopwords_extra})
        # Other languages: their marker words tell them apart and are their stopwords.
        self._markers = {lang: frozenset(fold(w).lower() for w in words) for lang, words in cfg.languages.items()}
        self._stemmers = {cfg.stemmer_language: self._stemmer}
        for lang in self._markers:
            try:
                self._stemmers.setdefault(lang, Stemmer.Stemmer(lang))
            except KeyError as err:
                raise ConfigError(f"text.languages: no Snowball stemmer for {lang!r}") from err
        self._stopwords_of = {lang: markers for lang, markers in self._markers.items()}
        self._stopwords_of[cfg.stemmer_language] = self._stopwords
        self._caches: dict[str, dict[str, str]] = {lang: {} for lang in self._stemmers}
        units = sorted({re.escape(u.lower()) for u in cfg.unit_suffixes}, key=len, reverse=True)
        self._unit = re.compile(rf"(?<=\d)(?=(?:{'|'.join(units)})\b)") if units else None
        self._synonym_memo: dict[str, set[str]] = {}
        self._translation_memo: dict[str, set[str]] = {}
        self._phrase_memo: dict[str, list[tuple[str, ...]]] = {}
        # The synonym and translation tables follow from the settings and the synonyms file
        # alone: built once per process (a few thousand members stemmed in nine languages
        # cost ~0.1 s, and a process sets up several Analyzers), then shared read-only.
        key = _tables_key(cfg)
        tables = _GROUP_TABLES.get(key)
        if tables is None:
            tables = self._group_tables()
            if len(_GROUP_TABLES) >= _GROUP_TABLES_KEPT:
                _GROUP_TABLES.clear()
            _GROUP_TABLES[key] = tables
        self.__dict__.update(tables)

    def _group_tables(self) -> dict[str, Any]:
        """The synonym and translation tables (`_setup`'s shared part), set on self while
        they are built (stemming a member reads `_stem_map`) and returned."""
        cfg = self.cfg
        synonyms, translations, stems = _read_synonyms(cfg.synonyms_file)
        groups = [*synonyms, *translations]
        self._group_weight = [cfg.synonym_weight] * len(synonyms) + [cfg.translation_weight] * len(translations)
        self._first_translation = len(synonyms)   # groups from here on are translations
        self._stem_map = {self._one_stem(k): self._one_stem(v) for k, v in stems.items()}
        self._phrases: dict[tuple[str, ...], list[int]] = {}
        self._group_terms: list[tuple[str, ...]] = []
        # Per group, the content terms of each member that has several words.
        self._group_phrases: list[tuple[tuple[str, ...], ...]] = []
        # Per group, the content terms of every member, one tuple a member.
        self._group_members: list[tuple[tuple[str, ...], ...]] = []
        self._phrase_content: dict[tuple[str, ...], tuple[str, ...]] = {}
        # Per group, the members of several words that keep one content word ("early out").
        self._group_reduced: list[frozenset[tuple[str, ...]]] = []
        # A translation of several words ("numero di polizza", "wyciąg z konta") keeps its
        # content words only: the function words of every configured language ("di", "la",
        # "op") and the words of two letters or one ("z", "da") would otherwise search
        # every letter in that language.
        function_words = frozenset().union(*self._markers.values())
        variants = self._stems_everywhere([m for g in groups[self._first_translation:] for m in g])
        for g, members in enumerate(groups):
            terms: dict[str, None] = {}
            phrases: dict[tuple[str, ...], None] = {}
            contents: dict[tuple[str, ...], None] = {}
            reduced: set[tuple[str, ...]] = set()
            whole: set[tuple[str, ...]] = set()   # written as one word ("cleaned" beside "clean out")
            for member in members:
                phrase = tuple(self.words(member))
                if g >= self._first_translation and len(phrase) > 1:
                    member = " ".join(w for w in re.split(r"[\s-]+", self._normalise(member))
                                      if len(w) > 2 and w not in function_words)
                content = tuple(dict.fromkeys(self.tokens(member)))
                if phrase:
                    self._phrases.setdefault(phrase, []).append(g)
                    self._phrase_content[phrase] = content
                terms.update(dict.fromkeys(content))
                if content:
                    contents[content] = None
                if len(phrase) > 1 and content:
                    phrases[content] = None
                if len(phrase) > 1 and len(content) == 1:
                    reduced.add(content)
                elif len(phrase) == 1:
                    whole.add(content)
                if g >= self._first_translation and len(phrase) == 1:
                    # ... and a word of a letter in another language is stemmed in that
                    # language ("wycieczkę" -> "wycieczk"): so is the member, in each
                    # configured one, its stems of at least min_translation_stem letters
                    # (a short stem of a word in a language it is not would meet others).
                    for variant in variants.get(member, set()) - {phrase[0]}:
                        self._phrases.setdefault((variant,), []).append(g)
                        self._phrase_content[(variant,)] = (variant,)
                        terms[variant] = None
                        contents[(variant,)] = None
                        whole.add((variant,))
            self._group_terms.append(tuple(terms))
            self._group_phrases.append(tuple(phrases))
            self._group_members.append(tuple(contents))
            self._group_reduced.append(frozenset(reduced - whole))
        self._longest_phrase = max(map(len, self._phrases), default=0)
        # Per group, its one-word members (a term's synonyms are read from its groups', not
        # by a scan of every member of every group).
        words: list[dict[str, None]] = [{} for _ in groups]
        for phrase, phrase_groups in self._phrases.items():
            if len(phrase) == 1:
                for g in phrase_groups:
                    words[g][phrase[0]] = None
        self._group_words = [tuple(w) for w in words]
        return {name: getattr(self, name) for name in _TABLE_ATTRIBUTES}

    def _stems_everywhere(self, members: Sequence[str]) -> dict[str, set[str]]:
        """Each one-word member's stems in every configured language, those long enough
        (one stemmer call per language for all of them)."""
        words = {}
        for member in members:
            parts = self._split(member)[0]
            if len(parts) == 1:
                words[member] = parts[0]
        unique = list(set(words.values()))
        out: dict[str, set[str]] = {}
        for lang, stemmer in self._stemmers.items():
            if lang == self.cfg.stemmer_language:
                continue   # (that stem is the member's own)
            for word, stem in zip(unique, stemmer.stemWords(unique)):
                if len(stem) >= self.cfg.min_translation_stem:
                    out.setdefault(word, set()).add(stem)
        return {member: out.get(word, set()) for member, word in words.items()}

    def _one_stem(self, word: str) -> str:
        stems = self._stemmer.stemWords(self._normalise(word).split())
        if len(stems) != 1:
            raise ConfigError(f"[stems] in {self.cfg.synonyms_file}: {word!r} is not one word")
        return stems[0]

    # Stemmer objects do not pickle: rebuild everything from the (frozen) config, which
    # also re-reads the synonyms so a loaded model's questions use the current groups.
    def __getstate__(self) -> dict[str, Any]:
        return {"cfg": self.cfg}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cfg = state["cfg"]
        self._setup()


def _fix_number(match: re.Match) -> str:
    if match["dim"] is not None:
        return match[1] + "x"
    if match["decimals"] is not None:
        return match[1] + match["decimals"]
    return match[1]  # thousands separator or all-zero decimals: dropped


def _read_synonyms(name: str) -> tuple[list[Sequence[str]], list[Sequence[str]], dict[str, str]]:
    """The synonym groups, the translation groups and the stem normalisations."""
    if not name:
        return [], [], {}
    path = config_file(name)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as err:
        raise ConfigError(f"synonyms file not found: {path}") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"synonyms file {path} is not valid TOML: {err}") from err
    unknown = sorted(set(data) - {"groups", "translations", "stems"})
    if unknown:
        raise ConfigError(f"synonyms file {path}: unknown key(s) {', '.join(unknown)}")
    groups, translations = data.get("groups", []), data.get("translations", [])
    for key, lists in (("groups", groups), ("translations", translations)):
        if not (isinstance(lists, list) and all(
                isinstance(g, list) and len(g) >= 2 and all(isinstance(m, str) for m in g)
                for g in lists)):
            raise ConfigError(f"synonyms file {path}: {key} must be lists of two or more strings")
    stems = data.get("stems", {})
    if not all(isinstance(v, str) for v in stems.values()):
        raise ConfigError(f"synonyms file {path}: [stems] values must be words")
    return groups, translations, stems
