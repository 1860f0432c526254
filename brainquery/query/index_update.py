"""Keeping the query index current at the cost of the change, not of the store.

An ingest that wrote or deleted a few chunks updates the published index instead of
re-reading the whole collection (`query_index.rebuild`): only the chunks it wrote are
read from Chroma (their texts, metadata and the vectors the fitted model gave them), and

- BM25: the old rows' term counts (recovered exactly from the stored weights) lose the
  removed rows and gain the new ones; document frequencies, idf, the mean length and every
  weight are then recomputed from the counts — a vectorised pass, no re-tokenising;
- the evidence graph: edges are found only for the new chunks, and for the chunks holding
  a shingle that crossed the frequency limit, against the shingle sets of every chunk
  (kept between ingests in the writer file, `WRITER_FILE`); the other edges are kept;
  clusters and centrality are recomputed from the merged edge list;
- the entity index: the records of documents the ingest touched are dropped, those of
  their new versions added; every word's capitalised and total counts are kept in the
  writer file, so a name's capitalised share is a rebuild's;
- dates and calendar occurrences: kept for documents whose record and series did not
  change, derived again for the others (an override moves its whole series);
- removed documents' rows are dropped (compacted at once: for numpy arrays it costs far
  less than carrying tombstones through every scorer);
- every row is put back in chunk-id order, so the arrays are laid out as a rebuild lays
  them out, and the fingerprint is computed the same way (`brainquery check` compares it
  with a rebuild's).

The tolerance (tests/test_index_update.py): everything equal to a rebuild's bit for bit
except the weights of edges kept from the old graph, stored in float32 while a build
computes centrality from float64 Jaccards (centrality within 1e-6), and BM25 terms
numbered in another order (a score's float sum may differ in its last bit). Rankings of
every fixture question are identical. What an update does not do is refit the embedding
model: that happens when the corpus has grown past [embedding] refit_growth_ratio, which
rewrites every vector and so rebuilds the index; also a rebuild when more than [index]
max_update_share of the chunks changed, or the previous index is not the published one.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from ..config import Config
from ..files import from_json_array, json_array, read_arrays
from ..textproc import Analyzer
from . import chunk_analysis
from . import query_index as qi
from .entities import EntityExtractor, EntityIndex
from .evidence import EvidenceGraph, new_edges, shingle_postings

if TYPE_CHECKING:
    from ..storage.store import ChangeLog, Store

log = logging.getLogger(__name__)
WRITER_FILE = "query_index_writer.npz"
WRITER_DIGEST_KEY = "query_index_writer_digest"
_FORMAT = 2   # 2: capitals counted where a word stands alone (entities.EntityExtractor.document)


@dataclasses.dataclass
class WriterState:
    """Per chunk row of the index what only an update needs: its content hash (the
    fingerprint covers it), its voice (graph clusters) and its shingle set, as (hash, row)
    pairs grouped by hash."""
    content_hash: list[str]
    groups: list[str]
    shingle_hash: np.ndarray    # uint64
    shingle_row: np.ndarray     # int32
    # Every word's capitalised and total uses over all documents: a name's capitalised
    # share (EntityIndex.capitals) counts the documents where the word is no name too.
    caps: Counter = dataclasses.field(default_factory=Counter)
    total: Counter = dataclasses.field(default_factory=Counter)

    def to_arrays(self, fingerprint: str) -> dict[str, np.ndarray]:
        words = sorted(w for w, t in self.total.items() if t > 0)
        return {"format": np.array(_FORMAT), "fingerprint": np.array(fingerprint),
                "content_hash": json_array(self.content_hash), "groups": json_array(self.groups),
                "shingle_hash": self.shingle_hash, "shingle_row": self.shingle_row,
                "words": json_array(words),
                "word_caps": np.array([self.caps[w] for w in words], dtype=np.int64),
                "word_total": np.array([self.total[w] for w in words], dtype=np.int64)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], fingerprint: str, n: int) -> WriterState | None:
        try:
            if int(arrays["format"]) != _FORMAT or str(arrays["fingerprint"]) != fingerprint:
                return None
            state = cls(from_json_array(arrays["content_hash"]), from_json_array(arrays["groups"]),
                        np.asarray(arrays["shingle_hash"], dtype=np.uint64),
                        np.asarray(arrays["shingle_row"], dtype=np.int32))
            words = from_json_array(arrays["words"])
            state.caps = Counter({w: int(c) for w, c in zip(words, arrays["word_caps"]) if c})
            state.total = Counter(dict(zip(words, map(int, arrays["word_total"]))))
            if len(words) != len(arrays["word_caps"]) or len(words) != len(arrays["word_total"]):
                return None
        except (KeyError, ValueError, TypeError):
            return None
        rows = state.shingle_row
        if len(state.content_hash) != n or len(state.groups) != n or rows.shape != state.shingle_hash.shape \
                or (rows.size and not 0 <= rows.min() <= rows.max() < n):
            return None
        return state


def load_writer(store: Store, index: qi.QueryIndex) -> WriterState | None:
    arrays = read_arrays(store.cache_dir / WRITER_FILE, store.state().get(WRITER_DIGEST_KEY))
    return None if arrays is None else WriterState.from_arrays(arrays, index.fingerprint, index.n_chunks)


def update(store: Store, config: Config, old: qi.QueryIndex, changes: ChangeLog) -> qi.QueryIndex | None:
    """The index after the writes in `changes`, from `old` (the published index the writer
    started from, with its writer state); None when a rebuild is the way (see module)."""
    touched = changes.written | changes.deleted
    if changes.revectored or old.writer is None or old.dense is None or old.n_chunks == 0 \
            or len(touched) > config.index.max_update_share * old.n_chunks \
            or store.state().get(qi.model_cache.STATE_KEY) != old.dense.fingerprint_:
        return None
    writer = old.writer
    old_ids = old.chunk_ids
    position = {chunk_id: i for i, chunk_id in enumerate(old_ids)}
    gone = np.fromiter((position[c] for c in touched if c in position), dtype=np.int64)
    live = np.ones(old.n_chunks, dtype=bool)
    live[gone] = False
    old_doc_id = [str(d.get("doc_id")) for d in old.docs]

    # The chunks this ingest wrote, as a scan would read them.
    ids, texts, vectors, rows, metas = [], [], [], [], {}
    for chunk_id, text, meta, vector in store.get_with_embeddings(sorted(changes.written)):
        doc_id = str(meta.get("doc_id") or chunk_id.rsplit(":", 1)[0])
        number = int(meta.get("chunk_no", 0))
        ids.append(chunk_id)
        texts.append(text)
        vectors.append(np.asarray(vector, dtype=np.float32))
        rows.append(qi._ChunkRow(doc_id, number, str(meta.get("title", "")), qi._group(meta),
                                 str(meta.get("content_hash", "")), str(meta.get("parent_id") or "")))
        if number == 0 or doc_id not in metas:
            metas[doc_id] = {key: meta[key] for key in qi.DOC_FIELDS if key in meta}
    touched_docs = {old_doc_id[old.chunk_doc[i]] for i in gone} | {r.doc_id for r in rows}

    # Kept old rows first, new rows after ("combined" order), then sorted by id ("final").
    kept = np.flatnonzero(live)
    n_new, n = len(ids), len(kept) + len(ids)
    if n == 0:
        return None
    combined_ids = np.concatenate([old_ids[kept], np.asarray(ids, dtype=object)])
    perm = np.argsort(combined_ids, kind="stable")
    final_of = np.empty(n, dtype=np.int64)
    final_of[perm] = np.arange(n)
    combined_doc_ids = [old_doc_id[d] for d in old.chunk_doc[kept]] + [r.doc_id for r in rows]
    chunk_ids = combined_ids[perm]

    # Documents in the order their first chunk comes; a touched document's record is its
    # new first chunk's.
    doc_rows: dict[str, int] = {}
    docs: list[dict[str, Any]] = []
    was: list[int] = []           # each document's old row; -1: written by this ingest
    chunk_doc = np.empty(n, dtype=np.int32)
    old_row_of = {doc_id: r for r, doc_id in enumerate(old_doc_id)}
    for f, c in enumerate(perm):
        doc_id = combined_doc_ids[c]
        row = doc_rows.get(doc_id)
        if row is None:
            row = doc_rows[doc_id] = len(docs)
            record = metas.get(doc_id)
            docs.append(record if record is not None else old.docs[old_row_of[doc_id]])
            was.append(-1 if doc_id in touched_docs else old_row_of[doc_id])
        chunk_doc[f] = row
    chunk_no = np.concatenate([old.chunk_no[kept], np.asarray([r.number for r in rows], dtype=np.int32)])[perm]
    chunk_texts_combined = [old.chunk_texts[i] for i in kept] + texts
    chunk_texts = [chunk_texts_combined[c] for c in perm]
    embeddings = np.concatenate([old.embeddings[kept], np.stack(vectors).reshape(n_new, config.embedding.dims)
                                 if n_new else np.zeros((0, config.embedding.dims), np.float32)])[perm]
    content_hash = [writer.content_hash[i] for i in kept] + [r.content_hash for r in rows]
    content_hash = [content_hash[c] for c in perm]
    groups = [writer.groups[i] for i in kept] + [r.group for r in rows]
    groups = [groups[c] for c in perm]
    new_final = final_of[len(kept):]
    analysis = chunk_analysis.analyse(len(texts), qi.analysis_texts(rows, texts, chunk_doc[new_final], docs, config),
                                      config)
    kind_names = analysis.kind_names
    chunk_kinds = np.concatenate([old.chunk_kinds[kept], analysis.kinds])[perm]
    doc_arrays = qi.document_arrays(docs, chunk_doc, chunk_no, config,
                                    (old, _unchanged(np.asarray(was, dtype=np.int64), old, touched_docs, docs, metas)))

    # Each old row's new row (-1: removed): small enough to map millions of stored pairs
    # and postings in one pass.
    row_map = np.full(old.n_chunks, -1, dtype=np.int32)
    row_map[kept] = final_of[:len(kept)]
    lengths = np.fromiter(map(len, analysis.tokens), dtype=np.int64, count=len(analysis.tokens))
    bm25 = old.bm25.updated(row_map, new_final, analysis.tokens,
                            np.concatenate([old.bm25.doc_len_[kept], lengths])[perm])
    graph, postings = _graph(old, writer, row_map, new_final, analysis.words, chunk_doc, groups, config)
    caps, total = Counter(writer.caps), Counter(writer.total)
    entities = _entities(old, old_doc_id, touched_docs, chunk_texts, docs, doc_rows, doc_arrays, config, caps, total)
    dense = old.dense
    return qi.QueryIndex(
        fingerprint=qi._fingerprint(list(chunk_ids), content_hash, dense, embeddings),
        chunk_ids=chunk_ids, chunk_doc=chunk_doc, chunk_no=chunk_no, chunk_texts=chunk_texts,
        embeddings=embeddings, docs=docs, bm25=bm25, graph=graph, dense=dense, kind_names=kind_names,
        chunk_kinds=chunk_kinds, entities=entities,
        writer=WriterState(content_hash, groups, *postings, caps=caps, total=total), **doc_arrays)


def _unchanged(was: np.ndarray, old: qi.QueryIndex, touched_docs: set[str], docs: list[dict[str, Any]],
               metas: dict[str, dict[str, Any]]) -> np.ndarray:
    """`was` (each document's old row, -1 for those this ingest wrote) with -1 also for the
    documents of a calendar series this ingest changed: an override written or removed
    moves the occurrences of its whole series."""
    series = {str(d.get("uid")) for d in metas.values() if d.get("uid")}
    series |= {str(d.get("uid")) for d in old.docs if d.get("uid") and str(d.get("doc_id")) in touched_docs}
    if series:
        was = was.copy()
        was[[r for r, d in enumerate(docs) if d.get("uid") and str(d.get("uid")) in series]] = -1
    return was


def _graph(old: qi.QueryIndex, writer: WriterState, row_map: np.ndarray, new_final: np.ndarray,
           words: list[list[str]], chunk_doc: np.ndarray, groups: list[str], config: Config):
    """`row_map`: each old row's new row (-1: removed); `new_final`: the new chunks' rows."""
    from scipy import sparse

    n = len(chunk_doc)
    # Old pairs stay grouped by hash when rows are renumbered; new ones are inserted in
    # place (an insert is one pass; re-sorting the whole list would cost a sort).
    old_hash, old_row = writer.shingle_hash, row_map[writer.shingle_row]
    removed = old_row < 0
    gone_hash = old_hash[removed]
    if gone_hash.size:
        old_hash, old_row = old_hash[~removed], old_row[~removed]
    new_hash, new_row = shingle_postings(words, config.graph.shingle_size)
    new_row = new_final[new_row].astype(np.int32)
    at = np.searchsorted(old_hash, new_hash, side="right")
    hashes, rows = np.insert(old_hash, at, new_hash), np.insert(old_row, at, new_row)
    fresh = EvidenceGraph(config.graph)
    limit = fresh.limit(n)
    # Edges are (re)computed for the new chunks and for every chunk holding a shingle that
    # crossed the frequency limit (its set, so its Jaccards, changed); the others' edges
    # are those of the old graph.
    redo = np.zeros(n, dtype=bool)
    redo[new_final] = True
    redo[rows[_crossed(writer.shingle_hash, fresh.limit(old.n_chunks), hashes, limit,
                       np.concatenate([new_hash, gone_hash]))]] = True
    i, j, jac = new_edges(hashes, rows, n, redo, chunk_doc, limit, config.graph.theta)
    upper = sparse.triu(old.graph.adjacency_, k=1).tocoo()
    a, b = row_map[upper.row], row_map[upper.col]
    both = (a >= 0) & (b >= 0)
    both[both] = ~(redo[a[both]] | redo[b[both]])
    a, b = a[both].astype(np.int64), b[both].astype(np.int64)
    graph = fresh.from_edges(n, np.concatenate([np.minimum(a, b), i]), np.concatenate([np.maximum(a, b), j]),
                             np.concatenate([upper.data[both].astype(np.float64), jac]), groups, limit)
    return graph, (hashes, rows)


def _crossed(old_hashes: np.ndarray, old_limit: int, hashes: np.ndarray, limit: int, changed: np.ndarray
             ) -> np.ndarray:
    """The postings (indices into the new list) whose shingle counted as evidence before
    the update and not after, or the other way round. `changed`: the shingles of the added
    and removed postings, the only ones whose chunk count moved; when the limit itself
    moved (a corpus under max_df_limit / max_df_share chunks), every shingle is looked at."""
    if limit == old_limit:
        unique = np.unique(changed)
    else:
        unique = hashes[np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])] if hashes.size else hashes
    old_df = np.searchsorted(old_hashes, unique, side="right") - np.searchsorted(old_hashes, unique, side="left")
    lo, hi = np.searchsorted(hashes, unique, side="left"), np.searchsorted(hashes, unique, side="right")
    flipped = (old_df > 0) & ((old_df <= old_limit) != (hi - lo <= limit))
    lo, lengths = lo[flipped], (hi - lo)[flipped]
    if not lengths.size:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(lo - np.r_[0, np.cumsum(lengths)[:-1]], lengths) + np.arange(int(lengths.sum()))


def _entities(old: qi.QueryIndex, old_doc_id: list[str], touched_docs: set[str], chunk_texts: list[str],
              docs: list[dict[str, Any]], row_of: dict[str, int], doc_arrays: dict[str, Any], config: Config,
              caps: Counter, total: Counter) -> EntityIndex:
    """The old records of untouched documents (renumbered) and those of the touched ones'
    new versions, in the order a build lists them: by name, then document row. `caps` and
    `total` (every word's uses) lose the touched documents' old versions and gain their
    new ones. `old_doc_id`: each old document row's id; `row_of`: each document's new row."""
    extractor = EntityExtractor(config.ambiguity, Analyzer(config.text).stopwords)
    ent = old.entities
    old_to_new = np.fromiter((-1 if doc_id in touched_docs else row_of.get(doc_id, -1) for doc_id in old_doc_id),
                             dtype=np.int64, count=len(old_doc_id))
    gone_caps, gone_total = Counter(), Counter()
    for r in (r for r, doc_id in enumerate(old_doc_id) if doc_id in touched_docs):
        extractor.document(_whole(old.chunk_texts, old.doc_chunk_order, old.doc_chunk_ptr, r), old.docs[r],
                           gone_caps, gone_total)
    caps.subtract(gone_caps)
    total.subtract(gone_total)
    added: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    order, ptr = doc_arrays["doc_chunk_order"], doc_arrays["doc_chunk_ptr"]
    for doc_id in sorted(touched_docs, key=lambda x: row_of.get(x, -1)):
        r = row_of.get(doc_id)
        if r is None:
            continue
        found = extractor.document(_whole(chunk_texts, order, ptr, r), docs[r], caps, total)
        for name, records in found.items():
            added.setdefault(name, []).extend((r, record) for record in records)
    # A build lists a name when a document mentions it (with or without records).
    rec_name = np.repeat(np.arange(len(ent.names)), np.diff(ent.rec_ptr))
    new_doc = old_to_new[ent.rec_doc] if ent.rec_doc.size else np.zeros(0, np.int64)
    stays = np.flatnonzero(new_doc >= 0)
    recordless = np.flatnonzero(np.diff(ent.rec_ptr) == 0)
    names = sorted(set(ent.names[i] for i in np.unique(np.r_[rec_name[stays], recordless])) | set(added))
    name_id = {name: i for i, name in enumerate(names)}
    old_name = np.array([name_id.get(name, -1) for name in ent.names], dtype=np.int64)
    # Every record as (name, document row, order of appearance) with its descriptors as a
    # slice of one pool: the old ones where they lie, the added ones appended.
    descriptors = list(ent.descriptors)
    desc_id = {d: i for i, d in enumerate(descriptors)}
    add_name, add_doc, add_desc, add_len = [], [], [], []
    for name, records in added.items():
        for row, record in records:
            add_name.append(name_id[name])
            add_doc.append(row)
            add_len.append(len(record))
            add_desc.extend(desc_id.setdefault(d, len(desc_id)) for d in record)
    descriptors = list(desc_id)
    pool = np.concatenate([ent.desc_ids.astype(np.int64), np.asarray(add_desc, dtype=np.int64)])
    add_start = len(ent.desc_ids) + np.r_[0, np.cumsum(add_len)[:-1]].astype(np.int64) if add_len else np.zeros(0, np.int64)
    span = len(docs) + 1
    key = np.concatenate([old_name[rec_name[stays]] * span + new_doc[stays],
                          np.asarray(add_name, dtype=np.int64) * span + np.asarray(add_doc, dtype=np.int64)])
    # A stable sort of the keys is a sort by (name, row, order of appearance); the old
    # records come sorted (rows and names are renumbered in order), so it is one merge.
    order = np.argsort(key, kind="stable")
    start = np.concatenate([ent.desc_ptr[stays], add_start]).astype(np.int64)[order]
    length = np.concatenate([np.diff(ent.desc_ptr)[stays], np.asarray(add_len, dtype=np.int64)]).astype(np.int64)[order]
    name, doc = np.divmod(key[order], span)
    offsets = np.repeat(start - np.r_[0, np.cumsum(length)[:-1]], length) if len(key) else np.zeros(0, np.int64)
    desc_ids = pool[offsets + np.arange(int(length.sum()))]
    # Descriptors no record uses any more are dropped, as a build never lists them.
    used = np.bincount(desc_ids, minlength=len(descriptors)) > 0
    desc_ids = (np.cumsum(used) - 1)[desc_ids]
    used = np.flatnonzero(used)
    for counter in (caps, total):
        for word in [w for w, c in counter.items() if c <= 0]:
            del counter[word]
    return EntityIndex(
        names=names, rec_ptr=np.searchsorted(name, np.arange(len(names) + 1)).astype(np.int64),
        rec_doc=doc.astype(np.int32), desc_ptr=np.r_[0, np.cumsum(length)].astype(np.int64),
        desc_ids=desc_ids.astype(np.int32).ravel(), descriptors=[descriptors[i] for i in used],
        capitals=np.asarray([(caps[n], total[n]) for n in names], dtype=np.int64).reshape(len(names), 2))


def _whole(texts: list[str], order: np.ndarray, ptr: np.ndarray, doc: int) -> str:
    from ..storage.chunking import join_chunks

    return "\n".join(join_chunks([texts[i] for i in order[ptr[doc]:ptr[doc + 1]]]))
