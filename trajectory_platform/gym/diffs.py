"""Unified diffs: the one reader of a diff's file names and hunks, and the one way to apply it.

Everything that reads a unified diff goes through :func:`parse_unified_diff`: the verifier
cascade (which paths an episode touched, the lines it added, the tamper screen) and the gym's
applier (:func:`apply_patches`, which builds the post-image the oracle judges and training sees).
Two readers that disagree on a file name let an episode show one file to the checks and write
another (red team: ``+++ XXconftest.py``, ``+++ <TAB>b/other.py``), so the names are read once,
strictly, and anything else is refused with :class:`PatchError`:

- ``--- a/PATH`` or ``--- /dev/null``, then ``+++ b/PATH`` or ``+++ /dev/null`` (git's form),
  each optionally followed by a TAB and a timestamp (GNU ``diff -u``) or by a bare TAB (git, for a
  name with a space);
- a path is relative and normalized: no leading ``/``, no empty, ``.`` or ``..`` segment, no NUL or
  other control character, no backslash, no segment with surrounding whitespace, not quoted;
- the old and new names agree, unless the file is created (``--- /dev/null``), deleted
  (``+++ /dev/null``) or renamed as git writes it (``diff --git a/OLD b/NEW`` with ``rename from``
  / ``rename to``); a ``diff --git`` line, when present, names the same files as the headers.

A diff written with CRLF line endings throughout (a log saved on Windows) is read as the LF diff it
was: only when every line ends in CRLF, so a git diff of CRLF files (LF headers) keeps its CRs.
Lines are split at LF only, in the diff and in the files it applies to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NULL_PATH = "/dev/null"

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STAMP = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?(?: [+-]\d{4})?"
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?: [A-Z]{3,5})? \d{4})$"
)
"""A GNU ``diff -u`` timestamp (``2024-05-01 12:00:00.000000000 +0200``) or a ``ctime`` one."""
_GIT_META = (
    "index ",
    "old mode ",
    "new mode ",
    "new file mode ",
    "deleted file mode ",
    "similarity index ",
    "dissimilarity index ",
)
"""``diff --git`` extended header lines that name no file and change no content of a file map."""
_REFUSED_META = ("copy from ", "copy to ", "Binary files ", "GIT binary patch")
"""Extended header lines of changes a file map cannot take (copies, binary content)."""


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
    """Tagged lines (`` ``, ``-``, ``+`` and the text, without its LF)."""
    no_eol: set[int] = field(default_factory=set)
    """Indices into ``lines`` of lines with no LF after them (``\\ No newline at end of file``)."""

    @property
    def added(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("+")]


@dataclass
class FilePatch:
    """One file's change; ``old_path``/``new_path`` are ``None`` for a created/deleted file and
    differ for a rename."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path the change concerns (the new one, or the old one for a deletion)."""
        return self.new_path or self.old_path or ""

    @property
    def paths(self) -> list[str]:
        """Every path the change touches: both names of a rename."""
        return sorted({p for p in (self.old_path, self.new_path) if p is not None})

    @property
    def added_lines(self) -> list[str]:
        return [line for h in self.hunks for line in h.added]


def file_lines(text: str) -> list[str]:
    """``text`` split after each LF (the last line may have none): a CR, form feed or line
    separator is part of its line, as in git."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def check_path(path: str, line: int | None = None) -> str:
    """``path`` when it is a relative, normalized file name a diff may carry; else PatchError."""
    if not path:
        raise PatchError("empty file name", line)
    if path.startswith('"'):
        raise PatchError(f"quoted file name {path!r} is not supported", line)
    if path.startswith("/"):
        raise PatchError(f"absolute file name {path!r}", line)
    if any(ord(c) < 32 or ord(c) == 127 for c in path) or "\\" in path:
        raise PatchError(f"file name {path!r} holds a control character or a backslash", line)
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            raise PatchError(f"file name {path!r} is not normalized (empty, '.' or '..' part)", line)
        if segment != segment.strip():
            raise PatchError(f"file name {path!r} has a part with surrounding whitespace", line)
    return path


def header_path(line: str, number: int | None = None) -> str | None:
    """The file a ``--- `` / ``+++ `` header names (``None`` for /dev/null); PatchError otherwise.

    The one reading of a header: ``--- a/PATH`` / ``+++ b/PATH``, an optional TAB with a timestamp
    (or nothing) after it."""
    marker, prefix = line[:4], {"--- ": "a/", "+++ ": "b/"}.get(line[:4])
    if prefix is None:
        raise PatchError(f"not a file header: {line[:40]!r}", number)
    name, tab, stamp = line[4:].partition("\t")
    if tab and stamp and not _STAMP.match(stamp):
        raise PatchError(f"{marker.strip()} header: {stamp[:40]!r} after the TAB is not a timestamp", number)
    if name == NULL_PATH:
        return None
    if not name.startswith(prefix):
        raise PatchError(
            f"{marker.strip()} header must name {prefix}PATH or {NULL_PATH}, not {name[:60]!r}", number
        )
    return check_path(name[len(prefix) :], number)


def _normalized(text: str) -> str:
    """A diff whose every line ends in CRLF, as the LF diff it was (see the module docstring)."""
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):
        return text.replace("\r\n", "\n")
    return text


@dataclass
class _GitHeader:
    """A ``diff --git`` line and the extended header lines after it."""

    names: str
    line: int
    created: bool = False
    deleted: bool = False
    rename_from: str | None = None
    rename_to: str | None = None

    def names_of(self, old: str, new: str) -> bool:
        return self.names == f"a/{old} b/{new}"

    def bare_patch(self) -> FilePatch:
        """The change of a block without ``---``/``+++`` lines: a pure rename, or an empty file
        created or deleted."""
        if self.rename_from is not None or self.rename_to is not None:
            if self.rename_from is None or self.rename_to is None:
                raise PatchError("'rename from' without 'rename to' (or the reverse)", self.line)
            old, new = check_path(self.rename_from, self.line), check_path(self.rename_to, self.line)
            if not self.names_of(old, new) or old == new or self.created or self.deleted:
                raise PatchError("'diff --git' line disagrees with its rename", self.line)
            return FilePatch(old, new)
        size = (len(self.names) - 5) // 2
        name = self.names[2 : 2 + size]
        if not self.names_of(name, name) or self.created == self.deleted:
            raise PatchError("'diff --git' block changes nothing a file map holds", self.line)
        check_path(name, self.line)
        return FilePatch(None, name) if self.created else FilePatch(name, None)

    def check(self, patch: FilePatch) -> None:
        """The ``---``/``+++`` names agree with this block's ``diff --git`` line and metadata."""
        old, new = patch.old_path, patch.new_path
        if not self.names_of(old or new or "", new or old or ""):
            raise PatchError("'diff --git' line names other files than its '---'/'+++' headers", self.line)
        if (self.created and old is not None) or (self.deleted and new is not None):
            raise PatchError("'new/deleted file mode' disagrees with the /dev/null headers", self.line)
        renamed = old is not None and new is not None and old != new
        if renamed != (self.rename_from is not None or self.rename_to is not None) or (
            renamed and (self.rename_from, self.rename_to) != (old, new)
        ):
            raise PatchError("'rename from'/'rename to' disagree with the '---'/'+++' headers", self.line)


def _file_header(lines: list[str], i: int, git: _GitHeader | None) -> FilePatch:
    """The change lines ``i`` and ``i + 1`` (``---`` and ``+++``, LF included) name."""
    following = lines[i + 1].removesuffix("\n") if i + 1 < len(lines) else ""
    if not following.startswith("+++ "):
        raise PatchError("'---' header without a '+++' header", i + 1)
    patch = FilePatch(header_path(lines[i].removesuffix("\n"), i + 1), header_path(following, i + 2))
    old, new = patch.old_path, patch.new_path
    if old is None and new is None:
        raise PatchError("both sides of a file header are /dev/null", i + 1)
    if git is not None:
        git.check(patch)
    elif old is not None and new is not None and old != new:
        raise PatchError(f"'---' names {old!r} but '+++' names {new!r}, without a git rename", i + 1)
    return patch


def _hunk(lines: list[str], i: int) -> tuple[Hunk, int]:
    match = _HUNK.match(lines[i])
    if match is None:
        raise PatchError("malformed hunk header", i + 1)
    old_len, new_len = int(match.group(2) or 1), int(match.group(4) or 1)
    hunk = Hunk(int(match.group(1)), old_len, int(match.group(3)), new_len)
    i += 1
    seen_old = seen_new = 0
    while i < len(lines) and (seen_old < old_len or seen_new < new_len or lines[i].startswith("\\")):
        raw = lines[i]
        body = raw[:-1] if raw.endswith("\n") else raw
        i += 1
        if body.startswith("\\"):
            if not hunk.lines:
                raise PatchError("'\\ No newline' marker before any hunk line", i)
            hunk.no_eol.add(len(hunk.lines) - 1)
            continue
        tag = body[:1] if body else " "
        if tag not in " +-":
            raise PatchError(f"unexpected hunk line starting with {tag!r}", i)
        seen_old += tag in " -"
        seen_new += tag in " +"
        hunk.lines.append(body if body else " ")
        if not raw.endswith("\n"):
            hunk.no_eol.add(len(hunk.lines) - 1)
    if seen_old != old_len or seen_new != new_len:
        raise PatchError("hunk shorter than its header declares", i)
    return hunk, i


def parse_unified_diff(text: str) -> list[FilePatch]:
    """Parse a (possibly multi-file) unified diff with strict file headers (module docstring)."""
    patches: list[FilePatch] = []
    lines = file_lines(_normalized(text))
    git: _GitHeader | None = None
    current: FilePatch | None = None

    def close_git() -> None:
        if git is not None and current is None:
            patches.append(git.bare_patch())

    i = 0
    while i < len(lines):
        line = lines[i].removesuffix("\n")
        if line.startswith("diff --git "):
            close_git()
            git, current = _GitHeader(line[len("diff --git ") :], i + 1), None
        elif line.startswith("--- "):
            if current is not None:
                git = None  # a plain diff's file after a git block's
            current = _file_header(lines, i, git)
            patches.append(current)
            i += 1
        elif line.startswith("+++ "):
            raise PatchError("'+++' header without a '---' header", i + 1)
        elif line.startswith("@@"):
            if current is None:
                raise PatchError("hunk before a file header", i + 1)
            hunk, i = _hunk(lines, i)
            current.hunks.append(hunk)
            continue
        elif git is not None and current is None:
            if line.startswith("rename from "):
                git.rename_from = line[len("rename from ") :]
            elif line.startswith("rename to "):
                git.rename_to = line[len("rename to ") :]
            elif line.startswith("new file mode "):
                git.created = True
            elif line.startswith("deleted file mode "):
                git.deleted = True
            elif line.startswith(_REFUSED_META):
                raise PatchError(f"unsupported git change: {line[:40]!r}", i + 1)
            elif not line.startswith(_GIT_META):
                raise PatchError(f"unexpected line in a 'diff --git' header: {line[:40]!r}", i + 1)
        # other lines outside a file (a preamble, 'diff -ru' command lines) carry nothing
        i += 1
    close_git()
    if text.strip() and not patches:
        raise PatchError("no file headers found", 1)
    seen: set[str] = set()
    for patch in patches:
        for path in patch.paths:
            if path in seen:
                raise PatchError(f"{path!r} is changed twice in one diff", path=path)
            seen.add(path)
    return patches


def _apply_hunks(source: list[str], patch: FilePatch) -> str:
    path = patch.path
    out: list[str] = []
    cursor = 0
    for hunk in patch.hunks:
        start = hunk.old_start - (0 if hunk.old_len == 0 else 1)
        if start < cursor or start > len(source):
            where = f"{path}: hunk at line {hunk.old_start}"
            raise PatchError(f"{where} overlaps the one before or starts past the end", path=path)
        out.extend(source[cursor:start])
        cursor = start
        for index, tagged in enumerate(hunk.lines):
            tag, body = tagged[:1], tagged[1:]
            if tag in (" ", "-"):
                have = source[cursor] if cursor < len(source) else None
                if have is None or have.removesuffix("\n") != body:
                    raise PatchError(f"{path}: context mismatch at line {cursor + 1}", path=path)
                cursor += 1
                if tag == " ":
                    out.append(have if index not in hunk.no_eol else have.removesuffix("\n"))
            else:
                out.append(body if index in hunk.no_eol else body + "\n")
    out.extend(source[cursor:])
    return "".join(out)


def apply_patches(files: dict[str, str], patches: list[FilePatch]) -> dict[str, str]:
    """``files`` with ``patches`` applied; context must match. PatchError names the file at fault."""
    result = dict(files)
    for patch in patches:
        old, new = patch.old_path, patch.new_path
        if old is not None and old not in result:
            raise PatchError(f"diff modifies {old!r}, which does not exist", path=old)
        if new is not None and new != old and new in result:
            raise PatchError(f"diff creates {new!r}, which already exists", path=new)
        text = _apply_hunks(file_lines(result.get(old, "")) if old is not None else [], patch)
        if old is not None:
            del result[old]
        if new is not None:
            result[new] = text
        elif text:
            raise PatchError(f"diff deletes {old!r} but leaves some of its lines", path=old)
    return result
