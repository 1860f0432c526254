"""Calendar answers read from occurrences (issue 16): the development and held-out sets.

    python benchmarks/calendar_bench.py [--set dev|dev2|dev3|heldout|heldout2|all] [--failures]

Each set (fixtures/calendar16/<set>/: dev and dev2 to tune on, heldout) is ingested into a store of its own; every question
is asked at noon UTC of its `now` day, as `brainquery ask --now` does. Tune on `dev` and `dev2` only;
`heldout` was written before any tuning and is only reported.
"""
from __future__ import annotations

import sys
from pathlib import Path

import set_bench

from brainquery.query.event_eval import evaluate_events, format_outcomes, load_event_questions

SETS = Path(__file__).resolve().parent.parent / "fixtures" / "calendar16"


def main(argv: list[str] | None = None) -> int:
    return set_bench.main(argv, __doc__, "calendar answers", SETS, load_event_questions, evaluate_events,
                          lambda name, outcomes, failures: format_outcomes(name, outcomes, failures=failures))


if __name__ == "__main__":
    sys.exit(main())
