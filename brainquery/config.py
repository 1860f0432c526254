"""The whole configuration: the ingestion sections plus the store, chunking and embedding."""
from __future__ import annotations

import dataclasses
import os
import typing

from ingest.config import ConfigError, IngestConfig, from_mapping, read_layers


@dataclasses.dataclass(frozen=True)
class ChunkingSection:
    chunk_chars: int
    overlap_chars: int


@dataclasses.dataclass(frozen=True)
class EmbeddingSection:
    dims: int
    max_features: int
    min_df: int
    max_df: float
    sublinear_tf: bool
    ngram_max: int
    random_state: int
    df_limits_min_chunks: int
    refit_growth_ratio: float
    initial_fit_chunks: int


@dataclasses.dataclass(frozen=True)
class StoreSection:
    collection: str
    sources_collection: str
    batch_size: int


@dataclasses.dataclass(frozen=True)
class EvaluationSection:
    realdata_date_day_accuracy: float
    realdata_type_accuracy: float


@dataclasses.dataclass(frozen=True)
class Config:
    ingest: IngestConfig
    chunking: ChunkingSection
    embedding: EmbeddingSection
    store: StoreSection
    evaluation: EvaluationSection


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
    return Config(ingest=ingest, **{
        name: from_mapping(cls, data.get(name, {}), f"{name}.")
        for name, cls in query_sections.items()
    })
