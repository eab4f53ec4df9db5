"""An ``INSERT`` whose values are bound parameters: the call's parameter tuple holds them.

``cur.execute('INSERT INTO creds (user, secret) VALUES (%s, %s)', ('bob', 'v'))`` names the
credential column in the statement and places its value in the tuple after it, by position. The
statement's own rows hold only placeholders (DB-API's ``%s`` and ``?``, PostgreSQL's ``$1``), so
the rule that reads an ``INSERT``'s literal rows (:func:`.positional.find_positional_credentials`)
found nothing and the password stayed (a red team, 2026-12-06).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from trajectory_platform.curation.redact.model import Finding

_PLACEHOLDER = re.compile(r"\s*(?:%s|\?|\$\d{1,3})\s*")
_PARAMETERS = re.compile(
    r"\s*[\"']{1,3}\s*,\s*(?:(?:params|parameters|args)\s*=\s*)?[(\[]?(?P<items>[^()\[\]\n]*)[)\]]"
)
"""The end of the statement's string literal, then the parameter tuple or list after it, or the
call's further arguments (asyncpg's ``execute(sql, *args)``)."""
_ITEM = re.compile(r"\s*(?:[bru]?(?P<q>[\"'])(?P<value>(?:(?!(?P=q))[^\\\n]|\\.)*)(?P=q)|[^,\"']+)\s*(?:,|$)")


def bound_insert_values(
    text: str,
    statement_end: int,
    row: str,
    columns: list[str | None],
    shaped: Callable[[str], bool],
) -> Iterator[Finding]:
    """The literal parameters bound to the credential ``columns`` of an ``INSERT`` whose one
    ``row`` of values is placeholders only, from the tuple that follows the statement at
    ``statement_end``; a parameter must be ``shaped`` like a credential (a variable is no value)."""
    placeholders = row.split(",")
    if len(placeholders) != len(columns) or not all(_PLACEHOLDER.fullmatch(p) for p in placeholders):
        return
    bound = _PARAMETERS.match(text, statement_end)
    if bound is None:
        return
    items = list(_ITEM.finditer(bound.group("items")))
    if len(items) != len(columns):
        return
    for named, item in zip(columns, items, strict=True):
        value = item.group("value")
        if named is not None and value and shaped(value):
            start = bound.start("items") + item.start("value")
            kind = "PASSWORD" if named == "password" else "SECRET"
            yield Finding(kind, start, start + len(value), value, "positional:sql_bound_parameter")
