"""`brainquery mcp`: Brain Query as a Model Context Protocol server over stdio
(`pip install 'brainquery[mcp]'`), for assistant apps that speak MCP.

Read-only unless started with `--allow-ingest`: the store is opened read-only and the
`ingest` tool is not offered. Every tool answers with the JSON the CLI prints (`ask --json`,
`ls --json`, `ingest --json`); `open_document` gives a document's stored text and facts,
reading the original file only under the rules of the page's "open original"
(`brainquery/originals.py`) and never returning its bytes.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Sequence

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ..brain import Brain
from ..originals import NoSuchDocument
from ..query.ask import QuestionError
from ..storage.store import StoreBusy, StoreError
from ..web import ingest_paths
from .retrieval import resolve_now

_OUTSIDE_ROOTS = ("a path lies outside the folders this server may ingest: those already "
                  "ingested (brainquery roots) or named with brainquery mcp --allow PATH")
# Metadata a document keeps for the store's own bookkeeping: not facts about the document.
_BOOKKEEPING = frozenset({"chunk_no", "n_chunks", "content_hash", "source_epoch"})

INSTRUCTIONS = """Brain Query answers questions from the household's own documents (mail,
PDFs, photos, invoices, calendars, notes), stored on this machine. Ask it with `ask`; list
documents with `documents`; read one with `open_document`. Relay its answers as they are:
when `level` is "unknown" (answer null) say that the documents do not say, and do not guess;
when `level` is "stale" or "outdated", pass the `message` on (it says whom to check with)."""

ASK = """Answer a question from the household's documents. Returns the `brainquery ask --json`
object: `answer` (null when nothing answers it), `message`, `confidence`, `level`, `conflicts`,
`evidence` (the sentence the answer came from) and `results` (the sources, best first, each
with title, doc_type, source_date, doc_id, snippet).

How to relay it:
- `level` "unknown": the documents do not answer this. Say "I don't know" — do not guess
  from the sources or from general knowledge.
- `level` "stale": the newest evidence may no longer hold; repeat the `message` ("Stale
  information — verify with …") with the answer. "outdated": say it may be out of date.
- `level` "fresh" (recent information) or "found" (a record: an entity's or a past
  document's value): answer, naming the source and its date.
- `confidence` is the probability (0-1) that the answer is right, from a model fitted on
  labelled questions: below about 0.5, present the answer as uncertain.
- `conflicts` lists differing values with their dates: mention them.
- `answer_kind` "ambiguous": the question names something several entities share; ask the
  user which one (each of `candidates` has a `question` to re-ask).

`k`: at most this many sources (default 5). `now`: "YYYY-MM-DD" to answer as of that day
(default: today, or the server's --now)."""

DOCUMENTS = """List the stored documents, newest source date first (undated last): the
`brainquery ls --json` objects (source, message_id, title, doc_type, source_date,
date_source, attachment, parent_id, doc_id). Filters: `doc_type` (email, invoice, receipt,
calendar_event, photo, note, newsletter, manual, static_pdf, ...), `since` / `until`
("YYYY-MM-DD", both days included; undated documents are left out when either is given),
`limit` (at most this many). Use a doc_id with `open_document`."""

OPEN_DOCUMENT = """Read one stored document by its `doc_id` (from `ask` results or
`documents`): its facts (title, doc_type, source_date and where that date came from, sender,
amounts, ...) and its text. An email shows with its From/To/Cc/Date/Subject. The original
file is read only while it lies inside the folders that were ingested and is unchanged;
otherwise `note` says why and `text` is the text as stored."""

INGEST = """Ingest files, folders and mailboxes into the store (only offered when the server
was started with --allow-ingest). Paths must lie under the folders already ingested or
named with --allow. Returns the `brainquery ingest --json` summary."""


def build_server(brain: Brain, *, now: datetime | None = None, allow_ingest: bool = False,
                 allowed_roots: Sequence[str] | None = None) -> MCPServer:
    """The server's tools over `brain`. `now`: the pinned clock (None: each question's
    moment). `allowed_roots`: where `ingest` may read (default the roots already ingested)."""
    pinned = now
    server = MCPServer(name="brainquery", instructions=INSTRUCTIONS, log_level="WARNING")
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def ask(question: str, k: int | None = None, now: str | None = None) -> dict[str, Any]:
        try:
            when = resolve_now(brain, now if now else pinned)
            return brain.ask(question, now=when, k=k).to_dict()
        except QuestionError as err:
            raise ToolError(str(err)) from err

    def documents(doc_type: str | None = None, since: str | None = None,
                  until: str | None = None, limit: int | None = None) -> dict[str, Any]:
        try:
            listed = filter_documents(brain.documents(), doc_type=doc_type, since=since,
                                      until=until, limit=limit)
        except ValueError as err:
            raise ToolError(str(err)) from err
        return {"documents": listed}

    def open_document(doc_id: str) -> dict[str, Any]:
        try:
            original = brain.original(doc_id)
        except NoSuchDocument as err:
            raise ToolError(f"{err}: use a doc_id from ask or documents") from err
        return {"doc_id": doc_id, "kind": original.kind,
                "facts": {k: v for k, v in sorted(original.meta.items()) if k not in _BOOKKEEPING},
                "headers": dict(original.headers), "text": original.text, "note": original.note}

    server.add_tool(ask, name="ask", description=ASK, annotations=reads)
    server.add_tool(documents, name="documents", description=DOCUMENTS, annotations=reads)
    server.add_tool(open_document, name="open_document", description=OPEN_DOCUMENT,
                    annotations=reads)
    if allow_ingest:
        roots = list(allowed_roots) if allowed_roots else brain.roots()

        def ingest(paths: list[str]) -> dict[str, Any]:
            refused = ingest_paths.refusal(paths, brain.config.web, roots)
            if refused:
                status, reason = refused
                raise ToolError(_OUTSIDE_ROOTS if status == ingest_paths.OUTSIDE else reason)
            try:
                return brain.ingest(paths, now=pinned, wait=False).to_dict()
            except (StoreBusy, StoreError) as err:
                raise ToolError(str(err)) from err

        server.add_tool(ingest, name="ingest", description=INGEST,
                        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                    open_world_hint=False))
    return server


def serve(brain: Brain, **kwargs: Any) -> None:
    """Run the server on stdin/stdout until the client closes them."""
    build_server(brain, **kwargs).run("stdio")


def filter_documents(docs: list[dict[str, Any]], *, doc_type: str | None = None,
                     since: str | None = None, until: str | None = None,
                     limit: int | None = None) -> list[dict[str, Any]]:
    """The `ls --json` objects of one type and between two days (both included), at most
    `limit`. Raises ValueError for a day that is not YYYY-MM-DD or a limit below 1."""
    first, last = _day("since", since), _day("until", until)
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    out = []
    for doc in docs:
        day = (doc["source_date"] or "")[:10]
        if doc_type and doc["doc_type"] != doc_type:
            continue
        if (first or last) and not day:
            continue
        if (first and day < first) or (last and day > last):
            continue
        out.append(doc)
    return out[:limit]


def _day(name: str, text: str | None) -> str | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError as err:
        raise ValueError(f"{name}: expected YYYY-MM-DD, got {text!r}") from err
