"""Groups (a Claude Code session, a gateway's run) written over more than one file of one ingest.

A format that groups lines by an id the log writes (:meth:`Adapter.group_of`) frames a file at a
time. A session continued in a second file (or copied by ``claude --resume``), or a run whose calls
were logged into day files, was read as a truncated episode per file: one ending on a call its
result never answered, another opening on an ``orphan tool result``, or a duplicate. So before
reading, the files of those formats are framed once to learn which group ids more than one file
holds (:meth:`SpanningGroups.scan`); while reading, only those groups' parts are held, until the
last file holding them is read, then merged (:meth:`Adapter.merged`) and read as one record located
at its own part (:meth:`Adapter.home_part`: the first file's, unless the format says otherwise),
with that file's context (its date, its task map): :meth:`SpanningGroups.finish_file`. Memory grows
with the groups that span files, not with the corpus; the cost is framing those formats' files
twice.

A group may also go on under a new id: ``claude --resume`` writes a new session file whose entries
copy the old session's, or whose first entry's ``parentUuid`` names the old session's last one. A
format that says which entries its groups hold and follow (:meth:`Adapter.group_entries`) has such
groups joined while scanning: groups sharing an entry, or one following an entry another holds, are
one group, held and merged like a group spanning files (the scan then keeps the entry ids of those
formats' files in memory, until reading starts).
"""

from __future__ import annotations

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
    source: str
    """The file the part was read from, as a reject names it."""


Key = tuple[str, str]
"""A group of one ingest: (format, group id)."""


class _Joined:
    """Groups joined because one goes on under another's id (union-find; the group met first
    names the joined one, so the result does not depend on hashing)."""

    def __init__(self) -> None:
        self._parent: dict[Key, Key] = {}
        self._met: dict[Key, int] = {}

    def add(self, key: Key) -> None:
        self._parent.setdefault(key, key)
        self._met.setdefault(key, len(self._met))

    def root(self, key: Key) -> Key:
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]
            key = self._parent[key]
        return key

    def join(self, a: Key, b: Key) -> None:
        a, b = self.root(a), self.root(b)
        if a != b:
            first, then = sorted((a, b), key=self._met.__getitem__)
            self._parent[then] = first


class SpanningGroups:
    """The groups of one ingest that span files (or go on under another id): their parts held,
    and merged when complete."""

    def __init__(self, files_holding: dict[Key, int], joined_to: dict[Key, Key] | None = None) -> None:
        self._left = dict(files_holding)
        self._joined_to = joined_to or {}
        self._parts: dict[Key, list[HeldPart]] = {}
        self._in_file: list[Key] = []

    @classmethod
    def scan(cls, sources: Iterable[tuple[SourceFile, Adapter]]) -> SpanningGroups:
        """Frame each file of a grouping format once and keep the groups more than one file
        holds, joining those that go on under another id (:meth:`Adapter.group_entries`). A file
        that cannot be framed here holds none (reading it says why)."""
        files: dict[Key, set[int]] = {}
        joined = _Joined()
        holder: dict[tuple[str, str], Key] = {}  # (format, entry id) -> the first group holding it
        follows: list[tuple[Key, set[str]]] = []
        for number, (src, adapter) in enumerate(sources):
            if not groups_by_id(adapter):
                continue
            try:
                for record in adapter.frame(src):
                    group = adapter.group_of(record) if record.error is None else None
                    if group is None:
                        continue
                    key = (adapter.name, group)
                    files.setdefault(key, set()).add(number)
                    joined.add(key)
                    held, followed = adapter.group_entries(record)
                    for entry in sorted(held):
                        joined.join(holder.setdefault((adapter.name, entry), key), key)
                    follows.append((key, followed))
            except (RecordError, *STRUCTURE_ERRORS):
                continue
        for key, followed in follows:
            for entry in sorted(followed):
                if (key[0], entry) in holder:
                    joined.join(holder[(key[0], entry)], key)
        members: dict[Key, list[Key]] = {}
        for key in files:
            members.setdefault(joined.root(key), []).append(key)
        spanning, joined_to = {}, {}
        for root, keys in members.items():
            holding = set().union(*(files[key] for key in keys))
            if len(holding) > 1 or len(keys) > 1:
                spanning[root] = len(holding)
                joined_to.update(dict.fromkeys(keys, root))
        return cls(spanning, joined_to)

    def hold(self, adapter: Adapter, record: RawRecord, context: Any, source: str) -> bool:
        """Hold ``record`` when it is part of a group that spans files (True), else leave it."""
        if not self._left or record.error is not None:
            return False
        group = adapter.group_of(record)
        if group is None or (adapter.name, group) not in self._joined_to:
            return False
        key = self._joined_to[(adapter.name, group)]
        self._parts.setdefault(key, []).append(HeldPart(adapter, record, context, source))
        if key not in self._in_file:
            self._in_file.append(key)
        return True

    def finish_file(self) -> Iterator[tuple[HeldPart, RawRecord]]:
        """The groups the file just read completed: each its first part and its merged record."""
        done, self._in_file = self._in_file, []
        for key in done:  # a file holding two joined groups counts once
            self._left[key] -= 1
            if self._left[key] == 0:
                yield self._merge(key)

    def flush(self) -> Iterator[tuple[HeldPart, RawRecord]]:
        """Groups still held when the ingest ends (a file framed before could not be read now):
        read with the parts found, never left out."""
        for key in [k for k in self._left if k in self._parts]:
            yield self._merge(key)

    def _merge(self, key: Key) -> tuple[HeldPart, RawRecord]:
        parts = self._parts.pop(key)
        del self._left[key]
        first = parts[parts[0].adapter.home_part([p.record for p in parts])]
        if len(parts) == 1:
            return first, first.record
        try:
            return first, first.adapter.merged([p.record for p in parts])
        except RecordError as error:  # parts that cannot be one group: one reject naming their files
            files = ", ".join(dict.fromkeys(p.source for p in parts))
            named = RecordError(error.reason, f"{error.detail} (the parts are in {files})")
            return first, RawRecord(first.record.line, first.record.json_path, error=named)
