"""Coding-CLI file tools, performed by the replay driver inside the sandbox (see ``shell.py``).

Claude Code, the Codex CLI and the Gemini CLI change files through their own tools rather than
the shell: a write, a search-and-replace edit, a patch. Replaying their logs needs each tool's
rules, since a call the real tool refused must be refused again and a call it performed must have
the same effect. Four operations cover them:

- ``write`` (Claude Code ``Write``, Gemini ``write_file``): the whole file, its folders created.
- ``edit`` (Claude Code ``Edit`` / ``MultiEdit``, Gemini ``replace``): each ``(old, new)`` in order
  on the text, all or none. ``old`` must occur exactly once, or ``expected`` times where the tool
  says how many (Gemini), or any number of times with ``replace_all`` (Claude Code); an empty
  ``old`` on a missing file creates it; ``old == new`` is refused.
- ``read`` (Claude Code ``Read``): the file must exist.
- ``apply_patch`` (Codex): the Codex patch format (``*** Begin Patch`` ... ``*** End Patch``, files
  added, deleted, updated and moved; each hunk's lines found from the last one on, exactly, then
  ignoring trailing and then surrounding whitespace, as Codex seeks them), all files or none.

Claude Code refuses to edit or overwrite a file the agent has not read, or that changed since it
read it (``seen``: the text the agent last read or wrote, kept by the host between calls). Where an
edit's text matches only once typographic quotes are read as straight ones, Claude Code edits with
a quote rule this replay does not reproduce: that call is ``Unreplayable``, never guessed.

Standard library only: it is shipped beside the driver into the sandbox.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class ToolError(Exception):
    """The tool's own failure (a missing file, a text that does not match...): the call failed."""


class Unreplayable(Exception):
    """A call whose effect this replay cannot reproduce exactly."""


NOT_READ = "File has not been read yet. Read it first before writing to it."
STALE = (
    "File has been modified since read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def perform(operation: str, arguments: dict[str, Any], resolve: Callable[[str], str]) -> dict[str, Any]:
    """One call: ``{"output", "error", "seen"}`` (``output``: for a read, a write or an edit, the file's
    text after the call; ``seen``: the file's text the agent now knows, for a
    tool that requires reading first). ``resolve`` maps a path as the log wrote it to the real path
    in the workspace, raising when it lies outside."""
    if operation == "apply_patch":
        return {"output": _apply_patch(arguments["patch"], arguments["base"], resolve), "error": False}
    raw = arguments["path"]
    path = resolve(raw)
    if os.path.isdir(path):
        raise ToolError(f"{raw} is a directory")
    if operation == "read":
        if not os.path.isfile(path):
            raise ToolError("File does not exist.")
        text = _read(path)
        return {"output": text, "error": False, "seen": text}
    exists = os.path.isfile(path)
    current = _read(path) if exists else None
    if exists and arguments.get("require_read"):
        seen = arguments.get("seen")
        if not isinstance(seen, str):
            raise ToolError(NOT_READ)
        if seen != current:
            raise ToolError(STALE)
    text = arguments["content"] if operation == "write" else _edited(current, arguments["edits"])
    _write(path, text)
    # the file's text after the call: what a CLI's answer may show a snippet of (Claude Code's Edit)
    return {"output": text, "error": False, "seen": text}


def _edited(current: str | None, edits: list[dict[str, Any]]) -> str:
    """The text after every edit in order (``current`` is ``None`` for a missing file)."""
    text = current
    for edit in edits:
        old, new = edit["old"], edit["new"]
        if old == new:
            raise ToolError("No changes to make: old_string and new_string are exactly the same.")
        if old == "":
            if text:
                raise ToolError("Cannot create new file - file already exists.")
            text = new
            continue
        if text is None:
            raise ToolError("File does not exist.")
        found = text.count(old)
        if found == 0:
            if old.translate(_QUOTES) in text.translate(_QUOTES):
                raise Unreplayable("the edit matches only with typographic quotes read as straight ones")
            raise ToolError("String to replace not found in file.")
        expected = edit.get("expected")
        if expected is not None and found != expected:
            raise ToolError(f"Expected {expected} occurrence(s) but found {found}.")
        if expected is None and found > 1 and not edit.get("replace_all"):
            raise ToolError(f"Found {found} matches of the string to replace, but replace_all is false.")
        text = text.replace(old, new)
    if text is None:
        raise ToolError("File does not exist.")
    return text


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def _write(path: str, text: str) -> None:
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


# ------------------------------------------------------------------------------ the Codex patch

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
END_OF_FILE = "*** End of File"


def _apply_patch(patch: str, base: str, resolve: Callable[[str], str]) -> str:
    """Apply a Codex patch whose relative paths are under ``base``; Codex's summary of it."""
    lines = patch.strip().split("\n")
    if len(lines) < 2 or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        raise ToolError("The patch must start with '*** Begin Patch' and end with '*** End Patch'")
    changes: dict[str, str | None] = {}  # real path -> new text (None: deleted), all before any write
    summary = []
    index = 1
    while index < len(lines) - 1:
        line = lines[index]
        if line.startswith(ADD):
            raw, body, index = line[len(ADD) :], [], index + 1
            while index < len(lines) - 1 and lines[index].startswith("+"):
                body.append(lines[index][1:])
                index += 1
            changes[_target(raw, base, resolve)] = "".join(f"{b}\n" for b in body)
            summary.append(f"A {raw}")
        elif line.startswith(DELETE):
            raw, index = line[len(DELETE) :], index + 1
            path = _target(raw, base, resolve)
            if not os.path.isfile(path):
                raise ToolError(f"Failed to delete file {raw}")
            changes[path] = None
            summary.append(f"D {raw}")
        elif line.startswith(UPDATE):
            raw, index = line[len(UPDATE) :], index + 1
            path = _target(raw, base, resolve)
            moved = None
            if index < len(lines) - 1 and lines[index].startswith(MOVE):
                moved, index = lines[index][len(MOVE) :], index + 1
            start = index
            while index < len(lines) - 1 and (
                not lines[index].startswith("*** ") or lines[index].strip() == END_OF_FILE
            ):
                index += 1
            if not os.path.isfile(path):
                raise ToolError(f"Failed to read file to update {raw}")
            text = _updated(_read(path), lines[start:index], raw)
            if moved is None:
                changes[path] = text
            else:
                changes[path], changes[_target(moved, base, resolve)] = None, text
            summary.append(f"M {moved or raw}")
        else:
            raise ToolError(f"'{line}' is not a valid hunk header")
    for path, change in changes.items():
        if change is None:
            if os.path.isfile(path):
                os.remove(path)
        else:
            _write(path, change)
    return "Success. Updated the following files:\n" + "".join(f"{s}\n" for s in summary)


def _target(raw: str, base: str, resolve: Callable[[str], str]) -> str:
    raw = raw.strip()
    return resolve(raw if raw.startswith("/") else f"{base.rstrip('/')}/{raw}")


def _updated(text: str, body: list[str], raw: str) -> str:
    """``text`` with an update's hunks applied, as Codex applies them."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    replacements: list[tuple[int, int, list[str]]] = []
    position = 0
    for hunk in _hunks(body, raw):
        context, old, new, at_end = hunk.context, hunk.old, hunk.new, hunk.at_end
        if context is not None:
            found = _seek(lines, [context], position, False)
            if found is None:
                raise ToolError(f"Failed to find context '{context}' in {raw}")
            position = found + 1
        if not old:
            replacements.append((len(lines), 0, new))
            continue
        found = _seek(lines, old, position, at_end)
        if found is None and old[-1] == "":
            old, new = old[:-1], new[:-1] if new and new[-1] == "" else new
            found = _seek(lines, old, position, at_end)
        if found is None:
            raise ToolError(f"Failed to find expected lines in {raw}:\n" + "\n".join(old))
        replacements.append((found, len(old), new))
        position = found + len(old)
    for start, length, new in sorted(replacements, reverse=True):
        lines[start : start + length] = new
    return "\n".join(lines) + "\n"


@dataclass
class Hunk:
    """One hunk of an update: its ``@@`` context line (or None), the lines it replaces and those it
    writes, and whether it is anchored at the end of the file."""

    context: str | None = None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    at_end: bool = False


def _hunks(body: list[str], raw: str) -> list[Hunk]:
    """The hunks of an update, as Codex parses them."""
    hunks: list[Hunk] = []
    for line in body:
        if line.startswith("@@"):
            hunks.append(Hunk(line[2:].strip() or None))
            continue
        if line.strip() == END_OF_FILE:
            if hunks:
                hunks[-1].at_end = True
            continue
        if not hunks:
            hunks.append(Hunk())
        marker, rest = (line[:1], line[1:]) if line else (" ", "")
        if marker not in " -+":
            raise ToolError(f"Unexpected line in the update of {raw}: '{line}'")
        if marker != "+":
            hunks[-1].old.append(rest)
        if marker != "-":
            hunks[-1].new.append(rest)
    if not hunks:
        raise ToolError(f"Update file hunk for path '{raw}' is empty")
    return hunks


_LOOSER: tuple[Callable[[str, str], bool], ...] = (
    lambda a, b: a == b,
    lambda a, b: a.rstrip() == b.rstrip(),
    lambda a, b: a.strip() == b.strip(),
)
"""How a hunk's lines are matched, strictest first: exactly, then without trailing whitespace, then
without surrounding whitespace."""


def _seek(lines: list[str], pattern: list[str], start: int, at_end: bool) -> int | None:
    """Where ``pattern`` starts in ``lines`` from ``start`` (at the end first when ``at_end``):
    exactly, then ignoring trailing whitespace, then surrounding whitespace; None when nowhere."""
    last = len(lines) - len(pattern)
    if last < start:
        return None
    order = [last, *range(start, last + 1)] if at_end else range(start, last + 1)
    for same in (
        lambda a, b: a == b,
        lambda a, b: a.rstrip() == b.rstrip(),
        lambda a, b: a.strip() == b.strip(),
    ):
        for i in order:
            if all(same(lines[i + k], p) for k, p in enumerate(pattern)):
                return i
    return None
