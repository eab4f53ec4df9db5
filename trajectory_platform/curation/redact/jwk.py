"""A JSON Web Key's private members, whatever their value looks like.

A JWK (RFC 7517, 7518) names its type in ``kty`` (``RSA``, ``EC``, ``OKP``, ``oct``) and carries
its secret in registered members: ``d`` (the private exponent or scalar), ``p``, ``q``, ``dp``,
``dq``, ``qi`` (an RSA key's primes and CRT values) and ``k`` (a symmetric key). A random key is
replaced by the entropy test already, but a symmetric key is often a passphrase base64url-encoded
(``"k": "c2VjcmV0"``), and a test key's members can be short or repetitive: entropy kept them
(session 46: 40 of 40 such private members kept, in JSON, a JWKS, YAML, a Python or JavaScript
literal, a shell variable). The object's ``kty`` names the members; the same names elsewhere
(``{"d": "2024-01-01"}``, ``p: 3``) mean nothing.

The object is the braces around ``kty`` (a JSON, Python or JavaScript literal, members in any
order, as ``jq -S`` or a thumbprint's canonical form sorts them), or, with no braces around it, the
lines of its YAML, TOML or ``key=value`` block: those indented as the ``kty`` line. The public
members (``n``, ``e``, ``x``, ``y``, ``crv``, ``kid``) are not this rule's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE

_QUOTE = r"""\\*["']?"""
_KTY = re.compile(rf"(?<![\w-]){_QUOTE}kty{_QUOTE}[ \t]*[:=][ \t]*{_QUOTE}(?:RSA|EC|OKP|oct)\b")
"""A ``kty`` member naming a registered key type (RFC 7518 §6.1, RFC 8037), quoted or not, escaped
inside a JSON string or not."""

_PRIVATE_MEMBER = re.compile(
    rf"(?<![\w$.-]){_QUOTE}(?:dp|dq|qi|d|p|q|k){_QUOTE}[ \t]*[:=][ \t]*"
    rf"{_QUOTE}(?P<value>[A-Za-z0-9_+/-]{{4,}}=*)"
    rf"(?={_QUOTE}[ \t]*(?:[,;}})\]\r\n#]|$))"
)
"""A private member (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2) and its base64url value, which
ends its member (``d = diff(a, b)`` is a call)."""

_NOT_A_VALUE = frozenset({"null", "none", "None", "true", "false", "True", "False"})


def _indent(line: str) -> int:
    """Where a block line's key starts: after its spaces and a YAML list item's dash."""
    stripped = line.lstrip(" \t")
    column = len(line) - len(stripped)
    return column + 2 if stripped.startswith("- ") else column


def _object_span(text: str, at: int) -> tuple[int, int]:
    """The JWK around the ``kty`` member at ``at``: its braces, or its block's lines."""
    opening = text.rfind("{", 0, at)
    closing = text.find("}", at)
    if opening != -1 and closing != -1 and "}" not in text[opening:at] and "{" not in text[at:closing]:
        return opening, closing
    lines = text.split("\n")
    row = text.count("\n", 0, at)
    column = _indent(lines[row])
    first = last = row
    while first > 0 and lines[first - 1].strip() and _indent(lines[first - 1]) == column:
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].strip() and _indent(lines[last + 1]) == column:
        last += 1
    start = sum(len(line) + 1 for line in lines[:first])
    return start, start + sum(len(line) + 1 for line in lines[first : last + 1])


def find_jwk_private_members(text: str) -> Iterator[Finding]:
    """The values of a JWK's private members, in the object whose ``kty`` names it a key."""
    if "kty" not in text:
        return
    for kty in _KTY.finditer(text):
        first, last = _object_span(text, kty.start())
        for member in _PRIVATE_MEMBER.finditer(text, first, last):
            value = member.group("value")
            if value in _NOT_A_VALUE or PSEUDONYM_RE.fullmatch(value):
                continue
            yield Finding(
                "PRIVATE_KEY", member.start("value"), member.end("value"), value, "jwk:private_member"
            )
