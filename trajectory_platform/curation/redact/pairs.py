"""An account written as ``user:password`` in prose or a note: "log in with admin:Quartz1823#",
"SSH access (deploy:Maple3988@) works", "the account `root:Zu482Tws` is ready".

A URL's userinfo (``scheme://user:pw@host``) and ``curl -u user:pw`` have their own rules; a
pair standing alone as a word had none, and a memorable password there is too short for entropy.

``name:value`` is also an image and its tag (``postgres:15-alpine``), a host and its port, a
cache key's parts (``user:1234``), a digest (``sha256:...``), a log's ``ERROR:root:...``. So the
pair must be a whole word of exactly one colon (no ``@`` or ``/``: a URL's or a path's own rules),
its value credential-shaped (not a number, a port, a plain word), and the line must say it is an
account: a word of logging in (``login``, ``sign in``, ``ssh``, ``creds``, ``account``, ``auth``)
or, for a well-known account name (``root``, ``admin``, ``ubuntu``...), a value that is no image
tag (a tag is lower case and starts with a digit or joins words with ``.``, ``-``, ``_``). With
neither, a value that mixes three kinds of character as generated passwords do (``Try
alice:V^SoI^FFyx84 there``): a tag, a port or a name never does. A
version tag (``python:3.11-slim``) or a name of joined words (``ecr-login``) is never a password,
nor a tag on a line that handles images (``docker pull``, ``FROM``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.not_values import not_a_value

_EMAIL_LOGIN = r"[A-Za-z0-9][\w.%+-]{0,63}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
"""An e-mail address as a login (``alice@example.com:pw`` in a combo list, ``http -a``, a log)."""
_PAIR = re.compile(
    rf"(?<![\w.:/@\\$%-])(?P<user>{_EMAIL_LOGIN}|[A-Za-z_][\w.-]{{0,31}}):(?P<quote>[\"'])?"
    r"(?P<value>[^\s:/\\`'\"(),;<>\[\]{}|]{6,64})(?(quote)(?P=quote))"
    r"(?=[,;)\]'\"`]*(?:\s|$))"
)
"""A word ``user:value`` with one colon, closed by a space, the end, or punctuation before one (a
full stop is taken in and dropped after: a password may end with ``!`` or ``?`` but seldom ``.``);
the value may be quoted (``admin:'Crimson98@'``, a password with a symbol the shell would read).
The user may be an e-mail address: read as one, the address became an EMAIL pseudonym and the
password beside it stayed, now next to a mark that the line is an account."""
_SLASHED = re.compile(rf"(?<![\w.+-])(?P<user>{_EMAIL_LOGIN})[ \t]+/[ \t]+(?P<value>[^\s/`'\"]{{6,64}})")
"""Prose's ``ADDRESS / password`` (``sign in with alice@example.com / V``): taken only after a word
of logging in on its line (a path or a ratio is no account)."""
_TRAILING = ".,;:)]"
"""Punctuation that closes the sentence, not the password (which may end in ``!`` or ``?``)."""
_TYPOGRAPHIC_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")
_ACCOUNT_WORDS = re.compile(
    r"(?i)log[ -]?(?:in|on)\b|sign[ -]?in|\bcreds?\b|credential|account|\bauth|\busername|\buser\b"
    r"|passw|\bpwd\b|htpasswd|(?<![\w-])(?:ssh|s?ftp)(?![\w-])|\bget\s+in\b"
)
"""What a line that gives an account says: logging in, credentials, an account, SSH."""
_WELL_KNOWN_ACCOUNTS = frozenset(
    {"root", "admin", "administrator", "ubuntu", "ec2-user", "postgres", "sa", "guest", "pi", "oracle"}
    | {"elastic", "jenkins", "deploy", "git", "mysql", "user", "test", "demo"}
)
_JOINERS = frozenset("-._")
_NAME = re.compile(r"[A-Za-z][A-Za-z_.-]{2,31}")
"""A user's name when nothing says the pair is an account: letters (``h1:`` names a hash scheme)."""


def _random_shaped(value: str) -> bool:
    """Three of the four kinds of character a generated or chosen password mixes (lower and upper
    case, digits, symbols other than the ``-._`` that join a name's words): the evidence a pair
    needs when nothing on its line says it is an account (``Try alice:V^SoI^FFyx84``). A name or a
    tag mixes two at most (``build-2024``, ``Python3``)."""
    kinds = (
        any(map(str.islower, value)),
        any(map(str.isupper, value)),
        any(map(str.isdigit, value)),
        any(not ch.isalnum() and ch not in _JOINERS for ch in value),
    )
    return (
        sum(kinds) >= 3
        and len(value) <= _LONGEST_CHOSEN
        and not value.endswith("=")
        and not _JOINED_NAME.fullmatch(value)
    )


_JOINED_NAME = re.compile(r"[A-Za-z]+\d*(?:[-_.]+[A-Za-z]+\d*)+")
"""Words joined by ``-``, ``_`` or ``.``, each maybe numbered: a name (``SWE-agent__test-repo-i1``)."""


_LONGEST_CHOSEN = 32
"""Longer, or padded with ``=``, a value mixing kinds is an encoded digest (``h1:wN+x...=``)."""


_IMAGE_TAG = re.compile(r"\d[a-z0-9._-]*|[a-z0-9]+(?:[._-][a-z0-9]+)+")
"""How an image's tag reads (``15-alpine``, ``3.11-slim``, ``jammy-20240227``)."""
_NAME_VALUE = re.compile(r"\d[a-z0-9._-]*|[a-z]+(?:[._-][a-z]+)+")
"""A value that names rather than grants, never taken for a password: a version tag that starts
with a digit (``python:3.11-slim``), lowercase words joined (``credential-helper:ecr-login``)."""
_IMAGE_LINE = re.compile(r"(?i)\b(?:docker|podman|image|pull|push|FROM|tag|helm|kubectl|crane|skopeo)\b")
"""A line that handles images: there ``name:tag`` is an image (``docker pull ubuntu:jammy-2024``)."""


def find_account_pairs(
    text: str, shaped: Callable[[str], bool], digest_name: Callable[[str], bool]
) -> Iterator[Finding]:
    """The password of each ``user:password`` word that the line shows is an account (module
    docstring); ``shaped``: whether a value could be a password, ``digest_name``: whether a name
    names a digest (``sha256``)."""
    if "\u2018" in text or "\u2019" in text or "\u201c" in text:
        text = text.translate(_TYPOGRAPHIC_QUOTES)  # one character for one: offsets hold
    for match in _PAIR.finditer(text):
        user, value = match.group("user"), match.group("value").rstrip(".")
        if not shaped(value) or digest_name(user) or re.search(r"@[A-Za-z0-9]", value):
            continue  # user:pw@host is a URL's userinfo (its own rule) or an e-mail address
        if not_a_value(text, user, match.start(), value, match.start("value")):
            continue  # ${NAME:?message}: a parameter expansion's message, not an account's password
        if "=" in value.rstrip("="):
            continue  # a directive's option (``pylint:disable=protected-access``), not a password
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = len(text) if (newline := text.find("\n", match.end())) == -1 else newline
        line = text[line_start:line_end]
        if _NAME_VALUE.fullmatch(value) or (_IMAGE_LINE.search(line) and _IMAGE_TAG.fullmatch(value)):
            continue
        unvouched = _ACCOUNT_WORDS.search(line) is None and (
            user.lower() not in _WELL_KNOWN_ACCOUNTS or _IMAGE_TAG.fullmatch(value)
        )
        named = _NAME.fullmatch(user) or "@" in user
        if unvouched and (not _random_shaped(value) or _IMAGE_LINE.search(line) or not named):
            continue
        start = match.start("value")
        yield Finding("PASSWORD", start, start + len(value), value, "positional:account_pair")


def find_slashed_logins(text: str, shaped: Callable[[str], bool]) -> Iterator[Finding]:
    """The password of each ``ADDRESS / password`` after a word of logging in (:data:`_SLASHED`);
    ``shaped``: whether a value could be a password."""
    for match in _SLASHED.finditer(text):
        value = match.group("value").rstrip(_TRAILING)
        line_start = text.rfind("\n", 0, match.start()) + 1
        if not shaped(value) or not _ACCOUNT_WORDS.search(text[line_start : match.start()]):
            continue
        start = match.start("value")
        yield Finding("PASSWORD", start, start + len(value), value, "positional:account_pair")


_USERINFO = re.compile(
    r"(?<![\w.:/@\\$%-])(?P<user>[A-Za-z_][\w.-]{0,31}):(?P<value>[^\s:/@'\"`<>(){}\[\]|;,]{6,128})@"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[\w-]{0,62})(?:\.[A-Za-z0-9][\w-]{0,62})*)"
    r"(?=[/:\s'\"`),;]|$)"
)
"""``user:password@host`` as a word of its own, no scheme before it (``mysqlsh admin:pw@db01``,
"reachable as repl:pw@10.0.4.7"): the host a name, an address or a bracketed IPv6 address, followed
by a port, a path, a space or the end."""
_ADDRESS_SCHEMES = frozenset({"mailto", "sip", "sips", "xmpp", "tel", "im", "pres", "acct", "news", "urn"})
"""Schemes whose ``scheme:local@domain`` is an address, not a user and a password."""
_MAIL_HEADERS = frozenset(
    {"from", "to", "cc", "bcc", "reply-to", "sender", "email", "e-mail", "mail", "contact", "author"}
    | {"committer", "maintainer", "owner", "return-path", "delivered-to"}
)
"""Labels glued to an e-mail address (``From:alice@example.com``): the word after is a mailbox."""
_DIGEST_HOSTS = re.compile(r"(?i)sha\d{0,3}|md5|blake2\w*")


def find_bare_userinfo(text: str, shaped: Callable[[str], bool]) -> Iterator[Finding]:
    """The password of each schemeless ``user:password@host`` word (:data:`_USERINFO`) whose user
    is no address's scheme or mail header's label, whose host is no digest (a pinned image's
    ``@sha256``) and whose value could be a password and is no image tag (``3.11-slim``)."""
    for match in _USERINFO.finditer(text):
        user, value, host = match.group("user", "value", "host")
        if user.lower() in _ADDRESS_SCHEMES or user.lower() in _MAIL_HEADERS or _DIGEST_HOSTS.fullmatch(host):
            continue
        if not shaped(value) or _NAME_VALUE.fullmatch(value) or _IMAGE_TAG.fullmatch(value):
            continue
        yield Finding("PASSWORD", match.start("value"), match.end("value"), value, "positional:userinfo")
