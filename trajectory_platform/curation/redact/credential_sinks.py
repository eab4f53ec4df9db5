"""Values that flow into a credential sink: where the value goes names it, not a label before it.

A literal handed to a password-hashing call is a plaintext password whatever the variable it sits
in (``generate_password_hash("...")``, ``bcrypt.hashpw(b"...", ...)``, ``openssl passwd -6 '...'``),
and a value written into a file whose name says credential is that credential (``echo ... >
~/.vault_pass``, ``tee /run/secrets/db_password``, a heredoc into ``./api_key``, ``write_text``, an
Ansible ``copy`` with ``dest:`` and ``content:``). No name stood before the value, so no rule read
it (a red team, 2026-12-06: 66 of 90 hashing calls and 67 of 70 file writes kept the value).

One table of sinks (:data:`_HASHING_CALLS`, :data:`_HASHING_COMMANDS`, and a destination path
judged by :func:`.credential_names.credential_class` of its file name); the value is judged as a
password's (:func:`.detectors.acceptable_value`), so a reference (``$PW``, ``os.environ[...]``)
or a placeholder stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.call_arguments import call_arguments
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.shell_split import bash_words, is_operator

_HASHING_CALLS: dict[str, int] = {
    "generate_password_hash": 0,  # werkzeug
    "make_password": 0,  # Django
    "password_hash": 0,  # PHP
    "hashpw": 0,  # bcrypt (Python, jBCrypt)
    "checkpw": 0,
    "hash_password": 0,
    "hashPassword": 0,
    "hashSync": 0,  # bcryptjs
    "GenerateFromPassword": 0,  # Go x/crypto/bcrypt
    "CompareHashAndPassword": 1,
    "Password.create": 0,  # Ruby's BCrypt::Password.create
    "password_verify": 0,
    "pbkdf2_hmac": 1,  # hashlib.pbkdf2_hmac(name, password, salt, rounds)
    "scrypt": 0,
    "set_password": -1,  # Django user.set_password(pw); passlib HtpasswdFile.set_password(user, pw)
    "crypt": 0,
    "make": 0,  # Laravel's Hash::make: the receiver must be Hash (see _sink_index)
    "bcrypt": 0,  # Laravel's helper
    "create_user": 2,  # Django create_user(username, email, password)
    "create_superuser": 2,
}
"""Calls whose argument at the given index is a plaintext password (-1: the last of the literal
arguments, where a user name may come first)."""
_HASHER_OBJECT = re.compile(
    r"(?i)(?:bcrypt|argon2|scrypt|passlib|pwd_?context|password_?hasher|ph|hasher|\w+_crypt|pbkdf2_sha\d+)"
)
"""Receivers whose ``hash``/``encode`` method hashes a password (``bcrypt.hash``, argon2's
``PasswordHasher().hash``, passlib's ``CryptContext.hash``); a Spring ``passwordEncoder.encode``
matches through :data:`_ENCODER_OBJECT`. Other objects' ``hash`` (a hashlib digest) take data."""
_ENCODER_OBJECT = re.compile(r"(?i)\w*password\w*encoder\w*|encoder")
_CALL = re.compile(
    r"(?:\b(?P<object>[A-Za-z_]\w*)(?:\(\))?(?:\.|::)|(?<![\w.:]))(?P<name>"
    + "|".join(re.escape(name) for name in sorted(_HASHING_CALLS, key=len, reverse=True))
    + r"|hash|hashSync|hash_async|encode)\s*\("
)
_SINK_HINT = re.compile(r"[Pp]assword|[Hh]ash|crypt|encode|make|create_|pbkdf")
"""A substring every sink of :data:`_CALL` holds: most texts call none, and skip the scan."""
_LITERAL_ARGUMENT = re.compile(
    r"\s*(?:\[\]byte\(|Buffer\.from\(|[bBuU]?)(?P<quote>[\"'])(?P<value>(?:(?!(?P=quote))[^\\\n]|\\.){1,200})(?P=quote)"
)
_HASHING_COMMANDS = re.compile(
    r"\b(?:openssl[ \t]+passwd|mkpasswd|htpasswd|slappasswd)\b"
    r"(?:'[^'\n]*'|\"(?:[^\"\\\n]|\\.)*\"|\\.|[^\n|;&'\"\\])*"
)
"""Commands that take the password as their last operand (up to :func:`_command_end`). A quoted or
escaped ``&``, ``|`` or ``;`` is the password's, no operator: cut there, the command lost its
password operand (``htpasswd -b f ana 'Qz7"mK2p&Lw9x'``)."""
_DESCRIPTOR = re.compile(r"\d")
"""A file descriptor's word before a redirection (``2`` of ``2>/dev/null``, which :func:`bash_words`
splits as ``2`` then ``>``): one digit, for a one-character password is none."""
_OPTIONS_WITH_ARGUMENT = frozenset(
    {"-salt", "-in", "-m", "--method", "-S", "--salt", "-R", "--rounds", "-P", "-h"}
)


def find_sink_values(text: str) -> Iterator[Finding]:
    """Literals that flow into a password-hashing call or command, or into a credential-named file."""
    yield from _hashing_call_arguments(text)
    yield from _hashing_command_operands(text)
    yield from _credential_file_writes(text)


def _hashing_call_arguments(text: str) -> Iterator[Finding]:
    if not _SINK_HINT.search(text):
        return
    for call in _CALL.finditer(text):
        index = _sink_index(call)
        if index is None:
            continue
        literals = []
        for begin, argument_end in (call_arguments(text, call.end()) or [])[:4]:  # among the first
            literal = _LITERAL_ARGUMENT.match(text, begin)
            if literal and literal.end() <= argument_end:
                literals.append((literal.start("value"), literal.end("value")))
            elif index >= 0 and len(literals) <= index:
                literals.append((-1, -1))  # a non-literal argument at that place: nothing to read
        if not literals or index >= len(literals):
            continue
        start, end = literals[index]
        if start >= 0:
            yield from _judged(text, start, end, "sink:hashing_call")


def _sink_index(call: re.Match[str]) -> int | None:
    """Which argument of this call holds a plaintext password, or None when it is no sink."""
    method, receiver = call.group("name"), call.group("object") or ""
    if method == "make":
        return 0 if receiver == "Hash" else None
    if method in _HASHING_CALLS:
        return _HASHING_CALLS[method]
    if method in ("hash", "hashSync", "hash_async") and _HASHER_OBJECT.fullmatch(receiver):
        return 0
    if method == "encode" and _ENCODER_OBJECT.fullmatch(receiver):
        return 0
    return None


def _hashing_command_operands(text: str) -> Iterator[Finding]:
    for command in _HASHING_COMMANDS.finditer(text):
        end = _command_end(text, command.start(), command.end())
        words = bash_words(text[command.start() : end])
        if not words:
            continue
        operands = []
        skip = False
        if "-stdin" in words:
            continue  # the password comes from standard input, the operands name files
        arguments = words[2 if words[0] == "openssl" else 1 :]
        for index, word in enumerate(arguments):
            if is_operator(word) or (_DESCRIPTOR.fullmatch(word) and is_operator(arguments[index + 1][:1])):
                break  # a redirection (``>f``, ``2>``), a substitution: what follows is no operand
            if skip:
                skip = False
            elif word.startswith("-"):
                skip = word in _OPTIONS_WITH_ARGUMENT
            else:
                operands.append(word)
        if len(operands) < _operands_needed(words) or (words[0] == "htpasswd" and not _batch_htpasswd(words)):
            continue
        if (span := _written_span(text, command.start(), end, operands[-1])) is not None:
            yield from _judged(text, *span, "sink:hashing_command")


_RAW_WORD = re.compile(r"(?:'[^'\n]*'|\"(?:[^\"\\\n]|\\.)*\"|\\.|[^\s'\"\\|;&<>()`])+")
"""A shell word as written: its quoted pieces, escapes and plain characters."""


def _written_span(text: str, start: int, end: int, word: str) -> tuple[int, int] | None:
    """Where the command at ``start:end`` writes the word bash reads as ``word``: the word itself
    where it stands unquoted, else the last written word bash reads as it (``"Qz7\\"mK2p"``, whose
    escaped quote is no character of the text's ``Qz7"mK2p``: that password stayed)."""
    at = text.find(word, start, end)
    if at >= 0:
        return at, at + len(word)
    for written in reversed(list(_RAW_WORD.finditer(text, start, end))):
        if bash_words(written.group()) == [word]:
            return written.span()
    return None


def _command_end(text: str, start: int, end: int) -> int:
    """Where the command at ``start`` ends, at ``end`` at the latest: at a ``)`` or backtick that
    closes the command substitution it runs in. ``useradd -p $(openssl passwd -6 "$PW") deploy``
    hashes ``$PW``; read on past the ``)``, its last operand was the account's name, ``deploy``,
    which became a password and renamed the account in the redacted script. Quotes, and ``$(``
    substitutions inside the command (``"$(cat /run/secrets/pw)"``), are skipped whole."""
    quote, depth, position = "", 0, start
    while position < end:
        char = text[position]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                position += 1
        elif char in "\"'":
            quote = char
        elif char == "\\":
            position += 1
        elif text.startswith("$(", position):
            depth += 1
            position += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == ")" or (char == "`" and not depth):
            return position
        position += 1
    return end


def _operands_needed(words: list[str]) -> int:
    """How many operands the command takes with the password last: ``htpasswd -b FILE USER PW``
    (``-n`` prints instead of writing a file: ``USER PW``), the others the password alone. With
    fewer, the password is not on the line (``htpasswd -b .htpasswd ana > log`` prompts for none
    and writes nothing: its last operand is the user's name, which was replaced)."""
    if words[0] != "htpasswd":
        return 1
    return 2 if any(_short_flags(word, "n") for word in words) else 3


def _short_flags(word: str, flag: str) -> bool:
    """Whether ``word`` is a cluster of short options holding ``flag`` (``-nbB``)."""
    return word.startswith("-") and not word.startswith("--") and flag in word


def _batch_htpasswd(words: list[str]) -> bool:
    """``htpasswd -b`` (batch) takes the password on the command line; without it, it prompts."""
    return any(_short_flags(word, "b") for word in words)


_PATH = r"(?P<path>[\"']?[~\w./${}-]*[\w-][\"']?)"
_ECHO_INTO = re.compile(
    r"\b(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+(?P<fq>[\"'])(?:%s)+(?:\\n)?(?P=fq))?[ \t]+"
    r"(?P<vq>[\"']?)(?P<value>[^\s\"'$`|;&<>]{4,200})(?P=vq)[ \t]*"
    r"(?:>>?|\|[ \t]*(?:sudo[ \t]+)?tee(?:[ \t]+-a)?)[ \t]*" + _PATH
)
_PRINTF_PIECES_INTO = re.compile(
    r"\bprintf[ \t]+(?P<fq>[\"']?)(?P<format>(?:%s){2,8})(?:\\n)?(?P=fq)"
    r"(?P<args>(?:[ \t]+(?:'[^'\s]+'|\"[^\"\s$`]+\"|[^\s\"'$`|;&<>()]+)){2,8})[ \t]*"
    r"(?:>>?|\|[ \t]*(?:sudo[ \t]+)?tee(?:[ \t]+-a)?)[ \t]*" + _PATH
)
"""``printf '%s%s' piece1 piece2 > ~/.vault_pass``: a format of placeholders alone glues its
arguments into the one word the file receives (red team, session 45: the pieces leaked where one
word was replaced)."""
_PRINTF_ARGUMENT = re.compile(r"(?:'[^'\s]+'|\"[^\"\s]+\"|\S+)")
_HEREDOC_INTO = re.compile(
    r"\b(?:cat[ \t]*>>?[ \t]*" + _PATH + r"[ \t]*<<-?[ \t]*(?P<q>[\"']?)(?P<word>\w+)(?P=q)"
    r"|(?:cat|tee(?:[ \t]+-a)?)[ \t]+<<-?[ \t]*(?P<q2>[\"']?)(?P<word2>\w+)(?P=q2)[ \t]*>?>?[ \t]*"
    + _PATH.replace("path", "path2")
    + r")[^\n]*\n"
)
_WRITE_CALL = re.compile(
    r"(?:Path|open|File|writeFileSync|writeFile|WriteFile|File\.write|file_put_contents)\(\s*(?P<pq>[\"'])"
    r"(?P<path>[^\"'\n]{1,200})(?P=pq)[^\n]{0,80}?(?:write_text|write|,)\(?\s*(?:\[\]byte\()?(?P<vq>[\"'])"
    r"(?P<value>[^\"'\n\\]{4,200})(?P=vq)"
)
_DEST_CONTENT = re.compile(
    r"^(?P<indent>[ \t]*)(?:-[ \t]+)?(?:dest|path):[ \t]*(?P<path>\S+)[ \t]*$", re.MULTILINE
)
_CONTENT_LINE = re.compile(
    r"^[ \t]*content:[ \t]*(?P<vq>[\"']?)(?P<value>[^\s\"']{4,200})(?P=vq)[ \t]*$", re.MULTILINE
)


def _file_class(path: str) -> str | None:
    """The credential class a destination path's file name says (``.vault_pass``, ``db_password.txt``,
    ``/run/secrets/postgres_password``: a password; ``api_key``, ``master.key``: a secret), or None.
    A secret's file must receive a key-shaped value (``echo started > token_status`` is a note)."""
    name = path.strip("\"'").rstrip("/").rsplit("/", 1)[-1].lstrip(".")
    stem = re.sub(r"\.(?:txt|key|secret|secrets|pass|pw|conf|cfg|env)$", "", name)
    if stem.endswith((".pub", ".pem", ".crt")) or not stem:
        return None
    return credential_class(stem.replace("-", "_")) or credential_class(name.replace("-", "_"))


def _credential_file_writes(text: str) -> Iterator[Finding]:
    detector = "sink:credential_file"
    for match in _ECHO_INTO.finditer(text):
        if named := _file_class(match.group("path")):
            yield from _judged(text, match.start("value"), match.end("value"), detector, named)
    for match in _PRINTF_PIECES_INTO.finditer(text):
        yield from _printf_pieces_into(match, detector)
    for match in _HEREDOC_INTO.finditer(text):
        path, word = match.group("path") or match.group("path2"), match.group("word") or match.group("word2")
        named = _file_class(path)
        close = re.compile(rf"^[ \t]*{re.escape(word)}[ \t]*$", re.MULTILINE).search(text, match.end())
        if named is None or close is None:
            continue
        body = text[match.end() : close.start()].strip()
        if body and "\n" not in body:
            start = text.index(body, match.end())
            yield from _judged(text, start, start + len(body), detector, named)
    for match in _WRITE_CALL.finditer(text):
        if named := _file_class(match.group("path")):
            yield from _judged(text, match.start("value"), match.end("value"), detector, named)
    for match in _DEST_CONTENT.finditer(text):
        if not (named := _file_class(match.group("path"))):
            continue
        low = text.rfind("\n", 0, max(0, text.rfind("\n", 0, match.start()) - 1))
        window_end = match.end()
        for _ in range(3):
            following = text.find("\n", window_end + 1)
            window_end = len(text) if following < 0 else following
        for content in _CONTENT_LINE.finditer(text, max(0, low - 200), window_end):
            yield from _judged(text, content.start("value"), content.end("value"), detector, named)


_REFERENCE = re.compile(r"\$[{(]?[A-Za-z_]|^[%{]|\{\{")
"""A variable, command substitution, template or format reference: the value comes from elsewhere."""


def _printf_pieces_into(match: re.Match[str], detector: str) -> Iterator[Finding]:
    """The pieces a ``printf`` of as many placeholders as arguments writes into a credential's file
    (:data:`_PRINTF_PIECES_INTO`), judged as the word they glue; one finding from the first piece
    to the last (the spaces and inner quotes between them go with it)."""
    named = _file_class(match.group("path"))
    arguments = list(_PRINTF_ARGUMENT.finditer(match.string, match.start("args"), match.end("args")))
    if named is None or len(arguments) != match.group("format").count("%s"):
        return
    glued = "".join(argument.group().strip("\"'") for argument in arguments)
    start = arguments[0].start() + (arguments[0].group()[0] in "\"'")
    end = arguments[-1].end() - (arguments[-1].group()[-1] in "\"'")
    if acceptable_value(glued, True, named, "") and not _REFERENCE.search(glued):
        kind = "PASSWORD" if named == "password" else "SECRET"
        yield Finding(kind, start, end, match.string[start:end], detector)


def _judged(
    text: str, start: int, end: int, detector: str, name_class: str = "password"
) -> Iterator[Finding]:
    """The value at ``start:end`` as a credential of ``name_class``, unless it reads as a
    reference or a placeholder (or, for a secret, is not key-shaped)."""
    value = text[start:end]
    next_char = text[end : end + 1]
    if acceptable_value(value, True, name_class, next_char) and not _REFERENCE.search(value):
        yield Finding("PASSWORD" if name_class == "password" else "SECRET", start, end, value, detector)
