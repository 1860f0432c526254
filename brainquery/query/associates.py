"""Stand-ins a household's own writing gives a question's words.

A household names one thing several ways, and says how in a few places: the note that
reads "hurling Saturdays (Carrigrohane Rovers U9s)" is why the club's letter about "U9
training" is the hurling letter, and "Vet: Djurkliniken Mälarhöjden" why the clinic's
receipt is the vet visit. The best-matching chunks for a question (by BM25) are read line
by line; a short clause holding one of the question's topic words lends it the rare words
beside it. A chunk lacking the word but holding one of those counts as naming it part of
the way (coverage.TopicTerms.associates). This is local context analysis (Xu and Croft,
1996) with the clause as the passage: a clause of a list or a label line is a definition,
a paragraph is not, so only short clauses lend words; and only names (capitalised words
past the clause's first), for a name is what a household calls a thing by: "Great news,
Oisín has moved up" lends "Oisín" neither "great" nor "moved".
"""
from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

import numpy as np

from ..textproc import Analyzer, fold
from .bm25 import SparseBM25
from .coverage import TopicTerms

# A list line holds several things ("swimming Thursdays (Lee Swim Academy), hurling
# Saturdays (Carrigrohane Rovers U9s)"): each clause is one.
_CLAUSE = re.compile(r"[;,]\s+|\n")
_NAME = re.compile(r"(?<=[\s(\"'“‘/])[^\W\d_][\w'’-]*")
_CODE = re.compile(r"\d")
# A stem's first letters are in every word it stems ("famili" is no substring of "family").
_NEEDLE_CHARS = 4


def clause_associates(topic: TopicTerms, texts: Sequence[str], analyzer: Analyzer, bm25: SparseBM25,
                      max_terms: int, max_df_share: float, max_df_floor: int = 0,
                      names: Collection[str] = (),
                      is_name: Callable[[str], bool] = lambda word: True,
                      sources: np.ndarray | None = None) -> dict[int, dict[int, str]]:
    """Topic term index -> {vocabulary column: term} of the rare names sharing a clause of at most
    `max_terms` terms with it in `texts`. Rare: in at most `max_df_share` of the chunks
    or `max_df_floor` of them, whichever is more (and at least one); and only a rare term borrows.
    `names`: topic terms that are names (of people, pets, firms), which borrow nothing;
    `is_name`: is a capitalised word a name (not "Dec", "Fri", "Dear")?
    `sources`: per chunk row, the file it came from; a lent name's rarity is then counted in
    files (a team's calendar feed writes "U10 Green" in every one of its forty events, and
    is one place that names it), the limit in files too.
    The question's own words lend nothing."""
    if not topic.terms or not texts:
        return {}
    vocab = bm25.vocab_
    df = np.diff(bm25.weights_.indptr)
    most = max(max_df_share * bm25.n_docs, max_df_floor)
    if sources is not None:
        most_files = max(max_df_share * (int(sources.max()) + 1 if sources.size else 0), max_df_floor)

        def rare(column: int) -> bool:
            rows = bm25.weights_.indices[bm25.weights_.indptr[column]:bm25.weights_.indptr[column + 1]]
            return 0 < np.unique(sources[rows]).size <= most_files
    else:
        def rare(column: int) -> bool:
            return 0 < df[column] <= most
    # Column -> the topic terms it stands for (the term itself, or a synonym of it).
    owner: dict[int, list[int]] = {}
    for position, column in enumerate(topic.columns):
        owner[int(column)] = [int(j) for j in np.flatnonzero(topic.membership[position])]
    # A name asked about borrows nothing but the code of its group (below): a letter that
    # does not name the child is about another child, however often theirs share a line (a
    # letter to a group is coverage's to weigh).
    # Nor does a common word ("new", "open"): its absence says little, and a name beside it
    # once says less; nor a word whose kind another decides ("LIFE insurance"): the home
    # policy's words are no stand-in for it.
    persons = set(topic.name_terms) | {j for j, t in enumerate(topic.terms) if t in names}
    people = set(persons)
    people |= {j for pair in topic.compounds for j in pair}
    for column, terms in owner.items():
        if df[column] > most:
            people |= set(terms)
    borrowers = [t for j, t in enumerate(topic.terms) if j not in people]
    if not borrowers:
        return {}
    # Only a clause that may hold a borrower (its stem's first letters, or a synonym's) is
    # read word by word: a question costs a few substring tests per clause, not an analysis.
    forms = {w for t in borrowers for w in (t, *analyzer.synonyms(t),
                                            *(x for phrase in analyzer.phrase_synonyms(t) for x in phrase))}
    needles = {w[:_NEEDLE_CHARS] for w in forms if w}
    clauses = [c.strip().lstrip("-*•·>#").strip() for text in texts for c in _CLAUSE.split(text)]
    clauses = [c for c, folded in zip(clauses, map(fold, clauses)) if c and any(n in folded for n in needles)]
    if not clauses:
        return {}
    # A name, or a code of letters and digits ("U9s", "F7"): what a thing is called by.
    capitalised = [" ".join(w for w in _NAME.findall(c) if w[0].isupper() and (is_name(w) or _CODE.search(w)))
                   for c in clauses]
    token_lists = analyzer.tokens_many(clauses + capitalised)
    name_lists, token_lists = token_lists[len(clauses):], token_lists[:len(clauses)]
    out: dict[int, dict[int, str]] = {}
    for tokens, name_tokens in zip(token_lists, name_lists):
        columns = {vocab[t] for t in tokens if t in vocab}
        if not columns or len(columns) > max_terms:
            continue
        asked = {j for c in columns for j in owner.get(c, ())}
        if not asked:
            continue
        named = asked - people
        lent = {c: t for t in name_tokens if (c := vocab.get(t)) is not None and c not in owner
                and not t.isdigit() and rare(c)}
        for j in named:
            out.setdefault(j, {}).update(lent)
        # ... but a person borrows the code of the group the clause puts them in ("Mateo is
        # on U10 Green", "Elsa in 4B"): what is written to the group is written to them.
        codes = {c: t for t in name_tokens if (c := vocab.get(t)) is not None and c in lent and _CODE.search(t)}
        for j in (asked & persons) if codes else ():
            out.setdefault(j, {}).update(codes)
    return {j: dict(sorted(cols.items())) for j, cols in out.items() if cols}
