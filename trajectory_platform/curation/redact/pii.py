"""Pass 2: personal data and internal infrastructure.

Low-entropy values that still identify people or private networks: e-mail addresses, phone
numbers, RFC 1918 / RFC 4193 addresses, internal host names, the user name in a home
directory path, and identifiers validated by their check digits (:mod:`.checksummed_ids`).
Person names need a named-entity model; none is bundled, so they are found only when
:attr:`RedactionConfig.person_names` is set (for example with :func:`load_ner_detector`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from trajectory_platform.curation.redact.checksummed_ids import find_checksummed_ids
from trajectory_platform.curation.redact.model import Finding, RedactionConfig

_EMAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_PHONE = re.compile(r"(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}(?![\w.-])")
_GLUE_BEFORE_EMAIL = frozenset(".+-_:\\#!*$&~^?/%@")
"""Characters that, right before an address, make it the tail of a longer token (a password)."""
_INTERNATIONAL_PHONE = re.compile(
    r"\+\d{1,3}[ .\-]?(?:\(0\)[ .\-]?)?\d{1,5}(?:[ .\-]?\d{2,5}){1,4}(?![\w.\-])"
)
_NATIONAL_PHONE = re.compile(r"\b0\d{2,4}[ \-]\d{3,4}(?:[ \-]?\d{3,4})?(?![\w.\-])")
"""E.164 numbers with a country code (``+44 20 7946 0958``, ``+447700900123``) and national
numbers with a trunk 0 and spacing (UK ``020 7946 0958``, ``07700 900123``): 9 to 15 digits."""
_IPV4 = re.compile(r"0{0,2}(?:10|172|192)\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w.]*\d)")
"""An IPv4 address that may be private, its octets zero-padded or not (``010.000.000.001``, as
tables and some tools print them: read as decimal, which is what the writer meant)."""
_MAPPED_IPV4_HEX = re.compile(
    r"(?i)(?<![\w:])(?:(?:0{1,4}:){5}|::)ffff:(?P<high>[0-9a-f]{1,4}):(?P<low>[0-9a-f]{1,4})(?![\w:])"
)
"""An IPv4-mapped IPv6 address written in hex (``::ffff:c0a8:101`` is ``192.168.1.1``); the dotted
form (``::ffff:192.168.1.1``) is :data:`_IPV4`'s."""
_OBFUSCATION_AT = r"(?:[ \t]*(?:\((?i:at|@)\)|\[(?i:at|@)\]|\{(?i:at|@)\}|<(?i:at|@)>)[ \t]*|[ \t]+AT[ \t]+)"
_OBFUSCATION_DOT = (
    r"(?:[ \t]*(?:\((?i:dot|\.)\)|\[(?i:dot|\.)\]|\{(?i:dot|\.)\}|<(?i:dot|\.)>)[ \t]*|[ \t]+DOT[ \t]+|\.)"
)
_OBFUSCATED_EMAIL = re.compile(
    rf"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{{0,63}}{_OBFUSCATION_AT}"
    rf"[A-Za-z0-9-]+(?:{_OBFUSCATION_DOT}[A-Za-z0-9-]+)*?{_OBFUSCATION_DOT}[A-Za-z]{{2,24}}(?![\w-])"
)
"""An e-mail address written to escape harvesters: its ``@`` spelled in brackets (``(at)``,
``[at]``, ``{at}``, ``<at>``, ``(@)``) or as a capital ``AT`` between spaces, its dots likewise or
left as dots (``jane (at) acme (dot) com``, ``jane[at]acme[.]com``). It names its owner as the
plain address does (a mailbox is personal data); the plain regex saw no ``@`` and kept it."""
_OBFUSCATION_HINT = re.compile(r"(?i)[(\[{<]\s*(?:at|@)\s*[)\]}>]| AT ")
_IPV6_ULA = re.compile(r"f[cd][0-9a-f]{0,2}:[0-9a-f:]*[0-9a-f](?![\w:])", re.IGNORECASE)
_SSH_PROGRAMS = r"(?:ssh|scp|sftp|rsync|mosh|sshfs|ssh-copy-id|autossh)"
_SSH_ARGUMENT = re.compile(
    rf"""(?:^|[\s;&|(`"'])(?:[\w./-]*/)?{_SSH_PROGRAMS}(?:\s+(?:-\S*|\d+|[^\s;&|]*[/.~=:@][^\s;&|]*))*\s+$""",
    re.MULTILINE,
)
_SSH_LOOKBACK = 400
"""The text before an address, on its line (its last ``_SSH_LOOKBACK`` characters), is an SSH
program followed by options, numbers and paths only (never prose's words): the address is its
destination argument (``ssh -T git@github.com``, ``rsync -a d u@h:``)."""
_HOME_USER = re.compile(
    r"(?:/home/|/Users/|[A-Za-z]:\\\\?Users\\\\?)([A-Za-z0-9._-]{2,32})"
    r"|(?<![A-Za-z0-9])__(?:home|Users)__([A-Za-z0-9.-](?:[A-Za-z0-9.-]|_(?!_)){1,31})(?=__)"
)
"""A home directory's user, in a path or in a path flattened into a name with ``__`` for its
slashes (``/__home__jdoe__projects__...``, as tools that key a cache or a container by a working
directory write it)."""


_DIGIT_WORDS = {
    word: str(digit)
    for digit, words in enumerate(
        ("zero oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    )
    for word in words.split()
}
_DIGIT_WORD = "|".join(_DIGIT_WORDS)
_SPELLED_DOT = r"\.++|[\[({](?:\.|dot)[\])}]|dot|point"
_SPELLED_UNIT = rf"\d++|{_DIGIT_WORD}|{_SPELLED_DOT}|[()+]"
_SPELLED_SEPARATOR = r"[ \t]*+[,\-_/][ \t]*+|[ \t]++"
_SPELLED_NUMBER = re.compile(
    rf"(?i)(?<![\w.])(?:{_SPELLED_UNIT})(?:(?:{_SPELLED_SEPARATOR})?(?:{_SPELLED_UNIT})){{2,40}}(?![\w])"
)
"""A run of numbers, single digits, digits' names and dots (written, doubled, bracketed or named),
apart by spaces, a dash, an underscore, a slash or a comma, or glued: an address or a phone number
spelled out (``1 9 2 . 1 6 8 . 0 . 1``, ``10..0..0..5``, ``192[.]168[.]1[.]1``, ``five five five,
one two three, four five six seven``) to keep a harvester's pattern from it. Runs of digits, dots
and blanks are possessive: a run of digits split every way a unit could end took exponential time."""
_SPELLED_PIECE = re.compile(
    rf"(?i)(?P<dot>{_SPELLED_DOT})|(?P<digits>\d+)|(?P<word>{_DIGIT_WORD})|(?P<mark>[()+])|(?P<sep>{_SPELLED_SEPARATOR})"
)
_SPELLED_HINT = re.compile(
    rf"(?i)\d[ \t]+\d[ \t]+\d|\d[ \t]+[-/_][ \t]+\d|\d\.\.+\d|\d[ \t]+\.[ \t]+\d|[\[({{](?:\.|dot)[\])}}]"
    rf"|\d[ \t]+(?:dot|point)[ \t]+\d|\b(?:{_DIGIT_WORD})[ \t,-]+(?:{_DIGIT_WORD})\b"
)
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _spelled_number(run: str) -> str | None:
    """The address or phone number ``run`` spells, written as one writes it (``192.168.0.1``,
    ``555-123-4567``), where its spelling is one a writer chose to hide it: digits one at a time
    (or named) between one separator, numbers between spaced, doubled, bracketed or named dots.
    None for a run written plainly (the plain rules read it) or as numbers in a list or a table
    (``10. 0. 0. 5.``: a float's dot glued to one side alone; ``10 0 0 5``: no dot)."""
    pieces = [(m.lastgroup, m.group()) for m in _SPELLED_PIECE.finditer(run)]
    units = [(kind, text) for kind, text in pieces if kind != "sep"]
    digits = sum(1 if kind == "word" else len(text) for kind, text in units if kind in ("digits", "word"))
    one_at_a_time = all(
        kind == "word" or len(text) == 1 for kind, text in units if kind in ("digits", "word")
    )
    gaps = [text for kind, text in pieces if kind == "sep"]
    spacing = max(set(gaps), key=gaps.count) if one_at_a_time and gaps else None
    out: list[str] = []
    hidden = glued = False
    for index, (kind, text) in enumerate(pieces):
        before = pieces[index - 1] if index else ("sep", " ")
        after = pieces[index + 1] if index + 1 < len(pieces) else ("sep", " ")
        glued |= kind in ("dot", "digits", "word") and before[0] in ("dot", "digits", "word")
        if kind == "dot":
            plain = text == "."
            if plain and (before[0] == "sep") != (after[0] == "sep"):
                return None  # ``10. 0.``: a decimal number's point, or a sentence's full stop
            hidden |= not plain or before[0] == "sep"
            out.append(".")
        elif kind in ("digits", "word"):
            if before[0] == "sep" and out and out[-1][-1:].isdigit():
                if not one_at_a_time:
                    return None  # numbers between spaces: a list or a table, not one number
                hidden = True
            hidden |= kind == "word"
            out.append(_DIGIT_WORDS.get(text.lower(), text))
        elif kind == "mark":
            out.append(text)
        elif before == ("mark", ")"):
            out.append(" ")
        elif text != spacing and "dot" not in (
            before[0],
            after[0],
        ):  # the gap a digit is spelled with, or a dot's
            hidden |= len(text) > 1 and any(mark in text for mark in "-,/_")  # ``555 - 123 - 4567``
            out.append("-")  # a wider or another gap: a group's end
    if glued and one_at_a_time and hidden and not any(kind == "word" for kind, _ in units):
        return None  # digits one at a time and numbers glued by a dot: columns (``1 0.0 0.1``)
    if not hidden or digits < 4:
        return None
    written = "".join(out).strip("-")
    if "." in written:
        return written if _DOTTED_QUAD.fullmatch(written) else None
    written = re.sub(r"-+", "-", written).replace("(-", "(").replace("-)", ")")
    return written


@lru_cache(maxsize=16)
def _internal_host_regex(suffixes: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(s.strip(".")) for s in suffixes)
    return re.compile(
        rf"(?<![\w.-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?\.)+(?:{alternatives})(?![\w-]|\.\w|\()"
    )


def _private_ip(text: str) -> bool:
    if "." in text and ":" not in text:
        text = ".".join(str(int(octet)) for octet in text.split("."))  # zero-padded octets: decimal
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    if address.version == 4:
        return any(
            address in ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
        )
    return address in ipaddress.ip_network("fc00::/7")


_HEX_GROUP_BEFORE = re.compile(r"[0-9A-Fa-f]{2,8}:? +$")
_HEX_GROUP_AFTER = re.compile(r" +[0-9A-Fa-f]{2,8}\b")


def _in_number_run(text: str, match: re.Match[str]) -> bool:
    """The digits are one stretch of a longer run of number groups (a hex dump, a table row)."""
    before = text[max(0, match.start() - 12) : match.start()]
    return bool(_HEX_GROUP_BEFORE.search(before) or _HEX_GROUP_AFTER.match(text, match.end()))


def _standalone(text: str, match: re.Match[str], before: str = "") -> bool:
    """The match does not continue a longer word or number on its left.

    Checked here rather than with a leading lookbehind, which would stop ``re`` from skipping ahead fast.
    """
    start = match.start()
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "_" + before)


def _ssh_destination(text: str, match: re.Match[str]) -> bool:
    """``user@host`` is where an SSH program connects, not a mailbox: scp/git's ``user@host:path``
    (a ``:`` glued to more text; an address ending a sentence has a space after its colon), or an
    argument of ``ssh``/``scp``/``rsync``/... on the same line.

    Why: rewriting ``git@github.com:org/repo.git`` as an e-mail pseudonym broke every remote and
    command holding one (red team 2026-12-07, class 07); only a personal user part identifies
    anyone, and it is still replaced (as ``USERNAME``), keeping the ``@host`` syntax."""
    after = text[match.end() : match.end() + 2]
    if len(after) == 2 and after[0] == ":" and not after[1].isspace():
        return True
    line_start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - _SSH_LOOKBACK)
    return bool(_SSH_ARGUMENT.search(text, line_start, match.start()))


def find_pii(text: str, config: RedactionConfig) -> Iterator[Finding]:
    """Every pass-2 span in ``text``; each regex runs only when a cheap substring test allows it."""
    lower = text.lower()
    if "@" in text:
        for match in _EMAIL.finditer(text):
            # An address starts a word: not the tail of https://user:pw@host (nor of a password
            # holding "#" or "!"), nor "\\n@decorator" in escaped JSON.
            before = text[match.start() - 1] if match.start() else " "
            if before.isalnum() or before in _GLUE_BEFORE_EMAIL:
                continue
            if _ssh_destination(text, match):
                user = match.group().partition("@")[0]
                if user.lower() not in config.generic_home_users:
                    yield Finding("USERNAME", match.start(), match.start() + len(user), user, "pii:ssh_user")
                continue
            yield Finding("EMAIL", match.start(), match.end(), match.group(), "pii:email")
    for match in _PHONE.finditer(text):
        if _standalone(text, match, ".+-"):
            yield Finding("PHONE", match.start(), match.end(), match.group(), "pii:phone")
    for regex in (_INTERNATIONAL_PHONE, _NATIONAL_PHONE) if "+" in text or " 0" in text else ():
        for match in regex.finditer(text):
            digits = sum(map(str.isdigit, match.group()))
            if 9 <= digits <= 15 and _standalone(text, match, ".+-:/") and not _in_number_run(text, match):
                yield Finding("PHONE", match.start(), match.end(), match.group(), "pii:phone")
    yield from find_checksummed_ids(text)
    if "10." in text or "172." in text or "192.168." in text:
        for match in _IPV4.finditer(text):
            if _standalone(text, match, ".") and _private_ip(match.group()):
                yield Finding("PRIVATE_IP", match.start(), match.end(), match.group(), "pii:ip")
    if _SPELLED_HINT.search(text):
        yield from _spelled_numbers(text)
    if "ffff:" in lower:
        for match in _MAPPED_IPV4_HEX.finditer(text):
            high, low = int(match.group("high"), 16), int(match.group("low"), 16)
            if _private_ip(f"{high >> 8}.{high & 255}.{low >> 8}.{low & 255}"):
                yield Finding("PRIVATE_IP", match.start(), match.end(), match.group(), "pii:ip")
    if _OBFUSCATION_HINT.search(text):
        for match in _OBFUSCATED_EMAIL.finditer(text):
            yield Finding("EMAIL", match.start(), match.end(), match.group(), "pii:email")
    if ":" in text and ("fc" in lower or "fd" in lower):
        for match in _IPV6_ULA.finditer(text):
            if _standalone(text, match, ":") and _private_ip(match.group()):
                yield Finding("PRIVATE_IP", match.start(), match.end(), match.group(), "pii:ip")
    if any(f".{suffix.strip('.').lower()}" in lower for suffix in config.internal_suffixes):
        for match in _internal_host_regex(tuple(config.internal_suffixes)).finditer(text):
            yield Finding("INTERNAL_HOST", match.start(), match.end(), match.group(), "pii:host")
    if "/home/" in text or "Users" in text or "__home__" in text:
        for match in _HOME_USER.finditer(text):
            group = 1 if match.group(1) is not None else 2
            if match.group(group).lower() not in config.generic_home_users:
                yield Finding(
                    "USERNAME", match.start(group), match.end(group), match.group(group), "pii:home"
                )
    if config.person_names is not None:
        for start, end in config.person_names(text):
            yield Finding("PERSON", start, end, text[start:end], "pii:ner")


def _spelled_numbers(text: str) -> Iterator[Finding]:
    """A private address or a phone number spelled out (:data:`_SPELLED_NUMBER`), judged in the form
    it spells by the rules the written form meets."""
    for match in _SPELLED_NUMBER.finditer(text):
        written = _spelled_number(match.group())
        if written is None:
            continue
        if "." in written:
            if _private_ip(written):
                yield Finding("PRIVATE_IP", match.start(), match.end(), match.group(), "pii:ip+spelled")
        elif any(
            regex.fullmatch(written) and 9 <= sum(map(str.isdigit, written)) <= 15
            for regex in (_PHONE, _INTERNATIONAL_PHONE, _NATIONAL_PHONE)
        ):
            yield Finding("PHONE", match.start(), match.end(), match.group(), "pii:phone+spelled")


def load_ner_detector(model_dir: str) -> Callable[[str], list[tuple[int, int]]]:
    """A person-name detector from a local Hugging Face token-classification model directory.

    Offline only (``local_files_only``); returns ``text -> [(start, end)]`` for ``PER`` entities.
    """
    from transformers import pipeline

    ner = pipeline(
        "token-classification",
        model=model_dir,
        aggregation_strategy="simple",
        model_kwargs={"local_files_only": True},
    )

    def detect(text: str) -> list[tuple[int, int]]:
        return [
            (int(e["start"]), int(e["end"])) for e in ner(text) if e.get("entity_group") in ("PER", "PERSON")
        ]

    return detect
