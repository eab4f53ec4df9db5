"""One shape for "left out, with a reason", and one accounting of it, for every stage.

A stage that does not pass a record on says why with a :class:`Drop`: a stable ``reason`` key (what
is counted, and what a person filters on) and a ``detail`` for a person (never the record's text:
it may hold a secret). Every stage reports a :class:`Tally` of records in, kept and dropped by
reason, and its metadata carries :meth:`Tally.metadata`'s keys, the same at every stage, so
``records_in == kept + dropped`` is checked the same way everywhere (datatrove's model: every drop
is a reason key, counted the same way).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

_WORD = re.compile(r"[a-z][a-z_-]{0,15}[0-9]{0,3}")
"""A value a detail may show as it is: a short lowercase word (16 letters at most), perhaps
numbered, the shape of a role, a type, a status or a call id (``bash_1``). Such a word tells a
person what went wrong and is no more exposed than in the redacted corpus (no detector flags a
lowercase word either); anything else may be a key, and keys run longer."""
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_SHOWN_DIGITS = 6


def named(value: object) -> str:
    """How a drop detail names a value read from a record: the value itself when it is a short
    lowercase word (perhaps numbered), ``None`` / a boolean, or a number of a few digits; otherwise
    only its kind and size (``a string of 40 characters``). Details are stored and printed
    unredacted, and a record's bad field (an unknown role, a wrong-typed count) may hold anything,
    a key included."""
    if isinstance(value, str):
        return repr(value) if _WORD.fullmatch(value) else f"a string of {len(value)} characters"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        digits = sum(ch.isdigit() for ch in repr(value))
        return repr(value) if digits <= _SHOWN_DIGITS else f"a number of {digits} digits"
    if isinstance(value, dict):
        return f"an object of {len(value)} key{'' if len(value) == 1 else 's'}"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    return f"a {type(value).__name__}"


_KEY_SEPARATORS = re.compile(r"[_-]")
_HUMPS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD_HUMP = re.compile(r"[A-Z]?[a-z]{1,16}")
_ACRONYM = re.compile(r"[A-Z]{2,4}")
_VOWELS = frozenset("aeiouyAEIOUY")
_KEY_MAX_CHARS = 40
_KEY_MAX_HUMPS = 6


def is_identifier_key(key: str) -> bool:
    """Does a field name read as an identifier a person wrote (``toolCallId``, ``_type``,
    ``requesterUsername``, ``tool_call_id``, ``userID``), not as a value (a key, a token) used as a
    key? Field names are shown in details so a reject names what it is about; a secret must never be.
    It reads as one when, past up to two leading underscores, it is at most six words joined by
    ``_``, ``-`` or camelCase humps, each a lowercase word of at most 16 letters (its first perhaps
    capitalised) holding a vowel, the last perhaps an acronym of 2 to 4 capitals, then at most three
    digits. A generated token almost never passes: it has digits inside, capitals in a row, or humps
    without a vowel (``AKIA...``, ``xKqPmW``)."""
    if len(key) > _KEY_MAX_CHARS:
        return False
    body = key[2:] if key.startswith("__") else key[1:] if key.startswith("_") else key
    humps = [hump for part in _KEY_SEPARATORS.split(body) for hump in _HUMPS.findall(part)]
    if "".join(humps) != _KEY_SEPARATORS.sub("", body) or not humps or len(humps) > _KEY_MAX_HUMPS + 1:
        return False
    if humps[-1].isdigit():
        if len(humps[-1]) > 3:
            return False
        humps = humps[:-1]
    if not humps or len(humps) > _KEY_MAX_HUMPS or len(_KEY_SEPARATORS.split(body)) > _KEY_MAX_HUMPS:
        return False
    *words, last = humps
    if _ACRONYM.fullmatch(last) and words:
        humps = words
    return all(_WORD_HUMP.fullmatch(hump) and not _VOWELS.isdisjoint(hump) for hump in humps)


def path_of(keys: Iterable[str]) -> str:
    """A dotted path of keys a record chose (not a format's own field names), for a detail: each
    key shown when it reads as a short lowercase word (as :func:`named` shows a value) or an
    identifier (:func:`is_identifier_key`), else as ``<key>``: a key chosen by a log (a secret used
    as a field name) must never reach a detail, which is stored and printed unredacted."""
    return ".".join(key if _WORD.fullmatch(key) or is_identifier_key(key) else "<key>" for key in keys)


def without_record_text(message: str) -> str:
    """``message`` (an exception's, say) with each quoted literal in it replaced by :func:`named`:
    Python quotes the values it complains about (``invalid literal for int(): '...'``, ``unexpected
    keyword argument '...'``), and those came from the record."""
    return _QUOTED.sub(lambda quoted: named(quoted.group()[1:-1]), message)


@dataclass(frozen=True)
class Drop:
    """One record left out: why (a stable key) and, for a person, what exactly."""

    reason: str
    detail: str = ""


@dataclass
class Tally:
    """Records in, kept, and dropped by reason."""

    records_in: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, kept: int, drops: Iterable[str] | Mapping[str, int]) -> Tally:
        """The tally of a finished stage: ``kept`` records and the reasons of the rest (reason keys,
        one per dropped record, or reason -> count)."""
        dropped = Counter(drops) if not isinstance(drops, Mapping) else Counter(dict(drops))
        return cls(records_in=kept + sum(dropped.values()), kept=kept, dropped=dropped)

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        """The sum of several tallies (the days of a backfill, say)."""
        out = cls()
        for tally in tallies:
            out.records_in += tally.records_in
            out.kept += tally.kept
            out.dropped.update(tally.dropped)
        return out

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    @property
    def balanced(self) -> bool:
        """Nothing lost silently: every record in was kept or dropped with a reason."""
        return self.records_in == self.kept + self.dropped_total

    def metadata(self) -> dict[str, Any]:
        """The keys every stage's metadata carries."""
        return {
            "records_in": self.records_in,
            "kept": self.kept,
            "dropped": self.dropped_total,
            "dropped_by_reason": dict(sorted(self.dropped.items())),
        }
