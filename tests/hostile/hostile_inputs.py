"""Hostile inputs, built at test time (no megabytes in the repository), and the harness
that runs the CLI on them in a child process under a memory cap and a time limit.

Each builder writes one input into a folder and returns its name; `FOLDER_CASES` says what
the ingest report must show for it. Sizes are a few MB: enough to show a quadratic cost
(a 1 MB Subject took 6 GB before), small enough for the suite to stay within minutes.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
MEMORY_CAP = 2 << 30           # bytes of address space a child may map
MB = 1 << 20
# The folder run lowers the per-document limits so that a few MB exceed them.
LIMITS_TOML = """\
[ingest]
max_text_bytes = 1048576
max_message_bytes = 1048576
max_title_chars = 300
"""
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclasses.dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_capped(args: list[str], cwd: Path, timeout: float = 120, stdin: str | None = None) -> Run:
    """`python -m brainquery ARGS` (or `python -c CODE` when args[0] == "-c") in a child
    capped at MEMORY_CAP, killed after `timeout` seconds."""
    env = dict(os.environ, PYTHONPATH=str(REPO), BRAINQUERY_CONFIG="")
    cmd = [sys.executable, *args] if args[0] == "-c" else [sys.executable, "-m", "brainquery", *args]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          errors="replace", timeout=timeout, preexec_fn=_cap_memory)
    return Run(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


def popen_capped(args: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO), BRAINQUERY_CONFIG="")
    return subprocess.Popen([sys.executable, "-m", "brainquery", *args], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=_cap_memory)


def read_report(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# ---- builders -------------------------------------------------------------------------

def email(subject: str, date: str = "Mon, 10 Mar 2025 10:00:00 +0000", body: str = "body text",
          message_id: str = "m@example.org") -> bytes:
    return (f"From: a@example.org\nTo: b@example.org\nSubject: {subject}\nDate: {date}\n"
            f"Message-ID: <{message_id}>\n\n{body}\n").encode("utf-8")


def non_utf8_name(folder: Path) -> str:
    name = os.fsdecode(b"caf\xe9.txt")
    (folder / name).write_bytes(b"Notes from the cafe: the boiler was serviced on Friday.\n")
    return name


def long_subject(folder: Path) -> str:
    (folder / "long-subject.eml").write_bytes(email("x" * (2 * MB), message_id="long@x"))
    return "long-subject.eml"


def long_summary(folder: Path) -> str:
    (folder / "long-summary.ics").write_bytes(
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:long@x\r\n"
        b"DTSTART:20250301T100000Z\r\nSUMMARY:" + b"y" * (2 * MB) + b"\r\n"
        b"END:VEVENT\r\nEND:VCALENDAR\r\n")
    return "long-summary.ics"


def endless_paragraph(folder: Path) -> str:
    """3 MB of words with no sentence end and no paragraph break: over the 1 MB text cap."""
    (folder / "endless.txt").write_text("word " * (3 * MB // 5), encoding="utf-8")
    return "endless.txt"


def offset_date(folder: Path) -> str:
    (folder / "offset.eml").write_bytes(email("offset", "Mon, 10 Mar 2025 10:00:00 +9999", message_id="off@x"))
    return "offset.eml"


def year_one(folder: Path) -> str:
    (folder / "year-one.eml").write_bytes(email("year one", "1 Jan 0001 10:00:00 +0000", message_id="y1@x"))
    return "year-one.eml"


def negative_year(folder: Path) -> str:
    (folder / "negative-year.eml").write_bytes(email("negative year", "10 Mar -2026 10:00:00 +0000", message_id="neg@x"))
    return "negative-year.eml"


def escape_subject(folder: Path) -> str:
    (folder / "escapes.eml").write_bytes(email("=?utf-8?q?=1B]2;pwned=07=1B[2J?=", message_id="esc@x"))
    return "escapes.eml"


def binary_calendar(folder: Path) -> str:
    junk = bytes(range(1, 256)).replace(b"\n", b"").replace(b"\r", b"") * 6
    (folder / "binary.ics").write_bytes(b"BEGIN:VCALENDAR\r\n" + junk + b"\r\nEND:VCALENDAR\r\n")
    return "binary.ics"


def maildir_fifo(folder: Path) -> str:
    box = folder / "Mail"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.good:2,S").write_bytes(email("maildir good", message_id="md@x"))
    os.mkfifo(box / "cur" / "2.fifo:2,S")
    return "Mail"


def oversized_mbox_message(folder: Path) -> str:
    small = email("small mbox message", message_id="small@x")
    big = email("big mbox message", message_id="big@x", body="z" * (2 * MB))
    (folder / "box.mbox").write_bytes(b"From a@example.org Mon Mar 10 10:00:00 2025\n" + big +
                                      b"\nFrom a@example.org Mon Mar 10 10:00:00 2025\n" + small)
    return "box.mbox"


def random_pdf(folder: Path) -> str:
    (folder / "random.pdf").write_bytes(os.urandom(4096).replace(b"%PDF-", b"xxxxx"))
    return "random.pdf"


def random_bin(folder: Path) -> str:
    (folder / "random.bin").write_bytes(b"\x00" + os.urandom(4096))
    return "random.bin"


def locked_pdf(folder: Path) -> str:
    import pypdf

    writer = pypdf.PdfWriter()
    writer.add_blank_page(100, 100)
    writer.encrypt("secret")
    with open(folder / "locked.pdf", "wb") as fh:
        writer.write(fh)
    return "locked.pdf"


def good_files(folder: Path) -> list[str]:
    """Ordinary documents beside the hostile ones: each must be stored."""
    (folder / "good-note.txt").write_text("Furnace filter size is 16x25x4.\n", encoding="utf-8")
    (folder / "good.eml").write_bytes(email("Good message about the roofer", message_id="good@x"))
    return ["good-note.txt", "good.eml"]


@dataclasses.dataclass(frozen=True)
class Case:
    """One hostile input in the folder run and what its report line(s) must say."""

    build: Callable[[Path], str]
    status: str                          # of the line(s) whose source ends with `source`
    source: str                          # a suffix of the report line's source
    error: str = ""                      # a substring of that line's error
    check: Callable[[dict], bool] = lambda line: True


FOLDER_CASES = {
    "non-utf8-file-name": Case(non_utf8_name, "ingested", "caf\\xe9.txt"),
    "2MB-subject": Case(long_subject, "ingested", "long-subject.eml",
                        check=lambda line: len(line["title"]) <= 300),
    "2MB-calendar-summary": Case(long_summary, "ingested", "long-summary.ics",
                                 check=lambda line: len(line["title"]) <= 300),
    "3MB-paragraph-truncated": Case(endless_paragraph, "ingested", "endless.txt", "truncated at 1 MB"),
    "offset-9999": Case(offset_date, "ingested", "offset.eml",
                        check=lambda line: line["date_source"] != "date_header"),
    "year-0001": Case(year_one, "ingested", "year-one.eml",
                      check=lambda line: line["date_source"] != "date_header"),
    "year-minus-2026": Case(negative_year, "ingested", "negative-year.eml",
                            check=lambda line: line["date_source"] != "date_header"),
    "terminal-escapes": Case(escape_subject, "ingested", "escapes.eml"),
    "binary-calendar-error-bounded": Case(
        binary_calendar, "failed", "binary.ics", "not a readable calendar",
        check=lambda line: len(line["error"]) <= 300 and not CONTROL.search(line["error"])),
    "fifo-in-maildir": Case(maildir_fifo, "failed", "2.fifo:2,S", "not a regular file"),
    "oversized-mbox-message": Case(oversized_mbox_message, "failed", "box.mbox#0", "over the 1048576-byte limit"),
    "random-bytes-named-pdf": Case(random_pdf, "failed", "random.pdf", "not a readable pdf"),
    "random-bytes-bin": Case(random_bin, "skipped", "random.bin", "no ingestor reads"),
    "password-protected-pdf": Case(locked_pdf, "ingested", "locked.pdf", "password-protected"),
}
# Stored beside the hostile inputs: the good message of the Maildir, the small one of the mbox.
GOOD_BESIDE = ("good-note.txt", "good.eml", "1.good:2,S", "box.mbox#1")


def build_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for case in FOLDER_CASES.values():
        case.build(folder)
    good_files(folder)
