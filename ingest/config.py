"""Configuration: `config/default.toml` read once into frozen dataclasses.

A user file (``--config FILE`` or ``$BRAINQUERY_CONFIG``) is laid over the defaults key by
key. Unknown sections or keys are an error that names them, so a typo never silently
falls back to a default.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, Mapping


# The repository's file for a checkout or editable install; the installed copy otherwise.
_CANDIDATES = (
    Path(__file__).resolve().parent.parent / "config" / "default.toml",
    Path(sys.prefix) / "share" / "brainquery" / "default.toml",
)
DEFAULT_CONFIG_PATH = next((p for p in _CANDIDATES if p.exists()), _CANDIDATES[0])
CONFIG_ENV = "BRAINQUERY_CONFIG"
CONFIG_DIR = DEFAULT_CONFIG_PATH.parent


def config_file(name: str | os.PathLike) -> Path:
    """A companion file named in the config (synonyms, labelled queries): absolute, or
    relative to the folder of the default configuration."""
    path = Path(name).expanduser()
    return path if path.is_absolute() else CONFIG_DIR / path


class ConfigError(ValueError):
    """A configuration file is missing, malformed, or names a key we do not know."""


@dataclasses.dataclass(frozen=True)
class IngestSection:
    max_file_bytes: int
    max_attachment_bytes: int
    max_message_bytes: int
    floating_timezone: str
    skip_hidden: bool
    sniff_bytes: int
    min_year: int
    max_future_days: int
    max_title_chars: int
    max_metadata_chars: int
    max_text_bytes: int
    max_error_chars: int
    max_clock_year: int
    document_extensions: tuple[str, ...]
    parse_workers_max: int
    parse_pool_min_messages: int
    parse_task_messages: int
    parse_task_timeout_seconds: float

    def __post_init__(self) -> None:
        from .dates import zone

        try:
            zone(self.floating_timezone)
        except ValueError as err:
            raise ConfigError(f"config key ingest.floating_timezone: {err}") from err
        for name in ("max_file_bytes", "max_attachment_bytes", "max_message_bytes", "sniff_bytes",
                     "max_title_chars", "max_metadata_chars", "max_text_bytes", "max_error_chars",
                     "parse_workers_max", "parse_pool_min_messages", "parse_task_messages"):
            if getattr(self, name) < 1:
                raise ConfigError(f"config key ingest.{name} must be at least 1, got {getattr(self, name)}")
        if self.parse_task_timeout_seconds <= 0:
            raise ConfigError("config key ingest.parse_task_timeout_seconds must be above 0, "
                              f"got {self.parse_task_timeout_seconds}")
        if not self.min_year < self.max_clock_year < 9999:
            raise ConfigError("config key ingest.max_clock_year must lie between ingest.min_year "
                              f"and 9999, got {self.max_clock_year}")


@dataclasses.dataclass(frozen=True)
class ImapSection:
    connect_timeout_seconds: float
    timeout_seconds: float
    fetch_batch_messages: int
    fetch_batch_bytes: int
    password_command: str
    password_command_timeout_seconds: float
    ca_file: str
    skip_folders: tuple[str, ...]
    max_failed_uids: int

    def __post_init__(self) -> None:
        for name in ("connect_timeout_seconds", "timeout_seconds", "fetch_batch_messages",
                     "fetch_batch_bytes", "password_command_timeout_seconds"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"config key imap.{name} must be above 0, got {getattr(self, name)}")
        if self.max_failed_uids < 0:
            raise ConfigError(f"config key imap.max_failed_uids must be at least 0, got {self.max_failed_uids}")


@dataclasses.dataclass(frozen=True)
class EmailSection:
    newsletter_threshold: float
    header_list_unsubscribe: float
    header_list_id: float
    header_precedence_bulk: float
    header_precedence_junk: float
    header_mailing_list: float
    header_campaign: float
    body_cue: float
    strong_body_cue: float
    body_cue_cap: float
    strong_body_cues: tuple[str, ...]
    bulk_body_cues: tuple[str, ...]
    bulk_address_words: tuple[str, ...]
    bulk_address: float
    personal_mailers: tuple[str, ...]
    personal_mailer_weight: float
    reply_weight: float
    personal_cues: tuple[str, ...]
    personal_cue_weight: float
    report_content_type_weight: float
    attachment_content_types: tuple[str, ...]
    attachment_extensions: tuple[str, ...]
    min_image_attachment_bytes: int


@dataclasses.dataclass(frozen=True)
class PdfSection:
    max_pages: int
    labelled_date_chars: int
    analysis_pages: int
    layout_min_ratio: float
    max_xml_bytes: int
    letter_head_lines: int
    salutations: tuple[str, ...]
    title_min_letters: int
    title_max_chars: int
    title_placeholders: tuple[str, ...]
    title_prefixes: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class DatesSection:
    issue_labels: tuple[str, ...]
    service_labels: tuple[str, ...]
    due_labels: tuple[str, ...]
    other_labels: tuple[str, ...]
    label_gap_chars: int
    label_column_slack: int
    numeric_order: str
    day_first_currencies: tuple[str, ...]
    two_digit_year_pivot: int
    time_gap_chars: int
    holiday_country: str
    holiday_subdivision: str
    holiday_categories: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class InvoiceSection:
    threshold: float
    head_chars: int
    identity_weight: float
    field_weight: float
    field_cap: float
    total_weight: float
    itemised_weight: float
    itemised_lines: int
    itemised_min_items: int
    itemised_tolerance: float
    require_total: bool
    not_invoice_weight: float
    invoice_identity: tuple[str, ...]
    receipt_identity: tuple[str, ...]
    invoice_fields: tuple[str, ...]
    receipt_fields: tuple[str, ...]
    not_invoice_cues: tuple[str, ...]
    receipt_margin: float
    currency_symbols: Mapping[str, str]
    currency_codes: tuple[str, ...]
    currencies_attached: tuple[str, ...]   # symbols that name money only against their amount ("R350")
    total_labels: tuple[str, ...]
    tax_cues: tuple[str, ...]
    rows_below: int
    column_slack: int
    net_total_labels: tuple[str, ...]
    number_labels: tuple[str, ...]
    vendor_labels: tuple[str, ...]
    vendor_legal_forms: tuple[str, ...]
    letterhead_lines: int
    item_exclude_cues: tuple[str, ...]
    max_items: int
    item_max_chars: int
    model_labels: tuple[str, ...]
    title_format: str
    kind_names: Mapping[str, str]


@dataclasses.dataclass(frozen=True)
class DocTypeSection:
    min_score: float
    name_weight: float
    title_weight: float
    cue_count_cap: int
    hint_reference_chars: int
    head_chars: int
    classify_chars: int
    manual_names: tuple[str, ...]
    manual_cues: tuple[str, ...]
    newsletter_names: tuple[str, ...]
    newsletter_cues: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class PhotoSection:
    ocr_screenshots: bool
    ocr_engines: tuple[str, ...]
    ocr_max_side: int
    ocr_command: str
    ocr_languages: str
    ocr_timeout_seconds: int
    ocr_page_segmentation: int
    ocr_threads: int
    ocr_kinds: tuple[str, ...]
    folder_levels: int
    gps_decimals: int

    def __post_init__(self) -> None:
        from .ocr import check_engines

        try:
            check_engines(self.ocr_engines)
        except ValueError as err:
            raise ConfigError(f"config key photo.ocr_engines: {err}") from err
        for name in ("ocr_max_side", "ocr_timeout_seconds", "ocr_threads"):
            if getattr(self, name) < 1:
                raise ConfigError(f"config key photo.{name} must be at least 1, got {getattr(self, name)}")


@dataclasses.dataclass(frozen=True)
class CalendarSection:
    recurrence_expand_days: int
    max_occurrences: int


@dataclasses.dataclass(frozen=True)
class NoteSection:
    date_labels: tuple[str, ...]
    head_lines: int
    head_chars: int
    fallback_encodings: tuple[str, ...]
    charset_detect_min_bytes: int
    charset_exclude: tuple[str, ...]
    max_title_chars: int


@dataclasses.dataclass(frozen=True)
class IngestConfig:
    """The sections the ingestion side reads."""

    ingest: IngestSection
    imap: ImapSection
    email: EmailSection
    pdf: PdfSection
    dates: DatesSection
    invoice: InvoiceSection
    doc_type: DocTypeSection
    photo: PhotoSection
    calendar: CalendarSection
    note: NoteSection


def read_layers(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The defaults with the user's file (argument, else $BRAINQUERY_CONFIG) laid over them."""
    data = _read_toml(DEFAULT_CONFIG_PATH)
    user = path or os.environ.get(CONFIG_ENV)
    if user:
        _overlay(data, _read_toml(Path(user)), where="")
    return data


def from_mapping(cls: type, data: Mapping[str, Any], where: str = "") -> Any:
    """Build the frozen dataclass `cls` from `data`, naming any unknown or missing key."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"unknown config key(s) {', '.join(where + k for k in unknown)}")
    missing = sorted(set(fields) - set(data))
    if missing:
        raise ConfigError(f"missing config key(s) {', '.join(where + k for k in missing)}")
    hints = typing.get_type_hints(cls)
    return cls(**{name: _coerce(hints[name], data[name], f"{where}{name}") for name in fields})


def load_ingest_config(path: str | os.PathLike | None = None) -> IngestConfig:
    data = read_layers(path)
    own = {f.name for f in dataclasses.fields(IngestConfig)}
    return from_mapping(IngestConfig, {k: v for k, v in data.items() if k in own})


def _coerce(hint: Any, value: Any, where: str) -> Any:
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise ConfigError(f"config section {where} must be a table")
        return from_mapping(hint, value, where + ".")
    origin = typing.get_origin(hint)
    if origin is tuple:
        if not isinstance(value, list):
            raise ConfigError(f"config key {where} must be a list")
        # Nested lists become tuples too: a config section stays hashable (a cache key).
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    if origin in (Mapping, dict) or hint is Mapping:
        if not isinstance(value, Mapping):
            raise ConfigError(f"config key {where} must be a table")
        return types.MappingProxyType(dict(value))
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float, str, bool) and not isinstance(value, hint):
        raise ConfigError(f"config key {where} must be {hint.__name__}, got {value!r}")
    return value


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as err:
        raise ConfigError(f"config file not found: {path}") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"config file {path} is not valid TOML: {err}") from err


def _overlay(base: dict[str, Any], top: Mapping[str, Any], where: str) -> None:
    for key, value in top.items():
        if key not in base:
            raise ConfigError(f"unknown config key {where}{key}")
        if isinstance(base[key], dict) and isinstance(value, Mapping):
            _overlay(base[key], value, f"{where}{key}.")
        else:
            base[key] = value
