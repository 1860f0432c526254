"""Money as a household's papers write it, in any of the configured currencies: before or
after the number, grouped by commas, dots, apostrophes or spaces, with cents or a dash for
none. Ingestion (invoice totals) and answers read it the same way; a clock time written with
a dot ("at 18.00", "08.00-10.00") is no amount."""
from __future__ import annotations

import re

import pytest
from test_typed_answers import answer_of

from brainquery.config import load_config
from brainquery.query.answer import same_value
from ingest.invoice import amount_pattern, parse_amount
from ingest.money import amount_value, normalise_number

CFG = load_config()
AMOUNT = re.compile(dict(CFG.answer.spans)["amount"])
TIME = re.compile(dict(CFG.answer.spans)["time"])


@pytest.mark.parametrize("written, value", [
    ("1'327.80", 1327.80), ("1.005,55", 1005.55), ("2 150", 2150.0), ("6\u202f480,00", 6480.0),
    ("298.-", 298.0), ("$1,000", 1000.0), ("17.45", 17.45),
])
def test_a_written_number_has_its_value(written, value):
    assert float(normalise_number(written.lstrip("$"))) == value


@pytest.mark.parametrize("text, amounts", [
    pytest.param("The premium is CHF 1'327.80 a month.", ["CHF 1'327.80 a month"], id="swiss-apostrophe"),
    pytest.param("Kurs Herbst: Fr. 145.– inkl. Material", ["Fr. 145.–"], id="francs-with-a-dash"),
    pytest.param("The service will cost 2 690 kr this year.", ["2 690 kr"], id="kronor-after"),
    pytest.param("I charge 170 kr/h now.", ["170 kr/h"], id="a-rate-with-its-unit"),
    pytest.param("Summe 1'734.- offen", ["1'734.-"], id="whole-francs-bare"),
    pytest.param("Att betala 6 480,00 kr", ["6 480,00 kr"], id="space-grouped-with-cents"),
    pytest.param("Wir zahlen 35 Franken in bar.", ["35 Franken"], id="a-currency-word"),
    pytest.param("Hypothek CHF 640'000.00 zu 1.38%", ["CHF 640'000.00"], id="a-rate-in-percent-is-no-amount"),
    pytest.param("Booked for 08.00-10.00, price 1 085 kr", ["1 085 kr"], id="a-time-range-is-no-amount"),
    pytest.param("I'll be there at 18.00 and leave at 23.30.", [], id="clock-times-are-no-amounts"),
    pytest.param("Kita neu bis 18.00 Uhr geöffnet", [], id="a-time-in-uhr"),
    pytest.param("Invoice total: $4.11 (line $1.87)", ["$4.11", "$1.87"], id="dollars-as-before"),
    pytest.param("TOTAL PAID R1 180,00 (call-out R350,00)", ["R1 180,00", "R350,00"], id="rand-with-cents"),
    pytest.param("Sipho is R320 a day now (was R300.)", ["R320 a day", "R300"], id="rand-without-cents"),
    pytest.param("Tyres 205/60R16 x4 and 205/55 R16 91V, gas R410A, block R 12", [],
                 id="tyres-a-refrigerant-a-block-are-no-rand"),
    pytest.param("Sum insured: ₹10,00,000; paid 12,34,567.89", ["₹10,00,000", "12,34,567.89"], id="lakhs"),
])
def test_amounts_in_the_ways_they_are_written(text, amounts):
    assert [m.group(0).rstrip(".") if m.group(0).endswith("kr.") else m.group(0)
            for m in AMOUNT.finditer(text)] == amounts


@pytest.mark.parametrize("text, times", [
    ("I'll be there at 18.00 on Saturday.", ["18.00"]),
    ("Neu bis 18.00 Uhr (bisher 18.30 Uhr).", ["18.00", "18.30"]),
    ("Service booked 08.00-10.00.", ["08.00-10.00"]),   # a range of hours is read whole
    ("Entry costs 17.30 per person.", []),
])
def test_a_clock_time_with_a_dot_is_a_time_where_the_words_say_so(text, times):
    assert [m.group(0) for m in TIME.finditer(text)] == times


@pytest.mark.parametrize("line, value", [
    ("Total inkl. MWST 298.-", 298.0),
    ("Total incl. moms 4 150,00", 4150.0),
    ("Totalt att betala: 6 480,00 kr", 6480.0),
    ("Endbetrag CHF 1'327.80", 1327.80),
    ("TOTAL DUE R3 640,00", 3640.0),
    ("Total Rs. 1,23,456.50", 123456.50),
])
def test_an_invoice_total_is_read_whole(line, value):
    values = [parse_amount(m, CFG.ingest.invoice) for m in amount_pattern(CFG.ingest.invoice).finditer(line)]
    assert (value, values[-1][1]) in [v for v in values if v]


def test_an_hourly_rate_written_after_a_slash_answers_how_much_an_hour():
    text = ("Yes, Saturday works, I'll be there at 18.00. I've gone up to 170 kr/h since the autumn.\n"
            "Will the little one be in bed by 19.30?")
    assert answer_of(text, "how much does the babysitter charge an hour now", "amount").shown == "170 kr/h"


def test_a_table_of_bare_amounts_with_one_marked_line_answers_with_its_total():
    # Swedish invoices write the rows bare and the VAT line with "kr": the total is still
    # the total, not the one amount that carries a currency.
    text = ("Service 100 000 km 4 690,00\nEngine oil and filter 935,00\nTotal 6 215,00\n"
            "Of which moms 1 243,00 kr. Pay to Bankgiro 5311-2045.")
    assert answer_of(text, "how much was the garage bill", "amount").shown == "6 215,00"


@pytest.mark.parametrize("a, b, same", [
    ("Fr. 145.–", "145.00", True), ("CHF 1'327.80", "1327.8", True), ("2 150 kr", "2150", True),
    ("2 150 kr", "2 690 kr", False),
])
def test_amounts_are_compared_by_value(a, b, same):
    assert same_value(a, b, "amount") is same
    assert amount_value(a) is not None


def test_a_sign_in_front_of_the_next_column_is_not_this_amounts():
    assert [m.group(0) for m in AMOUNT.finditer("Roof replacement 1 $14,850.00 $14,850.00")] == \
        ["$14,850.00", "$14,850.00"]
    assert [m.group(0) for m in AMOUNT.finditer("Nursery, week 13 £66.50")] == ["£66.50"]


def test_the_currency_pattern_is_the_same_in_every_process():
    # The configuration's key names the published index: a pattern built in set order
    # would differ between processes and make every reader rebuild it.
    import os
    import subprocess
    import sys
    code = "from brainquery.config import load_config; print(load_config().answer.currency_mark)"
    patterns = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                               env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2, 3)}
    assert len(patterns) == 1


@pytest.mark.parametrize("text, amount", [
    ("Leonie charges CHF 22 an hour.", "CHF 22 an hour"),
    ("Wir zahlen ihr 35 Franken pro Stunde.", "35 Franken pro Stunde"),
    ("Camp is €60 per child per week.", "€60 per child"),
])
def test_a_rate_written_in_words_keeps_its_unit(text, amount):
    assert [m.group(0) for m in AMOUNT.finditer(text)] == [amount]
