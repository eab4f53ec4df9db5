"""What a SELECT of a credential column printed: the query names the column, the rows hold values.

``SELECT password FROM users`` answered by psql's one-column table (a header, a dashed rule, the
rows, ``(n rows)``), a MySQL box (``+---+`` rules around ``| value |`` rows) or sqlite's list mode
(bare rows, ``a|b`` without a header) puts a credential on a line with no label beside it: the
table rules (:mod:`.positional`) need a header with a delimiter, which a one-column table has none
of and sqlite never prints (a red team, 2026-12-07: 16 of 24 results kept every value).

:func:`find_selected_credentials` reads the query where a client's prompt shows it (``db=>``,
``db=#``, ``mysql>``, ``MariaDB [db]>``, ``sqlite>``) and the result up to the next prompt;
:func:`selected_credentials` reads a query a command ran (``psql -c "..."``, ``sqlite3 app.db
"..."``, ``mysql -e "..."``) against the command's output. The SELECT list's plain columns
(``u.password``, ``secret_key AS sk``) name the result's columns by position; a row is a line with
as many cells as the list has columns (split at ``|``, or at tabs where a line has none), and a
cell under a credential-named column that looks like one (:func:`.positional.credential_shaped`
for a password, an acceptable key for a token) is a finding. An expression (``count(password)``,
``md5(secret)``) or ``*`` names no column: such a query is left to the table rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

_CLIENT_PROMPT = r"(?:[\w.-]*=[>#]|mysql>|mariadb \[[^\]\n]*\]>|sqlite>|duckdb>)"
_PROMPT = re.compile(rf"(?im)^[ \t]*{_CLIENT_PROMPT}[ \t]*(?P<query>select\b[^\n]*)$")
"""A client's prompt and the SELECT typed at it (psql ``db=>``, MySQL, MariaDB, sqlite, DuckDB)."""
_NEXT_PROMPT = re.compile(rf"(?im)^[ \t]*(?:{_CLIENT_PROMPT}|[\w.-]*-[>#]|\$ )")
"""Where a result ends: the next prompt (psql's continuation ``db->`` too) or a shell's."""
_CLIENT_QUERY = re.compile(
    r"(?is)\b(?:psql|mysql|mariadb|sqlite3|duckdb)\b[^\n|;&]*?(?P<q>[\"'])\s*(?P<query>select\b.*?)(?P=q)"
)
"""A query a client ran from the command line, quoted (``psql -c "..."``, ``sqlite3 db '...'``)."""
_SELECT_LIST = re.compile(r"(?is)^\s*select\s+(?:distinct\s+)?(?P<list>.*?)\s+from\b")
_COLUMN = re.compile(
    r"(?i)(?:[\w\"`]+\.)*[\"`]?(?P<name>\w+)[\"`]?(?:\s+(?:as\s+)?[\"`]?(?P<alias>\w+)[\"`]?)?"
)
"""A plain column of a SELECT list, maybe qualified and aliased (``u."password" AS pw``)."""
_RULE = re.compile(r"[-+=| \t]*")
_FOOTER = re.compile(r"(?i)\(\d+ rows?\)|\d+ rows? in set.*|empty set.*|\d+ rows? selected\.?")


def find_selected_credentials(text: str) -> Iterator[Finding]:
    """The credential cells of each result a client's prompt shows after its SELECT."""
    if "select" not in text.lower():
        return
    for match in _PROMPT.finditer(text):
        start = match.end() + 1
        following = _NEXT_PROMPT.search(text, start)
        end = following.start() if following else len(text)
        for low, high, kind in selected_credentials(match.group("query"), text[start:end]):
            yield Finding(kind, start + low, start + high, text[start + low : start + high], "sql_result")


def command_selects(command: str) -> list[str]:
    """The SELECT queries a command ran from a client's command line."""
    return [match.group("query") for match in _CLIENT_QUERY.finditer(command)]


def selected_credentials(query: str, output: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, kind)`` in ``output`` of each credential cell of ``query``'s result."""
    columns = _columns(query)
    if not columns or not any(columns):
        return
    position = 0
    for line in output.splitlines(keepends=True):
        line_start, position = position, position + len(line)
        body = line.rstrip("\r\n")
        if _RULE.fullmatch(body) or _FOOTER.fullmatch(body.strip()):
            continue
        for (low, high), kind in zip(_cells(body, len(columns)), columns, strict=False):
            if kind and _credential(body[low:high], kind):
                yield line_start + low, line_start + high, "PASSWORD" if kind == "password" else "SECRET"


def _columns(query: str) -> list[str | None]:
    """The credential class of each SELECT-list column (None: not one), or [] for ``*`` or an
    expression anywhere in the list (the positions past it are unknown)."""
    listed = _SELECT_LIST.match(query)
    if listed is None:
        return []
    classes: list[str | None] = []
    for item in listed.group("list").split(","):
        column = _COLUMN.fullmatch(item.strip())
        if column is None:
            return []
        alias = column.group("alias")  # ``secret_key AS sk``: the column's values, whatever the alias
        classes.append(credential_class(column.group("name")) or (credential_class(alias) if alias else None))
    return classes


def _cells(line: str, count: int) -> list[tuple[int, int]]:
    """The spans of the cells of a result row of ``count`` columns, or [] for another line."""
    inner_start, inner_end = 0, len(line)
    stripped = line.strip()
    if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
        inner_start, inner_end = line.index("|") + 1, line.rindex("|")
    inner = line[inner_start:inner_end]
    delimiter = "|" if "|" in inner or "\t" not in inner else "\t"  # mysql -B and psql -F'\t': tabs
    bounds = [inner_start]
    if count > 1:
        bounds += [i + 1 for i in range(inner_start, inner_end) if line[i] == delimiter]
    elif delimiter in inner:
        return []
    if len(bounds) != count:
        return []
    spans = []
    for low, high in zip(bounds, [*(b - 1 for b in bounds[1:]), inner_end], strict=True):
        cell = line[low:high]
        spans.append((low + len(cell) - len(cell.lstrip()), high - len(cell) + len(cell.rstrip())))
    return spans


def _credential(value: str, kind: str) -> bool:
    if kind == "password":
        return credential_shaped(value)
    return len(value) >= 8 and " " not in value and acceptable_value(value, True, kind, "")
