"""Paragraph-aware chunking: chunks end at paragraph breaks when they can, at sentence
breaks when a paragraph is too long, and at word breaks only as a last resort."""
from __future__ import annotations

import re

from ..config import ChunkingSection

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def chunk_text(text: str, cfg: ChunkingSection) -> list[str]:
    """Split `text` into chunks of at most ~cfg.chunk_chars, each starting with up to
    cfg.overlap_chars of the previous chunk's closing pieces. Never returns an empty list."""
    pieces = [p for para in _PARAGRAPH.split(text) for p in _fit(para.strip(), cfg.chunk_chars)]
    if not pieces:
        return [text.strip()]
    chunks: list[str] = []
    current: list[str] = []
    length = 0
    for piece in pieces:
        if current and length + len(piece) > cfg.chunk_chars:
            chunks.append("\n\n".join(current))
            current = _tail(current, cfg.overlap_chars)
            length = sum(len(p) + 2 for p in current)
        current.append(piece)
        length += len(piece) + 2
    chunks.append("\n\n".join(current))
    return chunks


def _fit(paragraph: str, size: int) -> list[str]:
    """A paragraph as pieces no longer than `size`."""
    if not paragraph:
        return []
    if len(paragraph) <= size:
        return [paragraph]
    pieces: list[str] = []
    for sentence in _SENTENCE.split(paragraph):
        # Walk an offset through a long sentence: cutting the rest off each time copied it
        # whole per piece, quadratic in a paragraph with no sentence end (8 MB: 4 s).
        start = 0
        while len(sentence) - start > size:
            cut = sentence.rfind(" ", start, start + size) - start
            cut = cut if cut > size // 2 else size
            pieces.append(sentence[start:start + cut].strip())
            start += cut
            while start < len(sentence) and sentence[start].isspace():
                start += 1
        sentence = sentence[start:]
        if sentence:
            if pieces and len(pieces[-1]) + 1 + len(sentence) <= size:
                pieces[-1] = f"{pieces[-1]} {sentence}"
            else:
                pieces.append(sentence)
    return pieces


def _tail(pieces: list[str], budget: int) -> list[str]:
    """The closing pieces of a chunk that fit in the overlap budget."""
    tail: list[str] = []
    used = 0
    for piece in reversed(pieces):
        if used + len(piece) > budget:
            break
        tail.insert(0, piece)
        used += len(piece) + 2
    return tail


def join_chunks(texts: list[str]) -> list[str]:
    """A document's chunks, in order, without the overlap each repeats from the one before
    (for reading the whole document back)."""
    out: list[str] = []
    for text in texts:
        if out:
            tail = out[-1][-400:]
            for size in range(min(len(tail), len(text)), 20, -1):
                if text.startswith(tail[-size:]):
                    text = text[size:]
                    break
        out.append(text)
    return out
