"""The question set over the household corpus is sound (every gold document exists, every
expected answer is really in it, every "I don't know" is really unanswerable), and the
evaluation scores a canned `ask` exactly as hand-computed."""
from __future__ import annotations

import collections
import csv
import dataclasses
import json
import re
from datetime import UTC, datetime

import pytest
from conftest import FIXTURES, INGEST_NOW

from brainquery import Brain
from brainquery.query.ask import FRESH, IDK, OLD_ENTITY, POSSIBLY_OUTDATED, STALE
from brainquery.query.evaluate import (
    CRITERIA,
    PATTERNS,
    EvalQuery,
    QuerySetError,
    contains_answer,
    evaluate,
    gold_matcher,
    load_queries,
    normalise_text,
)

CORPUS = FIXTURES / "corpus"
QUERIES = load_queries(FIXTURES / "queries.jsonl")
with open(FIXTURES / "corpus_manifest.csv", newline="", encoding="utf-8") as _fh:
    DOCUMENT_ROWS = [r for r in csv.DictReader(_fh) if not r["duplicate_of"]]
MIN_QUESTIONS_PER_PATTERN = 20
NOW = datetime(2026, 11, 18, 18, 0, tzinfo=UTC)


def _by_id(queries):
    return [pytest.param(q, id=q.id) for q in queries]


# ---- the question set ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus_texts(tmp_path_factory):
    """(metadata, full text) of every document of the corpus, as ingestion stores it."""
    brain = Brain(tmp_path_factory.mktemp("evaluate") / "store")
    summary = brain.ingest([CORPUS], now=INGEST_NOW)
    assert summary.exit_code == 0
    chunks, metas = collections.defaultdict(list), {}
    for _, text, meta in brain.store.scan(include=("documents", "metadatas")):
        chunks[meta["doc_id"]].append((meta["chunk_no"], text))
        metas[meta["doc_id"]] = meta
    return [(metas[doc_id], " ".join(text for _, text in sorted(parts)))
            for doc_id, parts in chunks.items()]


def test_questions_are_unique():
    counts = collections.Counter(normalise_text(q.question) for q in QUERIES)
    assert [question for question, n in counts.items() if n > 1] == []


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_has_enough_questions(pattern):
    assert sum(q.pattern == pattern for q in QUERIES) >= MIN_QUESTIONS_PER_PATTERN


def test_every_success_criterion_is_asked():
    asked = collections.defaultdict(set)
    for q in QUERIES:
        if q.criterion:
            asked[q.criterion].add(q.expect)
    assert set(asked) == set(CRITERIA)
    # "I don't know" and "verify, it may be out of date" are both part of the promise.
    assert asked["stale-or-idk"] == {"stale", "idk"}
    assert all(asked[c] == {"answer"} for c in CRITERIA if c != "stale-or-idk")


def test_every_planted_answer_is_gold_somewhere():
    """A manifest row marked as a planted fact's gold (or fresh) source answers some question."""
    planted = {(r["path"], r["attachment"]) for r in DOCUMENT_ROWS
               if re.search(r"FACT \d+ (gold|fresh)\b", r["notes"])}
    used = {tuple(entry.partition("::")[::2]) for q in QUERIES for entry in q.gold}
    assert planted and planted - used == set()


@pytest.mark.parametrize("query", _by_id(q for q in QUERIES if q.gold))
def test_gold_is_a_manifest_document(query):
    documents = {(r["path"], r["attachment"]) for r in DOCUMENT_ROWS}
    assert [g for g in query.gold if tuple(g.partition("::")[::2]) not in documents] == []


@pytest.mark.parametrize("query", _by_id(q for q in QUERIES if q.gold))
def test_gold_names_one_ingested_document_holding_the_answer(query, corpus_texts):
    match = gold_matcher(CORPUS)
    gold_texts = []
    for entry in query.gold:
        found = [text for meta, text in corpus_texts if match(meta, entry)]
        assert len(found) == 1, f"{entry} matches {len(found)} ingested documents"
        gold_texts += found
    if query.answer is not None:
        assert any(contains_answer(text, query.answer) for text in gold_texts)


@pytest.mark.parametrize("query", _by_id(q for q in QUERIES if q.expect == "idk"))
def test_unanswerable_questions_are_unanswerable(query, corpus_texts):
    assert query.absent, "an 'idk' question names the words the corpus must not contain"
    for term in query.absent:
        pattern = re.compile(rf"\b{re.escape(term)}", re.IGNORECASE)
        assert [m["source"] for m, text in corpus_texts if pattern.search(text)] == [], term


# ---- loading -------------------------------------------------------------------------------
GOOD = {"id": "q1", "question": "is friday a half day?", "pattern": "logistical",
        "now": "2026-11-18T12:00:00-06:00", "gold": ["mail/a.eml"], "answer": "12:15",
        "expect": "answer", "criterion": None}


def test_a_good_file_loads(tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + json.dumps({**GOOD, "id": "q2", "absent": ["x"]}) + "\n")
    first, second = load_queries(path)
    assert first == EvalQuery(id="q1", question=GOOD["question"], pattern="logistical",
                              now=datetime.fromisoformat(GOOD["now"]), gold=("mail/a.eml",),
                              answer="12:15", expect="answer", criterion=None)
    assert second.absent == ("x",)


@pytest.mark.parametrize("line, named", [
    pytest.param({k: v for k, v in GOOD.items() if k != "answer"}, "missing field.*answer", id="missing"),
    pytest.param({**GOOD, "pattern": "temporal"}, "pattern 'temporal'", id="bad-pattern"),
    pytest.param({**GOOD, "expect": "maybe"}, "expect 'maybe'", id="bad-expect"),
    pytest.param({**GOOD, "criterion": "speed"}, "criterion 'speed'", id="bad-criterion"),
    pytest.param({**GOOD, "now": "2026-11-18T12:00:00"}, "no UTC offset", id="naive-now"),
    pytest.param({**GOOD, "now": "next week"}, "not an ISO 8601", id="bad-now"),
    pytest.param({**GOOD, "gold": "mail/a.eml"}, "gold has the wrong type", id="gold-not-list"),
    pytest.param({**GOOD, "gold": [""]}, "non-empty strings", id="empty-gold-path"),
    pytest.param({**GOOD, "expect": "idk", "answer": None}, "gold must be empty", id="idk-with-gold"),
    pytest.param({**GOOD, "gold": []}, "gold must be empty", id="answer-without-gold"),
    pytest.param({**GOOD, "gold": [], "expect": "idk"}, "no answer to check", id="idk-with-answer"),
    pytest.param({**GOOD, "answer": " "}, "non-empty text", id="blank-answer"),
    pytest.param({**GOOD, "golds": []}, "unknown field.*golds", id="unknown-field"),
    pytest.param({**GOOD, "id": "q0"}, "already used on line 1", id="duplicate-id"),
    pytest.param("{not json", "not valid JSON", id="bad-json"),
])
def test_mistakes_name_their_line(tmp_path, line, named):
    path = tmp_path / "queries.jsonl"
    first = {**GOOD, "id": "q0"}
    path.write_text(json.dumps(first) + "\n" + (line if isinstance(line, str) else json.dumps(line)) + "\n")
    with pytest.raises(QuerySetError, match=rf"queries\.jsonl:2: .*{named}"):
        load_queries(path)


# ---- matching results to gold documents ----------------------------------------------------
@pytest.fixture()
def corpus_root(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    rows = [("mail/a.eml", "", "A"), ("mail/box.mbox#0", "", "first"), ("mail/box.mbox#1", "", "second"),
            ("cal/family.ics#0", "", "Soccer"), ("cal/family.ics#1", "", "Grooming"),
            ("mail/b.eml", "", "Invoice mail"), ("mail/b.eml", "inv.pdf", "Invoice 7")]
    with open(tmp_path / "corpus_manifest.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["path", "attachment", "doc_type", "source_date", "date_source", "title",
                         "notes", "duplicate_of"])
        writer.writerows([path, attachment, "", "", "", title, "", ""] for path, attachment, title in rows)
    return root


def hit(root, path, attachment="", title=""):
    return {"source": str(root / path), "attachment": attachment, "title": title}


@pytest.mark.parametrize("entry, path, attachment, title, expected", [
    pytest.param("mail/a.eml", "mail/a.eml", "", "A", True, id="same-file"),
    pytest.param("mail/a.eml", "mail/c.eml", "", "A", False, id="other-file"),
    pytest.param("mail/box.mbox#1", "mail/box.mbox#1", "", "", True, id="mbox-message"),
    pytest.param("mail/box.mbox#1", "mail/box.mbox#0", "", "", False, id="other-mbox-message"),
    pytest.param("cal/family.ics#1", "cal/family.ics", "", "Grooming", True, id="event-by-title"),
    pytest.param("cal/family.ics#1", "cal/family.ics", "", "Soccer", False, id="other-event-same-file"),
    pytest.param("mail/b.eml::inv.pdf", "mail/b.eml", "inv.pdf", "Invoice 7", True, id="attachment"),
    pytest.param("mail/b.eml::inv.pdf", "mail/b.eml", "", "Invoice mail", False, id="parent-of-attachment"),
    pytest.param("mail/b.eml", "mail/b.eml", "inv.pdf", "Invoice 7", False, id="attachment-of-message"),
    pytest.param("mail/b.eml::inv.pdf", "mail/b.eml", "other.pdf", "", False, id="other-attachment"),
])
def test_gold_matching(corpus_root, entry, path, attachment, title, expected):
    assert gold_matcher(corpus_root)(hit(corpus_root, path, attachment, title), entry) is expected


def test_a_file_outside_the_corpus_is_never_gold(corpus_root, tmp_path):
    elsewhere = {"source": str(tmp_path / "elsewhere" / "mail" / "a.eml"), "attachment": "", "title": "A"}
    assert not gold_matcher(corpus_root)(elsewhere, "mail/a.eml")


def test_without_a_manifest_an_event_matches_by_file(tmp_path):
    root = tmp_path / "corpus"
    match = gold_matcher(root)
    assert match(hit(root, "cal/family.ics", title="anything"), "cal/family.ics#1")
    assert not match(hit(root, "cal/school.ics", title="anything"), "cal/family.ics#1")


# ---- scoring a canned ask ------------------------------------------------------------------
def query(qid, gold=("mail/a.eml",), pattern="entity", expect="answer", answer=None, criterion=None):
    return EvalQuery(id=qid, question=f"question {qid}", pattern=pattern, now=NOW, gold=tuple(gold),
                     answer=answer, expect=expect, criterion=criterion)


def canned(root, sources, answer="x", message=FRESH, pattern="entity"):
    return {"query": "", "pattern": pattern, "answer": answer, "message": message,
            "results": [hit(root, s) for s in sources]}


def ranked_sources(rank):
    """Results with the gold document mail/a.eml at `rank` (None: not returned at all)."""
    misses = [f"mail/miss{i}.eml" for i in range(5)]
    return misses if rank is None else misses[:rank - 1] + ["mail/a.eml"]


def run(root, cases, **kwargs):
    """Evaluate (query, result) pairs through a fake ask that looks the question up."""
    answers = {q.question: result for q, result in cases}
    return evaluate(lambda question, now, pattern: answers[question], [q for q, _ in cases], root, **kwargs)


@pytest.mark.parametrize("ranks, p_at_1, r_at_3, mrr", [
    pytest.param([1, 3, None, 2], 1 / 4, 3 / 4, (1 + 1 / 3 + 0 + 1 / 2) / 4, id="mixed"),
    pytest.param([1, 1], 1.0, 1.0, 1.0, id="all-first"),
    pytest.param([4], 0.0, 0.0, 1 / 4, id="rank-4-counts-only-in-mrr"),
    pytest.param([None, None], 0.0, 0.0, 0.0, id="never-found"),
])
def test_ranking_metrics(corpus_root, ranks, p_at_1, r_at_3, mrr):
    cases = [(query(f"q{i}"), canned(corpus_root, ranked_sources(rank))) for i, rank in enumerate(ranks)]
    # An "I don't know" question has no gold document: it does not count for P@1, R@3, MRR.
    cases.append((query("idk", gold=(), expect="idk"), canned(corpus_root, ["mail/a.eml"], answer=None)))
    scores = run(corpus_root, cases).scores["overall"]
    assert (scores.n, scores.n_ranked) == (len(ranks) + 1, len(ranks))
    assert scores.p_at_1 == pytest.approx(p_at_1)
    assert scores.r_at_3 == pytest.approx(r_at_3)
    assert scores.mrr == pytest.approx(mrr)


def test_any_of_several_gold_documents_counts(corpus_root):
    q = query("q", gold=("mail/b.eml::inv.pdf", "cal/family.ics#1"))
    result = canned(corpus_root, ["mail/b.eml", "mail/c.eml"])
    result["results"].append(hit(corpus_root, "cal/family.ics", title="Grooming"))
    report = run(corpus_root, [(q, result)])
    assert report.outcomes[0].rank == 3


@pytest.mark.parametrize("expect, message, answer, stale_ok, abstention_ok", [
    pytest.param("answer", FRESH, "12:15", True, True, id="fresh-answer"),
    pytest.param("answer", POSSIBLY_OUTDATED, "12:15", False, True, id="needless-warning"),
    pytest.param("stale", STALE, "Mon", True, True, id="stale-warned"),
    pytest.param("stale", OLD_ENTITY, "Mon", True, True, id="old-entity-warned"),
    pytest.param("stale", "Found in email from 2024-09-04", "Mon", False, True, id="stale-not-warned"),
    pytest.param("idk", IDK, None, True, True, id="abstained"),
    pytest.param("idk", "Found in invoice from 2026-03-14", "555-0143", True, False, id="guessed"),
    pytest.param("answer", IDK, None, True, False, id="abstained-needlessly"),
])
def test_stale_and_abstention_accuracy(corpus_root, expect, message, answer, stale_ok, abstention_ok):
    q = query("q", gold=() if expect == "idk" else ("mail/a.eml",), expect=expect)
    outcome = run(corpus_root, [(q, canned(corpus_root, ["mail/a.eml"], answer, message))]).outcomes[0]
    assert (outcome.stale_ok, outcome.abstention_ok) == (stale_ok, abstention_ok)


def test_accuracies_are_shares_of_all_questions(corpus_root):
    cases = [
        (query("a"), canned(corpus_root, ["mail/a.eml"])),
        (query("b"), canned(corpus_root, ["mail/a.eml"], message=STALE)),
        (query("c", expect="stale"), canned(corpus_root, ["mail/a.eml"], answer=None, message=IDK)),
        (query("d", gold=(), expect="idk"), canned(corpus_root, [], answer="guess")),
    ]
    scores = run(corpus_root, cases).scores["overall"]
    assert scores.stale_accuracy == pytest.approx(2 / 4)       # b warned needlessly, c did not warn
    assert scores.abstention_accuracy == pytest.approx(2 / 4)  # c abstained, d guessed


@pytest.mark.parametrize("expected, answer_text, correct", [
    pytest.param("16x25x4 MERV 11", "Filter: 16X25X4\n   merv 11 media filter", True, id="case-and-space"),
    pytest.param("12:15", "Dismissal at 3:05 pm", False, id="other-value"),
    pytest.param("12:15", None, False, id="no-answer"),
])
def test_answer_accuracy(corpus_root, expected, answer_text, correct):
    q = query("q", answer=expected)
    report = run(corpus_root, [(q, canned(corpus_root, ["mail/a.eml"], answer_text))])
    assert report.scores["overall"].answer_accuracy == float(correct)


def test_answer_accuracy_counts_only_questions_with_an_answer(corpus_root):
    cases = [(query("a", answer="12:15"), canned(corpus_root, ["mail/a.eml"], "at 12:15 pm")),
             (query("b", answer=None), canned(corpus_root, ["mail/a.eml"], "anything"))]
    assert run(corpus_root, cases).scores["overall"].answer_accuracy == 1.0


@pytest.mark.parametrize("expect, rank, answer_text, message, passes", [
    pytest.param("answer", 1, "dismissal 12:15 pm", FRESH, True, id="answered"),
    pytest.param("answer", 1, "dismissal 12:15 pm", POSSIBLY_OUTDATED, False, id="warned"),
    pytest.param("answer", 2, "dismissal 12:15 pm", FRESH, False, id="gold-second"),
    pytest.param("answer", 1, "dismissal 3:05 pm", FRESH, False, id="wrong-value"),
    pytest.param("stale", 1, "every other Monday", STALE, True, id="stale-warned"),
    pytest.param("stale", None, None, IDK, True, id="stale-abstained"),
    pytest.param("stale", 1, "every other Monday", FRESH, False, id="stale-as-fresh"),
    pytest.param("idk", None, None, IDK, True, id="idk"),
    pytest.param("idk", None, "(608) 555-0143", "Found in email from 2026-10-05", False, id="idk-guessed"),
])
def test_criterion_verdicts(corpus_root, expect, rank, answer_text, message, passes):
    q = query("q", gold=() if expect == "idk" else ("mail/a.eml",), expect=expect,
              answer="12:15" if expect == "answer" else None, criterion="stale-or-idk")
    report = run(corpus_root, [(q, canned(corpus_root, ranked_sources(rank), answer_text, message))])
    assert report.outcomes[0].criterion_ok is passes
    assert report.criteria == {"stale-or-idk": passes}


def test_a_criterion_passes_only_when_all_its_questions_pass(corpus_root):
    good = canned(corpus_root, ["mail/a.eml"], "12:15")
    bad = canned(corpus_root, ["mail/c.eml"], "12:15")
    cases = [(query("a", criterion="friday-half-day", pattern="logistical"), good),
             (query("b", criterion="friday-half-day", pattern="logistical"), bad),
             (query("c", criterion="hvac-filter"), good)]
    report = run(corpus_root, cases)
    assert report.criteria == {"friday-half-day": False, "hvac-filter": True}
    assert report.scores["logistical"].criteria == 0.5
    assert report.scores["entity"].criteria == 1.0


def test_router_accuracy_and_labelled_pattern_override(corpus_root):
    cases = [(query("a", pattern="entity"), canned(corpus_root, ["mail/a.eml"], pattern="entity")),
             (query("b", pattern="logistical"), canned(corpus_root, ["mail/a.eml"], pattern="entity")),
             (query("c", pattern="historical"), canned(corpus_root, ["mail/a.eml"], pattern="entity"))]
    answers = {q.question: result for q, result in cases}
    overrides = []

    def ask(question, now, pattern):
        overrides.append(pattern)
        return answers[question]

    report = evaluate(ask, [q for q, _ in cases], corpus_root)
    assert overrides == [None, None, None]
    assert report.scores["overall"].classifier_accuracy == pytest.approx(1 / 3)
    assert {p: s.classifier_accuracy for p, s in report.scores.items() if p != "overall"} == {
        "logistical": 0.0, "entity": 1.0, "historical": 0.0}
    overrides.clear()
    evaluate(ask, [q for q, _ in cases], corpus_root, use_labelled_pattern=True)
    assert overrides == ["entity", "logistical", "historical"]


def test_each_question_is_asked_at_its_own_now(corpus_root):
    later = datetime(2025, 11, 19, 14, 0, tzinfo=UTC)
    queries = [query("a"), dataclasses.replace(query("b"), now=later)]
    seen = []
    evaluate(lambda question, now, pattern: seen.append(now) or canned(corpus_root, []), queries, corpus_root)
    assert seen == [NOW, later]


def test_report_table_and_dict(corpus_root):
    cases = [(query("good", pattern="entity", answer="12:15", criterion="hvac-filter"),
              canned(corpus_root, ["mail/a.eml"], "12:15")),
             (query("bad", pattern="historical"), canned(corpus_root, ["mail/c.eml", "mail/a.eml"],
                                                         pattern="entity"))]
    report = run(corpus_root, cases)
    table = report.format_table()
    lines = table.splitlines()
    assert [line.split()[0] for line in lines[2:5]] == ["entity", "historical", "overall"]
    assert "hvac-filter" in table and "PASS" in table
    assert report.failures == [("bad", ["top-1 is mail/c.eml '' (gold at rank 2)",
                                        "routed to entity, labelled historical"])]
    assert "  bad: top-1 is mail/c.eml '' (gold at rank 2); routed to entity, labelled historical" in lines
    data = json.loads(json.dumps(report.to_dict()))
    assert data["scores"]["historical"]["mrr"] == 0.5
    assert data["criteria"] == {"hvac-filter": True}
    assert [f["id"] for f in data["failures"]] == ["bad"]


def test_contains_answer_ignores_case_and_spacing():
    assert contains_answer("Password:\n  otter-Birchwood-7731", "OTTER-birchwood-7731")
    assert not contains_answer("otter-Birchwood-77", "otter-Birchwood-7731")
