"""The password of a database connection string, read to where its format ends it.

Two families write a connection as ``key=value`` pairs. ADO.NET, ODBC, OLE DB and JDBC's SQL Server
URL separate them with ``;``: a value runs to the next ``;`` (a ``,``, a ``\\``, a space or a ``=``
inside it is the value's), or sits in ODBC's braces (``Pwd={a;b}``, ``}}`` a brace) or in quotes
(``Password="a;b"``, a doubled quote a quote). libpq separates them with spaces: a value runs to
the next unescaped space, a backslash escaping the next character (``password=a\\ b``), or sits in
single quotes. The labelled-value rules read a value as characters code ends a value at
(``,;'"()\\`` and space), so ``Password=Hw8,pR3\\kT5m;`` lost only ``Hw8`` to the pseudonym and
the rest of the password stayed (session 44's brief, class 1). A pair counts only in a string that
holds another of its format's keys (``Server=``, ``Uid=``, ``host=``, ``dbname=``...): elsewhere
``password=x`` is the labelled-value rules' to judge. A connection string inside a quoted literal
(``"Server=...;Password=x"``) ends at that literal's closing quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding

_PASSWORD_PAIR = re.compile(r"(?i)(?<![\w.-])(?P<key>password|pwd|passwd)[ \t]*=[ \t]*")
_SEMICOLON_KEYS = re.compile(
    r"(?i)(?:^|[;\"'{])[ \t]*(?:server|data[ \t]+source|datasource|addr|address|network[ \t]+address"
    r"|host|user[ \t]*id|uid|user|username|database|databasename|initial[ \t]+catalog|driver|dsn"
    r"|provider|port|encrypt|trusted_connection|integrated[ \t]+security)[ \t]*="
)
"""Another key of a ``;``-separated connection string, opening the string or after a ``;``."""
_LIBPQ_KEYS = re.compile(r"(?:^|(?<=[\s\"']))(?:host|hostaddr|port|dbname|user|sslmode|connect_timeout)=")
"""Another key of a libpq connection string (``host=db user=app``), opening a word."""
_QUOTES = "\"'"


def _enclosing_quote(line: str, position: int) -> str | None:
    """The quote open at ``position`` of ``line``, read from its start (a backslash escapes the next
    character inside double quotes)."""
    quote, index = None, 0
    while index < position:
        char = line[index]
        if char == "\\" and quote == '"':
            index += 2
            continue
        if quote is None and char in _QUOTES and (index == 0 or not line[index - 1].isalnum()):
            quote = char
        elif char == quote:
            quote = None
        index += 1
    return quote


def _closing(line: str, start: int, quote: str, doubled: bool) -> int:
    """Where a value quoted with ``quote`` from ``start`` closes (``doubled``: a doubled quote is one
    quote; else a backslash escapes), or -1."""
    index = start
    while index < len(line):
        char = line[index]
        if char == "\\" and not doubled:
            index += 2
            continue
        if char == quote:
            if doubled and line[index + 1 : index + 2] == quote:
                index += 2
                continue
            return index
        index += 1
    return -1


def _semicolon_value(line: str, start: int, enclosing: str | None) -> tuple[int, int]:
    """The span of a ``;``-separated string's value starting at ``start``."""
    opener = line[start : start + 1]
    if opener == "{":
        close = line.find("}", start + 1)
        while close != -1 and line[close + 1 : close + 2] == "}":
            close = line.find("}", close + 2)
        return (start + 1, close) if close != -1 else (start, start)
    if opener in _QUOTES and opener != enclosing:
        close = _closing(line, start + 1, opener, doubled=True)
        return (start + 1, close) if close != -1 else (start, start)
    end = line.find(";", start)
    end = len(line) if end == -1 else end
    if enclosing is not None:
        closing = _closing(line, start, enclosing, doubled=False)
        end = end if closing == -1 else min(end, closing)
    while end > start and line[end - 1] in " \t\r":
        end -= 1
    return start, end


def _libpq_value(line: str, start: int, enclosing: str | None) -> tuple[int, int]:
    """The span of a libpq value starting at ``start``: quoted, or to an unescaped space."""
    if line[start : start + 1] == "'" and enclosing != "'":
        close = _closing(line, start + 1, "'", doubled=False)
        return (start + 1, close) if close != -1 else (start, start)
    index = start
    while index < len(line) and not line[index].isspace() and line[index] != enclosing:
        index += 2 if line[index] == "\\" and index + 1 < len(line) else 1
    return start, min(index, len(line))


def find_connection_string_passwords(text: str) -> Iterator[Finding]:
    """The password of every connection string in ``text`` (module docstring)."""
    offset = 0
    for line in text.split("\n"):
        if "=" in line:
            yield from _line_passwords(line, offset)
        offset += len(line) + 1


def _line_passwords(line: str, offset: int) -> Iterator[Finding]:
    for pair in _PASSWORD_PAIR.finditer(line):
        before = line[: pair.start()].rstrip(" \t")
        enclosing = _enclosing_quote(line, pair.start())
        if (before.endswith(";") or ";" in line[pair.end() :]) and _SEMICOLON_KEYS.search(line):
            start, end = _semicolon_value(line, pair.end(), enclosing)
        elif (pair.start() == 0 or line[pair.start() - 1] in " \t\"'") and _LIBPQ_KEYS.search(line):
            start, end = _libpq_value(line, pair.end(), enclosing)
        else:
            continue
        value = line[start:end]
        if value and acceptable_value(value, True, "password", "") and not value.startswith(("{", "$", "%")):
            yield Finding("PASSWORD", offset + start, offset + end, value, "connection_string")
