"""A guarded pattern finds exactly what the pattern finds: the guard only skips positions
where no match can begin."""
import re
from pathlib import Path

import pytest

from brainquery.config import load_config
from brainquery.query.answer import date_span, span_patterns
from ingest.regex_guard import guarded

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Development households only: the held-out ones are not read for anything but their eval.
TEXT_DIRS = ["corpus", "household3", "household5", "household8", "household11"]
TEXT_SUFFIXES = {".eml", ".txt", ".ics", ".md", ".csv", ".html", ".json", ".mbox", ".vcf"}


def _texts() -> list[str]:
    out = []
    for name in TEXT_DIRS:
        for path in sorted((FIXTURES / name).rglob("*")):
            if path.is_file() and path.suffix.lower() in TEXT_SUFFIXES:
                out.append(path.read_bytes().decode("utf-8", "replace"))
    return out


TEXTS = _texts()
CONFIGURED = span_patterns(load_config().answer)


def _spans(pattern: re.Pattern, texts: list[str]) -> list[list[tuple[tuple[int, int], tuple]]]:
    return [[(m.span(), m.groups()) for m in pattern.finditer(t)] for t in texts]


def test_the_fixture_texts_are_there():
    assert len(TEXTS) > 100


@pytest.mark.parametrize("kind", sorted(CONFIGURED))
def test_every_configured_span_finds_what_its_unguarded_pattern_finds(kind):
    written = dict(load_config().answer.spans)[kind]
    plain = date_span(written) if kind == "date" else re.compile(written)
    assert _spans(CONFIGURED[kind], TEXTS) == _spans(plain, TEXTS)


@pytest.mark.parametrize("kind", ["phone", "date", "code"])
def test_branchy_span_patterns_get_a_guard(kind):
    assert CONFIGURED[kind].pattern.startswith("(?=")


TRICKY = [
    (r"(?i)\b(?:jan|feb)\.? \d{1,2}|\b\d{1,2}(?:st|nd)? (?:jan|feb)\b", "On JAN 5 and 3rd Feb, not janet 7"),
    (r"(?i:(?<=code: )|(?<=pin ))\d{4}\b|\b(?<!\d[ .-])\d{6}\b", "Code: 4321, PIN 9876, ref 123456 and 12 345678"),
    (r"(?<![\d.,])\d{1,3}(?:[.,]\d{1,3})?\s?%", "up 12.5 % from 1,234% and 7%"),
    (r"(?:\(\d{3}\) ?|\b\d{3}[ .-])\d{3}[ .-]\d{4}\b|\+\d{1,3} \d{3}", "(555) 123-4567 or +44 207 or 555.123.4567"),
    (r"[^\W\d_]+-\d+|x?\d+", "abc-12 x34 56"),
    (r"(?i)(?-i:A)b|c", "Ab AB ab cC"),
    (r"(?i:(?<=network: )|(?<=ssid )|(?<=called \"))(?=[\w-]*\d)[A-Za-z][\w-]*",
     'Network: Tranan-5G, SSID ab12, called "Fritz7590", network:Home2 and Called x1'),
    (r"(?:(?<=a)|(?<=B))\d+|(?<=[xy])z", "a12 B3 b4 A5 xz yz zz"),
]


def test_a_span_pattern_opening_with_lookbehinds_gets_a_guard_on_what_precedes():
    assert CONFIGURED["network"].pattern.startswith("(?<=")


@pytest.mark.parametrize("written,text", TRICKY)
def test_tricky_patterns_keep_their_matches(written, text):
    pattern = re.compile(written)
    assert _spans(guarded(pattern), [text]) == _spans(pattern, [text])


@pytest.mark.parametrize("written", [r"a*", r"(?:x|)y?", r".foo|bar", r"(a)?(?(1)b|c)", r"\bword\b", r"(?=\d)\d+"])
def test_a_pattern_whose_start_cannot_be_told_or_needs_no_guard_is_kept(written):
    pattern = re.compile(written)
    assert guarded(pattern) is pattern


def test_the_invoice_cues_found_are_those_each_cue_finds_alone():
    from ingest.config import load_ingest_config
    from ingest.invoice import _distinct
    from ingest.printed_dates import label_pattern

    cfg = load_ingest_config().invoice
    for cues in (cfg.invoice_identity, cfg.receipt_identity, cfg.invoice_fields, cfg.not_invoice_cues):
        for text in TEXTS:
            alone = {cue for cue in cues if label_pattern(cue, plural=True).search(text)}
            assert _distinct(cues, text) == alone
