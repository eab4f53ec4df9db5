"""Decode-then-scan: views of a text with an encoding undone, mapped back to the raw text.

A secret can reach a log wrapped in ANSI colour codes (``\\x1b[31mAKIA...\\x1b[0m``: the colour's
``m`` glues onto the key, so no word boundary matches), URL- or fully percent-encoded
(``%41%4B%49%41...``), ``\\u``-escaped inside a shell string that carries JSON, JSON-escaped (once
or more) inside text that is not JSON itself, form-encoded (``+`` for a space), as HTML entities,
octal-escaped (``\\101``), quoted-printable (``=41=4B``, or a whole MIME body), hex-encoded
(``0x``-prefixed or byte by byte, ``41 4b 49``), in look-alike Unicode (zero-width and other
invisible format characters between its letters, fullwidth or other compatibility forms of ASCII,
``ＡＫＩＡ``, Cyrillic or Greek letters drawn like Latin ones), spelled out with a separator between its
characters (``A K I A ...``), as a list of its characters or their codes (``["A", "K", ...]``,
``fromCharCode(65, 75, ...)``, ``65 75 ...``), in binary digits (``01000001 ...``), uuencoded, in
base64 (or base32) wrapped across lines, deflated inside a ``git diff --binary`` hunk, in base85 or
ascii85 (with Adobe's delimiters or without, as Python's ``b85encode`` and ``a85encode`` write it),
or cut into concatenated string literals (``"AKIAQW" + "ERTY..."``, a backslash line continuation)
or into chunks a join glues (``''.join(['AKIAQW', 'ERTY...'])``), struck over in bold (``K\bK``),
written down a column one character a line,
or dumped by ``xxd``, ``hexdump -C`` or ``od`` (rows joined, :mod:`.dumps`), which a reader sees as
the key and a pattern does not. Encodings stacked (``%2541``, percent-encoded twice; hex of
percent-encoding) are undone in turn: each view is decoded again by every decoder, on the lines it
changed. Each decoder here undoes one encoding where it occurs and keeps, for every decoded
character, the raw span it came from, so a finding in the decoded view becomes a finding on the
exact raw substring that encodes it, which pass 3 then replaces like any other value.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import codecs
import functools
import html
import itertools
import json
import re
import string
import sys
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from trajectory_platform.curation.redact.alternations import gated_alternation, literal_first
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.decoder_calls import DECODER_CALL, decoder_call, holds_a_decoder_call
from trajectory_platform.curation.redact.dumps import DUMP_BLOCK, DUMP_HINT, ROW_OPENS, dump_runs
from trajectory_platform.curation.redact.not_values import joined_to_literal, opens_joined_literal
from trajectory_platform.curation.redact.printf_formats import PRINTF_FORMAT, printf_output
from trajectory_platform.traces.look_alikes import latin_look_alikes

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-Z\\^-~]")
"""A control sequence (CSI: a colour, a cursor move), an operating-system command (OSC: a window
title, a hyperlink), or any other escape sequence: ESC, intermediate bytes, a final byte (ECMA-35
and ECMA-48: ``ESC ( B`` designates a character set, ``ESC 7``/``ESC 8`` save and restore the
cursor, ``ESC =``/``ESC >`` switch the keypad, ``ESC M`` scrolls). A terminal shows none of them,
so between a key's characters they hide it from a pattern as well as a colour does."""
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_FORM_WORD = re.compile(r"(?:[\w.\-~*]|%[0-9A-Fa-f]{2})*(?:\+(?:[\w.\-~*+]|%[0-9A-Fa-f]{2})*)+")
_FORM_PART = re.compile(rf"\+|{_PERCENT.pattern}|[^+%]+")
_FORM_RUN = re.compile(r"[\w.\-~*%+]+")
"""A run of the characters :data:`_FORM_WORD` is made of: each of its matches lies inside one."""


class Finder(Protocol):
    """What a decoder's matches are found with: a compiled pattern, or :class:`InRuns`."""

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]: ...


class InRuns:
    """``pattern``'s matches inside the runs of ``run`` that hold each of ``needs``: the matches its
    decoder turns into pieces, found without searching the rest of the text. ``pattern`` matches
    only characters of ``run``, no empty string, and looks at nothing around it, so its matches in
    the text are those in each run, and the ones it skips are those its decoder leaves as they are:
    the view is the same. (``_FORM_WORD`` backtracks over every word without a ``+``, quadratic in
    the word's length: 1 s of a canary document's views, for words its decoder drops unless they
    hold a ``%`` and a ``+``.)"""

    def __init__(self, pattern: re.Pattern[str], run: re.Pattern[str], needs: str) -> None:
        self.pattern, self.run, self.needs = pattern, run, needs

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        for run in self.run.finditer(string, pos, endpos):
            if all(char in run.group() for char in self.needs):
                yield from self.pattern.finditer(string, run.start(), run.end())


_QUOTED_PRINTABLE = re.compile(r"(?:=[0-9A-F]{2}){4,}")
"""Four escapes or more: quoted-printable leaves ASCII literal, so only a key encoded on purpose is a
run of them, where one ``=XX`` opens any ``name=0A...`` value (a RECORD line's ``sha256=06uRx...``)."""
_QUOTED_PRINTABLE_MARK = re.compile(r"=(?:3D|20|00|\r?\n)")
"""Where a sign of text quoted-printable throughout may be (a literal ``=`` first: a fast search),
confirmed by :func:`_quoted_printable_text`. Text quoted-printable throughout (a MIME body,
``quopri``'s output): an encoded ``=`` after a name (``key=3Dvalue``, never a digest's
``sha256=3D...``), an encoded space between words, an encoded space or ``=`` next to another escape
(``api_secret=20=3D=20"...``: an assignment whose spaces are encoded, ``quotetabs`` on; alone, it
showed none of the other signs and its key stayed), three encoded NULs on a line (a short
``/proc/PID/cmdline`` shows no other sign; a digest's ``sha256=00...`` is one), or a soft line
break where the encoder wraps at 76 columns. In such text the escapes an encoder writes for text
are undone: ``=3D``, a space or tab, a NUL (``/proc/PID/cmdline``'s and ``environ``'s separator:
``--db-password=00<value>=00`` is a flag and its value once the ``argv_separators`` view reads
the NUL), a run of bytes (a UTF-8 character), a soft line break; a lone other escape is left as it
stands (``sha256=06uRx...`` is a digest, not a control character and a name)."""
_QP_ESCAPE = re.compile(r"(?:=[0-9A-F]{2}){2,}|=(?:3D|20|09|00)|=\r?\n")
_QP_HEADER = re.compile(r"(?i)content-transfer-encoding:[ \t]*quoted-printable")
"""A MIME part that says it is quoted-printable: its soft line breaks join lines wherever they fall
(an encoder wraps a shorter line too), so ``Sunset#=`` and ``River8693`` on the next line are one
value."""
_ONE_QP_ESCAPE = re.compile(r"=[0-9A-F]{2}")
_PRINTF_OCTAL = r"0[0-3][0-7]{2}"
_UNICODE_ESCAPE = re.compile(
    rf"(?<!\\)\\+(?:0(?P<printf_octal>[0-3][0-7]{{2}})(?:(?=\\{_PRINTF_OCTAL})|(?<={_PRINTF_OCTAL}\\{_PRINTF_OCTAL}))"
    r"|u(?P<u>[0-9A-Fa-f]{4})|x(?P<x>[0-9A-Fa-f]{2})|(?P<octal>[0-3][0-7]{2})|U(?P<U>[0-9A-Fa-f]{8})"
    r"|[ux]\{(?P<brace>[0-9A-Fa-f]{1,6})\})"
    r"|%u(?P<percent_u>[0-9A-Fa-f]{4})|(?<![\w+])U\+(?P<code_point>[0-9A-Fa-f]{4,6})(?:[ ,]+(?=U\+))?"
)
"""``\\uXXXX`` (JSON, Java, JS), ``\\xXX``, octal ``\\NNN``, ``\\UXXXXXXXX`` (Python, C), ``\\u{X}`` (JS,
Rust, Swift) and ``\\x{X}`` (Perl, Ruby); ``printf '%b'``'s octal ``\\0NNN`` (a zero, then three
digits: C reads ``\\0123`` as ``\\012`` and a ``3``, so only a run of two or more reads so), behind
any number of backslashes (the ``repr`` of an escaped string doubles them; matched from a run's
first backslash only, as :data:`_BACKSLASH_ESCAPE`, or a long run is quadratic);
JavaScript's ``escape()`` form ``%uXXXX``; and code points written ``U+0041 U+004B`` (the spaces or
commas between them dropped)."""
_CHR_CODE = r"(?:\d{2,3}|0x[0-9a-f]{2}|&h[0-9a-f]{2})"
_CHR_CALL = rf"(?:\b(?:chrw?|char)\s*\(\s*{_CHR_CODE}\s*\)|\[char\]\s*{_CHR_CODE}|\(char\)\s*{_CHR_CODE})"
_CHR_CALLS = re.compile(rf"(?i){_CHR_CALL}(?:\s*(?:\+|\.|&|\|\||,)\s*{_CHR_CALL}){{7,}}")
"""Eight characters or more as calls or casts joined by ``+``, ``.``, ``&``, ``||`` or commas:
Python ``chr(65) + chr(75)``, VB ``Chr(65) & ChrW(&H4B)``, PHP ``chr(65) . chr(75)``, SQL
``CHAR(65) + CHAR(75)`` or ``||``, PowerShell ``[char]0x41+[char]0x4b``, C# and Java
``(char)65 + (char)75``."""
_CHR_HINT = re.compile(r"(?i)ch(?:rw?\s*\(\s*(?:[0-9]|&h)|ar\s*[(\]]\s*[0-9]|ar\)\s*[0-9])")
"""A call or cast with a code, found from its ``ch`` (a leading ``\\b`` or ``[`` made the search
slower than the decoder it gates)."""
_CSS_ESCAPES = re.compile(r"(?:\\[0-9A-Fa-f]{2,6} ?){8,}")
"""CSS (and CSS-in-JS) escapes, ``\\41 \\4b ``: a hex code point after a backslash, a space ending it."""
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_BACKSLASH_ESCAPE = re.compile(r"(?<!\\)\\+([\"'/nrt])")
"""From the first backslash of a run only: starting inside the run made a long run of backslashes
that ends in no escapable character quadratic (15 s on 40 kB)."""
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t"}
_ENTITY = re.compile(
    r"&(?:#[0-9]{1,7}(?:;|(?![0-9]))|#[xX][0-9A-Fa-f]{1,6}(?:;|(?![0-9A-Fa-f]))|[A-Za-z][A-Za-z0-9]{1,31};)"
)
"""A named entity with its ``;``, a numeric one with it or without (``&#103&#104``, ``&#x67``): HTML
ends a numeric reference at its last digit, and browsers and :func:`html.unescape` read it so."""
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])(?:0[xX])?(?P<hex>(?:[0-9A-Fa-f]{2}){12,})(?![0-9A-Za-z])")
_HEX_BYTES = re.compile(r"[0-9A-Fa-f]{2}[ :\-](?:[0-9A-Fa-f]{2}[ :\-]){10,}[0-9A-Fa-f]{2}(?![0-9A-Za-z:\-])")
"""Hex bytes between spaces, colons or dashes (.NET's ``BitConverter.ToString``)."""
_HEX_GROUPS = re.compile(r"(?<![\w:\-])[0-9A-Fa-f]{4}(?: [0-9A-Fa-f]{4}){5,}(?: [0-9A-Fa-f]{2})?(?![\w:\-])")
"""Hex in groups of four digits, two bytes each in the order written, between single spaces: ``xxd``
rows without their offset and text columns, ``xxd -g2``, a hex editor's copy (an odd last byte
alone). Only a run with a letter among its digits is read (see :func:`_hex_groups`)."""
_LIST_ELEMENT = r"[\w+/=.\-!#$%&*:?@^|~]"
"""A bare list element: a character a key, a password or a connection string holds; never a quote, a
separator or a space, so a list's elements stay apart."""
_QUOTED_ELEMENT = r"(?:\\[^\n]|(?!(?P=q))[^\\\n])"
"""A quoted list element: any one character but its own quote, or one escaped (``"\""``), so a
whole line spelled out keeps the spaces and quotes a detector reads around a key
(``api_secret = "...``)."""
_CHAR_LIST = re.compile(
    rf"(?P<q>[\"'`]){_QUOTED_ELEMENT}(?P=q)(?P<sep>\s*[,;]\s*)"
    rf"(?:(?P=q){_QUOTED_ELEMENT}(?P=q)(?P=sep)){{14,}}(?P=q){_QUOTED_ELEMENT}(?P=q)"
    rf"|{_LIST_ELEMENT}(?P<bare_sep>\s*[,;]\s*)(?:{_LIST_ELEMENT}(?P=bare_sep)){{14,}}{_LIST_ELEMENT}"
)
"""Sixteen characters or more as a list, each alone (quoted or not) between commas: ``["A", "K",
...]``, ``'A','K',...``, ``A, K, I, ...``."""
_QUOTED_ITEM = re.compile(r"([\"'`])(\\[^\n]|[^\\\n])\1")
_CODE = r"(?:0[0-7]{2,3}|\d{2,3}|0[xX][0-9A-Fa-f]{2})"
_CHAR_CODES = re.compile(
    rf"(?<![\w.]){_CODE}"
    rf"(?:(?:\s*,\s*{_CODE}){{15,}}|(?: {_CODE}){{15,}}|(?:\r?\n{_CODE}(?=\r?$)){{15,}})(?![\w.])",
    re.MULTILINE,
)
"""Sixteen character codes or more between commas or single spaces, or one a line, decimal, ``0x``
hex or C's octal (``0101``): ``String.fromCharCode(65, 75, ...)``, ``bytes([65, 75, ...])``, a
JSON array of codes, a C or Go byte array (``{0x41, 0x4b, ...}``, ``{0101, 0113, ...}``), ``ord``
values printed one after another (``65 75 73 ...``) or one a line by a loop; comma-separated ones
wrapped across lines too (``xxd -i`` rows, numpy's ``array([...])``)."""
_UU_LINES = re.compile(r"(?m)^[!-M][ -`]{4,60}\r?$(?:\n[!-M][ -`]{4,60}\r?$)*")
"""Lines of uuencode (``uuencode``, ``binascii.b2a_uu``, Python's ``uu`` codec): a length character,
then four characters for every three bytes, all between space and backtick."""
_BINARY = re.compile(r"(?<![\w.])[01]{8}(?P<sep>[ ,]?)(?:[01]{8}(?P=sep)){6,}[01]{8}(?![\w.])")
"""Eight bytes or more written as binary digits, eight a byte, joined or between spaces or commas
(``01000001 01001011 ...``: a puzzle's or an obfuscator's spelling of text)."""
_BARE_ITEM = re.compile(_LIST_ELEMENT)
_CHAR_LIST_HINT = re.compile(rf"[,;]\s*([\"'`]?){_LIST_ELEMENT}\1\s*[,;]\s*\1{_LIST_ELEMENT}\1\s*[,;]")
_CHAR_CODES_HINT = re.compile(
    rf",\s*{_CODE}\s*,\s*{_CODE}\s*,\s*{_CODE}\s*,| \d{{2,3}} \d{{2,3}} \d{{2,3}} "
    r"|\n\d{2,3}\r?\n\d{2,3}\r?\n\d{2,3}\r?\n"
)
"""Gates: two list elements in a row, found from a separator (a pattern that starts at a comma is
cheap to search for; the lists' own patterns start anywhere)."""
_SPELLED = re.compile(
    r"(?<![\w.\-+/=@])[\w\-+/=@.](?P<sep>[ .\-_/\t\u00a0\u2000-\u200a\u202f\u205f\u3000]| {2,3})"
    r"(?:[\w\-+/=@.](?P=sep)){14,}\w(?![\w])"
)
"""Sixteen characters or more, one at a time with the same separator: a key spelled out. The
separator is a dot, a dash, a space, or what a reader skips as readily (red team, 2026-12-07:
each of these hid every key of the round): a tab (a spreadsheet row pasted into a log), an
underscore, a slash, any other space Unicode has (no-break, thin, ideographic), or two or three
spaces. A key's characters include the dashes, ``+``, ``/`` and ``=`` keys hold (a Slack token's
``xoxb-``, base64) and an address's ``@`` and ``.``, all but its last: a run of dashes spells no
key."""
_SPELLED_WIDE = re.compile(
    r"(?<![^\s\"'`=:(\[])[!-~](?P<sep>[#|~*] ?| [^\w\s] )(?:[!-~](?P=sep)){14,}[!-~](?![^\s\"'`),;\]])"
)
"""The same with any character between a wider separator or one that no key holds (``A - K - I -
A``, ``x#o#x#b#-#1``): the separator then tells itself apart, and a dash or a ``!`` in the key is
one of its characters."""
_SPELLED_WIDE_HINT = re.compile(r"[#|~*][!-~][#|~*][!-~][#|~*]| [^\w\s] [!-~] [^\w\s] [!-~] ")
_GROUPED = re.compile(
    r"(?<![^\s:=\"'`(])[\w!%*@#$&+/=.]{4}(?P<sep> |, )(?:[\w!%*@#$&+/=.]{4}(?P=sep)){3,}[\w!%*@#$&+/=.]{1,4}"
    r"(?![^\s,;\"'`)])"
)
"""Five groups or more of four characters, the last no longer, between single spaces or ``, ``: a
key written in groups to be read aloud or typed (``AKIA 3XGF 34QY ...``), which a pattern reads as
words. See :func:`_grouped` for which runs are read."""
_KEY_GROUPS = re.compile(
    r"(?:^|(?<=[:=\"'`(>]))[ \t\u00a0]*(?P<groups>[\w+/]{4,8}(?P<sep>[ \u00a0\u2009\u202f-])"
    r"(?:[\w+/]{4,8}(?P=sep)){2,}[\w+/]{1,8}={0,2})(?![\w+/=-])"
    r"|(?:(?<=:)[ \t]*\n?|^)[ \t]*(?P<row>[\w+/-]{8,32})(?:\n[ \t]*[\w+/-]{8,32}){1,}"
    r"(?:\n[ \t]*[\w+/-]{1,31}={0,2})?$",
    re.MULTILINE,
)
"""A key shown for a person to copy: four groups or more of one width, four to eight characters,
the last no longer, between one kind of space or dashes, at a line's start or after a label's
colon, an ``=`` or a quote (a no-break or thin space too: an authenticator's
setup key ``JBSW Y3DP EHPK 3PXP``, a TOTP seed in fives, hex in fours or eights); or rows of one
width, 8 to 32 characters, from a label's colon on (a key wrapped at 16 columns on a narrow
screen). Uniform widths keep a UUID (8-4-4-4-12) and a date out.
:data:`_GROUPED` reads fours only, between plain spaces, and leaves hex alone. See
:func:`_key_groups` for which runs are read."""
_KEY_GROUPS_HINT = re.compile(
    r"(?:^|[:=\"'`(>])[ \t\u00a0]*[\w+/]{4,8}[ \u00a0\u2009\u202f-][\w+/]{4}"
    r"|(?:^|:)[ \t]*\n?[ \t]*[\w+/-]{8,32}\n",
    re.MULTILINE,
)
_HEX_ONLY = re.compile(r"[0-9A-Fa-f]+")
_LABEL_WORD = re.compile(r"[A-Za-z_][\w-]*")
_KEY_GROUPS_MAX = 160
"""The longest run joined: a key, not a certificate or a dump (those are public or read elsewhere)."""
_NON_HEX_LETTER = re.compile(r"[G-Zg-z]")
_SHELL_ESCAPED = re.compile(r"(?:[^\s\\\"'`;|&<>()]|\\[^\n])+")
"""A shell word outside quotes: plain characters and backslash escapes (an escaped space joins the
word), read from its start (alternatives that cannot overlap, so linear time)."""
_SHELL_ESCAPE = re.compile(r"\\([^\n])")
_SHELL_ESCAPE_HINT = re.compile(r"\\[^abfnrtvxuUeN0-7\"'\\\s][^\s\\]{0,3}\\[^\s\\]")
"""Two escapes close together, the first of a character no string literal escapes."""
_C_ESCAPES = frozenset("abfnrtvxuUeN01234567\"'\\")
"""Letters a backslash makes an escape in C, JSON, Python or a regex's ``\\N``: a word with only
these escaped is a string literal, not a shell word obfuscated."""
_POWERSHELL_ESCAPED = re.compile(r"(?:[^\s`\"';|&<>(){}]|`[^\n])+")
"""The same for PowerShell, whose escape character is the backtick: outside single quotes it
drops before any character but the few it makes an escape (red team, 2026-12-07: ``g`hp_`x...``
in a ``Write-Output`` hid every key of the round)."""
_POWERSHELL_ESCAPE = re.compile(r"`([^\n])")
_POWERSHELL_ESCAPE_HINT = re.compile(r"`[^0abefnrtuv\"'`$\s][^\s`]{0,3}`[^\s`]")
_POWERSHELL_ESCAPES = frozenset("0abefnrtuv\"'`$")
"""What a backtick makes an escape in PowerShell (`` `n ``, `` `t ``, `` `u{..}``, an escaped quote or
``$``): a word with only these escaped is a string, not a word obfuscated."""
_UTF16_NULS = re.compile(r"(?:\xff\xfe)?(?:[\t\n\r -~]\x00){4,}")
"""UTF-16LE of ASCII read as text (a file ``cat`` prints with a NUL after every character, a
``repr`` of its bytes once its escapes are undone): the characters with their NULs, and the
byte-order mark before them read as Latin-1 (``ÿþ``, letters that would glue onto the first word)."""
_ARGV_SEPARATOR = re.compile(r"(?<=[!-~])(?:\x00|\^@)(?=[!-~])")
"""A NUL between two words, or ``cat -v``'s ``^@`` for it: how ``/proc/PID/cmdline`` and
``/proc/PID/environ`` separate a command's arguments and variables (``--db-password``, NUL, the
password). Read as the space a command line shows there, so a flag names its value as it does in
``ps`` output. A NUL after every character (UTF-16) is :data:`_UTF16_NULS`'s."""
_UTF7 = re.compile(literal_first(r"(?<![\w+/=])", "+A") + "[A-Za-z0-9+/]{6,}-?")
"""UTF-7's base64 of UTF-16 (RFC 2152: ``+AEcASQBU-`` is ``GIT``): ASCII in it starts with ``A``,
its high byte zero."""
_GLUE = re.compile(
    r"([\"'`])\s*(?:(?:\+\+?|\.\.?|&|\|\||\^|<>|<<|~)\s*)?(?:\\\r?\n\s*)?\1(?=[\w+/=\-])"
    r"|\\\r?\n[ \t]*(?=[\w+/=\-])"
)
"""Where two string literals meet (``" + "``, ``' . '``, ``" "``, and the other operators
languages join strings with: Lua's ``..``, Haskell's ``++``, OCaml's ``^``, Elixir's ``<>``, D's
``~``, Ruby's ``<<``, SQL's ``||``; not a shell's ``>``, ``>>``, ``|`` or ``&&``, which put a
command's output somewhere: joined, ``echo "<key>" > "token.txt"`` lost its redirection to the
pseudonym) or a backslash continues a line;
not after an escaped newline: literals that each end a line of text are lines, not one token. The
whitespace before the operator and after it are separate runs, so a quote before a long run of
spaces costs linear time (one optional operator between two ``\\s*`` made it quadratic)."""
_TOKEN_CHAR = re.compile(r"[\w+/=\-]")
_JOINED_LIST = re.compile(r"(?P<q>[\"'`])[\w+/=\-.:@]*(?P=q)(?:[ \t]*,[ \t]*(?P=q)[\w+/=\-.:@]*(?P=q))+")
"""Two quoted chunks or more between commas, each of characters a key holds: a list of pieces."""
_JOINED_BEFORE = re.compile(
    r"(?:([\"'`])\1\s*\.\s*join\s*\(\s*[\[(]?"  # Python ''.join([...])
    r"|\b(?:join|implode|Join)\s*\(\s*([\"'`])\2\s*,\s*[\[({]?"  # Perl, PHP, Java, C#: join("", ...)
    r"|\b(?i:concat)\s*\(\s*[\[(]?"  # SQL CONCAT(...), C# string.Concat(...), JS "".concat(...)
    r"|\bJoin\s*\(\s*\[\]string\s*\{"  # Go strings.Join([]string{...}, "")
    r"|([\"'`])(?:%[sv]|\{\d*\})+\3\s*(?:%|\.\s*format|-f)\s*[(\[]?"  # "%s%s" % (..), "{}{}".format(..), -f
    r"|\b(?i:s?printf|format)\s*\(\s*([\"'`])(?:%[sv]|\{\d*\})+\4\s*,)"  # Go Sprintf, Java String.format
    r"\s*$"
)
_JOINED_AFTER = re.compile(
    r"\s*(?:[\])]\s*\.\s*join\s*\(\s*([\"'`])\1\s*\)"  # JS [...].join('')
    r"|\]\s*\.\s*join\b(?!\s*\()"  # Ruby [...].join
    r"|\}\s*,\s*([\"'`])\2\s*\))"  # Go's separator, after the list
)
_PRINTF_PIECES = re.compile(
    r"(?P<open>\$\([ \t]*|`[ \t]*)?\bprintf[ \t]+(?:-v[ \t]+(?P<variable>\w+)[ \t]+)?(?P<q>['\"]?)"
    r"(?P<label>[A-Za-z_][\w.-]{0,40}[=:] ?)?(?P<format>(?:%s){1,8})(?:\\n)?(?P=q)"
    r"(?P<args>(?:[ \t]+(?:'[\w+/=\-.:@]+'|\"[\w+/=\-.:@]+\"|[\w+/=\-.:@]+)){1,8})"
    r"(?(open)[ \t]*(?P<close>[)`])|)(?=[\s)|;&>`\"]|$)"
)
"""A shell's ``printf '%s%s' piece1 piece2`` (or ``-v VAR``): a format of placeholders alone glues
its arguments, words apart, quoted or not, as the language formats :data:`_JOINED_BEFORE` names
glue their literals (red team round 14 left the shell's unread). Inside a command substitution
(``DB_PASSWORD=$(printf '%s%s' a b)``) the substitution is the glued word, and ``-v VAR`` assigns it
to ``VAR``. A label written into the format before the placeholders (``printf 'password=%s%s' a b``,
one placeholder enough there) is read against the glued word, as the line printf prints shows it.
"""
_PRINTF_ARGUMENT = re.compile(r"[ \t]+(?P<q>['\"]?)(?P<piece>[\w+/=\-.:@]+)(?P=q)")
_JOINED_REACH = 40
"""How far before a list of chunks its join call may start (``''.join([`` or ``implode('', [``)."""
_JOINED_HINT = gated_alternation(r"join|concat|implode|%[sv]|\{\d*\}", re.IGNORECASE)
"""A join call or a format's placeholders, in any case: gated by the first characters (2x faster)."""
_INLINE_MARKUP = re.compile(
    r"(?<=[\w+/=\-@.])(?:</?(?:b|i|u|s|em|strong|mark|ins|del|code|kbd|tt|span|font|small|sup|sub|wbr)"
    r"(?:\s[^<>\n]{0,200})?/?>|<!--[^\n]{0,200}?-->)+(?=[\w+/=\-@.])"
)
"""Inline HTML tags or comments between two characters of one token, with no space on either side:
an HTML page or a highlighter's output (``<wbr>`` where a long token may break, a ``<span>`` per
highlighted piece or per coloured character, ``<mark>`` around a search hit) shows the token
whole, and a pattern sees pieces (red team, 2026-12-07: each hid every key of the round). Only
inline elements that style a token: a cell, a paragraph or a line break (``</td><td>``, ``<br>``)
separates words, and a link's text is a whole (a finding across ``</a>`` would take the closing tag
into the pseudonym and leave the link open)."""
_RTF_CONTROLS = re.compile(
    r"\\'(?P<hex>[0-9a-fA-F]{2})|(?:\\[a-z]{1,32}(?:-?\d{1,10})?[ ]?|\\\*|[{}]|\r?\n)+"
)
"""A run of RTF's markup between two pieces of text: control words (``\\loch``, ``\\ul``,
``\\f3``, a space that ends one), group braces and line breaks, none of which a word processor
shows; and a ``\\'xx`` escape, the character it codes (Windows-1252). RTF splits a document's
text into runs wherever its formatting or spell-checking state changes, so a label and its value
(``postman-token: }{\\loch\\ul ... <value>``) met in no line (session 46)."""
_RTF_BREAK = re.compile(r"\\(?:par|line)(?![a-z])")


def _rtf_controls(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A run of RTF markup reads as nothing, or as a line break where it holds ``\\par`` or
    ``\\line`` (a paragraph's or a line's end); an escape as its character: the document's text as
    a word processor shows it."""
    if match.group("hex"):
        char = bytes([int(match.group("hex"), 16)]).decode("cp1252", errors="replace")
        return [(char, match.start(), match.end())]
    return [("\n" if _RTF_BREAK.search(match.group()) else "", match.start(), match.end())]


_COLUMN = re.compile(r"(?m)(?P<above>\r?\n)?^[!-~]\r?\n(?:[!-~]\r?\n){14,}[!-~]\r?$")
"""Sixteen lines or more of one character each: a key written down a column (``fold -w1``, a
loop printing one character a line), which a reader reads across and a pattern does not; with the
line break above it, where the column continues a line (``token:`` and then the key)."""
_COLUMN_HINT = re.compile(r"\n[!-~]\r?\n[!-~]\r?\n[!-~]\r?\n")
_OVERSTRIKE = re.compile(r"[^\n\x08]\x08")
"""A character a backspace then strikes over: ``nroff`` and ``man`` output piped to a file write
bold as ``K\bK`` and underline as ``_\bK``, and a terminal shows the character struck last."""
_BASE64_BLOCK = re.compile(
    r"(?m)^[ \t]*[A-Za-z0-9+/]{16,}\r?\n(?:[ \t]*[A-Za-z0-9+/]{16,}\r?\n)*[ \t]*[A-Za-z0-9+/]+={0,6}[ \t]*$"
)
"""Two lines or more of base64 (or base32) alone: what ``base64`` and ``base32`` (76 columns),
``openssl base64`` and MIME (64 or 76) write when they wrap their output; a key inside is cut across
lines, so no line decodes to it."""
_BASE64_CHUNK = r"[A-Za-z0-9+/]+={0,2}"
_BASE64_CHUNKS = re.compile(
    rf"(?P<q>[\"'])[A-Za-z0-9+/]{{7}}{_BASE64_CHUNK}(?P=q)(?:\s*,\s*(?P=q){_BASE64_CHUNK}(?P=q))+"
)
"""Base64 (or base32) cut into chunks of one width (eight characters or more: a list of short words,
``["read", "list"]``, decoded to text now and then), the last no longer: quoted strings between
commas (a JSON array, a Python list: how a payload too long for one string is stored or sent
in parts), or three groups or more of eight characters or more between single spaces (``base64 |
fold -w8 | paste -sd' '``, :data:`_BASE64_GROUPS`; groups of four are :data:`_GROUPED`'s, and
narrower groups matched prose, words of four letters in a row). No chunk decodes to the key; the
chunks joined do."""
_BASE64_GROUPS = re.compile(
    r"(?<![\w+/=])(?P<q>)[A-Za-z0-9+/]{8,}(?: [A-Za-z0-9+/]{8,}){2,}(?: [A-Za-z0-9+/]{1,7})?={0,2}(?![\w+/=])"
)
_BASE64_GROUPS_HINT = re.compile(r" [A-Za-z0-9+/]{8,} [A-Za-z0-9+/]{8}")
"""Two groups between spaces, searched from a space (a literal first character is fast to find; the
groups' own pattern starts at every letter, a third of a second a megabyte of prose)."""
_QUOTED_CHUNK = re.compile(r"[\"']([A-Za-z0-9+/=]+)[\"']")
_BIG_NUMBER = re.compile(
    r"(?<![\w.])(?:0[xX](?P<hex>[0-9A-Fa-f]{16,1024})|(?P<decimal>[1-9][0-9]{19,1200}))(?![\w.])"
)
"""A number of eight bytes or more (twenty decimal digits, sixteen hex): text's bytes read as one
integer (Python's ``int.from_bytes``, a bignum library's ``toString()``), printed in decimal, or in
hex little-endian (big-endian hex is the bytes in order: :data:`_HEX_RUN` reads it). Capped at about
500 bytes, a long line's worth: a longer run of digits is no line of text, and decimal's conversion
costs the square of its length."""
_BIG_NUMBER_HINT = re.compile(r"[0-9]{20}|[xX][0-9A-Fa-f]{16}")
"""The cheap test before :data:`_BIG_NUMBER`: a pattern that opens with a lookbehind is tried at every
position of every text, one that opens with a character class is searched for."""
_WRAP_WIDTHS = (60, 512)
"""The widths a wrapped line may have: a terminal's (80 columns, 120, 132, a wide window's 200 and
more), ``fold``'s and a log viewer's; a text whose widest line is narrower or wider is not read as
wrapped (a line of thousands of characters is a document on one line, not a terminal's row)."""
_TERMINAL_WIDTHS = frozenset({72, 80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250, 256})
"""A terminal's, a pager's or ``fold``'s usual widths: a row exactly this wide, followed by a
narrower one, reads as a line cut there even where no other row shows the width
(:func:`_wrapped_breaks`)."""
_CUT_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-]{8}\\?\r?$")
"""The end of a row a terminal's own width cut inside a credential: eight token characters or more
(a row of a list ending in a number or a short word, a wheel's ``RECORD`` row's ``,986``, glued to
the next row's name read as a random token)."""
_TOKEN_HEAD = re.compile(r"[A-Za-z0-9+/=_\-]")
"""The start of the row after such a cut: the token goes on (no space, no bracket)."""
_WRAPPED_ROWS = 64
"""The most rows of one width in a row read as one line cut (5,120 characters at 80 columns). A longer
run is a block whose rows have one width (a dump, a base64 block, a table, ``ls`` columns), which
its own decoder reads if anything does; joined, a megabyte of such rows became one line scanned
again whole (2.6 times the cost)."""
_LINE_BREAK = re.compile(rf"(?<=[^\n]{{{_WRAP_WIDTHS[0]}}})\\?\r?\n(?=[^\n])(?!-----END )")
"""A line break after a line long enough to be a wrapped row, with the backslash a tool may mark the
cut with before it. Not the spaces after it: a terminal cuts a line wherever its width ends, a
space of the line's own at the next row's start as often as not (``PRIVATE`` / `` KEY``), so a row
continued under an indent cannot be told from that and is read as it stands. Not before an armored
block's ``-----END`` line either: its dashes are base64url characters, and glued to the last body
row they put the END line inside the body's pseudonym (``<REDACTED…> CERTIFICATE-----``)."""
_MARKED_WORDS = (
    "pass",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "key:",
    "key=",
    "key =",
    "cred",
    "auth",
    "bearer",
    "identified by",
    "private key",
    "akia",
    "ghp_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "glpat-",
    "sk_live_",
)
"""Words a line holding a credential often holds (its name, a vendor's prefix). A reversed or ROT13
line is looked at only where one of them reads reversed or in ROT13: each text passes the gate or
not in one search, and plain text almost never holds ``drowssap`` or ``cnffjbeq``. Not ``pw``:
backwards and in ROT13 it is ``wp`` and ``cj``, names code uses (``prec=wp``, ``cj: CookieJar``)."""
_ROT13 = str.maketrans(
    string.ascii_lowercase + string.ascii_uppercase,
    string.ascii_lowercase[13:]
    + string.ascii_lowercase[:13]
    + string.ascii_uppercase[13:]
    + string.ascii_uppercase[:13],
)
_ROT18 = str.maketrans(
    string.ascii_letters + string.digits,
    string.ascii_lowercase[13:]
    + string.ascii_lowercase[:13]
    + string.ascii_uppercase[13:]
    + string.ascii_uppercase[:13]
    + string.digits[5:]
    + string.digits[:5],
)
_PRINTABLE = "".join(map(chr, range(33, 127)))
_ROT47 = str.maketrans(_PRINTABLE, _PRINTABLE[47:] + _PRINTABLE[:47])


def rotations(value: str) -> tuple[str, str, str]:
    """``value`` in ROT13, ROT18 and ROT47, the rotations ``tr`` one-liners and ``codecs`` apply to
    hide a string (each is its own inverse, so the copy of a rotated value is the clear one too)."""
    return value.translate(_ROT13), value.translate(_ROT18), value.translate(_ROT47)


_REVERSED_WORDS = "|".join(re.escape(word[::-1]) for word in (*_MARKED_WORDS, "pw:"))
"""``pw:`` marks a line backwards as ``:wp``, which code does not write. In ROT13 it is ``cj:``, a
cookie jar's parameter (``cj: CookieJar``), so there only ``cj:`` glued to what follows marks one
(``pw:x`` as ``cj:k``; an annotation has a space after its colon)."""
_ROT13_WORDS = "|".join([*(re.escape(word.translate(_ROT13)) for word in _MARKED_WORDS), r"cj:(?=\S)"])
_REVERSED_MARK = re.compile(rf"(?:{_REVERSED_WORDS})(?![a-z0-9])")
_ROT13_MARK = gated_alternation(_ROT13_WORDS, lookbehind="(?<![a-z0-9])")
"""A marked word at a word's start as the line reads decoded (``=wp3c...`` in a base64 digest is
not ``pw=`` backwards), searched for in the lowercased text: in ``re`` a case-insensitive
alternation costs several times a lowercase copy and a case-sensitive one."""
_REVERSED_LINE = re.compile(rf"(?im)^[^\n]*?{_REVERSED_MARK.pattern}[^\n]*")
_ROT13_LINE = re.compile(rf"(?im)^[^\n]*?(?<![a-z0-9])(?:{_ROT13_WORDS})[^\n]*")
"""The lines holding one, anchored at line starts so a search reads each line once."""
_lowercase = functools.lru_cache(maxsize=1)(str.lower)
"""``text.lower()``, one copy for the reversed and the ROT13 gates, asked one after the other."""
SAME_RANDOMNESS_DECODERS = frozenset({"reversed", "rot13"})
"""Decoders that move or substitute characters one for one: a token is as random in their view as
in the text they read, where it was scored already, and the view loses the context that exempts a
digest (``sha256=`` reversed). Their views are scanned without the entropy detectors."""
SEAM_DECODERS = frozenset({"wrapped", "jwt_rows"})
"""Decoders that only join pieces of a line (rows a terminal cut at its width): what their view can
show that the raw text cannot is a value across a join, or one that starts a row under the label
that ends the row above. A finding elsewhere in it is a row read with the end of the row above as
its context, which tables and dumps (rows of one width too) turn into nonsense (``xxd``'s column,
``...ACCES``, reads as a label of the next row's offset and codes), so such findings are dropped."""
SEAM_REACH = 6
"""How far before a finding a join still counts as its (``passwor`` / ``d=dipPr...``: a label cut
within its last characters). Less than a dump row's offset and the space after it (eight to ten
characters), so a dump's rows joined still give their codes no label."""
B85_ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase + "!#$%&()*+-;<=>?@^_`{|}~"
"""RFC 1924's base85 digits in order (Python's ``b85encode``, git's binary patches)."""
_A85_ALPHABET = "".join(map(chr, range(ord("!"), ord("u") + 1)))
"""Ascii85's digits in order."""
_BASE85 = f"[{re.escape(B85_ALPHABET)}]"
_GIT_BINARY = re.compile(
    rf"(?m)^GIT binary patch\r?\n(?:literal|delta) \d+\r?\n(?P<body>(?:[A-Za-z]{_BASE85}+(?:\r?\n|\Z))+)"
)
"""A ``git diff --binary`` hunk: lines of base85 (RFC 1924), each led by a letter giving its byte
count, of zlib-deflated file content (``literal``) or delta (``delta``)."""
_ASCII85 = re.compile(r"<~[!-uz\s]{10,}?~>")
"""Adobe ascii85 (PostScript, PDF, ``base64.a85encode(..., adobe=True)``), between its delimiters."""
_MIN_BASE85 = 20
"""The shortest base85 value read: sixteen bytes, a short line such as ``Password:Prl23Db#``."""
_BARE_BASE85 = re.compile(rf"(?<!{_BASE85}){_BASE85}{{{_MIN_BASE85},}}")
"""A run of RFC 1924 base85 (Python's ``base64.b85encode``) long enough to carry a credential."""
_BASE85_ONLY = re.compile(r"[!#$%&()*;<>?@^`{|}~]")
"""Base85 characters that base64, hex and identifiers never hold: text encoded in base85 has some
in nearly every run of twenty (about one character in five), an identifier or a base64 token none."""
_BARE_ASCII85 = re.compile(rf"(?<![!-u])[!-u]{{{_MIN_BASE85},}}")
"""A run of ascii85 without Adobe's delimiters (``base64.a85encode``'s default). Both runs are
tried only where one starts: inside a shorter run each position would be tried again, quadratic
in its length."""
_ASCII85_ONLY = re.compile(r"[!\"#$%&'(),.:;<>?@\[\\\]^`]")
_LABEL_END = re.compile(r"[=:(\[{<\"'`]")
_LABEL_REACH = 48
_CLOSER_OF = {'"': '"', "'": "'", "`": "`", "(": ")", "[": "]", "{": "}", "<": ">"}
"""The character that closes a value opened by a quote or bracket: a decoder would read it, and
whatever follows it in the run, as the encoding's last group."""
_PROBE_GROUPS = 2
"""Groups of five characters decoded first: a run that is not base85 of text reads as noise within
eight bytes, so only runs that are pay for decoding whole (in pure Python) and for a scan."""
_LABELS_TRIED = 4
"""Label characters a value is looked for after (``decode(b'...``: three)."""
INFLATE_LIMIT = 1 << 20
"""The most bytes a compressed block is inflated to: a small block that would inflate to gigabytes
is read up to here, never all."""
_PRINTABLE_RUN = re.compile(r"[\t\n\r -~]{8,}")
MAX_DEPTH = 3
"""Encodings undone in a row (a view's view's view): percent-encoded twice, hex of base85, ``\\u``
escapes of HTML entities. Any decoder after any other: on every fifth Python file of the stdlib
and site-packages (88 MB), lifting the earlier same-decoder-only rule added one finding, a real
e-mail address under ANSI codes under ``\\u`` escapes."""


@dataclass(frozen=True)
class DecodedView:
    """``text`` decoded, as segments ``(decoded_start, raw_start, raw_end, literal)``: a literal
    segment maps character for character, a decoded one maps each of its characters to the
    whole raw span that encoded it. A view of a view keeps its ``parent``, so spans map through
    both decodings to the raw text."""

    name: str
    text: str
    segments: list[tuple[int, int, int, bool]]
    parent: DecodedView | None = None

    def _raw(self, index: int) -> tuple[int, int]:
        decoded_start, raw_start, raw_end, literal = self.segments[
            bisect.bisect_right(self.segments, (index, 1 << 62)) - 1
        ]
        if literal:
            offset = raw_start + index - decoded_start
            return offset, offset + 1
        return raw_start, raw_end

    def changed_lines(self) -> list[tuple[int, int]]:
        """The spans of :attr:`text` whose lines hold a decoded character, merged: where a secret the
        raw text hides can be, with the context a detector reads on its line (``password = ...``).
        The rest of a view is the raw text itself, already scanned."""
        spans: list[tuple[int, int]] = []
        previous_raw_end = 0
        for index, (decoded_start, raw_start, raw_end, literal) in enumerate(self.segments):
            removed = literal and raw_start != previous_raw_end  # an escape decoded to nothing
            previous_raw_end = raw_end
            if literal and not removed:
                continue
            decoded_end = (
                decoded_start
                if literal
                else self.segments[index + 1][0]
                if index + 1 < len(self.segments)
                else len(self.text)
            )
            start = self.text.rfind("\n", 0, decoded_start) + 1
            newline = self.text.find("\n", decoded_end)
            end = len(self.text) if newline < 0 else newline
            if spans and start <= spans[-1][1] + 1:
                spans[-1] = (spans[-1][0], max(spans[-1][1], end))
            else:
                spans.append((start, end))
        return spans

    def joins(self) -> list[int]:
        """Where in :attr:`text`, in order, raw text that decoded to nothing was dropped."""
        return [
            self.segments[index][0]
            for index in range(1, len(self.segments))
            if self.segments[index][1] != self.segments[index - 1][2]
        ]

    def decoded_within(self, start: int, end: int) -> tuple[int, int] | None:
        """The part of ``start:end`` (exclusive) from its first decoded character to its last, or
        ``None`` when it holds none: in a list's view (:data:`LIST_DECODERS`) the raw text around
        the characters it decoded is the list's structure (its bracket, quotes and commas), never
        part of a value a detector reads across it (``password = [S3cr...`` begins at ``S``)."""
        decoded = [index for index in range(start, end) if not self._literal(index)]
        return (decoded[0], decoded[-1] + 1) if decoded else None

    def _literal(self, index: int) -> bool:
        return self.segments[bisect.bisect_right(self.segments, (index, 1 << 62)) - 1][3]

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span covering decoded characters ``start`` to ``end`` (exclusive); a view that
        reads the raw text backwards maps its first character to the span's end."""
        first, last = self._raw(start), self._raw(end - 1)
        span = min(first[0], last[0]), max(first[1], last[1])
        return self.parent.raw_span(*span) if self.parent else span


def _byte_escapes(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A run of ``%XX`` (URL) or ``=XX`` (quoted-printable) bytes, decoded as UTF-8."""
    raw = bytes.fromhex(match.group()[1:].replace(match.group()[0], ""))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return []
    if len(text) != len(raw):  # multi-byte characters: keep it simple, map them as one block
        return [(text, match.start(), match.end())]
    return [(ch, match.start() + 3 * i, match.start() + 3 * i + 3) for i, ch in enumerate(text)]


def _form_encoded(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A form-encoded value (``quote_plus``, an HTML form's body or query): ``+`` is a space and
    ``%XX`` a byte, in a word that holds both (a bare ``a+b`` is arithmetic or base64)."""
    if "%" not in match.group():
        return []
    pieces: list[tuple[str, int, int]] = []
    for part in _FORM_PART.finditer(match.string, match.start(), match.end()):
        if part.group() == "+":
            pieces.append((" ", part.start(), part.end()))
        elif part.group()[0] == "%":
            pieces.extend(_byte_escapes(part) or [(part.group(), part.start(), part.end())])
        else:
            pieces.extend((char, index, index + 1) for index, char in enumerate(part.group(), part.start()))
    return pieces


def _quoted_printable_text(text: str) -> bool:
    """Does ``text`` show itself quoted-printable (:data:`_QUOTED_PRINTABLE_MARK`, :data:`_QP_HEADER`)?"""
    if _QP_HEADER.search(text):
        return True
    for mark in _QUOTED_PRINTABLE_MARK.finditer(text):
        before = text[mark.start() - 1] if mark.start() else ""
        code = mark.group()[1:]
        if code == "3D" and before and not before.isdigit() and before != "=":
            return True
        if code == "20" and before.isalpha() and text[mark.end() : mark.end() + 1].isalpha():
            return True
        if code in ("3D", "20") and (
            _ONE_QP_ESCAPE.match(text, mark.end())
            or _ONE_QP_ESCAPE.fullmatch(text, max(0, mark.start() - 3), mark.start())
        ):
            return True
        if code[0] in "\r\n" and mark.start() - (text.rfind("\n", 0, mark.start()) + 1) == 75:
            return True
        line_end = text.find("\n", mark.end())
        if code == "00" and text.count("=00", mark.end(), line_end if line_end >= 0 else len(text)) >= 2:
            return True
    return False


def _quoted_printable(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A soft line break (``=`` ending a line: the encoder wrapped it) joins the lines; a run of
    ``=XX`` escapes is its bytes."""
    return [("", match.start(), match.end())] if match.group()[1] in "\r\n" else _byte_escapes(match)


def _unicode_escape(match: re.Match[str]) -> list[tuple[str, int, int]]:
    octal = match.group("printf_octal") or match.group("octal")
    hexadecimal = (match.group(name) for name in ("u", "x", "U", "brace", "percent_u", "code_point"))
    code = int(octal, 8) if octal else int(next(h for h in hexadecimal if h), 16)
    return [(chr(code), match.start(), match.end())] if code <= sys.maxunicode else []


def _coded_characters(
    match: re.Match[str], code: re.Pattern[str], base: int | None
) -> list[tuple[str, int, int]]:
    """Each ``code`` match inside ``match`` as its character (group 1 the number, in ``base``, else
    read as :func:`_number` reads it), printable ASCII only: other numbers build data, not text."""
    start = match.start()
    found = list(code.finditer(match.group()))
    numbers = [int(f.group(1), base) if base else _number(f.group(1)) for f in found]
    if not all(32 <= number < 127 for number in numbers):
        return []
    return [(chr(n), start + f.start(), start + f.end()) for n, f in zip(numbers, found, strict=True)]


def _number(literal: str) -> int:
    """A number as code writes it: ``0x41`` and VB's ``&H41`` hex, ``0101`` (a leading zero) C's
    octal, else decimal."""
    if literal[:2] in ("0x", "0X", "&h", "&H"):
        return int(literal[2:], 16)
    if len(literal) > 1 and literal[0] == "0":
        return int(literal, 8) if literal.isdigit() and "8" not in literal and "9" not in literal else -1
    return int(literal)


_CALL_ARGUMENT = re.compile(r"[()\]]\s*(0[xX][0-9A-Fa-f]{2}|&[hH][0-9A-Fa-f]{2}|\d+)")
_CSS_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2,6}) ?")


def _chr_calls(match: re.Match[str]) -> list[tuple[str, int, int]]:
    return _coded_characters(match, _CALL_ARGUMENT, None)


def _css_escapes(match: re.Match[str]) -> list[tuple[str, int, int]]:
    return _coded_characters(match, _CSS_ESCAPE, 16)


def _backslash_escape(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """``\\"``, ``\\\\\\"``, ``\\n``: a JSON string escaped once or many times inside text that is
    not itself JSON (a log line quoting a document), every level undone at once."""
    char = match.group(1)
    return [(_ESCAPED.get(char, char), match.start(), match.end())]


def _entity(match: re.Match[str]) -> list[tuple[str, int, int]]:
    text = html.unescape(match.group())
    return [] if text == match.group() else [(text, match.start(), match.end())]


def _text_byte(byte: int) -> bool:
    """Printable ASCII, a tab or a line break: what hex of text decodes to (a digest does not)."""
    return 32 <= byte < 127 or byte in (9, 10, 13)


def _text_bytes(shown: list[int]) -> int:
    """How many of a dump's bytes are text (:func:`_text_byte`), a NUL after a printable byte
    counted as text too: it ends an argument or a variable of ``/proc/PID/cmdline`` or ``environ``
    (the ``argv_separators`` view reads it as a space), one in every ten bytes or so, where a binary
    file's NULs come in runs."""
    return sum(
        _text_byte(byte) or (byte == 0 and index > 0 and 32 < shown[index - 1] < 127)
        for index, byte in enumerate(shown)
    )


def _hex(match: re.Match[str]) -> list[tuple[str, int, int]]:
    start = match.start("hex")
    raw = bytes.fromhex(match.group("hex"))
    width = 2
    if _utf16le(raw):  # ASCII text as Windows encodes it: four hex digits a character
        raw, width = raw[::2], 4
    elif _utf16be(raw):  # or as Java does, its byte-order mark first
        mark = 4 if raw[:2] == b"\xfe\xff" else 0
        start, raw, width = start + mark, raw[mark // 2 + 1 :: 2], 4
    if not all(map(_text_byte, raw)):  # digests and binary blobs decode to noise: not text
        return _compressed(match, raw if width == 2 else b"")
    return [(chr(b), start + width * i, start + width * (i + 1)) for i, b in enumerate(raw)]


def _compressed(match: re.Match[str], raw: bytes) -> list[tuple[str, int, int]]:
    """Bytes written as hex that are compressed text (``xxd -p creds.env.gz``, a ``.hex()`` of
    ``zlib.compress``): the text, every character mapped to the whole run, as base64 of compressed
    text is (:func:`bytes_as_text`); other binary, nothing."""
    text = compressed_text(raw) if raw else None
    return [(text, match.start(), match.end())] if text else []


def _hex_bytes(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """``41 4b 49 41 ...``, ``41:4b:...`` or ``41-4B-...``: one byte every three characters,
    printable text only (a fingerprint or a dump of binary decodes to noise)."""
    if match.start() and (
        match.string[match.start() - 1].isalnum() or match.string[match.start() - 1] in ":-"
    ):
        return []  # the tail of a longer run (a fingerprint's ``MD5:9d:38:...``), not its start
    raw = bytes.fromhex(re.sub("[:-]", " ", match.group()))
    if not all(map(_text_byte, raw)):
        return _compressed(match, raw)
    return [(chr(b), match.start() + 3 * i, match.start() + 3 * i + 2) for i, b in enumerate(raw)]


_HEX_LETTER = re.compile(r"[A-Fa-f]")


_ROW_OFFSET_BEFORE = re.compile(r"[0-9a-fA-F]{6,8}:[ \t]+$")
"""An ``xxd`` row's offset just before its groups: the ``dump`` view reads that row whole, its bytes
joined to the rows around it and its character column with them. Read here, the row's bytes stood
beside its own character column (``=changeme\nSECRET  =changeme.SECRET``), a label met the column's
copy of the next line's text as its value, and a placeholder's rows were replaced."""


def _hex_groups(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Groups of four hex digits read as their bytes, each mapped to its two digits; printable text
    only. A run of digits alone is a table of numbers far more often than hex (years, ports, ``2024
    2025`` reads as `` $ %``), and text in hex almost always holds a letter digit (every byte
    ``xA`` to ``xF`` or ``Ax`` to ``Fx``), so a run without one is left alone."""
    if _HEX_LETTER.search(match.group()) is None or _ROW_OFFSET_BEFORE.search(
        match.string, max(0, match.start() - 12), match.start()
    ):
        return []
    digits = [(at, at + 2) for at in range(match.start(), match.end(), 5)]
    digits += [(at + 2, at + 4) for at in range(match.start(), match.end() - 2, 5)]
    digits.sort()
    raw = bytes(int(match.string[start:end], 16) for start, end in digits)
    if not all(map(_text_byte, raw)):
        return []
    return [(chr(byte), start, end) for byte, (start, end) in zip(raw, digits, strict=True)]


def _dump(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Rows of a byte dump (:mod:`.dumps`) read as the bytes they show, consecutive rows joined, so
    a key cut across rows reads whole; a run of rows whose bytes are not text (a binary file, a
    list of digests), and any line that is not a row, stays as it stands."""
    runs = dump_runs(match.group(), match.start())
    text = [
        len(shown) >= 8 and _text_bytes([byte for byte, _, _ in shown]) >= 0.95 * len(shown)
        for *_, shown in runs
    ]
    if not any(text):
        return []
    pieces: list[tuple[str, int, int]] = []
    for index, (start, end, shown) in enumerate(runs):
        if index:
            pieces.append(("\n", start - 1, start))
        if text[index]:
            pieces.extend((chr(byte), raw_start, raw_end) for byte, raw_start, raw_end in shown)
        else:
            pieces.extend((char, at, at + 1) for at, char in enumerate(match.string[start:end], start))
    return pieces


def bytes_as_text(raw: bytes) -> str:
    """Decoded bytes as text: inflated first when they are gzip or zlib data (``H4sI...``, a
    compressed payload in base64), then UTF-16LE when every second byte is zero (ASCII text as
    Windows encodes it: PowerShell's ``-EncodedCommand`` is base64 of UTF-16LE) or UTF-16BE when
    every first one is (Java's), else UTF-8 (raises ``UnicodeDecodeError`` for neither)."""
    raw = inflated(raw) or raw
    wide = _wide_encoding(raw)
    return raw.decode(wide).lstrip("\ufeff") if wide else raw.decode("utf-8")


def inflated(raw: bytes) -> bytes | None:
    """gzip or zlib data inflated, up to :data:`INFLATE_LIMIT` bytes; None for anything else (by
    its header: gzip's magic, or zlib's deflate method and header checksum) or a broken stream."""
    if raw[:2] == b"\x1f\x8b":
        window = 16 + zlib.MAX_WBITS
    elif len(raw) >= 2 and raw[0] & 0x0F == 8 and (raw[0] << 8 | raw[1]) % 31 == 0:
        window = zlib.MAX_WBITS
    else:
        return None
    try:
        return zlib.decompressobj(window).decompress(raw, INFLATE_LIMIT)
    except zlib.error:
        return None


_RAW_DEFLATE_MIN = 8
"""The fewest bytes read as raw DEFLATE: a shorter run holds no line worth inflating."""


def raw_inflated(raw: bytes) -> bytes | None:
    """Raw DEFLATE data (no header: PHP's ``gzdeflate``, .NET's ``DeflateStream``, a SAML
    HTTP-Redirect message) inflated, up to :data:`INFLATE_LIMIT` bytes. Without a header only the
    stream's own end tells deflate data from other bytes, so it counts only where its last block
    ends exactly at the last byte: a random key or a digest breaks off or runs on (a stream of
    random bits hits an invalid code or a distance before its start within a few bytes), so the
    test costs next to nothing on the tokens it turns down."""
    if len(raw) < _RAW_DEFLATE_MIN:
        return None
    stream = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = stream.decompress(raw, INFLATE_LIMIT)
    except zlib.error:
        return None
    return out if out and stream.eof and not stream.unused_data else None


_COMPRESSED_BASE64_HEAD = ("H4sI", "eJ", "eN", "eF", "eA")
"""How base64 of gzip data (``1f 8b 08``) and of zlib data (``78 9c``, ``78 da``, ``78 5e``,
``78 01``) begins."""


def inflates_past_limit(token: str) -> bool:
    """Is ``token`` base64 of gzip or zlib data that inflates past :data:`INFLATE_LIMIT`? What lies
    beyond the limit is never read, and padding compresses so well that the blob scores as no
    key: a secret after a megabyte of filler kept the whole blob. Such a blob fails closed (the
    caller replaces it), as no scan can vouch for it."""
    if not token.startswith(_COMPRESSED_BASE64_HEAD) or len(token) < 64:
        return False
    bare = token.rstrip("=")
    altchars = b"-_" if "-" in bare or "_" in bare else None
    try:
        raw = base64.b64decode(bare + "=" * (-len(bare) % 4), altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return False
    window = 16 + zlib.MAX_WBITS if raw[:2] == b"\x1f\x8b" else zlib.MAX_WBITS
    stream = zlib.decompressobj(window)
    try:
        stream.decompress(raw, INFLATE_LIMIT)
    except zlib.error:
        return False
    return not stream.eof and bool(stream.unconsumed_tail)


def _utf16le(raw: bytes) -> bool:
    """Every second byte zero: ASCII text in UTF-16LE."""
    return len(raw) >= 4 and len(raw) % 2 == 0 and not any(raw[1::2])


def _utf16be(raw: bytes) -> bool:
    """Every first byte of two zero: ASCII text in UTF-16BE (Java's ``getBytes("UTF-16")`` after
    its ``fe ff`` byte-order mark, .NET's ``BigEndianUnicode``)."""
    body = raw[2:] if raw[:2] == b"\xfe\xff" else raw
    return len(body) >= 4 and len(body) % 2 == 0 and not any(body[::2])


def _wide_encoding(raw: bytes) -> str | None:
    """The UTF-32 or UTF-16 byte order ASCII text ``raw`` is written in, if it is one (UTF-32 first:
    its every second byte is zero too)."""
    if len(raw) >= 8 and len(raw) % 4 == 0:
        if not any(raw[1::4] + raw[2::4] + raw[3::4]):
            return "utf-32-le"
        if not any(raw[0::4] + raw[1::4] + raw[2::4]):
            return "utf-32-be"
    return "utf-16-le" if _utf16le(raw) else "utf-16-be" if _utf16be(raw) else None


def mostly_printable(text: str) -> bool:
    """Text, not binary read as text: 95% of it printable or a line break or tab."""
    return sum(ch.isprintable() or ch in "\n\r\t" for ch in text) >= 0.95 * len(text)


_BASE32_TOKEN = re.compile(r"[A-Z2-7]+|[a-z2-7]+")
_BASE32_PADDING = {0: 0, 2: 6, 4: 4, 5: 3, 7: 1}
"""Padding RFC 4648 base32 needs after a run whose length is this modulo 8 (absent keys: no input
length encodes to that many characters)."""


def encoded_text(token: str) -> str | None:
    """The text a token encodes: RFC 4648 base32 (``b32encode``, either case, padded or not) when
    its alphabet allows and it decodes to text, else base64 (standard or URL-safe, padded or not);
    ``None`` when it decodes to neither (a random key or an identifier)."""
    bare = token.rstrip("=")
    padding = _BASE32_PADDING.get(len(bare) % 8)
    if padding is not None and _BASE32_TOKEN.fullmatch(bare):
        text = _text_of(base64.b32decode, bare.upper() + "=" * padding)
        if text is not None:
            return text
    if len(bare) % 4 == 1:
        return None
    altchars = b"-_" if "-" in bare or "_" in bare else None
    padded = bare + "=" * (-len(bare) % 4)
    return _text_of(lambda chars: base64.b64decode(chars, altchars=altchars, validate=True), padded)


_BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_TOKEN = re.compile(f"[{_BASE58_ALPHABET}]{{20,400}}")
_BASE58_DIGITS = {char: index for index, char in enumerate(_BASE58_ALPHABET)}


def base58_text(token: str) -> str | None:
    """The text a base58 token (Bitcoin's alphabet: no ``0``, ``O``, ``I``, ``l``) encodes, when it
    encodes text: base58 of a sentence looks as random as a key, and is none."""
    if not _BASE58_TOKEN.fullmatch(token):
        return None
    number = 0
    for char in token:
        number = number * 58 + _BASE58_DIGITS[char]
    zeros = len(token) - len(token.lstrip("1"))
    return _printable_text(b"\0" * zeros + number.to_bytes((number.bit_length() + 7) // 8, "big"))


def _text_of(decode: Callable[[str], bytes], token: str) -> str | None:
    """``token`` decoded, when it decodes to text."""
    try:
        raw = decode(token)
    except (binascii.Error, ValueError):  # not this encoding
        return None
    return _printable_text(raw)


def _printable_text(raw: bytes) -> str | None:
    """Decoded bytes as text (:func:`bytes_as_text`), when they are text and not binary; bytes that
    are no text may be raw DEFLATE of text (:func:`raw_inflated`)."""
    text = _text_or_none(raw)
    if text is None and (deflated := raw_inflated(raw)) is not None:
        text = _text_or_none(deflated)
    return text


def _text_or_none(raw: bytes) -> str | None:
    try:
        text = bytes_as_text(raw)
    except ValueError:  # not UTF-8 text
        return None
    return text if mostly_printable(text) else None


def compressed_text(raw: bytes) -> str | None:
    """The text gzip, zlib or raw DEFLATE data ``raw`` inflates to; None for anything else. For
    decoders that read bytes written out digit by digit (hex): what they decode is text only here."""
    deflated = inflated(raw) or raw_inflated(raw)
    return None if deflated is None else _text_or_none(deflated)


def _base64_block(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A wrapped base64 or base32 block (lines of one width, the last no longer) that decodes to
    text: the text, every character of it mapped to the whole block (a finding replaces it all).
    Binary (an image, a certificate body, a list of digests) decodes to noise and is left alone."""
    text = _block_text(match.group())
    return [(text, match.start(), match.end())] if text else []


def _block_text(block: str) -> str | None:
    lines = [line.strip() for line in block.splitlines()]
    width = len(lines[0])
    if any(len(line) != width for line in lines[1:-1]) or len(lines[-1].rstrip("=")) > width:
        return None
    return encoded_text("".join(lines))


def _base64_chunks(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The chunks joined, when all but the last have one width and the last is no wider, and the
    whole decodes to text (:func:`encoded_text`), mapped from the first chunk's start to the last
    one's end: the quotes around the list stay, so a finding's pseudonym stays a quoted string and
    a JSON array a valid document."""
    quoted = match.group("q")
    if quoted:
        found = list(_QUOTED_CHUNK.finditer(match.string, match.start(), match.end()))
        chunks = [chunk.group(1) for chunk in found]
        start, end = found[0].start(1), found[-1].end(1)
    else:
        chunks = match.group().split(" ")
        start, end = match.start(), match.end()
    width = len(chunks[0])
    if any(len(chunk) != width for chunk in chunks[1:-1]) or len(chunks[-1].rstrip("=")) > width:
        return []
    text = encoded_text("".join(chunks))
    return [(text, start, end)] if text else []


def _big_number(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The number's bytes, most significant first (decimal only) and last, where they are printable
    text, mapped to the whole number: text read either way round is text, so both orders that are
    make the view, a line each."""
    hex_digits = match.group("hex")
    number = int(hex_digits, 16) if hex_digits else int(match.group("decimal"))
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    orders = (raw[::-1],) if hex_digits else (raw, raw[::-1])
    texts = [order.decode("ascii") for order in orders if all(map(_text_byte, order))]
    return [("\n".join(texts), match.start(), match.end())] if texts else []


def _wrapped_line_break(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A line break (and a backslash marking the cut) dropped where :func:`_wrapped_breaks` says a
    terminal, ``fold`` or a pager cut the line there at its width."""
    line_break = match.string.index("\n", match.start())
    if ROW_OPENS.match(match.string, line_break + 1):
        return []  # a dump's next row: its rows are one width, as a terminal's cut rows are, and never cut
    return [("", match.start(), match.end())] if line_break in _wrapped_breaks(match.string) else []


@functools.lru_cache(maxsize=4)
def _wrapped_breaks(text: str) -> frozenset[int]:
    """Where ``text``'s lines look cut at a width: after each row as wide as its widest line, when
    two rows or more that another line follows are that wide (a terminal cuts every line longer
    than its width into rows of exactly that width, so a line three rows long or two long lines
    make two; a text whose widest line is one of a kind, a wheel's ``RECORD`` or code, shows no
    width, and its widest line glued to the next made a random-looking token of two unrelated
    ones), and the run of such rows is at most :data:`_WRAPPED_ROWS` long. Also after each run of
    rows as wide as a terminal's own width (:data:`_TERMINAL_WIDTHS`), a lone row included, that a
    narrower row ends: one long line cut once shows no width of the text's, and a text wider than
    the terminal (prose an agent wrote around a pasted capture) hides the capture's."""
    lines = text.split("\n")
    widths = [len(line.rstrip("\r")) for line in lines]
    widest = max(widths)
    breaks: set[int] = set()
    if _WRAP_WIDTHS[0] <= widest <= _WRAP_WIDTHS[1] and widths[:-1].count(widest) >= 2:
        breaks.update(_row_runs(lines, widths, widest, ended_narrower=False))
    for width in _TERMINAL_WIDTHS.intersection(widths[:-1]):
        runs = _row_runs(lines, widths, width, ended_narrower=True)
        breaks.update(
            cut for cut in runs if _CUT_TOKEN.search(text, 0, cut) and _TOKEN_HEAD.match(text, cut + 1)
        )
    return frozenset(breaks)


def _row_runs(lines: list[str], widths: list[int], width: int, *, ended_narrower: bool) -> list[int]:
    """The line breaks after the rows ``width`` wide, in runs of at most :data:`_WRAPPED_ROWS` rows;
    with ``ended_narrower``, only runs that a row narrower than ``width`` (a cut line's last) ends."""
    breaks: list[int] = []
    run: list[int] = []
    position = -1
    for line, line_width, next_width in zip(lines[:-1], widths, widths[1:], strict=False):
        position += len(line) + 1
        if line_width != width:
            run = []
            continue
        run.append(position)
        if next_width != width:
            if len(run) <= _WRAPPED_ROWS and (not ended_narrower or next_width < width):
                breaks.extend(run)
            run = []
    if run and len(run) <= _WRAPPED_ROWS and not ended_narrower:
        breaks.extend(run)  # rows of the width up to the text's last line
    return breaks


def _wrapped_at_width(text: str) -> bool:
    """Could ``text`` be rows a terminal wrapped (:func:`_wrapped_breaks`)?"""
    return "\n" in text and bool(_wrapped_breaks(text))


_JWT_BREAK = re.compile(r"\\?\r?\n[ \t]*")
"""A line break inside a JSON Web Token (a backslash marking the cut, the next row's indent): where
:func:`_jwt_breaks` says one is."""
_JWT_START = re.compile(literal_first(r"(?<![\w\-+/.])", "eyJ"))
_JWT_PIECE = re.compile(r"[A-Za-z0-9_\-+/=.]+")
_JWT_SIGNATURE_BYTES = {
    "HS256": (32,),
    "HS384": (48,),
    "HS512": (64,),
    "ES256": (64,),
    "ES256K": (64,),
    "ES384": (96,),
    "ES512": (132,),
    "EdDSA": (64,),
    "Ed25519": (64,),
}
"""The length of a JSON Web Signature by its ``alg`` (RFC 7518 §3.2, §3.4; RFC 8037); RSA's
(``RS*``, ``PS*``) is its modulus': :data:`_RSA_SIGNATURE_BYTES`."""
_RSA_SIGNATURE_BYTES = (128, 256, 384, 512)
_JWT_REACH = 8192
"""How far a token is followed across rows (a bound: an RSA-signed token with a large payload)."""
_JWT_HEADER_REACH = 2048
"""The longest header followed (a ``kid`` and a ``jku`` fit; a certificate chain in ``x5c`` may not)."""


def _unpadded_base64(segment: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(segment.rstrip("=") + "=" * (-len(segment.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return None


def _jwt_header(segment: str) -> dict[str, object] | None:
    """A JWT's header: base64url of a JSON object naming its ``alg``; else None."""
    raw = _unpadded_base64(segment)
    try:
        header = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        return None
    return header if isinstance(header, dict) and isinstance(header.get("alg"), str) else None


def _signature_lengths(alg: str) -> frozenset[int]:
    """How many base64url characters, unpadded, a signature by ``alg`` is written in."""
    sizes = _RSA_SIGNATURE_BYTES if alg[:2] in ("RS", "PS") else _JWT_SIGNATURE_BYTES.get(alg, ())
    return frozenset(-(-size * 4 // 3) for size in sizes)


@functools.lru_cache(maxsize=4)
def _jwt_breaks(text: str) -> frozenset[int]:
    """The line breaks inside a JSON Web Token cut across rows: an HTTP header folded under an
    indent, a token pasted from a narrow terminal or a CRLF log, a YAML scalar folded at its width.
    Each row alone is too short a piece to be read as a token, so the rows around a pseudonym stood
    (red team rtsec15). A token is followed across breaks only while its parts say so: the header
    decodes to a JSON object naming its ``alg``, the payload (the second segment, joined from its
    rows) decodes to JSON, and the signature's rows are taken only until it is as long as a
    signature by that ``alg`` is, so the word on the row after it is never glued on. A row that
    holds a whole JSON object, or bytes that are no text, and no dot (a base64 cursor a line,
    ``eyJwYWdl...``) is no header or payload cut short, unless the next row opens with the dot:
    followed on, a log of such rows was read row after row from each of them (16 s on 600 kB)."""
    breaks: list[int] = []
    for start in _JWT_START.finditer(text):
        position, joined = start.start(), ""
        taken: list[int] = []
        while (piece := _JWT_PIECE.match(text, position)) is not None:
            joined, position = joined + piece.group(), piece.end()
            segments = joined.split(".")
            header = _jwt_header(segments[0]) if len(segments) > 1 else None
            lengths = _signature_lengths(str(header["alg"])) if header is not None else frozenset()
            if len(segments) > 1 and not lengths or len(segments) > 3:
                break  # no header, an alg of no known signature length, or more than three parts
            if _whole_jwt(joined):
                breaks.extend(taken)
                break
            cut = _JWT_BREAK.match(text, position)
            if cut is None or cut.end() - start.start() > _JWT_REACH:
                break
            if len(segments) == 3 and len(segments[2]) >= max(lengths):
                break
            reach = _JWT_HEADER_REACH if len(segments) == 1 else _JWT_REACH
            if len(segments) < 3 and not text.startswith(".", cut.end()) and _ended(segments[-1], reach):
                break
            taken.append(cut.start())
            position = cut.end()
    return frozenset(breaks)


def _ended(segment: str, reach: int) -> bool:
    """Is ``segment``, a token's header or payload so far, no part cut short: longer than ``reach``
    (a header's is :data:`_JWT_HEADER_REACH`), bytes that are no text (random base64 that opens
    with ``eyJ``), or a whole JSON value already (the caller saw no dot after it)?"""
    if len(segment) > reach:
        return True
    whole = len(segment) // 4 * 4
    raw = _unpadded_base64(segment[:whole]) or b""
    try:
        shown = raw.decode("utf-8", "ignore" if whole < len(segment) else "strict")
    except UnicodeDecodeError:
        return True
    if not shown.isprintable():
        return True
    try:
        json.loads(_unpadded_base64(segment) or b"")
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def _whole_jwt(joined: str) -> bool:
    """Is ``joined`` a whole signed JWT: a header naming its ``alg``, a JSON payload and a signature
    as long as that ``alg`` writes one?"""
    segments = joined.split(".")
    header = _jwt_header(segments[0]) if len(segments) == 3 else None
    payload = _unpadded_base64(segments[1]) if header is not None else None
    return (
        header is not None
        and payload is not None
        and payload[:1] in (b"{", b"[")
        and len(segments[2]) in _signature_lengths(str(header["alg"]))
    )


def _jwt_line_break(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A line break dropped where :func:`_jwt_breaks` says it cuts a JSON Web Token."""
    return [("", match.start(), match.end())] if match.start() in _jwt_breaks(match.string) else []


def _cut_jwt(text: str) -> bool:
    """Could ``text`` hold a JSON Web Token cut across rows (:func:`_jwt_breaks`)?"""
    return "eyJ" in text and "\n" in text and bool(_jwt_breaks(text))


_BLOCK_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/]{16,}\r?")
_BLOCK_REACH = 64
"""How many lines above a line :func:`wrapped_block_text` walks for its block's first."""


def wrapped_block_text(text: str, start: int, end: int) -> str | None:
    """The text that the wrapped base64 (or base32) block holding ``text[start:end]`` decodes to,
    where that span is one of its lines alone: a line cut from a block at any width (``fold -w
    30``) is no base64 of its own, and looks as random as a key alone. Asked of every token judged
    random, so the block is found by walking up whole lines from the span's, never by a search."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:start].strip() or text[end:line_end].strip():
        return None
    top = line_start
    for _ in range(_BLOCK_REACH):
        above = text.rfind("\n", 0, top - 1) + 1
        if top == 0 or not _BLOCK_LINE.fullmatch(text, above, top - 1):
            break
        top = above
    block = _BASE64_BLOCK.match(text, top)
    return _block_text(block.group()) if block and block.end() >= end else None


def _git_binary(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A binary patch's content: inflated, then its text (``strings``-like runs of eight printable
    characters or more where the file is binary: a key in a keystore or a database), mapped to the
    whole hunk (a finding replaces it all)."""
    data = bytearray()
    for line in match.group("body").split():
        size = ord(line[0]) - (ord("A") - 1 if line[0] <= "Z" else ord("a") - 27)
        try:
            data += base64.b85decode(line[1:])[:size]
        except ValueError:
            return []
    raw = inflated(bytes(data))
    if raw is None:
        return []
    text = "\n".join(_PRINTABLE_RUN.findall(raw.decode("latin-1")))
    return [(text, match.start(), match.end())] if text else []


def _ascii85(match: re.Match[str]) -> list[tuple[str, int, int]]:
    try:
        text = bytes_as_text(base64.a85decode(match.group(), adobe=True))
    except (ValueError, UnicodeDecodeError):
        return []
    return [(text, match.start(), match.end())] if text and mostly_printable(text) else []


def _value_starts(run: str) -> list[int]:
    """Where an encoded value may start inside a longer run of its alphabet: at the run's start, or
    after one of its first label characters (``key=``, ``token:``, an opening quote or bracket:
    characters the alphabets hold, so the value may hold them too), the earliest first."""
    labels = itertools.islice(_LABEL_END.finditer(run, 0, _LABEL_REACH), _LABELS_TRIED)
    return [0, *(m.end() for m in labels)]


def _value_ends(run: str, start: int) -> list[int]:
    """Where a value that starts at ``start`` may end: after an opening quote or bracket, at the
    run's last matching closer (``value="..."/>``, ``b'...')``); otherwise at the run's end, or
    before a closing ``;`` or ``,``."""
    closer = _CLOSER_OF.get(run[start - 1]) if start else None
    ends = [run.rfind(closer)] if closer else [len(run), len(run.rstrip(";,"))]
    return [end for end in dict.fromkeys(ends) if end - start >= _MIN_BASE85]


def _leading_bytes(value: str, digits: dict[str, int]) -> bytes | None:
    """The bytes of the first :data:`_PROBE_GROUPS` groups of a base85 ``value`` in the alphabet
    ``digits``, or ``None`` where they are no base85 (a group past 32 bits): decoded by hand, a few
    microseconds where the library's decoder costs tens."""
    out = bytearray()
    for group in range(_PROBE_GROUPS):
        number = 0
        for char in value[5 * group : 5 * group + 5]:
            number = number * 85 + digits[char]
        if number >> 32:
            return None
        out += number.to_bytes(4, "big")
    return bytes(out)


def _starts_text(raw: bytes) -> bool:
    """The first bytes of a decoding read as the start of text: printable UTF-8 (a character cut
    off at the end allowed) or UTF-16LE of ASCII."""
    if not any(raw[1::2]):
        raw = raw[::2]
    if raw.isascii():
        return all(32 <= byte < 127 or byte in b"\n\r\t" for byte in raw)
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(raw)
    except UnicodeDecodeError:
        return False
    return all(ch.isprintable() or ch in "\n\r\t" for ch in text)


def _base85_text(value: str, decode: Callable[[str], bytes]) -> str | None:
    try:
        text = bytes_as_text(decode(value))
    except (ValueError, UnicodeDecodeError):
        return None
    return text if mostly_printable(text) else None


def _bare_base85(decode: Callable[[str], bytes], alphabet: str, marker: re.Pattern[str]) -> Decoder:
    """A decoder of runs of one base85 ``alphabet`` with no delimiter: a run holding ``marker`` (a
    character the alphabet has and base64 or an identifier has not) whose value, at the first place
    it may lie (:func:`_value_starts`, :func:`_value_ends`), decodes to text: its first groups by
    hand, then all of it by ``decode``. The text maps to the value whole (a finding replaces it);
    the label before it and the closers after it stay as they are."""
    digits = {char: index for index, char in enumerate(alphabet)}

    def decoder(match: re.Match[str]) -> list[tuple[str, int, int]]:
        run = match.group()
        if marker.search(run) is None:
            return []
        at = match.start()
        for start in _value_starts(run):
            lead = _leading_bytes(run[start:], digits)
            if lead is None or not _starts_text(lead):
                continue
            for end in _value_ends(run, start):
                text = _base85_text(run[start:end], decode)
                if text:
                    pieces = [
                        (run[:start], at, at + start),
                        (text, at + start, at + end),
                        (run[end:], at + end, match.end()),
                    ]
                    return [piece for piece in pieces if piece[0]]
        return []

    return decoder


def _spelled(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Every character but the separators, each mapped to itself; a run spelled between wide
    separators must spell eight letters or digits at least (a rule of ``- - - -`` is no key)."""
    step = 1 + len(match.group("sep"))
    pieces = [(match.string[i], i, i + 1) for i in range(match.start(), match.end(), step)]
    if match.re is _SPELLED_WIDE and sum(char.isalnum() for char, _, _ in pieces) < 8:
        return []
    return pieces


def _grouped(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The groups read as one token, the separators dropped, where they hold a letter that is no
    hex digit and a group of its own mixes letters with a digit, a symbol or a capital inside
    (:func:`_random_group`, ``AKIA QWER TYUI OP23``): words of four letters (``this will take much
    time``) are prose, groups of digits a number or a table (a card number is found as one), and
    words between numbers (``room 1234 next 5678 then 9012``) a sentence, though the run holds
    both. Hex in groups is :data:`_HEX_GROUPS`' (``od -x`` rows joined read as a random key)."""
    groups = match.group().split(match.group("sep"))
    if _NON_HEX_LETTER.search("".join(groups)) is None or not any(map(_random_group, groups)):
        return []
    return [
        (char, i, i + 1) if char not in " ," else ("", i, i + 1)
        for i, char in enumerate(match.group(), match.start())
    ]


def _key_groups(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The groups (or rows) read as one token, the separators dropped, where every group but the
    last has one width, two groups mix letters with digits or cases (one in a run of four: a word
    or a number does neither), the token mixes letters and digits, and it is short enough for a
    key. Hex only, and rows, are read under a credential's label on their line or the line above:
    hex in groups is more often a digest, a fingerprint or a dump row (``od -x``), which are not
    secrets and which a label such as ``SHA256:`` or none at all leaves alone; lines of one width
    are as often a list of names."""
    start = match.start("row") if match.group("row") else match.start("groups")
    pieces = re.split(r"\s+" if match.group("row") else "[\\s-]", match.string[start : match.end()].strip())
    if sum(map(_random_group, pieces)) < min(2, len(pieces) - 3):
        return []
    widths = {len(piece) for piece in pieces[:-1]}
    joined = "".join(pieces)
    if len(widths) != 1 or len(pieces[-1].rstrip("=")) > widths.pop() or len(joined) > _KEY_GROUPS_MAX:
        return []
    if not any(ch.isdigit() for ch in joined) or not any(ch.isalpha() for ch in joined):
        return []
    needs_label = _HEX_ONLY.fullmatch(joined) is not None or bool(match.group("row"))
    if needs_label and not _labelled_as_credential(match.string, start):
        return []
    separators = " \t\n\u00a0\u2009\u202f" + ("" if match.group("row") else "-")
    return [
        ("" if char in separators and i >= start else char, i, i + 1)
        for i, char in enumerate(match.string[match.start() : match.end()], match.start())
    ]


def _random_group(group: str) -> bool:
    """Does a group mix a letter with a digit or a symbol, or capitals with small letters? Most of a
    random key's do; a word (``have``, ``Room``: a capital that starts a word is no mix) or a
    number (``2024``) does not."""
    letters = sum(map(str.isalpha, group))
    return 0 < letters < len(group) or (group.lower() != group != group.upper() and not group.istitle())


def _labelled_as_credential(text: str, position: int) -> bool:
    """Does a word naming a credential (:func:`.credential_names.credential_class`) stand on the line
    before ``position``, or on the line above when ``position`` starts a line?"""
    line_start = text.rfind("\n", 0, position) + 1
    if not text[line_start:position].strip():
        line_start = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    before = text[max(line_start, position - 80) : position]
    return any(credential_class(word) for word in _LABEL_WORD.findall(before))


def _escaped_word(escape: re.Pattern[str], literal: frozenset[str], dense: bool) -> Decoder:
    """A word with its escape characters removed, as a shell removes them: bash a backslash before
    any character outside quotes (``g\\h\\p\\_`` is ``ghp_``), PowerShell a backtick. A word
    with four escapes or more, some of characters that ``literal`` (what a string literal escapes:
    ``\\n`` in a C string is a newline) does not hold, so a word of those is left alone; and,
    ``dense``, one character in three escaped at least from its first escaped character to its
    last (an escaped space joins a label to it: ``Bearer\\ g\\hp_...``): a Windows path escapes
    one in five with its backslashes. A backtick separates no path, so in PowerShell four escapes
    are evidence enough."""

    def decoder(match: re.Match[str]) -> list[tuple[str, int, int]]:
        escapes = list(escape.finditer(match.string, match.start(), match.end()))
        characters = [found for found in escapes if not found.group(1).isspace()]
        if len(characters) < 4:
            return []
        span = characters[-1].end() - characters[0].start()
        if dense and 3 * len(characters) < span - len(characters):
            return []
        if all(found.group(1) in literal for found in escapes):
            return []
        return _each_character_but(match, ((e.start(), e.end(), e.group(1)) for e in escapes))

    return decoder


def _each_character_but(
    match: re.Match[str], spans: Iterable[tuple[int, int, str]]
) -> list[tuple[str, int, int]]:
    """Every character of ``match`` mapped to itself, but each of ``spans`` (``start, end, chars``, in
    order, inside the match) decoded to ``chars``: an escape to its character, a separator to none."""
    pieces: list[tuple[str, int, int]] = []
    last = match.start()
    for start, end, chars in spans:
        pieces.extend((match.string[i], i, i + 1) for i in range(last, start))
        pieces.append((chars, start, end))
        last = end
    pieces.extend((match.string[i], i, i + 1) for i in range(last, match.end()))
    return pieces


def _utf16_nuls(match: re.Match[str]) -> list[tuple[str, int, int]]:
    start = match.start() + 2 if match.group().startswith("\xff\xfe") else match.start()
    mark = [("", match.start(), start)] if start > match.start() else []
    return mark + [(match.string[i], i, i + 2) for i in range(start, match.end(), 2)]


def _utf7(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A UTF-7 run that decodes to printable ASCII, mapped whole."""
    try:
        text = match.group().encode("ascii").decode("utf-7")
    except UnicodeDecodeError:
        return []
    if len(text) < 4 or not text.isascii() or not all(map(_text_byte, text.encode("ascii"))):
        return []  # ASCII first: a run may decode to a lone surrogate, which no codec encodes
    return [(text, match.start(), match.end())]


def _char_list(match: re.Match[str]) -> list[tuple[str, int, int]]:
    start = match.start()
    if not match.group("q"):
        return [
            (item.group(), start + item.start(), start + item.end())
            for item in _BARE_ITEM.finditer(match.group())
        ]
    return [
        (_unescaped(item.group(2)), start + item.start(2), start + item.end(2))
        for item in _QUOTED_ITEM.finditer(match.group())
    ]


def _unescaped(element: str) -> str:
    """A quoted element's character: ``\\"`` is ``"``, ``\\n`` a newline."""
    return _ESCAPED.get(element[1], element[1]) if len(element) == 2 else element


_LISTED_CODE = re.compile(r"(0[xX][0-9A-Fa-f]{2}|\d+)")
"""A code in a list; :func:`_number` reads its base."""


def _char_codes(match: re.Match[str]) -> list[tuple[str, int, int]]:
    return _coded_characters(match, _LISTED_CODE, None)


def _uuencoded(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """uuencoded lines that decode to text: every line exactly as long as its length character says
    (a line of capitals and punctuation almost never is), the text mapped to the whole block."""
    raw = bytearray()
    for line in match.group().split("\n"):
        line = line.rstrip("\r")
        count = ord(line[0]) - 32
        if len(line) != 1 + 4 * -(-count // 3):
            return []
        try:
            raw += binascii.a2b_uu(line)
        except binascii.Error:
            return []
    text = _printable_text(bytes(raw)) if len(raw) >= 8 else None
    return [(text, match.start(), match.end())] if text else []


def _binary(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Printable text only, each character mapped to its eight digits."""
    digits = [(int(byte.group(), 2), byte) for byte in re.finditer(r"[01]{8}", match.group())]
    if not all(_text_byte(code) for code, _ in digits):
        return []
    return [(chr(code), match.start() + byte.start(), match.start() + byte.end()) for code, byte in digits]


def _glue(match: re.Match[str]) -> list[tuple[str, int, int]]:
    before = match.string[max(0, match.start() - 2) : match.start()]
    if not before or not _TOKEN_CHAR.match(before[-1]) or re.fullmatch(r"\\[nrt]", before):
        return []  # a literal that ends a line of text ("...\\n" + "..."), or no token before it
    if _DIFF_MARKER.search(match.group()) or _opens_a_key(match):
        return []
    return [("", match.start(), match.end())]


_DIFF_MARKER = re.compile(r"\n[+-]")
"""A ``+`` or ``-`` opening a line is a unified diff's marker, not an operator: ``"old"`` ending
a ``-`` line and ``+    "password": ...`` read as one concatenation swallowed the added line."""
_KEY_AFTER = re.compile(r"[ \t]*(?::(?![:=])|=(?!=))")


def _opens_a_key(match: re.Match[str]) -> bool:
    """Is the literal a glue match opens a key (``"name": ...``, ``"name" = ...``)? Then the literal
    before it ended a member (a YAML, TOML, HCL or printed JSON map without commas), and joining the
    two swallowed the next line's key into the value before it."""
    quote = match.group(1)
    if quote is None:
        return False  # a backslash continuation: no literal follows
    close = match.string.find(quote, match.end())
    newline = match.string.find("\n", match.end())
    return close != -1 and not 0 <= newline < close and _KEY_AFTER.match(match.string, close + 1) is not None


def _joined(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The chunks of a list a join call glues with an empty separator (``''.join(['AKIAQW',
    'ERTY...'])``, ``['ghp_aU', ...].join('')``, ``implode('', [...])``, ``CONCAT('a', 'b')``), or a
    format of placeholders alone fills in (``"%s%s" % ('AKIAQW', ...)``, ``"{}{}".format(...)``,
    ``fmt.Sprintf("%s%s", ...)``, PowerShell's ``"{0}{1}" -f ...``: red team, 2026-12-07), read
    as one literal: the separators between chunks dropped, every other character its own."""
    text, start, end = match.string, match.start(), match.end()
    if not (
        _JOINED_BEFORE.search(text, max(0, start - _JOINED_REACH), start) or _JOINED_AFTER.match(text, end)
    ):
        return []
    quote = re.escape(match.group("q"))
    separators = re.compile(rf"{quote}[ \t]*,[ \t]*{quote}").finditer(text, start, end)
    return _each_character_but(match, ((glue.start(), glue.end(), "") for glue in separators))


def _printf_pieces(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The arguments a shell's ``printf`` of placeholders alone glues (:data:`_PRINTF_PIECES`), read
    as one word: the spaces between them and their quotes dropped, the command and its format kept
    (a substitution's ``$(printf FORMAT`` and ``)`` dropped, ``printf -v VAR FORMAT`` read ``VAR=``).
    Only where there are as many arguments as placeholders: else the format is used again, a line
    per group (``printf '%s%s\\n' a b c d``), and the pieces are not one word."""
    text = match.string
    arguments = list(_PRINTF_ARGUMENT.finditer(text, match.start("args"), match.end("args")))
    label = match.group("label")
    if len(arguments) != match.group("format").count("%s") or len(arguments) < 2 - bool(label):
        return []
    if match.group("open") or match.group("variable"):  # the word itself, or ``VAR=`` and the word
        if label:
            return []  # the word printed is the label and the value together: no one value
        variable = match.group("variable") or ""
        pieces = [(f"{variable}=" if variable else "", match.start(), arguments[0].start())]
    elif label:  # ``printf 'password=`` then the glued word, the placeholders and quotes dropped
        pieces = [(text[i], i, i + 1) for i in range(match.start(), match.end("label"))]
        pieces.append(("", match.end("label"), arguments[0].start()))
    else:
        pieces = [(text[i], i, i + 1) for i in range(match.start(), arguments[0].start())]
    pieces.append(("", arguments[0].start(), arguments[0].start("piece") - len(arguments[0].group("q"))))
    for index, argument in enumerate(arguments):
        low, high = argument.start("piece"), argument.end("piece")
        if index:
            pieces.append(("", argument.start(), low))
        elif argument.group("q") and not label:
            pieces.append((text[low], argument.start("q"), low + 1))  # the word's quotes go with it
            low += 1
        last = index == len(arguments) - 1 and not label  # its last character takes its quote
        pieces.extend((text[i], i, i + 1) for i in range(low, high - last))
        if last:
            pieces.append((text[high - 1], high - 1, argument.end()))
        elif argument.end() > high:
            pieces.append(("", high, argument.end()))
    if match.group("close"):
        pieces.append(("", arguments[-1].end(), match.end()))
    return pieces


def _column(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The column's characters read across, each mapped to its own, the line ends dropped; the line
    break above it read as a space, so the line the column continues labels it (``password:``)
    and stays a word apart from it."""
    above = [(" ", match.start(), match.end("above"))] if match.group("above") else []
    start = match.end("above") if match.group("above") else match.start()
    return above + [
        (char, start + i, start + i + 1)
        for i, char in enumerate(match.string[start : match.end()])
        if char > " "
    ]


def _reversed(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A line written backwards (``'3&rod4bu0rT' = drowssap``), each character mapped to its own."""
    return [(match.string[i], i, i + 1) for i in range(match.end() - 1, match.start() - 1, -1)]


def _rot13(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A line in ROT13 (``cnffjbeq = 'Ge0ho4qbe&3'``), each character mapped to its own."""
    return [
        (char.translate(_ROT13), match.start() + i, match.start() + i + 1)
        for i, char in enumerate(match.group())
    ]


def _porcelain_seam(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The seam after a kept piece of a porcelain word diff dropped; the piece stays. Matched from
    the kept line, not from every newline: a newline before a long run of removed lines started
    a scan of the run each (quadratic)."""
    kept = [
        (char, i) for i, char in enumerate(match.string[match.start() : match.start("seam")], match.start())
    ]
    return [*((char, i, i + 1) for char, i in kept), ("", match.start("seam"), match.end("seam"))]


def _dropped(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The match decodes to nothing: an escape sequence a terminal does not show, a character a
    backspace strikes over, markup a browser does not show."""
    return [("", match.start(), match.end())]


_TAG_FIRST, _TAG_LAST = 0xE0020, 0xE007E
"""Unicode's tag characters that shadow printable ASCII: invisible (format characters) everywhere but
in a flag's subdivision code, and a way to smuggle text past a reader (``U+E0041`` is a hidden
``A``). Read as the ASCII they shadow, not dropped with the other format characters: dropped, the
payload vanished from the view and stayed in the output."""
_VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{8,}")
"""Eight variation selectors or more in a row: one selects an emoji's or a CJK ideograph's glyph,
a run of them is bytes smuggled in invisible characters (VS1 to VS16 are bytes 0 to 15,
VS17 to VS256 bytes 16 to 255)."""


def _look_alike(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Invisible format characters (zero-width space and joiner, soft hyphen, BOM, bidi marks)
    dropped, tag characters and runs of variation selectors read as the ASCII they smuggle,
    compatibility forms of ASCII letters, digits and punctuation (fullwidth, mathematical letters)
    read as ASCII, and, inside a token that also holds ASCII letters or digits, combining marks
    that decorate rather than accent dropped (:func:`_decoration`: a key struck through with
    ``U+0336`` after each letter) and a letter of another script
    that looks like an ASCII one (Cyrillic ``А``, Greek ``Ο``, a small capital ``ᴋ``) read as that
    letter; any other character stays as it is (an accented letter, a CJK one, a word of Russian
    prose, and a no-break space or an ellipsis too: those carry no key, and a view with nothing
    changed is not scanned again)."""
    mixed, key_shaped = _token_holds(match)
    smuggled = _smuggled_bytes(match)
    pieces = []
    for offset, char in enumerate(match.group()):
        start = match.start() + offset
        if start in smuggled:
            pieces.append((smuggled[start], start, start + 1))
        elif _TAG_FIRST <= ord(char) <= _TAG_LAST:
            pieces.append((chr(ord(char) - 0xE0000), start, start + 1))
        elif (
            (category := unicodedata.category(char)) == "Cf"
            or mixed
            and (_decoration(category, match, start) or char in _INVISIBLE_LETTERS)
        ):
            pieces.append(("", start, start + 1))
        elif _ascii_look_alike(char, ascii_form := unicodedata.normalize("NFKC", char)):
            pieces.append((ascii_form, start, start + 1))
        elif letter := _letter_symbol(char):
            pieces.append((letter, start, start + 1))
        elif key_shaped and (base := _accent_base(char)) is not None:
            pieces.append((base, start, start + 1))
        elif mixed and char in latin_look_alikes():
            pieces.append((latin_look_alikes()[char], start, start + 1))
        else:
            pieces.append((char, start, start + 1))
    return pieces if any(text != match.group()[i] for i, (text, _, _) in enumerate(pieces)) else []


_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters Unicode files as letters or symbols, not format characters, that draw nothing: the
Hangul choseong, jungseong, compatibility and halfwidth fillers and the blank Braille pattern. One
between each pair of a key's letters hid it from every pattern as the zero-width space did; they are
dropped like it, but only inside a token that holds ASCII letters or digits (Korean text uses the
fillers on their own)."""


@functools.cache
def _letter_symbol(char: str) -> str:
    """The capital a letter-like symbol draws, by its Unicode name: regional indicators (``U+1F1E6``
    is ``A``; two make a flag) and the negative squared and negative circled Latin capitals
    (``U+1F170``). They have no compatibility decomposition, so NFKC leaves them as they are; a key
    spelled in them read as nothing to any pattern. Empty for any other character."""
    if not "\U0001f100" <= char <= "\U0001f1ff":
        return ""
    name = unicodedata.name(char, "")
    if name.startswith(("REGIONAL INDICATOR SYMBOL LETTER ", "NEGATIVE SQUARED LATIN CAPITAL LETTER ")) or (
        name.startswith("NEGATIVE CIRCLED LATIN CAPITAL LETTER ")
    ):
        return name.rsplit(" ", 1)[1]
    return ""


def _decoration(category: str, match: re.Match[str], start: int) -> bool:
    """Is the character at ``start`` a combining mark drawn over the one before it and no accent of
    it (a stroke, ``U+0336``, or an underline, ``U+0332``, through a key's letters): an accent
    composes with its letter (``e`` and ``U+0301`` are ``é``) and is part of the word, so it stays."""
    return category == "Mn" and len(unicodedata.normalize("NFC", match.string[start - 1 : start + 1])) == 2


def _smuggled_bytes(match: re.Match[str]) -> dict[int, str]:
    """Where a run of variation selectors spells printable ASCII, each selector's raw offset mapped
    to its byte's character; a run that spells no text, or none at all, maps nothing."""
    found: dict[int, str] = {}
    if max(match.group()) < "\ufe00":
        return found
    for run in _VARIATION_SELECTORS.finditer(match.string, match.start(), match.end()):
        raw = [ord(c) - 0xFE00 if ord(c) <= 0xFE0F else ord(c) - 0xE0100 + 16 for c in run.group()]
        if all(map(_text_byte, raw)):
            found.update((run.start() + i, chr(byte)) for i, byte in enumerate(raw))
    return found


_TOKEN_WALK = 256
"""How far :func:`_in_mixed_token` walks out from a run before it looks the token up whole."""
_LONG_TOKEN = re.compile(rf"\S{{{_TOKEN_WALK},}}")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
_ASCII_DIGIT = re.compile(r"[0-9]")


def _in_mixed_token(match: re.Match[str]) -> bool:
    """Does the run sit in a token (a run without whitespace) that holds ASCII letters or digits?
    A key with a few letters swapped for look-alikes does; a word of another script does not."""
    return _token_holds(match)[0]


def _token_holds(match: re.Match[str]) -> tuple[bool, bool]:
    """Whether the run's token holds an ASCII letter or digit, and whether it is shaped as a key
    (:func:`_key_shaped`).
    A short token is read where it stands; a long one (minified code, a combining mark after every
    letter: thousands of runs in one token) from :func:`_long_tokens`, read once per text, so the
    runs of one token cost linear time, not the token's length each (56 s for 45 kB before)."""
    text = match.string
    start, end = match.start(), match.end()
    low, high = max(0, start - _TOKEN_WALK), min(len(text), end + _TOKEN_WALK)
    while start > low and not text[start - 1].isspace():
        start -= 1
    while end < high and not text[end].isspace():
        end += 1
    if (start == low > 0 and not text[low - 1].isspace()) or (
        end == high < len(text) and not text[high].isspace()
    ):
        starts, ends, holds = _long_tokens(text)
        index = bisect.bisect_right(starts, match.start()) - 1
        return holds[index] if index >= 0 and match.start() < ends[index] else (False, False)
    token = text[start:end]
    return _ASCII_ALNUM.search(token) is not None, _key_shaped(token)


_KEY_RUN = re.compile(r"[\w\u0300-\u036f-]{16,}")
"""A run of a key's characters (letters, digits, ``_``, ``-``, combining accents) as long as the
shortest random part the format rules read (an AWS key id's 16 after ``AKIA``)."""


def _key_shaped(token: str) -> bool:
    """Could the token hold a key with accents on its letters: does it hold an ASCII digit (a word
    rarely does), or a run of a key's characters as long as a key's random part? A key of letters
    alone (an AWS key id drawn with no digit, one in 28) kept its accents, and with them the key. A
    word of prose (``café``) or an address (``naïve@examplé.com``) keeps its; a long word read
    without them is still a word, which no rule reads."""
    return _ASCII_DIGIT.search(token) is not None or _KEY_RUN.search(token) is not None


@functools.lru_cache(maxsize=4)
def _long_tokens(text: str) -> tuple[list[int], list[int], list[tuple[bool, bool]]]:
    """The starts and ends of ``text``'s tokens of :data:`_TOKEN_WALK` characters or more, and
    whether each holds an ASCII letter or digit, and is shaped as a key (it is: it is long)."""
    tokens = list(_LONG_TOKEN.finditer(text))
    return (
        [token.start() for token in tokens],
        [token.end() for token in tokens],
        [(_ASCII_ALNUM.search(token.group()) is not None, _key_shaped(token.group())) for token in tokens],
    )


@functools.cache
def _accent_base(char: str) -> str | None:
    """The ASCII letter or digit ``char`` is drawn on, with accents (``é``, ``e`` and ``U+0301``) or
    none (a combining mark alone: empty); None for any other character."""
    if unicodedata.category(char) == "Mn":
        return ""
    decomposed = unicodedata.normalize("NFD", char)
    marks = decomposed[1:]
    if marks and decomposed[0].isascii() and decomposed[0].isalnum():
        return decomposed[0] if all(unicodedata.category(mark) == "Mn" for mark in marks) else None
    return None


def _ascii_look_alike(char: str, normalized: str) -> bool:
    return len(normalized) == 1 and (
        normalized.isalnum() and normalized.isascii() or "\uff01" <= char <= "\uff5e"
    )


Decoder = Callable[[re.Match[str]], list[tuple[str, int, int]]]


_MARKDOWN = re.compile(
    r"\n[ \t]*```[\w+-]*[ \t]*\n|(?<!`)`(?=[\w./-]+[ \t][^`\n]*?(?:(?<=[ \t])-|\$)[^`\n]*`)[^`\n]*`|`+"
    r"|</?(?:b|strong|em|i|u|code|kbd|mark)>"
    r"|(?:^|(?<=[\s(\[>|]))[*_]{1,2}(?=[^\s*_])|(?<=[^\s*_])[*_]{1,2}(?=[\s:.,;!?)\]|]|$)"
    r"|(?<=\w)\\(?=[_*]\w)",
    re.MULTILINE,
)
"""Markdown and HTML marks around a label or a value (``**Password:** `X` ``, ``<b>Password:</b>
X``, "Set `DB_PASSWORD` to `X`"), and a code fence opening under a label (``Password:`` then a
fenced block): agents write the credentials they created into final answers so. The view drops
them, and the label then stands beside its value as in plain text. An emphasis mark is one or two
``*``/``_`` between a space (or a line's start) and a word, or a word and a space or punctuation:
never inside a name or a path (``DB_PASSWORD``, ``a*b``, ``/__home__x``). Markdown's escape of an
``_`` or a ``*`` inside a name (``DB\\_PASSWORD``, written so that no emphasis opens) is dropped
too: the name read with its backslash was no credential's. The view is read for labels only
(:data:`LABEL_DECODERS`)."""
_WORD_DIFF = re.compile(r"\[-(?:(?!-\])[^\n]){0,400}-\]|\{\+|\+\}")
"""``git diff --word-diff``'s marks: ``[-old-]`` dropped with what it removed, ``{+`` and ``+}``
around what it added. ``API_TOKEN=[-changeme-]{+X+}`` reads as ``API_TOKEN=X`` in the view, the
label beside the new value again; read for labels only (:data:`LABEL_DECODERS`): a word diff of
code shows code."""
_WORD_DIFF_PORCELAIN = re.compile(r"(?m)^ [^\n]+(?P<seam>\n(?:-[^\n]*\n)*\+)(?=\S)")
"""``git diff --word-diff=porcelain`` puts each piece on a line of its own (`` `` kept, ``-``
removed, ``+`` added, ``~`` a newline): from the end of a kept piece over the removed lines to the
added piece's ``+`` is dropped, so ``API_TOKEN=`` and the new value meet. Only where a ``~`` line
says the text is porcelain."""
LABEL_DECODERS = frozenset({"markdown", "word_diff", "word_diff_porcelain"})
"""Views that move no characters of a value, only marks between a label and it: what they show is
read by the label rules alone (``detectors.find_labelled``), and no view is taken of them. A token
is the same token with or without ``**`` around it (scored again on a line whose marks were
dropped, a path read differently); and Markdown marks are in most texts, so a full scan of each
such line doubled the cost of a scan."""
_MARKDOWN_HINT = gated_alternation(r"`|\*\*|__|</?(?:b|strong|em|code)>|[*_](?<!\w[*_])\w|\\(?<=\w\\)[_*]")
"""Whether a text holds a Markdown mark: a backtick, ``**``, ``__``, an emphasis tag, ``*`` or ``_``
opening a word, or a word's escaped ``_``/``*``. Each alternative opens with its mark (the word
before it is asked by a lookbehind after the mark), so the gate of marks' characters skips every
other position (4x faster over a canary document's views); only whether one exists is asked."""


def _markdown(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A fence opening becomes the space that joins its label to the first line of the block. A
    backquoted command with an option or a variable (``--password `openssl passwd -1 $PW```, a
    shell's substitution or Markdown's code span of a command) stays as written: unquoted, its
    first word read as the value its label names. So does a backtick that opens a template literal
    a variable is joined to (:func:`.not_values.opens_joined_literal`): code, not Markdown."""
    if match.group() == "`" and opens_joined_literal(match.string, match.start()):
        return []
    if match.group().startswith("`") and len(match.group()) > 1 and not match.group().strip("`"):
        return [("", match.start(), match.end())]
    if match.group().startswith("`") and match.group().strip("`"):
        return []
    return [(" " if match.group().startswith("\n") else "", match.start(), match.end())]


def _holds(marker: str) -> Callable[[str], bool]:
    return lambda text: marker in text


DECODERS: tuple[tuple[str, Callable[[str], bool], Finder, Decoder], ...] = (
    ("ansi", _holds("\x1b"), ANSI_ESCAPE, _dropped),
    ("percent", _holds("%"), _PERCENT, _byte_escapes),
    (
        "form_encoded",
        lambda text: "%" in text and "+" in text,
        InRuns(_FORM_WORD, _FORM_RUN, "%+"),
        _form_encoded,
    ),
    ("quoted_printable", _holds("="), _QUOTED_PRINTABLE, _byte_escapes),
    (
        "quoted_printable_text",
        _quoted_printable_text,
        _QP_ESCAPE,
        _quoted_printable,
    ),
    (
        "unicode_escape",
        lambda text: "\\" in text or "%u" in text or "U+" in text,
        _UNICODE_ESCAPE,
        _unicode_escape,
    ),
    ("chr_calls", lambda text: _CHR_HINT.search(text) is not None, _CHR_CALLS, _chr_calls),
    ("css_escape", _holds("\\"), _CSS_ESCAPES, _css_escapes),
    ("backslash_escape", _holds("\\"), _BACKSLASH_ESCAPE, _backslash_escape),
    ("html_entity", _holds("&"), _ENTITY, _entity),
    ("hex", bool, _HEX_RUN, _hex),
    ("hex_bytes", lambda text: " " in text or "-" in text or ":" in text, _HEX_BYTES, _hex_bytes),
    ("hex_groups", _holds(" "), _HEX_GROUPS, _hex_groups),
    ("dump", lambda text: DUMP_HINT.search(text) is not None, DUMP_BLOCK, _dump),
    ("base64_block", _holds("\n"), _BASE64_BLOCK, _base64_block),
    ("base64_chunks", lambda text: "," in text, _BASE64_CHUNKS, _base64_chunks),
    (
        "base64_groups",
        lambda text: _BASE64_GROUPS_HINT.search(text) is not None,
        _BASE64_GROUPS,
        _base64_chunks,
    ),
    ("big_number", lambda text: _BIG_NUMBER_HINT.search(text) is not None, _BIG_NUMBER, _big_number),
    ("wrapped", _wrapped_at_width, _LINE_BREAK, _wrapped_line_break),
    ("jwt_rows", _cut_jwt, _JWT_BREAK, _jwt_line_break),
    ("git_binary", _holds("GIT binary patch"), _GIT_BINARY, _git_binary),
    ("ascii85", _holds("<~"), _ASCII85, _ascii85),
    ("base85", bool, _BARE_BASE85, _bare_base85(base64.b85decode, B85_ALPHABET, _BASE85_ONLY)),
    ("ascii85_bare", bool, _BARE_ASCII85, _bare_base85(base64.a85decode, _A85_ALPHABET, _ASCII85_ONLY)),
    ("spelled", bool, _SPELLED, _spelled),
    ("spelled_wide", lambda text: _SPELLED_WIDE_HINT.search(text) is not None, _SPELLED_WIDE, _spelled),
    ("grouped", _holds(" "), _GROUPED, _grouped),
    ("key_groups", lambda text: _KEY_GROUPS_HINT.search(text) is not None, _KEY_GROUPS, _key_groups),
    (
        "shell_escaped",
        lambda text: _SHELL_ESCAPE_HINT.search(text) is not None,
        _SHELL_ESCAPED,
        _escaped_word(_SHELL_ESCAPE, _C_ESCAPES, dense=True),
    ),
    (
        "powershell_escaped",
        lambda text: _POWERSHELL_ESCAPE_HINT.search(text) is not None,
        _POWERSHELL_ESCAPED,
        _escaped_word(_POWERSHELL_ESCAPE, _POWERSHELL_ESCAPES, dense=False),
    ),
    ("utf16_nuls", _holds("\x00"), _UTF16_NULS, _utf16_nuls),
    (
        "argv_separators",
        lambda text: "\x00" in text or "^@" in text,
        _ARGV_SEPARATOR,
        lambda match: [(" ", match.start(), match.end())],
    ),
    ("utf7", _holds("+A"), _UTF7, _utf7),
    ("char_list", lambda text: _CHAR_LIST_HINT.search(text) is not None, _CHAR_LIST, _char_list),
    ("char_codes", lambda text: _CHAR_CODES_HINT.search(text) is not None, _CHAR_CODES, _char_codes),
    ("binary", lambda text: "0100" in text or "0110" in text, _BINARY, _binary),
    ("uuencode", bool, _UU_LINES, _uuencoded),
    ("joined", lambda text: _JOINED_HINT.search(text) is not None, _JOINED_LIST, _joined),
    ("printf_pieces", _holds("printf"), _PRINTF_PIECES, _printf_pieces),
    ("decoder_call", holds_a_decoder_call, DECODER_CALL, decoder_call),
    ("printf_output", _holds("printf"), PRINTF_FORMAT, printf_output),
    ("inline_markup", _holds("<"), _INLINE_MARKUP, _dropped),
    ("rtf", _holds("{\\rtf"), _RTF_CONTROLS, _rtf_controls),
    ("column", lambda text: _COLUMN_HINT.search(text) is not None, _COLUMN, _column),
    ("overstrike", _holds("\x08"), _OVERSTRIKE, _dropped),
    ("markdown", lambda text: _MARKDOWN_HINT.search(text) is not None, _MARKDOWN, _markdown),
    ("word_diff", _holds("{+"), _WORD_DIFF, _dropped),
    ("word_diff_porcelain", _holds("\n~"), _WORD_DIFF_PORCELAIN, _porcelain_seam),
    ("concatenation", lambda text: "'" in text or '"' in text or "`" in text or "\\\n" in text, _GLUE, _glue),
    ("look_alike", lambda text: not text.isascii(), _NON_ASCII, _look_alike),
    ("reversed", lambda text: _REVERSED_MARK.search(_lowercase(text)) is not None, _REVERSED_LINE, _reversed),
    ("rot13", lambda text: _ROT13_MARK.search(_lowercase(text)) is not None, _ROT13_LINE, _rot13),
)
"""(name, cheap gate, pattern, decoder): a decoder runs only on text its gate passes."""


def _view(
    name: str, text: str, matches: Iterable[re.Match[str]], decode: Decoder, parent: DecodedView | None
) -> DecodedView | None:
    out: list[str] = []
    segments: list[tuple[int, int, int, bool]] = []
    length = last = 0
    changed = False
    for match in matches:
        pieces = decode(match)
        if not pieces:
            continue
        changed = True
        if match.start() > last:
            segments.append((length, last, match.start(), True))
            out.append(text[last : match.start()])
            length += match.start() - last
        for chars, start, end in pieces:
            if chars:
                segments.append((length, start, end, False))
                out.append(chars)
                length += len(chars)
        last = match.end()
    if not changed:
        return None
    if last < len(text):
        segments.append((length, last, len(text), True))
        out.append(text[last:])
    return DecodedView(name, "".join(out), segments, parent)


_SHELL_PIECE = re.compile(
    r"'(?P<single>[^'\n]*)'|\"(?P<double>(?:[^\"\\\n$`]|\\[^\n])*)\"|\$'(?P<ansi>(?:[^'\\\n]|\\[^\n])*)'"
    r"|\\(?P<escaped>[^\nnrt])|(?P<bare>[^\s'\"\\`$;&|<>()]++)"
)
"""One piece of a shell word: single-, double- or ANSI-C-quoted text, a backslash escape, or plain
characters (a ``$`` expansion or a backtick is none: a word holding one is not read). A ``\\n``,
``\\r`` or ``\\t`` is none either: in a log those are a JSON string's line ends and tabs."""
_SHELL_WORD = re.compile(rf"(?:{_SHELL_PIECE.pattern})+")
_SEAM = re.compile(r"(?<=[^\s'\"(\[{=:,<])['\"](?=[^\s,;:)\]}<>|&.+])|\$'")
"""Where quoting changes inside a shell word: a quote glued to characters on both sides (the
shell's ``'\\''`` splice, ``shlex.quote``'s ``'"'"'``, ``'ab'"cd"ef``, ``-p'x'``), or bash's ANSI-C
quote (``$'...'``). A quote that opens or closes a whole literal (``"key": "value"``) has a
separator on one side and is none. Cheap to find; each is read with its whole word."""
_SPLICE = re.compile(r"'(?:\\'|\"'\")'")
"""A single quote spliced into a single-quoted word (``'\\''``, ``'"'"'``): a shell's, never prose's."""
_WORD_BOUNDARY = " \t\n;&|()"
_WORD_REACH = 256
"""How far back a seam's word start is looked for (a bound: a minified document is one long word)."""
_LITERAL_PREFIX = re.compile(r"[bBrRuUfFLN]{1,2}|@|u8|E")
"""A string literal's prefix in a language (``b'...'``, ``f"..."``, C#'s ``@"..."``): code, not a
shell word's first piece."""
_PUNCTUATION_ONLY = re.compile(r"[^\w\\]+")
"""A plain piece after a quoted one holding no letter or digit (``"a":"b"``, ``'a'+'b'``,
``value="x"/>``): a document's or a language's punctuation after a value, not its characters."""
_ANSI_C_ESCAPE = re.compile(
    r"\\(?:[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|c.|.)", re.S
)
_ANSI_C_LETTERS = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
"""Bash's ANSI-C escapes (``$'...'``): a letter's control character, an octal, hex or Unicode code,
``\\cX`` a control key, a quote or a backslash itself; an unknown one keeps its backslash."""


def _ansi_c(escape: str) -> str:
    head, rest = escape[1], escape[2:]
    if head in "01234567":
        return chr(int(escape[1:], 8) & 0xFF)
    if head in "xuU" and rest:
        return chr(min(int(rest, 16), 0x10FFFF))
    if head == "c" and rest:
        return chr(ord(rest.upper()) & 0x1F)
    if head in "\\'\"?":
        return head
    return _ANSI_C_LETTERS.get(head, escape)


def _piece_characters(piece: re.Match[str]) -> list[tuple[str, int, int]]:
    """The characters one piece of a shell word stands for, each with its raw span (its quotes and
    escapes' backslashes stand for none)."""
    kind = piece.lastgroup or "bare"
    body, at = piece.group(kind), piece.start(kind)
    if kind in ("bare", "single"):
        return [(char, at + index, at + index + 1) for index, char in enumerate(body)]
    if kind == "escaped":
        return [(body, piece.start(), piece.end())]
    out: list[tuple[str, int, int]] = []
    index = 0
    while index < len(body):
        if body[index] != "\\":
            out.append((body[index], at + index, at + index + 1))
            index += 1
        elif kind == "double":  # a backslash escapes only what double quotes would expand
            char = body[index + 1]
            if char not in '"\\$`':
                out.append(("\\", at + index, at + index + 1))
            out.append((char, at + index + (char not in '"\\$`'), at + index + 2))
            index += 2
        else:
            escape = _ANSI_C_ESCAPE.match(body, index)
            end = escape.end() if escape else index + 1
            out.append((_ansi_c(body[index:end]) if escape else "\\", at + index, at + end))
            index = end
    return out


def _value_start(head: str) -> int:
    """Where a word's value starts within its first plain piece: after an ``=`` or ``:``
    (``--password=``, ``pass:``, ``user:``) or a short option glued to it (``-p``); else the word's
    start. What stands before stays as it is, so the rules still read the option or the name."""
    cut = max(head.rfind("="), head.rfind(":"))
    if cut != -1:
        return cut + 1
    if head.startswith("--"):
        return len(head)
    return min(len(head), 2) if head.startswith("-") else 0


def _requoted(word: re.Match[str]) -> list[tuple[str, int, int]]:
    pieces = list(_SHELL_PIECE.finditer(word.string, word.start(), word.end()))
    begin = pieces[0].start() + (_value_start(pieces[0].group()) if pieces[0].lastgroup == "bare" else 0)
    value = [piece for piece in pieces if piece.end() > begin]
    quoted = any(piece.lastgroup in ("single", "double", "ansi") for piece in value)
    escapes = [piece.group("escaped") for piece in value if piece.lastgroup == "escaped"]
    if not quoted and (not escapes or any(char in "\"'" for char in escapes)):
        return []  # no quoting, or a JSON string's escaped quotes (``\\"Finish\\"``): not a shell word
    if len(value) == 1 and value[0].lastgroup != "ansi":
        return []  # one quoted piece: the rules read it as it stands
    first = value[0]
    if first.lastgroup == "bare" and (
        _LITERAL_PREFIX.fullmatch(word.string, max(begin, first.start()), first.end())
        or joined_to_literal(word.string, max(begin, first.start()))
    ):
        return []  # a literal's prefix (``b'x'``) or a variable joined to one (``prefix+"x"``): code
    if any(piece.lastgroup == "bare" and _PUNCTUATION_ONLY.fullmatch(piece.group()) for piece in value[1:]):
        return []
    characters = [
        character for piece in value for character in _piece_characters(piece) if character[1] >= begin
    ]
    decoded = "".join(char for char, _, _ in characters)
    if not decoded or "\n" in decoded:
        return []
    if any(char.isspace() for char in decoded) and not _SPLICE.search(word.group()):
        return []  # prose's apostrophes (``it's the 'main' one``); a spliced passphrase stays read
    head = [(char, at, at + 1) for at, char in enumerate(word.string[word.start() : begin], word.start())]
    if "'" not in decoded:
        quote = "'"
    else:
        quote = '"'
        characters = [("\\" + char if char in '"\\$`' else char, low, high) for char, low, high in characters]
    opening, closing = (quote, begin, begin + 1), (quote, word.end() - 1, word.end())
    return [*head, opening, *characters, closing]


def quoted_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened by the quotes at its edges until the shell reads it as whole
    pieces (``'ab'"cd"ef`` whole, not ``ab'"cd"ef``); as it is when no widening does. A pseudonym
    over a span that opens or closes a quote it does not hold left the line's quoting unbalanced."""
    for low in (start, start - 1, start - 2):
        for high in (end, end + 1):
            if low >= 0 and high <= len(text) and _SHELL_WORD.fullmatch(text, low, high):
                return low, high
    return start, end


def requoted_words(text: str) -> DecodedView | None:
    """``text`` with each shell word whose quoting changes inside it written as the one quoted word
    the shell reads (``-p'Qw9r'\\''maple42'`` as ``-p"Qw9r'maple42"``, ``-k 'ab'"cd"ef`` as
    ``-k 'abcdef'``, ``$'ab\\x21cd'`` as ``'ab!cd'``), or ``None`` when it holds none. Every rule
    reads a quoted value up to its closing quote and a bare one up to a quote, so such a word gave
    them its first piece alone and the rest of the password stayed (red teams, rounds 13 and 14:
    every client, flag and assignment that takes a password, ``shlex.quote``'s output, ANSI-C
    quoting). The option or name glued before the value stays as it is (:func:`_value_start`); a
    language's string prefix (``b'x'``) and punctuation between two literals (``"a":"b"``) are code,
    and a word holding an expansion (``$``, a backtick) is not read."""
    if "'" not in text and '"' not in text:
        return None
    words: list[re.Match[str]] = []
    last = -1
    for seam in _SEAM.finditer(text):
        if seam.start() < last:
            continue
        start, floor = seam.start(), max(0, seam.start() - _WORD_REACH)
        while start > floor and text[start - 1] not in _WORD_BOUNDARY:
            start -= 1
        word = _SHELL_WORD.match(text, start) if start == 0 or text[start - 1] in _WORD_BOUNDARY else None
        if word is None or word.end() <= seam.start():
            last = seam.end()
            continue
        words.append(word)
        last = word.end()
    return _view("requoted", text, words, _requoted, None)


LIST_DECODERS = frozenset({"char_list", "char_codes", "base64_chunks"})
"""The encodings that spell a key as a list of values. In a JSON document each character (or code)
is a value of its own, so a scan of its literals one by one sees one character at a time: these
decoders read the document's raw text as well."""


def decoded_views(
    text: str, parent: DecodedView | None = None, only: frozenset[str] | None = None
) -> Iterator[DecodedView]:
    """Every view of ``text`` with one encoding undone (none when ``text`` holds no encoding), and
    each view's own views, :data:`MAX_DEPTH` encodings deep in all; with ``only``, the views that
    start with those decoders alone. A view's own view decodes only the lines the view changed:
    the rest of it is the raw text, whose views are already yielded."""
    spans = None if parent is None else parent.changed_lines()
    for name, gate, pattern, decode in DECODERS:
        if only is not None and name not in only or not gate(text):
            continue
        matches = (
            pattern.finditer(text)
            if spans is None
            else itertools.chain.from_iterable(pattern.finditer(text, start, end) for start, end in spans)
        )
        view = _view(name if parent is None else f"{parent.name}+{name}", text, matches, decode, parent)
        if view is not None and view.text:
            yield view
            if view.name.count("+") + 1 < MAX_DEPTH and name not in LABEL_DECODERS:
                yield from decoded_views(view.text, view)
