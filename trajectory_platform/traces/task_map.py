"""Task ids for logs that name none: a ``task_ids.json`` beside the logs.

Many logs cannot say which task they ran against: their format has no place for it (Claude Code,
Codex, Gemini CLI, ToolBench, tau-bench few-shot transcripts), or the agent's logger never wrote
one. Such an episode ends ``unverifiable / no_task_identity``, however good it is. The person who
collected the logs knows where each ran; a ``task_ids.json`` in the log folder says it once, for
every log below:

    {"sessions/*.jsonl": "calc-add", "*": "fix-parser-7"}

Keys are patterns on a log's path relative to the map's folder (``fnmatch``: ``*`` matches any
characters, ``/`` included, so ``"*"`` covers every log below); values are task ids. The first
pattern that matches, in the order written, gives the id. The nearest map governs a log (a map in
a subfolder replaces its parent's for the logs below it). A record that names its own task keeps
it: the map fills in only what the log left out.

The map lives in the trace source itself, so the CLI, ``verify``, ``curate`` and the Dagster
asset read the same one with no setting to keep in step. A map that cannot be read is one reject
naming its file and why, and the logs below it go on unlinked; a map that is a symbolic link out of
the source is not read at all (ingest reads only what lies under the folder it was given).
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path

from trajectory_platform.traces.adapters.base import RecordError, json_error, parse_json
from trajectory_platform.traces.drops import named

TASK_MAP_FILE = "task_ids.json"
"""The map's file name; :func:`~trajectory_platform.traces.ingest.discover_log_files` never reads it
as a log."""
BAD_TASK_MAP = "bad task map"


@dataclass(frozen=True)
class TaskMap:
    """One ``task_ids.json``: its folder and its (pattern, task id) entries in the order written."""

    folder: Path
    entries: tuple[tuple[str, str], ...]

    def task_for(self, log: Path) -> str | None:
        """The task id of the first pattern matching ``log``'s path below :attr:`folder`, else None."""
        relative = _placed(log).relative_to(self.folder).as_posix()
        return next((task for pattern, task in self.entries if fnmatch.fnmatchcase(relative, pattern)), None)


def read_task_map(path: Path) -> TaskMap:
    """Parse ``path``; a map that is not a JSON object of non-empty strings raises
    :class:`RecordError` (``bad task map``) naming what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
        document = parse_json(text)
    except UnicodeDecodeError:
        raise RecordError(BAD_TASK_MAP, "the map is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise RecordError(BAD_TASK_MAP, f"the map is not JSON: {json_error(exc, text).detail}") from None
    if not isinstance(document, dict):
        raise RecordError(
            BAD_TASK_MAP, f"the map is {named(document)}; expected an object of pattern: task id"
        )
    entries = []
    for number, (pattern, task) in enumerate(document.items(), start=1):
        if not pattern.strip():
            raise RecordError(BAD_TASK_MAP, f"entry {number} has an empty pattern")
        if not isinstance(task, str) or not task.strip():
            raise RecordError(BAD_TASK_MAP, f"entry {number} maps to {named(task)}; expected a task id")
        entries.append((pattern, task))
    return TaskMap(path.parent, tuple(entries))


def _placed(log: Path) -> Path:
    """``log`` in its real folder (the folder's links resolved, the file's own name kept), so a
    map's folder and its logs compare as paths whichever way they were reached."""
    return log.parent.resolve() / log.name


def nearest_map_file(log: Path, top: Path) -> Path | None:
    """The ``task_ids.json`` nearest ``log``: in its folder or a parent, never above ``top``."""
    folder, top = _placed(log).parent, top.resolve()
    while folder.is_relative_to(top):
        candidate = folder / TASK_MAP_FILE
        if candidate.is_file():
            return candidate
        if folder == top:
            break
        folder = folder.parent
    return None


class TaskMaps:
    """The maps one ingest meets, each read once however many logs it governs."""

    def __init__(self) -> None:
        self._read: dict[Path, TaskMap | RecordError] = {}

    def governing(self, log: Path, top: Path) -> tuple[TaskMap | None, tuple[Path, RecordError] | None]:
        """The map governing ``log`` (searched up to ``top``), and, the first time a map fails to
        read, its path and why (later logs below it get no map and no second error)."""
        path = nearest_map_file(log, top)
        if path is None:
            return None, None
        first = path not in self._read
        if first:
            try:
                if not path.resolve().is_relative_to(top.resolve()):
                    raise RecordError(BAD_TASK_MAP, "the map is a link out of the source; it was not read")
                self._read[path] = read_task_map(path)
            except RecordError as error:
                self._read[path] = error
        found = self._read[path]
        if isinstance(found, RecordError):
            return None, (path, found) if first else None
        return found, None
