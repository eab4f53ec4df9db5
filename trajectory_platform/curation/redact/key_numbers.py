"""Key material written as numbers: a labelled byte list, a bytes repr, a private key's components.

A key is bytes, and code and tools print bytes as numbers: ``secret_key = bytes([237, 191, ...])``,
Rust's ``const SIGNING_KEY: [u8; 32] = [...]``, Go's ``[]byte{0x.., ...}``, C's ``uint8_t
hmac_key[] = {...}``, Java's signed ``byte[]``, Python's ``b'\\xed\\xbf...'`` repr; ``openssl rsa
-text`` prints the private exponent and primes as colon-hex rows under ``privateExponent:`` /
``prime1:`` (``priv:`` for EC and Ed25519 keys), and ``key.private_numbers()`` or Go's ``priv.D``
print them as big decimals. The code-list decoders read only printable codes (a password spelled
as numbers) and the entropy test sees no token, so every byte stayed (a red team, 2026-12-06:
75 of 80 labelled lists and 42 of 42 printed components).

Only labelled material counts here: a credential's name before the list or repr, or the label a
crypto tool prints before a private component. An unlabelled list of numbers is a lookup table, a
test vector, pixels or an S-box as often as a key, so it is left to the rules that see a label
elsewhere (a finding of the value named there is replaced wherever it recurs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding

_BYTE = r"-?(?:0[xX][0-9a-fA-F]{1,2}|\d{1,3})"
_BYTE_LIST = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,64})[\"']?[ \t]*(?:\[\w{0,6}\])?[ \t]*(?:=>|[:=])"
    r"[^\n]{0,40}?[\[{(][ \t]*\n?[ \t]*"
    r"(?P<value>" + _BYTE + r"(?:[ \t]*,[ \t]*\n?[ \t]*" + _BYTE + r"){15,})"
)
"""A credential's name (C's array size may follow it), an assignment (a type or a constructor may
stand between), then 16 byte values or more in brackets."""
_NUMBER_PAIR = re.compile(r"\d[ \t]*,[ \t]*\n?[ \t]*-?\d")
"""Two numbers of a list: the cheap sign that a text may hold one."""
_BYTES_REPR = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,64})[\"']?[ \t]*(?:=|:)[ \t]*b(?P<q>[\"'])"
    r"(?P<value>(?:\\x[0-9a-f]{2}|\\[nrt0'\"\\]|(?!(?P=q))[^\\\n]){16,512})(?P=q)"
)
_MIN_ESCAPES = 4
"""Escapes a bytes repr needs to be binary (fewer: text, which the keyword rules read)."""
_MIN_DISTINCT = 8
"""Distinct byte values a key has (32 random bytes hold about 30); fewer is a pattern or padding."""
_RANDOM_RISES = (0.2, 0.8)
"""The share of neighbours in rising order a random byte string has (about half); a table of
sizes, codes or a counter rises (or falls) nearly throughout."""
_OPENSSL_PRIVATE = re.compile(
    r"(?m)^[ \t]*(?:privateExponent|prime1|prime2|exponent1|exponent2|coefficient|priv):[ \t]*\n"
    r"(?P<value>[ \t]+[0-9a-f]{2}(?::[0-9a-f]{2})*:?(?:[ \t]*\n[ \t]+[0-9a-f]{2}(?::[0-9a-f]{2})*:?)*)"
)
"""``openssl rsa/ec/pkey -text``'s private components; ``modulus:``, ``pub:`` and
``publicExponent:`` are public and stay."""
_PRIVATE_INTEGER = re.compile(
    r"(?<![\w])(?:[A-Za-z_]\w*\.)?(?P<name>d|D|p|q|dmp1|dmq1|iqmp|dp|dq|qinv|private_exponent|private_value)"
    r"\)?[ \t]*(?:=|:)?[ \t]*\n?[ \t]*(?P<value>\d{60,})"
)
_LONG_NUMBER = re.compile(r"\d{60}")
"""A private component printed as a decimal of 200 bits or more (``private_numbers()``'s ``d=``,
``print(priv.d)``, Go's ``priv.D``)."""


def find_key_numbers(text: str) -> Iterator[Finding]:
    """Key bytes or private key components written as numbers under a label (module docstring)."""
    if _NUMBER_PAIR.search(text):
        for match in _BYTE_LIST.finditer(text):
            if credential_class(match.group("name")) and _key_bytes(match.group("value")):
                yield _finding(match)
    if "b'" in text or 'b"' in text:
        for match in _BYTES_REPR.finditer(text):
            value = match.group("value")
            if credential_class(match.group("name")) and value.count("\\x") >= _MIN_ESCAPES:
                yield _finding(match)
    if ":\n" in text:
        for match in _OPENSSL_PRIVATE.finditer(text):
            value = match.group("value").strip()
            start = match.start("value") + match.group("value").index(value)
            yield Finding("PRIVATE_KEY", start, start + len(value), value, "key_numbers:openssl_text")
    if _LONG_NUMBER.search(text):
        for match in _PRIVATE_INTEGER.finditer(text):
            yield _finding(match)


def _key_bytes(listed: str) -> bool:
    """Are the numbers of ``listed`` bytes (0-255, or Java's signed -128-127) with a key's spread?"""
    numbers = [_int(item) for item in re.findall(_BYTE, listed)]
    if not all(-128 <= number <= 255 for number in numbers) or len(set(numbers)) < _MIN_DISTINCT:
        return False
    rises = sum(a < b for a, b in zip(numbers, numbers[1:], strict=False)) / (len(numbers) - 1)
    return _RANDOM_RISES[0] <= rises <= _RANDOM_RISES[1]  # a sorted list is sizes or ids, not a key


def _int(literal: str) -> int:
    """A byte literal: hex with ``0x``, else decimal (a leading zero is padding in a list of bytes)."""
    negative = literal.startswith("-")
    digits = literal.lstrip("-")
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10)
    return -value if negative else value


def _finding(match: re.Match[str]) -> Finding:
    return Finding(
        "PRIVATE_KEY", match.start("value"), match.end("value"), match.group("value"), "key_numbers"
    )
