"""Printed dates: numeric and month-name forms across languages, and labelled dates."""
from __future__ import annotations

import dataclasses
from datetime import timezone
from zoneinfo import ZoneInfo

import pytest

from ingest.printed_dates import day_first_language, find_dates, find_labelled

UTC = timezone.utc
BERLIN = ZoneInfo("Europe/Berlin")


def _iso(dates) -> list[str]:
    return [d.value.replace(tzinfo=None).isoformat(sep=" ").removesuffix(" 00:00:00") for d in dates]


FIND_CASES = [
    pytest.param("Date: 2014-08-03", ["2014-08-03"], id="iso"),
    pytest.param("2014/08/03", ["2014-08-03"], id="year-first-slash"),
    pytest.param("Datum: 03.08.2014", ["2014-08-03"], id="dotted-day-first"),
    pytest.param("Belegdatum: 26.10.22", ["2022-10-26"], id="dotted-two-digit-year"),
    pytest.param("born 26.10.85", ["1985-10-26"], id="two-digit-year-pivot"),
    pytest.param("Paid 08/03/2014 by card", ["2014-08-03"], id="slash-english-month-first"),
    pytest.param("Date: 31/12/2018", ["2018-12-31"], id="slash-day-over-12"),
    pytest.param("Period 01/12/2018 to 31/12/2018", ["2018-12-01", "2018-12-31"],
                 id="slash-settled-by-unambiguous-sibling"),
    pytest.param("Check in 02/17/26 and 03/01/26", ["2026-02-17", "2026-03-01"],
                 id="slash-month-first-settled-by-sibling"),
    pytest.param("Die Rechnung vom 08/03/2014 ist für Sie und nicht bezahlt", ["2014-03-08"],
                 id="slash-german-text-day-first"),
    pytest.param("Order Date: 15-10-2015", ["2015-10-15"], id="dash-day-first"),
    pytest.param("Invoice Date: August 3 , 2014", ["2014-08-03"], id="en-month-day-space-comma"),
    pytest.param("February 17, 2026", ["2026-02-17"], id="en-month-day"),
    pytest.param("Aug. 3rd, 2014", ["2014-08-03"], id="en-abbrev-ordinal"),
    pytest.param("the 3rd of August 2014", ["2014-08-03"], id="en-day-of-month"),
    pytest.param("Rechnungsdatum 7. Mai 2014", ["2014-05-07"], id="de-day-dot-month"),
    pytest.param("Rechnungsdatum: 11. Juli 2014", ["2014-07-11"], id="de-juli"),
    pytest.param("10. März 2020", ["2020-03-10"], id="de-umlaut"),
    pytest.param("Facture n°562044387 du 02 Juillet 2015", ["2015-07-02"], id="fr-capitalised"),
    pytest.param("le 1er août 2015", ["2015-08-01"], id="fr-premier-accent"),
    pytest.param("le 1er aout 2015", ["2015-08-01"], id="fr-no-accent"),
    pytest.param("Orderdatum: 18 april 2014", ["2014-04-18"], id="nl-april"),
    pytest.param("3 maart 2021", ["2021-03-03"], id="nl-maart"),
    pytest.param("3 de agosto de 2014", ["2014-08-03"], id="es-de"),
    pytest.param("5 settembre 2019", ["2019-09-05"], id="it-settembre"),
    pytest.param("Faktura VAT z dnia 13 listopada 2026 r.", ["2026-11-13"], id="pl-genitive"),
    pytest.param("Data wystawienia: 3 maja 2025", ["2025-05-03"], id="pl-maja"),
    pytest.param("Fakturadatum: 12 augusti 2025", ["2025-08-12"], id="sv-augusti"),
    pytest.param("Faktuurdatum: 4 Desember 2025", ["2025-12-04"], id="af-desember"),
    pytest.param("12.01.2020     12:00     Bon-Nr.: 9999", ["2020-01-12 12:00:00"],
                 id="receipt-date-and-time"),
    pytest.param("13.08.20 13:41", ["2020-08-13 13:41:00"], id="two-digit-year-with-time"),
    pytest.param("VISA **** 1234\n12/01/202414:05", ["2024-12-01 14:05:00"],
                 id="ocr-date-and-time-run-together"),
    pytest.param("Ref 12/01/2024123 ok", [], id="date-run-into-a-number-is-none"),
    pytest.param("RUN 12/3/2014 11:57:01 AM", ["2014-12-03 11:57:01"], id="time-am"),
    pytest.param("on 2014-08-03T18:30", ["2014-08-03 18:30:00"], id="iso-with-t-time"),
    pytest.param("sent 3 May 2014 at 7:05 pm", ["2014-05-03 19:05:00"], id="time-pm"),
    pytest.param("31.02.2014", [], id="impossible-day"),
    pytest.param("Mustang 1.5.1 uses pdfbox 2.0.12", [], id="version-numbers"),
    pytest.param("May 2014 and may include", [], id="month-year-only"),
    pytest.param("IBAN DE30 5075 0094 0000 0485 67", [], id="bank-account"),
    pytest.param("Tel. 01234-1234567", [], id="phone"),
    pytest.param("01.05.14-31.05.14", ["2014-05-01", "2014-05-31"], id="dotted-range"),
    pytest.param("Maison 3 2014", [], id="month-name-inside-word"),
]


@pytest.mark.parametrize("text, expected", FIND_CASES)
def test_find_dates(text, expected):
    assert _iso(find_dates(text, UTC)) == expected


def test_find_dates_positions_and_floating():
    text = "Invoice Date: 03.08.2014\nDue: 17.08.2014"
    first, second = find_dates(text, BERLIN)
    assert text[first.start:first.end] == "03.08.2014"
    assert text[second.start:second.end] == "17.08.2014"
    assert first.floating and first.value.tzinfo is BERLIN
    assert not first.has_time


@pytest.mark.parametrize("order, expected", [
    pytest.param("day_first", "2014-03-08", id="forced-day-first"),
    pytest.param("month_first", "2014-08-03", id="forced-month-first"),
    pytest.param("auto", "2014-08-03", id="auto-english"),
])
def test_numeric_order_setting(ingest_config, order, expected):
    rules = dataclasses.replace(ingest_config.dates, numeric_order=order)
    assert _iso(find_dates("Paid on 08/03/2014 for the year", UTC, rules=rules)) == [expected]


@pytest.mark.parametrize("text, expected", [
    pytest.param("Invoice date: 04/09/2025\nTotal (incl. VAT) €398.00", "2025-09-04", id="english-in-euro"),
    pytest.param("Paid 08/03/2014, thank you. Total £42.00", "2014-03-08", id="english-in-pounds"),
    pytest.param("Paid 08/03/2014, thank you. Total $42.00", "2014-08-03", id="english-in-dollars"),
    pytest.param("Invoice date: 08/07/2024\nMajor service - labour 1 R1 450,00", "2024-07-08", id="english-in-rand"),
    pytest.param("Invoice date: 12/03/2024\nTotal (incl. GST): Rs. 6,318.00", "2024-03-12", id="english-in-rupees"),
    pytest.param("Date: 08/07/2024\nTyres 205/60R16 x4 $480.00, recharge R410A $95.00", "2024-08-07",
                 id="a-tyre-and-a-refrigerant-are-no-rand"),
])
def test_an_english_text_priced_in_a_day_first_currency_writes_its_days_first(text, expected):
    assert _iso(find_dates(text, UTC))[:1] == [expected]


def test_unknown_numeric_order_names_the_valid_ones(ingest_config):
    rules = dataclasses.replace(ingest_config.dates, numeric_order="sideways")
    with pytest.raises(ValueError, match="auto"):
        find_dates("08/03/2014", UTC, rules=rules)


@pytest.mark.parametrize("text, day_first", [
    pytest.param("Die Rechnung ist für Sie und wir danken", True, id="german"),
    pytest.param("Votre facture est disponible pour vous", True, id="french"),
    pytest.param("Uw factuur is voor het adres van", True, id="dutch"),
    pytest.param("Your invoice is ready for you and the team", False, id="english"),
    pytest.param("12345 67890", False, id="no-words"),
])
def test_day_first_language(text, day_first):
    assert day_first_language(text) is day_first


LABEL_CASES = [
    pytest.param("Invoice Date: 20-10-2015\nOrder Date: 15-10-2015", ("invoice date", "2015-10-20"),
                 id="same-line"),
    pytest.param("Order Date: 15-10-2015   Invoice Date: 20-10-2015", ("invoice date", "2015-10-20"),
                 id="preference-over-position"),
    pytest.param("Date:\n31/12/2017", ("date", "2017-12-31"), id="next-line"),
    pytest.param("Invoice 103767\nFebruary 17, 2026\nPage 1", ("invoice", "2026-02-17"),
                 id="generic-label-next-line"),
    pytest.param("Ref     Due Date      Terms\nA-1     March 3, 2026  net", None,
                 id="due-date-not-an-issue-date"),
    pytest.param("Date limite de paiement le 05 Juillet 2015", None, id="french-due-excluded"),
    pytest.param("DATE DE FACTURE ASSOCIÉE : 30/11/2018\nDate :  31/12/2018", ("date", "2018-12-31"),
                 id="other-label-excluded"),
    pytest.param("Rechnungsdatum                7. Mai 2014", ("rechnungsdatum", "2014-05-07"),
                 id="layout-gap"),
    pytest.param("Kunden-Nr.: 10000 Belegdatum: 26.10.22", ("belegdatum", "2022-10-26"),
                 id="label-mid-line"),
    pytest.param("Factuurdatum:    19 april 2014\nOrderdatum: 18 april 2014",
                 ("factuurdatum", "2014-04-19"), id="dutch"),
    pytest.param("Invoice date: see the attached statement which was sent 3 May 2014", None,
                 id="date-too-far-after-label"),
    pytest.param("Account    Invoice Date\n296664      August 3, 2014", ("invoice date", "2014-08-03"),
                 id="column-under-label"),
    pytest.param("INVOICE DATE 2014-08-03", ("invoice date", "2014-08-03"), id="upper-case"),
    pytest.param("No dates in here at all", None, id="no-dates"),
]


@pytest.mark.parametrize("text, expected", LABEL_CASES)
def test_find_labelled_date(ingest_config, text, expected):
    rules = ingest_config.dates
    found = find_labelled(text, rules.issue_labels, UTC,
                          exclude=rules.due_labels + rules.other_labels, rules=rules)
    if expected is None:
        assert found is None
    else:
        date, label = found
        assert (label, date.value.date().isoformat()) == expected


def test_labelled_date_is_floating_in_the_given_zone(ingest_config):
    date, _ = find_labelled("Invoice Date: 2014-08-03", ("invoice date",), BERLIN)
    assert date.value.tzinfo is BERLIN


def test_cases_are_unique():
    ids = [case.id for case in FIND_CASES + LABEL_CASES]
    assert len(ids) == len(set(ids))
