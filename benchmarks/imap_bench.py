"""IMAP ingest throughput from a local server. Run by hand; prints figures, asserts nothing.

    python benchmarks/imap_bench.py                   # 5,000 messages, 3 runs each
    python benchmarks/imap_bench.py --messages 1000 --repeat 1

Starts Debian's dovecot (`apt-get install dovecot-imapd`) from a configuration of its own
in a temporary folder (tests/dovecot.py), loads generated household messages into one
INBOX, then prints messages/s for
  - fetch: log in, EXAMINE, list UIDs and sizes, batched UID FETCH BODY.PEEK[] of every
    message (ingest/imap.py, as the ingest does it) — the IMAP side alone;
  - ingest: `Brain(fresh store).ingest(["imap://user@127.0.0.1:PORT/INBOX"])`, end to end
    (parse, chunk, embed, write Chroma, build the query index);
  - mbox: the same messages from an mbox file, end to end, for the store's own cost.
Medians over --repeat runs; the machine is shared, so read ratios, not absolutes.
"""
from __future__ import annotations

import argparse
import imaplib
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from dovecot import PASSWORD, Dovecot  # noqa: E402
from ingest_bench import generate_messages, write_mbox  # noqa: E402

from brainquery import Brain  # noqa: E402
from brainquery.config import load_config  # noqa: E402
from ingest.imap import ImapSession, batches  # noqa: E402
from ingest.imap_auth import Secrets  # noqa: E402
from ingest.imap_url import parse_imap_url  # noqa: E402


def load(server: Dovecot, user: str, count: int) -> float:
    """APPEND `count` messages over one connection; returns the seconds it took."""
    start = time.perf_counter()
    conn = imaplib.IMAP4("127.0.0.1", server.port)
    conn.login(user, PASSWORD)
    for raw in generate_messages(count):
        typ, data = conn.append("INBOX", None, None, raw)
        assert typ == "OK", data
    conn.logout()
    return time.perf_counter() - start


def fetch_all(url: str, secrets: Secrets) -> tuple[float, int, int]:
    """(seconds, messages, bytes) for reading every message of the folder."""
    cfg = load_config().ingest.imap
    folder = parse_imap_url(url)
    start = time.perf_counter()
    session = ImapSession(folder.account, secrets, cfg)
    try:
        session.examine(folder.folder)
        count = size = 0
        for batch in batches(session.sizes_after(0), cfg):
            for message in session.fetch([uid for uid, _ in batch]):
                count += 1
                size += len(message.raw)
    finally:
        session.close()
    return time.perf_counter() - start, count, size


def ingest_once(paths: list[str], secrets: Secrets) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        brain = Brain(Path(tmp) / "store")
        start = time.perf_counter()
        summary = brain.ingest(paths, progress=False, secrets=secrets)
        seconds = time.perf_counter() - start
    return seconds, summary.by_status()["ingested"]


def line(name: str, runs: list[tuple[float, int]]) -> str:
    seconds = statistics.median(r[0] for r in runs)
    count = runs[0][1]
    spread = f"{min(r[0] for r in runs):.2f}-{max(r[0] for r in runs):.2f}s"
    return (f"{name:34} {count:6d} messages  median {seconds:7.2f}s  "
            f"{count / seconds:8.1f} messages/s  (runs={len(runs)}, {spread})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-mbox", action="store_true", help="skip the mbox comparison")
    args = parser.parse_args()
    secrets = Secrets(password_command=f"printf '%s\\n' '{PASSWORD}'")
    server = Dovecot().start()
    try:
        user = server.new_user()
        seconds = load(server, user, args.messages)
        print(f"loaded {args.messages} messages into dovecot in {seconds:.1f}s (APPEND, one connection)")
        url = server.url(user)
        fetches = [fetch_all(url, secrets) for _ in range(args.repeat)]
        mb = fetches[0][2] / 1e6
        print(line(f"fetch ({mb:.1f} MB, batched UID FETCH)", [(s, n) for s, n, _ in fetches]))
        print(line("ingest imap:// end to end", [ingest_once([url], secrets) for _ in range(args.repeat)]))
        if not args.no_mbox:
            with tempfile.TemporaryDirectory() as tmp:
                mbox = str(write_mbox(args.messages, Path(tmp)))
                print(line("ingest the same as an mbox", [ingest_once([mbox], secrets)
                                                          for _ in range(args.repeat)]))
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
