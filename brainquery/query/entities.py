"""The entity index: every name the documents use, with the words that say what it names.

Built with the query index, in one pass over each document's text (linear in the corpus),
and cached with it. A name is a capitalised word that is not a calendar word, a stopword
or a descriptor itself; for each document that mentions it the index keeps what the text
says around it:

- capitalised neighbours on the same line: a surname or first name ("Jordan Pike", "Dr.
  Anita Hale"), an organisation ("Pepper's Bakery", "Hale Plumbing & Heating"), a title
  ("Coach Jordan", "Grandma Maggie"). Honorifics (Mrs., Mr.) are part of the name, not a
  descriptor: two different Mrs. Kims share them;
- words of the configured vocabularies (kinship, species, roles, organisations) a few words
  away in the same clause, or in a parenthesis right after the name ("Maggie (our tabby
  cat)", "Hale the plumber", "Mrs. Kim next door");
- for a mention with nothing of its own, its document's context: the sender when that is
  an organisation ("Hillside Animal Clinic"), the event's location.
- the surname a first name carries ("s:feld" for "Rowan Feld"; "Adaeze (Rowan's mum)",
  written by Adaeze Achebe, gives Rowan "s:achebe"), and whether the name is the sender
  itself, a business writing about its own order ("Sage <reservations@sagekingston.ca>").

Descriptors are strings: "w:pike" for a word, "species:cat" for a vocabulary label,
"d:hillsideanimalclinic.com" for an organisation's mail domain; "c." before one that came
from the document's context rather than the words around the name. The
mentions of one name in one document are one entity unless their sorts differ (a person and
an animal: a note about Grandma's visit that also mentions the cat) — a document never
glues two entities together.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from array import array
from collections import Counter
from typing import Any, Iterable

import numpy as np

from ..config import AmbiguitySection
from ..files import from_json_array, json_array
from ..textproc import fold

# The sort of thing a vocabulary describes; a person and their company go together.
SORTS = {"kinship": "person", "roles": "person", "species": "animal", "organisations": "org", "places": "place"}
# A person and a business the name is part of may be one ("Marcus Hale", "Hale Plumbing"),
# and so may a place and what is there ("Kingsley Street Vet"); though a person and a place
# alone are two: a place is named after someone, not owned ("Teilo Evans", "St Teilo's
# Hall": `named_after`).
_COMPATIBLE = {frozenset({"person", "org"})}
# Vocabulary tags of the names' own words ("Pepper's Bakery", "Jordan Park"): only a word of
# the name says the name is one.
_NAMED = ("organisations:", "places:")
_SPECIES = "species:"
_BUSINESS = "organisations:company"
_POSSESSIVE = re.compile(r"['’]s$")
_LABEL_GAP = re.compile(r"[ \t]*:[ \t]*")
# A name opening its line before a colon labels what follows: a transcript's speaker
# ("Melanie: I'm in awe..."), a field ("Ruby: 2019 Bayliner").
_LINE_LABEL = re.compile(r"[ \t]*:")
# A field's label: a name opening its line before a colon or a dash ("Tito - 6 yr old
# blue heeler mix"), and where its value ends.
_FIELD_LABEL = re.compile(r"[ \t]*(?::|[-–—][ \t])[ \t]*")
_LINE_STAMP = re.compile(r"[ \t]*(?:\[[^\]\n]{1,40}\][ \t]*)?")
# The word a line opens with as a label: "Bryn:", "[Apr 12, 7:41 PM] Esperanza:", "Tito -".
_LINE_LABEL_WORD = re.compile(r"(?m)^%s([^\W\d_]+(?:['’][^\W\d_]+)*)%s" % (_LINE_STAMP.pattern, _FIELD_LABEL.pattern))
# (Groups of two to six digits, a country code and an area code in brackets: a row of
# amounts, "Jonas 2019 0 118.60 12.40", is none.)
_NUMBER = r"(?P<number>(?:\+\d{1,3}[ -]?)?(?:\(\d{2,5}\)[ -]?)?\d{2,5}(?:[ -]\d{2,6}){1,3})(?![\d/]|[.:,]\d)"
_NUMBER_RE = re.compile(_NUMBER)
_PHONE_AFTER = re.compile(r"[ \t.·…:–—-]*" + _NUMBER)
# ... or ending a short line the name opens, as a contacts list writes it ("Mossie hedges
# 089 555 0102", "Granda (Mossie)   065 555 0133"): at most three words between, no clause.
# (Dot leaders may run between them: "Chris Car Care ........ 2100 0039".)
_LINE_GAP = r"[ \t)(\]\[:–—.·…-]"
_LINE_PHONE = re.compile(_LINE_GAP + r"*(?:[^\W\d_][\w'’&/.-]*" + _LINE_GAP + r"+){0,3}?" + _NUMBER + r"[ \t]*$",
                         re.MULTILINE)
# A clock time right after a word: "vet 5:40", "dentist, 3pm" (not a phone number).
_AT_A_TIME = re.compile(r"[ \t,]*(?:at[ \t]+)?\d{1,2}(?:[:.]\d{2}|[ \t]*[ap]\.?m\b)", re.IGNORECASE)
_SPELLED_PART = re.compile(r"[a-z]{2,}")   # the surname after "nora." in an address
_DATE_LIKE = re.compile(r"\d{4}[-.]\d{1,2}[-.]\d{1,2}|\d{1,2}[-.]\d{1,2}[-.]\d{2,4}")
_PHONE_DIGITS = 7
_VALUE_END = re.compile(r"[,;|!?\n]|\.(?:\s|$)")
_ADDRESSES = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+")


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """The configured descriptor phrases, by their first word."""
    by_first: dict[str, list[tuple[tuple[str, ...], str]]]   # word -> [(phrase words, "kind:label")]
    words: frozenset[str]

    @classmethod
    def of(cls, cfg: AmbiguitySection, word_re: re.Pattern) -> "Vocabulary":
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        words = set()
        for kind in cfg.VOCABULARIES:
            for label, *phrases in getattr(cfg, kind):
                for phrase in phrases:
                    parts = tuple(w.lower() for w in word_re.findall(phrase))
                    if parts:
                        by_first.setdefault(parts[0], []).append((parts, f"{kind}:{label}"))
                        words.update(parts)
        for entries in by_first.values():
            entries.sort(key=lambda e: -len(e[0]))     # the longest phrase first
        return cls(by_first, frozenset(words))

    def hits(self, lower: list[str]) -> list[tuple[int, int, str]]:
        """(first word, last word, "kind:label") of every vocabulary phrase in the words."""
        out = []
        for i, word in enumerate(lower):
            for parts, tag in self.by_first.get(word, ()):
                if tuple(lower[i:i + len(parts)]) == parts:
                    out.append((i, i + len(parts) - 1, tag))
                    break
        return out


@dataclasses.dataclass(frozen=True)
class _Hits:
    """A document's vocabulary hits (in word order, at most one starting at each word), and
    what a name's mention looks up in them: the hits starting in a range of words, the tag
    of the hit covering a word. A mention reads the few hits near it, not all of the
    document's (a long letter holds hundreds)."""
    hits: list[tuple[int, int, str]]
    firsts: list[int]
    longest: int                   # words a hit spans beyond its first
    tag_at: dict[int, str]         # word -> the tag of the first hit covering it
    word_starts: list[int]         # where each word of the document starts

    @classmethod
    def of(cls, hits: list[tuple[int, int, str]], matches: list[re.Match]) -> "_Hits":
        tag_at: dict[int, str] = {}
        for first, last, tag in hits:
            for k in range(first, last + 1):
                tag_at.setdefault(k, tag)
        return cls(hits, [h[0] for h in hits], max((last - first for first, last, _ in hits), default=0), tag_at,
                   [m.start() for m in matches])

    def starting(self, lo: int, hi: int) -> list[tuple[int, int, str]]:
        """The hits whose first word is in [lo, hi]."""
        return self.hits[bisect.bisect_left(self.firsts, lo):bisect.bisect_right(self.firsts, hi)]


# Descriptors from a document's context (its sender, its place) carry this prefix: they join
# entities like any other, but alone they do not show that an entity is a different one.
CONTEXT = "c."
# A capitalised word right after the name ("Rowan Feld"): "s:feld"; the name is the sender's
# own business ("Sage <reservations@sagekingston.ca>"); the name is the sender's child.
SURNAME = "s:"
# ... and one a sender's address spells ("Nora <nora.daly@…>"): a surname whether or not
# the documents write it capitalised anywhere.
SPELLED = "sa:"
GIVEN = "g:"
SENDER_ITSELF = "organisations:sender"
CHILD_OF_SENDER = "p:child"
CHILD = "kinship:child"
STREET = "places:street"
# A phone number written right after the name ("Sipho +27 83 555 0192:", "Coach Sipho
# (cricket) ...... 072 555 0131"), by its last digits: two numbers, two people.
PHONE = "n:"
# A name said with the definite article ("the Giulia is back in the water"): a thing, of no
# kind said (a boat, a car, a venue), not a person.
THING = "species:thing"
# A name alone under a closing line ("Thanks,\nLuke"): who signs, a person.
SIGNER = "roles:signer"
_THING_SORT = "thing"
_CLOSING_WORDS = 3


def plain(descriptor: str) -> str:
    return descriptor[len(CONTEXT):] if descriptor.startswith(CONTEXT) else descriptor


def sorts_of(descriptors: Iterable[str]) -> set[str]:
    own = [d for d in descriptors if not d.startswith(CONTEXT)]
    return {SORTS[k] for k in (d.split(":", 1)[0] for d in own if d != THING) if k in SORTS} | (
        {_THING_SORT} if THING in own else set())


def compatible(a: set[str], b: set[str]) -> bool:
    union = {"org" if sort == "place" else sort for sort in a | b}
    if _THING_SORT in union:
        # What is said with "the" is no person, and may be any other thing: a boat, "the
        # Kita" (a daycare), "the Co-op".
        return "person" not in union
    return len(union) <= 1 or frozenset(union) in _COMPATIBLE


def named_after(a: set[str], b: set[str]) -> bool:
    """Is one a place and nothing else, the other a person: the place named after someone?"""
    return {frozenset(a), frozenset(b)} == {frozenset({"place"}), frozenset({"person"})}


def same_names(a: set[str], b: set[str]) -> bool:
    """Can two sets of surnames (or of first names) be one person's: one in common, or an
    initial standing for the other ("Ola N." and "Ola Nowak")? The names may carry their
    descriptor prefix ("s:n")."""
    if a & b:
        return True
    return any(_initial(x, y) or _initial(y, x) for x in a for y in b)


def _initial(short: str, full: str) -> bool:
    """Is `short` the initial of `full` ("s:n" of "s:nowak")?"""
    kind_s, _, name_s = short.rpartition(":")
    kind_f, _, name_f = full.rpartition(":")
    return kind_s == kind_f and len(name_s) == 1 and len(name_f) > 1 and name_f.startswith(name_s)


@functools.lru_cache(maxsize=1 << 16)   # every word of every document passes here
def name_key(word: str) -> str:
    """ "Pepper's" -> "pepper": a possessive names the same name; "Zoé" is the "zoe" a
    question types."""
    return fold(_POSSESSIVE.sub("", word))


@dataclasses.dataclass
class EntityIndex:
    """Per name its records (document row, descriptors), as flat arrays: a few Python
    objects instead of millions, so loading is quick and the garbage collector never walks
    them on the question path."""
    names: list[str]               # sorted
    rec_ptr: np.ndarray            # int64 (n_names + 1): where each name's records start
    rec_doc: np.ndarray            # int32: each record's document row
    desc_ptr: np.ndarray           # int64 (n_records + 1): where each record's descriptors start
    desc_ids: np.ndarray           # int32: into `descriptors`
    descriptors: list[str]
    capitals: np.ndarray           # int64 (n_names, 2): times written capitalised, at all

    def __post_init__(self) -> None:
        self._ids = {name: i for i, name in enumerate(self.names)}

    @classmethod
    def of(cls, postings: dict[str, "array"], sets: list[tuple[str, ...]],
           capitals: dict[str, tuple[int, int]]) -> "EntityIndex":
        """`postings`: per name, (document row, index into `sets`) pairs, flat."""
        names = sorted(postings)
        vocabulary: dict[str, int] = {}
        set_ids = [[vocabulary.setdefault(d, len(vocabulary)) for d in descs] for descs in sets]
        rec_ptr, rec_doc, desc_ptr, desc_ids = [0], array("i"), array("q", [0]), array("i")
        for name in names:
            pairs = postings[name]
            for k in range(0, len(pairs), 2):
                rec_doc.append(pairs[k])
                desc_ids.extend(set_ids[pairs[k + 1]])
                desc_ptr.append(len(desc_ids))
            rec_ptr.append(len(rec_doc))
        return cls(names, np.asarray(rec_ptr, dtype=np.int64), np.asarray(rec_doc, dtype=np.int32),
                   np.asarray(desc_ptr, dtype=np.int64), np.asarray(desc_ids, dtype=np.int32),
                   list(vocabulary), np.asarray([capitals[n] for n in names], dtype=np.int64).reshape(len(names), 2))

    def record_rows(self, name: str) -> np.ndarray:
        """The rows of the name's records (one per entity a document mentions)."""
        i = self._ids.get(name)
        return np.arange(0) if i is None else np.arange(self.rec_ptr[i], self.rec_ptr[i + 1])

    def record(self, row: int) -> tuple[int, tuple[str, ...]]:
        """(document row, descriptors) of one record."""
        ids = self.desc_ids[self.desc_ptr[row]:self.desc_ptr[row + 1]]
        return int(self.rec_doc[row]), tuple(self.descriptors[j] for j in ids)

    _ARRAYS = ("rec_ptr", "rec_doc", "desc_ptr", "desc_ids", "capitals")

    def to_arrays(self) -> dict[str, np.ndarray]:
        out = {name: getattr(self, name) for name in self._ARRAYS}
        out.update(names=json_array(self.names), descriptors=json_array(self.descriptors))
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "EntityIndex":
        index = cls(names=from_json_array(arrays["names"]), descriptors=from_json_array(arrays["descriptors"]),
                    **{name: arrays[name] for name in cls._ARRAYS})
        n, r = len(index.names), len(index.rec_doc)
        if (index.rec_ptr.shape != (n + 1,) or index.desc_ptr.shape != (r + 1,) or index.capitals.shape != (n, 2)
                or (index.desc_ids.size and not 0 <= index.desc_ids.min() <= index.desc_ids.max() < len(index.descriptors))
                or (n and index.rec_ptr[-1] != r) or (r and index.desc_ptr[-1] != index.desc_ids.size)):
            raise ValueError("entity index arrays do not fit together")
        return index

    def is_name(self, word: str, capitalised: bool, share: float) -> bool:
        """A word of a question names something: the documents mention it as a name, and
        either the question capitalises it or the documents nearly always do."""
        i = self._ids.get(name_key(word))
        if i is None:
            return False
        if capitalised:
            return True
        # Counted where the word stands alone: one only ever written inside a longer name
        # ("Rowan Feld") is a name.
        caps, total = self.capitals[i]
        return total == 0 or caps / total >= share

    def written_as_name(self, word: str, share: float) -> bool:
        """The documents write the word alone, capitalised, at least `share` of the times
        they write it alone ("Tom", "Zoé"; not "Practice", only ever part of a name)."""
        i = self._ids.get(name_key(word))
        if i is None:
            return False
        caps, total = self.capitals[i]
        return caps > 0 and caps / total >= share


class EntityExtractor:
    """Reads names and their descriptors out of documents (config [ambiguity])."""

    def __init__(self, cfg: AmbiguitySection, stopwords: Iterable[str]):
        self.cfg = cfg
        self.word_re = re.compile(cfg.word_pattern)
        self.gap_re = re.compile(cfg.neighbour_gap)
        self.break_re = re.compile(cfg.clause_break)
        self.towards_re = re.compile(cfg.towards, re.IGNORECASE)
        self.event_towards_re = re.compile(f"{cfg.towards}|{cfg.event_towards}", re.IGNORECASE)
        self.vocab = Vocabulary.of(cfg, self.word_re)
        self.honorifics = frozenset(cfg.honorifics)
        self.street_suffixes = frozenset(cfg.street_suffixes)
        self.stopwords = frozenset(stopwords)
        self.never = frozenset(cfg.not_names) | self.stopwords | self.honorifics
        self.greetings = frozenset(cfg.greetings)
        self.told_verbs = frozenset(cfg.told_verbs)
        self.parent_tags = frozenset(f"kinship:{label}" for label in cfg.parent_labels)

    def build(self, texts: Iterable[str], docs: list[dict[str, Any]],
              counts: tuple[Counter, Counter] | None = None) -> EntityIndex:
        """`texts`: each document's whole text, in document order (read once: a generator
        keeps a second copy of the corpus out of memory). `counts`: Counters to fill with
        every word's capitalised and total uses (an incremental update keeps them)."""
        caps, total = counts if counts is not None else (Counter(), Counter())
        return self.index((self.document(text, meta, caps, total) for text, meta in zip(texts, docs)), caps, total)

    @staticmethod
    def index(found: Iterable[dict[str, list[tuple[str, ...]]]], caps: Counter, total: Counter) -> EntityIndex:
        """The index of `document`'s findings, one per document in document order (read
        once), with every word's capitalised and total uses."""
        # Per name, (document row, descriptor-set id) pairs flat in an int array, and each
        # distinct descriptor set once: at 100,000 documents a tuple per record would cost
        # hundreds of MB of Python objects while the index is built.
        postings: dict[str, array] = {}
        sets: dict[tuple[str, ...], int] = {}
        for row, names in enumerate(found):
            for name, records in names.items():
                pairs = postings.get(name)
                if pairs is None:
                    pairs = postings[name] = array("i")
                for record in records:
                    pairs.extend((row, sets.setdefault(record, len(sets))))
        return EntityIndex.of(postings, list(sets), {name: (caps[name], total[name]) for name in postings})

    # ---- one document ------------------------------------------------------------------
    def document(self, text: str, meta: dict[str, Any], caps: Counter | None = None,
                 total: Counter | None = None) -> dict[str, list[tuple[str, ...]]]:
        """name -> the descriptor sets of the entities of that name this document mentions."""
        sender = display_name(str(meta.get("from") or ""))
        header = "\n".join(x for x in (sender, str(meta.get("organizer") or "")) if x)
        full = f"{header}\n\n{text}" if header else text
        # Mail and web addresses are written in lower case whatever they hold: counted as
        # words they would make every surname look like a common word.
        full = _ADDRESSES.sub(lambda m: " " * len(m.group()), full)
        matches = list(self.word_re.finditer(full))
        words = [m.group() for m in matches]
        lower = [name_key(w) for w in words]
        # Whether a word is written as a name is judged where it stands alone: after another
        # capitalised word on its line it is part of a longer name or a title ("ClearFlow
        # Gutters", "Gutter Cleaning Quote"), and says nothing of "the gutters".
        joined = [i > 0 and words[i - 1][0].isupper() and "\n" not in full[matches[i - 1].end():matches[i].start()]
                  for i in range(len(words))]
        if total is not None:
            total.update(w for w, j in zip(lower, joined) if not j)
        hits = self.vocab.hits(lower)
        near = _Hits.of(hits, matches)
        # An event's title puts what the name does after a dash ("Bramble - vet", "Ngaio -
        # piano"); elsewhere a dash may say what the name is ("Jordan Reyes - coach").
        towards = self.event_towards_re if meta.get("doc_type") == "calendar_event" else self.towards_re
        mentions: dict[str, list[set[str]]] = {}
        labels: Counter | None = None   # how many lines each word opens as a label
        for i, word in enumerate(words):
            key = lower[i]
            if not word[0].isupper() or len(key) < 2 or key in self.never or key in self.vocab.words:
                continue
            if caps is not None and not joined[i]:
                caps[key] += 1
            # "Hi Claire,": the reader, not what the document is about ("Hey" on a line of its
            # own greets no one named).
            if i > 0 and lower[i - 1] in self.greetings and "\n" not in full[matches[i - 1].end():matches[i].start()]:
                continue
            if labels is None:
                labels = Counter(m.group(1) for m in _LINE_LABEL_WORD.finditer(full))
            mentions.setdefault(key, []).append(self._descriptors(i, full, matches, lower, near, towards, labels))
        address = str(meta.get("from") or "")
        context = self._context(sender, str(meta.get("location") or ""), address)
        sender_words = self.word_re.findall(sender)
        surname = self._surname(sender_words)
        local, domain = address_parts(address)
        # "Nora <nora.daly@…>": a sender who writes only a first name spells the surname in
        # the address; the name in the letter is hers ("Nora x"), a person's of that surname.
        spelled = self._spelled_surname(sender_words, local)
        for found in mentions.get(name_key(sender_words[0]), []) if spelled else ():
            found.update((SURNAME + spelled, SPELLED + spelled))
        for name, sets in mentions.items():
            for found in sets:
                if CHILD_OF_SENDER in found:
                    # Someone's child is a person ("Manon (Celyn's mum)": not the boat
                    # Celyn), most likely with the writer's surname.
                    found.discard(CHILD_OF_SENDER)
                    found.add(CHILD)
                    if surname and surname != name:
                        found.add(SURNAME + surname)
            if (len(name) >= self.cfg.sender_name_chars and domain not in self.cfg.webmail_domains
                    and name in domain.split(".")[0] and name not in local
                    and (not sender_words or name_key(sender_words[0]) == name)):
                # "Sage <reservations@sagekingston.ca>": the name is the sender itself, a
                # business writing about its own order, not someone it writes about ("Marcus
                # Hale <marcus@haleplumbing...>" is a person and his business).
                for found in sets:
                    found.add(SENDER_ITSELF)
        return {name: self._entities(sets, context) for name, sets in mentions.items()}

    def _spelled_surname(self, sender_words: list[str], local: str) -> str:
        """The surname an address spells after a sender's lone first name ("nora.daly",
        "nora_daly"), else ""."""
        first = name_key(sender_words[0]) if len(sender_words) == 1 else ""
        if not first or not local.startswith(first) or local[len(first):len(first) + 1] not in (".", "_", "-"):
            return ""
        last = local[len(first) + 1:]
        return last if _SPELLED_PART.fullmatch(last) and last not in self.never and last not in self.vocab.words else ""

    def _surname(self, sender_words: list[str]) -> str:
        """The last word of a sender written as a person's name ("Adaeze Achebe")."""
        words = [name_key(w) for w in sender_words]
        if len(words) < 2 or not all(w[0].isupper() for w in sender_words):
            return ""
        last = words[-1]
        return "" if last in self.never or last in self.vocab.words else last

    def _descriptors(self, i: int, text: str, matches: list[re.Match], lower: list[str],
                     hits: _Hits, towards: re.Pattern, labels: Counter) -> set[str]:
        """`labels`: how many lines of the text each word opens as a label."""
        out: set[str] = set()
        possessive = bool(_POSSESSIVE.search(matches[i].group()))
        longer = False   # a capitalised word goes on with the name ("Giulia Mifsud")
        business_words = range(0)   # the words of a business's name after it ("Car Care")
        # Capitalised neighbours, each way, while only spaces (or a title's dot) separate them.
        for step in (-1, 1):
            found: set[str] = set()
            j = i
            for n in range(self.cfg.neighbours):
                k = j + step
                if not 0 <= k < len(matches):
                    break
                a, b = (k, j) if step < 0 else (j, k)
                gap = text[matches[a].end():matches[b].start()]
                # "Dr. Anita Hale": a title's dot joins; any other dot ends the name.
                titled = (gap.startswith(".") and (lower[a] in self.honorifics or lower[a] in self.vocab.words)
                          and self.gap_re.fullmatch(gap[1:]))
                if not (self.gap_re.fullmatch(gap) or titled) or not matches[k].group()[0].isupper():
                    break
                if step > 0 and lower[k] in self.street_suffixes:
                    found.add(STREET)
                    break
                if step < 0 and lower[k] in self.told_verbs:
                    break   # "Tell Declan": no first name
                if lower[k] not in self.honorifics and lower[k] not in self.never:
                    tag = hits.tag_at.get(k) or f"w:{lower[k]}"
                    if n == 0 and "&" in gap and tag.startswith("w:"):
                        # "Kiara & Ruan": another name listed beside it, not a word of its own
                        # ("Smith & Sons" is a business's, a vocabulary word; "Hale Plumbing
                        # & Heating" reaches it past "Plumbing").
                        break
                    found.add(tag)
                    # (An acronym is no name: "Kia MOT", "Ruby VA 315".)
                    acronym = matches[k].group().isupper() and len(matches[k].group()) > 1
                    if step > 0 and n == 0 and tag.startswith("w:") and not acronym:
                        # The word right after a first name is its surname, if the
                        # documents always capitalise it (judged at question time).
                        found.add(SURNAME + lower[k])
                    elif step < 0 and n == 0 and tag.startswith("w:") and not acronym:
                        # ... and the word right before a surname its first name ("Dr
                        # Anita Fenwick", "Dean Fenwick"): two of them, two people.
                        found.add(GIVEN + lower[k])
                j = k
            longer |= step > 0 and j > i
            if step > 0 and j > i + 1 and any(t.startswith(_SPECIES) for t in found - {hits.tag_at.get(j)}):
                # A kind of animal or thing inside a longer name after it ("Chris Car Care",
                # "Bella Dog Grooming") names a business, not what the name is.
                found = {t for t in found if not t.startswith(_SPECIES)} | {_BUSINESS}
                business_words = range(i + 1, j + 1)
            # After a possessive the capitalised words are the name's business ("Pepper's
            # Bakery") or only something of the name's ("Theo's Cub Scouts").
            if step < 0 or not possessive or any(t.startswith(_NAMED) for t in found):
                out |= found
        if possessive and i + 1 < len(lower) and any(
                tag in self.parent_tags for _, _, tag in hits.starting(i + 1, i + 1)):
            # "Adaeze (Rowan's mum)": the writer is the name's parent, and the name most
            # likely carries the writer's surname.
            out.add(CHILD_OF_SENDER)
        # Vocabulary words in the same clause, a few words away, or in a parenthesis after it.
        start, end = matches[i].start(), matches[i].end()
        # The lines before a label are about something else (the last turn's "[photo: ... a
        # horse]" above "Melanie: ...").
        # (A chat export stamps each line: "[Apr 12, 7:41 PM] Esperanza: Hola!")
        line_start = _LINE_STAMP.fullmatch(text, text.rfind("\n", 0, start) + 1, start) is not None
        labels_line = line_start and bool(_LINE_LABEL.match(text, end))
        # ... though a label that opens one line only is a field, and its value up to the
        # first comma what the name is ("Bryn: border collie, microchip ...", "Tito - 6 yr
        # old blue heeler mix, about 45 lb"); a speaker's label opens many.
        value = None
        label = _FIELD_LABEL.match(text, end) if line_start else None
        if label is not None:
            if labels[matches[i].group()] == 1:
                stop = _VALUE_END.search(text, label.end())
                value = (label.end(), stop.start() if stop else len(text))
        paren = re.match(r"\s*\(([^)]{0,%d})\)" % self.cfg.parenthesis_chars, text[end:])
        paren_end = end + paren.end() if paren else end
        w = self.cfg.window_words
        # After a possessive the words describe something of the name's, not the name:
        # "Willow's mom", "Maggie's vet".
        # ... and after a verb that tells or asks it, what it is told ("Tell Declan the car
        # is back").
        ahead = 0 if possessive or (i > 0 and lower[i - 1] in self.told_verbs) else w
        # Only a hit ending within w words before the name, or starting within `ahead`
        # words after it or inside the parenthesis, can describe it.
        last_word = i + ahead
        if paren:
            last_word = max(last_word, bisect.bisect_right(hits.word_starts, paren_end) - 1)
        if value is not None:
            last_word = max(last_word, bisect.bisect_right(hits.word_starts, value[1]) - 1)
        for first, last, tag in hits.starting(i - w - hits.longest, last_word):
            # An organisation is one when its word is part of the name ("Pepper's Bakery");
            # "Ada school portrait" is what Ada does, not what Ada is.
            # ("Dr" and "St" name the name next to them, as a title or a street: above.)
            if (first <= i <= last or tag.startswith(_NAMED) or lower[first] in self.street_suffixes
                    or first in business_words):
                continue
            in_value = value is not None and value[0] <= matches[first].start() and matches[last].end() <= value[1]
            if paren and start < matches[first].start() and matches[last].end() <= paren_end:
                out.add(tag)
            elif i - w <= last < i or i < first <= i + ahead or in_value:
                lo, hi = (matches[last].end(), start) if last < i else (end, matches[first].start())
                if last > i and towards.search(text[lo:hi]):
                    continue   # "Maisie to the vet", "Maisie -> vet": where it goes, not what it is
                if last > i and _AT_A_TIME.match(text, matches[last].end()):
                    continue   # "Bryn vet 5:40", "Ada - dentist 3pm": an appointment, as in a calendar's title
                if last < i and (labels_line or self._addressed(text[lo:hi])):
                    continue
                if last < i and self._inside_a_name(first, i, text, matches):
                    continue   # "Heaton Chapel Veterinary Clinic - Biscuit's registration": the clinic's word
                # A field's label right before the name says what it is ("Boat: Ruby",
                # "Dog: Bailey"), though a colon ends a clause.
                gap = text[lo:hi]
                # (A name alone on its line is a signature's or a heading's: the line under
                # it says what it is, "Ms. Alvarez / 5th grade teacher".)
                if in_value or (last == i - 1 and _LABEL_GAP.fullmatch(gap)) or not (
                        self.break_re.search(gap)
                        or self._row_ends(text, lo, hi, last > i and self._alone(text, start, end))):
                    out.add(tag)
        if not possessive and not longer and self._after_the(i, text, matches, lower):
            out.add(THING)
        if line_start and not longer and self._signs(text, start, end):
            out.add(SIGNER)
        phone = _PHONE_AFTER.match(text, paren_end) or (None if possessive else _LINE_PHONE.match(text, end))
        if phone and "\n" not in phone.group(0):
            out |= phone_tails(phone.group("number"))
        return out

    def _alone(self, text: str, start: int, end: int) -> bool:
        """Does the name's line hold nothing but capitalised words (its name, a title)?"""
        line_end = text.find("\n", end)
        line = text[text.rfind("\n", 0, start) + 1:line_end if line_end >= 0 else len(text)]
        return all(w[0].isupper() for w in self.word_re.findall(line))

    @staticmethod
    def _signs(text: str, start: int, end: int) -> bool:
        """Is the name alone on its line under a short closing line ("Thanks,", "Best
        wishes,"), blank lines between or not: the one who signs the letter, a person,
        whoever the letter is about?"""
        line_end = text.find("\n", end)
        if text[end:line_end if line_end >= 0 else len(text)].strip(" \t,."):
            return False
        # (Mail made from HTML sets a blank line between them: "Thanks,<br>Luke".)
        above = text[:start].rstrip()
        closing = above[above.rfind("\n") + 1:].strip()
        return closing.endswith(",") and 0 < len(closing.split()) <= _CLOSING_WORDS

    def _row_ends(self, text: str, lo: int, hi: int, past_first: bool = False) -> bool:
        """Does a row end between `lo` and `hi`: a line shorter than `row_chars`, as a list's,
        a schedule's or a note's lines are, but a heading? `past_first`: the first line end
        does not count."""
        end = text.find("\n", lo, hi)
        if past_first and end >= 0:
            end = text.find("\n", end + 1, hi)
        while end >= 0:
            line = text[text.rfind("\n", 0, end) + 1:end].strip()
            # (A heading says what the rows under it are: "BOAT" over "- Dolly lives on her
            # trailer", "Pets:" over "Bryn ...".)
            if len(line) < self.cfg.row_chars and not (line.isupper() or line.endswith(":")):
                return True
            end = text.find("\n", end + 1, hi)
        return False

    def _after_the(self, i: int, text: str, matches: list[re.Match], lower: list[str]) -> bool:
        """Is name `i` said with the definite article, as a thing is and a person is not ("the
        Giulia is back in the water")? Not when a noun follows it: "the Juniper order" is the
        florist's order, "the Hartwell pitch" a client's."""
        if i == 0 or lower[i - 1] != "the" or text[matches[i - 1].end():matches[i].start()].strip(" \t"):
            return False
        if i + 1 == len(matches):
            return True
        gap = text[matches[i].end():matches[i + 1].start()]
        return bool(gap.strip(" \t")) or lower[i + 1] in self.stopwords

    def _inside_a_name(self, first: int, i: int, text: str, matches: list[re.Match]) -> bool:
        """Is word `first`, before name `i`, part of another capitalised name (a word of its
        own follows a capitalised one on the same line, and neither is the name)? Then it
        says what that name is."""
        k = first - 1
        return (k >= 0 and k != i and matches[first].group()[0].isupper() and matches[k].group()[0].isupper()
                and self.gap_re.fullmatch(text[matches[k].end():matches[first].start()]) is not None)

    def _addressed(self, gap: str) -> bool:
        """Does a comma with words before it set the name off as the one spoken to ("Glad
        your son is okay, Melanie"), where an apposition puts the word right before it ("our
        new teacher, Ms. Alvarez")?"""
        return "," in gap and any(name_key(w) not in self.honorifics for w in self.word_re.findall(gap))

    def _context(self, sender: str, location: str, address: str) -> set[str]:
        """Who a document speaks for, and so what the names it mentions belong to: the
        organisation that sent it (by its name, or its own mail domain), the place an event
        is at. A person writing from a mailbox anyone can have is no context: one person
        writes about many entities."""
        out: set[str] = set()
        _, domain = address_parts(address)
        if domain and domain not in self.cfg.webmail_domains:
            out.add(f"{CONTEXT}d:{domain}")
        for source, always in ((sender, False), (location.split(",")[0], True)):
            words = [name_key(w) for w in self.word_re.findall(source) if w[0].isupper()]
            if not words:
                continue
            tags = {tag for _, _, tag in self.vocab.hits(words)}
            if always or tags or len(words) > 2:
                out |= {CONTEXT + t for t in tags}
                out |= {f"{CONTEXT}w:{x}" for x in words if x not in self.never and x not in self.vocab.words}
        return out

    @staticmethod
    def _entities(sets: list[set[str]], context: set[str]) -> list[tuple[str, ...]]:
        """One record per entity: a document's mentions merge unless their sorts differ or
        they carry different surnames, first names or phone numbers (a contacts list's "Jordan
        Reyes - coach" and "Jordan Boudreau - neighbour"; "Granda (Mossie) 065 555 0133" and
        "Mossie hedges 089 555 0102"); a bare mention belongs to the one entity
        described, or takes the document's context."""
        clusters: list[set[str]] = []
        if any(d.startswith("species:") for found in sets for d in found):
            # A pet's name beside a vet or a doctor ("Patient: Biscuit (canine) / Doctor: ...",
            # "Maisie (cat) - vet") names its carers, not a profession of its own.
            sets = [{d for d in found if not d.startswith("roles:")} for found in sets]
        for found in (s for s in sets if s):
            names = {d for d in found if d.startswith((SURNAME, GIVEN))}
            phones = {d for d in found if d.startswith(PHONE)}
            for cluster in clusters:
                theirs = {d for d in cluster if d.startswith((SURNAME, GIVEN))}
                their_phones = {d for d in cluster if d.startswith(PHONE)}
                # (Two numbers under one description are one's home and mobile: "Nanna (Ma) -
                # home ... 2100 0147", "Nanna (Ma) - mob ... 7900 0147".)
                if (compatible(sorts_of(cluster), sorts_of(found)) and not (names and theirs and not same_names(names, theirs))
                        and not (phones and their_phones and not phones & their_phones
                                 and not _labels(found) & _labels(cluster))
                        and not _namesakes(found, cluster)):
                    cluster |= found
                    break
            else:
                clusters.append(set(found))
        # The context belongs to every entity of the document: an organisation writes about
        # its own patient, customer or pupil.
        if not clusters:
            return [tuple(sorted(context))]
        return [tuple(sorted(c | context)) for c in clusters]


def _labels(descriptors: Iterable[str]) -> set[str]:
    """The vocabulary labels said around the name ("kinship:grandmother"), not its context's."""
    return {d for d in descriptors if not d.startswith(CONTEXT) and d.split(":", 1)[0] in SORTS}


def phone_tails(text: str) -> set[str]:
    """The phone numbers written in a text, as descriptors of their last digits ("n:5550127");
    a date is none."""
    out = set()
    for found in _NUMBER_RE.finditer(text):
        digits = re.sub(r"\D", "", found.group("number"))
        if len(digits) >= _PHONE_DIGITS and not _DATE_LIKE.fullmatch(found.group("number").strip()):
            out.add(PHONE + digits[-_PHONE_DIGITS:])
    return out


def namesakes(surnames: set[str], sorts: set[str], other_names: set[str], other_sorts: set[str]) -> bool:
    """A first name with a surname ("Morven C" in a contacts list) and a business or place
    the word names ("Morven Caravan Park", a line below) are two: a person's own business
    carries their surname, and that is the name's surname record ("Hale Plumbing" of
    Marcus Hale names "Hale" with the first name "Marcus"). `other_names`: the other's
    surnames and first names."""
    bodies = {"org", "place"}
    return bool(surnames) and not sorts & bodies and bool(other_sorts & bodies) and not other_names


def _namesakes(a: set[str], b: set[str]) -> bool:
    """`namesakes` of two descriptor sets, either way round."""
    def parts(x: set[str]) -> tuple[set[str], set[str], set[str]]:
        return ({d for d in x if d.startswith(SURNAME)}, sorts_of(x), {d for d in x if d.startswith((SURNAME, GIVEN))})

    (surnames_a, sorts_a, names_a), (surnames_b, sorts_b, names_b) = parts(a), parts(b)
    return namesakes(surnames_a, sorts_a, names_b, sorts_b) or namesakes(surnames_b, sorts_b, names_a, sorts_a)


def address_parts(value: str) -> tuple[str, str]:
    """ "Sage <reservations@sagekingston.ca>" -> ("reservations", "sagekingston.ca")."""
    if "@" not in value:
        return "", ""
    at = value.rfind("@")
    local = re.split(r"[<\s\"]", value[:at])[-1].lower()
    return local, value[at + 1:].strip(" >").lower()


def display_name(value: str) -> str:
    """ "Hillside Animal Clinic <front@…>" -> "Hillside Animal Clinic"."""
    first = value.split(",")[0] if "<" not in value else value[:value.index("<")]
    first = first.strip().strip('"').strip()
    return "" if "@" in first else first
