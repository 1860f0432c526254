"""`brainquery serve`: the household's page over the same library the CLI uses.

Pages are rendered on the server (Jinja2, autoescaped); the only script polls an ingest's
progress. The JSON endpoints under /api/ return the CLI's `--json` objects.

Documents are untrusted input. Every response carries a Content-Security-Policy that
allows no inline script, so text that slipped past escaping still could not run; the
original of a document is looked up by its id, never by a path.
"""
from __future__ import annotations

import hmac
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, Field, StrictBool, create_model

from ..query.ask import AskResult, QuestionError
from ..brain import DOCUMENT_FIELDS, WEAK_DATE_SOURCES, Brain
from ..originals import NoSuchDocument
from ..query.router import PATTERNS
from . import ingest_paths, present
from .head import HeadAsGet
from .limits import BodyLimit
from .jobs import Busy, IngestJob, IngestJobs

HERE = Path(__file__).resolve().parent
TOKEN_COOKIE = "brainquery_token"
TOKEN_HEADER = "x-brainquery-token"
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "frame-src 'self'; object-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'self'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

# ---- the JSON contract, described for OpenAPI ----------------------------------------
DocumentRecord = create_model(
    "DocumentRecord", **{f: ((str | None) if f == "source_date" else str, ...) for f in DOCUMENT_FIELDS})


class IngestFailure(BaseModel):
    source: str
    error: str


class IngestSummaryModel(BaseModel):
    """The `brainquery ingest --json` object."""

    inputs: int
    statuses: dict[str, int]
    doc_types: dict[str, int]
    failures: list[IngestFailure]
    exit_code: int
    mail_folders: list[dict[str, Any]] = Field(default_factory=list, description=(
        "per IMAP folder read: folder, uidvalidity, relisted, new, last_uid, gone"))


class IngestRequest(BaseModel):
    paths: list[str] = Field(min_length=1, description="files, folders, mbox files, Maildir folders, "
                                                       "IMAP folders synced from the CLI (imaps://USER@HOST/FOLDER)")
    wait: StrictBool = Field(True, description="answer with the summary once done (the CLI's object); "
                                         "false: answer at once with a job to poll")


def create_app(brain: Brain, *, token: str = "", now: datetime | None = None,
               bound_host: str | None = None, allowed_roots: list[str] | None = None) -> FastAPI:
    """The app over `brain`. `token`: every request must carry it. `now` pins "today".
    `bound_host`: the address served on, accepted in Host headers besides loopback names.
    `allowed_roots`: without a token, web ingests stay under these folders (default: the
    roots already ingested)."""
    web = brain.config.web
    # No /api/docs: the Swagger page loads its script from a CDN our own CSP blocks;
    # /api/openapi.json describes the API for any viewer.
    app = FastAPI(title="Brain Query", version="1", description=__doc__,
                  docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.add_middleware(BodyLimit, max_bytes=web.max_body_bytes)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError):
        # Where and why, never the input: it may be megabytes, or not JSON at all (inf).
        return JSONResponse({"detail": [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")}
                                        for e in err.errors()]}, status_code=422)
    roots = list(brain.roots() if allowed_roots is None else allowed_roots)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")
    jobs = IngestJobs(brain, now)
    hosts = {h.strip("[]") for h in (*web.loopback_hosts, bound_host or "")} - {""}

    def today() -> str:
        return (now or datetime.now(timezone.utc).astimezone()).isoformat()

    @app.exception_handler(QuestionError)
    async def question_refused(request: Request, err: QuestionError):
        # An empty or over-long question is the asker's mistake, said as such (not a 500).
        return JSONResponse({"detail": str(err)}, status_code=422)

    @app.middleware("http")
    async def guard(request: Request, call_next):
        refusal = _refusal(request, token, hosts)
        if refusal is not None:
            return refusal
        response = await call_next(request)
        for name, value in _SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if token and request.query_params.get("token"):
            # Opened from the link `serve` printed: later requests carry the cookie.
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    # ---- pages ------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def ask_page(request: Request, q: str = "", k: int | None = Query(None, ge=1, le=web.max_k)):
        result = brain.ask(q.strip(), now=now, k=k) if q.strip() else None
        return templates.TemplateResponse(request, "ask.html", {
            "q": q, "result": result, "badge": present.badge(result.level) if result else None,
            "present": present})

    @app.get("/documents", response_class=HTMLResponse, include_in_schema=False)
    def documents_page(request: Request):
        docs = brain.documents()
        last = brain.last_ingest()
        failures = (last or {}).get("summary", {}).get("failures", [])
        return templates.TemplateResponse(request, "documents.html", {
            "total": len(docs),
            "types": Counter(d["doc_type"] for d in docs).most_common(),
            "bars": present.timeline((d["source_date"] for d in docs), web.timeline_max_bars),
            "undated": sum(1 for d in docs if not d["source_date"]),
            "newest": docs[:web.newest_shown], "weak_date_sources": WEAK_DATE_SOURCES,
            "last": last, "failures": failures[:web.max_failures_shown],
            "more_failures": max(0, len(failures) - web.max_failures_shown),
            "now": today(), "poll_ms": web.progress_poll_ms, "present": present})

    @app.get("/original/{doc_id}", response_class=HTMLResponse, include_in_schema=False)
    def original_page(request: Request, doc_id: str):
        original = _original(brain, doc_id)
        return templates.TemplateResponse(request, "original.html", {
            "o": original, "m": original.meta, "doc_id": doc_id, "now": today(),
            "present": present})

    @app.get("/original/{doc_id}/file", include_in_schema=False)
    def original_file(doc_id: str):
        original = _original(brain, doc_id)
        if original.data is None:
            raise HTTPException(404, "this document has no file a browser shows inline")
        name = str(original.meta.get("attachment") or Path(str(original.meta.get("source", ""))).name)
        return Response(original.data, media_type=original.media_type, headers={
            "Content-Disposition": f"inline; filename*=UTF-8''{quote(name.split('#')[0], safe='')}",
            "Cache-Control": "no-store"})

    # ---- the JSON API (the CLI's --json objects) ----------------------------------------
    @app.get("/api/ask", response_model=AskResult, tags=["ask"])
    def api_ask(q: str = Query(..., min_length=1, description="the question"),
                k: int | None = Query(None, ge=1, le=web.max_k, description="at most this many sources"),
                pattern: Literal[PATTERNS] | None = Query(None, description="skip the router")) -> Any:
        """`brainquery ask "Q" --json`."""
        return brain.ask(q, now=now, k=k, pattern=pattern).to_dict()

    @app.get("/api/documents", response_model=list[DocumentRecord], tags=["documents"])
    def api_documents() -> Any:
        """`brainquery ls --json`, as one array: newest source date first, undated last."""
        return brain.documents()

    @app.post("/api/ingest", tags=["ingest"], responses={202: {"model": IngestJob}},
              response_model=IngestSummaryModel)
    def api_ingest(body: IngestRequest) -> Any:
        """`brainquery ingest PATH... --json`; with `wait: false`, a job to poll."""
        problem = ingest_paths.refusal(body.paths, web, None if token else roots,
                                       None if token else brain.mail_folders())
        if problem:
            raise HTTPException(problem[0], problem[1])
        try:
            job = jobs.start(body.paths)
        except Busy as err:
            raise HTTPException(409, str(err)) from err
        if not body.wait:
            return JSONResponse(job.to_dict(), status_code=202)
        job = jobs.wait(job)
        if job.summary is None:
            raise HTTPException(500, job.error)
        return job.summary

    @app.get("/api/ingest/last", tags=["ingest"])
    def api_last_ingest() -> Any:
        """The latest ingest (from the page or the CLI): paths, times and its summary."""
        last = brain.last_ingest()
        if last is None:
            raise HTTPException(404, "nothing has been ingested into this store yet")
        return last

    @app.get("/api/ingest/{job_id}", response_model=IngestJob, tags=["ingest"])
    def api_ingest_job(job_id: str) -> Any:
        job = jobs.get(job_id)
        if job is None:
            raise HTTPException(404, "no such ingest job")
        return job.to_dict()

    # Outermost: every layer inside (the guard, the routes) sees the GET a HEAD stands for.
    app.add_middleware(HeadAsGet)
    return app


def _original(brain: Brain, doc_id: str):
    try:
        return brain.original(doc_id)
    except NoSuchDocument as err:
        raise HTTPException(404, str(err)) from err


def _refusal(request: Request, token: str, hosts: set[str]) -> Response | None:
    """Why this request is refused, or None. A Host header the server was not bound to is
    a DNS-rebinding page; a cross-site POST is another site's form; no token, no entry."""
    host = urlsplit("//" + request.headers.get("host", "")).hostname or ""
    if not token and host not in hosts:
        return JSONResponse({"detail": "unexpected Host header"}, status_code=400)
    origin = request.headers.get("origin")
    if request.method not in ("GET", "HEAD") and origin and urlsplit(origin).netloc != request.headers.get("host"):
        return JSONResponse({"detail": "cross-site request refused"}, status_code=403)
    if token and not any(hmac.compare_digest(given.encode(), token.encode())
                         for given in _presented_tokens(request)):
        return JSONResponse({"detail": "a token is required"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})
    return None


def _presented_tokens(request: Request) -> list[str]:
    auth = request.headers.get("authorization", "")
    given = [auth[7:] if auth.lower().startswith("bearer ") else "",
             request.headers.get(TOKEN_HEADER, ""), request.cookies.get(TOKEN_COOKIE, ""),
             request.query_params.get("token", "")]
    return [g for g in given if g]
