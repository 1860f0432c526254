"""Invoice and receipt detection and field extraction, from text and from e-invoice XML."""
from __future__ import annotations

from datetime import timezone

import pytest

from ingest.invoice import (
    InvoiceInfo,
    amount_pattern,
    analyse,
    find_total,
    find_vendor,
    from_einvoice_xml,
    parse_amount,
)

UTC = timezone.utc

HVAC_INVOICE = """\
Comfort Heating & Air LLC
12 Main Street, Springfield

INVOICE
Invoice Number: INV-20931
Invoice Date: March 14, 2023
Date of Service: March 9, 2023
Due Date: April 13, 2023

Bill To: Jane Doe, 4 Elm Road

Description                                   Qty    Unit Price    Amount
Replace water heater, model XG40T06HE40U0      1      $1,450.00    $1,450.00
16x25x4 MERV 11 filter                         2      $39.99       $79.98
Labor                                          3      $95.00       $285.00

Subtotal                                                           $1,814.98
Sales Tax                                                          $72.60
Total Due                                                          $1,887.58

Thank you for your business. Comfort Heating & Air LLC
"""

GERMAN_INVOICE = """\
Muster Elektro GmbH · Hauptstr. 5 · 10115 Berlin
Rechnung
Rechnungsnummer: RE-2021-0042          Rechnungsdatum: 7. Mai 2021
Leistungsdatum: 03.05.2021
Pos.  Bezeichnung                  Menge   Einzelpreis   Gesamt
1     Durchlauferhitzer DEX 18     1       489,00 €      489,00 €
2     Montage                      2       65,00 €       130,00 €
Summe netto                                             619,00 €
zzgl. 19% MwSt.                                         117,61 €
Gesamtbetrag                                            736,61 €
Zahlbar bis 21.05.2021. Muster Elektro GmbH, Amtsgericht Berlin
"""

FRENCH_INVOICE = """\
ALEXINUX
  Facture n° 2022089083
    Date : 28/11/2022
Désignation Nombre P.U. HT Montant HT
  Justificatif PDF 1 0,75 € 0,75 €
Total HT : 46,68 €
TVA 20% : 9,34 €
Total TTC : 56,02 €
"""

DUTCH_INVOICE = """\
FACTUUR.
Factuurnummer:     993548900
Factuurdatum:    19 april 2014
Orderdatum: 18 april 2014
Artikel                              Aantal     Prijs per stuk    BTW   Prijs incl. BTW
Apple iPad Air Wifi 16 GB Zilver       1          € 399,00         21%   € 399,00
Subtotaal € 399,00
BTW 21% € 69,25
Totaal € 399,00
"""

GERMAN_RECEIPT = """\
REWE Markt GmbH
Muster-Str. 1, 12345 Musterstadt
                    EUR
KARTOFFELN          2,99 B
QUARK               0,49 B
----------------------------
SUMME        EUR    3,48
Geg. BAR     EUR    5,00
Rückgeld BAR EUR    1,52
      * * Kundenbeleg * *
Datum:             01.01.2020
Terminal-ID        88888888
  12.01.2020     12:00     Bon-Nr.: 9999
Vielen Dank für Ihren Einkauf!
"""

ENGLISH_RECEIPT = """\
Corner Hardware Store
SALES RECEIPT
05/21/2022 14:32
1 x Garden hose 50ft        24.99
1 x Hose nozzle              7.49
SUBTOTAL                    32.48
TAX                          2.60
TOTAL                       35.08
VISA ****1234               35.08
Auth code 00123   Thank you for shopping!
"""

# What tesseract reads from a supermarket app's receipt screenshot (OCR noise included).
OCR_RECEIPT = """\
L¢DL
Dragonerstrake 39
36163 Hannover

Bonkopie
EUR
Frucht. Pfirsichring 1,04 A
zu zahlen 1,04
Kreditkarte 1,04
MwSt% MwSt + Netto = Brutto
A 5% @,05 @,99 1,04
7152 176394/04 13.08.20 13:41
UST-ID-NR: 813388987
VIELEN DANK FUR DEINEN EINKAUF!
"""

POSITIVE = [
    pytest.param(HVAC_INVOICE, "", dict(
        kind="invoice", number="INV-20931", total=1887.58, currency="USD",
        invoice_date="2023-03-14", service_date="2023-03-09", due_date="2023-04-13",
        date_source="invoice_date", vendor="Comfort Heating & Air LLC"), id="en-hvac-invoice"),
    pytest.param(GERMAN_INVOICE, "", dict(
        kind="invoice", number="RE-2021-0042", total=736.61, currency="EUR",
        invoice_date="2021-05-07", service_date="2021-05-03", due_date="2021-05-21",
        vendor="Muster Elektro GmbH"), id="de-rechnung"),
    pytest.param(FRENCH_INVOICE, "", dict(
        kind="invoice", number="2022089083", total=56.02, currency="EUR",
        invoice_date="2022-11-28"), id="fr-facture-ttc-not-ht"),
    pytest.param(DUTCH_INVOICE, "", dict(
        kind="invoice", number="993548900", total=399.0, currency="EUR",
        invoice_date="2014-04-19"), id="nl-factuur"),
    pytest.param(GERMAN_RECEIPT, "", dict(
        kind="receipt", number="9999", total=3.48, currency="EUR",
        invoice_date="2020-01-12T12:00:00", date_source="printed_date"),
        id="de-kassenbon-till-stamp-not-card-slip"),
    pytest.param(ENGLISH_RECEIPT, "", dict(
        kind="receipt", total=35.08, invoice_date="2022-05-21T14:32:00"), id="en-sales-receipt"),
    pytest.param("Receipt\nApple ID: jane@example.com\nDate: 12 Mar 2023\nOrder ID: MK3X9Q2P1\n"
                 "iCloud+ 50GB  Monthly  \u20ac0.99\nSubtotal \u20ac0.83\nVAT 19% \u20ac0.16\n"
                 "TOTAL \u20ac0.99\n", "Your receipt from Apple.", dict(
                     kind="receipt", number="MK3X9Q2P1", total=0.99, currency="EUR",
                     invoice_date="2023-03-12", items=("iCloud+ 50GB Monthly",)),
                 id="email-receipt-plain-text"),
    pytest.param(OCR_RECEIPT, "", dict(
        kind="receipt", total=1.04, currency="EUR", invoice_date="2020-08-13T13:41:00",
        items=("Frucht. Pfirsichring",)), id="ocr-bonkopie"),
    pytest.param("Room 1 night   Rs 1939\nGrand Total   Rs 1939\nPayment received, paid in cash\n"
                 "Date: 31/12/2017\nGSTIN 06AABCO6063D1ZQ tax included",
                 "Tax Invoices - payment voucher",
                 dict(kind="invoice", total=1939.0, currency="INR", invoice_date="2017-12-31"),
                 id="title-names-the-kind"),
    pytest.param("Thanks for your order, Sam!\n\nOrder number HW-51220 · Order date 03/06/2025\n\n"
                 "Item Qty Price\n\nBrookfield DW-6 dishwasher, stainless 1 $649.00\n\n"
                 "Delivery and haul-away 1 $40.00\n\nTotal paid (incl. tax) $689.00\n",
                 "Order confirmed: HW-51220",
                 dict(kind="receipt", total=689.0, currency="USD"), id="shop-order-confirmation"),
    pytest.param("Thank you for buying from Lakeside Motors\n\nSales invoice LM-24-0031 · Invoice date "
                 "20/05/2024\n\nPrice $18,400.00\n\nTrade-in -$3,000.00\n\nBalance paid $15,400.00\n",
                 "Your purchase", dict(kind="invoice", total=15400.0), id="balance-paid-is-the-total"),
    # A small trader's receipt names few fields (no "subtotal", "VAT", "paid"), but its lines
    # add up to its total: the bill's own arithmetic.
    pytest.param("HARBOUR CHIMNEY CARE\nMick Doyle - 087 555 0101\nRECEIPT HC-0412\n"
                 "Date of service: 12/04/2026\nWork done Amount\nFlue sweep and cowl check $140.00\n"
                 "Bird guard fitted $35.50\nTotal $175.50\nNext sweep due: April 2027\n", "",
                 dict(kind="receipt", total=175.5), id="small-trader-receipt-adds-up"),
    pytest.param("Invoice TB-881\n\nGarden tidy, 2 visits        $180.00\nGreen waste removal        $45.00\n"
                 "Total (incl GST)        $225.00\n\nTom's Gardens - 021 555 0177\n", "Invoice TB-881",
                 dict(kind="invoice", total=225.0), id="emailed-invoice-adds-up"),
    # India: a gas agency's cash memo, a school's fee receipt paid by bank transfer.
    pytest.param("SHREE LAKSHMI GAS AGENCY\nCASH MEMO No. 31407\nDate: 11/10/2024\nItem Qty Amount (Rs.)\n"
                 "Domestic LPG refill 14.2 kg 1 805.50\nTotal (incl. GST 5%) Rs. 805.50\n", "",
                 dict(kind="receipt", total=805.5, currency="INR", invoice_date="2024-10-11"), id="cash-memo"),
    pytest.param("FEE RECEIPT NV/FR/25-26/3317\nDate: 20/12/2025\nStudent Class Head Amount (Rs.)\n"
                 "Diya Kulkarni 7 B Tuition fee - Term 3 46,200\nAarav Kulkarni 3 A Tuition fee - Term 3 41,800\n"
                 "Total Rs. 88,000\nMode of payment: NEFT (UTR SBIN525354000871).\n", "",
                 dict(kind="receipt", total=88000.0, invoice_date="2025-12-20"), id="fee-receipt-paid-by-neft"),
]


@pytest.mark.parametrize("text, title, expected", POSITIVE)
def test_analyse_reads_invoices_and_receipts(ingest_config, text, title, expected):
    info = analyse(text, ingest_config, UTC, title=title)
    assert info is not None
    for field, want in expected.items():
        got = getattr(info, field)
        if field.endswith("_date"):
            got = got.replace(tzinfo=None).isoformat().removesuffix("T00:00:00")
        assert got == want, field


NEGATIVE = [
    pytest.param("Hi Bob,\n\nI paid the plumber's invoice yesterday, the total was $450.00. "
                 "Dinner on Friday?\n\nLove, Ann", "Re: plumber", id="personal-mail-about-an-invoice"),
    pytest.param("Booking confirmation\nHotel Seeblick, 2 nights\nCheck-in: 12 May 2024\n"
                 "Total price: €240.00\nPaid by card. A receipt will be sent at check-out.",
                 "Your booking confirmation", id="booking-confirmation"),
    pytest.param("Quotation Q-1021\nDate: 2023-03-01\nReplace water heater  $1,450.00\n"
                 "Total  $1,450.00\nThis quote is valid for 30 days. Invoice follows on completion.",
                 "Quote", id="quotation"),
    pytest.param("FEDERAL REGISTER Vol. 85\nDepartment of Transportation\nThe total cost of "
                 "compliance is estimated at $2,400,000.00 for 120 airplanes. Operators must "
                 "retain each invoice for tax purposes.", "", id="government-report"),
    pytest.param("SPECIAL BOARD MEETING AGENDA April 6, 2016\n1. Call to order\n"
                 "2. Budget: total $1,200.00", "", id="agenda"),
    pytest.param("Weekly newsletter\nIn this issue: our invoice tool is 20% off! Total savings "
                 "$30.00\nUnsubscribe", "", id="newsletter"),
    pytest.param("Your order HW-51220 has shipped! Track it with the link below. Order number "
                 "HW-51220, 2 items.", "Your order is on its way", id="shipping-note-states-no-total"),
    # Lines that do not add up to the total earn the receipt nothing ("quote" aside).
    pytest.param("RECEIPT HC-0412\nFlue sweep $140.00\nBird guard $35.50\nTotal $180.00\n", "",
                 id="self-named-receipt-whose-lines-do-not-add-up"),
    pytest.param("", "", id="empty"),
    pytest.param("Invoice", "Invoice", id="a-word-is-not-an-invoice"),
]


@pytest.mark.parametrize("text, title", NEGATIVE)
def test_analyse_rejects_look_alikes(ingest_config, text, title):
    assert analyse(text, ingest_config, UTC, title=title) is None


def test_items_sizes_and_model_numbers(ingest_config):
    info = analyse(HVAC_INVOICE, ingest_config, UTC)
    assert "16x25x4 MERV 11 filter" in info.items
    assert any("water heater" in item for item in info.items)
    assert info.item_sizes == ("16x25x4",)
    assert "XG40T06HE40U0" in info.model_numbers
    assert not any(item.lower().startswith(("subtotal", "total", "sales tax")) for item in info.items)


def test_meta_is_flat_and_omits_empty_fields(ingest_config):
    meta = analyse(HVAC_INVOICE, ingest_config, UTC).meta()
    assert meta["invoice_number"] == "INV-20931"
    assert meta["invoice_date"].startswith("2023-03-14")
    assert meta["service_date"].startswith("2023-03-09")
    assert meta["invoice_total"] == 1887.58
    assert meta["item_sizes"] == "16x25x4"
    assert "XG40T06HE40U0" in meta["model_numbers"]
    assert "; " in meta["invoice_items"]
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
    assert InvoiceInfo(kind="receipt").meta() == {}


def test_dates_are_floating_in_the_given_zone(ingest_config):
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("Europe/Berlin")
    info = analyse(GERMAN_INVOICE, ingest_config, zone)
    assert info.invoice_date.tzinfo is zone and info.date_floating


@pytest.mark.parametrize("line, total", [
    pytest.param("Total: $74.35 (incl. sales tax $3.88)", 74.35, id="remark-in-parentheses"),
    pytest.param("Total $74.35, VAT $3.88", 74.35, id="tax-after-total"),
    pytest.param("Total € Incl. VAT 681.87", 681.87, id="tax-words-before-the-only-amount"),
    pytest.param("Total 1 278.61 40.39 319.00", 319.0, id="table-row-last-column"),
    pytest.param("Total HT : 46,68 €\nTotal TTC : 56,02 €", 56.02, id="net-total-skipped"),
    pytest.param("TOTAL HT    TOTAL TVA    TOTAL TTC\n100,00      10,00        110,00", 110.0,
                 id="column-header-over-values"),
])
def test_find_total(ingest_config, line, total):
    assert find_total(line, ingest_config.invoice)[0] == total


@pytest.mark.parametrize("text, value, currency", [
    pytest.param("1.005,55 EUR", 1005.55, "EUR", id="german-thousands"),
    pytest.param("$1,005.55", 1005.55, "USD", id="english-thousands"),
    pytest.param("963,12 €", 963.12, "EUR", id="comma-decimal-symbol-after"),
    pytest.param("$4.11", 4.11, "USD", id="dollar"),
    pytest.param("Rs 1939", 1939.0, "INR", id="rupees-integer"),
    pytest.param("CHF 1'234.50", 1234.5, "CHF", id="swiss-apostrophe"),
    pytest.param("£ -9,32", -9.32, "GBP", id="negative"),
    pytest.param("319.00", 319.0, "", id="no-currency"),
])
def test_amounts(ingest_config, text, value, currency):
    match = amount_pattern(ingest_config.invoice).search(text)
    assert parse_amount(match, ingest_config.invoice) == (value, currency)


@pytest.mark.parametrize("text", [
    pytest.param("2014", id="bare-year"), pytest.param("19%", id="percent"),
])
def test_not_amounts(ingest_config, text):
    matches = amount_pattern(ingest_config.invoice).finditer(text)
    assert all(parse_amount(m, ingest_config.invoice) is None for m in matches)


CII = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
 <rsm:ExchangedDocument><ram:ID>F20180027</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20181231</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem><ram:SpecifiedTradeProduct>
   <ram:SellerAssignedID>XG40T06</ram:SellerAssignedID><ram:Name>Water heater</ram:Name>
  </ram:SpecifiedTradeProduct></ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>LE FOURNISSEUR</ram:Name>
  </ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeDelivery><ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime>
   <udt:DateTimeString format="102">20181230</udt:DateTimeString></ram:OccurrenceDateTime>
  </ram:ActualDeliverySupplyChainEvent></ram:ApplicableHeaderTradeDelivery>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime>
    <udt:DateTimeString format="102">20190130</udt:DateTimeString></ram:DueDateDateTime>
   </ram:SpecifiedTradePaymentTerms>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:GrandTotalAmount>110.00</ram:GrandTotalAmount><ram:DuePayableAmount>100.00</ram:DuePayableAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"""

ZUGFERD1 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
 <rsm:HeaderExchangedDocument><ram:ID>2014-03</ram:ID>
  <ram:IssueDateTime><udt:DateTimeString format="102">20140711</udt:DateTimeString></ram:IssueDateTime>
 </rsm:HeaderExchangedDocument>
 <rsm:SpecifiedSupplyChainTradeTransaction>
  <ram:ApplicableSupplyChainTradeAgreement><ram:SellerTradeParty><ram:Name>Kraxi GmbH</ram:Name>
  </ram:SellerTradeParty></ram:ApplicableSupplyChainTradeAgreement>
  <ram:ApplicableSupplyChainTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementMonetarySummation>
    <ram:GrandTotalAmount currencyID="EUR">1005.55</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementMonetarySummation>
  </ram:ApplicableSupplyChainTradeSettlement>
 </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>"""

UBL = b"""<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
 <cbc:ID>XR-77</cbc:ID><cbc:IssueDate>2023-06-01</cbc:IssueDate><cbc:DueDate>2023-07-01</cbc:DueDate>
 <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
 <cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity>
  <cbc:RegistrationName>Stadtwerke Beispiel GmbH</cbc:RegistrationName>
 </cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
 <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">84.20</cbc:PayableAmount></cac:LegalMonetaryTotal>
 <cac:InvoiceLine><cac:Item><cbc:Name>Strom Juni</cbc:Name></cac:Item></cac:InvoiceLine>
</Invoice>"""


@pytest.mark.parametrize("xml, expected", [
    pytest.param(CII, dict(number="F20180027", vendor="LE FOURNISSEUR", total=110.0, currency="EUR",
                           invoice_date="2018-12-31", service_date="2018-12-30",
                           due_date="2019-01-30", items=("XG40T06 Water heater",)), id="factur-x"),
    pytest.param(ZUGFERD1, dict(number="2014-03", vendor="Kraxi GmbH", total=1005.55, currency="EUR",
                                invoice_date="2014-07-11"), id="zugferd-1"),
    pytest.param(UBL, dict(number="XR-77", vendor="Stadtwerke Beispiel GmbH", total=84.2,
                           currency="EUR", invoice_date="2023-06-01", due_date="2023-07-01",
                           items=("Strom Juni",)), id="xrechnung-ubl"),
])
def test_einvoice_xml(xml, expected):
    info = from_einvoice_xml(xml, UTC)
    assert info.kind == "invoice" and info.date_source == "einvoice_xml" and info.date_floating
    for field, want in expected.items():
        got = getattr(info, field)
        if field.endswith("_date"):
            got = got.date().isoformat()
        assert got == want, field


@pytest.mark.parametrize("xml", [
    pytest.param(b"not xml at all", id="garbage"),
    pytest.param(b"<?xml version='1.0'?><x:xmpmeta xmlns:x='adobe:ns:meta/'/>", id="other-xml"),
    pytest.param(b"", id="empty"),
])
def test_einvoice_xml_rejects_other_files(xml):
    assert from_einvoice_xml(xml, UTC) is None


_BOTH_KINDS = "PAYMENT RECEIPT\nDate: 31/12/2017\nRoom 1 night  Rs 1939\nGrand Total  Rs 1939\n" \
              "Paid in cash. Ask the hotel for an invoice at check-out. Tax included.\n"


@pytest.mark.parametrize("extra, kind", [
    pytest.param("Bank Name  HDFC Bank\nAccount No. 000303400\nIFSC CODE HDFC0000003\nGSTIN 06AABCO6063D1ZQ",
                 "invoice", id="bank-details-make-an-invoice"),
    pytest.param("Cashier: 4  Terminal 2\nChange Rs 61\nThank you for shopping", "receipt",
                 id="till-details-make-a-receipt"),
])
def test_kind_when_the_head_names_both(ingest_config, extra, kind):
    assert analyse(_BOTH_KINDS + extra, ingest_config, UTC).kind == kind


@pytest.mark.parametrize("text, vendor", [
    pytest.param("DRIPSEY MOTOR WORKS\nDripsey, Co. Cork · 026 555 0144\nINVOICE DMW-INV-23-0627\n"
                 "Total (incl. VAT) €315.00\n", "DRIPSEY MOTOR WORKS", id="a-county-is-no-company"),
    pytest.param("Cedar Creek Animal Hospital\n2200 Oak Road, Alder Falls\nReceipt R-230508-0127\nTotal $212.00\n",
                 "Cedar Creek Animal Hospital", id="a-letterhead-without-a-legal-form"),
    pytest.param("de Lattre Alexis\n12 rue des Lilas\nFacture 2022089083\nTotal TTC : 56,02 €\n", "",
                 id="a-customer-block-is-no-letterhead"),
    pytest.param("Tax Invoice\nKC-INV-88412\nTotal $1,149.00\n", "", id="what-the-document-is-names-no-one"),
])
def test_the_vendor_is_the_business_that_heads_the_page(ingest_config, text, vendor):
    assert find_vendor(text, ingest_config.invoice) == vendor
