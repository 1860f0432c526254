"""Coverage: how much of what a question is about a chunk mentions.

The question's topic words (its stemmed terms minus the words that only say what kind of
answer is wanted: "what", "time", "next"...), each weighted by its IDF, a word counting as
present when one of its one-word synonyms is, or all the content words of one of its
several-word synonyms ("animal hospital" for "vet"; adjacency is not checked, the words
together are evidence enough). A word that occurs nowhere in the corpus
weighs more than the rarest word there is (BM25's IDF at a document frequency of 0):
asking for a fax number when no document mentions a fax is exactly the question we
cannot answer.

A store of a few chunks cannot tell a rare word from a common one: each word it holds is in
a large share of it, and each word it lacks looks rarer than all of them (in 3 chunks an
unseen word weighs twice a word seen once, so one missing word of two sinks the question).
The IDF is therefore taken on document frequencies smoothed by a prior, as if the store
held `prior_chunks` more chunks in which every word occurs at `prior_df_share`: in a small
store the weights lean to equal, in a large one they are the store's own.
"""
from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .bm25 import SparseBM25, idf_function
from ..textproc import Analyzer


@dataclasses.dataclass(frozen=True)
class TopicTerms:
    terms: tuple[str, ...]
    weights: np.ndarray            # IDF per topic term
    columns: np.ndarray            # the BM25 vocabulary columns that count for some term ...
    membership: np.ndarray         # ... and which: (len(columns), len(terms)), 1 where it counts
    # Several-word synonyms: (term index, positions in `columns` that must all be present).
    phrases: tuple[tuple[int, np.ndarray], ...] = ()
    # Topic term -> document type codes it names ("calendar", "receipt"): a document of
    # that type mentions it by being one.
    type_terms: dict[int, np.ndarray] = dataclasses.field(default_factory=dict)
    # Topic terms that also named the time window (a holiday: "for Christmas"): a calendar
    # event taking place in the window mentions them by taking place then.
    window_terms: tuple[int, ...] = ()
    # Topic terms that are names the question asks about ("Ada's teacher"): a letter to a
    # whole group ("Dear Room 114 families") is about them without naming them.
    name_terms: tuple[int, ...] = ()
    # (modifier, head) term indices of a kind the question names ("pet insurance"): each is
    # present only where the other is too ("long-life oil" is no more about life insurance
    # than a home policy is).
    compounds: tuple[tuple[int, int], ...] = ()
    # Words the household's own writing puts beside a topic term (associates.py): (term
    # index, positions in `columns`); a chunk lacking the term but holding one of them
    # names it `associate_credit` of the way.
    associates: tuple[tuple[int, np.ndarray], ...] = ()
    associate_credit: float = 0.0
    # The vocabulary term of each of `columns`: a text that is no chunk of the index (a
    # line of one) is read against them.
    column_terms: tuple[str, ...] = ()

    @classmethod
    def of(cls, question: str, analyzer: Analyzer, bm25: SparseBM25,
           ignore: set[str], type_hints: dict[str, np.ndarray] | None = None,
           window_subject: set[str] = frozenset(),
           prior_chunks: float = 0.0, prior_df_share: float = 0.0,
           names: set[str] = frozenset(), name_share: float = 0.0,
           name_max_df_share: float = 1.0, forms: "WordForms | None" = None,
           aside: set[str] = frozenset(), aside_weight: float = 1.0,
           compound_heads: frozenset[str] = frozenset()) -> "TopicTerms":
        """`ignore`: stemmed words that are not topic words (question words, the window's);
        `window_subject`: the stemmed words of the window that are also its subject.
        `prior_chunks`, `prior_df_share`: the prior the IDF weights are smoothed with (0:
        the store's own IDF). `names`: the stemmed names the question asks about; each
        weighs at least `name_share` of its rarest word (a household member's name is in
        a good share of the store, so its IDF is low, yet a document about someone else
        does not answer "when was Ada's last dentist appointment"), unless more than
        `name_max_df_share` of the chunks hold it. `forms`: how a word the store lacks may
        be another form of one it has (none: taken as it is). `aside`: stemmed words said
        only before the question proper, weighed `aside_weight` of their own. `compound_heads`:
        stemmed words whose kind the topic word right before them names ("pet insurance")."""
        terms = analyzer.query_terms(question)
        # A word the store never uses may be another form of one it does ("unblock" of
        # "blocked", "re-shingle" of "shingles", "NCT'd" of "NCT"): then it is that word.
        forms = forms or WordForms()
        typed = set(analyzer.tokens(question))   # not the synonyms and translations added
        seen = (forms.seen(t, bm25.vocab_, lambda: bm25.ordered_vocab) for t, _ in terms if t in typed)
        base = [t for t in dict.fromkeys(seen) if t not in ignore]
        own_alternatives = {t: analyzer.synonyms(t) for t in base}
        # Another word for it, not the word in another language ("furnace" for "heating" is
        # one; "Heizung" is not): a word with none takes its phrase's.
        own_meaning = {t: own_alternatives[t] - analyzer.translations(t) for t in base}
        # A phrase of the question ("septic tank", "half day") is present where another
        # member of its group is, whole ("septic"; "early release": both words): that
        # member stands in for each word of the phrase that has no synonyms of its own, and
        # the phrase's own words never for each other ("septic" is not present wherever the
        # "tank" of "septic tank" is, nor "chimney" wherever "sweep" is).
        phrase_single: dict[str, set[str]] = {}
        phrase_wholes: dict[str, list[tuple[str, ...]]] = {}
        # The phrase in another language ("sotare" for "chimney sweep") is the whole phrase:
        # it stands in for each of its words, whatever other words they have.
        phrase_translated: dict[str, set[str]] = {}
        phrase_mates: dict[str, tuple[str, ...]] = {}
        for words, groups in analyzer.matched_phrases(question):
            if len(words) < 2:
                continue
            own = analyzer.phrase_content(words)
            # A member that keeps one word of several stands in only when the phrase asked
            # has that word too ("code to get on" for "code to join"; "early out" is no
            # "half day" wherever "early" is).
            members = {m for g in groups for m in analyzer.group_members(g)
                       if m != own and (m not in analyzer.reduced_members(g) or set(m) <= set(own))}
            translated = {m[0] for g in groups if analyzer.is_translation(g)
                          for m in analyzer.group_members(g) if len(m) == 1}
            # A phrase whose other words are no topic words ("day" asks "what day") is
            # named only whole: "half" of "half day" is not "half six".
            mates = tuple(w for w in own if w not in base and w in ignore)
            for word in set(words) & set(base):
                if mates:
                    phrase_mates[word] = (word, *mates)
                phrase_single.setdefault(word, set()).update(m[0] for m in members if len(m) == 1 and m[0] != word)
                phrase_wholes.setdefault(word, []).extend(m for m in members if len(m) > 1 and word not in m)
                phrase_translated.setdefault(word, set()).update(translated - {word})
        rows, cols, term_of = [], [], {}
        for j, term in enumerate(base):
            alternatives = ((own_meaning[term] or phrase_single.get(term, set())) | own_alternatives[term]
                            | phrase_translated.get(term, set()))
            for word in ({term} - phrase_mates.keys()) | alternatives:
                col = bm25.vocab_.get(word)
                if col is not None:
                    rows.append(col)
                    cols.append(j)
                    term_of[col] = word
        # An unseen word has a document frequency of 0: rarer than any word the corpus has.
        df = np.diff(bm25.weights_.indptr)
        counts = np.array([df[bm25.vocab_[t]] if t in bm25.vocab_ else 0 for t in base], dtype=np.float64)
        weights = topic_idf(counts, bm25.n_docs, bm25.cfg.idf, prior_chunks, prior_df_share)
        # A name on most chunks (the two speakers of a transcript) tells no document from
        # another: it keeps its own weight.
        named = np.array([t in names for t in base], dtype=bool) & (counts <= name_max_df_share * bm25.n_docs)
        if named.any() and weights.size:
            weights = np.where(named, np.maximum(weights, name_share * weights.max()), weights)
        if aside:
            # Words said only in passing before the question proper ("Nana Jude is popping
            # over on Saturday - what does she punch into the keypad"): the question's
            # own words say what it is about.
            weights = np.where([t in aside for t in base], weights * aside_weight, weights)
        wholes = []   # (term index, vocabulary columns of a several-word synonym)
        for j, term in enumerate(base):
            wholes_of = analyzer.phrase_synonyms(term)
            if not own_meaning[term]:
                wholes_of = list(dict.fromkeys([*wholes_of, *phrase_wholes.get(term, [])]))
            if term in phrase_mates:
                wholes_of = [phrase_mates[term], *wholes_of]
            for words in wholes_of:
                needed = [bm25.vocab_.get(w) for w in words]
                if all(col is not None for col in needed):
                    wholes.append((j, np.asarray(needed, dtype=np.int64)))
                    term_of.update(zip(needed, words))
        # One set of columns for both, so a question reads the matrix once.
        columns = np.unique(np.concatenate([np.asarray(rows, dtype=np.int64),
                                            *(needed for _, needed in wholes)]))
        membership = np.zeros((columns.size, len(base)))
        membership[np.searchsorted(columns, rows), np.asarray(cols, dtype=np.int64)] = 1.0
        phrases = [(j, np.searchsorted(columns, needed)) for j, needed in wholes]
        hints = type_hints or {}
        type_terms = {j: hints[t] for j, t in enumerate(base) if t in hints}
        return cls(tuple(base), np.maximum(weights, 0.0), columns, membership,
                   compounds=_compounds(analyzer.words(question), base, compound_heads, names, forms, bm25.vocab_,
                                       own_alternatives),
                   phrases=tuple(phrases), type_terms=type_terms,
                   window_terms=tuple(j for j, t in enumerate(base) if t in window_subject),
                   name_terms=tuple(int(j) for j in np.flatnonzero(named)),
                   column_terms=tuple(term_of[int(c)] for c in columns))

    def with_associates(self, associates: Mapping[int, Mapping[int, str]], credit: float) -> "TopicTerms":
        """This question's terms with stand-ins: term index -> {vocabulary column: term}."""
        if not associates or credit <= 0:
            return self
        lent = {j: np.fromiter(cols, dtype=np.int64, count=len(cols)) for j, cols in associates.items()}
        columns = np.unique(np.concatenate([self.columns, *lent.values()]))
        moved = np.searchsorted(columns, self.columns)   # where each old column now stands
        membership = np.zeros((columns.size, len(self.terms)))
        membership[moved] = self.membership
        term_of = dict(zip(self.columns.tolist(), self.column_terms))
        for cols in associates.values():
            term_of.update(cols)
        return dataclasses.replace(
            self, columns=columns, membership=membership,
            phrases=tuple((j, moved[positions]) for j, positions in self.phrases),
            associates=tuple((j, np.searchsorted(columns, cols)) for j, cols in sorted(lent.items())),
            associate_credit=credit, column_terms=tuple(term_of[int(c)] for c in columns))

    def only_type_terms(self) -> bool:
        """Every topic word names a kind of document ("calendar"), or there are none."""
        return len(self.type_terms) == len(self.terms)

    def hinted_types(self) -> np.ndarray:
        """Type codes the question names ("on our calendar", "the receipt")."""
        if not self.type_terms:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate(list(self.type_terms.values())))

    def found(self, bm25: SparseBM25, rows: np.ndarray) -> np.ndarray:
        """(len(rows), len(terms)): does each chunk row mention each topic term, itself or
        by a synonym."""
        # Only the vocabulary columns the question touches, sliced from the column-major
        # BM25 matrix (slicing its rows would walk every stored entry).
        return self._found(self._present(bm25, rows))

    def _present(self, bm25: SparseBM25, rows: np.ndarray) -> np.ndarray:
        """(len(rows), len(columns)): which of the question's vocabulary columns each chunk holds."""
        rows = np.asarray(rows, dtype=np.int64)
        if not self.columns.size:
            return np.zeros((len(rows), 0), dtype=bool)
        return bm25.weights_[:, self.columns].tocsr()[rows].toarray() != 0

    def _found(self, present: np.ndarray) -> np.ndarray:
        found = np.zeros((present.shape[0], len(self.terms)), dtype=bool)
        if self.columns.size:
            found = present @ self.membership > 0
            for j, positions in self.phrases:
                found[:, j] |= present[:, positions].all(axis=1)
        for modifier, head in self.compounds:
            both = found[:, head] & found[:, modifier]
            found[:, head] = found[:, modifier] = both
        return found

    def of_union(self, bm25: SparseBM25, rows: np.ndarray, token_sets: Sequence[set[str]] = ()) -> float:
        """Coverage of chunk rows and texts (lines of a chunk, as their sets of analysed
        terms) together: the topic words any of them names, a phrase's words in any of them."""
        total = self.weights.sum()
        if not self.terms or total <= 0:
            return 0.0
        present = np.concatenate([self._present(bm25, rows), self._token_present(token_sets)])
        return float(self._found(present.any(axis=0, keepdims=True))[0].astype(np.float64) @ self.weights / total)

    def _token_present(self, token_sets: Sequence[set[str]]) -> np.ndarray:
        return np.array([[t in tokens for t in self.column_terms] for tokens in token_sets],
                        dtype=bool).reshape(len(token_sets), len(self.column_terms))

    def of_chunks(self, bm25: SparseBM25, rows: np.ndarray, types: np.ndarray | None = None,
                  in_window: np.ndarray | None = None, to_group: np.ndarray | None = None,
                  group_credit: float = 0.0) -> np.ndarray:
        """Coverage in [0, 1] of each chunk row (0 for a question with no topic words);
        `types`: the document type code of each row; `in_window`: is it the chunk of an
        event taking place in the question's window; `to_group`: is it from a letter to a
        group, which names the people the question asks about `group_credit` of the way."""
        return self.cover_and_words(bm25, rows, types, in_window, to_group, group_credit)[0]

    def cover_and_words(self, bm25: SparseBM25, rows: np.ndarray, types: np.ndarray | None = None,
                        in_window: np.ndarray | None = None, to_group: np.ndarray | None = None,
                        group_credit: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """`of_chunks`, and (len(rows), len(terms)): which topic words each chunk names, in
        full or part of the way (a stand-in, a letter to the group a name belongs to)."""
        total = self.weights.sum()
        if not self.terms or total <= 0:
            return np.zeros(len(rows)), np.zeros((len(rows), len(self.terms)), dtype=bool)
        present = self._present(bm25, rows)
        found = self._found(present)
        if types is not None:
            for j, codes in self.type_terms.items():
                found[:, j] |= np.isin(types, codes)
        if in_window is not None and self.window_terms:
            found[:, list(self.window_terms)] |= np.asarray(in_window, dtype=bool)[:, None]
        cover = found.astype(np.float64) @ self.weights / total
        named = found.copy()
        if to_group is not None and self.name_terms:
            names = list(self.name_terms)
            unnamed = (~found[:, names]).astype(np.float64) @ self.weights[names] / total
            cover += group_credit * unnamed * np.asarray(to_group, dtype=bool)
            named[:, names] |= np.asarray(to_group, dtype=bool)[:, None]
        if self.associates:
            stand_in = np.zeros_like(found)
            for j, positions in self.associates:
                stand_in[:, j] = present[:, positions].any(axis=1) & ~found[:, j]
            cover += self.associate_credit * stand_in.astype(np.float64) @ self.weights / total
            named |= stand_in
        return cover, named


def _compounds(words: list[str], base: list[str], heads: frozenset[str], names: set[str],
               forms: "WordForms", vocabulary: Mapping[str, int],
               synonyms: Mapping[str, set[str]]) -> tuple[tuple[int, int], ...]:
    """(modifier, head) indices into `base` of each head word that a topic word, not a
    name, stands right before in the question's words (`words`: stemmed, in order). Two
    words that are synonyms of each other name one thing, not a kind of it: an "insurance
    policy" is present where a Polish "polisa ubezpieczenia" says insurance only."""
    if not heads:
        return ()
    position = {term: j for j, term in enumerate(base)}
    seen = [forms.seen(w, vocabulary) for w in words]
    pairs = {(position[m], position[h]) for m, h in zip(seen, seen[1:])
             if h in heads and h in position and m in position and m != h and m not in names
             and h not in synonyms.get(m, ()) and m not in synonyms.get(h, ())}
    return tuple(sorted(pairs))


@dataclasses.dataclass(frozen=True)
class WordForms:
    """Affixes a question may put on a word the documents use: a word the store lacks
    that is one of its words with a prefix (re-, un-: "unblock" of "blocked") or a
    clitic's last letter ("NCT'd" -> "nctd" -> "nct") is that word; and one of at least
    `compound_min` letters that opens words the store has is the first of them, a compound
    of it as German, Dutch, Swedish and Afrikaans write them ("Kaminfeger" of the
    "Kaminfegermeister" who signs the bill)."""
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    min_stem: int = 1
    compound_min: int = 0

    def seen(self, term: str, vocabulary: Mapping[str, int],
             ordered: Callable[[], Sequence[str]] = tuple) -> str:
        """`ordered`: the vocabulary's words in order (for compounds; asked only then)."""
        if term in vocabulary:
            return term
        for prefix in self.prefixes:
            rest = term[len(prefix):]
            if term.startswith(prefix) and len(rest) >= self.min_stem and rest in vocabulary:
                return rest
        for suffix in self.suffixes:
            rest = term[:-len(suffix)]
            if term.endswith(suffix) and len(rest) >= self.min_stem and rest in vocabulary:
                return rest
        return self.compound(term, ordered) or term

    def compound(self, term: str, ordered: Callable[[], Sequence[str]]) -> str | None:
        """The first word of `ordered()` that `term` opens and is longer than, if `term` is
        long enough to open a compound."""
        if not self.compound_min or len(term) < self.compound_min:
            return None
        words = ordered()
        at = bisect.bisect_right(words, term)
        return words[at] if at < len(words) and words[at].startswith(term) else None


def topic_idf(df: np.ndarray, n_chunks: int, idf: str, prior_chunks: float,
              prior_df_share: float) -> np.ndarray:
    """The BM25 idf (`idf` names the formula) of words found in `df` of `n_chunks` chunks,
    on counts smoothed by `prior_chunks` more chunks holding each word at `prior_df_share`."""
    smoothed = np.asarray(df, dtype=np.float64) + prior_chunks * prior_df_share
    return idf_function(idf)(smoothed, n_chunks + prior_chunks, 0.0)[0]
