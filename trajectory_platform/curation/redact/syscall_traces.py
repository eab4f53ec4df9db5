"""``strace`` and ``ltrace`` output read as the conversation it records.

An agent debugging a login traces the program (``strace -f``, ``ltrace``) and sees a credential
named by one call and given in another: the prompt written to the terminal, then the answer read
from it (``write(2, "Password: ", 10)`` ... ``read(0, "x\\n", 4096)``), a secret file opened then
read (``openat(AT_FDCWD, "/run/secrets/db_password", ...) = 3`` ... ``read(3, "x\\n", ...)``), a
protocol verb on the wire (``sendto(3, "AUTH x\\r\\n", ...)``), a client started with its password
(``execve("/usr/bin/mysql", ["mysql", "-px"], ...)``), ``getpass("Password: ") = "x"``. Each
value sat in a C-escaped string argument where no rule of the engine looks (a red team,
2026-12-06: 34 of 37 validation cases kept it).

:func:`read_trace` writes the trace as the text a terminal would have shown: each buffer
unescaped on its own line, a prompt's answer on the prompt's line, an ``execve``'s argument vector
as the command line it spells, ``getenv("NAME") = "x"`` as ``NAME=x``, a library call's prompt
beside its answer (and, after a prompt, the strings a comparison weighs). The engine scans that
view with every rule it has (the labelled-value, prompt, protocol and command-line rules), and
maps each finding back to the raw characters that write it (:class:`.decoders.DecodedView`). Two
rules across steps judge what no line shows: a prompt answered (:mod:`.turns`' rule for a prompt
answered in the next turn) and a credential-named file read (:func:`.positional.secret_printed_by`,
the rule for a command that prints one). A file's content is not set under a ``cat`` of its path
in the view: under ``cat /etc/passwd`` (which ``ls -l``, ``id`` and ``ssh`` read) the prose rule
took ``root:x:0:0:...`` for a password. No rule of its own is added here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from trajectory_platform.curation.redact.decoders import DecodedView
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import secret_printed_by
from trajectory_platform.curation.redact.turns import answer_shaped, asks_for_credential

_PREFIX = r"(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+|\d+\.\d+\s+)?(?:[\w.+-]+->)?"
"""What strace and ltrace put before a call: ``-f``'s pid, ``-t``/``-tt``/``-r``'s time,
``ltrace -l``'s library."""
_CALL = re.compile(
    rf"(?m)^{_PREFIX}(?:<\.\.\. (?P<resumed>\w+) resumed>|(?P<function>[A-Za-z_]\w*)\()"
    r"(?P<arguments>[^\n]*?)(?:\)\s*=\s*(?P<result>[^\n]*)|<unfinished \.\.\.>)[ \t]*\r?$"
)
_GATE = re.compile(r"(?m)^[^\n(]{0,60}\((?:\d+|0x[0-9a-f]+|AT_FDCWD|\"[^\"\n]*\"(?:\.\.\.)?)[,) ]")
_STRING = re.compile(r'"(?P<body>(?:[^"\\\n]|\\.)*)"(?:\.\.\.)?')
_ESCAPE = re.compile(r"\\(?:x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)")
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "v": "\v", "f": "\f", "a": "\a", "b": "\b", "e": "\x1b"}
_FIRST_INTEGER = re.compile(r"\s*(-?\d+)(?![\w.])")
"""A descriptor or a returned number; not a pointer's ``0x`` (``SSL_write(0x5611d2, ...)``)."""
_ARGV = re.compile(r"\[(?P<items>(?:\"(?:[^\"\\\n]|\\.)*\"(?:\.\.\.)?(?:,\s*)?)+)(?:,?\s*\.\.\.)?\]")
_SHELL_SPECIAL = re.compile(r"[\s'\"\\$`|&;<>(){}*?#~]")
_WRITES = frozenset(
    {"write", "pwrite64", "pwrite", "writev", "send", "sendto", "sendmsg", "SSL_write", "gnutls_record_send"}
)
_READS = frozenset(
    {"read", "pread64", "pread", "readv", "recv", "recvfrom", "recvmsg", "SSL_read", "fgets", "getline"}
)
_VECTORED = frozenset({"writev", "sendmsg", "readv", "recvmsg"})
"""Calls whose buffer is a list of pieces (``[{iov_base="Pass", ...}, {iov_base="word: ", ...}]``)."""
_GETTERS = frozenset({"getenv", "secure_getenv"})
_OPENS = frozenset({"open", "openat", "creat", "fopen"})
_EXECS = frozenset({"execve", "execveat", "execv", "execvp"})
_PRINTS = frozenset({"printf", "puts", "fputs", "fprintf", "fputs_unlocked"})
_PROMPTED = frozenset({"getpass", "readpassphrase", "pam_prompt", "readline"})
_COMPARES = frozenset({"strcmp", "strncmp", "strcasecmp", "strncasecmp", "memcmp", "bcmp"})


@dataclass
class _View:
    """The view under construction: its text and :class:`.decoders.DecodedView`'s segments."""

    raw: str
    parts: list[str] = field(default_factory=list)
    segments: list[tuple[int, int, int, bool]] = field(default_factory=list)
    length: int = 0

    def literal(self, start: int, end: int) -> None:
        if end > start:
            self.segments.append((self.length, start, end, True))
            self.parts.append(self.raw[start:end])
            self.length += end - start

    def decoded(self, chars: str, start: int, end: int) -> None:
        """``chars`` standing for raw ``start:end`` (an escape, or text the view adds: a line
        break, a space or a quote between arguments, mapped to the call that implies it)."""
        if chars:
            self.segments.append((self.length, start, end, False))
            self.parts.append(chars)
            self.length += len(chars)

    def string(self, match: re.Match[str]) -> str:
        """A C string argument's characters, unescaped; returns the text added."""
        before = len(self.parts)
        body_start, body_end = match.span("body")
        position = body_start
        for escape in _ESCAPE.finditer(self.raw, body_start, body_end):
            self.literal(position, escape.start())
            self.decoded(_unescape(escape.group()), *escape.span())
            position = escape.end()
        self.literal(position, body_end)
        return "".join(self.parts[before:])

    def text(self) -> str:
        return "".join(self.parts)


def unescaped(raw: str) -> str:
    """A C string's body (as strace and ltrace print it) with its escapes resolved."""
    return _ESCAPE.sub(lambda escape: _unescape(escape.group()), raw)


def _unescape(escape: str) -> str:
    code = escape[1:]
    if code[0] == "x" and len(code) > 1:
        return chr(int(code[1:], 16))
    if code[0] in "01234567":
        return chr(int(code, 8))
    return _SIMPLE_ESCAPES.get(code, code)


@dataclass
class _Terminal:
    """What the trace has shown so far: the file each descriptor holds, the prompt left open on the
    terminal (its descriptor and text), and the values the rules across two steps found, as spans
    of the view."""

    paths: dict[int, str] = field(default_factory=dict)
    prompt_fd: int | None = None
    prompt_string: re.Match[str] | None = None
    credential_prompt: bool = False
    asked: re.Match[str] | None = None
    given: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Trace:
    """A trace read as a conversation: the :attr:`view` the engine scans with every rule, and the
    :attr:`given` values (raw spans) that a prompt's answer or a credential file's read gives."""

    view: DecodedView
    given: list[Finding]


def read_trace(text: str) -> Trace | None:
    """The conversation ``text``'s traced calls record (None when it holds no trace)."""
    if "(" not in text or _GATE.search(text) is None:
        return None
    view = _View(text)
    terminal = _Terminal()
    for call in _CALL.finditer(text):
        _render(view, terminal, call)
    body = view.text()
    if not body.strip():
        return None
    decoded = DecodedView("trace", body, view.segments)
    given = []
    for start, end in terminal.given:
        raw_start, raw_end = decoded.raw_span(start, end)
        value = body[start:end]
        if unescaped(text[raw_start:raw_end]) == value:
            given.append(Finding("PASSWORD", raw_start, raw_end, text[raw_start:raw_end], "trace:given"))
    return Trace(decoded, given)


def _render(view: _View, terminal: _Terminal, call: re.Match[str]) -> None:
    """The call's part of the conversation, added to ``view`` (module docstring)."""
    function = call.group("function") or call.group("resumed")
    arguments_start = call.start("arguments")
    strings = list(_STRING.finditer(view.raw, arguments_start, call.end("arguments")))
    fd_match = _FIRST_INTEGER.match(call.group("arguments")) if call.group("function") else None
    fd = int(fd_match.group(1)) if fd_match else None
    name = call.span("function") if call.group("function") else call.span("resumed")
    if function in _OPENS and strings:
        result = _FIRST_INTEGER.match(call.group("result") or "")
        if result and int(result.group(1)) >= 0:
            terminal.paths[int(result.group(1))] = unescaped(strings[0].group("body"))
        return
    if function in _WRITES | _PRINTS and strings:
        view.decoded("\n", *name)
        shown = "".join(view.string(piece) for piece in (strings if function in _VECTORED else strings[:1]))
        if shown and not shown.endswith("\n") and any(ch.isalpha() for ch in shown):
            _prompted(terminal, fd, shown, strings[-1] if function in _VECTORED else strings[0])
        else:
            _prompted(terminal, None, "", None)
        return
    if function in _READS and strings:
        answers = terminal.prompt_string is not None and fd in (0, terminal.prompt_fd, None)
        if not answers:
            view.decoded("\n", *name)
        start = view.length
        content = "".join(view.string(piece) for piece in (strings if function in _VECTORED else strings[:1]))
        read_file = terminal.paths.get(fd) if fd is not None and not answers else None
        if (answers and terminal.credential_prompt and answer_shaped(content.strip())) or (
            read_file is not None and secret_printed_by(f"cat {read_file}", content) is not None
        ):
            _give(terminal, start, content)  # a prompt's answer; a credential file's content
        _prompted(terminal, None, "", None)
        return
    if function in _EXECS:
        argv = _ARGV.search(view.raw, arguments_start, call.end("arguments"))
        if argv is not None:
            view.decoded("\n", *name)
            for index, word in enumerate(_STRING.finditer(view.raw, *argv.span("items"))):
                _shell_word(view, word, index)
        return
    returned = call.group("result") or ""
    answer = (
        _STRING.match(view.raw, call.start("result") + len(returned) - len(returned.lstrip()))
        if returned
        else None
    )
    if function in _PROMPTED:  # its answer returned, on its line or ltrace's "resumed" one
        if strings:
            view.decoded("\n", *name)
            _prompted(terminal, None, view.string(strings[0]), strings[0])
        if answer is not None and terminal.prompt_string is not None:
            start = view.length
            content = view.string(answer)
            if terminal.credential_prompt and answer_shaped(content.strip()):
                _give(terminal, start, content)
        return
    if function in _GETTERS and strings and answer is not None:
        view.decoded("\n", *name)  # getenv("NAME") = "x" reads as NAME=x
        view.string(strings[0])
        view.decoded("=", *name)
        view.string(answer)
        return
    if function in _COMPARES and terminal.asked is not None:
        for compared in strings[:2]:
            view.decoded("\n", *name)
            view.string(terminal.asked)
            start = view.length
            content = view.string(compared)
            if answer_shaped(content.strip()):
                _give(terminal, start, content)


def _prompted(terminal: _Terminal, fd: int | None, prompt: str, string: re.Match[str] | None) -> None:
    """The prompt now open on the terminal (none when ``string`` is None), and whether it asks for
    a credential as a prompt between two turns does (:func:`.turns.asks_for_credential`)."""
    terminal.prompt_fd, terminal.prompt_string = fd, string
    terminal.credential_prompt = string is not None and asks_for_credential(prompt.rstrip() or "-")
    if terminal.credential_prompt:
        terminal.asked = string  # what a comparison after it weighs is the answer or the password


def _give(terminal: _Terminal, start: int, content: str) -> None:
    """Record ``content`` (added to the view at ``start``), less its line break, as a given value."""
    value = content.strip()
    if value:
        offset = start + content.index(value)
        terminal.given.append((offset, offset + len(value)))


def _shell_word(view: _View, word: re.Match[str], index: int) -> None:
    """An argument of an argument vector as the shell would need it written: quoted when it holds
    a space or a character the shell reads, so the command-line rules see one word."""
    if index:
        view.decoded(" ", word.start(), word.start() + 1)
    body = view.raw[word.start("body") : word.end("body")]
    quoted = _SHELL_SPECIAL.search(body) is not None and "'" not in body
    if quoted:
        view.decoded("'", word.start(), word.start() + 1)
    view.string(word)
    if quoted:
        view.decoded("'", word.end() - 1, word.end())
