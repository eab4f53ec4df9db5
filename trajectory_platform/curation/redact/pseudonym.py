"""Pass 3 primitives: the salt, keyed pseudonyms, and the per-episode symbol table.

A pseudonym is ``<REDACTED_{KIND}:{first 12 hex of HMAC-SHA256(salt, value)}>``. Keyed, so the
same value maps to the same pseudonym everywhere it appears (co-reference survives) while the
value cannot be recovered or brute-forced without the salt. Where the value was a bare shell
word, ``<`` and ``>`` would become redirections, so the shell-safe form
``REDACTED_{KIND}_{hex}`` is used instead.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

import ahocorasick

SALT_ENV = "TRAJECTORY_PLATFORM_SALT"
DEV_MASTER_KEY = b"trajectory-platform-embedded-dev-key"
"""For the embedded, single-machine default only; production sets ``$TRAJECTORY_PLATFORM_SALT``."""

PSEUDONYM_RE = re.compile(
    r"<REDACTED_([A-Z_]+):([0-9a-f]{12})>|(?<![A-Za-z0-9_])REDACTED_([A-Z_]+?)_([0-9a-f]{12})\b"
)
"""Both pseudonym forms; groups 1-2 (angle form) or 3-4 (shell-safe form) hold kind and digest."""

# Higher wins when one value is reported under several kinds: the most specific label is kept.
_KIND_PRIORITY = {"SECRET": 1, "PASSWORD": 2, "TOKEN": 2, "AUTH_HEADER": 3}
PII_KINDS = frozenset(
    {"EMAIL", "PHONE", "PRIVATE_IP", "INTERNAL_HOST", "USERNAME", "PERSON", "CARD_NUMBER", "IBAN", "SSN"}
)


def resolve_master_key(explicit: str | bytes | None = None, allow_dev_default: bool = False) -> bytes:
    """The pipeline's master secret: ``explicit``, else ``$TRAJECTORY_PLATFORM_SALT``, else the dev key.

    The dev key is refused unless ``allow_dev_default`` (the embedded run), and its use is
    announced on stderr without printing any key material. The Dagster layer gets the master
    secret from the ``secrets_salt`` resource instead.
    """
    value = explicit if explicit is not None else os.environ.get(SALT_ENV)
    if value:
        return value.encode() if isinstance(value, str) else value
    if not allow_dev_default:
        raise RuntimeError(f"no redaction salt: set ${SALT_ENV}")
    print(f"trajectory-platform: ${SALT_ENV} unset; using the embedded dev key", file=sys.stderr)
    return DEV_MASTER_KEY


def pseudonym_digest(salt: bytes, value: str) -> str:
    """First 12 hex characters of HMAC-SHA256(salt, value)."""
    return hmac.new(salt, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:12]


def pseudonym(kind: str, digest: str, shell_bare: bool = False) -> str:
    """The replacement text for one value."""
    return f"REDACTED_{kind}_{digest}" if shell_bare else f"<REDACTED_{kind}:{digest}>"


def kind_priority(kind: str) -> int:
    """Rank used to pick one kind per value (vendor formats and PII outrank generic labels)."""
    return _KIND_PRIORITY.get(kind, 5)


@dataclass
class SymbolTable:
    """Values to replace in one episode and the one kind each is labelled with.

    Built from every finding of the episode before anything is rewritten, so a secret that is
    detected in step 3 is also replaced where it is merely echoed in step 7, with the same
    pseudonym.
    """

    salt: bytes
    kinds: dict[str, str] = field(default_factory=dict)
    credentials: set[str] = field(default_factory=set)
    """Values reported as a credential at least once, whatever kind labels them (a connection string
    read as a password and as an internal host is labelled a host, and is still a credential)."""
    everywhere: set[str] = field(default_factory=set)
    """Values replaced wherever they occur, whatever their shape: the halves of a secret split across
    two messages, which no scan of one message finds again."""
    written: set[str] = field(default_factory=set)
    """Values replaced only where a command writes them whole to a file: a key's pieces too short to
    replace wherever they recur (``shell_writes.WRITTEN_PIECE``)."""
    _search: ahocorasick.Automaton | None = field(default=None, repr=False)
    """Every value, each keyed to its rank in the placing order (:meth:`occurrences`); rebuilt after
    an :meth:`add` changes the values or their order."""

    def add(self, value: str, kind: str) -> None:
        known = self.kinds.get(value)
        if kind not in PII_KINDS and value not in self.credentials:
            self.credentials.add(value)
            self._search = None
        if known is None or kind_priority(kind) > kind_priority(known):
            self.kinds[value] = kind
            self._search = None

    def occurrences(self, text: str, remainders: bool = False) -> list[tuple[int, int, str]]:
        """Non-overlapping ``(start, end, value)`` of table values in ``text``, longest value first.

        Values shorter than 12 characters count only at alphanumeric boundaries, so a short
        password does not rewrite the middle of an unrelated word. Credentials (:attr:`credentials`)
        are placed before personal data: where a password's tail reads as an e-mail local part
        (``svc:x#9Q@db.internal``), the password is replaced whole, not its head left standing; and
        an encoded connection string labelled a host is not cut short by a shorter credential
        inside its span, which would leave the rest of the encoding readable.
        With ``remainders``, an occurrence that a value placed before it overlaps in part still
        counts for the part no value took (a span of its own): pass 3 then replaces it too, rather
        than leave a secret's tail standing next to another value's pseudonym. (Only for rewriting
        positions; a remainder is not a value to look for elsewhere.)
        Candidates come from one Aho-Corasick pass (pyahocorasick) over ``text`` for the values'
        first :data:`_PREFIX` characters, each then checked whole: a leak measurement's table holds
        some 12,000 values (canaries and their encodings, 2.3 million characters) and is searched in
        thousands of short texts, where a ``str.find`` per value cost the canary audit a third of its
        time and an automaton of the whole values took a second to build. The occurrences are then
        placed value by value in the order above, each value's from left to right, as a search per
        value would meet them.
        """
        if not self.kinds:
            return []
        if self._search is None:
            self._search = _automaton(self.kinds, self.credentials)
        found = sorted(
            (rank, start, value)
            for end, (prefix, bucket) in self._search.iter(text)
            for start in (end + 1 - len(prefix),)
            for rank, value in bucket
            if text.startswith(value, start)
        )
        taken: list[tuple[int, int, str]] = []
        occupied = bytearray(len(text))
        for _, start, value in found:
            end = start + len(value)
            if len(value) >= 12 or _bounded(text, start, end):
                overlapped = any(occupied[start:end])
                if not overlapped or remainders:
                    free = _free_runs(occupied, start, end) if overlapped else [(start, end)]
                    taken.extend((low, high, value) for low, high in free)
                    occupied[start:end] = b"\x01" * (end - start)
        return sorted(taken)

    def is_plain_word(self, value: str) -> bool:
        """A password or secret that reads as a name in code: one plain word (``postgres``,
        ``Admin``), words run together in camel case (``RedisCache``) or a word and a short number
        (``example123``). See ``engine._anchored`` for why its echoes are not replaced."""
        return (
            self.kinds.get(value) in ("PASSWORD", "SECRET")
            and value not in self.everywhere
            and _PLAIN_WORD.fullmatch(value) is not None
        )

    def replacement(self, value: str, shell_bare: bool) -> str:
        return pseudonym(self.kinds[value], pseudonym_digest(self.salt, value), shell_bare)


_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]{2,15}|(?:[A-Z][a-z]{2,12}){2,3}|[A-Za-z][a-z]{2,15}\d{1,4}")
"""Shapes a default password shares with identifiers (``image: postgres``, ``from cache import
RedisCache``, ``MYSQL_DATABASE=example123``, ``example123.sql``)."""
_ESCAPE_BEFORE = re.compile(
    r"(?:%[0-9A-Fa-f]{2}|=[0-9A-F]{2}|\\(?:[nrt]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[0-7]{3}|[1-9]))$"
)
"""An escape ending right before a value (``password%3DHunter2``, ``pw=3DHunter2``, ``\\tHunter2``,
a substitution's back-reference ``s/\\(pw=\\).*/\\1Hunter2/``): its last character is a letter or
digit of the escape's code, not of a word the value is part of."""


_PREFIX = 8
"""Characters of each value the automaton matches (:func:`_automaton`): few enough that building it
for a large table costs milliseconds, enough that a match is rarely not the value's."""


def _automaton(kinds: dict[str, str], credentials: set[str]) -> ahocorasick.Automaton:
    """A search for the first :data:`_PREFIX` characters of every value of ``kinds``; a match holds
    the prefix and the values starting with it, each with its rank in the placing order of
    :meth:`SymbolTable.occurrences` (credentials first, longer values first, then by value)."""
    buckets: dict[str, list[tuple[int, str]]] = {}
    for rank, value in enumerate(placing_order(kinds, credentials)):
        buckets.setdefault(value[:_PREFIX], []).append((rank, value))
    search = ahocorasick.Automaton()
    for prefix, bucket in buckets.items():
        search.add_word(prefix, (prefix, bucket))
    search.make_automaton()
    return search


def placing_order(values: Iterable[str], credentials: set[str]) -> list[str]:
    """``values`` in the order :meth:`SymbolTable.occurrences` places them: credentials first, longer
    values first, then by value. Sorted by value, then stably by length, then split, rather than by
    a key of three per value: a leak measurement's table of 12,000 values is ordered once per
    document, and the tuple keys cost three times as much as the same order built this way."""
    by_length = sorted(sorted(values), key=len, reverse=True)  # (a reversed sort is stable too)
    return [v for v in by_length if v in credentials] + [v for v in by_length if v not in credentials]


def _free_runs(occupied: bytearray, start: int, end: int) -> list[tuple[int, int]]:
    """The maximal runs of ``occupied[start:end]`` that no value has taken."""
    runs: list[tuple[int, int]] = []
    low = None
    for position in range(start, end):
        if not occupied[position] and low is None:
            low = position
        elif occupied[position] and low is not None:
            runs.append((low, position))
            low = None
    if low is not None:
        runs.append((low, end))
    return runs


def _bounded(text: str, start: int, end: int) -> bool:
    """No ASCII letter or digit continues the value on either side (other scripts do not glue
    words); a value glued to a short option (``mysql -pSECRET``) starts at the option's end, one
    after a URL, quoted-printable or backslash escape where the escape ends. The option starts a
    word after a space, or after a quote in a command written as a list (``["mysql", "-pSECRET"]``)."""
    glued_option = (
        start >= 2
        and text[start - 2] == "-"
        and (start == 2 or text[start - 3].isspace() or text[start - 3] in "\"'")
    )
    glued = (
        start
        and _ascii_alnum(text[start - 1])
        and _ascii_alnum(text[start])
        and not glued_option
        and not _ESCAPE_BEFORE.search(text, max(0, start - 6), start)
    )
    return not glued and not (end < len(text) and _ascii_alnum(text[end]) and _ascii_alnum(text[end - 1]))


def _ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()
