"""The adapters are optional extras: the core package (library, CLI, page, and the
adapters' shared framework-free part) imports none of LangChain, LlamaIndex or the MCP SDK,
so `pip install .` without the extras works as before."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO

FRAMEWORKS = ("langchain", "langchain_core", "langsmith", "llama_index", "mcp", "mcp_types")
CORE = ("brainquery", "brainquery.cli", "brainquery.brain", "brainquery.web",
        "brainquery.adapters", "brainquery.adapters.retrieval")


def test_the_core_package_imports_no_framework():
    script = (f"import importlib, json, sys\n"
              f"for name in {CORE!r}: importlib.import_module(name)\n"
              "from brainquery.cli import _parser\n"
              "_parser().parse_args(['mcp', '--store', 'x'])\n"
              f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_guard_above_would_see_a_framework_imported():
    """The same probe, with one framework imported on purpose (when installed)."""
    script = ("import importlib.util, json, sys\n"
              "found = [n for n in ('mcp', 'langchain_core', 'llama_index') if importlib.util.find_spec(n)]\n"
              "if found: importlib.import_module(found[0])\n"
              f"print(json.dumps([found, sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    found, imported = json.loads(done.stdout)
    assert bool(imported) == bool(found)
