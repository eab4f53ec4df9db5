"""Which paths a call's own words say it writes: the delta audit's reading where replay measured nothing.

Where replay re-executes a log (shell mode), the audit takes a write to a protected path from the
effect each call had in the sandbox (:attr:`.replay.ReplayResult.protected_writes`), whatever the
command's spelling. Where nothing was re-executed (an environment without a replay spec, a log
replay could not run, a call the agent's runtime refused), only the words remain, and this module
reads them, for every form a call takes, through one parser:

- a shell line (:attr:`.calls.CallRecord.shell_command`: a JSON ``command`` string or argv list,
  a text action's line), split as bash splits it into simple commands: every redirection target
  (quoted or not), the operands of a program that writes its operands (``rm``, ``mv``, ``ln``,
  ``touch``, ``truncate``, ``chmod`` ...), the destination of ``cp`` / ``install`` / ``rsync``, the
  files of an in-place editor (``sed -i``, ``perl -i``) after its script, ``dd``'s ``of=``, and, for
  an interpreter running inline code (``python -c``, ``perl -e``, ``node -e``) or any program not
  known to only read (:data:`READ_ONLY`), every path-like word it names; a shell's ``-c`` script
  read the same way;
- a patch, in any string of the call (Codex's ``apply_patch`` input, argv or heredoc; a unified
  diff): the files its ``*** Update/Add/Delete File:`` / ``*** Move to:`` or ``---`` / ``+++``
  headers name;
- a JSON call that writes (:attr:`.calls.CallRecord.is_write`: its operation or name says so), its
  path-like arguments (``path``, ``file_path``, ``target`` ...);
- SWE-agent's viewer (pre-1.0 text actions, 1.0 tools): ``create PATH`` writes PATH, and an
  ``edit`` / ``insert`` writes the file the last ``open`` / ``create`` showed.

Its limit, said plainly: words are not effects. A script file run by name, a patch read from a file
(``patch -p1 < fix.diff``, ``git apply x.diff``), ``git stash`` / ``git reset`` or a program that
writes paths it computes are invisible to it; and a read-only program that names a protected path
in an argument this parser cannot tell from an operand may be read as writing it. Replay's
measurement has neither limit, which is why the audit prefers it wherever replay ran.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import SHELLS, CallRecord
from trajectory_platform.curation.verify.shell_indirection import episode_functions, episode_lines
from trajectory_platform.gym.shell import EDITOR_ROOTS

PATH_KEY = re.compile(r"path|file|uri|target|dest|doc|location|folder|^name$", re.IGNORECASE)
READ_ONLY = frozenset(
    [
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ls",
        "tree",
        "wc",
        "diff",
        "cmp",
        "file",
        "stat",
        "nl",
        "echo",
        "printf",
        "pwd",
        "cd",
        "pytest",
        "py.test",
        "tox",
        "nox",
        "which",
        "type",
        "true",
        "false",
        "test",
        "[",
        "sort",
        "uniq",
        "cut",
        "tr",
        "column",
        "od",
        "xxd",
        "hexdump",
        "md5sum",
        "sha256sum",
        "sha1sum",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "du",
        "df",
        "env",
        "sleep",
        "date",
    ]
)
"""Programs that only read their operands (and ``cd``): naming a protected path is not writing it."""
WRITES_OPERANDS = frozenset(
    [
        "rm",
        "unlink",
        "rmdir",
        "mv",
        "ln",
        "touch",
        "truncate",
        "chmod",
        "chown",
        "chgrp",
        "shred",
        "tee",
        "mkdir",
    ]
)
"""Programs whose every operand is written (``ln``: a hard link to a file is a second name to write it by)."""
WRITES_LAST = frozenset({"cp", "install", "rsync", "scp"})
"""Programs that write their last operand only (the others are read)."""
INTERPRETERS = ("python", "perl", "ruby", "node", "php")
"""Programs (by their name's start: ``python3.11``) that run code: inline code's words are read."""
INLINE_CODE = ("-c", "-e", "-E")
VIEWER_OPENS = ("open", "create")
VIEWER_EDITS = ("edit", "insert", "append")
_REDIRECT = re.compile(r"^\d*(?:>>?|>\||&>>?)$")
_OPERATOR = frozenset({";", "&&", "||", "|", "&", "|&", "(", ")", ";;"})
_INPUT = frozenset({"<", "<<", "<<<", "<&", ">&", "<<-"})
_PATHLIKE = re.compile(r"[\w.~/-]*[\w~][\w.~/-]*")
_HEREDOC = re.compile(
    r"(?P<head>[^\n;&|]*?)<<-?\s*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)(?P<rest>[^\n]*)\n(?P<body>.*?)\n\s*(?P=tag)\s*(?:\n|$)",
    re.DOTALL,
)
"""A here-document: the command it feeds (``head``), and its ``body``, which is data, not commands
(code, when it feeds an interpreter: ``python3 - <<'EOF'``)."""
_PATCH_HEADER = re.compile(
    r"^(?:\*\*\* (?:Update|Add|Delete) File: |\*\*\* Move to: |\+\+\+ (?:b/)?|--- (?:a/)?)(\S+)", re.MULTILINE
)


def relative(path: str) -> str:
    """A path as the workspace names it: without ``./`` or an agent container's repository root."""
    path = path.strip().strip("'\"")
    for root in EDITOR_ROOTS:
        if path.startswith(f"{root}/"):
            return path.removeprefix(f"{root}/")
    return path.removeprefix("./")


def written_paths(records: list[CallRecord]) -> Iterator[tuple[CallRecord, str]]:
    """Each call (in order) with each path its words say it writes (:mod:`write_targets`): a shell
    line's words and those bash builds from them (:func:`.shell_indirection.episode_lines`:
    ``f=tests/data.json; echo {} > $f``, a ``for`` loop's words), relative paths taken from the
    folder its ``cd``s reach (:func:`shell_targets`) and from the one a call that only changed
    folder left the shell in (``cd tests`` alone, then ``echo {} > data.json``: only a shell kept
    between calls gives such a call a purpose, so it is read as one)."""
    open_file: str | None = None
    built = episode_lines(record.shell_command for record in records)
    defined = episode_functions(record.shell_command for record in records)
    for record, lines, folder, functions in zip(records, built, start_folders(records), defined, strict=True):
        raw = record.call.arguments or ""
        name = record.call.name or ""
        command = record.shell_command
        words = raw.split(maxsplit=1)
        viewer_text = command is None and words[:1] == [name]
        if viewer_text and name in VIEWER_OPENS and len(words) > 1:
            opened = _split(words[1])
            open_file = relative(opened[0]) if opened else open_file
        elif name in VIEWER_OPENS and isinstance(path := (record.arguments or {}).get("path"), str):
            open_file = relative(path)
        targets: list[str] = []
        if command is not None:
            targets += [t for line in lines for t in shell_targets(line, folder, functions)]
        elif name in VIEWER_EDITS and open_file is not None:
            targets.append(open_file)
        if viewer_text and name == "create" and open_file is not None:
            targets.append(open_file)
        for key, value in record.string_values():
            targets += _PATCH_HEADER.findall(value)
            if command is None and not viewer_text and record.is_write and PATH_KEY.search(key):
                targets.append(value)
        for target in dict.fromkeys(relative(t) for t in targets if t and t != "/dev/null"):
            yield record, target


def start_folders(records: list[CallRecord]) -> list[str]:
    """The folder each call's shell line starts in, relative to the workspace (``""``: its root): the
    one an earlier call that was only ``cd DIR`` left the agent's shell in. Replay runs every line
    from the root, so a call that starts elsewhere wrote elsewhere in the agent's run than in the
    replay, and its effect there says nothing of its writes."""
    folders: list[str] = []
    folder = ""
    for record in records:
        folders.append(folder)
        if record.shell_command is not None:
            folder = _changed_folder(record.shell_command, folder)
    return folders


def _split(line: str) -> list[str]:
    """``line``'s words as bash splits them (operators as words of their own); on a quote bash
    would reject, its path-like runs."""
    words = bash_words(line)
    return _PATHLIKE.findall(line) if words is None else words


def _joined(folder: str | None, path: str) -> str:
    """``path`` as named from ``folder`` (``None``: a folder the words do not say; the path is
    left as written)."""
    if not folder or folder == "." or folder is None or path.startswith(("/", "~", "$")):
        return path
    return posixpath.normpath(posixpath.join(folder, path))


def _cd(words: list[str], folder: str | None) -> str | None:
    """The folder ``cd`` / ``pushd`` (its words) moves to from ``folder``; ``None`` where the words
    do not say (no operand, ``-``, ``~``, a variable)."""
    operands = [w for w in words[1:] if not w.startswith("-")]
    if len(operands) != 1 or operands[0].startswith(("~", "$")) or folder is None:
        return None
    return (
        relative(_joined(folder, operands[0]))
        if operands[0].startswith("/")
        else _joined(folder, operands[0])
    )


def _changed_folder(line: str, folder: str) -> str:
    """The folder a call leaves the agent's shell in for its next calls: another only where the
    whole line is one ``cd DIR``."""
    words = bash_words(line.strip())
    if words is None or len(words) != 2 or words[0] not in _CHANGES_FOLDER:
        return folder
    moved = _cd(words, folder)
    return "" if moved is None or moved in (".", "") else moved


_CHANGES_FOLDER = frozenset({"cd", "pushd"})


def shell_targets(line: str, folder: str = "", functions: frozenset[str] = frozenset()) -> list[str]:
    """The paths a shell line says it writes (:mod:`write_targets`: redirections, writing programs'
    operands, inline code's paths, an unknown program's operands), relative ones as named from the
    folder the line starts in (``folder``, relative to the workspace) and its ``cd``s reach
    (``cd tests && echo {} > data.json`` writes ``tests/data.json``; a subshell's ``cd`` ends with
    it). A call of one of the episode's shell ``functions`` runs its body, read on its own
    (:func:`.shell_indirection.episode_lines`): its words are no operands."""
    targets = _PATCH_HEADER.findall(line)
    for found in _HEREDOC.finditer(line):
        starts = _split(found.group("head"))
        feeds_code = bool(starts) and starts[0].rsplit("/", 1)[-1].startswith(INTERPRETERS)
        targets += _PATHLIKE.findall(found.group("body")) if feeds_code else []
    line = _HEREDOC.sub(lambda found: found.group("head"), line)
    command: list[str] = []
    words = _split(line.replace("\n", " ; "))
    skip = False
    here: str | None = folder
    outer: list[str | None] = []
    for index, word in enumerate(words):
        if skip:
            skip = False
        elif _REDIRECT.match(word):
            targets += [_joined(here, w) for w in words[index + 1 : index + 2]]
            skip = True
        elif word in _INPUT:
            skip = True
        elif word in _OPERATOR or is_operator(word):  # a run of them (``);``) ends a command too
            targets += [_joined(here, t) for t in _program_targets(command, functions)]
            here = _cd(command, here) if command[:1] and command[0] in _CHANGES_FOLDER else here
            for character in word:
                if character == "(":
                    outer.append(here)
                elif character == ")" and outer:
                    here = outer.pop()
            command = []
        else:
            command.append(word)
    return targets + [_joined(here, t) for t in _program_targets(command, functions)]


def _program_targets(words: list[str], functions: frozenset[str] = frozenset()) -> list[str]:
    """The paths one simple command (its words, redirections taken out) writes; none for a call of
    one of ``functions`` (its body is read instead)."""
    while words and ("=" in words[0] and not words[0].startswith("-") or words[0] in ("sudo", "env", "time")):
        words = words[1:]
    if not words or words[0] in functions:
        return []
    program, args = words[0].rsplit("/", 1)[-1], words[1:]
    operands = [a for a in args if not a.startswith("-")]
    if program in READ_ONLY or (program == "git" and args[:1] in (["diff"], ["show"], ["log"], ["status"])):
        return []
    if program in WRITES_OPERANDS:
        return operands
    if program in WRITES_LAST:
        return operands[-1:]
    if program == "dd":
        return [a.removeprefix("of=") for a in args if a.startswith("of=")]
    if program in ("sed", "perl", "awk", "gawk"):
        return _in_place_files(program, args)
    if program == "find":
        return _find_targets(args)
    if program in SHELLS and "-c" in "".join(a for a in args if a.startswith("-")):
        return [p for a in operands for p in shell_targets(a)]
    if program.startswith(INTERPRETERS) and any(a in INLINE_CODE for a in args):
        return [p for a in args for p in _PATHLIKE.findall(a)]
    if program.startswith(INTERPRETERS):
        return []  # runs a script or a module: what it writes is its own, unseen here
    return [p for a in operands for p in _PATHLIKE.findall(a)]


def _find_targets(args: list[str]) -> list[str]:
    """What ``find`` writes: with ``-delete``, the files it matches; with ``-exec`` / ``-execdir``,
    what the command it runs writes, given the files it matches (each start folder joined with the
    ``-name`` pattern, or the folder itself)."""
    starts = []
    for arg in args:
        if arg.startswith("-") or arg in ("(", "!"):
            break
        starts.append(arg)
    names = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-name", "-iname")]
    matched = [f"{start.rstrip('/')}/{name}" for start in starts or ["."] for name in names or [""]]
    targets = matched if "-delete" in args else []
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok"):
            end = next((i for i in range(index + 1, len(args)) if args[i] in (";", "+", "\\;")), len(args))
            run = args[index + 1 : end]
            expanded = [w for word in run for w in (matched if word == "{}" else [word])]
            targets += _program_targets(expanded)
    return targets


def _in_place_files(program: str, args: list[str]) -> list[str]:
    """The files ``sed -i`` / ``perl -i`` / ``awk -i inplace`` rewrite: the operands after the script
    (the first operand, unless a ``-e`` / ``-f`` gave it); none without the in-place option."""
    in_place = any(
        a == "--in-place"
        or a.startswith("--in-place=")
        or (a.startswith("-") and not a.startswith("--") and "i" in a)
        for a in args
    )
    if not in_place:
        return []
    files: list[str] = []
    script_given = False
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-e", "-f", "--expression", "--file") or (
            program == "perl" and arg.startswith("-") and "e" in arg
        ):
            script_given, skip = True, True
            continue
        if arg.startswith("-"):
            continue
        if not script_given and program != "perl":
            script_given = True
            continue
        files.append(arg)
    return files
