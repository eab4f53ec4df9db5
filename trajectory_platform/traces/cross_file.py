"""Groups (a Claude Code session, a gateway's run) written over more than one file of one ingest.

A format that groups lines by an id the log writes (:meth:`Adapter.group_of`) frames a file at a
time. A session continued in a second file (or copied by ``claude --resume``), or a run whose calls
were logged into day files, was read as a truncated episode per file: one ending on a call its
result never answered, another opening on an ``orphan tool result``, or a duplicate. So before
reading, the files of those formats are framed once to learn which group ids more than one file
holds (:meth:`SpanningGroups.scan`); while reading, only those groups' parts are held, until the
last file holding them is read, then merged (:meth:`Adapter.merged`) and read as one record located
at its first part (:meth:`SpanningGroups.finish_file`). Memory grows with the groups that span
files, not with the corpus; the cost is framing those formats' files twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.adapters.base import (
    STRUCTURE_ERRORS,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
)


def groups_by_id(adapter: Adapter) -> bool:
    """Does ``adapter`` group its lines by an id the log writes (:meth:`Adapter.group_of`)?"""
    return type(adapter).group_of is not Adapter.group_of


@dataclass
class HeldPart:
    """A group's part held until the group's last file is read, with what reading it needs
    (``context``: the caller's own, such as the file's date and task map)."""

    adapter: Adapter
    record: RawRecord
    context: Any


class SpanningGroups:
    """The groups of one ingest that span files: their parts held, and merged when complete."""

    def __init__(self, files_holding: dict[tuple[str, str], int]) -> None:
        self._left = dict(files_holding)
        self._parts: dict[tuple[str, str], list[HeldPart]] = {}
        self._in_file: list[tuple[str, str]] = []

    @classmethod
    def scan(cls, sources: Iterable[tuple[SourceFile, Adapter]]) -> SpanningGroups:
        """Frame each file of a grouping format once and keep the group ids more than one holds.
        A file that cannot be framed here holds none (reading it says why)."""
        files: Counter[tuple[str, str]] = Counter()
        for src, adapter in sources:
            if not groups_by_id(adapter):
                continue
            ids: set[str] = set()
            try:
                for record in adapter.frame(src):
                    group = adapter.group_of(record) if record.error is None else None
                    ids.update([group] if group is not None else [])
            except (RecordError, *STRUCTURE_ERRORS):
                continue
            files.update((adapter.name, group) for group in ids)
        return cls({key: count for key, count in files.items() if count > 1})

    def hold(self, adapter: Adapter, record: RawRecord, context: Any) -> bool:
        """Hold ``record`` when it is part of a group that spans files (True), else leave it."""
        if not self._left or record.error is not None:
            return False
        group = adapter.group_of(record)
        key = (adapter.name, group or "")
        if group is None or key not in self._left:
            return False
        self._parts.setdefault(key, []).append(HeldPart(adapter, record, context))
        if key not in self._in_file:
            self._in_file.append(key)
        return True

    def finish_file(self) -> Iterator[tuple[HeldPart, RawRecord]]:
        """The groups the file just read completed: each its first part and its merged record."""
        done, self._in_file = self._in_file, []
        for key in done:
            self._left[key] -= 1
            if self._left[key] == 0:
                yield self._merge(key)

    def flush(self) -> Iterator[tuple[HeldPart, RawRecord]]:
        """Groups still held when the ingest ends (a file framed before could not be read now):
        read with the parts found, never left out."""
        for key in [k for k in self._left if k in self._parts]:
            yield self._merge(key)

    def _merge(self, key: tuple[str, str]) -> tuple[HeldPart, RawRecord]:
        parts = self._parts.pop(key)
        del self._left[key]
        first = parts[0]
        merged = first.record if len(parts) == 1 else first.adapter.merged([p.record for p in parts])
        return first, merged
