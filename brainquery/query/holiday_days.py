"""The household's holidays by name: the day one falls on in a given year, from the
`holidays` package for the country configured in [dates] holiday_country (other countries
and years come with it). The package is imported only when a question names a holiday.
"""
from __future__ import annotations

import functools
import re
from datetime import date

from ingest.config import DatesSection

_NOT_NAME = re.compile(r"[^a-z0-9]+")


def name_key(name: str) -> str:
    """"Washington's Birthday", "washingtons birthday" and "Washington’s  Birthday" alike."""
    return _NOT_NAME.sub(" ", name.lower().replace("'", "").replace("\u2019", "")).strip()


def holiday_day(names: tuple[str, ...], year: int, rules: DatesSection) -> date | None:
    """The day in `year` of the first of `names` the configured country has, else None."""
    days = _days(rules.holiday_country, rules.holiday_subdivision, rules.holiday_categories, year)
    for name in names:
        day = days.get(name_key(name))
        if day is not None:
            return day
    return None


@functools.lru_cache(maxsize=64)
def _days(country: str, subdivision: str, categories: tuple[str, ...], year: int) -> dict[str, date]:
    """{name key: day} of one country's holidays in one year (the holiday itself, not the
    weekday it is observed on)."""
    import holidays

    try:
        kind = holidays.country_holidays(country)
    except NotImplementedError as err:
        raise ValueError(f"config key dates.holiday_country: no holidays known for {country!r}") from err
    supported = set(getattr(kind, "supported_categories", ()) or ("public",))
    wanted = tuple(c for c in categories if c in supported) or ("public",)
    calendar = holidays.country_holidays(country, subdiv=subdivision or None, years=year,
                                         observed=False, categories=wanted, language="en_US")
    out: dict[str, date] = {}
    for day, names in sorted(calendar.items()):
        for name in str(names).split("; "):       # two holidays on one day are joined so
            out.setdefault(name_key(name), day)
    return out
