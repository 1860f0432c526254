"""The LlamaIndex retriever (`brainquery[llamaindex]`): NodeWithScore in the order and with
the scores of `brainquery ask --json`, the same typed metadata, and a RetrieverQueryEngine
over it with llama-index-core's MockLLM, end to end."""
from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from adapter_cases import DAY, QUESTIONS, badly_typed, cli_answers, no_network  # noqa: E402,F401
from llama_index.core.llms import MockLLM  # noqa: E402
from llama_index.core.query_engine import RetrieverQueryEngine  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode  # noqa: E402

from brainquery.adapters.llamaindex import BrainQueryRetriever  # noqa: E402
from brainquery.adapters.retrieval import ANSWER_FIELDS, SOURCE_FIELDS  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def cli(asked_corpus):
    return cli_answers(asked_corpus.store.location)


@pytest.fixture(scope="module")
def retriever(asked_corpus):
    return BrainQueryRetriever(brain=asked_corpus, now=DAY)


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_same_nodes_in_the_same_order_as_ask_json(retriever, cli, n):
    found = retriever.retrieve(QUESTIONS[n])
    expected = cli[n]
    assert all(isinstance(f, NodeWithScore) and isinstance(f.node, TextNode) for f in found)
    assert [f.node.node_id for f in found] == [r["doc_id"] for r in expected["results"]]
    assert [f.score for f in found] == [r["score"] for r in expected["results"]]
    for f, src in zip(found, expected["results"]):
        assert {k: f.node.metadata[k] for k in SOURCE_FIELDS} == {k: src[k] for k in SOURCE_FIELDS}
    assert {k: found[0].node.metadata[k] for k in ANSWER_FIELDS} == {k: expected[k] for k in ANSWER_FIELDS}


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_metadata_is_present_and_typed(retriever, n):
    found = retriever.retrieve(QUESTIONS[n])
    assert found
    for rank, f in enumerate(found, 1):
        assert badly_typed(f.node.metadata, first=rank == 1) == [], f.node.metadata


def test_the_llm_sees_the_answer_and_its_warning_not_the_score_parts(retriever, cli):
    head = retriever.retrieve(QUESTIONS[1])[0].node
    shown = head.get_content(metadata_mode=MetadataMode.LLM)
    assert f"message: {cli[1]['message']}" in shown and f"level: {cli[1]['level']}" in shown
    assert "bm25" not in shown and head.text in shown


def test_aretrieve_returns_what_retrieve_does(retriever):
    async def both():
        return await asyncio.gather(*(retriever.aretrieve(q) for q in QUESTIONS[:3]))

    for question, found in zip(QUESTIONS[:3], asyncio.run(both())):
        assert [f.node.node_id for f in found] == [f.node.node_id for f in retriever.retrieve(question)]


def test_a_query_engine_with_a_mock_llm_runs_end_to_end(asked_corpus, cli):
    """MockLLM answers with the prompt it was given: what the engine fed the model."""
    retriever = BrainQueryRetriever(asked_corpus.store.location, now=DAY, k=3)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query(QUESTIONS[1])
    expected = cli_answers(asked_corpus.store.location, QUESTIONS[1:2], "--k", "3")[0]
    assert [n.node.node_id for n in response.source_nodes] == [r["doc_id"] for r in expected["results"]]
    said = str(response)
    assert QUESTIONS[1] in said and f"answer: {expected['answer']}" in said
    assert f"message: {expected['message']}" in said
    assert said.index(expected["results"][0]["title"]) < said.index(expected["results"][1]["title"])
