"""The whole configuration: the ingestion sections plus the store, chunking and embedding."""
from __future__ import annotations

import dataclasses
import os
import re
import typing
from typing import Any

from ingest.config import ConfigError, IngestConfig, from_mapping, read_layers
from ingest.money import currency_alternation, currency_initials

# Where answer patterns read the configured currencies ([invoice] currency_symbols, codes),
# and the characters they start with.
CURRENCY_SLOT = "{currency}"
INITIALS_SLOT = "{currency_initials}"


@dataclasses.dataclass(frozen=True)
class ChunkingSection:
    chunk_chars: int
    overlap_chars: int

    def __post_init__(self) -> None:
        # A chunk of 0 characters never moves forward: chunking would loop forever.
        if self.chunk_chars < 1:
            raise ConfigError(f"config key chunking.chunk_chars must be at least 1, got {self.chunk_chars}")
        if not 0 <= self.overlap_chars < self.chunk_chars:
            raise ConfigError("config key chunking.overlap_chars must be at least 0 and less than "
                              f"chunking.chunk_chars, got {self.overlap_chars}")


@dataclasses.dataclass(frozen=True)
class EmbeddingSection:
    dims: int
    max_features: int
    min_df: int
    max_df: float
    sublinear_tf: bool
    random_state: int
    df_limits_min_chunks: int
    refit_growth_ratio: float
    initial_fit_chunks: int


@dataclasses.dataclass(frozen=True)
class TextSection:
    synonyms_file: str
    synonym_weight: float
    translation_weight: float
    min_translation_stem: int
    stemmer_language: str
    stopwords_keep: tuple[str, ...]
    stopwords_extra: tuple[str, ...]
    unit_suffixes: tuple[str, ...]
    max_token_chars: int
    stem_cache_words: int
    # Marker words per Snowball language (the default's own among them); a text with at
    # least language_min_hits of another's, more than the default's, is analysed in it.
    languages: typing.Mapping[str, tuple[str, ...]]
    language_min_hits: int


@dataclasses.dataclass(frozen=True)
class BM25Section:
    k1: float
    b: float
    epsilon: float
    idf: str = "okapi"

    def __post_init__(self) -> None:
        from .query.bm25 import IDF_FUNCTIONS

        if self.idf not in IDF_FUNCTIONS:
            raise ConfigError(f"config key bm25.idf: {self.idf!r} is not one of {', '.join(IDF_FUNCTIONS)}")


@dataclasses.dataclass(frozen=True)
class GraphSection:
    shingle_size: int
    theta: float
    max_df_share: float
    min_df_limit: int
    max_df_limit: int
    near_duplicate: float
    same_group_weight: float
    block_rows: int
    ppr_restart: float
    ppr_iterations: int
    ppr_tolerance: float


@dataclasses.dataclass(frozen=True)
class IndexSection:
    """Keeping the query index current (brainquery.query.index_update)."""
    incremental: bool
    max_update_share: float
    analysis_workers_max: int
    analysis_pool_min_chunks: int
    analysis_block_chunks: int


@dataclasses.dataclass(frozen=True)
class StoreSection:
    collection: str
    sources_collection: str
    batch_size: int
    write_queue: int
    lock_poll_seconds: float
    lease_seconds: float
    lease_settle_seconds: float
    read_retries: int
    read_retry_seconds: float


@dataclasses.dataclass(frozen=True)
class EvaluationSection:
    realdata_date_day_accuracy: float
    realdata_type_accuracy: float
    ask_p_at_1: float
    ask_r_at_3: float
    ask_criteria: float
    heldout_sets: tuple[str, ...]
    heldout_p_at_1: float
    heldout_r_at_3: float
    heldout_routing: float
    # A set written later and weaker today gates at its own floors ({set: {metric: floor}},
    # metrics p_at_1, r_at_3, routing); the others at the three above.
    heldout_set_floors: typing.Mapping[str, typing.Mapping[str, float]]
    calendar_dev_right: float
    calendar_dev2_right: float
    calendar_dev3_right: float
    calendar_dev4_right: float
    calendar_heldout_right: float
    calendar_heldout2_right: float
    ambiguity_dev_asked: float
    ambiguity_dev_qualified_asked: float
    ambiguity_heldout_asked: float
    ambiguity_heldout_qualified_asked: float
    ambiguity_dev2_asked: float
    ambiguity_dev2_qualified_asked: float
    ambiguity_dev3_asked: float
    ambiguity_dev3_qualified_asked: float
    ambiguity_dev4_asked: float
    ambiguity_dev4_qualified_asked: float
    ambiguity_dev5_asked: float
    ambiguity_dev5_qualified_asked: float
    ambiguity_dev6_asked: float
    ambiguity_dev6_qualified_asked: float
    ambiguity_dev7_asked: float
    ambiguity_dev7_qualified_asked: float
    ambiguity_dev8_asked: float
    ambiguity_dev8_qualified_asked: float
    ambiguity_dev9_asked: float
    ambiguity_dev9_qualified_asked: float
    ambiguity_dev10_asked: float
    ambiguity_dev10_qualified_asked: float
    ambiguity_dev11_asked: float
    ambiguity_dev11_qualified_asked: float
    ambiguity_heldout2_asked: float
    ambiguity_heldout2_qualified_asked: float

    def __post_init__(self) -> None:
        unknown = sorted(set(self.heldout_set_floors) - set(self.heldout_sets))
        if unknown:
            raise ConfigError(f"config key evaluation.heldout_set_floors names set(s) not in heldout_sets: "
                              f"{', '.join(unknown)}")
        for name, floors in self.heldout_set_floors.items():
            bad = sorted(set(floors) - {"p_at_1", "r_at_3", "routing"})
            if bad:
                raise ConfigError(f"config key evaluation.heldout_set_floors.{name}: unknown metric(s) "
                                  f"{', '.join(bad)}")

    def heldout_floor(self, name: str, metric: str) -> float:
        """The floor `name` must hold for `metric` (p_at_1, r_at_3 or routing)."""
        return float(self.heldout_set_floors.get(name, {}).get(metric, getattr(self, f"heldout_{metric}")))


@dataclasses.dataclass(frozen=True)
class ScoringSection:
    fusion: str
    alpha: float
    beta: float
    gamma: float
    delta: float
    dense_min_chunks: int
    dense_full_chunks: int
    ppr_seeds: int
    coord_power: float
    coverage_prior_chunks: float
    coverage_prior_df_share: float
    coverage_word_prefixes: tuple[str, ...]   # "unblock" counts as "block" where only that is used
    coverage_word_suffixes: tuple[str, ...]   # "NCT'd" ("nctd") as "nct"
    coverage_word_min_stem: int               # ... leaving at least this many letters
    coverage_word_compound_min: int           # a word this long may open a compound ("Kaminfeger-meister")
    slip_min_letters: int                     # a word this long the store lacks may be a slip (spelling.py)
    slip_dictionary: str                      # ... unless pyspellchecker's list of this language has it
    coverage_name_share: float
    aside_break: str
    aside_weight: float
    aside_min_focus_terms: int
    aside_tail: str                           # a regex: a statement after the question mark
    coverage_name_max_df_share: float
    compound_heads: tuple[str, ...]
    group_salutation: str
    group_salutation_chars: int
    group_name_credit: float
    associate_sources: int                    # best BM25 chunks whose clauses lend words
    associate_clause_max_terms: int
    associate_max_df_share: float
    associate_max_df_floor: int
    associate_credit: float
    named_day_credit: float             # a letter writing the one day asked about names the rest this far
    past_day_report_days: float         # ... a letter written on past days asked about, or this soon after
    relevant_share: float
    relevant_coverage_share: float
    off_topic_factor: float
    kind_miss_factor: float
    kind_miss_exempt: tuple[str, ...]   # kinds whose span a chunk may lack and still answer
    type_hints: typing.Mapping[str, str]
    type_hint_boost: float
    window_event_boost: float
    window_mention_boost: float         # a non-event chunk naming a day in the window
    window_date_boost: float
    cancelled_factor: float
    historical_future_event_factor: float
    possessive_weight: float
    near_term_max_days: float
    future_tolerance_days: float
    stages: tuple[int, ...]
    halt_margin: float
    halt_agreement: float
    halt_top_k: int
    agreement_cosine: float
    default_k: int
    max_question_chars: int
    attachment_context_chars: int
    sibling_weight: float
    undated_date_sources: tuple[str, ...]

    def __post_init__(self) -> None:
        from .query.rank import FUSIONS

        if self.fusion not in FUSIONS:
            raise ConfigError(f"config key scoring.fusion: {self.fusion!r} is not one of {', '.join(FUSIONS)}")
        if not 0 <= self.dense_min_chunks < self.dense_full_chunks:
            raise ConfigError("config key scoring.dense_min_chunks must be at least 0 and less than "
                              f"scoring.dense_full_chunks, got {self.dense_min_chunks} and {self.dense_full_chunks}")
        for key in ("aside_break", "aside_tail"):
            try:
                re.compile(getattr(self, key))
            except re.error as err:
                raise ConfigError(f"config key scoring.{key} is not a regex: {err}") from err
        stages = list(self.stages)
        if not stages or any(n < 1 for n in stages) or stages != sorted(set(stages)):
            raise ConfigError(f"config key scoring.stages must be increasing counts of at least 1, got {stages}")
        if self.slip_dictionary:
            from spellchecker import SpellChecker

            if self.slip_dictionary not in SpellChecker.languages():
                raise ConfigError(f"config key scoring.slip_dictionary: no word list for {self.slip_dictionary!r}; "
                                  f"one of {', '.join(SpellChecker.languages())} or \"\"")


@dataclasses.dataclass(frozen=True)
class DecayModel:
    """How one question pattern weighs a document's age."""
    model: str
    half_life_days: float
    floor: float
    floor_half_life_days: float
    cutoff_days: float
    cutoff_factor: float
    undated: float
    recency_blend: bool
    half_life_by_type: typing.Mapping[str, float]
    floor_by_type: typing.Mapping[str, float]
    # How much of the age weight a document pays when no newer document about the same
    # subject exists: weight ** unrivalled_power (0: none, 1: all of it).
    unrivalled_power: float

    def __post_init__(self) -> None:
        from .query.decay import DECAY_FUNCTIONS

        if self.model not in DECAY_FUNCTIONS:
            raise ConfigError(f"config key time.*.model: unknown decay model {self.model!r}; valid: "
                              f"{', '.join(DECAY_FUNCTIONS)}")


@dataclasses.dataclass(frozen=True)
class RivalRule:
    """When a newer document competes with an older one about the same subject."""
    min_gap_days: float
    coverage_share: float
    match_share: float
    value_match_share: float
    superseded_event_factor: float
    plan_days: int
    week_of: str                   # regex: a date naming a week, not a weekday
    series_rival_types: tuple[str, ...]

    def __post_init__(self) -> None:
        try:
            re.compile(self.week_of)
        except re.error as err:
            raise ConfigError(f"config key time.rival.week_of is not a regex: {err}") from err


@dataclasses.dataclass(frozen=True)
class PeriodWeight:
    half_life_days: float
    floor: float
    anchor_half_life_days: float   # outside a "before/after <event>" window; 0 = a hard edge
    length_share: float            # the half-life outside is at most this share of the period's length ...
    min_half_life_days: float      # ... and at least this
    anchor_match_share: float      # documents naming the event this near the best one date it


@dataclasses.dataclass(frozen=True)
class TimeSection:
    logistical: DecayModel
    entity: DecayModel
    historical: DecayModel
    period: PeriodWeight
    rival: RivalRule


@dataclasses.dataclass(frozen=True)
class TypeWeightSection:
    default: float
    logistical: typing.Mapping[str, float]
    entity: typing.Mapping[str, float]
    historical: typing.Mapping[str, float]

    def weight(self, pattern: str, doc_type: str) -> float:
        return getattr(self, pattern).get(doc_type, self.default)


@dataclasses.dataclass(frozen=True)
class AnswerSection:
    max_sentences: int
    memo_texts: int                  # documents whose sentences and words questions reuse
    table_header_lines: int          # how far above a table row its heading may stand
    table_header_max_words: int      # a longer line is prose, not a table heading
    wrapped_line_chars: int
    label_rivals: tuple[tuple[str, str], ...]
    sentence_head: str
    undated_year_lookback_days: int
    issuer_kinds: tuple[str, ...]
    issuer_types: tuple[str, ...]
    issuer_cue: str                  # a regex: the question asks who did a job
    worker_label: str                # a regex: the person a bill names as doing the job, group "name"
    max_chars: int
    snippet_chars: int
    conflict_share: float
    conflict_coverage_share: float
    max_conflicts: int
    evidence_pool: int
    supersede_patterns: tuple[str, ...]
    value_kinds: tuple[str, ...]
    dated_kinds: tuple[str, ...]
    memo_types: tuple[str, ...]      # dated the day written, not the day of what they say
    record_date_label: str           # a regex: the line where a record prints its own date
    supersede_share: float
    supersede_type_share: float
    kind_bonus: float
    context_weight: float
    continuation_words: tuple[str, ...]
    question_word_weight: float
    asked_name_weight: float
    introduced_lines_max: int
    rate_units: tuple[tuple[str, ...], ...]
    latest_cue: str
    # A newer document that names the leading answer's value beside one of these words on
    # the same line ("the old maple-lantern-42 no longer works") says it was replaced.
    retraction_cue: str
    salutation: str                     # a line that only greets ("Hi all,") answers nothing
    retraction_change: str              # "from {old} to ...": a change named on one line
    retraction_kinds: tuple[str, ...]   # values distinctive enough to name what they were of
    due_label_words: int                # how near before a date its due word stands
    transaction_cue: str                # "when did we buy / replace / install": the record answers
    record_cue: str                     # "what did we actually pay", "the bill": the record, not the quote
    former_cue: str                     # a question asking for the value before the current one
    first_cue: str                      # a question asking for the first value of all
    former_words: tuple[str, ...]       # ... the words of such a question that say which value
    former_line_cover: float    # ... and an off-topic document's value line naming this share of the question competes
    due_date_gap_chars: int             # a date this near after a reminder cue is a due date
    reminder_cue: str                   # a reminder that something is due: no record of it
    proposal_cue: str                   # a title offering work: a quote, an estimate
    difference_kinds: tuple[str, ...]   # "why was the bill more than the quote": the lines it added
    quoted_line_share: float            # ... a bill's line is the quote's when a quote line holds this share of its words
    added_lines_max: int
    currency_mark: str                  # a currency symbol or code beside an amount
    retired_value: str                  # what a sentence says just before a value it replaced
    old_line: str                       # a line setting out the plan a letter changed ("Old ...")
    new_line: str                       # ... and the line setting out the new one ("New ...")
    nearest_word_kinds: tuple[str, ...]  # kinds whose value is the one nearest after a question word
    delta_value: str                    # ... and just before a change, not a value ("up 1.2 kg")
    delta_kinds: tuple[str, ...]
    date_style_sample_chunks: int       # chunks read to tell how a store writes its dates
    # A date after one of these words is when something is due, not when it happened.
    due_cue: str
    table_heading_max_words: int        # a short line over dated rows heads their table
    record_types: tuple[str, ...]       # document types whose own date is when the thing happened
    # Patterns whose questions ask about the past ("when was the car last serviced"): a
    # date still ahead answers none of them.
    past_patterns: tuple[str, ...]
    speaker_rival_share: float
    second_sentence_share: float
    question_sentence_factor: float
    asked_day_line_share: float
    other_day_line_factor: float
    date_head_chars: int
    speaker_min_cover: float
    reply_share: float
    kind_heads: tuple[tuple[str, str], ...]
    kinds: tuple[tuple[str, str], ...]
    spans: tuple[tuple[str, str], ...]
    value_label_bonus: float
    named_label_bonus: float
    named_label_max_words: int
    total_kinds: tuple[str, ...]
    total_label_weight: float
    line_term_max_sentences: int
    line_name_dominance: float
    heading_row_share: float     # a later row under a heading the question names, named by this share
    heading_max_words: int       # ... a heading being a line of at most this many words and no value
    total_label: str            # a plain total's label ("Total", "Subtotal", "Summe")
    owed_label: str             # what is still owed ("Balance due"): the total only when asked
    remaining_label: str        # ... what remains ("balance"), owed even on a line that says "total"
    net_total_label: str        # a total before tax ("Subtotal"): the total only when none follows
    # (kind, cue, label): a question matching the cue asks, of its kind's values, for the
    # one on a line the label matches ("how much is the home insurance": the premium).
    asked_labels: tuple[tuple[str, str, str], ...]
    report_modals: tuple[str, ...]   # a verb after these tells of what is to come, not of what was done
    owed_cue: str               # a question about what is owed ("how much do we still owe")
    paid_cue: str               # a question about what was paid or charged
    deduction_label: str        # ... answered, after a deduction ("ROT avdrag"), by what is to pay
    reference_point: str        # "after the ROT deduction": where a value is taken, not a line asked for
    whole_cue: str              # a question about what a whole job came to ("end up costing")
    value_labels: tuple[tuple[str, str], ...]
    # Kinds answered by the value alone ("$4.11"); the others by their sentence.
    value_answers: tuple[str, ...]
    # Kinds with spans precise enough that, when a document holds one, only a sentence
    # holding one answers (a model-number pattern also matches part numbers: not those).
    span_only_kinds: tuple[str, ...]

    def __post_init__(self) -> None:
        # A bad regex fails here, when the config is read, not at the first question.
        for key in ("issuer_cue", "worker_label", "record_date_label", "total_label", "owed_label", "remaining_label", "net_total_label", "owed_cue", "paid_cue", "deduction_label", "reference_point", "whole_cue", "sentence_head", "latest_cue", "retraction_cue",
                    "due_cue", "salutation", "retired_value", "old_line", "new_line", "delta_value", "currency_mark", "proposal_cue", "former_cue", "first_cue", "transaction_cue", "record_cue", "reminder_cue"):
            try:
                re.compile(getattr(self, key))
            except re.error as err:
                raise ConfigError(f"config key answer.{key} is not a regex: {err}") from err
        try:
            re.compile(self.retraction_change.format(old="x"))
        except (re.error, KeyError, IndexError, ValueError) as err:
            raise ConfigError(f"config key answer.retraction_change is not a regex with an {{old}} slot: "
                              f"{err}") from err
        for key in ("kind_heads", "kinds", "spans", "value_labels"):
            for kind, pattern in getattr(self, key):
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise ConfigError(f"config key answer.{key}: the pattern for {kind!r} is not a "
                                      f"regex: {err}") from err
        for kind, *patterns in self.asked_labels:
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise ConfigError(f"config key answer.asked_labels: a pattern for {kind!r} is not a "
                                      f"regex: {err}") from err
        unknown = sorted({kind for kind, _ in (*self.kind_heads, *self.kinds)} - {kind for kind, _ in self.spans})
        if unknown:
            raise ConfigError(f"config key answer.kinds names kind(s) with no span pattern: {', '.join(unknown)}")
        unlabelled = sorted({rival for _, rival in self.label_rivals} - {kind for kind, _ in self.value_labels})
        if unlabelled:
            raise ConfigError(f"config key answer.label_rivals names kind(s) with no value label: "
                              f"{', '.join(unlabelled)}")


@dataclasses.dataclass(frozen=True)
class EventsSection:
    """Calendar answers from a series' occurrences (brainquery.query.occurrences)."""
    kinds: tuple[str, ...]               # answer kinds ([answer] kinds) an occurrence answers
    line_kinds: tuple[str, ...]          # answer kinds one line of an event answers
    note_kinds: tuple[str, ...]          # ... and those its note's line answers, after what and when
    yes_no: str                          # a question answered yes or no first
    past: str                            # a question about the last occurrence, not the next
    final: str                           # ... about the final one of a series that ends
    clock_asked: str                     # a question for the hour, which an all-day entry lacks
    fields: tuple[tuple[str, str], ...]  # question cue -> the event field that answers it
    note_name_share: float               # of a question's topic an event's note names it by
    note_name_words: int                 # ... in at least this many of its words
    horizon_days: int                    # how far to look for the next (or last) occurrence
    max_occurrences: int                 # at most this many expanded per question
    max_listed: int                      # occurrences written out in one answer
    # How an occurrence is written follows its zone's region: a 12-hour clock where that is
    # the custom, else 24 hours; the month first where that is, else the day first.
    twelve_hour_zones: tuple[str, ...]   # zone name prefixes ("America/")
    month_first_zones: tuple[str, ...]   # ... where a date is written month first (the _12h formats)
    default_clock: str                   # a zone without a name (UTC, a fixed offset)
    clock: str                           # "zone", or the household's "12h" / "24h" (clock_style.py)
    date_order: str                      # "zone", or the household's "day_first" / "month_first"
    clock_style_min_times: int           # clock times a store must write to say how it writes them
    clock_separator: str                 # between hours and minutes: "16:30", "3.40pm"
    clock_gap: str                       # between the minutes and am/pm: "4:15 PM", "3.40pm"
    clock_am: str                        # "AM", "am", "a.m."
    clock_pm: str
    day_format_12h: str                  # strftime, with {day} for the unpadded day of the month
    day_format_24h: str
    time_range_12h: str                  # between a start and an end: "6:00 PM to 7:00 PM"
    time_range_24h: str                  # "17:00–17:45"
    date_format_12h: str                 # a date answer ("when did..."), without the weekday
    date_format_24h: str

    def __post_init__(self) -> None:
        patterns = [("yes_no", self.yes_no), ("past", self.past), ("final", self.final),
                    ("clock_asked", self.clock_asked)] + [
            (f"fields.{name}", pattern) for name, pattern in self.fields]
        for key, pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ConfigError(f"config key events.{key} is not a regex: {err}") from err
        if self.clock not in ("zone", "12h", "24h"):
            raise ConfigError(f"config key events.clock must be \"zone\", \"12h\" or \"24h\", not {self.clock!r}")
        if self.date_order not in ("zone", "day_first", "month_first"):
            raise ConfigError("config key events.date_order must be \"zone\", \"day_first\" or \"month_first\", "
                              f"not {self.date_order!r}")
        if self.default_clock not in ("12h", "24h"):
            raise ConfigError(f"config key events.default_clock must be \"12h\" or \"24h\", "
                              f"not {self.default_clock!r}")
        for key in ("horizon_days", "max_occurrences", "max_listed"):
            if getattr(self, key) < 1:
                raise ConfigError(f"config key events.{key} must be at least 1")


@dataclasses.dataclass(frozen=True)
class AmbiguitySection:
    """Names shared by several entities, asked back (brainquery.query.entities, .ambiguity)."""
    word_pattern: str
    neighbour_gap: str
    clause_break: str
    towards: str
    event_towards: str
    neighbours: int
    window_words: int
    parenthesis_chars: int
    row_chars: int                   # a line shorter than this is a row of its own, not wrapped prose
    honorifics: tuple[str, ...]
    street_suffixes: tuple[str, ...]
    not_names: tuple[str, ...]
    greetings: tuple[str, ...]
    told_verbs: tuple[str, ...]      # "Tell Declan the car is back": what follows is not what he is
    capitalised_share: float
    # Vocabularies: (label, phrase, phrase...) per row; person_kinds name those of people.
    kinship: tuple[tuple[str, ...], ...]
    species: tuple[tuple[str, ...], ...]
    roles: tuple[tuple[str, ...], ...]
    organisations: tuple[tuple[str, ...], ...]
    places: tuple[tuple[str, ...], ...]
    patient_labels: tuple[str, ...]            # whose letters name their patient, an animal
    person_kinds: tuple[str, ...]
    parent_labels: tuple[str, ...]
    sender_name_chars: int
    webmail_domains: tuple[str, ...]
    generic_words: tuple[str, ...]
    assign_cosine: float
    max_docs: int
    topic_share: float
    confidence_cap: float
    max_candidates: int
    description_words: int
    message: str

    VOCABULARIES = ("kinship", "species", "roles", "organisations", "places")

    def __post_init__(self) -> None:
        for key in ("word_pattern", "neighbour_gap", "clause_break"):
            try:
                re.compile(getattr(self, key))
            except re.error as err:
                raise ConfigError(f"config key ambiguity.{key} is not a regex: {err}") from err
        for key in self.VOCABULARIES:
            for row in getattr(self, key):
                if len(row) < 2:
                    raise ConfigError(f"config key ambiguity.{key}: each row is a label and at least "
                                      f"one phrase, got {list(row)}")
        unknown = sorted(set(self.person_kinds) - set(self.VOCABULARIES))
        if unknown:
            raise ConfigError(f"config key ambiguity.person_kinds names unknown vocabularies: {', '.join(unknown)}")
        if "{name}" not in self.message:
            raise ConfigError("config key ambiguity.message must hold {name}")
        for key in ("neighbours", "window_words", "max_docs", "max_candidates"):
            if getattr(self, key) < 1:
                raise ConfigError(f"config key ambiguity.{key} must be at least 1")
        if not 0.0 <= self.confidence_cap <= 1.0:
            raise ConfigError("config key ambiguity.confidence_cap must be in [0, 1]")


# What an answer's confidence is computed from (brainquery.query.ask).
SIGNALS = ("coverage", "margin", "fresh", "kind_found", "kind_missing", "sentence_cover", "route")


@dataclasses.dataclass(frozen=True)
class ConfidenceSection:
    question_words: tuple[str, ...]
    kind_words: tuple[tuple[str, ...], ...]   # [kind, word, ...]: words that only name the kind asked for
    min_coverage: float
    fresh_days: float
    stale_days: float
    stale_days_by_type: typing.Mapping[str, float]   # 0: never stale by age (a manual)
    standing_kinds: tuple[str, ...]      # values that do not age: a serial number, a code
    margin_scale: float
    freshness_weight: float
    # The confidence is the probability that the answer is right: raw confidence mapped
    # through these breakpoints (benchmarks/calibrate.py fits them). Empty: the raw value.
    calibration_raw: tuple[float, ...]
    calibration_right: tuple[float, ...]
    calibration_sets: tuple[str, ...]
    # A logistic model of the answer's signals (AskResult.signals), fitted by calibrate.py;
    # empty: the isotonic mapping of the raw product above.
    signal_weights: typing.Mapping[str, float]
    signal_intercept: float
    signal_c: float                       # the logistic model's regularisation (calibrate.py)

    def __post_init__(self) -> None:
        negative = sorted(name for name, days in self.stale_days_by_type.items() if days < 0)
        if negative or self.stale_days <= 0:
            raise ConfigError("config keys confidence.stale_days (> 0) and stale_days_by_type (>= 0, "
                              f"0 = never) take days; got {', '.join(negative) or self.stale_days}")
        unknown = sorted(set(self.signal_weights) - set(SIGNALS))
        if unknown:
            raise ConfigError(f"config key confidence.signal_weights names unknown signal(s) "
                              f"{', '.join(unknown)}; known: {', '.join(SIGNALS)}")


@dataclasses.dataclass(frozen=True)
class RouterSection:
    queries_file: str
    word_ngram_max: int
    char_ngram_min: int
    char_ngram_max: int
    sublinear_tf: bool
    logistic_c: float
    max_iter: int
    random_state: int
    cue_weight: float
    cue_cap: int
    logistical_cues: tuple[str, ...]
    entity_cues: tuple[str, ...]
    historical_cues: tuple[str, ...]
    past_verbs: tuple[str, ...]
    not_past_verbs: tuple[str, ...]
    recency_logistical: float
    recency_entity: float
    recency_historical: float
    recency_cues: tuple[str, ...]
    recency_cue_floor: float
    recency_period_cap: float
    held_out_fraction: float
    held_out_seed: int
    held_out_now: str
    min_held_out_accuracy: float


@dataclasses.dataclass(frozen=True)
class WebSection:
    host: str
    port: int
    token: str
    loopback_hosts: tuple[str, ...]
    progress_poll_ms: int
    max_k: int
    timeline_max_bars: int
    newest_shown: int
    max_failures_shown: int
    max_body_bytes: int
    max_ingest_paths: int
    allowed_hidden: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Config:
    ingest: IngestConfig
    router: RouterSection
    chunking: ChunkingSection
    embedding: EmbeddingSection
    text: TextSection
    bm25: BM25Section
    graph: GraphSection
    store: StoreSection
    index: IndexSection
    evaluation: EvaluationSection
    scoring: ScoringSection
    time: TimeSection
    type_weight: TypeWeightSection
    answer: AnswerSection
    events: EventsSection
    ambiguity: AmbiguitySection
    confidence: ConfidenceSection
    web: WebSection


def load_config(path: str | os.PathLike | None = None) -> Config:
    """Defaults from config/default.toml, overridden by `path` or $BRAINQUERY_CONFIG."""
    data = read_layers(path)
    ingest_sections = {f.name for f in dataclasses.fields(IngestConfig)}
    query_sections = {name: cls for name, cls in typing.get_type_hints(Config).items()
                      if name != "ingest"}
    unknown = sorted(set(data) - ingest_sections - set(query_sections))
    if unknown:
        raise ConfigError(f"unknown config section(s) {', '.join(unknown)}")
    ingest = from_mapping(IngestConfig, {k: v for k, v in data.items() if k in ingest_sections})
    data = {**data, "answer": _with_currencies(data.get("answer", {}), ingest.invoice)}
    return Config(ingest=ingest, **{
        name: from_mapping(cls, data.get(name, {}), f"{name}.")
        for name, cls in query_sections.items()
    })


def _with_currencies(answer: dict[str, Any], invoice: Any) -> dict[str, Any]:
    """Answers read money with the currencies ingestion knows: "{currency}" in
    answer.currency_mark and the span patterns stands for their alternation,
    "{currency_initials}" for the class of characters they start with."""
    currencies = tuple(invoice.currency_symbols) + tuple(invoice.currency_codes)
    alternation = currency_alternation(currencies, tuple(invoice.currencies_attached))
    initials = currency_initials(currencies)

    def fill(pattern: Any) -> Any:
        if not isinstance(pattern, str):
            return pattern
        return pattern.replace(CURRENCY_SLOT, alternation).replace(INITIALS_SLOT, initials)

    out = dict(answer)
    if "currency_mark" in out:
        out["currency_mark"] = fill(out["currency_mark"])
    if "spans" in out:
        out["spans"] = [[kind, fill(pattern)] for kind, pattern in out["spans"]]
    return out
