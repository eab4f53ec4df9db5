"""Credential files printed whole: the file's format says which of its lines is the secret.

``cat`` of a one-line credential-named file prints one value, which :func:`.positional.secret_printed_by`
reads. Some credential files hold more than a value, in a layout their program fixes: pgbouncer's
``userlist.txt`` (its ``auth_file``) is ``"user" "password"`` per line; OpenVPN's ``auth-user-pass``
file is the user name on one line and the password on the next. No label stands beside the value,
so no rule of one text read it (a red team, 2026-12-06). A format applies to a file the path names:
by its program's file name (``userlist.txt``), by a credential name (``vpn-creds``, ``auth.txt``),
or by the directive that points the program at it (``auth-user-pass creds.txt``, ``auth_file =``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding

_QUOTED_PAIR_LINES = re.compile(r'(?m)^[ \t]*"[^"\n]{1,64}"[ \t]+"(?P<value>[^"\n]{4,200})"[ \t]*\r?$')
"""pgbouncer's auth file: a quoted user name and a quoted password (or its hash) on each line."""
_USER_THEN_PASSWORD = re.compile(r"\A\s*[\w.@+\\-]{1,64}[ \t]*\r?\n(?P<value>[^\s]{4,200})[ \t]*\r?\n?\s*\Z")
"""OpenVPN's (and OpenConnect's, a PPP helper's) two-line file: the user name, then the password."""
_FORMATS: tuple[tuple[re.Pattern[str] | None, re.Pattern[str]], ...] = (
    (re.compile(r"(?:^|/)userlist\.txt$"), _QUOTED_PAIR_LINES),
    (None, _USER_THEN_PASSWORD),
)
"""Each format's file name (None: any file a credential name or a directive names) and its layout."""
_NAMING_DIRECTIVE = re.compile(
    r"(?m)(?:^|\s)(?:--)?(?:auth-user-pass|auth_file[ \t]*=)[ \t]*(?P<path>[^\s\"';|&]+)"
)
"""A program's setting that points at its credential file: OpenVPN's ``auth-user-pass`` and
pgbouncer's ``auth_file``."""
_PRINTED_FILE = re.compile(
    r"(?m)^(?:[^\n$#>]{0,80}[$#>][ \t]+)?(?:sudo[ \t]+)?(?:cat|type|Get-Content)[ \t]+"
    r"(?P<path>[^\s|;&<>]+)[ \t]*\r?\n"
)
"""A shell line that prints one file (its prompt, if any, before it); its output follows it."""
_PRINTED_COMMAND = re.compile(r"(?:sudo[ \t]+)?(?:cat|type|Get-Content)[ \t]+(?P<path>[^\s|;&<>]+)")
_NEXT_PROMPT = re.compile(r"(?m)^[^\n$#>]{0,80}[$#>][ \t]+\S|^```")


def _leaf(path: str) -> str:
    return path.strip("\"'").rsplit("/", 1)[-1]


def _named_credential(path: str, directed: frozenset[str]) -> bool:
    leaf = _leaf(path)
    stem = re.sub(r"\.(?:txt|conf|cfg|pass|auth)$", "", leaf.lstrip("."))
    return leaf in directed or credential_class(stem.replace("-", "_")) is not None


def file_secret_spans(
    path: str, content: str, directed: frozenset[str] = frozenset()
) -> list[tuple[int, int]]:
    """Where ``content``, the whole text of the file at ``path``, holds its secrets by the file's
    format (:data:`_FORMATS`); ``directed`` are the file names a program's setting points at."""
    named = _named_credential(path, directed)
    return [
        match.span("value")
        for name, layout in _FORMATS
        if named or (name is not None and name.search(path.strip("\"'")))
        for match in layout.finditer(content)
    ]


def printed_file_spans(command: str, output: str, directed: frozenset[str]) -> list[tuple[int, int]]:
    """:func:`file_secret_spans` of a tool call's ``output`` when its ``command`` printed one file."""
    match = _PRINTED_COMMAND.fullmatch(command.strip())
    return file_secret_spans(match["path"], output, directed) if match else []


def directed_files(text: str) -> frozenset[str]:
    """The file names that ``text``'s settings name as a program's credential file."""
    return frozenset(_leaf(match["path"]) for match in _NAMING_DIRECTIVE.finditer(text))


def find_printed_credential_files(text: str) -> Iterator[Finding]:
    """The secrets of a credential file printed in a transcript (``$ cat userlist.txt`` and the
    lines up to the next prompt), by the file's format (:func:`file_secret_spans`)."""
    directed = directed_files(text)
    for match in _PRINTED_FILE.finditer(text):
        following = _NEXT_PROMPT.search(text, match.end())
        stop = following.start() if following else len(text)
        for start, end in file_secret_spans(match["path"], text[match.end() : stop], directed):
            value = text[match.end() + start : match.end() + end]
            yield Finding("PASSWORD", match.end() + start, match.end() + end, value, "credential_file")
