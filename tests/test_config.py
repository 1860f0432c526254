"""Configuration: defaults load, a user file overrides keys, typos are named errors."""
from __future__ import annotations

import dataclasses

import pytest

from brainquery.config import load_config
from ingest.config import ConfigError


def test_defaults_load_into_frozen_dataclasses():
    cfg = load_config()
    assert cfg.embedding.dims == 128 and cfg.chunking.chunk_chars > cfg.chunking.overlap_chars
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.chunking.chunk_chars = 1


def test_user_file_overrides_only_its_keys(tmp_path, monkeypatch):
    user = tmp_path / "mine.toml"
    user.write_text('[chunking]\nchunk_chars = 900\n[ingest]\nfloating_timezone = "America/Chicago"\n')
    cfg = load_config(user)
    assert cfg.chunking.chunk_chars == 900
    assert cfg.chunking.overlap_chars == load_config().chunking.overlap_chars
    assert cfg.ingest.ingest.floating_timezone == "America/Chicago"
    monkeypatch.setenv("BRAINQUERY_CONFIG", str(user))
    assert load_config().chunking.chunk_chars == 900


@pytest.mark.parametrize("text, named", [
    pytest.param("[chunking]\nchunk_size = 10\n", "chunking.chunk_size", id="unknown-key"),
    pytest.param("[chunkin]\nchunk_chars = 10\n", "chunkin", id="unknown-section"),
    pytest.param('[chunking]\nchunk_chars = "big"\n', "chunking.chunk_chars", id="wrong-type"),
    pytest.param("[chunking\n", "not valid TOML", id="bad-toml"),
    # Meaning, not only shape, is checked when the file is read, not at the first question.
    pytest.param('[time.entity]\nmodel = "expo"\n', "unknown decay model", id="unknown-decay-model"),
    pytest.param('[bm25]\nidf = "bm42"\n', "bm25.idf", id="unknown-idf"),
    pytest.param("[scoring]\nstages = []\n", "scoring.stages", id="no-stages"),
    pytest.param("[scoring]\nstages = [60, 30]\n", "scoring.stages", id="stages-out-of-order"),
    pytest.param('[scoring]\nslip_dictionary = "english"\n', "scoring.slip_dictionary", id="no-such-word-list"),
    pytest.param('[answer]\nspans = [["size", "(unclosed"]]\n', "answer.spans", id="bad-regex"),
    pytest.param('[answer]\nretraction_change = "from {old"\n', "answer.retraction_change", id="bad-template"),
    pytest.param('[scoring]\naside_tail = "(?<=\\\\?"\n', "scoring.aside_tail", id="bad-aside-regex"),
    pytest.param('[time.rival]\nweek_of = "week of ("\n', "time.rival.week_of", id="bad-week-regex"),
    pytest.param('[events]\ndate_order = "dmy"\n', "events.date_order", id="unknown-date-order"),
    pytest.param('[evaluation]\nheldout_set_floors = { "x.jsonl" = { p_at_1 = 0.5 } }\n',
                 "evaluation.heldout_set_floors", id="floors-for-no-such-set"),
])
def test_mistakes_are_named(tmp_path, text, named):
    user = tmp_path / "bad.toml"
    user.write_text(text)
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        load_config(user)


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")
