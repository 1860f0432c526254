"""The page in a real browser: Debian's Chromium, driven by Playwright, against
`brainquery serve` on a free loopback port over the fixture household (plus a hostile
sender). Few and fast: the issue's questions, opening originals, inert hostile mail, and an
ingest from the page. Screenshots go to tests/artifacts/."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import (FIXTURES, HOSTILE_QUESTION, HOSTILE_SUBJECT, REPO, free_port,
                      write_hostile_household)

CHROMIUM = os.environ.get("BRAINQUERY_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = REPO / "tests" / "artifacts"
ASK_DAY = "2026-11-18"
# Chromium's own calls home are refused on a closed network; headless as root needs no sandbox.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_TIMEOUT_S = 120
TIMEOUT_MS = 30_000
INGEST_TIMEOUT_MS = 120_000

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed "
                                                            "(apt-get install chromium)"),
]



def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "brainquery", *args]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`brainquery ingest` then `brainquery serve`, as a person runs them."""
    root = tmp_path_factory.mktemp("browser")
    store = root / "store"
    hostile = write_hostile_household(root / "household")
    env = {**os.environ, "BRAINQUERY_STORE": str(store)}
    subprocess.run(_cli("ingest", str(FIXTURES / "corpus"), str(hostile), "--now", ASK_DAY),
                   env=env, check=False, capture_output=True, timeout=START_TIMEOUT_S)
    port = free_port()
    log = open(root / "serve.log", "w+")
    # --allow: the page's ingest names a folder beside the ones ingested from the CLI.
    proc = subprocess.Popen(_cli("serve", "--port", str(port), "--now", ASK_DAY, "--allow", str(root)),
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/documents", timeout=5).read()
            break
        except OSError:
            log.seek(0)
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"brainquery serve did not start:\n{log.read()}")
            time.sleep(0.2)
    yield url, root
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.dialogs = []  # any alert() a payload manages to raise
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def ask(page, url: str, question: str):
    page.goto(url)
    page.fill("input[name=q]", question)
    page.press("input[name=q]", "Enter")
    page.wait_for_selector(".answer-card")
    return page.locator(".answer-card")


@pytest.mark.parametrize("question, badge, pattern, answer_has, first_source", [
    ("Is Friday a half day?", "Fresh", "logistical", "EARLY RELEASE", "2026-11-16 (2 days ago)"),
    ("What size is our HVAC filter?", "Found", "entity", "16x25x4", "2026-03-14 (8 months ago)"),
    ("What roofer did we use in 2023?", "Found", "historical", "Summit Ridge Roofing", "2023-05-26 (3 years ago)"),
    ("What is the dentist's fax number?", "I don't know", "entity", "No answer in your documents", None),
    ("When does Theo's Cub Scout den meet?", "Stale — verify", "logistical", "Tiger den", "2024-09-05 (2 years ago)"),
])
def test_the_issue_questions_in_the_browser(server, page, question, badge, pattern, answer_has,
                                            first_source):
    url, _ = server
    card = ask(page, url, question)
    assert card.locator(".badge").inner_text() == badge
    assert card.locator(".pattern").inner_text() == f"{pattern} question"
    assert answer_has in card.locator(".answer").inner_text()
    sources = page.locator(".source")
    assert sources.count() >= 1
    if first_source is not None:
        first = sources.first
        assert first.locator(".date").inner_text() == first_source
        assert first.locator(".date-source").inner_text().startswith("date from: ")
        assert first.locator(".snippet mark").count() >= 1
        assert first.locator("a.open").get_attribute("href").startswith("/original/")


def test_conflicting_sizes_sit_side_by_side_with_their_dates(server, page):
    url, _ = server
    ask(page, url, "What size is our HVAC filter?")
    conflicts = page.locator(".conflict")
    assert conflicts.count() == 2
    assert conflicts.nth(0).locator(".conflict-answer").inner_text() == "16x25x4"
    assert conflicts.nth(1).locator(".conflict-answer").inner_text() == "20x25x1"
    assert conflicts.nth(1).locator(".conflict-date").inner_text().startswith("2022-10-11")
    first, second = conflicts.nth(0).bounding_box(), conflicts.nth(1).bounding_box()
    assert abs(first["y"] - second["y"]) < 1 and second["x"] > first["x"]  # side by side
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ask-hvac-filter.png"), full_page=True)


def test_opening_originals(server, page):
    url, _ = server
    ask(page, url, "Is Friday a half day?")
    page.locator(".source a.open").first.click()
    page.wait_for_selector("article.original")
    headers = page.locator("table.headers").inner_text()
    assert "From" in headers and "Subject" in headers and "Early release" in headers
    assert "EARLY RELEASE" in page.locator("pre.body").inner_text()

    ask(page, url, "What size is our HVAC filter?")
    page.locator(".source a.open").first.click()  # an invoice PDF attached to an email
    pdf_src = page.locator("iframe.pdf").get_attribute("src")
    response = page.request.get(url + pdf_src)
    assert response.headers["content-type"] == "application/pdf"
    assert response.body().startswith(b"%PDF-")

    page.goto(url + "/documents")
    page.locator(".doc-list tr", has_text="photo").first.locator("a").click()
    page.wait_for_selector("img.photo")
    assert page.evaluate("document.querySelector('img.photo').naturalWidth") > 0
    assert page.locator("figcaption").inner_text().startswith("Taken ")


def test_a_hostile_email_renders_inert(server, page):
    url, _ = server
    ask(page, url, HOSTILE_QUESTION)
    source = page.locator(".source", has_text="Zoo field trip")
    assert "<script>" in source.locator(".title").inner_text()
    source.locator("a.open").click()
    page.wait_for_selector("article.original")
    assert page.locator("h1").inner_text() == HOSTILE_SUBJECT
    body = page.locator("pre.body")
    assert "<img src=x onerror=" in body.inner_text()
    body.hover()
    page.locator("h1").click()
    assert page.locator("article.original img, article.original a[href^='javascript:']").count() == 0
    page.goto(url + "/documents")
    page.locator("body").hover()
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == []
    page.goto(url + "/?q=" + urllib.request.quote(HOSTILE_QUESTION))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hostile-email-inert.png"), full_page=True)


def test_an_ingest_from_the_page_shows_progress_and_its_failures(server, page, browser):
    url, root = server
    folder = root / "new-papers"
    folder.mkdir()
    (folder / "pool-pass.md").write_text("Pool pass number: P-4471, valid through August.\n",
                                         encoding="utf-8")
    (folder / "scan-of-warranty.pdf").write_bytes(b"%PDF-1.4\nthis scan was cut short")
    page.goto(url + "/documents")
    page.fill("#ingest-form textarea", str(folder))
    page.click("#ingest-form button")
    page.wait_for_selector("#ingest-progress:not([hidden])")
    other = browser.new_page()  # asking keeps working meanwhile
    other.goto(url + "/?q=" + urllib.request.quote("What size is our HVAC filter?"))
    assert other.locator(".answer-card .badge").inner_text() == "Found"
    other.close()
    # The page's CSP forbids eval, so wait on the element, not on a JS predicate.
    playwright_api.expect(page.locator("#ingest-progress .status")).to_have_text(
        re.compile(r"^done"), timeout=INGEST_TIMEOUT_MS)
    assert "1 ingested" in page.locator("#ingest-progress .status").inner_text()
    page.wait_for_selector(".failures", timeout=TIMEOUT_MS)  # the page reloads with the result
    failures = page.locator(".failures").inner_text()
    assert "scan-of-warranty.pdf" in failures and "not a readable PDF" in failures
    card = ask(page, url, "What is our pool pass number?")
    assert "P-4471" in card.locator(".answer").inner_text()
