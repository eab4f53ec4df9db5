"""A command written as a list of its words, read as the command line it is.

Tools and code often hold a command already split into words: a function-calling tool's
``{"command": ["mysql", "-u", "root", "--password", "x"]}``, ``subprocess.run([...])``, a
Dockerfile's ``CMD ["redis-server", "--requirepass", "x"]``, a Kubernetes ``args:`` list, Go's
``exec.Command("mysql", "-pX")``, Rust's ``.arg("-a").arg("x")``. The option and its value are
separate items there, so no command rule saw ``--password x`` (a red team, 2026-12-06: 138 of 168
such lists kept the password). The rules for command lines are one set
(:func:`.detectors.find_secrets`, :func:`.positional.find_positional_credentials`): rather than a
second set for lists, each list is joined back into the line a shell would have split, those
rules read the line, and a finding inside one item is mapped back to that item's text.

Only a list that holds an option (``-p``, ``--password``, ``/p:``) is joined: a list of names or
words is no command, and joined it would read as prose."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from trajectory_platform.curation.redact.detectors import find_secrets
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.positional import find_positional_credentials
from trajectory_platform.curation.redact.structure import json_objects

_LITERAL = r"(?:\"(?:[^\"\\\n]|\\.){0,400}\"|'(?:[^'\\\n]|\\.){0,400}')"
_BETWEEN = r"\s*(?:,|\)\s*\.\s*args?\s*\()\s*\[?\s*"
"""What separates two words of a written command: a list's or a call's comma (``spawn('cli',
[...])`` opens a list after it), or a builder's next ``.arg(`` (Rust's ``Command``)."""
_LITERAL_LIST = re.compile(rf"{_LITERAL}(?:{_BETWEEN}{_LITERAL})+")
_ONE_LITERAL = re.compile(_LITERAL)
_KEY_AFTER = re.compile(r"\s*:(?!:)")
"""A literal followed by a colon is a mapping's key (JSON, Python, YAML flow), no command word."""
_YAML_KEY_LINE = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:-[ \t]+)?[\w\"'.-]+[ \t]*:[ \t]*\r?\n")
_YAML_ITEM = re.compile(r"(?P<indent>[ \t]*)-[ \t]+(?P<item>[^\n]*?)[ \t]*\r?(?:\n|$)")
_OPTION = re.compile(r"-{1,2}[A-Za-z][\w.-]*(?:=|$)|-[A-Za-z][^\s=]+$|/[A-Za-z]{1,12}:")
"""An option word: ``-p``, ``--password``, ``--api-key=x``, a value glued to a short option
(``-pX``), Windows' ``/p:x``."""
_QUOTED_OPTION_HINTS = ('"-', "'-", '"/', "'/")
_BLOCK_OPTION_HINTS = ("- -", '- "-', "- '-", "- /")
_FLOW_OPTION_HINTS = (", -", "[-", ", /")
"""Where an option can stand in each kind of list: searched as plain substrings first, since every
string of an episode passes here."""
_BARE_WORD = re.compile(r"[^\s\"'`|;&<>()]+")
_MAX_ITEMS = 64


@dataclass(frozen=True)
class _Item:
    """One word of a written command: its text and where that text stands in the raw string."""

    word: str
    start: int
    end: int

    @property
    def verbatim(self) -> bool:
        """Is the raw text the word itself (no escape to undo)?"""
        return self.end - self.start == len(self.word)


def find_argv_credentials(text: str, config: RedactionConfig) -> Iterator[Finding]:
    """Credentials of every command in ``text`` written as a list of words (module docstring)."""
    lists: list[list[_Item]] = []
    if any(hint in text for hint in _QUOTED_OPTION_HINTS):
        lists.extend(_literal_lists(text))
    if any(hint in text for hint in _BLOCK_OPTION_HINTS):
        lists.extend(_yaml_sequences(text))
    if "[" in text and any(hint in text for hint in _FLOW_OPTION_HINTS):
        lists.extend(_flow_sequences(text))
    for items in lists:
        if len(items) >= 2 and any(_OPTION.match(item.word) for item in items):
            yield from _read_as_line(items[:_MAX_ITEMS], config)


_PROGRAM_KEYS = ("command", "cmd", "program", "executable", "exe", "binary", "file", "path")
_ARGUMENT_KEYS = ("args", "arguments", "argv")


def find_argv_in_document(document: object, config: RedactionConfig) -> Iterator[Finding]:
    """Credentials of a command a parsed JSON ``document`` keeps as a program and its argument
    list (an MCP server's ``{"command": "npx", "args": [...]}``, a launch configuration's
    ``program`` and ``args``): read as one line, the program first, since a client's own password
    option (``sqlcmd -P``) is known by the client's name. Offsets are in the word."""
    for node in json_objects(document):
        program = next((node[key] for key in _PROGRAM_KEYS if isinstance(node.get(key), str)), None)
        arguments = next((node[key] for key in _ARGUMENT_KEYS if isinstance(node.get(key), list)), None)
        if program and arguments and all(isinstance(word, str) for word in arguments):
            items = [_Item(word, 0, len(word)) for word in (program, *arguments)]
            if any(_OPTION.match(item.word) for item in items):
                yield from _read_as_line(items[:_MAX_ITEMS], config)


def _literal_lists(text: str) -> Iterator[list[_Item]]:
    """Runs of quoted string literals separated as a list's or a call's arguments are."""
    for match in _LITERAL_LIST.finditer(text):
        items: list[_Item] = []
        for literal in _ONE_LITERAL.finditer(text, match.start(), match.end()):
            if _KEY_AFTER.match(text, literal.end()):
                break
            word = _unquoted(literal.group())
            if word is None:
                break
            items.append(_Item(word, literal.start() + 1, literal.end() - 1))
        yield items


def _unquoted(literal: str) -> str | None:
    """The word a quoted literal spells (JSON's escapes, or a single-quoted string's ``\\'``)."""
    if "\\" not in literal:
        return literal[1:-1]
    if literal[0] == '"':
        try:
            word = json.loads(literal)
        except ValueError:
            return None
        return word if isinstance(word, str) else None
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def _yaml_sequences(text: str) -> Iterator[list[_Item]]:
    """A YAML block sequence of scalars right under a key (``args:`` then ``- --password`` lines):
    under a key, so a Markdown list after a sentence is not read as one."""
    if "\n" not in text or "- " not in text:
        return
    for key in _YAML_KEY_LINE.finditer(text):
        items: list[_Item] = []
        position = key.end()
        indent: str | None = None
        while (line := _YAML_ITEM.match(text, position)) is not None:
            if indent is None:
                indent = line.group("indent")
                if len(indent) < len(key.group("indent")):
                    break
            elif line.group("indent") != indent:
                break
            raw = line.group("item")
            start = line.start("item")
            if raw[:1] in "\"'" and len(raw) > 1 and raw[-1] == raw[0]:
                word = _unquoted(raw)
                if word is None:
                    break
                items.append(_Item(word, start + 1, start + len(raw) - 1))
            elif raw[:1] in "{[&*!|>" or re.search(r":(?:\s|$)", raw) or " #" in raw:
                break  # a mapping, a flow collection, an anchor or tag: not one word
            else:
                items.append(_Item(raw, start, start + len(raw)))
            position = line.end()
        yield items


_FLOW_SEQUENCE = re.compile(r":[ \t]+\[(?P<body>[^\[\]{}\n]+)\]")
_FLOW_ITEM = re.compile(r"[ \t]*(?P<item>[^,]*?)[ \t]*(?:,|$)")


def _flow_sequences(text: str) -> Iterator[list[_Item]]:
    """A YAML flow sequence of plain scalars after a key (``args: [redis-cli, -a, x]``); one of
    quoted scalars is a list of literals already (:func:`_literal_lists`)."""
    for match in _FLOW_SEQUENCE.finditer(text):
        items: list[_Item] = []
        body_end = match.end("body")
        for item in _FLOW_ITEM.finditer(text, match.start("body"), body_end):
            word, start = item.group("item"), item.start("item")
            if word[:1] in "\"'" and len(word) > 1 and word[-1] == word[0]:
                word, start = word[1:-1], start + 1
            if word:
                items.append(_Item(word, start, start + len(word)))
            if item.end() >= body_end:
                break
        yield items


def _read_as_line(items: list[_Item], config: RedactionConfig) -> Iterator[Finding]:
    """Join ``items`` into a command line, read it with the command rules, and map each finding
    that lies inside one word back to that word's raw text (:func:`_shell_form`)."""
    pieces: list[tuple[int, int, _Item, int]] = []
    line = ""
    for item in items:
        for part, index in _shell_form(item.word):
            if index >= 0:
                pieces.append((len(line), len(line) + len(part), item, index))
            line += part
        line += " "
    found = [*find_secrets(line, replace(config, entropy=False)), *find_positional_credentials(line)]
    for finding in found:
        for low, high, item, index in pieces:
            if low <= finding.start and finding.end <= high:
                begin, end = index + finding.start - low, index + finding.end - low
                detector = f"{finding.detector}+argv"
                if item.verbatim:
                    yield replace(finding, start=item.start + begin, end=item.start + end, detector=detector)
                else:
                    yield Finding(finding.kind, item.start, item.end, item.word[begin:end], detector)
                break


_GLUED_VALUE = re.compile(
    r"(?P<option>-[A-Za-z]|--?[A-Za-z][\w.-]*=|/[A-Za-z]{1,12}:)(?P<value>.+)", re.DOTALL
)


def _shell_form(word: str) -> list[tuple[str, int]]:
    """``word`` as the command line would spell it, in parts: each part's text and where it starts
    in the word (-1 for a quote). Bare where nothing would split it; else the value glued to an
    option quoted alone (``-p'a&b'``, ``--password='a b'``, as a person types them: the rules
    read a quoted value after its option), or the whole word quoted. A ``$`` or ``#`` stays the
    character it is: a list never passes through a shell."""
    if word and _BARE_WORD.fullmatch(word):
        return [(word, 0)]
    quote = "'" if "'" not in word else '"' if '"' not in word else ""
    glued = _GLUED_VALUE.fullmatch(word)
    if glued and _BARE_WORD.fullmatch(glued.group("option")):
        value = glued.group("value")
        return [(glued.group("option"), 0), (quote, -1), (value, glued.start("value")), (quote, -1)]
    return [(quote, -1), (word, 0), (quote, -1)]
