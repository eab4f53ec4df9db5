"""Credential maps keyed by user: the container's name says credential, each entry's key is a user.

``PASSWORDS = {"admin": "..."}``, ``basic_auth_users:`` over ``admin: ...``, a ``[passwords]``
section, express-basic-auth's ``users: {admin: '...'}``, Caddy's ``basicauth { admin ... }``: the
label is the container's name, one level up, and the key right before each value is a user name,
so no rule that reads a value's own key saw a credential (a red team, 2026-12-06: 88 of 96 such
maps kept every value). The Kubernetes Secret rule reads every value of ``data:`` by the
document's ``kind``; this is the same reading driven by the container's name: a plural credential
name (``passwords``, ``api_keys``, ``credentials``, ``basic_auth_users``) or ``users`` under a
basic-auth call or block.

A list under such a name is read the same way (rtsec10 LS: 36 of 36 kept): a YAML block of ``- v``
items, a flow list ``[a, b]``, a Python, JavaScript or TOML array of scalars; a list of records,
calls or lists is none. A container of credentials that are no one's (``COMMON_PASSWORDS``, a
validator's blocklist) is left alone.

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
    r"(?P<brace>(?<![\w.-])[\"']?(?P<bname>[A-Za-z_][\w.-]{0,64})[\"']?[ \t]*(?:=|:|=>)[ \t]*(?P<open>[{\[]))"
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
_NOT_OWN = re.compile(
    r"(?:^|[_.-])(?:common|weak|banned|blocked|blocklisted|blacklisted|forbidden|disallowed|leaked|breached"
    r"|pwned|compromised|top|popular|guessed|wordlist|invalid|bad|wrong|rejected)(?=[_.-]|passwords|$)"
)
"""Qualifiers of a container of credentials that are no one's: ``COMMON_PASSWORDS = ["123456",
...]`` is a blocklist in a validator, ``invalid_tokens`` a test's negatives."""
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
        if match.group("open") == "[":
            yield from _judged(_flow_items(text, match.end()), kind)
        elif match.group("brace"):
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
            yield from _judged(_block_items(text, match), kind)


def _container_class(name: str, text: str, start: int) -> str | None:
    """The class of credential a container so named maps its users to, or None when it is none."""
    lowered = name.lower()
    if lowered == "users":
        return "password" if _BASIC_AUTH_BEFORE.search(text, max(0, start - 120), start) else None
    if _NOT_OWN.search(lowered):
        return None  # a list of passwords to refuse or to try, not the application's own
    name_class = credential_class(name)
    last = re.split(r"[_.-]", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())[-1]
    if name_class is None or not last.endswith("s") or not (credential_class(last) or last in _ACCOUNT_WORDS):
        return None  # a plural credential name (passwords, api_keys), not passwords_test_cases
    return "password" if name_class == "password" or last in _ACCOUNT_WORDS or "cred" in last else name_class


_FLOW_ITEM = re.compile(
    r"\s*(?:(?P<q>[\"'])(?P<quoted>(?:(?!(?P=q))[^\\\n]){1,200})(?P=q)|(?P<bare>[^\s,\"'\]]{1,200}))\s*(?:,|(?=\]))"
)
_BLOCK_ITEM = re.compile(
    r"\n(?P<indent>[ \t]*)-[ \t]+(?:(?P<q>[\"'])(?P<quoted>(?:(?!(?P=q))[^\\\n]){1,200})(?P=q)"
    r"|(?P<bare>[^\s\"'#]\S{0,199}))[ \t]*(?:[ \t]#[^\n]*)?(?=\n|$)"
)
_FLAT = re.compile(r"[^\[\]{}()\n]*\]|[^\[\]{}()]{0,4000}?\]")
"""A flow list of scalars up to its ``]``: a list of records, calls or lists holds no credential of
its own name (``api_keys: [{name: a, value: b}]``, ``TOKENS = [env("A")]``)."""


def _flow_items(text: str, start: int) -> Iterator[_Item]:
    """The scalar items of a flow list opened just before ``start`` (``[a, "b"]``), if it is flat."""
    flat = _FLAT.match(text, start)
    if flat is None:
        return
    position = start
    while (item := _FLOW_ITEM.match(text, position, flat.end())) is not None:
        yield _Item(item)
        position = item.end()


def _block_items(text: str, match: re.Match[str]) -> Iterator[_Item]:
    """The ``- item`` lines of a YAML sequence below ``name:``, at the name's indent or deeper."""
    parent = len(match.group("indent"))
    position = match.end()
    indent: str | None = None
    while (item := _BLOCK_ITEM.match(text, position)) is not None:
        if len(item.group("indent")) < parent or indent not in (None, item.group("indent")):
            return
        indent = item.group("indent")
        yield _Item(item)
        position = item.end()


class _Item:
    """One list item, read like a map entry with no key: quoted or bare, at its span in the text."""

    def __init__(self, match: re.Match[str]) -> None:
        group = "quoted" if match.group("quoted") is not None else "bare"
        self.value: str = match.group(group)
        self.span: tuple[int, int] = match.span(group)
        self.key = ""
        self.quoted = group == "quoted"


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


def _judged(entries: Iterator[re.Match[str]] | Iterator[_Item], kind: str) -> Iterator[Finding]:
    """Each entry's value that :func:`.detectors.acceptable_value` takes for a ``kind`` credential: a
    map's entries by their user key (a field's key is left to other rules), a list's items as
    written (a bare item may be a name: ``[ADMIN_PW, USER_PW]`` lists variables)."""
    for entry in entries:
        if isinstance(entry, _Item):
            value, (start, end), key, quoted = entry.value, entry.span, entry.key, entry.quoted
        else:
            value, (start, end), key = entry.group("value"), entry.span("value"), entry.group("key")
            quoted = True
        if _FIELD_KEYS.fullmatch(key) or not acceptable_value(value, quoted, kind, ""):
            continue
        label = "PASSWORD" if kind == "password" else "SECRET"
        yield Finding(label, start, end, value, "keyword:credential_map")
