"""Ambiguous names: does the question name something several entities share, and nothing
else in it tells them apart? Then the answer is a question back ("Which Maggie do you mean?").

For each name in the question (a word the entity index knows as a name: capitalised in the
question, or nearly always capitalised in the documents) the documents that mention it —
at most `max_docs`, those the question scores best — are grouped into entities: records
sharing a descriptor (a word such as "pike", a label such as "species:cat") are one entity;
a document that mentions the name bare joins the entity its text resembles most (dense
vectors), or stands alone. Then the question picks among them:

1. by descriptor: a word or vocabulary label of the question that describes some entities
   and not the others ("Grandma Maggie", "the cat", "Coach Jordan", "Pepper's Bakery");
2. by topic: the question's other words (not question words, not the time window's, not
   words every entity has: an appointment, a number, a cost) covered by one entity's
   documents much better than by the others' ("the vet ... weight", "the Hartwell pitch").

Two or more entities left: ask back. The work is bounded by `max_docs` per name.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Collection

import numpy as np

from ..config import AmbiguitySection
from ..storage.chunking import join_chunks
from ..textproc import Analyzer
from .coverage import TopicTerms
from .entities import (CONTEXT, GIVEN, PHONE, SENDER_ITSELF, SORTS, SPELLED, SURNAME, THING, EntityExtractor,
                       compatible, name_key, named_after, namesakes, phone_tails, plain, same_names, sorts_of)
from .query_index import QueryIndex

_KINSHIP = "kinship:"
_SPECIES = "species:"
_ANIMAL = "species:pet"   # an animal of no kind said
# A word ending in "s" with no apostrophe before it: maybe an owner typed without one.
_UNMARKED_POSSESSIVE = re.compile(r"\b([^\W\d_]{2,})s\b(?!['’])")


@dataclasses.dataclass(frozen=True)
class Entity:
    descriptors: tuple[str, ...]   # what the documents say it is, most said first
    docs: tuple[int, ...]          # its documents, best for the question first
    coverage: float                # of the question's other words, by its best document

    @property
    def described(self) -> bool:
        """Described by the words around its name, not only by its documents' senders or a phone number."""
        return any(not d.startswith((CONTEXT, PHONE)) for d in self.descriptors)

    @property
    def phones(self) -> set[str]:
        """The phone numbers written right after its name: who it is, not what."""
        return {d for d in self.descriptors if d.startswith(PHONE)}


@dataclasses.dataclass(frozen=True)
class Ambiguity:
    name: str                      # as the question writes it
    entities: tuple[Entity, ...]   # two or more, the best for the question first


class AmbiguityFinder:
    def __init__(self, index: QueryIndex, cfg: AmbiguitySection, analyzer: Analyzer,
                 question_words: set[str]):
        self.index = index
        self.cfg = cfg
        self.analyzer = analyzer
        self.extractor = EntityExtractor(cfg, analyzer.stopwords)
        self.question_words = question_words
        self.generic = set(analyzer.tokens(" ".join(cfg.generic_words))) | set(cfg.generic_words)

    def find(self, question: str, hybrid: np.ndarray, window_words: set[str],
             aside: set[str] = frozenset()) -> Ambiguity | None:
        """`hybrid`: each chunk's hybrid score for the question (-inf: not a candidate,
        e.g. written after `now`); `aside`: the stemmed words said in passing before the
        question proper ("sorry, brain is mush this week - ..."), which tell no entity apart."""
        names = self.names(question, window_words)
        if not names:
            return None
        doc_scores = self._doc_scores(hybrid)
        for word, capitalised in names:
            entities = self._entities(name_key(word), doc_scores)
            if len(entities) < 2:
                continue
            entities = self._by_descriptor(question, word, entities)
            if len(entities) < 2:
                continue
            entities = self._by_topic(question, word, entities, window_words | aside)
            # Two entities are two when what the words around the name say cannot be one
            # thing: a person and an animal or a business, or two people with different
            # first names or surnames. A document that names it bare, or only by who sent it
            # (a household member is written to by many organisations), or by what the name
            # does ("Ada - dentist", "Ada - school portrait"), says too little.
            # (One said by nothing but its phone number is told apart by that number.)
            described = [e for e in entities if e.described or e.phones]
            proper = self._proper
            if any(_distinct(a, b, proper) for n, a in enumerate(described) for b in described[n + 1:]):
                return Ambiguity(name=_display(word), entities=tuple(entities))
        return None

    def _proper(self, word: str) -> bool:
        """A surname, not a word that only a title capitalised ("Lucy Riding Lessons")."""
        return self.index.entities.is_name(word, False, self.cfg.capitalised_share)

    def _doc_scores(self, hybrid: np.ndarray) -> np.ndarray:
        """Each document's best chunk score: one reduce over chunks grouped by document."""
        index = self.index
        out = np.full(index.n_docs, -np.inf)
        if not index.n_chunks:
            return out
        ptr = index.doc_chunk_ptr
        has = ptr[1:] > ptr[:-1]
        out[has] = np.maximum.reduceat(hybrid[index.doc_chunk_order], ptr[:-1][has])
        return out

    # ---- the names -----------------------------------------------------------------
    def mark_possessives(self, question: str) -> str:
        """The question with its owners written as owners: "zoes daycare" is "zoe's
        daycare" when the documents name a Zoé and no "Zoes" (questions typed on a phone
        drop the apostrophe). Only a name the documents write as one, on its own: "practices"
        is no owner, though a letter is signed "Burnage Lane Practice"."""
        entities, share = self.index.entities, self.cfg.capitalised_share

        def mark(match: re.Match) -> str:
            word, stem = match.group(0), match.group(1)
            key = name_key(word)
            if (key in self.extractor.never or key in self.extractor.vocab.words or key in self.question_words
                    or entities.is_name(word, False, share) or not entities.written_as_name(stem, share)):
                return word
            return f"{stem}'s"

        return _UNMARKED_POSSESSIVE.sub(mark, question)

    def names(self, question: str, when: set[str]) -> list[tuple[str, bool]]:
        """The question's names; a word that named its time window ("Thanksgiving") is a
        time, not an entity."""
        words = self.extractor.word_re.findall(question)
        out = []
        for position, word in enumerate(words):
            key = name_key(word)
            if (key in self.extractor.never or key in self.extractor.vocab.words or key in self.question_words
                    or when.intersection(self.analyzer.tokens(key))):
                continue
            # The first word of a question is capitalised by grammar, not as a name.
            capitalised = word[0].isupper() and position > 0
            if self.index.entities.is_name(word, capitalised, self.cfg.capitalised_share):
                out.append((word, capitalised))
        return out

    # ---- the entities ----------------------------------------------------------------
    def _entities(self, name: str, doc_scores: np.ndarray) -> list[Entity]:
        entities = self.index.entities
        rows = entities.record_rows(name)
        docs = entities.rec_doc[rows]
        scores = doc_scores[docs]
        rows, docs, scores = rows[np.isfinite(scores)], docs[np.isfinite(scores)], scores[np.isfinite(scores)]
        if not rows.size:
            return []
        # The documents the question scores best, at most max_docs: bounded work per name.
        best = np.unique(docs[np.argsort(-scores, kind="stable")][:self.cfg.max_docs * 4])
        keep = set(sorted(best.tolist(), key=lambda d: -doc_scores[d])[:self.cfg.max_docs])
        postings = [entities.record(int(r)) for r, d in zip(rows, docs) if int(d) in keep]
        # A name a vet's (or a kennel's) letter says nothing else of is the patient: an animal
        # ("Lulu is due for her annual vaccination"), whoever else shares the name.
        patient = {f"{CONTEXT}{label}" for label in self.cfg.patient_labels}
        postings = [(d, (*ds, _ANIMAL) if ds and patient.intersection(ds) and all(x.startswith(CONTEXT) for x in ds)
                     else ds) for d, ds in postings]
        own = f"w:{name}"
        # A record that says two sorts of thing at once ("Maisie (cat) - vet": the cat's vet
        # visit read as a vet) tells nothing of which one it is: it joins as a bare mention.
        described = [(d, {x for x in ds if plain(x) != own}) for d, ds in postings if ds]
        mixed = {d for d, ds in described if not _one_sort(ds)}
        typed = [(d, ds) for d, ds in described if _one_sort(ds)]
        parent = list(range(len(typed)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        # Records sharing a descriptor are one entity; the labels of a document's sender
        # ("a clinic", "a company") are too common to join on, its words are not.
        owner: dict[str, int] = {}
        # ... unless their surnames differ: "Archie Dawson's mum" and "Archie Nguyen's mum"
        # share a word, not a child.
        surnames = [{x for x in ds if x.startswith(SURNAME) and _is_surname(x[len(SURNAME):], ds, self._proper)}
                    for _, ds in typed]
        # ... nor first names: "Dr. Anika Patel" the vet and "Dr. Sunil Patel" the dentist
        # share a title and a role, not a person.
        given = [{x for x in ds if x.startswith(GIVEN) and self._proper(x[len(GIVEN):])} for _, ds in typed]
        # ... nor a person and an animal that share a word ("Maisie Brennan" the aunt and
        # the cat registered at the vet as "Maisie Brennan-Osei").
        sorts = [sorts_of(ds) for _, ds in typed]
        # ... nor two phone numbers ("Coach Sipho ... 072 555 0131", "Sipho +27 83 555 0192").
        phones = [{x for x in ds if x.startswith(PHONE)} for _, ds in typed]

        def apart(a: int, b: int) -> bool:
            return ((surnames[a] and surnames[b] and not same_names(surnames[a], surnames[b]))
                    or (phones[a] and phones[b] and not phones[a] & phones[b])
                    or (given[a] and given[b] and not same_names(given[a], given[b]))
                    or not compatible(sorts[a], sorts[b])
                    # a person and a business the word names ("Morven C", "Morven Caravan Park")
                    or namesakes(surnames[a], sorts[a], surnames[b] | given[b], sorts[b])
                    or namesakes(surnames[b], sorts[b], surnames[a] | given[a], sorts[a]))

        # A word of the senders' and places' names that several of them share is their
        # town or their trade ("Kinloch Bay Harbour Trust", "Kinloch Bay Music Centre"), no
        # one entity's.
        names_of: dict[str, set[frozenset[str]]] = {}
        for _, ds in typed:
            context = frozenset(x for x in ds if x.startswith(CONTEXT + "w:"))
            for x in context:
                names_of.setdefault(x, set()).add(context)
        shared = {x for x, names in names_of.items() if len(names) > 1}

        def keys(ds) -> list[tuple[str, bool]]:
            """The descriptors records join on, and whether each is the document's context."""
            return [(plain(x), x.startswith(CONTEXT)) for x in ds
                    if not x.startswith(CONTEXT) or (_is_word(plain(x)) and x not in shared)]

        # Records that name the person in full join first; one that gives no first name or
        # surname ("Maisie (cat) - vet, Dr. Patel") then joins the entity it shares words
        # with only when that entity is one: between the vet Dr. Anika Patel and the dentist
        # Dr. Sunil Patel, a bare "Dr. Patel" stays apart.
        order = sorted(range(len(typed)), key=lambda i: not (surnames[i] or given[i]))
        for i in order:
            ds = typed[i][1]
            if not (surnames[i] or given[i]):
                near = {root(owner[d]) for d, _ in keys(ds) if d in owner}
                if len(near) > 1 and any(apart(a, b) for a in near for b in near if a != b):
                    continue
            for d, context in keys(ds):
                if d in owner and context and typed[owner[d]][0] == typed[i][0]:
                    continue   # two entities of one document share its context, not an identity
                if d in owner:
                    a, b = root(i), root(owner[d])
                    if a != b and apart(a, b):
                        continue
                    parent[a] = b
                    surnames[b] |= surnames[a]
                    given[b] |= given[a]
                    sorts[b] |= sorts[a]
                    phones[b] |= phones[a]
                else:
                    owner[d] = i
        # "Ola N." shares no word with "Ola Nowak": an initial joins the one entity whose
        # surname it opens (none when two do: Nowak and Nowicki).
        for i in range(len(typed)):
            for short in (x for x in typed[i][1] if x.startswith(SURNAME) and len(x) == len(SURNAME) + 1):
                full = {root(j) for j in range(len(typed)) if root(j) != root(i)
                        and any(len(y) > len(short) and y.startswith(short) for y in surnames[root(j)])}
                if len(full) == 1 and not apart(root(i), b := full.pop()):
                    a = root(i)
                    parent[a] = b
                    surnames[b] |= surnames[a]
                    given[b] |= given[a]
                    sorts[b] |= sorts[a]
                    phones[b] |= phones[a]
        groups: dict[int, list[int]] = {}
        for i in range(len(typed)):
            groups.setdefault(root(i), []).append(i)
        members = [sorted({typed[i][0] for i in g}, key=lambda d: -doc_scores[d]) for g in groups.values()]
        descriptors = [_ranked(typed[i][1] for i in g) for g in groups.values()]
        # Bare mentions join the entity whose documents they resemble most, or stand alone.
        bare = sorted(({d for d, ds in postings if not ds} | mixed) - {d for m in members for d in m},
                      key=lambda d: -doc_scores[d])
        if bare and members:
            vectors = self._doc_vectors(sorted({d for m in members for d in m} | set(bare)))
            centroids = np.stack([_unit(sum(vectors[d] for d in m)) for m in members])
            for d in bare:
                similarity = centroids @ vectors[d]
                best = int(np.argmax(similarity))
                if similarity[best] >= self.cfg.assign_cosine:
                    members[best].append(d)
                else:
                    members.append([d])
                    descriptors.append(())
        elif bare:
            members.append(bare)
            descriptors.append(())
        found = [Entity(descriptors=ds, docs=tuple(m), coverage=0.0) for m, ds in zip(members, descriptors)]
        return sorted(found, key=lambda e: (not e.descriptors, not e.described))  # stable: best documents first

    def _doc_vectors(self, docs: list[int]) -> dict[int, np.ndarray]:
        return {d: self.index.doc_vector(d) for d in docs}

    # ---- what the question says --------------------------------------------------------
    def vocabulary_said(self, words: list[str]) -> set[str]:
        """The descriptor vocabularies' labels ("roles:teacher", "species:cat") the words
        (name keys, in order) say."""
        return {tag for _, _, tag in self.extractor.vocab.hits(words)}

    def _by_descriptor(self, question: str, name: str, entities: list[Entity]) -> list[Entity]:
        """The entities a descriptor of the question describes, when it describes some
        and not all."""
        words = [name_key(w) for w in self.extractor.word_re.findall(question)]
        said = self.vocabulary_said(words)
        said |= {f"w:{w}" for w in words if w != name_key(name) and w not in self.extractor.never
                 and w not in self.question_words}
        if any(d.startswith(_SPECIES) for d in said):
            said.add(_ANIMAL)   # "Lulu the cat": the vet's patient, of no kind said
            said.add(THING)     # "Ray's boat the Giulia": the thing the letters call "the Giulia"
        picked = [e for e in entities if said.intersection(map(plain, e.descriptors))]
        if not picked and any(d.startswith(_KINSHIP) for d in said):
            # Family is said of a relative loosely: Grandma Bonnie is "Bonnie Whitcomb (Ben's
            # mom)" in the contacts, not the HOA's treasurer.
            picked = [e for e in entities if any(plain(d).startswith(_KINSHIP) for d in e.descriptors)]
        return picked if 0 < len(picked) < len(entities) else entities

    def _by_topic(self, question: str, name: str, entities: list[Entity],
                  window_words: set[str]) -> list[Entity]:
        """The entities whose documents cover the question's other words nearly as well as
        the best one's."""
        ignore = (self.question_words | window_words | self.generic | set(self.analyzer.tokens(name)))
        topic = TopicTerms.of(question, self.analyzer, self.index.bm25, ignore)
        if not topic.terms:
            return entities
        index = self.index
        # A document several of them share (a contacts note: "Cleaner: Ola N." above "Violin:
        # Ola Z.") speaks for each only in its lines about that one.
        holders: dict[int, int] = {}
        for entity in entities:
            for d in set(entity.docs):
                holders[d] = holders.get(d, 0) + 1
        shared = {d for d, n in holders.items() if n > 1}
        lines = self._mention_lines(name, entities, shared) if shared else [[] for _ in entities]
        covered = []
        for entity, own_lines in zip(entities, lines):
            alone = [d for d in entity.docs if d not in shared]
            rows = np.concatenate([index.doc_rows(d) for d in alone]) if alone else np.zeros(0, dtype=np.int64)
            tokens = [set(self.analyzer.tokens(line)) for line in own_lines]
            covered.append(topic.of_union(index.bm25, rows, tokens))
        best = max(covered)
        if best <= 0.0:
            # None of them holds the question's other words: the topic tells none apart.
            return entities
        kept = [dataclasses.replace(e, coverage=c) for e, c in zip(entities, covered)
                if c >= self.cfg.topic_share * best]
        return sorted(kept, key=lambda e: (-e.coverage, not e.descriptors, not e.described))

    def _mention_lines(self, name: str, entities: list[Entity], shared: set[int]) -> list[list[str]]:
        """Per entity, the lines of the shared documents that name it: a line naming the
        name with words only that entity's descriptors hold ("Ola N.", "Jordan Boudreau -
        neighbour") is its; one naming the name with none of them is each holder's."""
        key = name_key(name)
        # (A number is one's too: "Grace (Tue/Fri) ..... 076 555 0127" is the cleaner's line.)
        own = [{plain(d).partition(":")[2] for d in e.descriptors if not d.startswith(CONTEXT)
                and d.startswith(("w:", SURNAME, GIVEN))} | e.phones for e in entities]
        out: list[list[str]] = [[] for _ in entities]
        for d in shared:
            holding = [n for n, e in enumerate(entities) if d in e.docs]
            # Words more than one holder has say nothing of which one a line is about.
            counts: dict[str, int] = {}
            for n in holding:
                for w in own[n]:
                    counts[w] = counts.get(w, 0) + 1
            text = "\n".join(join_chunks([self.index.chunk_texts[int(r)] for r in self.index.doc_rows(d)]))
            for line in text.splitlines():
                words = {name_key(w) for w in self.extractor.word_re.findall(line)}
                if key not in words:
                    continue
                words |= phone_tails(line)
                said = [n for n in holding if any(counts[w] == 1 and w in words for w in own[n])]
                for n in said or holding:
                    out[n].append(line)
        return out


def describe(entity: Entity, index: QueryIndex, words: int) -> str:
    """A short description from the documents: its labels, then its words ("cat, vet,
    Hillside"), or the title of its best document when nothing describes it."""
    # ("thing" says only that the name is no person: its words say what it is.)
    said = [plain(d) for d in entity.descriptors if d not in (SENDER_ITSELF, THING)]
    labels = list(dict.fromkeys(d.split(":", 1)[1] for d in said if d.split(":", 1)[0] in SORTS))
    # (A surname only an address spells is a word of its name too: "Nora (Daly)".)
    names = list(dict.fromkeys(d.partition(":")[2].capitalize() for d in said if d.startswith(("w:", SPELLED))))
    parts = (labels[:words] + [" ".join(names[:words])] if names else labels[:words])
    text = ", ".join(p for p in parts if p)
    return text or str(index.docs[entity.docs[0]].get("title", "")).strip()


def qualifier(entity: Entity) -> str:
    """One word that picks this entity when put before the name."""
    said = [plain(d) for d in entity.descriptors if d != THING]
    for d in said:
        kind, _, value = d.partition(":")
        if kind in ("kinship", "species", "roles"):
            return value
    for d in said:
        kind, _, value = d.partition(":")
        if kind == "w" or d.startswith(SPELLED):
            return value.capitalize()
    return ""


def qualified_question(question: str, name: str, word: str) -> str:
    """The question with the qualifier before the name: "When is grandmother Maggie's visit?"."""
    if not word:
        return question
    return re.sub(rf"\b{re.escape(name)}", f"{word} {name}", question, count=1, flags=re.IGNORECASE)


def _one_sort(descriptors) -> bool:
    """Do the descriptors say one sort of thing (a person and their company count as one)?"""
    found = sorts_of(descriptors)
    return compatible(found, set())


def _is_word(descriptor: str) -> bool:
    return descriptor.startswith(("w:", "d:"))


def _own(entity: Entity) -> set[str]:
    return {d for d in entity.descriptors if not d.startswith(CONTEXT)}


def _distinct(a: Entity, b: Entity, proper: Callable[[str], bool]) -> bool:
    """Can what is said around the name in each not be one thing?"""
    sorts_a, sorts_b = sorts_of(a.descriptors), sorts_of(b.descriptors)
    surnames_a, surnames_b = _surnames(a, proper), _surnames(b, proper)
    # A first name with a surname and nothing else said of it is a person: not the boat
    # or the pony of that name ("Ailsa Moffat", the "Vessel: Ailsa" on a mooring bill).
    said_a = sorts_a or ({"person"} if surnames_a else set())
    said_b = sorts_b or ({"person"} if surnames_b else set())
    if said_a and said_b and (not compatible(said_a, said_b) or named_after(said_a, said_b)):
        return True
    # A first name with a surname is a person: not another person's surname ("Rowan Feld",
    # "Rowan Achebe"), not a business that is its own sender ("Sage Thompson", "Sage
    # <reservations@sagekingston.ca>"); "Ken Marlowe" and "Marlowe Roofing" stay one.
    if surnames_a and surnames_b and not same_names(surnames_a, surnames_b):
        return True
    # Two phone numbers, two people ("Coach Sipho ... 072 555 0131", "Sipho +27 83 555 0192").
    if a.phones and b.phones and not a.phones & b.phones:
        return True
    # A surname with a first name is a person: another first name, another person ("Dr
    # Anita Fenwick", "Dean Fenwick" of Fenwick Electrical). (Words before a car's make or
    # a shop's name are its dealer or its town: "Levenshulme Kia".)
    given_a, given_b = _given(a, proper), _given(b, proper)
    if ("person" in sorts_a | sorts_b and "animal" not in sorts_a | sorts_b
            and given_a and given_b and not same_names(given_a, given_b)):
        return True
    if (surnames_a and SENDER_ITSELF in b.descriptors) or (surnames_b and SENDER_ITSELF in a.descriptors):
        return True
    # A first name with a surname, and a business or place the word names with no first
    # name or surname of its own: a person's own business carries their surname ("Paloma
    # Reyes" the piano teacher, "Panadería La Paloma").
    if (namesakes(surnames_a, sorts_a, surnames_b | given_b, sorts_b)
            or namesakes(surnames_b, sorts_b, surnames_a | given_a, sorts_a)):
        return True
    # Different names around it, one of them known to be a person: two people ("Coach
    # Jordan Pike", "Jordan Reyes"). Capitalised words around a place, a business or a thing
    # are its address, its trade or its make, not another name.
    if {"org", "place"} & (sorts_a | sorts_b) or "person" not in sorts_a | sorts_b:
        return False
    words_a = {d for d in _own(a) if d.startswith("w:")}
    words_b = {d for d in _own(b) if d.startswith("w:")}
    return bool(words_a and words_b and not words_a & words_b)


def _given(entity: Entity, proper: Callable[[str], bool]) -> set[str]:
    return {d[len(GIVEN):] for d in _own(entity) if d.startswith(GIVEN) and proper(d[len(GIVEN):])}


def _surnames(entity: Entity, proper: Callable[[str], bool]) -> set[str]:
    """Its surnames, an initial too ("Kirsty M": no word of the documents, but no
    other Kirsty's Sinclair either)."""
    own = _own(entity)
    return {d[len(SURNAME):] for d in own
            if d.startswith(SURNAME) and (len(d) == len(SURNAME) + 1 or _is_surname(d[len(SURNAME):], own, proper))}


def _is_surname(word: str, descriptors: Collection[str], proper: Callable[[str], bool]) -> bool:
    """A word after a first name is its surname when the documents write it as a name, or
    when an address spells it (`SPELLED`)."""
    return proper(word) or SPELLED + word in descriptors


def _ranked(sets) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for s in sets:
        for d in s:
            counts[d] = counts.get(d, 0) + 1
    return tuple(sorted(counts, key=lambda d: (-counts[d], d)))


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def _display(word: str) -> str:
    return re.sub(r"['’]s$", "", word)
