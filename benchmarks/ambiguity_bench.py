"""Ambiguous names asked back (issue 16): the development and held-out sets.

    python benchmarks/ambiguity_bench.py [--set dev|dev2|...|heldout|heldout2|all] [--failures]

Each set (fixtures/ambiguity16/<set>/) is ingested into a store of its own; every question
is asked at noon UTC of its `now` day, as `brainquery ask --now` does. Prints per set the
share of ambiguous names asked back, of qualified questions asked back (wrongly), and for
the questions answered the gold document at 1 and the answer's containment. Tune on `dev`
and `dev2` only; `heldout` was written before any tuning and is only reported.
"""
from __future__ import annotations

import sys
from pathlib import Path

import set_bench

from brainquery.query.ambiguity_eval import evaluate_ambiguity, format_outcomes, load_ambiguity_questions

SETS = Path(__file__).resolve().parent.parent / "fixtures" / "ambiguity16"


def main(argv: list[str] | None = None) -> int:
    return set_bench.main(argv, __doc__, "ambiguous names", SETS, load_ambiguity_questions, evaluate_ambiguity,
                          lambda name, outcomes, failures: format_outcomes(name, outcomes, failures=failures))


if __name__ == "__main__":
    sys.exit(main())
