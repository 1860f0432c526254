"""Chunks end at paragraph breaks when they can, carry a little overlap, and never drop text."""
from __future__ import annotations

import dataclasses

import pytest

from brainquery.storage.chunking import chunk_text
from brainquery.config import ChunkingSection

CFG = ChunkingSection(chunk_chars=200, overlap_chars=60)


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("text, n", [
    pytest.param("Short note.", 1, id="short"),
    pytest.param("", 1, id="empty"),
    pytest.param("\n\n".join(f"Paragraph {i} " + "word " * 20 for i in range(10)), 10, id="paragraphs"),
    pytest.param("One sentence after another. " * 40, 6, id="one-long-paragraph-at-sentences"),
    pytest.param("x" * 1000, 5, id="no-spaces-at-all"),
])
def test_chunk_counts_and_limits(text, n):
    chunks = chunk_text(text, CFG)
    assert len(chunks) == n
    assert all(len(c) <= CFG.chunk_chars + CFG.overlap_chars for c in chunks)


def test_paragraphs_are_not_split_when_they_fit():
    paragraphs = [f"P{i}: " + " ".join(["filter size 16x25x4"] * 4) for i in range(6)]
    chunks = chunk_text("\n\n".join(paragraphs), CFG)
    for chunk in chunks:
        for piece in chunk.split("\n\n"):
            assert piece in paragraphs


def test_every_word_survives_in_order():
    text = "\n\n".join(f"Paragraph {i}. " + " ".join(f"w{i}_{j}" for j in range(30)) for i in range(8))
    first_seen = {}
    for n, chunk in enumerate(chunk_text(text, CFG)):
        for word in _words(chunk):
            first_seen.setdefault(word, (n, len(first_seen)))
    unique = [w for w in _words(text) if w.startswith("w")]
    assert sorted(unique, key=first_seen.get) == unique


def test_overlap_repeats_the_end_of_the_previous_chunk():
    text = "\n\n".join(f"Para {i} is short." for i in range(40))
    chunks = chunk_text(text, CFG)
    for previous, current in zip(chunks, chunks[1:]):
        assert current.split("\n\n")[0] in previous


def test_no_overlap_when_configured_off():
    text = "\n\n".join(f"Para {i} is short." for i in range(40))
    chunks = chunk_text(text, dataclasses.replace(CFG, overlap_chars=0))
    assert sum(len(c.split("\n\n")) for c in chunks) == 40
