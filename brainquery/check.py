"""`brainquery check`: do the store and its caches agree? Repairs what does not, and says so.

Checked, under the writer lock (so no ingest runs meanwhile):
- leftovers: temporary files of an interrupted write, caches of retired formats (pickles);
- the embedding model: the cached file is the one the store recorded, and every stored
  vector is that model's vector of its chunk (two writers at once, or a crash during a
  refit, leave vectors of another model) — else the model is refitted and every vector
  rewritten;
- the query index: the published file is what a rebuild from the store gives now (ids,
  contents, model and vectors) — else it is rebuilt and published;
- the latest-ingest record is readable; a store with no chunks whose caches describe some
  (a deleted chroma.sqlite3) is reported.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np

from .storage import model_cache

from .query import index_state, query_index
from .config import Config
from .storage.embedding import DenseEmbedder
from .files import remove_leftovers
from .storage.store import Store

LAST_INGEST_FILE = index_state.LAST_INGEST_FILE


@dataclasses.dataclass
class CheckReport:
    chunks: int = 0
    checked: list[str] = dataclasses.field(default_factory=list)
    repaired: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0: all agreed; 1: something was repaired or needs the user (like fsck)."""
        return 1 if self.repaired or self.warnings else 0

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "exit_code": self.exit_code}

    def text(self) -> str:
        lines = [f"{self.chunks} chunks"] + [f"ok: {c}" for c in self.checked]
        lines += [f"repaired: {r}" for r in self.repaired] + [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def check(store: Store, config: Config, cached_chunks: int) -> CheckReport:
    """`cached_chunks`: how many chunks the query index file on disk lists (any provenance),
    read before anything is rebuilt."""
    report = CheckReport(chunks=store.count())
    removed = remove_leftovers(store.cache_dir, model_cache.LEGACY_FILES + query_index.LEGACY_FILES)
    if removed:
        report.repaired.append(f"removed leftover files: {', '.join(sorted(removed))}")
    if report.chunks == 0 and cached_chunks:
        report.warnings.append(f"the store holds no chunks but its cache describes {cached_chunks}: "
                               "was chroma.sqlite3 deleted or replaced? Ingest again to restore it")
    _check_model(store, config, report)
    _check_index(store, config, report)
    _check_last_ingest(store, report)
    return report


def _check_model(store: Store, config: Config, report: CheckReport) -> None:
    if report.chunks == 0:
        return
    state = store.state()
    model = DenseEmbedder.load(store.cache_dir / model_cache.MODEL_FILE, config.embedding,
                               config.text, state.get(model_cache.DIGEST_KEY))
    if model is None or model.fingerprint_ != state.get(model_cache.STATE_KEY):
        model_cache.refit_from_store(store, config.embedding, config.text)
        report.repaired.append("the embedding model cache was missing, foreign or stale: refitted "
                               f"from the store and rewrote all {report.chunks} vectors")
        return
    ids, texts, stored = [], [], []
    for chunk_id, text, meta, vector in store.scan_with_embeddings():
        ids.append(chunk_id)
        texts.append(model_cache.embed_text(str(meta.get("title", "")), text))
        stored.append(np.asarray(vector, dtype=np.float32))
    expected = model.transform(texts)
    wrong = int(np.sum(~np.all(np.isclose(np.stack(stored), expected, atol=1e-5), axis=1)))
    if wrong:
        model_cache.refit_from_store(store, config.embedding, config.text)
        report.repaired.append(f"{wrong} of {len(ids)} vectors were not the recorded model's: "
                               "refitted the model and rewrote every vector")
    else:
        report.checked.append(f"all {len(ids)} vectors are the recorded model's")


def _check_index(store: Store, config: Config, report: CheckReport) -> None:
    state = store.state()
    cached = query_index.load(store.cache_dir / query_index.INDEX_FILE, config,
                              state.get(query_index.DIGEST_KEY))
    fresh = query_index.build(store, config)
    if cached is not None and cached.fingerprint == fresh.fingerprint == state.get(query_index.STATE_KEY):
        report.checked.append(f"the query index matches the store ({fresh.n_docs} documents)")
        return
    query_index.rebuild(store, config)
    why = ("missing, foreign or unreadable" if cached is None
           else "built from other chunks or vectors than the store's")
    report.repaired.append(f"the query index was {why}: rebuilt from the store")


def _check_last_ingest(store: Store, report: CheckReport) -> None:
    path = store.cache_dir / LAST_INGEST_FILE
    if not path.exists():
        return
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        ok = isinstance(record, dict) and isinstance(record.get("summary"), dict)
    except (OSError, ValueError):
        ok = False
    if ok:
        report.checked.append("the latest-ingest record is readable")
    else:
        path.unlink(missing_ok=True)
        report.repaired.append("the latest-ingest record was unreadable: removed")
