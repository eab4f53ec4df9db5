"""One shape for "left out, with a reason", and one accounting of it, for every stage.

A stage that does not pass a record on says why with a :class:`Drop`: a stable ``reason`` key (what
is counted, and what a person filters on) and a ``detail`` for a person (never the record's text:
it may hold a secret). Every stage reports a :class:`Tally` of records in, kept and dropped by
reason, and its metadata carries :meth:`Tally.metadata`'s keys, the same at every stage, so
``records_in == kept + dropped`` is checked the same way everywhere (datatrove's model: every drop
is a reason key, counted the same way).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


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
