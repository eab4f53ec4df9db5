"""Passwords passed by position to a call that logs in: ``server.login('bob', 'x')``, ``new
PDO($dsn, 'root', 'x')``, ``conn.simple_bind_s('cn=admin,dc=org', 'x')``, ``ftplib.FTP(host,
'bob', 'x')``, ``new Sequelize('app', 'root', 'x', {...})``, ``smtp.PlainAuth("", "bob@x.org",
"x", host)``, and PHP's stack-trace line of the same call, ``PDO->__construct('mysql:...',
'root', 'x')``, which every uncaught ``PDOException`` prints.

No list of APIs can keep up with every driver and language, so the rule is the calls' signature
(one table, :data:`LOGIN_CALLS`): a call whose name holds a word of logging in (``login``,
``bind``, ``auth``, ``credential``...) or of connecting (``connect``, a driver that connects when
built: ``PDO``, ``mysqli``, ``FTP``...), with a user-like argument (a name, an e-mail, an LDAP DN,
a variable named for a user) followed directly by a string literal. That literal is the password
when it is credential-shaped (:func:`.positional.credential_shaped`). A connecting call takes a
place first (a host, a DSN, a database), so its user is never its first argument:
``db.connect('sqlite', 'file_db2')`` names a driver and a file. Calls with no literal after a
user are left alone: ``login(request, user)``, ``connect(host, port)``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.call_arguments import call_arguments
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

LOGIN_CALLS: dict[str, int] = {
    **dict.fromkeys(("login", "logon", "signin", "bind", "auth", "authenticate", "password"), 0),
    **dict.fromkeys(("credential", "credentials", "authentication"), 0),
    **dict.fromkeys(("connect", "connection", "pdo", "mysqli", "sequelize", "ftp", "dbi"), 1),
    **dict.fromkeys(("conn", "cn", "con", "adodb"), 1),
}
"""The words of a call's name (its method and its receiver or class, split at ``_`` and case)
that say it takes a user and then a password, each with the first argument the user may be.
``0``: a login takes the user first (``login(user, pw)``, ``bind(dn, pw)``, ``PlainAuth(identity,
user, pw, host)``, ``set_password(service, user, pw)``). ``1``: a connection takes a place first
(``connect(host, user, pw)``, ``PDO(dsn, user, pw)``, ``FTP(host, user, pw)``), unless a place
follows the password (:func:`_place_follows`). The drivers named
here are those that connect when built, where no verb of connecting is in the call. A
connection's receiver (``conn``, ``cn``, ``objConn``) counts where it is opened or built (ADO's
``conn.Open dsn, user, pw``): its words are read for a constructor's name only."""
_HINT = re.compile("(?i)" + "|".join(sorted(LOGIN_CALLS, key=len, reverse=True)))
"""Where a call of :data:`LOGIN_CALLS` may be named: the scan starts there, not at every call."""
_AFTER_WORD = re.compile(
    r"(?P<tail>\w*)(?:\s*(?:=\s*)?\(|\s*(?:\.|::|->|:)\s*(?:new\s+)?(?P<method>[A-Za-z_]\w*)\s*\("
    r"|\.(?P<statement>[A-Za-z_]\w*)[ \t]+(?=[\"\w]))"
)
"""After a word: its call's ``(`` (``login(``, ``auth=(``), a method called on it
(``PDO->__construct(``), or a method called as Visual Basic's statement, its arguments with no
brackets to the line's end (``conn.Open "DSN=x", "sa", "pw"``)."""
_RECEIVER_BEFORE = re.compile(r"(?P<receiver>[A-Za-z_]\w*)\s*(?:\.|::|->|:)\s*(?:new\s+)?$")
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_CONSTRUCTORS = frozenset({"new", "__construct", "__init__", "create", "open"})
_LITERAL = re.compile(
    r"\s*(?:[bu]?(?P<q>[\"'])(?P<value>(?:(?!(?P=q))[^\\\n]|\\.){0,200})(?P=q))"
    r"(?:\.(?:to_owned|to_string|toCharArray|encode|getBytes)\(\))?\s*"
)
"""A string literal argument, with the conversion some APIs ask for (``"x".toCharArray()``)."""
_USER_LITERAL = re.compile(
    r"[A-Za-z_][\w.-]{0,63}|[^@\s\"']{1,64}@[\w.-]{1,253}|(?i:(?:cn|uid|ou|dc|o)=[^\n]{1,400})"
)
"""A user as a literal: a name, an e-mail, an LDAP distinguished name."""
_USER_VARIABLE = re.compile(r"\s*\$?[A-Za-z_]\w*\s*")
_USER_WORD = re.compile(r"(?i)user|login|uid|dn|email|account|principal")
_PLACE = r"(?:[\w-]+\.)+[A-Za-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|[^\n]*(?:://|[=;])[^\n]*|[/~.][^\n]*"
"""A host name, an address, a URL or DSN, a path: where to connect."""
_NOT_A_PASSWORD = re.compile(_PLACE + r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
"""A place (``PlainAuth(id, user, pw, "smtp.example.com")`` names the server after the password)
or a name in code (``el.bind('click', 'handler_v2')``): literals after a user that are no password."""


def _place_follows(text: str, spans: list[tuple[int, int]]) -> bool:
    """Is the argument in ``spans`` (the one after a password candidate) a place literal? Some
    connecting calls take the user first and the place last (Oracle's ``oci_connect(user, pw,
    "//db:1521/XE")``): the place after the password says so."""
    literal = _LITERAL.fullmatch(text, *spans[0]) if spans else None
    return literal is not None and re.fullmatch(_PLACE, literal.group("value")) is not None


def _login_index(receiver: str | None, name: str) -> int | None:
    """The first argument a user may be for a call so named (:data:`LOGIN_CALLS`), or None."""
    words = [part.lower() for part in _NAME_PART.findall(name)]
    if receiver and (name.lower() in _CONSTRUCTORS or name.startswith("_")):
        words += [part.lower() for part in _NAME_PART.findall(receiver)]  # PDO->__construct, Net::FTP.new
    indexes = [LOGIN_CALLS[word] for word in words if word in LOGIN_CALLS]
    return min(indexes) if indexes else None


def _user_like(argument: str) -> bool:
    literal = _LITERAL.fullmatch(argument)
    if literal is not None:
        return _USER_LITERAL.fullmatch(literal.group("value")) is not None
    return _USER_VARIABLE.fullmatch(argument) is not None and _USER_WORD.search(argument) is not None


def _statement_arguments(text: str, start: int) -> list[tuple[int, int]] | None:
    """The argument spans of a Visual Basic call statement from ``start`` to the line's end, read as
    :func:`curation.call_arguments.call_arguments` reads a bracketed list (quotes and nesting kept)."""
    end = text.find("\n", start)
    line = text[start : len(text) if end < 0 else end].rstrip("\r")
    spans = call_arguments(line + ")", 0)
    return None if spans is None else [(start + a, start + b) for a, b in spans]


def find_login_call_passwords(text: str) -> Iterator[Finding]:
    """The password argument of every call of :data:`LOGIN_CALLS`'s signature in ``text``: the
    last string literal that follows a user-like argument directly and is shaped like a
    password (:func:`.positional.credential_shaped`). The last, for ``connect('db', 'app_user2',
    'x')`` names a database, a user, then the password."""
    seen: set[int] = set()
    for hint in _HINT.finditer(text):
        after = _AFTER_WORD.match(text, hint.end())
        if after is None or after.end() in seen:
            continue
        seen.add(after.end())
        word_start = hint.start()
        while word_start > max(0, hint.start() - 64) and (
            text[word_start - 1].isalnum() or text[word_start - 1] == "_"
        ):
            word_start -= 1
        word = text[word_start : after.end("tail")]
        receiver: str | None = word
        name: str = after.group("method") or after.group("statement") or word
        if not (after.group("method") or after.group("statement")):
            before = _RECEIVER_BEFORE.search(text, max(0, word_start - 80), word_start)
            receiver = before.group("receiver") if before else None
        first = _login_index(receiver, name)
        if first is None:
            continue
        spans = (
            _statement_arguments(text, after.end())
            if after.group("statement")
            else call_arguments(text, after.end())
        ) or []
        found = None
        for index in range(len(spans) - 1):
            literal = _LITERAL.fullmatch(text, *spans[index + 1])
            if literal is None or not _user_like(text[slice(*spans[index])]):
                continue
            if index < first and not _place_follows(text, spans[index + 2 : index + 3]):
                continue
            value = literal.group("value")
            if credential_shaped(value) and not _NOT_A_PASSWORD.fullmatch(value) and "${" not in value:
                found = literal
        if found is not None:
            yield Finding("PASSWORD", *found.span("value"), found.group("value"), "positional:login_call")
