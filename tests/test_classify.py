"""Document type from cue words: manual, newsletter, or the caller's default."""
from __future__ import annotations

import dataclasses

import pytest

from ingest.classify import doc_type_for_text, type_scores

USER_GUIDE = """\
Dishwasher DW-60 User Guide
Safety information
Read these instructions before you install the appliance.
Installation: level the dishwasher and connect the water hose.
How to use the menu: press the Program button, then select the program.
Settings: you can change the water hardness in the settings menu.
Troubleshooting: if the display shows E15, see the maintenance section.
Warranty: keep your receipt.
"""

HELP_DOC = """\
PDFill: PDF Drawing
Goto Page 2: Line Tool
Goto Page 3: Arrow Tool
Online Help
Here are the tools to change line width, style and colors.
First Page Previous Page Next Page Last Page
Online Help
"""

BEDIENUNGSANLEITUNG = """\
Bedienungsanleitung Kaffeevollautomat
Sicherheitshinweise und Installation. Drücken Sie die Taste, um das Menü zu öffnen.
"""

NEWSLETTER = """\
Parents' Association Newsletter — Spring
In this issue: upcoming events, the bake sale, and announcements from the board.
Read more on our website. To unsubscribe, reply STOP.
"""

REPORT = ("Federal Register / Vol. 85\nDepartment of Transportation\nAirworthiness Directives. "
          "Follow the instructions for submitting comments. The FAA proposes to require "
          "installation of updated software and revised flightcrew procedures on how to "
          "respond to the failure; the QRH is a tool used by flightcrews. ") * 40

CASES = [
    pytest.param(USER_GUIDE, "", "manual", id="user-guide"),
    pytest.param(HELP_DOC, "", "manual", id="online-help-document"),
    pytest.param(BEDIENUNGSANLEITUNG, "Bedienungsanleitung KV-3", "manual", id="german-manual-title"),
    pytest.param("Some text about a product.", "Owner's Manual", "manual",
                 id="title-names-a-manual"),
    pytest.param("Comfort ventilation unit. Change both filters every 6 months.",
                 "Aerovita CL 250 - Operating manual (excerpt)", "manual", id="an-operating-manual"),
    pytest.param("Värmepumpen ska servas varje år.", "Bruksanvisning NordVärme 6", "manual", id="swedish-manual-title"),
    pytest.param("Some text about a product. See the user guide.", "", "static_pdf",
                 id="a-mention-is-not-enough"),
    pytest.param(NEWSLETTER, "", "newsletter", id="newsletter"),
    pytest.param(REPORT, "", "static_pdf", id="long-report-with-scattered-hints"),
    pytest.param("Invoice 1001\nTotal due $40.00", "", "static_pdf", id="invoice-is-not-classified-here"),
    pytest.param("The helpful helper clicked nothing.", "", "static_pdf", id="whole-words-only"),
    pytest.param("", "", "static_pdf", id="empty"),
    pytest.param("Meeting notes from Tuesday", "", "note", id="caller-default"),
]


@pytest.mark.parametrize("text, title, expected", CASES)
def test_doc_type_for_text(ingest_config, text, title, expected):
    default = "note" if expected == "note" else "static_pdf"
    assert doc_type_for_text(text, title, ingest_config, default) == expected


def test_case_insensitive(ingest_config):
    assert doc_type_for_text(USER_GUIDE.upper(), "", ingest_config, "static_pdf") == "manual"


def test_a_name_in_the_title_counts_more(ingest_config):
    cfg = ingest_config.doc_type
    plain = type_scores("Getting started", "", cfg)["manual"]
    titled = type_scores("Getting started", "Getting started", cfg)["manual"]
    assert titled == plain + cfg.title_weight


def test_tie_keeps_the_default(ingest_config):
    cfg = dataclasses.replace(ingest_config.doc_type, newsletter_names=ingest_config.doc_type.manual_names,
                              newsletter_cues=ingest_config.doc_type.manual_cues)
    config = dataclasses.replace(ingest_config, doc_type=cfg)
    assert doc_type_for_text(USER_GUIDE, "", config, "static_pdf") == "static_pdf"


def test_min_score_comes_from_config(ingest_config):
    config = dataclasses.replace(
        ingest_config, doc_type=dataclasses.replace(ingest_config.doc_type, min_score=1000.0))
    assert doc_type_for_text(USER_GUIDE, "", config, "static_pdf") == "static_pdf"
