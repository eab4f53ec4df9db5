"""Key material written as numbers: a labelled byte list, a bytes repr, a private key's components.

A key is bytes, and code and tools print bytes as numbers: ``secret_key = bytes([237, 191, ...])``,
Rust's ``const SIGNING_KEY: [u8; 32] = [...]``, Go's ``[]byte{0x.., ...}``, C's ``uint8_t
hmac_key[] = {...}``, Java's signed ``byte[]``, Python's ``b'\\xed\\xbf...'`` repr; ``openssl rsa
-text`` prints the private exponent and primes as colon-hex rows under ``privateExponent:`` /
``prime1:`` (``priv:`` for EC and Ed25519 keys), and ``key.private_numbers()`` or Go's ``priv.D``
print them as big decimals. The code-list decoders read only printable codes (a password spelled
as numbers) and the entropy test sees no token, so every byte stayed (a red team, 2026-12-06:
75 of 80 labelled lists and 42 of 42 printed components).

A credential's name before the list or repr, or the label a crypto tool prints before a private
component, makes 16 bytes or more a key. Unlabelled, a list of numbers is a lookup table, a test
vector, pixels or an S-box as often as a key, so it counts only where the bytes themselves say key
(:func:`_random_key_bytes`: 32 to 64 of them, spread as random bytes are, which a table, a counter, a
permutation, pixels or an image header are not) and nothing before them says they are public: a
digest, a hash's output, a signature, a public key, a nonce or an expected test vector
(:data:`_PUBLIC_CONTEXT`), and never the digest of an empty or ``abc`` input, the test vector every
hash library prints (:data:`_TEST_VECTOR_DIGESTS`). That is the rule the entropy test applies to the
same bytes written in hex (a random 64-digit hex run is a secret unless a word names it a digest):
Solana's ``id.json`` (a bare JSON array of 64 numbers, which every Solana task prints), a REPL's
``os.urandom(32)`` echo and Node's ``<Buffer ...>`` carry no label at all (a red team, 2026-12-06:
24 of 80 unlabelled keys kept). Other sizes (an AES-128 or AES-192 key's 16 or 24 bytes, a 48-byte
secret) count where the code above them draws them (:data:`RANDOM_SOURCE`: ``os.urandom(24)``,
``crypto.randomBytes(16)``, ``rand.Read``, ``SecureRandom``): without it, 16 bytes are a UUID, an
MD5 or an IV as often as a key.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped
from trajectory_platform.curation.redact.random_sources import RANDOM_SOURCE

_BYTE = r"-?(?:0[xX][0-9a-fA-F]{1,2}|\d{1,3})"
_LABELLED = (
    r"(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,64})[\"']?[ \t]*(?:\[\w{0,6}\])?[ \t]*(?:=>|[:=])"
    r"[^\n]{0,40}?[\[{(][ \t]*\n?[ \t]*"
)
"""A credential's name, an assignment, and the bracket a list opens with."""
_BYTE_LIST = re.compile(_LABELLED + r"(?P<value>" + _BYTE + r"(?:[ \t]*,[ \t]*\n?[ \t]*" + _BYTE + r"){15,})")
"""A credential's name (C's array size may follow it), an assignment (a type or a constructor may
stand between), then 16 byte values or more in brackets."""
_CHAR = r"'(?:[^'\\\n]|\\.)'"
_CHAR_ITEM = r"b?" + _CHAR
"""A char literal, or Rust's byte literal (``b'a'``)."""
_SHORT_TEXT_LIST = re.compile(
    _LABELLED + r"(?P<value>" + _BYTE + r"(?:[ \t]*,[ \t]*" + _BYTE + r"){5,15}"
    r"|" + _CHAR_ITEM + r"(?:[ \t]*,[ \t]*" + _CHAR_ITEM + r"){5,})(?:[ \t]*,[ \t]*0)?[ \t]*,?[ \t]*[\]})]"
)
"""A password under a credential's name spelled as 6 to 16 character codes (``[]byte{..}``,
``bytes([..])``, ``byteArrayOf(..)``, ``String.fromCharCode(..)``, C's array ending in a NUL) or as
char literals of any length (Java's ``char[] password = {'a', ...}``, C's ending in a bare ``0``,
Rust's bytes ``[b'a', ...]``: red team rtsec15, kept before): too short for a key's
16-byte floor, and its text too short for the entropy test (a red team, round 11: 24 of 24 kept).
The finding is the list inside its brackets, so the brackets and the statement stay."""
_NUMBER_PAIR = re.compile(r"\d[ \t]*,[ \t]*\n?[ \t]*-?\d|\[\d{1,3} \d")
"""Two numbers of a list: the cheap sign that a text may hold one."""
_BYTES_REPR = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,64})[\"']?[ \t]*(?:=|:)[ \t]*b(?P<q>[\"'])"
    r"(?P<value>(?:\\x[0-9a-f]{2}|\\[nrt0'\"\\]|(?!(?P=q))[^\\\n]){16,512})(?P=q)"
)
_BYTE_RUN = re.compile(
    r"[\[{(][ \t]*+\n?[ \t]*+(?P<value>" + _BYTE + r"(?:[ \t]*+,[ \t]*+\n?[ \t]*+" + _BYTE + r"){15,63})"
    r",?[ \t]*+\n?[ \t]*+[\]})]"
    r"|\[(?P<spaced>\d{1,3}(?: \d{1,3}){15,63})\]"
)
"""16 to 64 byte values in brackets, whatever stands before them (see :func:`_unlabelled`): between
commas (a JSON array, a literal in code), or single spaces (Go's ``fmt.Println`` of a ``[]byte``).
Spaces are taken possessively: a longer list (an S-box) fails at its 65th value, and two ways to
split each gap between the spaces around a line break made that failure exponential."""
_BARE_BYTES_REPR = re.compile(
    literal_first(r"(?<![\w\\])", "b")
    + r"(?P<q>[\"'])(?P<value>(?:\\x[0-9a-f]{2}|\\[nrt0'\"\\]|(?!(?P=q))[^\\\n]){16,256})(?P=q)"
)
_NODE_BUFFER = re.compile(
    r"<Buffer (?P<value>[0-9a-f]{2}(?: [0-9a-f]{2}){15,49})(?: \.\.\.(?: \d+ more bytes?)?)?>"
)
"""Node's ``util.inspect`` of a Buffer: up to 50 bytes in hex, then how many more there are."""
_UNLABELLED_SIZES = (32, 64)
"""How many bytes an unlabelled key has: a 256-bit key or seed, or an Ed25519 keypair (Solana's
``id.json``: the secret seed, then the public key). Fewer is as often an IV, a UUID or an MD5."""
_GENERATED_SIZES = (16, 64)
"""How many bytes a key has where the code above them draws it from a random source
(:data:`RANDOM_SOURCE`): AES-128 and AES-192 keys, 20- and 48-byte HMAC keys and seeds too."""
_PUBLIC_CONTEXT = re.compile(
    r"(?i)(?<![a-z])(?:\w*digest|hash\w*|sha\d*(?:_\d+)?|md5|blake\w*|checksum|crc\w*|fingerprint|signature|sig"
    r"|pub(?:lic)?\w*|nonce|iv|expected|want|vectors?|test_?vectors?|ciphertext|mac|tag|address|addr|magic"
    r"|header|png|jpe?g|pixels?|image|img|rgb|palette|lut|sbox|s_box)(?![a-z])"
)
"""Words before unlabelled bytes that make them public (a digest, a signature, a public key, an
expected value of a test) or media; read on the bytes' line and the line before (the REPL input
``>>> hashlib.sha256(b"").digest()`` above its echo)."""
_TEST_VECTOR_DIGESTS = frozenset(
    hashlib.new(name, data).digest()
    for name in (
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha3_256",
        "sha3_512",
        "blake2b",
        "blake2s",
    )
    for data in (b"", b"abc")
)
"""Digests of the empty input and of ``abc`` (FIPS 180's example): public, printed in every test of
a hash library, and as random as a key."""
_MIN_ESCAPES = 4
"""Escapes a bytes repr needs to be binary (fewer: text, which the keyword rules read)."""
_MIN_DISTINCT = 8
"""Distinct byte values a key has (32 random bytes hold about 30); fewer is a pattern or padding."""
_RANDOM_RISES = (0.2, 0.8)
"""The share of neighbours in rising order a random byte string has (about half); a table of
sizes, codes or a counter rises (or falls) nearly throughout."""
_OPENSSL_PRIVATE = re.compile(
    r"(?m)^[ \t]*(?:privateExponent|prime1|prime2|exponent1|exponent2|coefficient|priv):[ \t]*\n"
    r"(?P<value>[ \t]+[0-9a-f]{2}(?::[0-9a-f]{2})*:?(?:[ \t]*\n[ \t]+[0-9a-f]{2}(?::[0-9a-f]{2})*:?)*)"
)
"""``openssl rsa/ec/pkey -text``'s private components; ``modulus:``, ``pub:`` and
``publicExponent:`` are public and stay."""
_PRIVATE_INTEGER = re.compile(
    r"(?<![\w])(?:[A-Za-z_]\w*\.)?(?P<name>d|D|p|q|dmp1|dmq1|iqmp|dp|dq|qinv|private_exponent|private_value)"
    r"\)?[ \t]*(?:=|:)?[ \t]*\n?[ \t]*(?P<value>\d{60,})"
)
_LONG_NUMBER = re.compile(r"\d{60}")
"""A private component printed as a decimal of 200 bits or more (``private_numbers()``'s ``d=``,
``print(priv.d)``, Go's ``priv.D``)."""


def find_key_numbers(text: str) -> Iterator[Finding]:
    """Key bytes or private key components written as numbers under a label (module docstring)."""
    if _NUMBER_PAIR.search(text):
        for match in _BYTE_LIST.finditer(text):
            if credential_class(match.group("name")) and _key_bytes(match.group("value")):
                yield _finding(match)
    if _NUMBER_PAIR.search(text) or "', " in text or "','" in text:
        for match in _SHORT_TEXT_LIST.finditer(text):
            if credential_class(match.group("name")) and credential_shaped(_spelled(match.group("value"))):
                yield Finding("PASSWORD", *match.span("value"), match.group("value"), "key_numbers:text_list")
    if "b'" in text or 'b"' in text:
        for match in _BYTES_REPR.finditer(text):
            value = match.group("value")
            if credential_class(match.group("name")) and value.count("\\x") >= _MIN_ESCAPES:
                yield _finding(match)
    if _NUMBER_PAIR.search(text) or "b'" in text or 'b"' in text or "<Buffer " in text:
        yield from _unlabelled(text)
    if ":\n" in text:
        for match in _OPENSSL_PRIVATE.finditer(text):
            value = match.group("value").strip()
            start = match.start("value") + match.group("value").index(value)
            yield Finding("PRIVATE_KEY", start, start + len(value), value, "key_numbers:openssl_text")
    if _LONG_NUMBER.search(text):
        for match in _PRIVATE_INTEGER.finditer(text):
            yield _finding(match)


def _unlabelled(text: str) -> Iterator[Finding]:
    """32 or 64 random bytes in brackets, a bytes repr or a Node Buffer, under no public word; 16
    to 64 of them under a call that draws them (:data:`RANDOM_SOURCE`)."""
    candidates: list[tuple[re.Match[str], bytes | None]] = []
    if _NUMBER_PAIR.search(text):
        candidates.extend(
            (match, _listed_bytes(match.group("value") or match.group("spaced")))
            for match in _BYTE_RUN.finditer(text)
        )
    if "b'" in text or 'b"' in text:
        candidates.extend((match, _repr_bytes(match.group())) for match in _BARE_BYTES_REPR.finditer(text))
    if "<Buffer " in text:
        candidates.extend((m, bytes.fromhex(m.group("value"))) for m in _NODE_BUFFER.finditer(text))
    for match, raw in candidates:
        if (
            raw is not None
            and _random_key_bytes(raw, shown=match.re is _NODE_BUFFER, drawn=_drawn(text, match))
            and not _public(text, match)
        ):
            yield _finding(match, "key_numbers:unlabelled")


def _listed_bytes(listed: str) -> bytes | None:
    """A list's numbers as bytes (Java's signed ones taken modulo 256), None if one is no byte."""
    numbers = [_int(item) for item in re.findall(_BYTE, listed)] if isinstance(listed, str) else listed
    if not all(-128 <= number <= 255 for number in numbers):
        return None
    return bytes(number % 256 for number in numbers)


def _spelled(listed: str) -> str:
    """The text a list of character codes or char literals spells (a C string's closing NUL
    dropped); empty where a code is no printable ASCII character."""
    if listed.startswith(("'", "b'")):
        chars = [ast.literal_eval(item) for item in re.findall(_CHAR, listed)]
    else:
        chars = [chr(_int(item) % 256) for item in re.findall(_BYTE, listed)]
    while chars and chars[-1] == "\0":
        chars.pop()
    text = "".join(chars)
    return text if text.isascii() and text.isprintable() else ""


def _repr_bytes(literal: str) -> bytes | None:
    """A Python bytes repr's bytes (a literal, evaluated as one), None where it holds few escapes."""
    if literal.count("\\x") < _MIN_ESCAPES:
        return None
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, bytes) else None


def _random_key_bytes(raw: bytes, shown: bool = False, drawn: bool = False) -> bool:
    """Are ``raw`` a key's 32 or 64 bytes (or, ``shown`` by Node, the first 50 of more; or 16 to 64
    ``drawn`` from a random source): spread as random bytes are? Random bytes repeat by the birthday
    rule (32 hold about 30 distinct values, 64 about 57; a drawn key's few bytes are asked fewer)
    and fall in every quarter of 0-255 (16 of them miss one one time in 25, so three do there); a
    permutation, a table of small numbers, a
    counter or sorted sizes, pixels and a file header (runs of zeros) do not. Never a known test
    vector."""
    size = len(raw)
    if not (
        size in _UNLABELLED_SIZES
        or shown
        and size >= _UNLABELLED_SIZES[0]
        or drawn
        and _GENERATED_SIZES[0] <= size <= _GENERATED_SIZES[1]
    ):
        return False
    if any(digest.startswith(raw) for digest in _TEST_VECTOR_DIGESTS) or not _key_bytes(list(raw)):
        return False
    expected = 256 * (1 - (255 / 256) ** size)
    quarters = len({byte >> 6 for byte in raw})
    share = 0.75 if drawn else 0.85  # of os.urandom's 16 to 48 bytes, 0.85 turns away 0.3-0.9%
    return len(set(raw)) >= share * expected and quarters >= (4 if size >= _UNLABELLED_SIZES[0] else 3)


def _drawn(text: str, match: re.Match[str]) -> bool:
    """Does a call that draws random bytes stand before them, on their line or the three above (a
    REPL's input over its echo, Go's ``rand.Read(key)`` over ``fmt.Println(key)``)?"""
    start = text.rfind("\n", 0, match.start()) + 1
    for _ in range(3):
        start = text.rfind("\n", 0, max(0, start - 1)) + 1
    return RANDOM_SOURCE.search(text, start, match.start()) is not None


def _public(text: str, match: re.Match[str]) -> bool:
    """Does a word on the bytes' line before them, or on the line above, make them public?"""
    line_start = text.rfind("\n", 0, match.start()) + 1
    above = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    return _PUBLIC_CONTEXT.search(text, above, match.start()) is not None


def _key_bytes(listed: str | list[int]) -> bool:
    """Are the numbers of ``listed`` bytes (0-255, or Java's signed -128-127) with a key's spread?"""
    numbers = [_int(item) for item in re.findall(_BYTE, listed)] if isinstance(listed, str) else listed
    if not all(-128 <= number <= 255 for number in numbers) or len(set(numbers)) < _MIN_DISTINCT:
        return False
    rises = sum(a < b for a, b in zip(numbers, numbers[1:], strict=False)) / (len(numbers) - 1)
    return _RANDOM_RISES[0] <= rises <= _RANDOM_RISES[1]  # a sorted list is sizes or ids, not a key


def _int(literal: str) -> int:
    """A byte literal: hex with ``0x``, else decimal (a leading zero is padding in a list of bytes)."""
    negative = literal.startswith("-")
    digits = literal.lstrip("-")
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10)
    return -value if negative else value


def _finding(match: re.Match[str], detector: str = "key_numbers") -> Finding:
    group = "value" if match.group("value") is not None else "spaced"
    return Finding("PRIVATE_KEY", match.start(group), match.end(group), match.group(group), detector)
