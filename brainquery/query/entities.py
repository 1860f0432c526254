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

Descriptors are strings: "w:pike" for a word, "species:cat" for a vocabulary label,
"d:hillsideanimalclinic.com" for an organisation's mail domain; "c." before one that came
from the document's context rather than the words around the name. The
mentions of one name in one document are one entity unless their sorts differ (a person and
an animal: a note about Grandma's visit that also mentions the cat) — a document never
glues two entities together.
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any, Iterable

from ..config import AmbiguitySection

# The sort of thing a vocabulary describes; a person and their company go together.
SORTS = {"kinship": "person", "roles": "person", "species": "animal", "organisations": "org"}
_COMPATIBLE = {frozenset({"person", "org"})}
_POSSESSIVE = re.compile(r"['’]s$")
_SHORT_TITLE = 3      # "Dr", "St": a capitalised word this short may be followed by "."


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


# Descriptors from a document's context (its sender, its place) carry this prefix: they join
# entities like any other, but alone they do not show that an entity is a different one.
CONTEXT = "c."


def plain(descriptor: str) -> str:
    return descriptor[len(CONTEXT):] if descriptor.startswith(CONTEXT) else descriptor


def sorts_of(descriptors: Iterable[str]) -> set[str]:
    kinds = (plain(d).split(":", 1)[0] for d in descriptors if not d.startswith(CONTEXT))
    return {SORTS[k] for k in kinds if k in SORTS}


def compatible(a: set[str], b: set[str]) -> bool:
    union = a | b
    return len(union) <= 1 or frozenset(union) in _COMPATIBLE


def name_key(word: str) -> str:
    """ "Pepper's" -> "pepper": a possessive names the same name."""
    return _POSSESSIVE.sub("", word).lower()


@dataclasses.dataclass
class EntityIndex:
    # name -> [(document row, descriptors)]: one record per entity mentioned in a document.
    postings: dict[str, list[tuple[int, tuple[str, ...]]]]
    # name -> [times written capitalised, times written at all]
    capitals: dict[str, list[int]]

    def to_json(self) -> dict[str, Any]:
        return {"postings": {k: [[d, list(ds)] for d, ds in v] for k, v in self.postings.items()},
                "capitals": self.capitals}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EntityIndex":
        return cls(postings={str(k): [(int(d), tuple(str(x) for x in ds)) for d, ds in v]
                             for k, v in data["postings"].items()},
                   capitals={str(k): [int(a), int(b)] for k, (a, b) in data["capitals"].items()})

    def is_name(self, word: str, capitalised: bool, share: float) -> bool:
        """A word of a question names something: the documents mention it as a name, and
        either the question capitalises it or the documents nearly always do."""
        key = name_key(word)
        if key not in self.postings:
            return False
        if capitalised:
            return True
        caps, total = self.capitals.get(key, (0, 0))
        return total > 0 and caps / total >= share


class EntityExtractor:
    """Reads names and their descriptors out of documents (config [ambiguity])."""

    def __init__(self, cfg: AmbiguitySection, stopwords: Iterable[str]):
        self.cfg = cfg
        self.word_re = re.compile(cfg.word_pattern)
        self.gap_re = re.compile(cfg.neighbour_gap)
        self.break_re = re.compile(cfg.clause_break)
        self.vocab = Vocabulary.of(cfg, self.word_re)
        self.honorifics = frozenset(cfg.honorifics)
        self.never = frozenset(cfg.not_names) | frozenset(stopwords) | self.honorifics
        self.greetings = frozenset(cfg.greetings)

    def build(self, texts: list[str], docs: list[dict[str, Any]]) -> EntityIndex:
        postings: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        caps: Counter = Counter()
        total: Counter = Counter()
        for row, (text, meta) in enumerate(zip(texts, docs)):
            for name, records in self.document(text, meta, caps, total).items():
                postings.setdefault(name, []).extend((row, r) for r in records)
        capitals = {name: [caps[name], total[name]] for name in postings}
        return EntityIndex(postings, capitals)

    # ---- one document ------------------------------------------------------------------
    def document(self, text: str, meta: dict[str, Any], caps: Counter | None = None,
                 total: Counter | None = None) -> dict[str, list[tuple[str, ...]]]:
        """name -> the descriptor sets of the entities of that name this document mentions."""
        sender = _display_name(str(meta.get("from") or ""))
        header = "\n".join(x for x in (sender, str(meta.get("organizer") or "")) if x)
        full = f"{header}\n\n{text}" if header else text
        matches = list(self.word_re.finditer(full))
        words = [m.group() for m in matches]
        lower = [name_key(w) for w in words]
        if total is not None:
            total.update(lower)
        hits = self.vocab.hits(lower)
        mentions: dict[str, list[set[str]]] = {}
        for i, word in enumerate(words):
            key = lower[i]
            if not word[0].isupper() or len(key) < 2 or key in self.never or key in self.vocab.words:
                continue
            if caps is not None:
                caps[key] += 1
            if i > 0 and lower[i - 1] in self.greetings:
                continue   # "Hi Claire,": the reader, not what the document is about
            mentions.setdefault(key, []).append(self._descriptors(i, full, matches, lower, hits))
        context = self._context(sender, str(meta.get("location") or ""), str(meta.get("from") or ""))
        return {name: self._entities(sets, context) for name, sets in mentions.items()}

    def _descriptors(self, i: int, text: str, matches: list[re.Match], lower: list[str],
                     hits: list[tuple[int, int, str]]) -> set[str]:
        out: set[str] = set()
        # Capitalised neighbours, each way, while only spaces (or a title's dot) separate them.
        for step in (-1, 1):
            j = i
            for _ in range(self.cfg.neighbours):
                k = j + step
                if not 0 <= k < len(matches):
                    break
                a, b = (k, j) if step < 0 else (j, k)
                gap = text[matches[a].end():matches[b].start()]
                titled = gap.startswith(".") and len(matches[a].group()) <= _SHORT_TITLE and self.gap_re.match(gap[1:])
                if not (self.gap_re.match(gap) or titled) or not matches[k].group()[0].isupper():
                    break
                if lower[k] not in self.honorifics and lower[k] not in self.never:
                    out.add(self._tag(lower[k], hits, k))
                j = k
        # Vocabulary words in the same clause, a few words away, or in a parenthesis after it.
        start, end = matches[i].start(), matches[i].end()
        paren = re.match(r"\s*\(([^)]{0,%d})\)" % self.cfg.parenthesis_chars, text[end:])
        paren_end = end + paren.end() if paren else end
        w = self.cfg.window_words
        # After a possessive the words describe something of the name's, not the name:
        # "Willow's mom", "Maggie's vet".
        ahead = 0 if _POSSESSIVE.search(matches[i].group()) else w
        for first, last, tag in hits:
            if first <= i <= last:
                continue
            if paren and start < matches[first].start() and matches[last].end() <= paren_end:
                out.add(tag)
            elif i - w <= last < i or i < first <= i + ahead:
                lo, hi = (matches[last].end(), start) if last < i else (end, matches[first].start())
                if not self.break_re.search(text[lo:hi]):
                    out.add(tag)
        return out

    @staticmethod
    def _tag(word: str, hits: list[tuple[int, int, str]], k: int) -> str:
        for first, last, tag in hits:
            if first <= k <= last:
                return tag
        return f"w:{word}"

    def _context(self, sender: str, location: str, address: str) -> set[str]:
        """Who a document speaks for, and so what the names it mentions belong to: the
        organisation that sent it (by its name, or its own mail domain), the place an event
        is at. A person writing from a mailbox anyone can have is no context: one person
        writes about many entities."""
        out: set[str] = set()
        domain = address[address.rfind("@") + 1:].strip(" >").lower() if "@" in address else ""
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
        """One record per entity: a document's mentions merge unless their sorts differ; a
        bare mention belongs to the one entity described, or takes the document's context."""
        clusters: list[set[str]] = []
        for found in (s for s in sets if s):
            for cluster in clusters:
                if compatible(sorts_of(cluster), sorts_of(found)):
                    cluster |= found
                    break
            else:
                clusters.append(set(found))
        # The context belongs to every entity of the document: an organisation writes about
        # its own patient, customer or pupil.
        if not clusters:
            return [tuple(sorted(context))]
        return [tuple(sorted(c | context)) for c in clusters]


def _display_name(value: str) -> str:
    """ "Hillside Animal Clinic <front@…>" -> "Hillside Animal Clinic"."""
    first = value.split(",")[0] if "<" not in value else value[:value.index("<")]
    first = first.strip().strip('"').strip()
    return "" if "@" in first else first
