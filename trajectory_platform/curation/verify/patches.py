"""Unified-diff parsing: the workspace diff is the episode's claim about its final state.

Stage 1 requires the recorded final diff (and any patch passed as a tool argument) to parse; a
diff that does not raises :class:`PatchError` naming the diff line at fault. Parsing needs no
fixture, so it also tells which paths an imported log touched and which lines it added.
Applying the diff to S0 is the gym's job (``gym.sandbox.apply_diff``), done in stage 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NULL_PATH = "/dev/null"


class PatchError(ValueError):
    """A diff that cannot be parsed or applied; ``line`` is 1-based within the diff text."""

    def __init__(self, message: str, line: int | None = None, path: str | None = None) -> None:
        where = f" (diff line {line})" if line else ""
        super().__init__(f"{message}{where}")
        self.line = line
        self.path = path


@dataclass
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[str] = field(default_factory=list)

    @property
    def added(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("+")]


@dataclass
class FilePatch:
    """One file's change; ``old_path``/``new_path`` are ``None`` for a created/deleted file."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path the change concerns (the new one, or the old one for a deletion)."""
        return self.new_path or self.old_path or ""

    @property
    def added_lines(self) -> list[str]:
        return [line for h in self.hunks for line in h.added]


def _strip_prefix(raw: str) -> str | None:
    path = raw.split("\t", 1)[0].strip()
    if path == NULL_PATH:
        return None
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path


def parse_unified_diff(text: str) -> list[FilePatch]:
    """Parse a (possibly multi-file) unified diff; ``git diff`` headers are accepted and skipped."""
    patches: list[FilePatch] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- "):
            if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
                raise PatchError("'---' header without a '+++' header", i + 1)
            patch = FilePatch(_strip_prefix(line[4:]), _strip_prefix(lines[i + 1][4:]))
            if patch.old_path is None and patch.new_path is None:
                raise PatchError("both sides of a file header are /dev/null", i + 1)
            patches.append(patch)
            i += 2
            continue
        if line.startswith("@@"):
            match = _HUNK.match(line)
            if match is None or not patches:
                raise PatchError("malformed hunk header or hunk before a file header", i + 1)
            old_len = int(match.group(2) or 1)
            new_len = int(match.group(4) or 1)
            hunk = Hunk(int(match.group(1)), old_len, int(match.group(3)), new_len)
            i += 1
            seen_old = seen_new = 0
            while (seen_old < old_len or seen_new < new_len) and i < len(lines):
                body = lines[i]
                if body.startswith("\\"):
                    i += 1
                    continue
                tag = body[:1] if body else " "
                if tag not in " +-":
                    raise PatchError(f"unexpected hunk line starting with {tag!r}", i + 1)
                seen_old += tag in " -"
                seen_new += tag in " +"
                hunk.lines.append(body if body else " ")
                i += 1
            if seen_old != old_len or seen_new != new_len:
                raise PatchError("hunk shorter than its header declares", i)
            patches[-1].hunks.append(hunk)
            continue
        i += 1  # git metadata lines ("diff --git", "index", "new file mode", ...)
    if text.strip() and not patches:
        raise PatchError("no file headers found", 1)
    return patches
