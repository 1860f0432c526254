"""Cost linear in the input: quadrupling a paragraph or a question at most about quadruples
the time (a quadratic step made it 16x: an 8 MB paragraph took 4 s to chunk, a 200 KB
question 80 s to route). Each measurement runs in a child process capped at 2 GB."""
from __future__ import annotations

import json
import mailbox

import pytest

from hostile_inputs import email, run_capped

# Quadrupled input may take this many times as long (linear is ~4; quadratic is ~16), plus
# a little slack for timer noise on a busy machine.
MAX_GROWTH = 8.0
SLACK_SECONDS = 0.1

CHUNK_TIMES = """
import json, time
from brainquery.config import load_config
from brainquery.storage.chunking import chunk_text
cfg = load_config().chunking
out = []
for mb in (2, 8):
    text = "word " * ((mb << 20) // 5)          # one paragraph, no sentence end
    start = time.perf_counter(); chunk_text(text, cfg); out.append(time.perf_counter() - start)
print(json.dumps(out))
"""

ROUTE_TIMES = """
import json, time
from datetime import datetime, timezone
from brainquery.config import load_config
from brainquery.query.router import load_router
router = load_router(load_config().router)
now = datetime(2026, 11, 18, 12, tzinfo=timezone.utc)
phrase = "who did we use for the roof since last year and what size filter today "
router.route(phrase, now)
out = []
for kb in (50, 200):
    question = phrase * (kb * 1024 // len(phrase))
    start = time.perf_counter(); router.route(question, now); out.append(time.perf_counter() - start)
print(json.dumps(out))
"""


@pytest.mark.parametrize("script", [pytest.param(CHUNK_TIMES, id="paragraph-chunking"),
                                    pytest.param(ROUTE_TIMES, id="question-routing")])
def test_cost_grows_linearly(tmp_path, script):
    run = run_capped(["-c", script], cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    small, large = json.loads(run.stdout)
    assert large <= MAX_GROWTH * small + SLACK_SECONDS, (small, large)


def test_an_oversized_mbox_message_is_never_read(tmp_path, ctx, monkeypatch):
    """Its size comes from the mailbox's table of contents; only the small one is read."""
    import dataclasses

    from ingest.blob import Blob
    from ingest.mbox import MboxIngestor

    big = email("big", message_id="big@x", body="z" * 300_000)
    small = email("small", message_id="small@x")
    path = tmp_path / "box.mbox"
    path.write_bytes(b"From a@x Mon Mar 10 10:00:00 2025\n" + big +
                     b"\nFrom a@x Mon Mar 10 10:00:00 2025\n" + small)
    limits = dataclasses.replace(ctx.config.ingest, max_message_bytes=100_000)
    ctx = dataclasses.replace(ctx, config=dataclasses.replace(ctx.config, ingest=limits))
    read_sizes = []
    get_bytes = mailbox.mbox.get_bytes

    def spy(self, key, *args):
        raw = get_bytes(self, key, *args)
        read_sizes.append(len(raw))
        return raw

    monkeypatch.setattr(mailbox.mbox, "get_bytes", spy)
    items = list(MboxIngestor().ingest(Blob.from_path(path), ctx))
    assert [type(i).__name__ for i in items] == ["ItemFailure", "Document"]
    assert "over the 100000-byte limit" in items[0].error
    assert max(read_sizes) < 100_000
