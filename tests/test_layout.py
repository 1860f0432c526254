"""The folder shows the architecture, and imports only go down: surfaces (library, CLI,
page, check, originals) over the query side over the store side, with the configuration
and text analysis beneath both."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "brainquery"
SURFACES = {"brain", "cli", "check", "originals", "ingest_eval", "web", "adapters", "__main__"}


def imported(path: Path) -> set[str]:
    """The brainquery modules a file imports (top-level and lazy), as dotted names."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("brainquery"):
                out.add(module)
                out.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("brainquery"))
    return out


@pytest.mark.parametrize("layer, forbidden", [
    pytest.param("storage", ("brainquery.query",) + tuple(f"brainquery.{s}" for s in SURFACES), id="storage"),
    pytest.param("query", tuple(f"brainquery.{s}" for s in SURFACES), id="query"),
])
def test_imports_only_go_down(layer, forbidden):
    offenders = {f"{path.name} -> {name}" for path in (PACKAGE / layer).glob("*.py")
                 for name in imported(path) if name.startswith(forbidden)}
    assert not offenders, sorted(offenders)


def test_a_passing_run_prints_nothing_of_its_own():
    """`pytest -q` shows what a test prints only when it fails (or with -s): no test writes
    past pytest's capture, as an evaluation table with its "failures (N)" once did."""
    tests = Path(__file__).resolve().parent
    escapes = ("capsys" + ".disabled", "sys.__" + "stdout__", "capfd" + ".disabled")
    offenders = [f"{path.relative_to(tests)}:{n}" for path in sorted(tests.rglob("*.py"))
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if any(escape in line for escape in escapes)]
    assert not offenders, offenders
