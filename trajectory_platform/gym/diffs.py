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
  other control character, no backslash, no segment with surrounding whitespace;
- a name in double quotes is git's C-style quoting (``"b/caf\\303\\251.py"``, what git writes for a
  name outside printable ASCII): it is read back to the name, and accepted only where git would quote
  (a name that needs no quotes in quotes is no diff git writes, and is refused);
- the old and new names agree, unless the file is created (``--- /dev/null``), deleted
  (``+++ /dev/null``) or renamed as git writes it (``diff --git a/OLD b/NEW`` with ``rename from``
  / ``rename to``); a ``diff --git`` line, when present, names the same files as the headers;
- GNU ``diff -N`` marks a file missing on one side with an epoch timestamp (``1970-01-01 00:00:00``
  in the writer's time zone) and an empty range (``-0,0`` / ``+0,0``): outside a ``diff --git``
  block that pair reads as a creation (deletion), as GNU ``patch`` reads it.

Line ends are read as ``git apply`` reads them (its default configuration). Lines are split at LF
only, in the diff and in the files it applies to, and a hunk line's CR is part of its text: a
context or removed line ``old\r`` matches a file line ``old\r\n`` and nothing else, and an added
line ``new\r`` writes ``new\r\n``. A CR that ends a header line (``diff --git``, ``---``/``+++``,
an extended header, ``@@``) ends it, as git ends a name or a number at it. So a whole diff saved
with CRLF line ends (a log written on Windows) applies to files whose lines end in CRLF and to
nothing else: an earlier version read such a diff as the LF diff it may once have been, and
certified a patch ``git apply`` refuses on the LF checkout it was judged against (red team,
2026-12-06); a git diff of CRLF files, headers LF or CRLF, still applies.
"""

from __future__ import annotations

import datetime as dt
import re
import stat
from dataclasses import dataclass, field

NULL_PATH = "/dev/null"

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STAMP = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?(?: [+-]\d{4})?"
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?: [A-Z]{3,5})? \d{4})$"
)
"""A GNU ``diff -u`` timestamp (``2024-05-01 12:00:00.000000000 +0200``) or a ``ctime`` one."""
_ISO_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?: ([+-]\d{2})(\d{2}))?$")
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
"""The one-letter escapes of git's C-style name quoting (``quote.c``); any other byte is ``\\NNN``."""
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
_MODE_KEYWORDS = ("old mode", "new mode", "new file mode", "deleted file mode")
"""The extended header lines that carry a file's git mode (``index OLD..NEW MODE`` does too)."""
_HEADER_KEYWORDS = (*_MODE_KEYWORDS, "index ", "rename ", "copy ", "similarity ", "dissimilarity ")
"""Lines git reads as a ``diff --git`` block's extended header, also where they follow ``+++``."""


def _git_mode(line: str) -> str | None:
    """The mode a git extended header line states, as git reads it (the number after the keyword,
    blanks around it skipped: ``new file mode  120000`` is a link too), else ``None``."""
    for keyword in _MODE_KEYWORDS:
        if line.startswith(keyword) and line[len(keyword) : len(keyword) + 1].isspace():
            return line[len(keyword) :].strip()
    if line.startswith("index "):
        parts = line.split()
        return parts[2] if len(parts) == 3 else None
    return None


def _regular_file_mode(mode: str) -> bool:
    """Whether a git mode is a regular file's (``100644``/``100755``, however written). Any other
    (``120000`` a symbolic link, ``160000`` a submodule) is no text a file map holds: read as text it
    would be judged as a module that ``git apply`` makes a link (red team, 2026-12-06: a diff
    creating ``calc/fast.py`` as a link to the text ``add = lambda a, b: a + b`` was judged as that
    module; on a real checkout the import fails)."""
    return bool(re.fullmatch(r"[0-7]+", mode)) and stat.S_ISREG(int(mode, 8))


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
    return _header(line, number)[0]


def _header(line: str, number: int | None) -> tuple[str | None, bool]:
    """:func:`header_path`, and whether the header's timestamp is the epoch (GNU ``diff -N``)."""
    marker, prefix = line[:4], {"--- ": "a/", "+++ ": "b/"}.get(line[:4])
    if prefix is None:
        raise PatchError(f"not a file header: {line[:40]!r}", number)
    name, tab, stamp = line[4:].partition("\t")
    if tab and stamp and not _STAMP.match(stamp):
        raise PatchError(f"{marker.strip()} header: {stamp[:40]!r} after the TAB is not a timestamp", number)
    if name == NULL_PATH:
        return None, False
    name = _git_unquoted(name, number)
    if not name.startswith(prefix):
        raise PatchError(
            f"{marker.strip()} header must name {prefix}PATH or {NULL_PATH}, not {name[:60]!r}", number
        )
    return check_path(name[len(prefix) :], number), _is_epoch(stamp)


def _is_epoch(stamp: str) -> bool:
    """Is ``stamp`` the Unix epoch in the writer's time zone (how ``diff -N`` dates a missing file)?"""
    match = _ISO_STAMP.match(stamp)
    if match is None or (match[3] or "").strip("0"):
        return False
    day, time, hours, minutes = match[1], match[2], match[4] or "+00", match[5] or "00"
    return dt.datetime.fromisoformat(f"{day}T{time}{hours}:{minutes}").timestamp() == 0


def _needs_git_quotes(name: str) -> bool:
    """Would git (``core.quotePath``, its default) write ``name`` in C-style quotes?"""
    return any(c in '"\\' or ord(c) < 32 or ord(c) >= 127 for c in name)


def _git_quoted(name: str) -> str:
    """``name`` as git writes it in a diff header: itself, or C-quoted where git quotes."""
    if not _needs_git_quotes(name):
        return name
    escapes = {code: letter for letter, code in _C_ESCAPES.items()}
    body = "".join(
        f"\\{escapes[b]}" if b in escapes else chr(b) if 32 <= b < 127 else f"\\{b:03o}"
        for b in name.encode("utf-8", "surrogateescape")
    )
    return f'"{body}"'


def _git_unquoted(text: str, number: int | None = None) -> str:
    """``text`` as a name: itself, or, in double quotes, git's C-style quoting read back (UTF-8).

    Only a quoting git writes is read: the whole of ``text`` in quotes, known escapes, and a name
    git would quote. Anything else is PatchError, not a guess."""
    if not text.startswith('"'):
        return text
    if len(text) < 2 or not text.endswith('"'):
        raise PatchError(f"unterminated quoted file name {text[:60]!r}", number)
    raw, i, body = bytearray(), 0, text[1:-1]
    while i < len(body):
        char = body[i]
        if char == '"':
            raise PatchError(f"quoted file name {text[:60]!r} has an unescaped quote", number)
        if char != "\\":
            raw += char.encode("utf-8")
            i += 1
        elif body[i + 1 : i + 2] in _C_ESCAPES:
            raw.append(_C_ESCAPES[body[i + 1]])
            i += 2
        elif re.fullmatch(r"[0-3][0-7]{2}", body[i + 1 : i + 4]):
            raw.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise PatchError(f"quoted file name {text[:60]!r} has an unknown escape", number)
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PatchError(f"quoted file name {text[:60]!r} is not UTF-8", number) from None
    if not _needs_git_quotes(name):
        raise PatchError(f"file name {text[:60]!r} is quoted where git writes it bare", number)
    return name


def _header_line(line: str) -> str:
    """A line outside a hunk's body without its line end: LF, and a CR before it, which git reads
    as the blank that ends the line's last name or number (see the module docstring)."""
    return line.removesuffix("\n").removesuffix("\r")


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
        """Does the ``diff --git`` line name ``old`` and ``new``, bare or in git's quotes?"""
        return self.names in (f"a/{old} b/{new}", f"{_git_quoted('a/' + old)} {_git_quoted('b/' + new)}")

    def own_name(self) -> str:
        """The one file a ``diff --git`` line without ``---``/``+++`` names on both sides."""
        if self.names.startswith('"'):
            return _git_unquoted(self.names[: len(self.names) // 2], self.line)[2:]
        return self.names[2 : 2 + (len(self.names) - 5) // 2]

    def bare_patch(self) -> FilePatch:
        """The change of a block without ``---``/``+++`` lines: a pure rename, or an empty file
        created or deleted."""
        if self.rename_from is not None or self.rename_to is not None:
            if self.rename_from is None or self.rename_to is None:
                raise PatchError("'rename from' without 'rename to' (or the reverse)", self.line)
            old = check_path(_git_unquoted(self.rename_from, self.line), self.line)
            new = check_path(_git_unquoted(self.rename_to, self.line), self.line)
            if not self.names_of(old, new) or old == new or self.created or self.deleted:
                raise PatchError("'diff --git' line disagrees with its rename", self.line)
            return FilePatch(old, new)
        name = self.own_name()
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
        named = tuple(_git_unquoted(n, self.line) if n else n for n in (self.rename_from, self.rename_to))
        if renamed != (self.rename_from is not None or self.rename_to is not None) or (
            renamed and named != (old, new)
        ):
            raise PatchError("'rename from'/'rename to' disagree with the '---'/'+++' headers", self.line)


def _file_header(lines: list[str], i: int, git: _GitHeader | None) -> tuple[FilePatch, str | None]:
    """The change lines ``i`` and ``i + 1`` (``---`` and ``+++``, LF included) name, and the side
    (``"old"``/``"new"``) a GNU ``diff -N`` header dates to the epoch, if any."""
    following = _header_line(lines[i + 1]) if i + 1 < len(lines) else ""
    if not following.startswith("+++ "):
        raise PatchError("'---' header without a '+++' header", i + 1)
    (old, old_epoch), (new, new_epoch) = (
        _header(_header_line(lines[i]), i + 1),
        _header(following, i + 2),
    )
    patch = FilePatch(old, new)
    if old is None and new is None:
        raise PatchError("both sides of a file header are /dev/null", i + 1)
    if git is not None:
        git.check(patch)
    elif old is not None and new is not None and old != new:
        raise PatchError(f"'---' names {old!r} but '+++' names {new!r}, without a git rename", i + 1)
    epoch_side = None if git is not None or old_epoch == new_epoch else "old" if old_epoch else "new"
    return patch, epoch_side


def _read_missing_side(patch: FilePatch, side: str) -> None:
    """GNU ``diff -N``: a side dated to the epoch whose one hunk is empty there is a file that did
    not exist (created when it is the old side, deleted when the new), as GNU ``patch`` reads it."""
    hunk = patch.hunks[0] if len(patch.hunks) == 1 else None
    if hunk is None:
        return
    if side == "old" and (hunk.old_start, hunk.old_len) == (0, 0):
        patch.old_path = None
    elif side == "new" and (hunk.new_start, hunk.new_len) == (0, 0):
        patch.new_path = None


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
    lines = file_lines(text)
    git: _GitHeader | None = None
    current: FilePatch | None = None
    epoch_sides: list[tuple[FilePatch, str]] = []

    def close_git() -> None:
        if git is not None and current is None:
            patches.append(git.bare_patch())

    i = 0
    while i < len(lines):
        line = _header_line(lines[i])
        if line.startswith("diff --git "):
            close_git()
            git, current = _GitHeader(line[len("diff --git ") :], i + 1), None
        elif line.startswith("--- "):
            if current is not None:
                git = None  # a plain diff's file after a git block's
            current, epoch_side = _file_header(lines, i, git)
            patches.append(current)
            if epoch_side is not None:
                epoch_sides.append((current, epoch_side))
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
            if (mode := _git_mode(line)) is not None and not _regular_file_mode(mode):
                raise PatchError(f"unsupported git change: mode {mode[:12]!r} is no regular file", i + 1)
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
        elif current is not None and not current.hunks and line.startswith(_HEADER_KEYWORDS):
            # git reads a header line here too (a mode after '+++' makes a link or fails to apply)
            raise PatchError(f"git header line after the file's '---'/'+++': {line[:40]!r}", i + 1)
        # other lines outside a file (a preamble, 'diff -ru' command lines) carry nothing
        i += 1
    close_git()
    if text.strip() and not patches:
        raise PatchError("no file headers found", 1)
    for patch, side in epoch_sides:
        _read_missing_side(patch, side)
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
        if _anchored_at_end(hunk) and cursor != len(source):
            # git refuses it here, or applies it at the end instead: either way the judged file
            # would not be the one a git consumer of the recorded patch gets (red team, 2026-12-06)
            where = f"{path}: hunk at line {hunk.old_start}"
            raise PatchError(f"{where} has no trailing context but does not end the file", path=path)
    out.extend(source[cursor:])
    return "".join(out)


def _anchored_at_end(hunk: Hunk) -> bool:
    """Does git apply anchor ``hunk`` at the end of its file? It does a hunk with no context after
    its last change (``diff -U0`` output included, without ``--unidiff-zero``): it matches such a
    hunk's old lines only against the file's last lines, whatever line the header states."""
    return bool(hunk.lines) and hunk.lines[-1][:1] != " "


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
