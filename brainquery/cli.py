"""brainquery: ingest a household's mail and folders, ask it questions.

    brainquery ingest ~/Mail ~/Documents --report ingest.jsonl
    brainquery ask "Is Friday a half day?"
    brainquery ls --json
    brainquery check
"""
from __future__ import annotations

import argparse
import errno
import hashlib
import json
import logging
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ingest.imap_url import ImapUrlError, is_imap_url, parse_imap_url

from . import __version__
from .age import relative_age
from .query.patterns import PATTERNS
from .terminal import fit, json_line, printable

if TYPE_CHECKING:
    from .brain import Brain
    from .storage.indexer import IngestSummary, ReportLine

# Everything heavier (chromadb, scikit-learn, the query side) is imported by the command
# that needs it: `--help` answers at once, and `ask` never loads what only `ingest` uses.

FIXTURE_QUERIES = Path(__file__).resolve().parent.parent / "fixtures" / "queries.jsonl"
TOKEN_ENV = "BRAINQUERY_TOKEN"
MAX_PORT = 65535


# storage.indexer's exit codes, without loading the indexer to say so (a test keeps them equal).
EXIT_SOME_FAILED, EXIT_NOTHING_RAN = 1, 2


class UsageError(ValueError):
    """Bad command-line input found after parsing (it needs the config): exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        # One line, like every other refusal: the usage is one `--help` away.
        self.exit(EXIT_NOTHING_RAN, f"{self.prog}: {printable(message)} (see --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _set_up_logging(args.verbose)
    from ingest.config import ConfigError
    from ingest.imap_auth import ImapError

    from .brain import Brain
    from .config import load_config
    from .query.question import QuestionError
    from .storage.store import StoreBusy, StoreError, StoreMissing, StoreWriteError

    try:
        config = load_config(args.config)
        _check_now(args.now, config)
        # Input read and refused before the store is opened.
        if args.command in _BEFORE_THE_STORE:
            _BEFORE_THE_STORE[args.command](args, config)
        # The report file is opened before the store: a bad --report changes nothing.
        args.report_file = _open_report(args.report) if getattr(args, "report", None) else None
        brain = Brain(args.store, config,
                      read_only=args.read_only and not getattr(args, "allow_ingest", False))
        return args.run(brain, args)
    except StoreBusy as err:
        print(f"brainquery: {printable(str(err))} (without --no-wait, a writer waits its turn)",
              file=sys.stderr)
        return EXIT_NOTHING_RAN
    except StoreMissing as err:
        print(f"brainquery: {printable(str(err))} — run `brainquery ingest PATH --store "
              f"{printable(err.location)}` first", file=sys.stderr)
        return EXIT_NOTHING_RAN
    except StoreWriteError as err:
        print(f"brainquery: {printable(str(err))}", file=sys.stderr)
        return EXIT_SOME_FAILED
    except (ConfigError, StoreError, UsageError, QuestionError, ImapError, ImapUrlError) as err:
        print(f"brainquery: {printable(str(err))}", file=sys.stderr)
        return EXIT_NOTHING_RAN
    except BrokenPipeError:  # `brainquery ls | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        if err.errno not in _DISK_ERRNOS:
            raise
        # A cache or report write on a full disk: the temporary file is already gone, and
        # the next run completes what this one started.
        print(f"brainquery: cannot write {err.filename or 'a file'}: {err.strerror}", file=sys.stderr)
        return EXIT_SOME_FAILED
    except KeyboardInterrupt:
        print("brainquery: interrupted; the next ingest completes what was started",
              file=sys.stderr)
        return 130


# What -v shows: Brain Query's own steps. The libraries' debug lines (chromadb's "Starting
# component ..." among them) need -vv.
_OWN_LOGGERS = ("brainquery", "ingest")


def _set_up_logging(verbosity: int) -> None:
    logging.basicConfig(level=logging.DEBUG if verbosity >= 2 else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if verbosity == 1:
        for name in _OWN_LOGGERS:
            logging.getLogger(name).setLevel(logging.DEBUG)
    if not verbosity:
        quiet_parsers()


_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


def quiet_parsers() -> None:
    """The parsers warn about every quirk of every file ("EOF marker not found"); we
    report what matters per file, so their chatter only shows with -v."""
    for name in ("pypdf", "exifread", "mailparser", "icalendar"):
        logging.getLogger(name).setLevel(logging.ERROR)


def cmd_ingest(brain: Brain, args: argparse.Namespace) -> int:
    """Ingest files, folders, mbox files, Maildir folders and IMAP folders.

    Unchanged files are skipped, changed ones replace their old chunks. An IMAP folder
    (imaps://USER@HOST[:PORT]/FOLDER, /* for all) is read read-only, only the messages new
    since the last run; the password comes from --password-command, $BRAINQUERY_IMAP_PASSWORD,
    ~/.netrc or a prompt. A PATH of - reads the paths from standard input, one per line (with
    -0, NUL-separated). Exit code 0 when everything went in, 1 when some files failed, 2 when
    nothing could be ingested (a wrong password, a server that cannot be reached).

        brainquery ingest ~/Mail ~/Documents --report ingest.jsonl
        brainquery ingest 'imaps://me%40gmail.com@imap.gmail.com/INBOX'
        find ~/Scans -name '*.pdf' -print0 | brainquery ingest - -0
    """
    report = args.report_file

    def write(line: ReportLine) -> None:
        if report is not None:
            # Flushed line by line: a killed ingest leaves the report of what it did.
            report.write(json.dumps(line.to_dict(), ensure_ascii=False) + "\n")
            report.flush()

    from ingest.imap_auth import Secrets

    imap = brain.config.ingest.imap
    secrets = Secrets(password_command=args.password_command or imap.password_command,
                      command_timeout=imap.password_command_timeout_seconds,
                      prompt=not args.stdin_read and sys.stdin.isatty())
    try:
        summary = brain.ingest(args.paths, now=args.now, progress=None, on_line=write,
                               wait=not args.no_wait, follow_symlinks=args.follow_symlinks,
                               secrets=secrets)
    finally:
        if report is not None:
            report.close()
    if args.json:
        print(json_line(summary.to_dict()))
    else:
        print(printable(_summary_text(summary)))
    return summary.exit_code


def _before_ingest(args: argparse.Namespace, config) -> None:
    # Paths read from standard input leave no terminal there to ask for a password on.
    args.stdin_read = "-" in args.paths
    args.paths = _stdin_paths(args.paths, args.null)
    for path in args.paths:
        if is_imap_url(path):
            parse_imap_url(path)   # a bad IMAP URL: ImapUrlError


def _before_eval(args: argparse.Namespace, config) -> None:
    args.queries = _question_sets(args.queries)


def _before_ask(args: argparse.Namespace, config) -> None:
    from .query.question import check_question

    args.questions = ([line.strip() for line in sys.stdin if line.strip()] if args.question == "-"
                      else [args.question])
    for question in args.questions:
        check_question(question, args.k, config.scoring.max_question_chars)


def _before_mcp(args: argparse.Namespace, config) -> None:
    if args.allow and not args.allow_ingest:
        raise UsageError("--allow names where ingest may read: it needs --allow-ingest")


def _before_serve(args: argparse.Namespace, config) -> None:
    web = config.web
    args.host = args.host or web.host
    args.token = args.token or os.environ.get(TOKEN_ENV) or web.token
    if args.host not in web.loopback_hosts and not args.token:
        raise UsageError(f"serving on {args.host} opens your documents to the network; "
                         f"give a --token (or ${TOKEN_ENV}) that every request must carry")


# What a command reads and refuses before the store is opened: a typo in the arguments
# changes nothing and needs no store.
_BEFORE_THE_STORE = {"ingest": _before_ingest, "eval": _before_eval, "ask": _before_ask,
                     "serve": _before_serve, "mcp": _before_mcp}


def _stdin_paths(paths: Sequence[str], null: bool) -> list[str]:
    """The paths with each - replaced by those read from standard input. Names are bytes
    on disk: they are decoded as the file system does, so any name read can be opened."""
    if "-" not in paths:
        if null:
            raise UsageError("-0 describes paths read from standard input: give - as a PATH")
        return list(paths)
    data = sys.stdin.buffer.read()
    given = [os.fsdecode(name) for name in data.split(b"\0" if null else b"\n") if name.strip()]
    if not null:
        given = [name.removesuffix("\r") for name in given]  # a list saved on Windows
    if not given:
        raise UsageError("ingest -: no paths on standard input")
    return [p for path in paths for p in (given if path == "-" else [path])]


def cmd_ask(brain: Brain, args: argparse.Namespace) -> int:
    """Answer a question from the stored documents, with sources and confidence.

    The question - reads questions from standard input, one per line, and answers each in
    turn (one JSON object per line with --json). --now pins "today" (YYYY-MM-DD means noon
    of that day in ingest.floating_timezone), so answers are reproducible.

        brainquery ask "What size is our furnace filter?" --k 3
        printf 'Is Friday a half day?\\nwifi password?\\n' | brainquery ask - --json
    """
    now = _ask_now(brain, args.now)
    for question in args.questions:
        result = brain.ask(question, now=now, k=args.k, pattern=args.pattern)
        if args.json:
            print(json_line(result.to_dict()), flush=True)
        else:
            print(printable(render_answer(result)), flush=True)
    return 0


def cmd_roots(brain: Brain, args: argparse.Namespace) -> int:
    """List the files and folders named to ingest, or forget some.

    A root is where originals are opened from and where symlinks may lead; `serve` lets
    web ingests into folders under them. Forgetting a root keeps its documents.

        brainquery roots
        brainquery roots forget ~/Downloads
    """
    if args.action == "list":
        if args.paths:
            print("brainquery: roots list takes no paths (did you mean roots forget?)", file=sys.stderr)
            return EXIT_NOTHING_RAN
        roots = brain.roots()
        print(json.dumps(roots, ensure_ascii=False) if args.json else "\n".join(roots))
        return 0
    if not args.paths:
        print("brainquery: roots forget needs the ROOT(s) to forget", file=sys.stderr)
        return EXIT_NOTHING_RAN
    gone = brain.forget_roots(args.paths)
    missing = [p for p in args.paths if p not in gone
               and os.path.realpath(os.path.expanduser(p)) not in gone]
    for root in gone:
        print(f"forgot {root}")
    for path in missing:
        print(f"brainquery: {path} is not a root (see brainquery roots)", file=sys.stderr)
    return EXIT_SOME_FAILED if missing else 0


def cmd_check(brain: Brain, args: argparse.Namespace) -> int:
    """Verify that the store and its caches agree, repair what does not, and say what.

    Exit code 0: everything agreed; 1: something was repaired (or needs you: a store
    that lost its documents). Waits for a running ingest to finish first.
    """
    report = brain.check()
    print(json.dumps(report.to_dict(), ensure_ascii=False) if args.json else report.text())
    return report.exit_code


def cmd_eval(brain: Brain, args: argparse.Namespace) -> int:
    """Evaluate answers on question sets with gold documents (default fixtures/queries.jsonl).

    Each set's corpus (the folder beside its question file, or --corpus for one set) is
    ingested first, unchanged files skipped; sets over another corpus than the first get a
    store of their own beside --store. Prints P@1, R@3, MRR, routing, answer, stale-warning
    and abstention accuracy per pattern, one table per set and, for several, the pooled one;
    --now replaces every question's own clock.
    """
    from ingest.config import ConfigError

    from .brain import Brain
    from .query.evaluate import EvalReport, evaluate, load_queries

    paths = args.queries
    if args.corpus and len(paths) > 1:
        raise ConfigError("--corpus names the documents of one question set; give one QUERIES")
    reports: dict[str, EvalReport] = {}
    brains: dict[Path, Brain] = {}
    for path in paths:
        corpus = (Path(args.corpus) if args.corpus else path.parent / "corpus").resolve()
        if corpus not in brains:
            brains[corpus] = brain if not brains else _eval_brain(brain, corpus)
            brains[corpus].ingest([corpus], now=args.now)
        set_brain = brains[corpus]
        fixed_now = _ask_now(set_brain, args.now) if args.now else None

        def ask(question: str, now: datetime, pattern: str | None, b: Brain = set_brain) -> dict:
            return b.ask(question, now=fixed_now or now, k=args.k, pattern=pattern).to_dict()

        reports[str(path)] = evaluate(ask, load_queries(path), corpus)
    if len(reports) == 1:
        (report,) = reports.values()
        print(json.dumps(report.to_dict(), ensure_ascii=False) if args.json else report.format_table())
        return 0
    pooled = EvalReport([o for r in reports.values() for o in r.outcomes])
    if args.json:
        print(json.dumps({"sets": {name: r.to_dict() for name, r in reports.items()},
                          "pooled": pooled.to_dict()}, ensure_ascii=False))
        return 0
    for name, report in reports.items():
        print(f"== {name}\n{report.format_table()}\n")
    print(f"== pooled ({len(reports)} sets)\n{pooled.format_table(failures=False)}")
    return 0


def _question_sets(given: Sequence[str]) -> list[Path]:
    """The question files named, or the fixture questions of a source checkout (an
    installed package has none)."""
    paths = [Path(q) for q in given]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no question set at {', '.join(missing)}")
    if paths:
        return paths
    if FIXTURE_QUERIES.is_file():
        return [FIXTURE_QUERIES]
    raise UsageError("eval needs QUERIES: this installation has no fixtures/queries.jsonl; "
                     "give question files (JSON Lines, as in the repository's fixtures/), each "
                     "with its documents in a corpus/ folder beside it or named by --corpus")


def _eval_brain(brain: Brain, corpus: Path) -> Brain:
    """A store of its own for another corpus: households must not answer each other's questions."""
    from ingest.config import ConfigError

    from .brain import Brain
    from .storage.store import is_server

    if is_server(brain.store.location):
        raise ConfigError("question sets over several corpora need a local --store folder")
    slug = hashlib.sha256(str(corpus).encode()).hexdigest()[:12]
    return Brain(Path(brain.store.location).with_name(f"{Path(brain.store.location).name}-eval-{slug}"),
                 brain.config)


def cmd_serve(brain: Brain, args: argparse.Namespace) -> int:
    """Serve the household's page: ask, see sources, open originals, add folders.

    Binds to 127.0.0.1 by default. Any other address needs a token (--token, or
    $BRAINQUERY_TOKEN, or web.token in the config), and every request must then carry it
    (the printed link sets a cookie; API clients send `Authorization: Bearer TOKEN`).
    """
    import uvicorn

    from .web import create_app

    host, token = args.host, args.token   # resolved (and a token required) by _before_serve
    port = brain.config.web.port if args.port is None else args.port
    now = _ask_now(brain, args.now) if args.now else None
    brain.prepare()
    # Without a token, web ingests stay inside these folders (default: the CLI's roots).
    allowed = [os.path.realpath(os.path.expanduser(p)) for p in args.allow] if args.allow else brain.roots()
    app = create_app(brain, token=token, now=now, bound_host=host, allowed_roots=allowed)
    shown = f"[{host}]" if ":" in host else host
    link = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    print(f"Brain Query on {link}  (Ctrl-C stops)", file=sys.stderr, flush=True)
    # No access log: questions are private, and the URL holds them.
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    return 0


def cmd_mcp(brain: Brain, args: argparse.Namespace) -> int:
    """Serve the store to an assistant app over the Model Context Protocol (stdio).

    Tools: ask, documents, open_document; ingest only with --allow-ingest (the store is
    otherwise opened read-only). Needs the mcp extra: pip install 'brainquery[mcp]'.
    An assistant app starts it itself, for example with:

        brainquery mcp --store ~/household-store
    """
    try:
        from .adapters.mcp_server import serve
    except ImportError as err:
        if err.name is None or err.name.split(".")[0] != "mcp":
            raise
        print("brainquery: mcp needs the Model Context Protocol SDK: "
              "pip install 'brainquery[mcp]'", file=sys.stderr)
        return EXIT_NOTHING_RAN
    allowed = [os.path.realpath(os.path.expanduser(p)) for p in args.allow]
    serve(brain, now=_ask_now(brain, args.now) if args.now else None,
          allow_ingest=args.allow_ingest, allowed_roots=allowed or None)
    return 0


def render_answer(result) -> str:
    """The answer, the confidence message, then the sources with type, date and age."""
    lines = [f"Q: {result.query}  [{result.pattern}]"]
    if result.read_as:
        lines.append("   (read as: " + ", ".join(f"{typed} → {read}" for typed, read in result.read_as.items()) + ")")
    lines.append(f"A: {result.answer if result.answer is not None else '—'}")
    if result.evidence and result.answer_kind not in ("sentence", "unknown"):
        # A value alone: the sentence it came from says what it is a value of.
        lines.append(f"   “{result.evidence['text'][:200]}” — {result.evidence['title'][:60]}")
    lines.append(f"   {result.message} (confidence {result.confidence:.2f})")
    if result.candidates:
        # Asked back: what each entity sharing the name is, its answer, and how to ask for it.
        lines.append("Candidates:")
        for n, c in enumerate(result.candidates, 1):
            lines.append(f"  {n}. {c['description'] or c['title']}: {c['answer'] or '—'}")
            lines.append(f"     {c['title'][:60]} — {c['source']}")
            lines.append(f"     ask: {c['question']}")
    if result.conflicts:
        lines.append("Conflicting answers:")
        lines += [f"  {c.answer:24} {c.doc_type:14} {(c.source_date or 'undated')[:10]}  {c.title}"
                  for c in result.conflicts]
    if result.results:
        lines.append("Sources:")
    for n, src in enumerate(result.results, 1):
        day = (src.source_date or "undated")[:10]
        age = f" ({relative_age(src.source_date, result.now)})" if src.source_date else ""
        where = src.source + (f" [{src.attachment}]" if src.attachment else "")
        lines.append(f"  {n}. {src.title[:60]} — {src.doc_type}, {day}{age}, score {src.score:.3f}")
        lines.append(f"     {where}")
    return "\n".join(lines)


def _ask_now(brain: Brain, day: datetime | None) -> datetime:
    """A pinned day means noon there (in the household's zone); else this moment."""
    if day is None:
        return datetime.now(timezone.utc).astimezone()
    return brain.pinned_now(day)


def cmd_ls(brain: Brain, args: argparse.Namespace) -> int:
    """List stored documents, newest first (JSON Lines with --json).

    A date marked * is the file's own time: nothing in the document said when it was made.
    """
    from .brain import WEAK_DATE_SOURCES

    for doc in brain.documents():
        if args.json:
            print(json_line(doc))
        else:
            weak = "*" if doc["date_source"] in WEAK_DATE_SOURCES else " "
            day = (doc["source_date"] or "undated")[:10] + weak
            name = doc["title"] or doc["source"]
            where = doc["source"] + (f" [{doc['attachment']}]" if doc["attachment"] else "")
            print(printable(f"{day:11}  {doc['doc_type']:14}  ") + fit(printable(name), 60)
                  + printable(f"  {where}"))
    return 0


def _summary_text(summary: IngestSummary) -> str:
    from .storage.indexer import FAILED

    statuses = summary.by_status()
    lines = [
        f"{summary.inputs} inputs: {statuses['ingested']} documents ingested, "
        f"{statuses['unchanged']} unchanged, {statuses['skipped']} skipped, "
        f"{statuses[FAILED]} failed",
    ]
    types = summary.by_doc_type()
    if types:
        lines.append("  " + ", ".join(f"{t} {n}" for t, n in sorted(types.items())))
    lines += [_mail_folder_text(folder) for folder in summary.mail_folders]
    skipped = [line for line in summary.lines if line.status == "skipped"]
    # Stored, but not whole: a password-protected PDF by its name, a text cut at the limit.
    partial = [line for line in summary.lines if line.status == "ingested" and line.error]
    for title, group in (("failed", summary.failures), ("skipped", skipped),
                         ("stored in part", partial)):
        if group:
            lines.append(f"{title}:")
            lines += [_failure_text(line) for line in group]
    return "\n".join(lines)


def _mail_folder_text(folder: dict) -> str:
    text = f"  {folder['folder']}: {folder['new']} new messages"
    if folder["relisted"]:
        text += " (its UIDVALIDITY changed: the folder was read again)"
    if folder["gone"]:
        text += f"; {folder['gone']} stored messages are no longer in it on the server (kept)"
    return text


def _failure_text(line: ReportLine) -> str:
    """"path [attachment]: reason", without the reason repeating the name it is about."""
    name = line.attachment or os.path.basename(line.source)
    reason = line.error.removeprefix(f"{name}: ")
    where = line.source + (f" [{line.attachment}]" if line.attachment else "")
    return f"  {where}: {reason}"


def _check_now(day: datetime | None, config) -> None:
    """A pinned day the date arithmetic can work with (9999-12-31 overflows it)."""
    limits = config.ingest.ingest
    if day is not None and not limits.min_year <= day.year <= limits.max_clock_year:
        raise UsageError(f"--now must lie between the years {limits.min_year} and "
                         f"{limits.max_clock_year} (ingest.min_year, ingest.max_clock_year)")


def _open_report(path: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write the report {path}: {err.strerror or err}") from err


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from err
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = _positive(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"a port is 1 to {MAX_PORT}, got {value}")
    return value


def _day(text: str) -> datetime:
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected YYYY-MM-DD, got {text!r}") from err


def _common_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """The options every command takes, before or after its name (`brainquery --store X ls`
    and `brainquery ls --store X`). After the name their default is SUPPRESS, so an option
    not repeated there keeps what was given before it."""
    def default(value):
        return value if defaults else argparse.SUPPRESS

    parser.add_argument("--store", default=default(None),
                        help="store folder or http://HOST:PORT of a Chroma server "
                             "(default $BRAINQUERY_STORE or the per-user data folder)")
    parser.add_argument("--config", default=default(None),
                        help="a TOML file overriding config/default.toml (default $BRAINQUERY_CONFIG)")
    parser.add_argument("--json", action="store_true", default=default(False),
                        help="machine-readable output")
    parser.add_argument("--now", type=_day, default=default(None),
                        help="pin today's date (YYYY-MM-DD)")
    parser.add_argument("-v", "--verbose", action="count", default=default(0),
                        help="-v: Brain Query's own steps; -vv: the libraries' debug lines too")


def _parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    _common_options(common, defaults=False)

    parser = _Parser(prog="brainquery", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"brainquery {__version__}",
                        help="print the version and exit")
    _common_options(parser, defaults=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="brainquery COMMAND --help tells more")
    # Commands that only read open the store read-only (see Store): they never create one;
    # mcp reads unless --allow-ingest.
    for name, func, extra, read_only in (
            ("ingest", cmd_ingest, _ingest_args, False), ("ask", cmd_ask, _ask_args, True),
            ("eval", cmd_eval, _eval_args, False), ("ls", cmd_ls, None, True),
            ("serve", cmd_serve, _serve_args, True), ("roots", cmd_roots, _roots_args, True),
            ("check", cmd_check, None, True), ("mcp", cmd_mcp, _mcp_args, True)):
        p = sub.add_parser(name, parents=[common], help=func.__doc__.splitlines()[0],
                           description=func.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if extra:
            extra(p)
        p.set_defaults(run=func, read_only=read_only)
    return parser


def _ingest_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files, folders, mbox files and Maildir folders; - reads paths from stdin")
    p.add_argument("-0", "--null", action="store_true",
                   help="with -: the paths on stdin end in NUL, not newline (find -print0)")
    p.add_argument("--report", metavar="FILE.jsonl",
                   help="write one JSON line per source document")
    p.add_argument("--no-wait", action="store_true",
                   help="exit with code 2 instead of waiting when another ingest writes the store")
    p.add_argument("--follow-symlinks", action="store_true",
                   help="follow symlinks inside folders to files outside the ingested folders")
    p.add_argument("--password-command", metavar="CMD",
                   help="a shell command printing the IMAP password (or, with ;AUTH=XOAUTH2 "
                        "in the URL, an OAuth access token) on its first line, e.g. 'pass show mail'")


def _roots_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=("list", "forget"), default="list",
                   help="list the roots (the default), or forget the ROOTs given")
    p.add_argument("paths", nargs="*", metavar="ROOT", help="with forget: the roots to forget")


def _ask_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("question", help='the question, or - to read one per line from stdin')
    p.add_argument("--k", type=_positive, default=None, help="at most this many sources (default 5)")
    p.add_argument("--pattern", choices=PATTERNS, help="skip the router: answer as this pattern")


def _serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", help="address to listen on (default 127.0.0.1, web.host)")
    p.add_argument("--port", type=_port, help="port (default 8765, web.port)")
    p.add_argument("--token", help=f"a secret every request must carry (or ${TOKEN_ENV})")
    p.add_argument("--allow", action="append", metavar="PATH", default=[],
                   help="without a token, web ingests only into folders under PATH (repeatable; "
                        "default: the roots already ingested, see brainquery roots)")


def _mcp_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-ingest", action="store_true",
                   help="offer the ingest tool (and open the store for writing)")
    p.add_argument("--allow", action="append", metavar="PATH", default=[],
                   help="with --allow-ingest, ingest only under PATH (repeatable; default: "
                        "the roots already ingested, see brainquery roots)")


def _eval_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("queries", nargs="*", metavar="QUERIES",
                   help="JSON Lines question sets (default fixtures/queries.jsonl)")
    p.add_argument("--corpus", help="the documents the questions are about "
                                    "(default: the corpus folder beside QUERIES)")
    p.add_argument("--k", type=_positive, default=None, help="at most this many sources (default 5)")


if __name__ == "__main__":
    sys.exit(main())
