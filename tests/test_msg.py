"""Outlook .msg files: the body is read from whichever property holds it — plain text,
HTML, or only compressed RTF (as many Outlook messages keep it)."""
from __future__ import annotations

import compressed_rtf
import pytest
from cfb import compound_file

from ingest.blob import Blob
from ingest.msg import OutlookMsgIngestor, parse_msg

SUBJECT = "__substg1.0_0037001F"
PLAIN = "__substg1.0_1000001F"
RTF = "__substg1.0_10090102"
PLAIN_RTF = (rb"{\rtf1\ansi\ansicpg1252\fromtext \deff0{\fonttbl{\f0\fswiss Arial;}}"
             rb"\pard The plumber comes on Friday at 9.\par Gate code 4471, Gr\'fc\'dfe.\par}")
HTML_RTF = (rb"{\rtf1\ansi\ansicpg1252\fromhtml1 \deff0{\fonttbl{\f0\fswiss Arial;}}"
            rb"{\*\htmltag64 <html><body>}\htmlrtf {\htmlrtf0 Pool opens at 10 on Saturday."
            rb"{\*\htmltag84 <br>}\par\htmlrtf }\htmlrtf0 {\*\htmltag72 </body></html>}}")


def msg(streams: dict[str, bytes]) -> bytes:
    return compound_file({SUBJECT: "Plumber visit".encode("utf-16-le"), **streams})


@pytest.mark.parametrize("rtf, expected", [
    pytest.param(PLAIN_RTF, "The plumber comes on Friday at 9.\nGate code 4471, Grüße.", id="rtf-from-text"),
    pytest.param(HTML_RTF, "Pool opens at 10 on Saturday.", id="rtf-encapsulating-html"),
])
def test_a_body_kept_only_as_compressed_rtf_is_read(tmp_path, ctx, rtf, expected):
    path = tmp_path / "visit.msg"
    path.write_bytes(msg({RTF: compressed_rtf.compress(rtf, compressed=True)}))
    [doc] = OutlookMsgIngestor().ingest(Blob.from_path(path), ctx)
    assert doc.title == "Plumber visit"
    assert expected in doc.text


def test_the_plain_body_wins_over_rtf():
    parsed = parse_msg(msg({PLAIN: "Plain body.".encode("utf-16-le"),
                            RTF: compressed_rtf.compress(PLAIN_RTF, compressed=True)}), "m.msg")
    assert parsed.text == "Plain body."


@pytest.mark.parametrize("data", [
    pytest.param(b"", id="empty"), pytest.param(b"LZFu" + b"\xff" * 40, id="garbage"),
])
def test_unreadable_rtf_is_no_body_and_no_error(data):
    from ingest.msg import rtf_body

    assert rtf_body(data) == ""
