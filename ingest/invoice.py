"""Invoices and receipts: is this text one, and what does it say (who, number, dates, total).

A text is an invoice or receipt when it *names itself* one (in its title or its first
lines: "Invoice", "Rechnung", "Facture", "Kassenbon"), states a labelled total with an
amount, and its cue score reaches `[invoice].threshold`. Requiring all three keeps out
what merely talks about money: personal mail, booking confirmations, government reports.

Structured e-invoices (ZUGFeRD / Factur-X / XRechnung XML) are read field by field by
`from_einvoice_xml`; the PDF ingestor prefers them to anything printed.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import re
import xml.etree.ElementTree as ElementTree
from datetime import datetime, tzinfo
from typing import Iterable, Sequence

from .config import IngestConfig, InvoiceSection
from .dates import make_aware
from .money import currency_alternation, currency_initials, normalise_number
from .printed_dates import PrintedDate, find_dates, find_labelled, label_pattern, labels_pattern
from . import text_lines

Scalar = str | int | float | bool
_TITLE_WORD = re.compile(r"[^\W_]+")


@dataclasses.dataclass(frozen=True)
class InvoiceInfo:
    kind: str                        # "invoice" | "receipt"
    vendor: str = ""
    number: str = ""
    invoice_date: datetime | None = None
    service_date: datetime | None = None
    due_date: datetime | None = None
    total: float | None = None
    currency: str = ""
    items: tuple[str, ...] = ()
    date_floating: bool = False
    date_source: str = ""            # "einvoice_xml", "invoice_date", "printed_date"

    @property
    def item_sizes(self) -> tuple[str, ...]:
        return _unique(size for item in self.items for size in sizes_in(item))

    @property
    def model_numbers(self) -> tuple[str, ...]:
        return _unique(model for item in self.items for model in models_in(item))

    def title(self, cfg: InvoiceSection) -> str:
        """"Invoice N — Vendor" when both were found, else ""."""
        if not (self.number and self.vendor):
            return ""
        kind = cfg.kind_names.get(self.kind, self.kind.capitalize())
        return cfg.title_format.format(kind=kind, number=self.number, vendor=self.vendor)

    def named_by(self, title: str) -> bool:
        """Whether `title` already names this invoice's number or its vendor (one of the
        vendor's longer words: "Comfort Heating service" names "Comfort Heating & Air LLC")."""
        folded = title.casefold()
        if self.number and self.number.casefold() in folded:
            return True
        words = set(_TITLE_WORD.findall(folded))
        return any(w in words for w in _TITLE_WORD.findall(self.vendor.casefold()) if len(w) >= 4)

    def meta(self) -> dict[str, Scalar]:
        """Flat metadata (str/int/float/bool only); empty fields are left out."""
        values: dict[str, Scalar | None] = {
            "invoice_vendor": self.vendor,
            "invoice_number": self.number,
            "invoice_date": _iso(self.invoice_date),
            "service_date": _iso(self.service_date),
            "due_date": _iso(self.due_date),
            "invoice_total": self.total,
            "invoice_currency": self.currency,
            "invoice_items": "; ".join(self.items),
            "item_sizes": ", ".join(self.item_sizes),
            "model_numbers": ", ".join(self.model_numbers),
        }
        return {k: v for k, v in values.items() if v is not None and v != ""}


def analyse(text: str, config: IngestConfig, floating: tzinfo, title: str = "") -> InvoiceInfo | None:
    """The invoice/receipt in `text` (an email body, a PDF's text, OCR of a photo), or None
    when the text is not one."""
    cfg = config.invoice
    if not text or not text.strip():
        return None
    text = text.replace("\u00a0", " ").replace("\u202f", " ")
    head = text[: cfg.head_chars]
    # Cheapest test first: most texts (every email body) never name themselves a bill.
    invoice_id = _distinct(cfg.invoice_identity, f"{title}\n{head}")
    receipt_id = _distinct(cfg.receipt_identity, f"{title}\n{head}")
    if not (invoice_id or receipt_id):
        return None
    dates = find_dates(text, floating, rules=config.dates)
    masked = _mask(text, dates)
    found = _labelled_total(masked, cfg)
    total = found[:2] if found is not None else None
    if cfg.require_total and total is None:
        return None
    invoice_fields = min(cfg.field_cap, cfg.field_weight * len(_distinct(cfg.invoice_fields, text)))
    receipt_fields = min(cfg.field_cap, cfg.field_weight * len(_distinct(cfg.receipt_fields, text)))
    score = (cfg.identity_weight * len(invoice_id | receipt_id)
             + max(invoice_fields, receipt_fields)
             + (cfg.total_weight if total is not None else 0.0)
             + (cfg.itemised_weight if found is not None and _itemised(masked, found, cfg) else 0.0)
             + cfg.not_invoice_weight * len(_distinct(cfg.not_invoice_cues, f"{title}\n{head}")))
    if score < cfg.threshold:
        return None

    kind = _kind(title, head, cfg, receipt_fields - invoice_fields)
    date, date_source = _issue_date(text, kind, config, floating, dates)
    value, currency = total if total is not None else (None, "")
    return InvoiceInfo(
        kind=kind,
        vendor=find_vendor(text, cfg),
        number=find_number(text, cfg, dates),
        invoice_date=date.value if date else None,
        service_date=_labelled_value(text, config.dates.service_labels, floating, config,
                                     dates, exclude=config.dates.due_labels + config.dates.other_labels),
        due_date=_labelled_value(text, config.dates.due_labels, floating, config, dates,
                                 exclude=config.dates.other_labels),
        total=value,
        currency=currency or document_currency(text, cfg),
        items=find_items(text, cfg, dates),
        date_floating=bool(date and date.floating),
        date_source=date_source,
    )


def _kind(title: str, head: str, cfg: InvoiceSection, receipt_lead: float) -> str:
    """A title naming one kind decides (the author's own name for the document); then the
    head; then receipt field cues must lead the invoice field cues by receipt_margin."""
    for where in (title, head):
        invoice, receipt = _distinct(cfg.invoice_identity, where), _distinct(cfg.receipt_identity, where)
        if invoice and not receipt:
            return "invoice"
        if receipt and not invoice:
            return "receipt"
    return "receipt" if receipt_lead >= cfg.receipt_margin else "invoice"


def _issue_date(text: str, kind: str, config: IngestConfig, floating: tzinfo,
                dates: Sequence[PrintedDate]) -> tuple[PrintedDate | None, str]:
    """Receipts: the first date printed with its time (the till's stamp; a card slip's own
    "Datum:" line is not the purchase). Then the labelled issue date; then the first date."""
    if kind == "receipt":
        stamped = next((d for d in dates if d.has_time), None)
        if stamped is not None:
            return stamped, "printed_date"
    labelled = find_labelled(
        text, config.dates.issue_labels, floating, rules=config.dates, dates=dates,
        exclude=config.dates.due_labels + config.dates.service_labels + config.dates.other_labels,
    )
    if labelled is not None:
        return labelled[0], "invoice_date"
    if dates:
        return dates[0], "printed_date"
    return None, ""


def _labelled_value(text, labels, floating, config, dates, exclude=()) -> datetime | None:
    found = find_labelled(text, labels, floating, exclude=exclude, rules=config.dates, dates=dates)
    return found[0].value if found else None


# ---------------------------------------------------------------- amounts and totals

def find_total(text: str, cfg: InvoiceSection,
               dates: Sequence[PrintedDate] = ()) -> tuple[float, str] | None:
    """(amount, currency or "") of the first total label, in order of preference, that has
    an amount: the last amount on its line (tables put the gross total last), else an
    amount in its column just below it. Net totals ("Total HT", "Subtotal") never count."""
    found = _labelled_total(_mask(text, dates), cfg)
    return found[:2] if found is not None else None


def _labelled_total(masked: str, cfg: InvoiceSection) -> tuple[float, str, int] | None:
    """find_total's (amount, currency) and where its label's line starts."""
    blocked = [m.span() for label in cfg.net_total_labels for m in label_pattern(label).finditer(masked)]
    for label in cfg.total_labels:
        for match in label_pattern(label).finditer(masked):
            if any(s < match.end() and match.start() < e for s, e in blocked):
                continue
            found = _amounts_on_line(masked, match.end(), cfg)
            found = found[-1] if found else _amount_below(masked, match, cfg)
            if found is not None:
                return (*found, text_lines.line_start(masked, match.start()))
    return None


def _itemised(masked: str, total: tuple[float, str, int], cfg: InvoiceSection) -> bool:
    """Whether the lines just above the total state amounts that add up to it: a bill's
    own arithmetic, which a small trader's receipt shows when it names few other fields.
    Each line counts its last amount (the line's own total after a quantity and a price)."""
    amount, _, line_start = total
    added, items, end = 0.0, 0, line_start
    for _ in range(cfg.itemised_lines):
        if end <= 0:
            return False
        start = text_lines.line_start(masked, end - 1)
        on_line = _amounts_on_line(masked, start, cfg)
        end = start
        if not on_line:
            continue
        added, items = added + on_line[-1][0], items + 1
        if items >= cfg.itemised_min_items and abs(added - amount) < cfg.itemised_tolerance:
            return True
        if added > amount + cfg.itemised_tolerance:
            return False
    return False


def _amounts_on_line(text: str, pos: int, cfg: InvoiceSection) -> list[tuple[float, str]]:
    """Amounts after `pos` on its line, without remarks: none inside parentheses ("$74.35
    (incl. sales tax $3.88)"), none named as tax after a first amount ("$74.35, VAT $3.88")."""
    line = text[pos:text_lines.line_end(text, pos)]
    line = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), line)
    tax = _cue_union(cfg.tax_cues)
    amounts: list[tuple[float, str]] = []
    previous_end = 0
    for match in amount_pattern(cfg).finditer(line):
        found = parse_amount(match, cfg)
        if found is None:
            continue
        if amounts and tax.search(line, previous_end, match.start()):
            break
        amounts.append(found)
        previous_end = match.end()
    return amounts


def _amount_below(text: str, label: re.Match, cfg: InvoiceSection) -> tuple[float, str] | None:
    """An amount in the label's column on one of the next `rows_below` non-blank lines (a
    table header "TOTAL TTC" over "110,00")."""
    line_start = text.rfind("\n", 0, label.start()) + 1
    centre = (label.start() + label.end()) / 2 - line_start
    reach = (label.end() - label.start()) / 2 + cfg.column_slack
    end = text_lines.line_end(text, label.end())
    for _ in range(cfg.rows_below):
        start, end = text_lines.next_line(text, end)
        if start is None:
            return None
        aligned = []
        for match in amount_pattern(cfg).finditer(text, start, end):
            offset = abs((match.start() + match.end()) / 2 - start - centre)
            found = parse_amount(match, cfg)
            if found is not None and offset <= reach + (match.end() - match.start()) / 2:
                aligned.append((offset, found))
        if aligned:
            return min(aligned, key=lambda pair: pair[0])[1]
    return None


def amount_pattern(cfg: InvoiceSection) -> re.Pattern:
    """Money: a number with decimals, or any number beside a currency symbol or code."""
    return _amount_pattern(tuple(cfg.currency_symbols), cfg.currency_codes, tuple(cfg.currencies_attached))


@functools.lru_cache(maxsize=8)
def _amount_pattern(symbols: tuple[str, ...], codes: tuple[str, ...], attached: tuple[str, ...] = ()) -> re.Pattern:
    currencies = tuple(symbols) + tuple(codes)
    alternation = currency_alternation(currencies, attached)
    # Thousands grouped by a comma, dot, apostrophe or space ("6 480,00 kr", "CHF 1'327.80").
    # Cents, or a dash for none ("Total 298.-", as Swiss bills write whole francs).
    cents = r"(?:[.,]\d{1,2}(?!\d)|[.,][-–]{1,2}(?![\w-]))"
    # ... and in lakhs, as India groups them ("10,00,000", "1,23,456.50").
    number = (rf"[-−]?\d{{1,2}}(?:,\d{{2}})+,\d{{3}}{cents}?(?!\d)|"
              rf"[-−]?\d{{1,3}}(?:[.,'’ \u00a0\u202f]\d{{3}})+{cents}?(?!\d)|[-−]?\d+{cents}?(?!\d)")
    # A match starts with a currency or the number: saying so up front spares trying every
    # currency at every position of a text.
    return re.compile(
        rf"(?=[\d−-]|{currency_initials(currencies)})"
        rf"(?:(?P<cur1>{alternation})[ \t]?(?<![\d.,'’])|(?<![\w.,'’]))(?P<num>{number})(?![.,]?\d)(?![ \t]?%)"
        rf"(?:[ \t]?(?P<cur2>{alternation})(?![ \t]?\d))?"   # not the next amount's sign
    )


def parse_amount(match: re.Match, cfg: InvoiceSection) -> tuple[float, str] | None:
    raw = match["num"].replace("−", "-")
    currency = match["cur1"] or match["cur2"] or ""
    has_decimals = re.search(r"[.,](?:\d{1,2}|[-–]{1,2})$", raw) is not None
    if not currency and not has_decimals:
        return None
    try:
        value = float(normalise_number(raw))
    except ValueError:
        return None
    return value, _currency_code(currency, cfg)


def _currency_code(token: str, cfg: InvoiceSection) -> str:
    if not token:
        return ""
    return cfg.currency_symbols.get(token, token.upper() if token.upper() in cfg.currency_codes else "")


def document_currency(text: str, cfg: InvoiceSection) -> str:
    """The currency named most often in the text, or "" when none is."""
    counts: collections.Counter[str] = collections.Counter()
    for match in amount_pattern(cfg).finditer(text):
        code = _currency_code(match["cur1"] or match["cur2"] or "", cfg)
        if code:
            counts[code] += 1
    # A symbol alone ("Total € incl. VAT") names the currency too; letters ("Rs") only
    # count beside an amount, above.
    for symbol, code in cfg.currency_symbols.items():
        if not any(ch.isalpha() for ch in symbol):
            counts[code] += text.count(symbol)
    for code in cfg.currency_codes:
        counts[code] += len(re.findall(rf"(?<![^\W\d_]){code}(?![^\W\d_])", text))
    return counts.most_common(1)[0][0] if counts and counts.most_common(1)[0][1] else ""


# ---------------------------------------------------------------- number, vendor, items

_NUMBER_AFTER_LABEL = re.compile(
    r"[ \t]*(?:(?:no|nr|n|num|number)\b\.?)?[ \t:#°º.]*(?P<num>[A-Za-z0-9][A-Za-z0-9_\-/.]*[A-Za-z0-9])"
)


def find_number(text: str, cfg: InvoiceSection, dates: Sequence[PrintedDate] = ()) -> str:
    """The invoice/receipt number: the token after the first number label that has one
    (a token with a digit that is not a date), on its line or under it."""
    masked = _mask(text, dates)
    for label in cfg.number_labels:
        for match in label_pattern(label).finditer(masked):
            token = _number_at(masked, match.end())
            if token is None:
                token = _number_below(masked, match)
            if token:
                return token
    return ""


def _number_at(text: str, pos: int) -> str | None:
    found = _NUMBER_AFTER_LABEL.match(text, pos)
    if not found or "\n" in text[pos:found.start("num")]:
        return None
    token = found["num"].rstrip(".")
    return token if _is_identifier(token) else None


def _number_below(text: str, label: re.Match) -> str | None:
    """A value in the column under a column-header label ("Booking ID" over "IBZY2087")."""
    line_end = text_lines.line_end(text, label.end())
    if not _COLUMN_END.match(text, label.end()):
        return None
    start, end = text_lines.next_line(text, line_end)
    if start is None:
        return None
    column = label.start() - (text.rfind("\n", 0, label.start()) + 1)
    for token in re.finditer(r"\S+", text[start:end]):
        if abs(token.start() - column) <= len(label.group(0)) and _is_identifier(token.group(0)):
            return token.group(0)
    return None


# A label that heads a column: nothing after it on its line, or a wide gap.
_COLUMN_END = re.compile(r"[ \t:#]*(?:$|[ \t]{2,})", re.MULTILINE)
_IDENTIFIER_MIN_CHARS = 3  # "RE1001", "2014-03": shorter tokens are counters, not numbers


def _is_identifier(token: str) -> bool:
    # Searched in text with its dates blanked, so a date is never taken for a number.
    return len(token) >= _IDENTIFIER_MIN_CHARS and any(ch.isdigit() for ch in token)


def find_vendor(text: str, cfg: InvoiceSection) -> str:
    """Who issued it: a "sold by" label's value, else the company (named by its legal form)
    that the text repeats most (sellers print their name in letterhead and footer)."""
    for label in cfg.vendor_labels:
        for match in label_pattern(label).finditer(text):
            value = _column_value(text, match.end())
            if value:
                return value
    forms = "|".join(sorted((re.escape(f) for f in cfg.vendor_legal_forms), key=len, reverse=True))
    # "Co." before a place ("Dripsey, Co. Cork") is a county, not a company.
    legal = re.compile(rf"(?<!\w)(?:{forms})(?![^\W\d_])(?<!co\.(?=\s+(?-i:[A-Z][a-z])))", re.IGNORECASE)
    candidates: list[str] = []
    for line in text.splitlines():
        for segment in re.split(r"\s{3,}|\s[|·•–]\s|\s-\s", line):
            match = legal.search(segment)
            if not match or match.start() == 0:
                continue
            name = segment[: match.end()].strip(" ,;:")
            name = re.sub(r"^.*?:\s*", "", name) if ":" in name else name
            words = name.split()
            if 2 <= len(words) <= 6 and any(ch.isalpha() for ch in words[0]):
                candidates.append(name)
    if not candidates:
        return _letterhead(text, cfg)
    lowered = text.lower()
    return max(candidates, key=lambda c: (lowered.count(c.lower()), -candidates.index(c)))


_NAME_WORD = re.compile(r"[^\W\d_][^\W\d_'’.&-]*(?:['’.&-][^\W\d_]*)*['’.]?|&|-|–")


def _letterhead(text: str, cfg: InvoiceSection) -> str:
    """A small business names no legal form: its name heads the page ("DRIPSEY MOTOR
    WORKS", then its address). The first of the top lines that is a name of two to six
    capitalised words with no digits, and says nothing of what the document is."""
    identity = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in (*cfg.invoice_identity, *cfg.receipt_identity))
                          + r")\b", re.IGNORECASE)
    for line in [line.strip() for line in text.splitlines() if line.strip()][:cfg.letterhead_lines]:
        words = line.split()
        # A name: capitalised ("Cedar Creek Animal Hospital", "DRIPSEY MOTOR WORKS"), not a
        # customer's "de Lattre Alexis" or an address with its number.
        if (2 <= len(words) <= 6 and all(_NAME_WORD.fullmatch(w) for w in words) and not identity.search(line)
                and words[0][0].isupper() and all(w[0].isupper() for w in words if len(w) >= 4)):
            return line
    return ""


def _column_value(text: str, pos: int) -> str:
    """The value after "Label:" up to the next column gap; "" unless the label has a colon
    (a "seller" in running text is not a field)."""
    rest = text[pos:text_lines.line_end(text, pos)]
    if not rest.lstrip(" \t").startswith(":"):
        return ""
    value = re.split(r"\s{3,}", rest.lstrip(" \t:"), maxsplit=1)[0].strip(" ,;:")
    return value if any(ch.isalpha() for ch in value) else ""


_SIZE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)[\"”]?(?:\s?[x×]\s?(\d+(?:[.,]\d+)?)[\"”]?){2}(?![\w.])"
    r"|(?<![\w.])(\d+(?:[.,]\d+)?)[\"”]?[x×](\d+(?:[.,]\d+)?)[\"”]?(?![\w.])",
    re.IGNORECASE,
)
_MODEL = re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]*[A-Z0-9](?![\w-])")
_UNIT_TOKEN = re.compile(r"^\d+(?:[.,]\d+)?[A-Z]{1,3}$")


def sizes_in(text: str) -> list[str]:
    """Dimensions like 16x25x4 or 20"x25", normalised to "16x25x4"."""
    return [re.sub(r"[\s\"”]", "", m.group(0)).replace("×", "x").replace("X", "x")
            for m in _SIZE.finditer(text)]


# Shorter mixed tokens ("3DS", "A4", "B2") are product names and paper sizes, not models.
_MODEL_MIN_CHARS = 4


def models_in(text: str) -> list[str]:
    """Model/part numbers: upper-case tokens mixing letters and digits ("XG40T06HE40U0")."""
    sizes = set(sizes_in(text))
    return [m.group(0) for m in _MODEL.finditer(text)
            if len(m.group(0)) >= _MODEL_MIN_CHARS and m.group(0).lower() not in sizes
            and not _UNIT_TOKEN.match(m.group(0))]


def find_items(text: str, cfg: InvoiceSection, dates: Sequence[PrintedDate] = ()) -> tuple[str, ...]:
    """Item lines: a description with an amount after it, or any line naming a size or a
    labelled model; totals, taxes and payment lines are not items."""
    masked = _mask(text, dates)
    excluded = _cue_union(cfg.item_exclude_cues + cfg.total_labels + cfg.net_total_labels)
    model_label = _cue_union(cfg.model_labels)
    pattern = amount_pattern(cfg)
    items: list[str] = []
    for line in masked.splitlines():
        if excluded.search(line):
            continue
        description = ""
        amount = next((m for m in pattern.finditer(line) if parse_amount(m, cfg)), None)
        if amount is not None:
            description = _description(line[: amount.start()])
        if not description and (sizes_in(line) or model_label.search(line)):
            description = _description(line)
        # A long "description" is a sentence that mentions money, not an item.
        if description and len(description) <= cfg.item_max_chars \
                and re.search(r"[^\W\d_]{3,}", description):
            items.append(description)
        if len(items) >= cfg.max_items:
            break
    return _unique(items)


def _description(text: str) -> str:
    segments = [s.strip() for s in re.split(r"\s{2,}", text) if re.search(r"[^\W\d_]", s)]
    description = " ".join(segments)
    return re.sub(r"(?:\s+(?:\d+|x|×))+\s*$", "", description).strip(" :-*")


# ---------------------------------------------------------------- e-invoice XML

_CII_DATE = re.compile(r"^\s*(\d{4})(\d{2})(\d{2})")


def from_einvoice_xml(xml_bytes: bytes, floating: tzinfo) -> InvoiceInfo | None:
    """The invoice in ZUGFeRD / Factur-X (UN/CEFACT CII) or XRechnung/Peppol (UBL) XML, or
    None when the bytes are not such an invoice."""
    try:
        root = ElementTree.fromstring(xml_bytes)
    except (ElementTree.ParseError, ValueError):
        return None
    if _local(root.tag) in ("Invoice", "CreditNote"):
        return _from_ubl(root, floating)
    if "CrossIndustry" not in _local(root.tag):
        return None
    document = _first(root, "ExchangedDocument", "HeaderExchangedDocument")
    issued = _cii_date(_first(document, "IssueDateTime"), floating)
    settlement = _first(root, "ApplicableHeaderTradeSettlement", "ApplicableSupplyChainTradeSettlement")
    summation = _first(settlement, "SpecifiedTradeSettlementHeaderMonetarySummation",
                       "SpecifiedTradeSettlementMonetarySummation")
    total = _amount(_first(summation, "GrandTotalAmount")) or _amount(_first(summation, "DuePayableAmount"))
    delivery = _first(root, "ActualDeliverySupplyChainEvent")
    terms = _first(settlement, "SpecifiedTradePaymentTerms")
    # The seller's article number keeps model numbers searchable ("XG40T06 Water heater").
    items = tuple(" ".join(filter(None, (_text(_child(product, "SellerAssignedID")),
                                         _text(_child(product, "Name")))))
                  for product in _all(root, "SpecifiedTradeProduct") if _text(_child(product, "Name")))
    return InvoiceInfo(
        kind="invoice",
        vendor=_text(_first(_first(root, "SellerTradeParty"), "Name")),
        number=_text(_first(document, "ID")),
        invoice_date=issued,
        service_date=_cii_date(_first(delivery, "OccurrenceDateTime"), floating),
        due_date=_cii_date(_first(terms, "DueDateDateTime"), floating),
        total=total,
        currency=_text(_first(settlement, "InvoiceCurrencyCode")) or _currency_attr(summation),
        items=items,
        date_floating=issued is not None,
        date_source="einvoice_xml" if issued is not None else "",
    )


def _from_ubl(root: ElementTree.Element, floating: tzinfo) -> InvoiceInfo | None:
    issued = _iso_date(_text(_child(root, "IssueDate")), floating)
    supplier = _first(root, "AccountingSupplierParty")
    vendor = _text(_first(supplier, "RegistrationName")) or _text(_first(_first(supplier, "PartyName"), "Name"))
    monetary = _first(root, "LegalMonetaryTotal")
    total = _amount(_first(monetary, "PayableAmount")) or _amount(_first(monetary, "TaxInclusiveAmount"))
    items = tuple(" ".join(filter(None, (_text(_first(_child(item, "SellersItemIdentification"), "ID")),
                                         _text(_child(item, "Name")))))
                  for item in _all(root, "Item") if _text(_child(item, "Name")))
    return InvoiceInfo(
        kind="invoice",
        vendor=vendor,
        number=_text(_child(root, "ID")),
        invoice_date=issued,
        service_date=_iso_date(_text(_first(_first(root, "Delivery"), "ActualDeliveryDate")), floating),
        due_date=_iso_date(_text(_child(root, "DueDate")), floating),
        total=total,
        currency=_text(_child(root, "DocumentCurrencyCode")),
        items=items,
        date_floating=issued is not None,
        date_source="einvoice_xml" if issued is not None else "",
    )


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _first(node, *names: str):
    if node is None:
        return None
    for element in node.iter():
        if _local(element.tag) in names:
            return element
    return None


def _child(node, name: str):
    if node is None:
        return None
    return next((c for c in node if _local(c.tag) == name), None)


def _all(node, name: str) -> list:
    return [] if node is None else [e for e in node.iter() if _local(e.tag) == name]


def _text(node) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def _amount(node) -> float | None:
    try:
        return float(_text(node)) if _text(node) else None
    except ValueError:
        return None


def _currency_attr(node) -> str:
    amount = _first(node, "GrandTotalAmount", "DuePayableAmount")
    return amount.get("currencyID", "") if amount is not None else ""


def _cii_date(node, floating: tzinfo) -> datetime | None:
    """DateTimeString format 102 is YYYYMMDD (the only format the profiles allow)."""
    text = _text(_first(node, "DateTimeString")) if node is not None else ""
    match = _CII_DATE.match(text)
    if not match:
        return None
    try:
        value = datetime(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
    return make_aware(value, floating)[0]


def _iso_date(text: str, floating: tzinfo) -> datetime | None:
    try:
        return make_aware(datetime.strptime(text[:10], "%Y-%m-%d"), floating)[0]
    except ValueError:
        return None


# ---------------------------------------------------------------- helpers

@functools.lru_cache(maxsize=64)
def _cue_patterns(cues: tuple[str, ...]) -> tuple[tuple[str, re.Pattern], ...]:
    # Whole words, case-insensitive; a cue may be plural ("Tax Invoices").
    return tuple((cue, label_pattern(cue, plural=True)) for cue in cues)


@functools.lru_cache(maxsize=64)
def _cue_union(cues: tuple[str, ...]) -> re.Pattern:
    return labels_pattern(cues, plural=True)


def _distinct(cues: tuple[str, ...], text: str) -> set[str]:
    # One pass over the text for all the cues first: most texts (every letter) hold none.
    if not _cue_union(cues).search(text):
        return set()
    return {cue for cue, pattern in _cue_patterns(cues) if pattern.search(text)}


def _mask(text: str, dates: Sequence[PrintedDate]) -> str:
    """`text` with every printed date blanked, so "August 3, 2014" is never an amount."""
    if not dates:
        return text
    parts, last = [], 0
    for date in dates:
        parts.append(text[last:date.start])
        parts.append(re.sub(r"[^\n]", " ", text[date.start:date.end]))
        last = date.end
    parts.append(text[last:])
    return "".join(parts)






def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
