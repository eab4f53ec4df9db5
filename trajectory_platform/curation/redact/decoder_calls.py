"""A call that decodes a literal, read as the text it returns.

Code and shell lines hide a credential by storing it encoded and decoding it where it is used:
``DB_PASSWORD=$(echo 'uhagre2' | tr 'A-Za-z' 'N-ZA-Mn-za-m')``, ``export TOKEN=$(echo aHVu... |
base64 -d)``, ``password = codecs.decode('...', 'rot13')``, ``base64.b64decode('...').decode()``,
``atob('...')``, PHP's ``base64_decode`` and ``str_rot13``, Ruby's ``Base64.decode64``, .NET's
``FromBase64String``, Node's ``Buffer.from(..., 'base64')``. The label is outside the call and the
value inside it is encoded, so neither the label rules (no value beside the name) nor the views of
encodings (a word password's base64 or ROT13 decodes to a word, no credential on its own) saw one
(session 46: 20 of 20 development and 36 of 40 validation cases kept, word passwords under a
credential's name).

Where the call is assigned to a credential's name (``API_TOKEN=$(...)``, ``$password = ...``,
``String password = new String(...)``), the encoded literal is replaced whatever the text it
decodes to looks like (:func:`find_decoded_assignments`): the label rules keep a dictionary word
under a token's name (``TOKEN=orangesky`` names a token as often as it is one), but nobody encodes
a token's name to assign it. Elsewhere a view shows the call as its result, the decoded text in
single quotes where the call stood (``mysql -p$(echo ... | base64 -d)`` reads ``mysql -p'hunter2'``),
and the rules of a scan judge it as any other value: as an option's argument, or under a name that
is no credential's (``GREETING=$(echo 'uryyb' | tr ...)``), where it and its literal are kept. A
``tr`` counts only where its two sets are ROT13 (each letter to the letter 13 on), however the
ranges are written; a base64 literal only where it decodes to one line of printable text.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.shell_split import tr_ranges_spelt_out

_B64_CMD = r"base64[ \t]+(?:-d|--decode|-D)|openssl[ \t]+(?:base64|enc[ \t]+-base64)[ \t]+-d(?:[ \t]+-A)?"
_TR_SET = r"""'[^'\n]+'|"[^"\n]+"|[^\s|)`;'"]+"""


def _literal(n: int, quoted: bool) -> str:
    """A literal numbered ``n`` (one group name per branch), in quotes or, in a shell, bare."""
    quote = rf"(?P<q{n}>['\"])" if quoted else rf"(?P<q{n}>['\"]?)"
    return quote + rf"(?P<literal{n}>[A-Za-z0-9+/=_.!@#%^&*~-]+)(?P=q{n})"


def _decoding_command(n: int) -> str:
    """``base64 -d`` (or ``openssl base64 -d``), or ``tr SET1 SET2``."""
    return rf"(?:(?P<b64_{n}>{_B64_CMD})|tr[ \t]+(?P<set1_{n}>{_TR_SET})[ \t]+(?P<set2_{n}>{_TR_SET}))"


_SHELL = (
    r"(?P<sub>\$\([ \t]*|`[ \t]*)?(?:"
    rf"(?:echo(?:[ \t]+-[neE]{{1,3}})?|printf(?:[ \t]+['\"]?%s['\"]?)?)[ \t]+{_literal(1, False)}"
    rf"[ \t]*\|[ \t]*{_decoding_command(1)}"
    rf"|{_decoding_command(2)}[ \t]*<<<[ \t]*{_literal(2, False)}"
    r")(?(sub)[ \t]*[)`]|)"
)
"""``echo LITERAL | base64 -d`` or ``| tr SET1 SET2``, or the command reading a here-string
(``base64 -d <<< LITERAL``), inside ``$(...)`` or backquotes or not."""
_B64_FUNCTION = (
    r"(?:base64\.)?(?:urlsafe_|standard_)?b64decode|atob|base64_decode|Base64\.(?:strict_|urlsafe_)?decode64"
    r"|\[?(?:System\.)?Convert\]?(?:::|\.)FromBase64String|Buffer\.from"
    r"|base64\.(?:Std|URL|RawStd|RawURL)Encoding\.DecodeString|Base64\.get(?:Url|Mime)?Decoder\(\)\.decode"
)
_WRAPPER = r"(?:\[(?:System\.)?Text\.Encoding\]::\w+|Encoding\.\w+)\.GetString\(|new[ \t]+String\(|string\("
"""What turns a decoded byte array into text around the call (.NET's ``GetString``, Java's ``new
String``, Go's ``string``): read with the call, its closing bracket too."""
_CODE = (
    rf"(?P<wrap>{_WRAPPER})?[ \t]*(?:"
    rf"(?:codecs\.)?(?:de|en)code\([ \t]*b?{_literal(3, True)}[ \t]*,[ \t]*['\"]rot[_-]?13['\"][ \t]*\)"
    rf"|str_rot13\([ \t]*{_literal(4, True)}[ \t]*\)"
    rf"|(?:{_B64_FUNCTION})\([ \t]*b?{_literal(5, True)}(?:[ \t]*,[ \t]*['\"]base64['\"])?[ \t]*\)"
    r"(?:\.(?:decode|toString)\([^()\n]{0,16}\))?"
    r")(?(wrap)[ \t]*\)|)"
)
"""A language's decoding call on a string literal: ROT13 (Python's ``codecs``, PHP's
``str_rot13``) or base64 (Python, JavaScript's ``atob`` and ``Buffer.from``, PHP, Ruby, .NET, Go,
Java), with the ``.decode()`` or ``.toString()`` that makes its bytes a string."""
DECODER_CALL = re.compile(rf"{_SHELL}|{_CODE}")
_HINT = re.compile(r"[Bb]ase64|b64decode|atob\(|rot_?13|decode64|FromBase64|tr[ \t]+\S+[ \t]+\S")
"""The cheap sign that a text may hold a decoding call."""


def _set(spec: str) -> str:
    """The characters a ``tr`` set lists: its quotes and brackets dropped, ranges expanded."""
    return tr_ranges_spelt_out(spec.strip("'\"").replace("[", "").replace("]", ""))


_ROT13 = str.maketrans(
    string.ascii_letters,
    string.ascii_lowercase[13:]
    + string.ascii_lowercase[:13]
    + string.ascii_uppercase[13:]
    + string.ascii_uppercase[:13],
)


def _rot13_tr(set1: str, set2: str, literal: str) -> bool:
    """Do ``tr SET1 SET2`` map every letter of ``literal`` as ROT13 does?"""
    first, second = _set(set1), _set(set2)
    if len(first) != len(second):
        return False
    mapping = dict(zip(first, second, strict=True))
    letters = {char for char in literal if char.isascii() and char.isalpha()}
    return bool(letters) and all(mapping.get(char) == char.translate(_ROT13) for char in letters)


def _base64_text(literal: str) -> str | None:
    """The one line of printable text a base64 literal (standard or URL-safe) decodes to."""
    bare = literal.rstrip("=")
    if len(bare) % 4 == 1:
        return None
    altchars = b"-_" if "-" in bare or "_" in bare else None
    try:
        text = base64.b64decode(bare + "=" * (-len(bare) % 4), altchars=altchars, validate=True).decode()
    except (binascii.Error, ValueError):
        return None
    text = text.rstrip("\n")
    return text if text and text.isprintable() else None


def _decoded(match: re.Match[str]) -> tuple[str, int, int] | None:
    """The text a call returns and the span of the literal it decodes."""
    number = next(n for n in range(1, 6) if match.group(f"literal{n}") is not None)
    literal, start, end = (
        match.group(f"literal{number}"),
        match.start(f"literal{number}"),
        match.end(f"literal{number}"),
    )
    if number in (3, 4):
        return literal.translate(_ROT13), start, end
    if number in (1, 2) and match.group(f"b64_{number}") is None:
        if not _rot13_tr(match.group(f"set1_{number}"), match.group(f"set2_{number}"), literal):
            return None
        return literal.translate(_ROT13), start, end
    text = _base64_text(literal)
    return (text, start, end) if text is not None else None


def decoder_call(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The view's pieces for one call: the decoded text in single quotes where the call stood, the
    quotes mapped to what surrounds the literal, the text to the literal (module docstring)."""
    decoded = _decoded(match)
    if decoded is None:
        return []
    text, literal_start, literal_end = decoded
    # a pipeline that is no substitution prints the text: echo it, what reads it downstream stays
    prefix = "echo '" if match.group("literal1") is not None and not match.group("sub") else "'"
    return [
        (prefix, match.start(), literal_start),
        (text, literal_start, literal_end),
        ("'", literal_end, match.end()),
    ]


_ASSIGNED = re.compile(r"(?P<name>[A-Za-z_$@][\w.-]{0,64})[\"']?[ \t]*(?::=|=|:)[ \t]*$")
"""A name and an assignment right before a call (a declaration's type or ``export`` may precede it)."""
_LINE_REACH = 96


def find_decoded_assignments(text: str) -> Iterator[Finding]:
    """The encoded literal of a decoding call assigned to a credential's name (module docstring)."""
    if not holds_a_decoder_call(text):
        return
    for match in DECODER_CALL.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        assigned = _ASSIGNED.search(text, max(line_start, match.start() - _LINE_REACH), match.start())
        if assigned is None or not credential_class(assigned.group("name")):
            continue
        decoded = _decoded(match)
        if decoded is not None:
            _, start, end = decoded
            yield Finding("PASSWORD", start, end, text[start:end], "decoder_call:assigned")


def holds_a_decoder_call(text: str) -> bool:
    """Might ``text`` hold a decoding call (:data:`_HINT`)?"""
    return _HINT.search(text) is not None
