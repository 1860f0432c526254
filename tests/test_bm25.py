"""BM25 on a sparse matrix scores exactly what rank-bm25's BM25Okapi scores."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import rank_bm25

from brainquery.query.bm25 import SparseBM25
from brainquery.config import load_config

CFG = dataclasses.replace(load_config().bm25, idf="okapi")  # the rank-bm25 semantics


def _random_corpus(seed: int, n_docs: int, vocab: int, max_len: int, min_len: int = 0) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    # Zipf-like word choice: a few words are in most documents (negative idf), many are rare.
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    return [list(rng.choice(words, size=rng.integers(min_len, max_len + 1), p=p)) for _ in range(n_docs)]


CORPORA = [
    pytest.param(_random_corpus(0, 50, 40, 30), id="random-zipf"),
    pytest.param(_random_corpus(1, 200, 8, 12, min_len=1), id="tiny-vocab-negative-idfs"),
    pytest.param(_random_corpus(2, 30, 300, 60), id="large-vocab-rare-terms"),
    pytest.param([["roof", "roof", "invoice", "summit"]], id="single-document"),
    pytest.param([[], ["filter", "size"], [], ["filter", "16x25x4", "filter"], []], id="empty-documents"),
    pytest.param([["same", "words"]] * 4, id="identical-documents"),
    pytest.param([["a"], ["b"], ["a", "b"], ["c"]], id="term-in-exactly-half"),
]
QUERIES = [
    pytest.param(["w1", "w1", "w2", "w3"], id="repeated-term"),
    pytest.param(["w0", "absent", "w5"], id="absent-term"),
    pytest.param(["w0", "w1"], id="most-common-terms"),
    pytest.param(["roof", "filter", "a", "same", "16x25x4", "roof"], id="words-of-small-corpora"),
    pytest.param(["nothing", "matches"], id="no-known-term"),
    pytest.param([], id="empty-query"),
]


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25(corpus, query):
    ours = SparseBM25(CFG).fit(corpus).scores(query)
    reference = rank_bm25.BM25Okapi(corpus, k1=CFG.k1, b=CFG.b, epsilon=CFG.epsilon).get_scores(query)
    assert ours.dtype == np.float64
    assert np.allclose(ours, reference, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("corpus", CORPORA)
def test_candidate_scores_equal_rank_bm25_batch_scores(corpus):
    rng = np.random.default_rng(7)
    candidates = rng.integers(0, len(corpus), size=min(len(corpus), 9))
    query = ["w1", "w2", "w2", "roof", "filter", "a", "same"]
    ours = SparseBM25(CFG).fit(corpus).scores(query, candidates)
    reference = rank_bm25.BM25Okapi(corpus).get_batch_scores(query, list(candidates))
    assert np.allclose(ours, reference, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("params", [
    pytest.param({"k1": 1.2, "b": 0.75, "epsilon": 0.25}, id="k1"),
    pytest.param({"k1": 1.5, "b": 0.0, "epsilon": 0.25}, id="no-length-normalisation"),
    pytest.param({"k1": 1.5, "b": 1.0, "epsilon": 0.5}, id="full-length-normalisation"),
])
def test_parameters_follow_rank_bm25(params):
    # rank-bm25 divides 0 by 0 for an empty document when b = 1 (NaN); we score it 0.
    corpus = _random_corpus(3, 80, 25, 40, min_len=1)
    query = ["w0", "w3", "w3", "w10"]
    ours = SparseBM25(dataclasses.replace(CFG, **params)).fit(corpus).scores(query)
    assert np.allclose(ours, rank_bm25.BM25Okapi(corpus, **params).get_scores(query), rtol=1e-12)


def test_weighted_terms_scale_their_contribution():
    corpus = _random_corpus(4, 60, 30, 25)
    model = SparseBM25(CFG).fit(corpus)
    reference = rank_bm25.BM25Okapi(corpus)
    weighted = [("w1", 1.0), ("w4", 0.5), ("w7", 0.25), ("w1", 1.0), ("absent", 0.5)]
    expected = sum(w * reference.get_scores([t]) for t, w in weighted)
    assert np.allclose(model.scores(weighted), expected, rtol=1e-12)
    # plain strings are weight 1
    assert np.allclose(model.scores(["w1", "w4"]), model.scores([("w1", 1.0), ("w4", 1.0)]))


def test_an_empty_corpus_scores_nothing():
    model = SparseBM25(CFG).fit([])
    assert model.scores(["anything"]).shape == (0,)
    assert SparseBM25(CFG).fit([[], []]).scores(["anything"]).tolist() == [0.0, 0.0]


def test_saved_index_scores_the_same(tmp_path):
    corpus = _random_corpus(5, 40, 30, 20)
    model = SparseBM25(CFG).fit(corpus)
    path = tmp_path / "bm25.npz"
    model.save(path)
    loaded = SparseBM25.load(path, CFG)
    query = [("w1", 1.0), ("w2", 0.5), ("w9", 1.0)]
    assert np.array_equal(loaded.scores(query), model.scores(query))
    assert loaded.vocab_ == model.vocab_
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("damage", [
    pytest.param(lambda path: path.unlink(), id="missing"),
    pytest.param(lambda path: path.write_bytes(b"not an npz"), id="garbage"),
    pytest.param(lambda path: path.write_bytes(path.read_bytes()[:100]), id="truncated"),
])
def test_unreadable_index_loads_as_none(tmp_path, damage):
    path = tmp_path / "bm25.npz"
    SparseBM25(CFG).fit(_random_corpus(6, 10, 10, 10)).save(path)
    damage(path)
    assert SparseBM25.load(path, CFG) is None


def test_index_made_with_other_parameters_loads_as_none(tmp_path):
    path = tmp_path / "bm25.npz"
    SparseBM25(CFG).fit(_random_corpus(6, 10, 10, 10)).save(path)
    assert SparseBM25.load(path, dataclasses.replace(CFG, k1=CFG.k1 + 0.1)) is None


def test_lucene_idf_keeps_a_word_found_in_half_of_a_small_store():
    # Three documents, "maggie" in two of them: Okapi's idf is negative there (floored to
    # ~0), so the question "maggie vet" could not tell the vet visit from the unrelated note.
    corpus = [["maggie", "vet", "rabies"], ["maggie", "flight", "lands"], ["piano", "lesson"]]
    lucene = SparseBM25(dataclasses.replace(CFG, idf="lucene")).fit(corpus)
    assert (lucene.idf_ > 0).all()
    scores = lucene.scores(["maggie", "vet"])
    assert scores[0] > scores[1] > scores[2] == 0.0


def test_an_unknown_idf_is_named_with_the_valid_ones():
    with pytest.raises(ValueError, match="okapi, lucene"):
        SparseBM25(dataclasses.replace(CFG, idf="bm42")).fit([["a"]])


@pytest.mark.parametrize("seed", range(6))
def test_an_updated_index_is_the_index_fitted_on_the_new_corpus(seed):
    """Documents removed and inserted anywhere (an ingest's update, index_update.py): the
    same weights, term for term and bit for bit, and the same idfs as a fit from scratch,
    including terms only the removed documents had (gone) and terms only the new ones have."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(40)]
    old_docs = [list(rng.choice(words[:30], size=rng.integers(0, 12))) for _ in range(60)]
    new_docs = [list(rng.choice(words[10:], size=rng.integers(1, 12))) for _ in range(rng.integers(1, 8))]
    removed = set(rng.choice(len(old_docs), size=rng.integers(0, 10), replace=False).tolist())
    kept = [i for i in range(len(old_docs)) if i not in removed]
    # The new documents' places among the kept ones, kept ones in their order.
    n = len(kept) + len(new_docs)
    new_rows = np.sort(rng.choice(n, size=len(new_docs), replace=False))
    layout: list = [None] * n
    for row, doc in zip(new_rows, new_docs):
        layout[row] = doc
    free = iter(kept)
    new_row_of_old = np.full(len(old_docs), -1)
    for row in range(n):
        if layout[row] is None:
            old = next(free)
            new_row_of_old[old] = row
            layout[row] = old_docs[old]
    cfg = load_config().bm25
    updated = SparseBM25(cfg).fit(old_docs).updated(
        new_row_of_old, new_rows, new_docs, np.array([len(d) for d in layout], dtype=np.int64))
    fitted = SparseBM25(cfg).fit(layout)
    assert set(updated.vocab_) == set(fitted.vocab_)
    terms = sorted(fitted.vocab_)
    mine = updated.weights_[:, [updated.vocab_[t] for t in terms]].toarray()
    theirs = fitted.weights_[:, [fitted.vocab_[t] for t in terms]].toarray()
    assert np.array_equal(mine, theirs)
    # The mean idf sums the terms in their numbering's order: equal up to the last bit.
    assert np.allclose(updated.idf_[[updated.vocab_[t] for t in terms]],
                       fitted.idf_[[fitted.vocab_[t] for t in terms]], rtol=0, atol=1e-12)
    assert updated.average_idf_ == pytest.approx(fitted.average_idf_, rel=1e-12)
    assert updated.avgdl_ == fitted.avgdl_
