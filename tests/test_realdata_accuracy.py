"""Ingestion accuracy on real public files: the whole pipeline, scored like the held-out set."""
from __future__ import annotations

import pytest
from conftest import REALDATA, requires_realdata

from brainquery.config import load_config
from brainquery.ingest_eval import run


@requires_realdata
@pytest.mark.realdata
def test_realdata_dates_and_types():
    thresholds = load_config().evaluation
    scores = run(REALDATA)
    print("\nrealdata ingestion accuracy\n" + scores.table())
    hit, total = scores.date_day
    assert hit / total >= thresholds.realdata_date_day_accuracy
    hit, total = scores.doc_type
    assert hit / total >= thresholds.realdata_type_accuracy
