"""Windows bounded by an event the question names ("before we moved"), not by a date."""
from __future__ import annotations

import pytest

from brainquery.query.anchor import find_anchor


@pytest.mark.parametrize("question, before, text, clause", [
    pytest.param("what furnace did we have before the new one", True, "before the new one", "the new one", id="the-new-one"),
    pytest.param("Where did we live before we moved?", True, "before we moved", "we moved", id="before-we-moved"),
    pytest.param("who cleaned the gutters after our basement flooded", False, "after our basement flooded", "our basement flooded", id="after-possessive"),
    pytest.param("what vet have we used since we got the dog", False, "since we got the dog", "we got the dog", id="since-an-event"),
    pytest.param("which sitter did we use prior to the new nanny, in 2023", True, "prior to the new nanny", "the new nanny", id="prior-to-stops-at-comma"),
])
def test_an_event_after_before_or_since_is_an_anchor(question, before, text, clause):
    anchor = find_anchor(question)
    assert anchor is not None
    assert (anchor.before, anchor.text, anchor.clause) == (before, text, clause)


@pytest.mark.parametrize("question", [
    pytest.param("what did we pay before March", id="a-date-is-a-window-not-an-anchor"),
    pytest.param("since 2023", id="a-year"),
    pytest.param("what is the filter size", id="nothing"),
    pytest.param("is the bus before the bell", id="no-event-clause"),
])
def test_no_anchor(question):
    assert find_anchor(question) is None
