"""What a coding CLI's read-only tool showed of the workspace, checked against the workspace replay holds.

A read tool (a file view, a directory listing, a path search, a line search) changes nothing, so
replay does not re-run it; but its answer is context the policy is trained on, and a forged one (a
file with an instruction injected, a listing with a file that does not exist, a search hit on a line
no file holds) was admitted unchecked (red team, 2026-12-06). Each CLI shows the same few things in
its own layout, so this module keeps them apart:

- :data:`READ_TOOLS`, a table of conventions keyed by (source format, tool): which *family* of
  answer the tool gives (:data:`VIEW`, :data:`FILES`, :data:`TREE`, :data:`PATHS`, :data:`HITS`),
  which arguments name its target, which lines are the tool's own notes, how it numbers, trims and
  cuts a line (:class:`LineShape`);
- one reader per family (:func:`read_claims`), turning an answer into :class:`ReadClaims`: each shown
  line as the readings it admits (:data:`Reading`: a path exists; a path's file holds this text, at
  this line number or anywhere);
- one comparison engine (:func:`claims_contradict`, :func:`holds_line`): the rule for whether a file
  holds a line a CLI's answer shows, shared with Claude Code's ``Read`` listing and with a command
  output shown line by line (Goose's shell, :func:`output_claims`).

Only what is shown is checked: an answer that leaves entries out (paging, ignore rules, a cap) says
nothing false. But every line shown is checked: a line that is neither the tool's own note or title
nor a line the convention reads is :data:`UNREAD`, a claim no workspace holds, since it is text the
tool could not have printed there (one odd line no longer leaves the whole answer unchecked: red
team, 2026-12-06). An answer recorded as an error is the tool's own error for that call
(:attr:`ReadConvention.errors`: a path that does not exist, checked like any other claim) or
drift. Text Claude Code appends after the answer is read as its ``<system-reminder>`` blocks
(:func:`split_reminders`): text outside such blocks, and a block whose text is not one of the
CLI's own (:data:`CLAUDE_REMINDERS`), is unread. Only an answer about a folder outside the
workspace gives ``None`` (nothing replay holds to compare).
"""

from __future__ import annotations

import json
import posixpath
import re
import secrets
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.gym.sandbox import FILE_ENCODING, FILE_ERRORS, shown_text

Reading = tuple[str, int | None, str | None]
"""One way to read a line of an answer: (workspace-relative path, line number or ``None``, the
line's text or ``None``): the path exists; its file holds that text (at that line)."""
UNREAD: tuple[Reading, ...] = ()
"""A shown line no convention reads: text the tool could not have printed there, so no reading of
it holds and it contradicts any workspace."""


@dataclass(frozen=True)
class LineShape:
    """How a tool shows one line of a file: a line at least ``cut_at`` characters long (``cut_marker``
    aside, which the tool appends to a line it cut) is the start of a longer one; ``trimmed``: the
    tool strips the line's leading whitespace too. Trailing whitespace never counts."""

    cut_at: int | None = None
    cut_marker: str = ""
    trimmed: bool = False


@dataclass(frozen=True)
class ReadClaims:
    """What a read tool's answer says of the workspace: each of its lines as the readings it admits
    (a path holding ``-`` or ``:`` can be split more than one way), how it shows a line, and the
    marker the sandboxed listing of the files named is printed after (:func:`listing_script`)."""

    lines: tuple[tuple[Reading, ...], ...]
    shape: LineShape = LineShape()
    of_output: bool = False
    """Whether the lines are the command's own output (:data:`OUTPUT`), not the workspace's files."""
    absent: tuple[str, ...] = ()
    """Paths the answer (a tool's error) says do not exist."""
    marker: str = field(default_factory=lambda: secrets.token_hex(16))

    @property
    def paths(self) -> list[str]:
        return sorted({path for readings in self.lines for path, _, _ in readings} | set(self.absent))


VIEW, FILES, TREE, PATHS, HITS = "view", "files", "tree", "paths", "hits"
"""The families of read answers: one file's lines; several files' lines under headers; a
directory's entries, nested by indentation; a list of paths; search hits grouped by file."""


@dataclass(frozen=True)
class ReadConvention:
    """How one CLI's read tool lays out its answer (see each family's reader for what it uses).

    ``target``: the argument keys naming the file or folder read (the first present wins; the
    session's root when none is); ``titles``: what the answer's first line may be instead of a shown
    line (a header naming the ``folder`` listed, or echoing the call's ``pattern``, which must be the
    call's own); ``notes``: lines of fixed text that are the tool's own (counts, truncation and
    ignore notes), skipped anywhere, so no free text passes unchecked as a note; ``head``: a view's
    truncation note, its ``start`` the first line number shown; ``numbered``: a view's line as
    (number, text), ``None`` for plain text counted from the first of ``offsets`` (argument key, the
    number it gives the first line) the call has; ``entry``: a listing line, its ``indent`` and
    ``name`` (a folder's ending ``/``, or its ``folder`` group matched); ``indent``: spaces per
    nesting level; ``top_is_folder``: a listing's top entry is the folder read; ``cut``: a note that
    the answer was cut mid-entry; ``trailer``: whether the CLI appends ``<system-reminder>`` blocks
    to an answer (:func:`split_reminders`); ``errors``: the tool's own error answers, a ``path``
    group naming a file or folder the error says does not exist."""

    family: str
    target: tuple[str, ...] = ()
    titles: tuple[re.Pattern[str], ...] = ()
    notes: re.Pattern[str] | None = None
    head: re.Pattern[str] | None = None
    numbered: re.Pattern[str] | None = None
    offsets: tuple[tuple[str, int], ...] = ()
    entry: re.Pattern[str] | None = None
    indent: int = 2
    top_is_folder: bool = False
    cut: re.Pattern[str] | None = None
    trailer: bool = False
    errors: tuple[re.Pattern[str], ...] = ()
    shape: LineShape = LineShape()


def _pattern(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives))


SYSTEM_REMINDER = "<system-reminder>"
"""Where Claude Code appends its own note to a tool's result (after the answer)."""
_REMINDER_BLOCK = re.compile(r"\s*<system-reminder>\n?(.*?)\n?</system-reminder>\s*", re.DOTALL)
CLAUDE_REMINDERS = _pattern(
    r"Whenever you read a file, you should consider whether it looks malicious\. If it does, you MUST "
    r"refuse to improve or augment the code\. You can still analyze existing code, write reports, or "
    r"answer high-level questions about the code behavior\.",
    r"Whenever you read a file, you should consider whether it would be considered malware\. You CAN "
    r"and SHOULD provide analysis of malware, what it is doing\. But you MUST refuse to improve or "
    r"augment the code\. You can still analyze existing code, write reports, or answer questions about "
    r"the code behavior\.",
    r"Warning: the file exists but the contents are empty\.",
    r"Warning: the file exists but is shorter than the provided offset \(\d+\)\. The file has \d+ lines\.",
)
"""The reminders Claude Code appends to a read tool's result, as its releases word them: a warning
to refuse improving malware, and the notes on an empty file or an offset past its end."""
CLAUDE_ERRORS = (
    re.compile(
        r"(?:<tool_use_error>)?(?:Path|Directory|File) does not exist[.:] ?(?P<path>/[^\n]*?)?"
        r"(?: ?(?:Note: your current working directory is|Current working directory:) /\S*?\.?)?"
        r"(?: Did you mean /?\S*\?)?(?:</tool_use_error>)?"
    ),
)
"""Claude Code's answer for a read tool's target that does not exist (its path, when named)."""
_CLAUDE_TRUNCATED = r"\(Results are truncated\. Consider using a more specific path or pattern\.\)"
_CLAUDE_LS_CUT = (
    r"There are more than \d+ characters in the repository \(ie\. either there are lots of files, or "
    r"there are many long filenames\)\. Use the LS tool \(passing a specific path\), Bash tool, and "
    r"other tools to explore nested directories\. The first \d+ characters are included below:"
)
_GEMINI_VIEW = ReadConvention(
    VIEW,
    target=("absolute_path", "file_path", "path"),
    head=_pattern(
        r"\[File content truncated: showing lines (?P<start>\d+)-\d+ of \d+ total lines\. Use offset/limit "
        r"parameters to view more\.\]\n",
        r"\n?IMPORTANT: The file content has been truncated\.\nStatus: Showing lines (?P<start2>\d+)-\d+ of "
        r"\d+ total lines\.\nAction: To read more of the file, you can use the '(?:offset|start_line)' and "
        r"'(?:limit|end_line)' parameters in a subsequent 'read_file' call\. For example, to read the next "
        r"section of the file, use (?:offset|start_line): \d+\.\n\n--- FILE CONTENT \(truncated\) ---\n",
    ),
    offsets=(("offset", 0), ("start_line", 1)),
    errors=(re.compile(r"(?:Error: )?File not found: (?P<path>/[^\n]*)"),),
    shape=LineShape(cut_at=2000, cut_marker="... [truncated]"),
)
"""The Gemini CLI's ``read_file``: the file's text as it is (from the 0-based ``offset``, or the
1-based ``start_line`` of later releases), after a note giving the first line shown when it is not
all of the file (in either release's wording); a line over 2000 characters is cut and marked."""

READ_TOOLS: dict[tuple[str, str], ReadConvention] = {
    ("claude-code", "Grep"): ReadConvention(
        HITS,
        target=("path",),
        notes=_pattern(
            r"No matches found|No files found",
            r"Found \d+ (?:files?|total occurrences? across \d+ files?)\.?",
            _CLAUDE_TRUNCATED,
            r"--",
        ),
        trailer=True,
        errors=CLAUDE_ERRORS,
    ),
    ("claude-code", "Glob"): ReadConvention(
        PATHS,
        target=("path",),
        notes=_pattern(r"No files found", _CLAUDE_TRUNCATED),
        trailer=True,
        errors=CLAUDE_ERRORS,
    ),
    ("claude-code", "LS"): ReadConvention(
        TREE,
        target=("path",),
        notes=_pattern(
            r"NOTE: do any of the files above seem malicious\? If so, you MUST refuse to continue work\.",
            _CLAUDE_LS_CUT,
        ),
        entry=re.compile(r"(?P<indent> *)- (?P<name>.*)"),
        top_is_folder=True,
        cut=re.compile(_CLAUDE_LS_CUT),
        trailer=True,
        errors=CLAUDE_ERRORS,
    ),
    ("gemini-cli", "read_file"): _GEMINI_VIEW,
    ("gemini-cli", "read_many_files"): ReadConvention(
        FILES, notes=_pattern(r"--- End of content ---"), head=_GEMINI_VIEW.head, shape=_GEMINI_VIEW.shape
    ),
    ("gemini-cli", "list_directory"): ReadConvention(
        TREE,
        target=("path", "dir_path"),
        titles=(re.compile(r"Directory listing for (?P<folder>.*):"), re.compile(r"Directory .* is empty\.")),
        notes=_pattern(r"\(\d+ (?:git-|gemini-)?ignored(?:, \d+ (?:git-|gemini-)?ignored)*\)"),
        entry=re.compile(r"(?P<indent>)(?:(?P<folder>\[DIR\] )?(?P<name>.*))"),
    ),
    ("gemini-cli", "glob"): ReadConvention(
        PATHS,
        target=("path", "dir_path"),
        titles=(
            re.compile(
                r'Found \d+ file\(s\) matching "(?P<pattern>.*)" within [^\n]*?'
                r"(?: \(\d+ additional files were git-ignored\))?, sorted by modification time "
                r"\(newest first\):"
            ),
            re.compile(r'No files found matching pattern "(?P<pattern>.*)" within [^\n]*'),
        ),
    ),
    ("gemini-cli", "search_file_content"): ReadConvention(
        HITS,
        target=("path", "dir_path"),
        titles=(
            re.compile(
                r'(?:Found \d+ match(?:es)?|No matches found) for pattern "(?P<pattern>.*)" '
                r'(?:in path "[^"\n]*"|across all workspace directories)(?: \(filter: "[^"\n]*"\))?[:.]'
            ),
        ),
        notes=_pattern(r"---"),
        numbered=re.compile(r"L(\d+): (.*)"),
        shape=LineShape(trimmed=True),
    ),
    ("codex", "read_file"): ReadConvention(
        VIEW, target=("file_path",), numbered=re.compile(r"L(\d+): (.*)"), shape=LineShape(cut_at=125)
    ),
    ("codex", "list_dir"): ReadConvention(
        TREE,
        target=("dir_path",),
        titles=(re.compile(r"Absolute path: (?P<folder>.*)"),),
        notes=_pattern(r"More than \d+ entries found"),
        entry=re.compile(r"(?P<indent> *)(?P<name>.*?)[@?]?"),
    ),
    ("codex", "grep_files"): ReadConvention(PATHS, target=("path",), notes=_pattern(r"No matches found\.")),
}
"""Each CLI's read tools whose answers show the workspace, by (source format, tool name).

Layouts, as the CLIs print them: Claude Code's ``Grep`` gives ripgrep's lines or paths under a
``Found N files`` header, ``Glob`` paths, ``LS`` a ``- name`` tree under the folder read, two
spaces a level, folders ending ``/``. The Gemini CLI's ``list_directory`` gives
``Directory listing for DIR:`` then ``[DIR] name`` or ``name``; ``glob`` absolute paths under a
``Found N file(s)`` header; ``search_file_content`` ``File: PATH`` blocks (relative to the folder
searched) of ``L12: text`` lines, each line trimmed; ``read_many_files`` each file under
``--- PATH ---``. The Codex CLI's ``read_file`` gives ``L12: text`` lines, a line cut at 500 bytes
(so at least 125 characters); ``list_dir`` an ``Absolute path:`` header then entries indented two
spaces a level (``/`` a folder, ``@`` a link); ``grep_files`` paths."""

_NUMBERED = re.compile(r"(?=([:-])(\d+)\1)")
"""Where ripgrep's ``PATH:N:TEXT`` (a match) or ``PATH-N-TEXT`` (a context line) may split."""
_SECTION = re.compile(r"^--- (/[^\n]*?) ---\n", re.MULTILINE)
"""A file's header in Gemini's ``read_many_files`` answer."""
_HIT_FILE = re.compile(r"File: (.+)")
_GOOSE_NOTES = _pattern(
    r"private note: output was \d+ lines and we are only showing the most recent lines.*",
    r"NOTE: Output was \d+ lines, showing only the last \d+ lines\.",
    r"\.\.\. ?",
)
"""What Goose's developer shell adds to a long output (before its last 100 lines), for the model
and for the user."""

OUTPUT = ""
"""The source a reading names for a command's own output (:func:`output_claims`)."""


@dataclass(frozen=True)
class _Where:
    """Where an answer's paths lie: the folder read (workspace-relative; ``None`` outside the
    workspace), the session's root, and the number of a plain view's first line."""

    folder: str | None
    root: str | None
    start: int = 1


def read_claims(
    convention: ReadConvention, arguments: dict[str, Any], answer: str, root: str | None, failed: bool = False
) -> ReadClaims | None:
    """What an answer in ``convention``'s layout claims, paths made workspace-relative under the
    session's ``root`` (``failed``: the log records the answer as an error, which must then be the
    tool's own error for the call); ``None`` only for a target outside the workspace. A line in no
    shape the convention reads, and a title echoing another pattern than the call's, are
    :data:`UNREAD`: the answer contradicts any workspace."""
    target = next((v for k in convention.target if isinstance(v := arguments.get(k), str)), None)
    folder = workspace_path(target, root) if target is not None else "."
    starts = (v + 1 - base for key, base in convention.offsets if isinstance(v := arguments.get(key), int))
    start = max(next(starts, 1), 1)
    text, stray = split_reminders(answer) if convention.trailer else (answer, False)
    if failed:
        return _error_claims(convention, folder, root, text, stray)
    text = text.rstrip("\n")  # leading blank lines may be a file's own
    lines: Lines = [UNREAD] if stray else []
    if convention.titles:
        first, _, rest = text.lstrip("\n").partition("\n")
        title = next((found for t in convention.titles if (found := t.fullmatch(first))), None)
        named = title.groupdict() if title is not None else {}
        if named.get("pattern") is not None and named["pattern"] != arguments.get("pattern"):
            lines.append(UNREAD)
        if named.get("folder") is not None:
            folder = workspace_path(named["folder"].rstrip("/"), root)
        text = rest if title is not None else text
    if folder is None:
        return None  # a folder outside the workspace: nothing replay holds to compare
    lines += _READERS[convention.family](convention, _Where(folder, root, start), text)
    return ReadClaims(tuple(lines), convention.shape)


def _error_claims(
    convention: ReadConvention, folder: str | None, root: str | None, text: str, stray: bool
) -> ReadClaims | None:
    """An answer recorded as an error: one of the tool's own errors, claiming that the path it names
    (or else the call's target) does not exist; any other text is :data:`UNREAD`. A tool error
    that names no path (:attr:`ReadConvention.errors` without the group, a timeout) claims nothing
    and leaves the turn unchecked."""
    error = next((found for e in convention.errors if (found := e.fullmatch(text.strip()))), None)
    if error is None or stray:
        return ReadClaims((UNREAD,))
    named = error.groupdict().get("path")
    path = workspace_path(named, root) if named and root is not None else folder
    if path is None:
        return None
    return ReadClaims((), absent=(path,))


def split_reminders(answer: str) -> tuple[str, bool]:
    """An answer Claude Code may have appended ``<system-reminder>`` blocks to: the text before the
    first, and whether anything after it is text the CLI never appends there: text outside such
    blocks, or a block that is none of the CLI's own reminders (:data:`CLAUDE_REMINDERS`).

    A reminder is the runtime's injection into the model's context, not the tool's output, so
    replay cannot re-derive it; only the runtime's registered texts stand for it. A well-formed
    block of any other text is context the runtime did not write (a forged instruction dressed as
    the harness's) and is unread like any line the tool could not have printed: the answer is
    drift, and the episode ``unverifiable`` (``replay_drift``), never admitted with it as context.
    It used to leave only the turn unchecked while the episode was admitted (red team,
    2026-12-06). A CLI release with a new reminder needs its text registered here."""
    body, marker, rest = answer.partition(SYSTEM_REMINDER)
    if not marker:
        return answer, False
    blocks = list(_REMINDER_BLOCK.finditer(marker + rest))
    covered = sum(len(block.group(0)) for block in blocks) == len(marker + rest) and all(
        a.end() == b.start() for a, b in zip(blocks, blocks[1:], strict=False)
    )
    known = all(CLAUDE_REMINDERS.fullmatch(block.group(1).strip()) for block in blocks)
    return body, not (covered and known)


def output_claims(answer: str) -> ReadClaims:
    """A command's output as Goose's developer shell shows it (the output, or for a long one its
    last lines after a note; for the model and again for the user): each line shown is a line of
    the output replay produced (:data:`OUTPUT`)."""
    lines = [line for line in answer.split("\n") if line.strip() and not _GOOSE_NOTES.fullmatch(line)]
    return ReadClaims(tuple(((OUTPUT, None, line),) for line in lines), of_output=True)


def _own(convention: ReadConvention, line: str) -> bool:
    """Whether ``line`` is blank or one of the tool's own notes."""
    return not line.strip() or (convention.notes is not None and convention.notes.fullmatch(line) is not None)


Lines = list[tuple[Reading, ...]]


def _view(convention: ReadConvention, where: _Where, text: str) -> Lines:
    """One file's lines: numbered (``L12: text``), or plain from the first line shown (the
    arguments' offset, or the number a truncation note gives)."""
    path, start = where.folder, where.start
    if path is None:
        return [UNREAD]  # a file outside the workspace among files read in it
    if convention.head is not None and (head := convention.head.match(text)) is not None:
        named = head.groupdict()
        start = int(named.get("start") or named.get("start2") or start)
        text = text[head.end() :]
    found: Lines = []
    for index, line in enumerate(text.rstrip("\n").split("\n") if text else []):
        if convention.numbered is None:
            found.append(((path, start + index, line),))
        elif (numbered := convention.numbered.fullmatch(line)) is not None:
            found.append(((path, int(numbered.group(1)), numbered.group(2)),))
        elif not _own(convention, line):
            found.append(UNREAD)
    return found


def _files(convention: ReadConvention, where: _Where, text: str) -> Lines:
    """Several files' lines, each file's after its ``--- PATH ---`` header and a blank line."""
    headers = list(_SECTION.finditer(text))
    found: Lines = [UNREAD] if not headers or text[: headers[0].start()].strip() else []
    for header, after in zip(headers, [*headers[1:], None], strict=True):
        body = text[header.end() : after.start() if after is not None else len(text)].rstrip("\n")
        kept = body.removeprefix("\n").split("\n")
        while kept and _own(convention, kept[-1]):
            kept.pop()  # the blank lines after a file, the closing note after the last one
        file = _Where(workspace_path(header.group(1), where.root), where.root)
        found += _view(convention, file, "\n".join(kept))
    return found


def _tree(convention: ReadConvention, where: _Where, text: str) -> Lines:
    """A directory's entries, nested by indentation: an entry lies in the last folder listed one
    level up, a top one in the folder read (which a header, or for a tree whose top entry is that
    folder, the top entry may name). After a note that the answer was cut, its last entry (a name
    cut short) is not read."""
    assert convention.entry is not None
    parents: dict[int, str | None] = {-1: where.folder}
    found: Lines = []
    for line in text.split("\n"):
        if _own(convention, line):
            continue
        entry = convention.entry.fullmatch(line)
        if entry is None:
            found.append(UNREAD)
            continue
        name, level = entry.group("name") or "", len(entry.group("indent")) // convention.indent
        if convention.top_is_folder and level == 0:
            parents[0] = workspace_path(name.rstrip("/"), where.root) if name.startswith("/") else parents[-1]
            continue
        base = parents.get(level - 1)
        path = relative(posixpath.join(base, name.rstrip("/"))) if base is not None and name else None
        if path is None:
            found.append(UNREAD)  # an entry placed in no folder of the workspace: no place to hold it
            continue
        found.append(((path, None, None),))
        parents = {k: v for k, v in parents.items() if k < level}
        parents[level] = path if entry.groupdict().get("folder") is not None or name.endswith("/") else None
    if convention.cut is not None and convention.cut.search(text) and found:
        found.pop()
    return found


def _paths(convention: ReadConvention, where: _Where, text: str) -> Lines:
    """A list of paths, absolute or relative to the session's root."""
    found: Lines = []
    for line in text.split("\n"):
        if _own(convention, line):
            continue
        path = workspace_path(line, where.root)
        found.append(UNREAD if path is None else ((path, None, None),))
    return found


def _hits(convention: ReadConvention, where: _Where, text: str) -> Lines:
    """Search hits: ripgrep's lines (``PATH:N:TEXT``, ``PATH-N-TEXT``, ``PATH:TEXT``, a path, or
    ``N:TEXT`` when one file was searched), or ``File: PATH`` blocks (relative to the folder
    searched) of numbered lines."""
    found: Lines = []
    current: str | None = None
    for line in text.split("\n"):
        if _own(convention, line):
            continue
        if convention.numbered is None:
            found.append(_ripgrep(line, where.folder, where.root))  # UNREAD when no reading fits
        elif (named := _HIT_FILE.fullmatch(line)) is not None and where.folder is not None:
            current = workspace_path(named.group(1), where.root, where.folder)
            found += [] if current is not None else [UNREAD]
        elif (hit := convention.numbered.fullmatch(line)) is not None and current is not None:
            found.append(((current, int(hit.group(1)), hit.group(2)),))
        else:
            found.append(UNREAD)
    return found


_READERS: dict[str, Callable[[ReadConvention, _Where, str], Lines]] = {
    VIEW: _view,
    FILES: _files,
    TREE: _tree,
    PATHS: _paths,
    HITS: _hits,
}


def _ripgrep(line: str, target: str | None, root: str | None) -> tuple[Reading, ...]:
    """The ways a line of ripgrep's output may be read, its paths made workspace-relative."""
    found: list[Reading] = []
    if (whole := workspace_path(line, root)) is not None:
        found.append((whole, None, None))
    for split in _NUMBERED.finditer(line):
        number = split.group(2)
        path = workspace_path(line[: split.start()], root)
        if path is not None:
            found.append((path, int(number), line[split.start() + len(number) + 2 :]))
    counted = re.fullmatch(r"(.+):\d+", line)  # count mode's PATH:N
    if counted is not None and (path := workspace_path(counted.group(1), root)) is not None:
        found.append((path, None, None))
    for colon in (i for i, c in enumerate(line) if c == ":"):
        if (path := workspace_path(line[:colon], root)) is not None:
            found.append((path, None, line[colon + 1 :]))
    numbered = re.fullmatch(r"(\d+)[:-](.*)", line)
    if target is not None and target != "." and numbered is not None:
        found.append((target, int(numbered.group(1)), numbered.group(2)))
    return tuple(found)


def workspace_path(path: str, root: str | None, base: str = ".") -> str | None:
    """``path`` relative to the workspace: an absolute path under the session's root, or a plain
    relative one (under ``base``, a workspace-relative folder); ``None`` for anything else."""
    if path.startswith("/"):
        prefix = f"{root.rstrip('/')}/" if root else None
        if root is not None and path.rstrip("/") == root.rstrip("/"):
            return "."
        if prefix is None or not path.startswith(prefix):
            return None
        path, base = path[len(prefix) :], "."
    if not path or path != path.strip() or "\n" in path:
        return None
    return relative(posixpath.join(base, path))


def relative(folder: str) -> str | None:
    """``folder`` when it is a plain relative path that stays inside the workspace."""
    normal = posixpath.normpath(folder)
    return None if folder.startswith("/") or normal == ".." or normal.startswith("../") else normal


_LISTING = (
    "import json,os,sys\nout={}\nfor p in sys.argv[2:]:\n"
    "    if os.path.isdir(p):\n        out[p]=True\n        continue\n"
    f"    try:\n        out[p]=open(p,'rb').read().decode({FILE_ENCODING!r},{FILE_ERRORS!r})\n"
    "    except OSError:\n        out[p]=os.path.lexists(p) or None\n"
    "print(sys.argv[1]+json.dumps(out))\n"
)
"""The sandboxed listing of the paths an answer names: a file's text as the platform reads a
workspace file (:func:`gym.sandbox.file_text`, which the sandbox cannot import: its codec is named
here, so no newline is translated), ``true`` for a folder (or an entry that is no readable file),
``null`` for nothing there."""


def listing_script(claims: ReadClaims) -> str:
    """The shell line that prints, after the claims' marker, what each path they name holds."""
    return shlex.join(["python3", "-I", "-S", "-B", "-c", _LISTING, claims.marker, *claims.paths])


def listed(claims: ReadClaims, output: str) -> dict[str, str | bool] | None:
    """What :func:`listing_script` printed, by path, or ``None`` when the listing did not come back."""
    _, marker, rest = output.rpartition(claims.marker)
    try:
        found = json.loads(rest) if marker else None
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, dict):
        return None
    # a file as the tool showed it: each byte that is not UTF-8 as U+FFFD
    return {
        p: shown_text(v) if isinstance(v, str) else True
        for p, v in found.items()
        if isinstance(v, str) or v is True
    }


def claims_contradict(
    claims: ReadClaims,
    sources: Mapping[str, str | bool],
    same: Callable[[str], str] = str,
    paired: Callable[[str, str], bool] = lambda _shown, _held: True,
) -> bool:
    """Whether a line the answer showed is not in ``sources`` (a file's text, ``True`` for a folder,
    by path; a path missing is nothing there): no reading of it holds (:func:`holds_line`, after
    ``same``, what two runs may honestly differ by, and where ``same`` erased spans, ``paired``
    with the line held: a value in an erased span is compared by its rule, not dropped)."""
    raw = {p: t.split("\n") for p, t in sources.items() if isinstance(t, str)}
    lines = {p: [same(line) for line in held] for p, held in raw.items()}

    def holds(reading: Reading) -> bool:
        path, number, text = reading
        if text is None:
            return path in sources
        held = lines.get(path)
        if held is None:
            return False
        numbers = range(1, len(held) + 1) if number is None else (number,)
        return any(
            holds_line(held, n, same(text), claims.shape) and paired(text, raw[path][n - 1]) for n in numbers
        )

    shown = all(any(holds(r) for r in readings) for readings in claims.lines)
    return not shown or any(path in sources for path in claims.absent)


def holds_line(lines: list[str], number: int, shown: str, shape: LineShape = LineShape()) -> bool:
    """Whether a file's ``lines`` hold ``shown`` as line ``number`` (1-based), as a CLI's answer
    shows a file (``shape``): trailing whitespace aside, leading whitespace too for a tool that
    trims, and a line the tool cut as the start of a longer one."""
    if not 1 <= number <= len(lines):
        return False
    actual = lines[number - 1].rstrip()
    if shape.cut_marker and shown.rstrip().endswith(shape.cut_marker):
        shown = shown.rstrip().removesuffix(shape.cut_marker)
    cut = shape.cut_at is not None and len(shown) >= shape.cut_at
    shown = shown.rstrip()
    if shape.trimmed:
        actual, shown = actual.strip(), shown.strip()
    return actual == shown or (cut and actual.startswith(shown))
