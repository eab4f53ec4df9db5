"""Values that a format's own multi-line string syntax carries past the line of their name.

The assignment rules read a value as a quoted literal or a bare token on the name's line. Each
configuration or code language also has a way to write a string over several lines, and there the
name's line holds only the opener: TOML's ``\"\"\"``/``'''``, HCL, Ruby and shell heredocs
(``<<EOT``, ``<<-EOT``, ``<<~PW``, ``$(cat <<'EOF'``), Nix's ``''``, an INI option whose value is
on its indented continuation lines, and a double-quoted YAML or ``.env`` value that goes on over a
line break. Read on its line, ``password = \"\"\"`` is an empty string and the secret on the next
line had no name (a red team, 2026-12-06: 104 of 112 such texts kept the value).

A multipart/form-data part (``curl -v -F``, a proxy's request dump, a printed request body) is the
same shape: ``Content-Disposition: form-data; name="password"`` names the part, its headers end at a
blank line, and the value is the body up to the next boundary line (:data:`_MULTIPART_PART`).

One reader (:func:`find_multiline_values`) follows every opener of :data:`_OPENERS` to its closer
(or, for a continuation, to the end of the indented run) and judges the body as the value of the
credential the name says, by the same test as a value on its own line
(:func:`.detectors.acceptable_value`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import KEYWORD_SCAN, acceptable_value
from trajectory_platform.curation.redact.model import Finding

_NAME = r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]{0,64})[\"']?[ \t]*(?:=|:)[ \t]*"
_OPENERS = re.compile(
    _NAME + r"(?:"
    r"(?P<triple>\"\"\"|''')"  # TOML multi-line strings (and Python's triple quotes)
    r"|[\"']?\$\(\s*cat\s+<<-?[ \t]*(?P<q1>['\"]?)(?P<word1>\w+)(?P=q1)"  # X=$(cat <<'EOF' ... EOF)
    r"|<<[-~]?[ \t]*(?P<q2>['\"]?)(?P<word2>[A-Za-z_]\w*)(?P=q2)[\w.()]*[ \t]*$"  # HCL / Ruby / shell heredoc
    r"|(?P<nix>'')[ \t]*$"  # Nix indented string
    r"|(?P<dquote>\")(?=[^\"\n]*\n)(?![^\n]*\"[^\n]*$)"  # a double-quoted value not closed on its line
    r"|(?P<bare>[ \t]*)$"  # nothing after the name: the value is on the indented lines below
    r")",
    re.MULTILINE,
)
_MULTIPART_PART = re.compile(
    r"^Content-Disposition:[ \t]*form-data;[ \t]*name=\"(?P<name>[^\"\r\n]{1,64})\"[ \t]*\r?\n"
    r"(?:[\w-]{1,64}:[^\r\n]{0,200}\r?\n){0,4}\r?\n"  # the part's other headers, then the blank line
    r"(?P<value>[^\r\n]{1,4000})(?=\r?\n--|\r?\n?$)",
    re.MULTILINE | re.IGNORECASE,
)
"""A form field's part, named by its header, holding one line of body (a file's part names a
``filename`` too and is a document)."""
_MAX_BODY = 4000
"""The furthest a body is followed: a secret's string is short; a longer one is a document."""
_MAX_QUOTED_LINES = 3
"""The most lines a double-quoted value goes over before it reads as a quote left open."""
_NIX_CLOSE = re.compile(r"^[ \t]*'';", re.MULTILINE)
"""A Nix indented string closes with ``'';`` on its own line; Python's ``x = ''`` is an empty
string, and what follows it is code."""
_MAPPING_LINE = re.compile(r"[ \t]*(?:-[ \t]|[\"']?[\w.-]+[\"']?[ \t]*[:=]|#|;|\[)")
"""An indented line that is an entry of its own (a nested mapping, a list item, a comment, a
section): the name above it opens a block, it does not continue a value."""


def find_multiline_values(text: str) -> Iterator[Finding]:
    """Credential values written with a multi-line string syntax after a credential's name."""
    if "\n" not in text and '"""' not in text and "'''" not in text or not KEYWORD_SCAN.search(text.lower()):
        return  # every opener follows a credential's name, which holds one of the keywords
    for match in _OPENERS.finditer(text):
        name_class = credential_class(match.group("name"))
        if name_class is None:
            continue
        for start, end in _body_lines(text, match):
            value = text[start:end]
            if acceptable_value(value, True, name_class, "") or _quoted_over_lines(value, name_class):
                kind = "PASSWORD" if name_class == "password" else "SECRET"
                yield Finding(kind, start, end, value, "keyword:multiline")
    for part in _MULTIPART_PART.finditer(text):
        name_class = credential_class(part.group("name"))
        value = part.group("value").strip()
        if name_class is not None and acceptable_value(value, True, name_class, ""):
            start = part.start("value") + part.group("value").index(value)
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, start, start + len(value), value, "keyword:multipart")


def _body_lines(text: str, match: re.Match[str]) -> list[tuple[int, int]]:
    """The spans of the value an opener starts: each non-blank line of a block body (stripped), or
    for a quoted value over lines, the one span between its quotes."""
    after = match.end()
    if match.group("triple"):
        close = text.find(match.group("triple"), after, after + _MAX_BODY)
        return _stripped_lines(text, after, close) if close >= 0 else []
    word = match.group("word1") or match.group("word2")
    if word:
        closer = re.compile(rf"^[ \t]*{re.escape(word)}\b", re.MULTILINE)
        body = text.find("\n", after) + 1
        heredoc_end = closer.search(text, body, body + _MAX_BODY) if body else None
        return _stripped_lines(text, body, heredoc_end.start()) if heredoc_end else []
    if match.group("nix"):
        nix_end = _NIX_CLOSE.search(text, after, after + _MAX_BODY)
        return _stripped_lines(text, after, nix_end.start()) if nix_end else []
    if match.group("dquote"):
        close = text.find('"', after, after + _MAX_BODY)
        if close < 0 or text.count("\n", after, close) > _MAX_QUOTED_LINES:
            return []
        return [(after, close)]
    return _continuation(text, match)


def _continuation(text: str, match: re.Match[str]) -> list[tuple[int, int]]:
    """An INI option's value on the line below its name, indented deeper than the name (and not
    an entry of its own, :data:`_MAPPING_LINE`): ConfigParser's continuation line. The name opens
    its line and the value is one word: a code block under ``if a == password:`` is none."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    before_name = text[line_start : match.start("name")]
    if before_name.strip():
        return []
    position = match.end() + 1
    end = text.find("\n", position)
    line = text[position : len(text) if end < 0 else end]
    stripped = line.strip()
    if not stripped or " " in stripped or len(line) - len(line.lstrip()) <= len(before_name):
        return []
    if _MAPPING_LINE.match(line):
        return []
    start = position + line.index(stripped)
    next_end = text.find("\n", end + 1) if end >= 0 else -1
    following = "" if end < 0 else text[end + 1 : len(text) if next_end < 0 else next_end]
    if following.strip() and len(following) - len(following.lstrip()) > len(before_name):
        return []  # a block of several lines: code or a nested list, not one continued value
    return [(start, start + len(stripped))]


def _stripped_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Each non-blank line of ``text[start:end]``, without its indentation and trailing spaces;
    none when the body has more than :data:`_MAX_QUOTED_LINES` of them (a document, a script or a
    query, not a credential's string)."""
    spans = []
    for line in re.finditer(r"[^\n]+", text[start:end]):
        stripped = line.group().strip()
        if stripped:
            offset = start + line.start() + line.group().index(stripped)
            spans.append((offset, offset + len(stripped)))
    return spans if len(spans) <= _MAX_QUOTED_LINES else []


def _quoted_over_lines(value: str, name_class: str) -> bool:
    """A double-quoted value that goes on over a line break (YAML folds it, ``.env`` keeps the
    break): credential-shaped once its lines are joined, and no code or prose inside."""
    if "\n" not in value or any(mark in value for mark in "=$`{}()[]<>;"):
        return False
    joined = "".join(part.strip() for part in value.split("\n"))
    return acceptable_value(joined, True, name_class, "")
