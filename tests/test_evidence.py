"""The evidence graph links chunks that say the same thing in the same words; one voice
repeating itself is not corroboration; PageRank from the top hits spreads along the links."""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import numpy as np
import pytest

from brainquery.config import load_config
from brainquery.query.evidence import EvidenceGraph
from brainquery.textproc import Analyzer

CONFIG = load_config()
CFG = CONFIG.graph
ANALYZER = Analyzer(CONFIG.text)


def _fit(texts: list[str], groups: list[str] | None = None, **changes) -> EvidenceGraph:
    cfg = dataclasses.replace(CFG, **changes)
    groups = groups if groups is not None else [f"doc{i}" for i in range(len(texts))]
    return EvidenceGraph(cfg).fit([ANALYZER.words(t) for t in texts], groups)


# ---- brute-force references (python sets, loops over pairs) ----------------------------
def _reference_adjacency(docs: list[list[str]], cfg) -> np.ndarray:
    k, n = cfg.shingle_size, len(docs)
    sets = [{tuple(d[i:i + k]) for i in range(len(d) - k + 1)} for d in docs]
    df = Counter(s for shingles in sets for s in shingles)
    limit = int(np.clip(cfg.max_df_share * n, cfg.min_df_limit, cfg.max_df_limit))
    sets = [{s for s in shingles if df[s] <= limit} for shingles in sets]
    out = np.zeros((n, n))
    for i, j in itertools.combinations(range(n), 2):
        union = len(sets[i] | sets[j])
        jaccard = len(sets[i] & sets[j]) / union if union else 0.0
        if jaccard > cfg.theta:
            out[i, j] = out[j, i] = jaccard
    return out


def _reference_centrality(adjacency: np.ndarray, groups: list[str], cfg) -> np.ndarray:
    n = len(groups)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(n), 2):
        if adjacency[i, j] > cfg.near_duplicate and groups[i] == groups[j]:
            parent[find(i)] = find(j)
    roots = [find(i) for i in range(n)]
    strongest: dict[tuple[int, int], float] = {}
    for i, j in itertools.permutations(range(n), 2):
        if adjacency[i, j] > 0 and roots[i] != roots[j]:
            weight = adjacency[i, j] * (cfg.same_group_weight if groups[i] == groups[j] else 1.0)
            key = (roots[i], roots[j])
            strongest[key] = max(strongest.get(key, 0.0), weight)
    degree = Counter()
    for (a, _), weight in strongest.items():
        degree[a] += weight
    top = max(degree.values(), default=0.0)
    return np.array([degree[r] / top if top > 0 else 0.0 for r in roots])


def _reference_ppr(adjacency: np.ndarray, seeds: np.ndarray, weights: np.ndarray, restart: float,
                   walk_only: bool = False) -> np.ndarray:
    n = len(adjacency)
    s = np.bincount(seeds, weights=weights, minlength=n)
    s /= s.sum()
    degree = adjacency.sum(axis=1)
    transition = np.divide(adjacency, degree[:, None], out=np.zeros_like(adjacency), where=degree[:, None] > 0)
    dangling = (degree == 0).astype(float)
    # p = r s + (1 - r)(Pᵀ p + (dangling · p) s), solved exactly.
    system = np.eye(n) - (1 - restart) * (transition.T + np.outer(s, dangling))
    p = np.linalg.solve(system, restart * s)
    if walk_only:  # minus the mass that jumped back to the seeds at the last step
        p = np.clip(p - (restart + (1 - restart) * (dangling @ p)) * s, 0.0, None)
    return p / p.max() if p.max() > 0 else p


def _random_docs(seed: int, n: int, vocab: int, max_len: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    return [list(rng.choice(words, size=rng.integers(0, max_len + 1))) for _ in range(n)]


REFERENCE_CASES = [
    pytest.param(_random_docs(0, 40, 5, 25), {}, id="dense-overlaps"),
    pytest.param(_random_docs(1, 60, 6, 30), {"block_rows": 7}, id="blocks-of-7-rows"),
    pytest.param(_random_docs(2, 50, 5, 20), {"block_rows": 1, "min_df_limit": 2, "max_df_limit": 6},
                 id="frequent-shingles-dropped"),
    pytest.param(_random_docs(3, 30, 4, 12), {"theta": 0.0, "shingle_size": 2}, id="bigrams-any-overlap"),
    pytest.param(_random_docs(4, 25, 4, 15), {"near_duplicate": 0.3, "same_group_weight": 0.5},
                 id="many-near-duplicates"),
]


@pytest.mark.parametrize("docs, changes", REFERENCE_CASES)
def test_adjacency_equals_brute_force_jaccard(docs, changes):
    cfg = dataclasses.replace(CFG, **changes)
    graph = EvidenceGraph(cfg).fit(docs, [str(i % 4) for i in range(len(docs))])
    adjacency = graph.adjacency_.toarray()
    assert (adjacency > 0).sum() > 0, "the case must produce edges to test anything"
    assert np.allclose(adjacency, _reference_adjacency(docs, cfg), atol=1e-6)
    assert np.array_equal(adjacency, adjacency.T) and not adjacency.diagonal().any()
    assert graph.adjacency_.dtype == np.float32


@pytest.mark.parametrize("docs, changes", REFERENCE_CASES)
def test_centrality_equals_brute_force(docs, changes):
    cfg = dataclasses.replace(CFG, **changes)
    groups = [str(i % 4) for i in range(len(docs))]
    graph = EvidenceGraph(cfg).fit(docs, groups)
    reference = _reference_centrality(graph.adjacency_.toarray().astype(np.float64), groups, cfg)
    assert np.allclose(graph.centrality_, reference, atol=1e-6)
    assert graph.centrality_.min() >= 0 and graph.centrality_.max() == pytest.approx(1.0)


# ---- what links and what does not -----------------------------------------------------
SHARED = "Trash and recycling carts must be at the curb by six in the morning on Thursday"
FOOTER = ("You are receiving this email because you signed up for updates. To stop these "
          "messages click unsubscribe or manage your email preferences at any time")
UNRELATED = [
    "The dishwasher filter should be rinsed under warm water once a month",
    "Soccer practice moves to the indoor dome on Field B when it rains",
    "Remember the spelling test on Tuesday covers the words from chapter four",
    "The furnace tune-up is booked for the second week of October",
    "Grandma lands at the airport at noon so someone must pick her up",
    "Library books are due back before winter break starts",
]


def test_chunks_sharing_a_sentence_are_linked_and_unrelated_ones_not():
    texts = [f"Note from the city: {SHARED} starting in April.",
             f"Hi all, the city says {SHARED}, see you at the block party.", *UNRELATED]
    adjacency = _fit(texts).adjacency_.toarray()
    assert adjacency[0, 1] > CFG.theta
    assert np.count_nonzero(adjacency) == 2


def test_boilerplate_in_every_chunk_links_nothing():
    texts = [f"{t}. {FOOTER}" for t in UNRELATED * 3]
    texts = [f"{t} Issue {i}." for i, t in enumerate(texts)]
    graph = _fit(texts)
    assert graph.shingle_limit_ < len(texts)
    # copies of one unrelated text still link (they share their own words), nothing else
    same_text = np.equal.outer(np.arange(len(texts)) % len(UNRELATED), np.arange(len(texts)) % len(UNRELATED))
    assert not (graph.adjacency_.toarray() > 0)[~same_text].any()


def test_chunks_shorter_than_a_shingle_have_no_edges():
    graph = _fit(["roof", "roof", "", "the roof leaks", "the roof leaks"])
    assert graph.adjacency_.toarray()[:3].sum() == 0
    assert graph.adjacency_[3, 4] == pytest.approx(1.0)


def test_an_empty_corpus_fits():
    graph = _fit([])
    assert graph.adjacency_.shape == (0, 0) and graph.centrality_.shape == (0,)
    assert graph.ppr(np.array([], dtype=int)).shape == (0,)


def test_groups_must_match_chunks():
    with pytest.raises(ValueError, match="groups"):
        EvidenceGraph(CFG).fit([["a", "b", "c"]], [])


# ---- one voice is not corroboration ---------------------------------------------------
BILL = ("Your Prairie Power statement is ready. Statement date {month} 6. Amount due {amount}. "
        "Your payment will be made automatically by AutoPay from the checking account ending in "
        "4421 on the due date. Questions about your bill? Call customer service at 555 0100 "
        "Monday through Friday from 7 am to 7 pm. To report an outage or a downed line call "
        "555 0199 at any hour. Save paper and time: sign up for paperless billing in your online "
        "account. Prairie Power is an equal opportunity provider. Thank you for being a Prairie "
        "Power customer.")
MONTHS = [("July", "142.18"), ("August", "156.73"), ("September", "98.40"), ("October", "71.22"),
          ("November", "88.95")]
QUOTE = ("Maja wrote: the power bill came and your payment will be made automatically by AutoPay "
         "from the checking account, nothing to do this month.")
PAIR = [f"The neighbours agreed: {SHARED}, and yard waste goes out every other week.",
        f"Reminder from the block captain: {SHARED}, and yard waste goes out every other week."]
# Six texts in 9 chunks share the bills' sentence: keep such shingles as evidence here.
ONE_VOICE = {"min_df_limit": 10}


def test_near_identical_bills_from_one_sender_are_one_voice():
    bills = [BILL.format(month=m, amount=a) for m, a in MONTHS]
    texts = [*bills, QUOTE, *PAIR, UNRELATED[0]]
    groups = ["power"] * 5 + ["maja", "neighbours", "captain", "school"]
    graph = _fit(texts, groups, **ONE_VOICE)
    assert len(set(graph.cluster_[:5])) == 1 and graph.cluster_[5] not in graph.cluster_[:5]
    assert np.ptp(graph.centrality_[:5]) == 0
    assert graph.centrality_[0] <= graph.centrality_[5]
    # ...worth exactly what a single bill would be worth
    single = _fit([bills[-1], QUOTE, *PAIR, UNRELATED[0]],
                  ["power", "maja", "neighbours", "captain", "school"], **ONE_VOICE)
    assert graph.centrality_[0] == pytest.approx(single.centrality_[0])
    assert graph.centrality_[5] == pytest.approx(single.centrality_[1])


def test_the_same_texts_from_different_senders_corroborate():
    bills = [BILL.format(month=m, amount=a) for m, a in MONTHS]
    texts = [*bills, QUOTE, *PAIR, UNRELATED[0]]
    groups = [f"household-{i}" for i in range(5)] + ["maja", "neighbours", "captain", "school"]
    graph = _fit(texts, groups, **ONE_VOICE)
    assert len(set(graph.cluster_)) == len(texts)
    assert graph.centrality_[:5].min() > graph.centrality_[5]
    assert graph.centrality_[:5].min() > graph.centrality_[6]


@pytest.mark.parametrize("same_group_weight, repeats_count", [
    pytest.param(0.0, False, id="a-sender-repeating-itself-is-one-voice"),
    pytest.param(1.0, True, id="configured-to-count"),
])
def test_a_sentence_repeated_in_next_weeks_issue(same_group_weight, repeats_count):
    issues = [f"School news, week {w}. {SHARED}. {item}" for w, item in
              [(1, UNRELATED[2]), (2, UNRELATED[5])]]
    graph = _fit([*issues, UNRELATED[0]], ["school-list", "school-list", "home"],
                 same_group_weight=same_group_weight)
    assert 0 < graph.adjacency_[0, 1] < CFG.near_duplicate
    assert (graph.centrality_[0] > 0) == repeats_count


# ---- personalised PageRank ------------------------------------------------------------
CHAIN = [  # 0 - 1 - 2 form a chain, 3 - 4 another component, 5 alone
    f"Note from the city. {SHARED}. Bring the bins back in by evening.",
    f"{SHARED}. The garage code changed to a new four digit number for the winter season.",
    "The garage code changed to a new four digit number for the winter season, ask Maja.",
    f"{UNRELATED[1]}. {UNRELATED[3]}.",
    f"{UNRELATED[1]}. {UNRELATED[4]}.",
    UNRELATED[5],
]


def test_pagerank_reaches_two_hops_and_not_other_components():
    graph = _fit(CHAIN)
    adjacency = graph.adjacency_.toarray()
    assert adjacency[0, 1] > 0 and adjacency[1, 2] > 0 and adjacency[0, 2] == 0
    scores = graph.ppr(np.array([0]))
    assert scores.max() == 1.0 and scores[0] > 0 and scores[2] > 0
    assert scores[3] == scores[4] == scores[5] == 0.0


@pytest.mark.parametrize("seeds, weights", [
    pytest.param([0], None, id="one-seed"),
    pytest.param([0, 3], [0.9, 0.3], id="weighted-seeds-in-two-components"),
    pytest.param([5, 1], [1.0, 1.0], id="seed-without-edges"),
    pytest.param([2, 2, 4], [0.5, 0.5, 0.2], id="repeated-seed-adds-up"),
])
@pytest.mark.parametrize("walk_only", [pytest.param(False, id="with-restarts"),
                                       pytest.param(True, id="walk-only")])
def test_pagerank_equals_the_exact_solution(seeds, weights, walk_only):
    graph = _fit(CHAIN, ppr_iterations=10000, ppr_tolerance=1e-14)
    seeds = np.asarray(seeds)
    w = np.ones(len(seeds)) if weights is None else np.asarray(weights)
    expected = _reference_ppr(graph.adjacency_.toarray().astype(np.float64), seeds, w, CFG.ppr_restart,
                              walk_only)
    got = graph.ppr(seeds, None if weights is None else w, walk_only=walk_only)
    assert np.allclose(got, expected, atol=1e-6)


def test_local_pagerank_over_a_whole_component_equals_the_global_one():
    """The query-time walk runs on the seeds' neighbourhood; it is exact when that covers
    the seeds' component, and leaves rows outside it at 0."""
    graph = _fit(CHAIN, ppr_iterations=10000, ppr_tolerance=1e-14)
    seeds = np.array([0])
    whole = graph.ppr(seeds, walk_only=True)
    component = np.flatnonzero(whole > 0)
    local = graph.ppr(seeds, walk_only=True, nodes=np.r_[component, 4])
    assert np.allclose(local, whole, atol=1e-9)
    assert graph.ppr(seeds, nodes=np.array([1]))[2] == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_local_walk_reads_the_same_subgraph_as_scipy_indexing(seed):
    """The walk cuts its neighbourhood out of the adjacency by hand (scipy's fancy indexing
    cost more than the walk); entries, their order and the neighbours are scipy's."""
    from scipy import sparse

    from brainquery.query.evidence import _submatrix

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    half = sparse.random(n, n, density=float(rng.uniform(0, 0.2)), format="csr", dtype=np.float32, random_state=seed)
    graph = EvidenceGraph(CFG)
    graph.adjacency_ = (half + half.T).tocsr()
    nodes = np.unique(rng.integers(0, n, int(rng.integers(1, n + 1))))
    mine, theirs = _submatrix(graph.adjacency_, nodes), graph.adjacency_[nodes][:, nodes]
    assert mine.shape == theirs.shape
    assert np.array_equal(mine.indptr, theirs.indptr) and np.array_equal(mine.indices, theirs.indices)
    assert np.array_equal(mine.data, theirs.data)
    rows = rng.integers(0, n, 5)
    assert np.array_equal(graph.neighbours(rows), graph.adjacency_[rows].indices)


def test_walk_only_pagerank_gives_a_seed_without_links_nothing():
    scores = _fit(CHAIN).ppr(np.array([5, 0]), walk_only=True)
    assert scores[5] == pytest.approx(0.0, abs=1e-9) and scores[1] == 1.0 and scores[2] > 0


LONERS = CHAIN + ["Apples from the orchard were crisp this year.", "The ladder leans against the shed wall.",
                  "Violin lessons moved upstairs in the music school.", "Kites flew high over the beach at noon.",
                  "Winter tyres go on before the first frost."]


@pytest.mark.parametrize("trial", range(20))
def test_a_walk_from_seeds_without_links_reaches_nothing(trial):
    """Seeds with no edge, weighted as the question's best hits are: nothing arrives over an
    edge, so every score is 0 (rounding dust left by the jumps back, divided by its max,
    once gave such seeds the walk's full score)."""
    rng = np.random.default_rng(trial)
    seeds = rng.choice(np.arange(5, len(LONERS)), size=int(rng.integers(1, 7)), replace=False)
    scores = _fit(LONERS).ppr(seeds, rng.uniform(0.5, 2.0, seeds.size), walk_only=True)
    assert not scores.any()


def test_chunks_of_one_document_are_never_linked():
    texts = [f"Note from the city: {SHARED} starting in April.",
             f"Hi all, the city says {SHARED}, see you at the block party.",
             f"Forwarded: {SHARED}."]
    linked = _fit(texts).adjacency_.toarray() > 0
    assert linked[0, 1] and linked[0, 2] and linked[1, 2]
    graph = EvidenceGraph(CFG).fit([ANALYZER.words(t) for t in texts], ["a", "b", "c"], docs=[7, 7, 8])
    adjacency = graph.adjacency_.toarray()
    assert adjacency[0, 1] == adjacency[1, 0] == 0
    assert adjacency[0, 2] > 0 and adjacency[1, 2] > 0


def test_pagerank_is_zero_without_edges_or_seeds():
    assert not _fit(UNRELATED).ppr(np.array([0, 1])).any()
    assert not _fit(CHAIN).ppr(np.array([], dtype=int)).any()


# ---- persistence ----------------------------------------------------------------------
def test_saved_graph_is_the_same_graph(tmp_path):
    graph = _fit(CHAIN)
    path = tmp_path / "graph.npz"
    graph.save(path)
    loaded = EvidenceGraph.load(path, CFG)
    assert (loaded.adjacency_ != graph.adjacency_).nnz == 0
    assert np.array_equal(loaded.cluster_, graph.cluster_)
    assert np.array_equal(loaded.centrality_, graph.centrality_)
    assert np.array_equal(loaded.ppr(np.array([0])), graph.ppr(np.array([0])))
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("cfg, loads", [
    pytest.param(CFG, True, id="same-config"),
    pytest.param(dataclasses.replace(CFG, ppr_restart=0.5), True, id="pagerank-settings-apply-at-query-time"),
    pytest.param(dataclasses.replace(CFG, theta=0.2), False, id="other-threshold-rebuilds"),
])
def test_saved_graph_loads_only_with_its_build_settings(tmp_path, cfg, loads):
    path = tmp_path / "graph.npz"
    _fit(CHAIN).save(path)
    assert (EvidenceGraph.load(path, cfg) is not None) == loads


def test_unreadable_graph_loads_as_none(tmp_path):
    path = tmp_path / "graph.npz"
    path.write_bytes(b"junk")
    assert EvidenceGraph.load(path, CFG) is None
    assert EvidenceGraph.load(tmp_path / "missing.npz", CFG) is None
