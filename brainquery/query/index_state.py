"""What the store records about its published query index, and the index file's name and
format: the small part of `query_index` that a reader needs to find out whether a
complete index is published (and `ls` to list documents from it) without loading the
index's numeric machinery (scipy, the scorers).
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..files import from_json_array, read_arrays

if TYPE_CHECKING:
    from ..storage.store import Store

STATE_KEY = "query_index"
DIGEST_KEY = "query_index_digest"   # the SHA-256 of the last published cache file
GENERATION_KEY = "generation"       # counts publications: a reader reloads on a newer one
INDEX_FILE = "query_index.npz"
LEGACY_FILES = ("query_index.pkl",)  # pickles of older versions: deleted, never read
# The fitted router, published with the index: a command answers without fitting it again
# (and without loading scikit-learn to do so).
ROUTER_FILE = "router.npz"
ROUTER_DIGEST_KEY = "router_digest"
DIRTY = "dirty"
LAST_INGEST_FILE = "last_ingest.json"   # beside the index: the latest ingest's summary
FORMAT = 31  # 31: a name said with "the" ("the Giulia is back in the water") is a thing; a kind of animal or thing inside a longer name after it ("Chris Car Care") names a business; a short row's words say nothing of the next row's name (but a heading's and a signature's title line do); a role before a clock time is an appointment ("Bryn vet 5:40"); a name alone under a closing line is its signer; dot leaders before a phone number; two numbers under one description are one entity's; 30: a name after a verb that tells or asks it ("Tell Declan the car is back") is described by no word after it, and the verb is no first name; 29: a sender who writes only a first name ("Nora <nora.daly@…>") has the surname the address spells; a phone number ending a short line the name opens is its number, and one document's mentions with different numbers are different entities; 28: a phone number right after a name is kept ("n:" and its last digits); a vocabulary word inside another capitalised name before a name describes that name ("Heaton Chapel Veterinary Clinic - Biscuit"); 27: a greeting alone on its line ("Hey") makes no reader of the name opening the next; "flea", "litter", "leash"... say a pet; 26: a field's value runs to its first comma; articles ("La", "de") are no names, bakeries and shops in other languages are organisations; "Dr" or "St" after a name makes it a street; places are named after someone ("St Teilo's Hall"), not owned; a name labelling one line only ("Bryn: border collie") is described by its value, and someone's child ("Celyn's mum") is a person; 25: a first name with a surname and a business the word names are two entities of one document; 24: a name after "&" gives no surname, a speaker's label and a name spoken to after a comma are not described by the words before them; 23: each document record's end (doc_ends), so a reader decodes the records it reads; 22: a day written "13. November", Swedish, Afrikaans and Polish months are dates; 21: when a calendar entry was written (doc_issued); 20: names keyed without accents ("Zoé" is "zoe"), dates in other languages are date spans; 19: ... or different first names; 18: one document's mentions with different surnames are different entities; 17: "welcome" is no name; 16: no acronym is a surname; 15: first names before a surname; 14: a field label before a name describes it; 13: a name's capitals counted where it stands alone; 6: a message's sender names join its words for BM25; 7-8: calendar fields; 9: entities; 10: surnames, senders; 11: what an ingest knows of a document; 12: chunk texts as one buffer


def _file_digest(name: str) -> str:
    if not name:
        return ""
    from ingest.config import config_file
    try:
        return hashlib.sha256(config_file(name).read_bytes()).hexdigest()
    except OSError:
        return ""     # the analyzer reports a missing file when it loads


def generation(state: dict[str, Any]) -> int:
    try:
        return int(state.get(GENERATION_KEY) or 0)
    except (TypeError, ValueError):
        return 0


def _extraction_settings(config: Config) -> tuple:
    """The [ambiguity] keys the entity index is read with (the others are used per question)."""
    a = config.ambiguity
    return (a.word_pattern, a.neighbour_gap, a.clause_break, a.towards, a.event_towards, a.neighbours, a.window_words,
            a.row_chars, a.parenthesis_chars, a.honorifics, a.not_names, a.greetings, a.webmail_domains,
            *(getattr(a, k) for k in a.VOCABULARIES))


def config_key(config: Config) -> str:
    """Index settings that change the cached arrays: another config means a rebuild. The
    synonyms file counts by its content: its `[stems]` change every document's words."""
    parts = (config.text, config.bm25, config.graph, config.embedding, config.scoring.undated_date_sources,
             config.scoring.attachment_context_chars,
             config.answer.spans, _extraction_settings(config), _file_digest(config.text.synonyms_file))
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def published_documents(store: Store, config: Config) -> list[dict[str, Any]] | None:
    """One metadata record per document of the published index — what `ls` lists, read
    without loading chromadb — or None when no complete index for this configuration is
    published (a writer at work, a stale or missing cache): then ask the store."""
    state = store.state()
    if state.get(STATE_KEY) in (None, DIRTY):
        return None
    arrays = read_arrays(store.cache_dir / INDEX_FILE, state.get(DIGEST_KEY))
    try:
        if arrays is None or int(arrays["format"]) != FORMAT or str(arrays["config"]) != config_key(config) \
                or str(arrays["fingerprint"]) != state[STATE_KEY]:
            return None
        docs = from_json_array(arrays["docs"])
    except (KeyError, ValueError, TypeError):
        return None
    return docs if isinstance(docs, list) and all(isinstance(d, dict) for d in docs) else None
