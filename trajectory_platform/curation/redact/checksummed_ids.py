"""Pass 2: personal identifiers that carry their own check digits (cards, IBANs, US SSNs).

Agents working on billing code or support tickets print card numbers, bank accounts and social
security numbers, often with no label at all (a CSV column, a log field, prose). A bare digit run
is no evidence, so the number's own checksum is: a card number must pass Luhn and start with an
issuer prefix, an IBAN must pass ISO 7064 mod-97. Random digit runs
pass Luhn one time in ten, so the issuer prefix (no card starts with 1, 7, 8, 9 or 0) is what keeps
timestamps (``17...``), nanosecond clocks and most snowflake ids out. An SSN has no checksum;
only its structure (no 000/666/9xx area, no 00 group, no 0000 serial) and an ``ssn`` or
``social security`` label close before it make it one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.model import Finding

_CARD = re.compile(
    r"(?<![\w.+/-])(?<!\d[ -])(?<![A-Z]{2}\d\d[ -])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\w/]|[.-]\d)"
)
_CARD_ISSUER = re.compile(r"4|5[1-5]|2[2-7]|3[0478]|35|6(?:011|5|4[4-9]|2)")
"""Issuer prefixes of the major card networks (ISO/IEC 7812 IIN ranges: Visa, Mastercard, Amex,
Diners, JCB, Discover, UnionPay). The length is only bounded to 13-19: test and sample data use
any length with any prefix, and the prefix plus Luhn already rejects 19 random runs out of 20."""

_CARD_LABEL = re.compile(r"(?:card|pan|cc|credit|debit|visa|mastercard|amex)\w{0,12}\W{0,8}$", re.IGNORECASE)

_IBAN = re.compile(r"(?<![\w-])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![\w-])")
_SSN = re.compile(r"(?<![\w.-])(\d{3})(-?)(\d{2})\2(\d{4})(?![\w.-]|-\d)")
_SSN_LABEL = re.compile(r"(?:\bssn|social[ _-]?security)\w*(?:\W+\w+){0,2}?\W{1,6}$", re.IGNORECASE)


def luhn_valid(digits: str) -> bool:
    """The Luhn (mod 10) check every payment card number carries in its last digit."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card_issued(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and bool(_CARD_ISSUER.match(digits))


def _grouped_like_a_card(text: str) -> bool:
    """Separators, if any, are one kind and split the number the way cards are printed."""
    separators = {c for c in text if not c.isdigit()}
    if not separators:
        return True
    if len(separators) > 1:
        return False
    groups = [len(g) for g in text.split(separators.pop())]
    return groups[:-1] == [4] * (len(groups) - 1) or groups in ([4, 6, 5], [4, 6, 4])


def _card_context(text: str, match: re.Match[str]) -> bool:
    """A bare digit run is a card only as data: printed grouped, quoted, a CSV cell, or labelled.

    Code holds long integer literals (random seeds, test constants) that pass Luhn by chance; none
    of them is grouped in fours, quoted as a string, or named after a card.
    """
    if not match.group().isdigit():
        return True
    start, end = match.start(), match.end()
    before, after = text[start - 1 : start] or "\n", text[end : end + 1] or "\n"
    quoted = before in "'\"" and after == before
    csv_cell = before in ",\n\t" and after in ",\n\t\r" and "," in text[max(0, start - 200) : end + 200]
    return quoted or csv_cell or bool(_CARD_LABEL.search(text[max(0, start - 30) : start]))


def iban_valid(compact: str) -> bool:
    """ISO 13616: move the country and check digits to the end, read letters as 10..35, mod 97 == 1."""
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def _ssn_structure(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def find_checksummed_ids(text: str) -> Iterator[Finding]:
    """Card numbers, IBANs and labelled SSNs in ``text`` (each regex runs only when digits allow)."""
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if (
            _grouped_like_a_card(match.group())
            and _card_issued(digits)
            and luhn_valid(digits)
            and _card_context(text, match)
        ):
            yield Finding("CARD_NUMBER", match.start(), match.end(), match.group(), "pii:card")
    for match in _IBAN.finditer(text):
        compact = match.group().replace(" ", "")
        if 15 <= len(compact) <= 34 and iban_valid(compact):
            yield Finding("IBAN", match.start(), match.end(), match.group(), "pii:iban")
    if "ssn" in text.lower() or "security" in text.lower():
        for match in _SSN.finditer(text):
            before = text[max(0, match.start() - 40) : match.start()]
            if _SSN_LABEL.search(before) and _ssn_structure(match.group(1), match.group(3), match.group(4)):
                yield Finding("SSN", match.start(), match.end(), match.group(), "pii:ssn")
