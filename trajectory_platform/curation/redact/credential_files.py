"""Credential files printed whole: the file's format says which of its lines is the secret.

``cat`` of a one-line credential-named file prints one value, which :func:`.positional.secret_printed_by`
reads. Some credential files hold more than a value, in a layout their program fixes: pgbouncer's
``userlist.txt`` (its ``auth_file``) is ``"user" "password"`` per line; OpenVPN's ``auth-user-pass``
file is the user name on one line and the password on the next. No label stands beside the value,
so no rule of one text read it (a red team, 2026-12-06). A format applies to a file the path names:
by its program's file name (``userlist.txt``), by a credential name (``vpn-creds``, ``auth.txt``),
or by the directive that points the program at it (``auth-user-pass creds.txt``, ``auth_file =``).
PPP's ``chap-secrets``/``pap-secrets`` (``client server secret [addresses]``, quoted or not) and
Postfix's ``sasl_passwd`` (``[relay]:port login:password``) are read by their file names only: a
three-column table elsewhere is no credential file. A Dovecot passwd-file line
(``user:{PLAIN}password:uid:gid::home``) needs no file name: its cleartext scheme prefix says what
follows (a red team, round 11: all three kept their secrets).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding

_QUOTED_PAIR_LINES = re.compile(r'(?m)^[ \t]*"[^"\n]{1,64}"[ \t]+"(?P<value>[^"\n]{4,200})"[ \t]*\r?$')
"""pgbouncer's auth file: a quoted user name and a quoted password (or its hash) on each line."""
_USER_THEN_PASSWORD = re.compile(r"\A\s*[\w.@+\\-]{1,64}[ \t]*\r?\n(?P<value>[^\s]{4,200})[ \t]*\r?\n?\s*\Z")
"""OpenVPN's (and OpenConnect's, a PPP helper's) two-line file: the user name, then the password."""
_PPP_SECRET_LINES = re.compile(
    r'(?m)^[ \t]*(?:"[^"\n]{1,64}"|[^\s"#]\S{0,63})[ \t]+(?:"[^"\n]{0,64}"|\S{1,64})[ \t]+'
    r'(?:"(?P<value>[^"\n]{4,200})"|(?P<bare>[^\s"]{4,200}))(?:[ \t]+[^\n]*)?\r?$'
)
"""PPP's ``chap-secrets``/``pap-secrets``: client, server, secret (quoted or bare), addresses."""
_SASL_PASSWD_LINES = re.compile(
    r"(?m)^[ \t]*(?:\[[^\]\s]{1,253}\]|[\w.-]{1,253})(?::\d{1,5})?"
    r"[ \t]+[^\s:]{1,128}:(?P<value>\S{4,200})[ \t]*\r?$"
)
"""Postfix's ``sasl_passwd``: the relay (``[host]:port`` or ``host:port``), then ``login:password``."""
_SCHEME_PASSWORDS = re.compile(
    literal_first(r"(?<![\w{$])", "{")
    + r"(?:PLAIN|CLEAR|PLAIN-TRUNC)\}(?P<value>[^\s:\\\"'{}][^\s:\\\"']{3,199})"
)
"""A password after Dovecot's cleartext scheme prefix (a passwd-file's second field, ``doveadm pw``)."""
_FORMATS: tuple[tuple[re.Pattern[str] | None, bool, re.Pattern[str]], ...] = (
    (re.compile(r"(?:^|/)userlist\.txt$"), False, _QUOTED_PAIR_LINES),
    (None, False, _USER_THEN_PASSWORD),
    (re.compile(r"(?:^|/)(?:chap|pap)-secrets$"), True, _PPP_SECRET_LINES),
    (re.compile(r"(?:^|/)sasl_passwd$"), True, _SASL_PASSWD_LINES),
)
"""Each format's file name (None: any file a credential name or a directive names), whether only
that name applies it (a generic layout, such as three columns, is not read in any credential-named
file), and its layout."""
_NAMING_DIRECTIVE = re.compile(
    r"(?m)(?:^|\s)(?:--)?(?:auth-user-pass|auth_file[ \t]*=)[ \t]*(?P<path>[^\s\"';|&]+)"
)
"""A program's setting that points at its credential file: OpenVPN's ``auth-user-pass`` and
pgbouncer's ``auth_file``."""
_READER = (
    r"(?:sudo[ \t]+)?(?:cat|type|Get-Content|head|tail|less|more|grep)"
    r"(?:[ \t]+(?:-[\w-]+(?:[ \t]+\d+)?|'[^'\n]*'|\"[^\"\n]*\"))*[ \t]+(?P<path>[^\s|;&<>]+)"
)
"""A command that prints (lines of) one file: a pager, ``head``/``tail`` or ``grep`` with a pattern."""
_SCHEME_GATES = ("{PLAIN", "{CLEAR}")
READER_WORDS = ("cat ", "type ", "Get-Content ", "head ", "tail ", "less ", "more ", "grep ", *_SCHEME_GATES)
"""Literal gates of :func:`find_printed_credential_files`: a reader's name or a scheme prefix."""
_PRINTED_FILE = re.compile(r"(?m)^(?:[^\n$#>]{0,80}[$#>][ \t]+)?" + _READER + r"[ \t]*\r?\n")
"""A shell line that prints one file (its prompt, if any, before it); its output follows it."""
_PRINTED_COMMAND = re.compile(_READER)
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
        match.span("value" if match.group("value") is not None else "bare")
        for name, by_name_only, layout in _FORMATS
        if (named and not by_name_only) or (name is not None and name.search(path.strip("\"'")))
        for match in layout.finditer(content)
    ] + [match.span("value") for match in _SCHEME_PASSWORDS.finditer(content)]


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
    if any(gate in text for gate in _SCHEME_GATES):
        for match in _SCHEME_PASSWORDS.finditer(text):
            yield Finding("PASSWORD", *match.span("value"), match["value"], "credential_file:scheme")
    for match in _PRINTED_FILE.finditer(text):
        following = _NEXT_PROMPT.search(text, match.end())
        stop = following.start() if following else len(text)
        for start, end in file_secret_spans(match["path"], text[match.end() : stop], directed):
            value = text[match.end() + start : match.end() + end]
            yield Finding("PASSWORD", match.end() + start, match.end() + end, value, "credential_file")
