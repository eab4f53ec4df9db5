"""What a pipeline, a here-string or a here-document feeds to a command reading a password on stdin.

``echo X | docker login --password-stdin``, ``printf '%s\\n%s\\n' X X | passwd bob``, ``printf
'bob:%s\\n' X | chpasswd``, ``echo B64 | base64 -d | docker login ...``, ``htpasswd -i f bob <<<
X``, ``passwd bob <<< $'X\\nX'``, ``yes X | passwd``, ``passwd bob <<EOF`` (a here-document's
lines), ``cat <<EOF | chpasswd``, ``openssl passwd -stdin``: no name stands beside the password;
the command it flows into says what it is. One reader for the class: the producer's literal words
(``echo``'s or ``yes``'s operands, ``printf``'s arguments, or its format when it has none; a
here-string's word; each line of a here-document), split at the
newlines the command reads as separate answers, less a ``user:`` that ``chpasswd`` reads before
the password. Through a decoding stage (``base64 -d``) the producer's literal is the encoded
password and is replaced whole. A variable, a substitution or a placeholder is no literal and
stays, and so does a word that is no password's shape (:func:`.positional.credential_shaped`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from trajectory_platform.curation.redact.model import Finding

READS_STDIN = (
    r"[\w./-]+\b[^\n|]*--[\w-]*?(?:pass(?:word|wd|phrase)?|secret|token)[\w-]*?-stdin\b"
    r"|(?:vnc)?passwd\b|kinit\b|chpasswd\b|smbpasswd\b[^\n|]*\s-s\b|vault\s+login\b[^\n|]*\s-(?=\s|$)"
    r"|htpasswd\b[^\n|]*\s-\w*i\w*\b"
    r"|sudo\b[^\n|<]*\s-S\b"
    r"|gpg\b[^\n|]*--passphrase-fd\s+0|cryptsetup\b|openssl\s+passwd\b[^\n|]*\s-stdin\b"
    r"|gcloud\s+secrets\s+(?:create|versions\s+add)\b[^\n|]*--data-file[= ]-(?=\s|$)"
    r"|kubectl\s+create\s+secret\b[^\n|]*=/dev/stdin\b|\S+\s[^\n|]*--secret-string[= ]file:///dev/stdin\b"
)
"""Commands that read a password from their standard input: what is piped or here-string'd in is one
(``passwd``, ``vncpasswd -f``, ``sudo -S``, ``htpasswd -i``, ``openssl passwd -stdin``, which hashes it).
Any option naming a credential read from standard input (``--password-stdin`` of ``docker``, ``helm``,
``cosign``, ``crane`` ``login`` alike, ``openconnect --passwd-on-stdin``), a secret
store told to read its value from ``-`` or ``/dev/stdin`` (``gcloud secrets create --data-file=-``,
``kubectl create secret ... --from-file=key=/dev/stdin``, ``aws secretsmanager ...
--secret-string file:///dev/stdin``)."""

_WORD = r"(?:[^\s'\"|;&<>()`]|'[^'\n]*'|\"(?:[^\"\\\n]|\\.)*\"|\$'(?:[^'\\\n]|\\.)*')+"
_WORDS = re.compile(_WORD)
_DECODE = r"(?:openssl\s+)?base64\s+(?:-\w*[dD]\w*|--decode)\b[^\n|;&]*"
_PASS_ON = r"(?:tee\s[^\n|;&]*|cat(?:\s+-)?\s*|head(?:\s+-[nc]?\s*\d+)?\s*)"
_COMMAND_START = r"(?:(?<![\s\S])|(?<=\n)|(?<=[\n;&|(`$#>][ \t])|(?<=[;&|(`]))"
"""Where a command starts: the text's or a line's start, after a separator or a prompt (``$ ``,
``# ``). ``yes`` is a producer only there: in prose it is a word (``yes as a producer, ... |
chpasswd`` read a sentence's words as answers)."""
_PRODUCER = re.compile(r"(?:echo|printf|yes)[ \t]")
"""A producer's name before its operands: the gate of :data:`_PIPELINE`."""
_PIPELINE = re.compile(
    rf"(?<![\w-])(?P<producer>(?:echo|printf|{_COMMAND_START}yes)(?=[ \t])[^\n|;&]*?)[ \t]*\|[ \t]*"
    rf"(?P<stages>(?:(?:{_DECODE}|{_PASS_ON})[ \t]*\|[ \t]*)*)"
    rf"(?:sudo\s+(?:-\S+\s+)*)?(?P<sink>{READS_STDIN})"
)
"""``echo``/``printf``/``yes`` whose output reaches a :data:`READS_STDIN` command, through decoding
or pass-through stages only (``tee``, ``cat``, ``head``: a stage that hashes or counts what it
reads passes no password on)."""
_HERE_STRING = re.compile(rf"(?P<sink>{READS_STDIN})[^\n|<;&]*<<<[ \t]*(?P<word>{_WORD})")
_HEREDOC = re.compile(r"<<(?P<strip>-?)[ \t]*(?P<quote>['\"]?)(?P<tag>[A-Za-z_]\w*)(?P=quote)")
"""A here-document's opener (``<<EOF``, ``<<-'END'``); its body runs to a line of the tag alone."""
_SINK_BEFORE = re.compile(rf"(?P<sink>{READS_STDIN})[^\n|<;&]*$")
_CAT = re.compile(r"(?:^|[\s;&|(])cat[ \t]+$")
_CAT_INTO_SINK = re.compile(
    rf"[ \t]*\|[ \t]*(?:(?:{_DECODE}|{_PASS_ON})[ \t]*\|[ \t]*)*"
    rf"(?:sudo\s+(?:-\S+\s+)*)?(?P<sink>{READS_STDIN})"
)
"""``cat <<EOF | ... | chpasswd``: after the opener, the pipeline into a sink."""
_ECHO_OPTION = re.compile(r"-[neE]+")
_ANSWER_BREAK = re.compile(r"\\n|\\r|\n")
_NOT_LITERAL = re.compile(r"\$[\w{(]|`|^<[^<>]*>$|^\*+$|^%[a-z]$")
"""A word that is no literal: a parameter expansion or a substitution (``$PW``, ``${PW}``,
``$(cat f)``, a backtick), a placeholder, a mask, a format. A ``$`` before no name (a password's
last character, ``Harbor2024$``) is itself."""
_USER_PREFIX = re.compile(r"[\w.@-]{1,32}:")


def find_fed_passwords(
    text: str, shaped: Callable[[str], bool], lines: str | None = None
) -> Iterator[Finding]:
    """Every literal password a pipeline or a here-string feeds to a :data:`READS_STDIN` command;
    ``shaped`` says whether a piece is a password's shape (:func:`.positional.credential_shaped`).
    ``lines``: the text of the only lines a finding may lie on (a decoded view's changed lines),
    None for all of ``text``."""
    # Each pattern runs only where the text holds what it needs (a pipe after echo, printf or yes;
    # a here-string; a here-document): a command's name is sought from every word on, a cost of
    # every line's length squared that canary-sized texts without either paid for nothing. A
    # pipeline and a here-string stand on the line of the literal they feed, so only ``lines``
    # need hold their marks; a here-document's opener may stand on any line above its body.
    lines = text if lines is None else lines
    pipelines = "|" in lines and _PRODUCER.search(lines) is not None
    for match in _PIPELINE.finditer(text) if pipelines else ():
        chpasswd = match.group("sink").startswith("chpasswd")
        decoded = bool(re.search(_DECODE, match.group("stages")))
        for start, end in _producer_literals(match.group("producer"), match.start("producer")):
            yield from _literal(text, start, end, chpasswd, decoded, shaped)
    for match in _HERE_STRING.finditer(text) if "<<<" in lines else ():
        chpasswd = match.group("sink").startswith("chpasswd")
        start, end = _unquoted(match.group("word"), match.start("word"))
        yield from _literal(text, start, end, chpasswd, False, shaped)
    if "<<" in text:
        yield from _heredoc_feeds(text, shaped)


def _heredoc_feeds(text: str, shaped: Callable[[str], bool]) -> Iterator[Finding]:
    """Each line of a here-document a :data:`READS_STDIN` command reads: ``passwd bob <<EOF``, or
    ``cat <<EOF | chpasswd``. The sink is sought on the opener's own line only (before the opener,
    or after ``cat <<EOF`` and a pipe), so the cost is each line's once."""
    for opener in _HEREDOC.finditer(text):
        if "<" in text[opener.start() - 1 : opener.start()] + text[opener.start() + 2 : opener.start() + 3]:
            continue  # a here-string (<<<), read above
        line_start = text.rfind("\n", 0, opener.start()) + 1
        line_end = text.find("\n", opener.end())
        if line_end < 0:
            continue
        before, after = text[line_start : opener.start()], text[opener.end() : line_end]
        if (sink := _SINK_BEFORE.search(before)) is None and (
            _CAT.search(before) is None or (sink := _CAT_INTO_SINK.match(after)) is None
        ):
            continue
        chpasswd = sink.group("sink").startswith("chpasswd")
        indent = r"[ \t]*" if opener.group("strip") else ""
        closer = re.compile(rf"^{indent}{opener.group('tag')}[ \t]*$", re.M)
        body_end = closer.search(text, line_end + 1)
        if body_end is None:
            continue
        for line in re.finditer(r"[^\n]+", text[line_end + 1 : body_end.start()]):
            start = line_end + 1 + line.start() + len(line.group()) - len(line.group().lstrip("\t"))
            yield from _literal(text, start, line_end + 1 + line.end(), chpasswd, False, shaped)


def _producer_literals(producer: str, offset: int) -> list[tuple[int, int]]:
    """Spans of what ``echo``/``printf``/``yes`` prints literally: ``echo``'s operands after its
    options, ``printf``'s arguments after the format, or the format itself when nothing follows it,
    ``yes``'s operands (the line it repeats, one answer to each prompt)."""
    words = [(m.group(), m.start()) for m in _WORDS.finditer(producer)][1:]
    if producer.startswith("echo"):
        while words and _ECHO_OPTION.fullmatch(words[0][0]):
            words.pop(0)
    elif producer.startswith("printf") and len(words) > 1:
        words = words[1:]
    return [_unquoted(word, offset + at) for word, at in words]


def _unquoted(word: str, at: int) -> tuple[int, int]:
    """The span inside one layer of quotes (``'x'``, ``"x"``, ``$'x'``), or the word's own."""
    if word.startswith("$'") and word.endswith("'") and len(word) > 2:
        return at + 2, at + len(word) - 1
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return at + 1, at + len(word) - 1
    return at, at + len(word)


def _literal(
    text: str, start: int, end: int, chpasswd: bool, decoded: bool, shaped: Callable[[str], bool]
) -> Iterator[Finding]:
    """The password pieces of one literal word, each a finding where it is a password's shape."""
    word = text[start:end]
    if _NOT_LITERAL.search(word):
        return
    if decoded:
        if _decodes_to_password(word, chpasswd, shaped):
            yield Finding("PASSWORD", start, end, word, "positional:stdin_feed_decoded")
        return
    cursor = 0
    for piece in [*_ANSWER_BREAK.split(word)]:
        piece_start = word.index(piece, cursor) if piece else cursor
        cursor = piece_start + len(piece)
        if chpasswd and (user := _USER_PREFIX.match(piece)):
            piece_start += user.end()
            piece = piece[user.end() :]
        if piece and not _NOT_LITERAL.search(piece) and shaped(piece):
            yield Finding(
                "PASSWORD",
                start + piece_start,
                start + piece_start + len(piece),
                piece,
                "positional:stdin_feed",
            )


def _decodes_to_password(word: str, chpasswd: bool, shaped: Callable[[str], bool]) -> bool:
    """Does base64 ``word`` decode to printable answers of which one is a password's shape?"""
    try:
        plain = base64.b64decode(word + "=" * (-len(word) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    pieces = [p for p in re.split(r"[\r\n]+", plain) if p]
    if chpasswd:
        pieces = [p[m.end() :] if (m := _USER_PREFIX.match(p)) else p for p in pieces]
    return any(p.isprintable() and shaped(p) for p in pieces)
