"""Credential maps keyed by user: the container's name says credential, each entry's key is a user.

``PASSWORDS = {"admin": "..."}``, ``basic_auth_users:`` over ``admin: ...``, a ``[passwords]``
section, express-basic-auth's ``users: {admin: '...'}``, Caddy's ``basicauth { admin ... }``: the
label is the container's name, one level up, and the key right before each value is a user name,
so no rule that reads a value's own key saw a credential (a red team, 2026-12-06: 88 of 96 such
maps kept every value). The Kubernetes Secret rule reads every value of ``data:`` by the
document's ``kind``; this is the same reading driven by the container's name: a plural credential
name (``passwords``, ``api_keys``, ``credentials``, ``basic_auth_users``) or ``users`` under a
basic-auth call or block.

An entry whose key is a field name (``username``, ``host``, ``min_length``: a single credential
spelled as a record, or a policy) is no user's value and is left to the rules that read its key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import KEYWORD_SCAN, acceptable_value
from trajectory_platform.curation.redact.model import Finding

_KEY = r"[\"']?(?P<key>[\w.@+-]{1,64})[\"']?"
_CONTAINER = re.compile(
    r"(?P<brace>(?<![\w.-])[\"']?(?P<bname>[A-Za-z_][\w.-]{0,64})[\"']?[ \t]*(?:=|:|=>)[ \t]*\{)"
    r"|^(?P<indent>[ \t]*)(?P<yname>[A-Za-z_][\w.-]{0,64}):[ \t]*$"
    r"|^\[(?P<sname>[A-Za-z_][\w.-]{0,64})\][ \t]*$"
    r"|^[ \t]*(?P<caddy>[Bb]asic_?[Aa]uth)\b[^{\n]*\{[ \t]*$",
    re.MULTILINE,
)
_BRACE_ENTRY = re.compile(
    _KEY + r"[ \t]*(?::|=>?)[ \t]*(?P<q>[\"'])(?P<value>(?:(?!(?P=q))[^\\\n]){1,200})(?P=q)"
)
_LINE_ENTRY = re.compile(
    r"^(?P<indent>[ \t]*)"
    + _KEY
    + r"[ \t]*(?::|=)[ \t]*(?P<q>[\"']?)(?P<value>[^\s\"']{1,200})(?P=q)(?:[ \t]+[#;][^\n]*)?[ \t]*$",
    re.MULTILINE,
)
_CADDY_ENTRY = re.compile(r"^[ \t]+(?P<key>[\w.@+-]+)[ \t]+(?P<value>\S{4,200})[ \t]*$", re.MULTILINE)
_BASIC_AUTH_BEFORE = re.compile(r"(?i)basic_?auth\w*\s*\(\s*\{[^{}]{0,80}$")
_FIELD_KEYS = re.compile(
    r"(?i)(?:user(?:_?name)?|login|e?mail|name|host(?:name)?|port|url|uri|endpoint|type|kind|provider|region"
    r"|driver|database|db|schema|scheme|method|mode|path|file|source|id|enabled|required|description|length"
    r"|min\w*|max\w*|expires?\w*|ttl|version|format|algorithm|rounds|cost|realm|challenge|header|prefix)"
)
_MAX_MAP = 4000
_ACCOUNT_WORDS = frozenset({"users", "logins", "accounts"})
"""Last words of a container of accounts (``basic_auth_users``): under a credential's name, the
map's values are the accounts' passwords."""


def find_user_keyed_values(text: str) -> Iterator[Finding]:
    """Each value of a mapping whose own name marks it a map of credentials (module docstring)."""
    if not KEYWORD_SCAN.search(text.lower()):
        return  # a container's name (or basic_auth) holds one of the credential keywords
    for match in _CONTAINER.finditer(text):
        if match.group("caddy"):
            end = text.find("}", match.end(), match.end() + _MAX_MAP)
            entries = _CADDY_ENTRY.finditer(text, match.end(), end if end >= 0 else match.end())
            yield from _judged(entries, "password")
            continue
        name = match.group("bname") or match.group("yname") or match.group("sname")
        kind = _container_class(name, text, match.start())
        if kind is None:
            continue
        if match.group("brace"):
            yield from _judged(
                _BRACE_ENTRY.finditer(text, match.end(), _closing_brace(text, match.end())), kind
            )
        elif match.group("sname"):
            section_end = re.compile(r"^\[|\n[ \t]*\n", re.MULTILINE).search(text, match.end())
            stop = section_end.start() if section_end else len(text)
            yield from _judged(
                _LINE_ENTRY.finditer(text, match.end(), min(stop, match.end() + _MAX_MAP)), kind
            )
        else:
            yield from _judged(_indented_entries(text, match), kind)


def _container_class(name: str, text: str, start: int) -> str | None:
    """The class of credential a container so named maps its users to, or None when it is none."""
    lowered = name.lower()
    if lowered == "users":
        return "password" if _BASIC_AUTH_BEFORE.search(text, max(0, start - 120), start) else None
    name_class = credential_class(name)
    last = re.split(r"[_.-]", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())[-1]
    if name_class is None or not last.endswith("s") or not (credential_class(last) or last in _ACCOUNT_WORDS):
        return None  # a plural credential name (passwords, api_keys), not passwords_test_cases
    return "password" if name_class == "password" or last in _ACCOUNT_WORDS or "cred" in last else name_class


def _closing_brace(text: str, start: int) -> int:
    """Where the brace opened just before ``start`` closes (or how far a map is followed)."""
    depth = 0
    for index in range(start, min(len(text), start + _MAX_MAP)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
    return min(len(text), start + _MAX_MAP)


def _indented_entries(text: str, match: re.Match[str]) -> Iterator[re.Match[str]]:
    """The scalar entries of a YAML mapping's first level below ``name:``."""
    parent = len(match.group("indent"))
    child: int | None = None
    for entry in _LINE_ENTRY.finditer(text, match.end(), match.end() + _MAX_MAP):
        between = text[match.end() : entry.start()]
        if child is None:
            if between.strip():
                return  # the first line below is no scalar entry: not a flat map
            child = len(entry.group("indent"))
            if child <= parent:
                return
        elif len(entry.group("indent")) != child or _dedented(text, match.end(), entry.start(), child):
            return
        yield entry


def _dedented(text: str, start: int, end: int, child: int) -> bool:
    """Does a non-blank line between ``start`` and ``end`` sit left of the map's entries?"""
    for line in text[start:end].split("\n"):
        if line.strip() and len(line) - len(line.lstrip(" \t")) < child:
            return True
    return False


def _judged(entries: Iterator[re.Match[str]], kind: str) -> Iterator[Finding]:
    for entry in entries:
        value = entry.group("value")
        if _FIELD_KEYS.fullmatch(entry.group("key")) or not acceptable_value(value, True, kind, ""):
            continue
        label = "PASSWORD" if kind == "password" else "SECRET"
        yield Finding(label, entry.start("value"), entry.end("value"), value, "keyword:credential_map")
