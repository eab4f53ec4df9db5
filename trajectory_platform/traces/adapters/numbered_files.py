"""A log written one item a file, each file named by the item's index in a folder of their own
(Strands Agents' ``messages/message_<n>.json``, OpenHands' file store ``sessions/<id>/events/<n>.json``).

The items are read in the order of their index (numeric: ``10`` after ``9``, never a file-name
sort); an index missing from the sequence (a lost item) or a file that cannot be read rejects the
whole log naming the file and why, since the conversation is not whole. One file of the folder
(the format's own: an agent's ``agent.json``, the first event) is the log's record; the others are
read with it (``RawRecord.read_with``), or, where the run does not read that file, each is a
``companion not ingested`` reject naming it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import RawRecord, RecordError, SourceFile, json_error
from trajectory_platform.traces.adapters.cline import NOT_INGESTED


def numbered_files(folder: Path, name: re.Pattern[str]) -> list[tuple[int, Path]]:
    """The files of ``folder`` whose whole name ``name`` matches (its first group the index), in
    index order."""
    found = []
    for path in folder.iterdir() if folder.is_dir() else []:
        match = name.fullmatch(path.name)
        if match is not None:
            found.append((int(match.group(1)), path))
    return sorted(found)


def read_numbered(folder: Path, name: re.Pattern[str], shown: str) -> list[tuple[int, Any]]:
    """Each numbered file's JSON in index order, the indices running from 0 with no gap; a gap
    (the first index missing too) or an unreadable file raises :class:`RecordError` naming the
    file (``shown``: how the folder is named in the detail)."""
    files = numbered_files(folder, name)
    items = []
    for position, (index, path) in enumerate(files):
        where = f"{shown}/{path.name}"
        expected = position
        if index != expected:
            missing = path.name.replace(str(index), str(expected), 1)
            raise RecordError(
                "message missing",
                f"{shown}/{missing} is not in the folder, which holds {len(files)} numbered files up to "
                f"{where}: the conversation is not whole",
            )
        try:
            text = path.read_text(encoding="utf-8")
            items.append((index, json.loads(text)))
        except json.JSONDecodeError as exc:
            error = json_error(exc, text)
            raise RecordError(error.reason, f"{where}: {error.detail}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError("unreadable file", f"{where}: {type(exc).__name__}") from None
    return items


def companion_record(src: SourceFile, owner: Path, shown_owner: str) -> RawRecord:
    """The record of a file read with ``owner`` (the log's record file): counted as read with it
    where the run reads it (``shown_owner``: how ``owner`` is named where ``src`` is shown), else a
    ``companion not ingested`` reject naming it."""
    if src.in_run(owner):
        return RawRecord(None, "$", read_with=shown_owner)
    detail = f"{Path(src.path).name} is read with {owner.name} ({shown_owner}), which this run does not read"
    return RawRecord(None, "$", error=RecordError(NOT_INGESTED, detail), excerpt=src.fingerprint())
