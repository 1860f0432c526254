"""Time windows: the time a question names, resolved against `now` in `now`'s zone."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from brainquery.query.timewindow import KINDS, TimeWindow, find_window

CHICAGO = ZoneInfo("America/Chicago")
# The evaluation clock: Wednesday 2026-11-18, noon in Alder Falls.
NOW = datetime(2026, 11, 18, 12, 0, tzinfo=CHICAGO)
FRIDAY = datetime(2026, 11, 20, 9, 0, tzinfo=CHICAGO)
SATURDAY = datetime(2026, 11, 21, 9, 0, tzinfo=CHICAGO)
JANUARY = datetime(2027, 1, 10, 9, 0, tzinfo=CHICAGO)
MARCH = datetime(2026, 3, 15, 9, 0, tzinfo=CHICAGO)

D = date
CASES = [
    # question, now, start day, end day (exclusive; None = now), kind
    pytest.param("Is there soccer practice today?", NOW, D(2026, 11, 18), D(2026, 11, 19), "day", id="today"),
    pytest.param("What's for dinner tonight?", NOW, D(2026, 11, 18), D(2026, 11, 19), "day", id="tonight"),
    pytest.param("Is school closed tomorrow?", NOW, D(2026, 11, 19), D(2026, 11, 20), "day", id="tomorrow"),
    pytest.param("is school closed tmrw", NOW, D(2026, 11, 19), D(2026, 11, 20), "day", id="tomorrow-typed"),
    pytest.param("Did the plumber come yesterday?", NOW, D(2026, 11, 17), D(2026, 11, 18), "day", id="yesterday"),
    pytest.param("Is Friday a half-day?", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="bare-friday"),
    # A bare day of the month already past this month is next month's, unless the question
    # looks back (NOW is the 18th).
    pytest.param("what time does my mum land on the 12th", NOW, D(2026, 12, 12), D(2026, 12, 13), "day",
                 id="the-12th-ahead"),
    pytest.param("what did we pay on the 12th", NOW, D(2026, 11, 12), D(2026, 11, 13), "day", id="the-12th-behind"),
    pytest.param("What time is pickup on Friday?", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="on-friday"),
    pytest.param("Is this Friday a half day?", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="this-friday"),
    pytest.param("Is Friday's pickup early?", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="fridays-possessive"),
    pytest.param("what's on the family calendar friday the 27th", NOW, D(2026, 11, 27), D(2026, 11, 28), "day",
                 id="weekday-and-day-of-month"),
    pytest.param("anything on friday nov 27?", NOW, D(2026, 11, 27), D(2026, 11, 28), "day",
                 id="weekday-before-a-date-belongs-to-it"),
    pytest.param("When is grooming next Friday?", NOW, D(2026, 11, 27), D(2026, 11, 28), "day", id="next-friday-on-wednesday"),
    pytest.param("is piano still on wednesday next week", NOW, D(2026, 11, 25), D(2026, 11, 26), "day",
                 id="weekday-next-week-on-that-weekday"),
    pytest.param("what's on friday next week", NOW, D(2026, 11, 27), D(2026, 11, 28), "day", id="weekday-next-week"),
    pytest.param("is there school on monday week", NOW, D(2026, 11, 30), D(2026, 12, 1), "day", id="monday-week"),
    pytest.param("what time is swim on sat nov 28", NOW, D(2026, 11, 28), D(2026, 11, 29), "day",
                 id="abbreviated-weekday-before-a-date"),
    pytest.param("what's on sat 28 nov", NOW, D(2026, 11, 28), D(2026, 11, 29), "day", id="weekday-before-day-month"),
    pytest.param("what's on the wednesday after next", NOW, D(2026, 12, 2), D(2026, 12, 3), "day",
                 id="the-weekday-after-next"),
    pytest.param("Is there soccer next Wednesday?", NOW, D(2026, 11, 25), D(2026, 11, 26), "day", id="next-wednesday-on-wednesday"),
    pytest.param("Is Friday a half day?", FRIDAY, D(2026, 11, 20), D(2026, 11, 21), "day", id="friday-said-on-friday-is-today"),
    pytest.param("What's on next Friday?", SATURDAY, D(2026, 11, 27), D(2026, 11, 28), "day", id="next-friday-on-saturday"),
    pytest.param("What did we do last Friday?", NOW, D(2026, 11, 13), D(2026, 11, 14), "day", id="last-friday"),
    pytest.param("what's on the calendar this week", NOW, D(2026, 11, 16), D(2026, 11, 23), "range", id="this-week"),
    pytest.param("Is ballet canceled next week?", NOW, D(2026, 11, 23), D(2026, 11, 30), "range", id="next-week"),
    pytest.param("What did the vet say last week?", NOW, D(2026, 11, 9), D(2026, 11, 16), "period", id="last-week"),
    pytest.param("Any games this weekend?", NOW, D(2026, 11, 21), D(2026, 11, 23), "range", id="this-weekend"),
    pytest.param("What bills are due this month?", NOW, D(2026, 11, 1), D(2026, 12, 1), "range", id="this-month"),
    pytest.param("How much was the gas bill last month?", NOW, D(2026, 10, 1), D(2026, 11, 1), "period", id="last-month"),
    pytest.param("What roofer did we use in 2023?", NOW, D(2023, 1, 1), D(2024, 1, 1), "period", id="in-2023"),
    pytest.param("the 2023 roof invoice", NOW, D(2023, 1, 1), D(2024, 1, 1), "period", id="bare-year"),
    pytest.param("What did we spend on the vet last year?", NOW, D(2025, 1, 1), D(2026, 1, 1), "period", id="last-year"),
    pytest.param("How much have we paid for daycare this year?", NOW, D(2026, 1, 1), D(2027, 1, 1), "range", id="this-year"),
    pytest.param("What was fixed since March?", NOW, D(2026, 3, 1), None, "since", id="since-march"),
    pytest.param("since March", MARCH, D(2026, 3, 1), None, "since", id="since-march-in-march"),
    pytest.param("What did we buy in March 2024?", NOW, D(2024, 3, 1), D(2024, 4, 1), "period", id="month-year"),
    pytest.param("Where did we go last spring?", NOW, D(2026, 3, 1), D(2026, 6, 1), "period", id="last-spring"),
    pytest.param("Where did we go last summer?", NOW, D(2026, 6, 1), D(2026, 9, 1), "period", id="last-summer"),
    pytest.param("Who raked the leaves last fall?", NOW, D(2025, 9, 1), D(2025, 12, 1), "period", id="last-fall-during-fall"),
    pytest.param("Who raked the leaves last autumn?", NOW, D(2025, 9, 1), D(2025, 12, 1), "period", id="last-autumn"),
    pytest.param("Who plowed the driveway last winter?", NOW, D(2025, 12, 1), D(2026, 3, 1), "period", id="last-winter"),
    pytest.param("Who plowed the driveway last winter?", JANUARY, D(2025, 12, 1), D(2026, 3, 1), "period", id="last-winter-during-winter"),
    pytest.param("Where are we over Thanksgiving?", NOW, D(2026, 11, 26), D(2026, 11, 30), "range", id="over-thanksgiving"),
    pytest.param("Is there school the day after Thanksgiving?", NOW, D(2026, 11, 27), D(2026, 11, 28), "day", id="day-after-thanksgiving"),
    pytest.param("school on the wednesday before thanksgiving?", NOW, D(2026, 11, 25), D(2026, 11, 26), "day", id="weekday-before-thanksgiving"),
    # A holiday's week is the Monday-based week holding it; "the Tuesday of" it that day.
    pytest.param("piano on the Tuesday of Thanksgiving week?", NOW, D(2026, 11, 24), D(2026, 11, 25), "day", id="weekday-of-holiday-week"),
    pytest.param("what's on the week of thanksgiving", NOW, D(2026, 11, 23), D(2026, 11, 30), "range", id="week-of-holiday"),
    pytest.param("any lessons christmas week", NOW, D(2026, 12, 21), D(2026, 12, 28), "range", id="holiday-week"),
    pytest.param("What did the kids dress up as for Halloween?", NOW, D(2026, 10, 31), D(2026, 11, 1), "day", id="halloween-just-past"),
    pytest.param("What time is the Halloween parade?", datetime(2026, 10, 28, 8, 0, tzinfo=CHICAGO), D(2026, 10, 31), D(2026, 11, 1), "day", id="halloween-coming"),
    pytest.param("What did we get the kids for Christmas last year?", NOW, D(2025, 12, 25), D(2025, 12, 26), "period", id="christmas-last-year"),
    pytest.param("Who hosted Christmas Eve 2024?", NOW, D(2024, 12, 24), D(2024, 12, 25), "period", id="christmas-eve-with-year"),
    pytest.param("What did we do last Christmas?", NOW, D(2025, 12, 25), D(2025, 12, 26), "day", id="last-christmas"),
    pytest.param("Is the pool open on Memorial Day?", MARCH, D(2026, 5, 25), D(2026, 5, 26), "day", id="memorial-day-last-monday"),
    pytest.param("Where did we camp over Memorial Day weekend?", NOW, D(2026, 5, 23), D(2026, 5, 26), "period", id="memorial-day-weekend"),
    pytest.param("Is trash late after Labor Day?", NOW, D(2026, 9, 7), D(2026, 9, 8), "day", id="labor-day-first-monday"),
    pytest.param("Brunch plans for Mother's Day?", MARCH, D(2026, 5, 10), D(2026, 5, 11), "day", id="mothers-day-second-sunday"),
    pytest.param("egg hunt on easter", MARCH, D(2026, 4, 5), D(2026, 4, 6), "day", id="easter"),
    pytest.param("fireworks on the fourth of july", MARCH, D(2026, 7, 4), D(2026, 7, 5), "day", id="fourth-of-july"),
    pytest.param("new year's eve party", JANUARY, D(2026, 12, 31), D(2027, 1, 1), "day", id="new-years-eve-closest"),
    pytest.param("Is there school on November 20?", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="month-day"),
    pytest.param("is 11/20 a half day", NOW, D(2026, 11, 20), D(2026, 11, 21), "day", id="us-numeric-date"),
    pytest.param("What did we pay on May 19, 2023?", NOW, D(2023, 5, 19), D(2023, 5, 20), "period", id="past-dated-day"),
    pytest.param("the 2024-02-06 install", NOW, D(2024, 2, 6), D(2024, 2, 7), "period", id="iso-date"),
    pytest.param("Is school closed in December?", NOW, D(2026, 12, 1), D(2027, 1, 1), "range", id="month-coming-soon"),
    pytest.param("What did we pay in March?", NOW, D(2026, 3, 1), D(2026, 4, 1), "period", id="month-most-recent"),
    pytest.param("october energy bill was how much", NOW, D(2026, 10, 1), D(2026, 11, 1), "period",
                 id="month-as-adjective-opening-the-question"),
    pytest.param("What came in the mail in the past 30 days?", NOW, D(2026, 10, 19), None, "since", id="past-n-days"),
    pytest.param("what time does oisin have hurling on sat", NOW, D(2026, 11, 21), D(2026, 11, 22), "day", id="on-sat"),
    pytest.param("is the market on next weds", NOW, D(2026, 11, 25), D(2026, 11, 26), "day", id="next-weds"),
    pytest.param("what time are conferences thursday night", NOW, D(2026, 11, 19), D(2026, 11, 20), "day", id="weekday-night"),
    pytest.param("anything on tomorrow morning", NOW, D(2026, 11, 19), D(2026, 11, 20), "day", id="tomorrow-morning"),
    pytest.param("Who did we use for the roof back in 2023?", NOW, D(2023, 1, 1), D(2024, 1, 1), "period", id="back-in-2023"),
    pytest.param("What did we pay the sitter 2 years ago?", NOW, D(2024, 1, 1), D(2025, 1, 1), "period", id="years-ago"),
    # A week or a weekend placed by a day is that week or weekend, not the day (Monday 10 April
    # 2023; Thanksgiving 2026 is Thursday 26 November).
    pytest.param("What did Maria do last weekend before April 10, 2023?", NOW, D(2023, 4, 8), D(2023, 4, 10),
                 "period", id="weekend-before-a-monday"),
    pytest.param("what did John do the week before August 3, 2023", NOW, D(2023, 7, 27), D(2023, 8, 3),
                 "period", id="week-before-a-date"),
    pytest.param("who came the week after Christmas 2025", NOW, D(2025, 12, 26), D(2026, 1, 2), "period",
                 id="week-after-a-holiday"),
    pytest.param("are we away the weekend after Thanksgiving", NOW, D(2026, 11, 28), D(2026, 11, 30), "range",
                 id="weekend-after-a-thursday"),
    pytest.param("what came since the week before Halloween", NOW, D(2026, 10, 24), None, "since",
                 id="since-a-week-before"),
]


@pytest.mark.parametrize("question, now, start, end, kind", CASES)
def test_named_windows_resolve_against_now(question, now, start, end, kind):
    window = find_window(question, now)
    assert window is not None
    assert (window.start, window.end, window.kind) == (
        datetime(start.year, start.month, start.day, tzinfo=now.tzinfo),
        now if end is None else datetime(end.year, end.month, end.day, tzinfo=now.tzinfo),
        kind,
    )
    assert window.text and window.text in question.lower()


@pytest.mark.parametrize("question, now, start, end, kind", CASES)
def test_windows_are_aware_half_open_and_of_a_known_kind(question, now, start, end, kind):
    window = find_window(question, now)
    assert isinstance(window, TimeWindow) and window.kind in KINDS
    assert window.start.utcoffset() is not None and window.end.utcoffset() is not None
    assert window.start < window.end


@pytest.mark.parametrize("question", [
    pytest.param("What size is our HVAC filter?", id="no-time"),
    pytest.param("Is there soccer on Wednesdays?", id="recurring-weekday-is-no-day"),
    pytest.param("This may be a silly question: what's the wifi password?", id="may-the-verb"),
    pytest.param("Is the half day 1/2 day pay for the sitter?", id="fraction-is-no-date"),
    pytest.param("Call Luis at 555-2023 about the 16x25x4 filter", id="phone-and-size-are-no-dates"),
    pytest.param("When is the last day of school?", id="last-day-of-is-no-window"),
    pytest.param("Who did we use a few years ago?", id="vague-years-ago"),
    pytest.param("Does Jan know the garage code?", id="jan-the-name"),
    pytest.param("Do you know the wifi password now?", id="now-is-no-window"),
    pytest.param("When did trash day switch to Thursday?", id="weekday-as-the-value"),
    pytest.param("Where we sat by the sun deck", id="sat-the-verb"),
    pytest.param("Who last sat down with the accountant?", id="last-sat-down"),
])
def test_no_window_named(question):
    assert find_window(question, NOW) is None


def test_the_longest_phrase_wins():
    assert find_window("since March 2024", NOW).text == "since march 2024"
    assert find_window("Is the picnic on Friday or next weekend?", NOW).text == "next weekend"
    assert find_window("Is it Monday or Friday?", NOW).text == "monday"   # a tie: the first


def test_a_holidays_name_is_also_the_questions_subject():
    assert find_window("what did the kids dress up as for halloween", NOW).subject == "halloween"
    assert find_window("Where are we over Thanksgiving?", NOW).subject == "thanksgiving"
    assert find_window("what did we buy in 2023", NOW).subject == ""


def test_resolved_in_the_zone_of_now_across_dst():
    window = find_window("this month", NOW)
    # 2026-11-01 00:00 is still daylight time in Chicago; 2026-12-01 is standard time.
    assert window.start.utcoffset() == timedelta(hours=-5)
    assert window.end.utcoffset() == timedelta(hours=-6)


def test_today_is_the_day_of_now_in_its_own_zone():
    instant = datetime(2026, 11, 19, 3, 0, tzinfo=UTC)   # 21:00 on the 18th in Chicago
    in_utc = find_window("today", instant)
    in_chicago = find_window("today", instant.astimezone(CHICAGO))
    assert in_utc.start == datetime(2026, 11, 19, tzinfo=UTC)
    assert in_chicago.start == datetime(2026, 11, 18, tzinfo=CHICAGO)
    fixed = timezone(timedelta(hours=-6))
    assert find_window("tomorrow", NOW.astimezone(fixed)).start == datetime(2026, 11, 19, tzinfo=fixed)


def test_naive_now_is_refused():
    with pytest.raises(ValueError, match="timezone-aware"):
        find_window("today", datetime(2026, 11, 18, 12, 0))


def _household(ingest_config, country: str, subdivision: str = ""):
    import dataclasses

    return dataclasses.replace(ingest_config.dates, holiday_country=country,
                               holiday_subdivision=subdivision)


@pytest.mark.parametrize("country, question, start, end", [
    pytest.param("US", "Is the pool open on Juneteenth?", D(2026, 6, 19), D(2026, 6, 20), id="us-juneteenth"),
    pytest.param("US", "Is there mail on Columbus Day?", D(2026, 10, 12), D(2026, 10, 13), id="us-columbus"),
    pytest.param("US", "Thanksgiving 2031 at grandma's?", D(2031, 11, 27), D(2031, 11, 28), id="any-year"),
    pytest.param("CA", "Is the office closed on Labour Day?", D(2026, 9, 7), D(2026, 9, 8), id="ca-labour-day"),
    pytest.param("NZ", "Is the office closed on Labour Day?", D(2026, 10, 26), D(2026, 10, 27), id="nz-labour-day"),
    pytest.param("GB", "Where are we over Boxing Day?", D(2026, 12, 26), D(2026, 12, 28), id="gb-boxing-day-weekend"),
    pytest.param("DE", "Was the shop open on Easter Monday 2026?", D(2026, 4, 6), D(2026, 4, 7), id="de-easter-monday"),
])
def test_holidays_come_from_the_households_country(ingest_config, country, question, start, end):
    """Holiday dates come from the `holidays` package for the configured country: other
    countries and years come with it."""
    window = find_window(question, NOW, dates=_household(ingest_config, country))
    assert window is not None and (window.start.date(), window.end.date()) == (start, end)


def test_a_holiday_the_country_does_not_keep_names_no_day(ingest_config):
    assert find_window("Where are we over Boxing Day?", NOW, dates=_household(ingest_config, "US")) is None


def test_unknown_holiday_country_is_a_clear_error(ingest_config):
    with pytest.raises(ValueError, match="dates.holiday_country.*'XX'"):
        find_window("over thanksgiving", NOW, dates=_household(ingest_config, "XX"))


@pytest.mark.parametrize("question, text", [
    ("what time are conferences thursday night", "thursday night"),
    ("anything on tomorrow morning", "on tomorrow morning"),
    ("is swimming on sat morning", "on sat morning"),
])
def test_the_part_of_the_day_belongs_to_the_day_named(question, text):
    # "night" is when, not what the question is about.
    assert find_window(question, NOW).text == text
