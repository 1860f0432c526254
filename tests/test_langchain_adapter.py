"""The LangChain retriever (`brainquery[langchain]`): the same documents in the same order
as `brainquery ask --json`, typed metadata with the answer on the first document, async,
and a runnable chain with langchain-core's own fake chat model, end to end."""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

pytest.importorskip("langchain_core")

from adapter_cases import DAY, QUESTIONS, badly_typed, cli_answers, no_network  # noqa: E402,F401
from langchain_core.documents import Document  # noqa: E402
from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnablePassthrough  # noqa: E402

from brainquery.adapters.langchain import BrainQueryRetriever  # noqa: E402
from brainquery.adapters.retrieval import ANSWER_FIELDS, SOURCE_FIELDS  # noqa: E402
from brainquery.query.ask import QuestionError  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def cli(asked_corpus):
    return cli_answers(asked_corpus.store.location)


@pytest.fixture(scope="module")
def retriever(asked_corpus):
    return BrainQueryRetriever(brain=asked_corpus, now=DAY)


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_same_documents_in_the_same_order_as_ask_json(retriever, cli, n):
    docs = retriever.invoke(QUESTIONS[n])
    expected = cli[n]
    assert all(isinstance(d, Document) for d in docs)
    assert [d.id for d in docs] == [r["doc_id"] for r in expected["results"]]
    for doc, src in zip(docs, expected["results"]):
        assert {f: doc.metadata[f] for f in SOURCE_FIELDS} == {f: src[f] for f in SOURCE_FIELDS}
    assert {f: docs[0].metadata[f] for f in ANSWER_FIELDS} == {f: expected[f] for f in ANSWER_FIELDS}
    assert not any(f in d.metadata for d in docs[1:] for f in ANSWER_FIELDS)


@pytest.mark.parametrize("n", [pytest.param(n, id=q) for n, q in enumerate(QUESTIONS)])
def test_metadata_is_present_and_typed(retriever, n):
    docs = retriever.invoke(QUESTIONS[n])
    assert docs
    for rank, doc in enumerate(docs, 1):
        assert badly_typed(doc.metadata, first=rank == 1) == [], doc.metadata
        assert doc.metadata["rank"] == rank


def test_the_questions_cover_an_answer_i_dont_know_and_a_stale_warning(cli):
    """Otherwise the comparisons above would never see those answers carried over."""
    levels = {a["level"] for a in cli}
    assert "unknown" in levels and levels & {"stale", "outdated"} and levels & {"fresh", "found"}


def test_page_content_is_the_stored_text_or_the_snippet(asked_corpus, retriever, cli):
    docs = retriever.invoke(QUESTIONS[1])
    assert [d.page_content for d in docs] == [asked_corpus.document_text(d.id) for d in docs]
    assert cli[1]["answer"] in docs[0].page_content
    snippets = BrainQueryRetriever(brain=asked_corpus, now=DAY, content="snippet").invoke(QUESTIONS[1])
    assert [d.page_content for d in snippets] == [r["snippet"] for r in cli[1]["results"]]


def test_k_and_a_forced_pattern_are_the_clis(asked_corpus):
    forced = cli_answers(asked_corpus.store.location, QUESTIONS[:2], "--k", "2", "--pattern", "historical")
    retriever = BrainQueryRetriever(brain=asked_corpus, now=DAY, k=2, pattern="historical")
    for question, expected in zip(QUESTIONS[:2], forced):
        docs = retriever.invoke(question)
        assert len(docs) == 2 and docs[0].metadata["pattern"] == "historical"
        assert [d.id for d in docs] == [r["doc_id"] for r in expected["results"]]


def test_built_from_a_store_path(asked_corpus, cli):
    retriever = BrainQueryRetriever(asked_corpus.store.location, now=DAY)
    assert [d.id for d in retriever.invoke(QUESTIONS[1])] == [r["doc_id"] for r in cli[1]["results"]]


def test_a_fixed_datetime_now_and_a_live_now(asked_corpus, cli):
    fixed = datetime.fromisoformat(cli[0]["now"])
    docs = BrainQueryRetriever(brain=asked_corpus, now=fixed).invoke(QUESTIONS[0])
    assert docs[0].metadata["now"] == cli[0]["now"]
    before = datetime.now(timezone.utc)
    live = BrainQueryRetriever(brain=asked_corpus).invoke(QUESTIONS[0])
    asked_at = datetime.fromisoformat(live[0].metadata["now"])
    assert before <= asked_at <= datetime.now(timezone.utc)


def test_ainvoke_returns_what_invoke_does(retriever):
    async def both():
        return await asyncio.gather(*(retriever.ainvoke(q) for q in QUESTIONS[:3]))

    for question, docs in zip(QUESTIONS[:3], asyncio.run(both())):
        assert [(d.id, d.metadata) for d in docs] == [(d.id, d.metadata) for d in retriever.invoke(question)]


def test_bad_input_is_refused_with_the_libraries_error(asked_corpus):
    with pytest.raises(QuestionError, match="empty"):
        BrainQueryRetriever(brain=asked_corpus, now=DAY).invoke("   ")
    with pytest.raises(QuestionError, match="YYYY-MM-DD"):
        BrainQueryRetriever(brain=asked_corpus, now="next tuesday").invoke(QUESTIONS[0])
    with pytest.raises(ValueError, match="not both"):
        BrainQueryRetriever(asked_corpus.store.location, brain=asked_corpus)


def test_a_runnable_chain_with_a_fake_chat_model_runs_end_to_end(retriever, cli):
    """retriever | prompt | chat model | parser, the way a LangChain app composes it. The
    parrot model answers with the prompt it was given: what the chain fed the model."""
    def context(docs: list[Document]) -> str:
        head = docs[0].metadata
        return (f"Brain Query says: {head['answer']} ({head['message']}, level {head['level']})\n\n"
                + "\n\n".join(f"[{d.metadata['title']}]\n{d.page_content}" for d in docs))

    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from the household's documents only."),
        ("human", "{context}\n\nQuestion: {question}"),
    ])
    chain = ({"context": retriever | context, "question": RunnablePassthrough()}
             | prompt | ParrotFakeChatModel() | StrOutputParser())
    said = chain.invoke(QUESTIONS[1])
    expected = cli[1]
    assert said.startswith(f"Brain Query says: {expected['answer']} ({expected['message']}, level {expected['level']})")
    assert said.endswith(f"Question: {QUESTIONS[1]}")
    titles = [r["title"] for r in expected["results"]]
    assert [said.index(f"[{t}]") for t in titles] == sorted(said.index(f"[{t}]") for t in titles)
