"""What a shell line (or a one-line Python write) writes to files as literal content.

``echo`` / ``printf`` words redirected with ``>`` or ``>>``, piped into ``tee [-a]``, and
``open('f', 'a').write('...')``: the content each writes and whether it appends. Read by
:mod:`.file_writes` (a key written in pieces across commands) and by pass 3
(:func:`.engine.rewrite`), which replaces a piece of such a key too short to be replaced wherever it
recurs only where a command writes it whole. Only literal content: a write of something computed
(``$(openssl rand ...)``) is no value this module can know.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.shell_split import bash_words

_PY_WRITE = re.compile(
    r"""open\(\s*(?P<q>['"])(?P<path>[^'"\n]+)(?P=q)\s*,\s*(?P<mq>['"])(?P<mode>[wa])[bt+]?(?P=mq)\s*\)"""
    r"""\s*\.write\(\s*(?P<dq>['"])(?P<data>(?:(?!(?P=dq))[^\\\n])*)(?P=dq)\s*\)"""
)
"""``open('f', 'a').write('piece')``: a one-line Python write of a literal (``w`` starts over)."""

WRITTEN_PIECE = "+file+piece"
"""The detector suffix of a key's piece shorter than ``file_writes.MIN_PIECE`` that a command wrote
whole: pass 3 replaces it only where a line writes exactly it to a file (:func:`writes_whole`)."""
_FD_NUMBER = re.compile(r"(?<![^\s;&|(])\d+(?=>)")
"""A redirection's stream number, written against its ``>`` (``2>err.log``): the splitter would
split it off as a word like any other, and ``echo -n 3 >> k`` writes the ``3``."""
_FD_MARK = "__fd__"
_ECHO_FLAGS = re.compile(r"-[neE]+")
_PRINTF_DIRECTIVE = re.compile(r"%[sb]|%%")
_ESCAPES = {"\\n": "\n", "\\t": "\t", "\\\\": "\\"}
_SEPARATORS = {";", "&&", "||", "&", "(", ")"}


def normal_path(path: str) -> str:
    """A written or read file's name as one key: unquoted, without a leading ``./``."""
    return path.strip("'\"").removeprefix("./")


def literal_writes(line: str) -> Iterator[tuple[str, str, bool]]:
    """``(file, content, appended)`` for each literal write of ``line``, in order."""
    python = list(_PY_WRITE.finditer(line))
    if python:
        for match in python:
            yield normal_path(match.group("path")), match.group("data"), match.group("mode") == "a"
        return
    words = bash_words(_FD_NUMBER.sub(_FD_MARK + " ", line))
    if words is None:
        return
    command: list[str] = []
    piped: str | None = None
    for word in [*words, ";"]:
        if word not in _SEPARATORS and word != "|":
            command.append(word)
            continue
        output, writes = _simple_command(command, piped)
        yield from writes
        piped = output if word == "|" else None
        command = []


def _simple_command(words: list[str], piped: str | None) -> tuple[str | None, list[tuple[str, str, bool]]]:
    """What a simple command prints (echo, printf, tee's input) and the files it writes it to."""
    arguments: list[str] = []
    targets: list[tuple[str, bool]] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in (">", ">>", ">&") and index + 1 < len(words):
            if arguments and arguments[-1] == _FD_MARK:  # 2> err.log, 2>&1: another stream
                arguments.pop()
            elif word != ">&":
                targets.append((normal_path(words[index + 1]), word == ">>"))
            index += 2
            continue
        arguments.append(word)
        index += 1
    output = _printed(arguments, piped)
    if arguments[:1] == ["tee"]:
        append = any(a in ("-a", "--append") for a in arguments[1:])
        targets.extend((normal_path(a), append) for a in arguments[1:] if not a.startswith("-"))
    if output is None:
        return None, []
    return output, [(path, output, append) for path, append in targets if not path.startswith("/dev/")]


def _printed(arguments: list[str], piped: str | None) -> str | None:
    if arguments[:1] == ["echo"]:
        flags = [a for a in arguments[1:] if _ECHO_FLAGS.fullmatch(a)]
        rest = arguments[1 + len(flags) :]
        return " ".join(rest) + ("" if any("n" in f for f in flags) else "\n")
    if arguments[:1] == ["printf"] and len(arguments) > 1:
        return _printf(arguments[1], arguments[2:])
    if arguments[:1] == ["tee"]:
        return piped
    return None


def _fill(form: str, values: Iterator[str]) -> str:
    return _PRINTF_DIRECTIVE.sub(lambda d: "%" if d.group() == "%%" else next(values, ""), form)


def _printf(form: str, values: list[str]) -> str | None:
    """printf's output for a format of ``%s``/``%b`` directives (reused while values remain)."""
    if "%" in _PRINTF_DIRECTIVE.sub("", form):
        return None
    directives = len([d for d in _PRINTF_DIRECTIVE.findall(form) if d != "%%"])
    pending = list(values)
    out: list[str] = []
    while True:
        out.append(_fill(form, iter(pending[:directives])))
        pending = pending[directives:]
        if not pending or not directives:
            break
    return re.sub(r"\\[nt\\]", lambda e: _ESCAPES[e.group()], "".join(out))


def writes_whole(text: str, start: int, end: int) -> bool:
    """Does the line of ``text`` around ``start:end`` write exactly that text (a newline echo adds
    aside) to a file: is this occurrence of a short piece the write that carried it?"""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    value = text[start:end]
    return any(content.rstrip("\n") == value for _, content, _ in literal_writes(line))
