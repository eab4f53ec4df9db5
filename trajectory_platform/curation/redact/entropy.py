"""Shannon entropy with a threshold per alphabet and per length.

Why per alphabet: a hex string cannot exceed 4 bits/char, so the seed's 4.5 bits/char threshold
would never fire on a hex key; a lowercase+digit token tops out near 5.2. Why per length: a
window of n characters holds at most n distinct symbols, so a 20-character random token
averages about 4.0 bits/char and a fixed 4.5 would miss almost every short key. The threshold
is therefore "a little below what a uniformly random token of this length and alphabet
scores", capped at the seed's 4.5.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

HEX = "0123456789abcdef"
BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
PRINTABLE_SIZE = 94
"""Printable ASCII but the space: what a generated password (``pwgen -sy``, a password manager)
draws from."""

SEED_THRESHOLD = 4.5
"""The seed's bits/char threshold; reachable only by long base64-like tokens."""

_MARGIN = {"hex": 0.45, "base36": 0.45, "base64": 0.4, "printable": 0.45}
"""Bits below the random-token mean still accepted (about two standard deviations)."""

_HEX_RE = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_BASE36_RE = re.compile(r"[0-9a-z]+|[0-9A-Z]+")


UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_UUID_TAIL = "00000000-0000-0000-0000-000000000000"
_UUID_HEAD_MIN = 13
"""The shortest UUID head read as one: its first two groups and their hyphen show the shape."""


def uuid_head(token: str) -> bool:
    """Is ``token`` the start of a UUID, cut short (``3f2a9c1e-7b4d-4e2a-9``): does a UUID's tail
    complete it into one? A harness's truncation mark cuts a request id as it cuts anything."""
    return (
        _UUID_HEAD_MIN <= len(token) < len(_UUID_TAIL)
        and UUID_RE.match(token + _UUID_TAIL[len(token) :]) is not None
    )


def shannon_entropy(text: str) -> float:
    """Empirical Shannon entropy of ``text`` in bits per character (0 for empty)."""
    n = len(text)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def alphabet_of(token: str) -> str:
    """The smallest alphabet family the token fits: ``hex``, ``base36`` or ``base64``."""
    if _HEX_RE.fullmatch(token):
        return "hex"
    if _BASE36_RE.fullmatch(token):
        return "base36"
    return "base64"


@lru_cache(maxsize=1024)
def random_token_entropy(length: int, alphabet: str) -> float:
    """Expected entropy of a uniformly random token of ``length`` over ``alphabet``.

    Exact by linearity: each symbol's count is Binomial(length, 1/k), so
    E[H] = -k * sum_c P(c) (c/n) log2(c/n).
    """
    k = {"hex": len(HEX), "base36": len(BASE36), "base64": len(BASE64), "printable": PRINTABLE_SIZE}[alphabet]
    n = min(length, 256)  # beyond this the threshold is the 4.5 cap anyway
    p = 1.0 / k
    total = 0.0
    for c in range(1, n + 1):
        probability = math.comb(n, c) * p**c * (1 - p) ** (n - c)
        if probability < 1e-12 and c > n * p:
            break
        total += probability * (c / n) * math.log2(c / n)
    return -k * total


def entropy_threshold(length: int, alphabet: str) -> float:
    """Bits/char a token of this length and alphabet must reach to count as random."""
    return min(SEED_THRESHOLD, random_token_entropy(length, alphabet) - _MARGIN[alphabet])


def looks_random(token: str) -> bool:
    """True when ``token`` scores like a random key rather than a word or an identifier.

    Beyond entropy, a base64-family token must mix character classes the way random keys do
    (uppercase spread across the token or a fair share of digits); camelCase identifiers have
    high entropy but few capitals and digits.
    """
    alphabet = alphabet_of(token)
    if UUID_RE.match(token):
        return False
    if shannon_entropy(token) < entropy_threshold(len(token), alphabet):
        return False
    digits = sum(map(str.isdigit, token))
    letters = sum(map(str.isalpha, token))
    if alphabet == "hex":
        return digits >= 2 and letters >= 2
    if alphabet == "base36":
        return digits / len(token) >= 0.12 and letters >= 4
    upper = sum(map(str.isupper, token)) / letters if letters else 0.0
    if digits:
        return 0.2 <= upper <= 0.85 or (digits / len(token) >= 0.15 and letters >= 4)
    # No digit at all: only long tokens with capitals spread like random ones (camelCase has ~1 per word).
    return len(token) >= 24 and 0.25 <= upper <= 0.85
