"""What `pip install .` brings is what Brain Query runs on: every core dependency is
imported by the package (or named below with the reason it is needed without an import),
and a package only the tests use sits in the test extra."""
from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Core dependencies the package needs without importing them itself.
NOT_IMPORTED = {
    "cryptography": "pypdf needs it to open AES-encrypted PDFs",
    "onnxruntime": "runs RapidOCR's models (ingest/ocr_worker.py runs rapidocr)",
    "jinja2": "FastAPI's Jinja2Templates render the web page",
}


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def _imported_distributions(folders: list[Path]) -> set[str]:
    modules = set()
    for folder in folders:
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    modules.add(node.module.split(".")[0])
    owners = packages_distributions()
    return {d.lower().replace("_", "-") for m in modules for d in owners.get(m, [])}


PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CORE = _names(PROJECT["dependencies"])
TEST = _names(PROJECT["optional-dependencies"]["test"])


def test_every_core_dependency_is_used_at_run_time():
    used = _imported_distributions([REPO / "brainquery", REPO / "ingest"])
    assert sorted(CORE - used - set(NOT_IMPORTED)) == []


def test_packages_only_the_tests_use_are_in_the_test_extra():
    runtime = _imported_distributions([REPO / "brainquery", REPO / "ingest"])
    only_tests = _imported_distributions([REPO / "tests"]) - runtime - {"brainquery"}
    assert sorted(only_tests & (CORE - set(NOT_IMPORTED))) == []
    assert sorted(only_tests - CORE - TEST) == []
