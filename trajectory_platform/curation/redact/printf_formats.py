"""What a shell's ``printf`` prints, read as its output.

A format with text around its placeholders writes a credential into a document or a command:
``printf '{"password":"%s"}' hunter2``, ``printf '[client]\\npassword=%s\\n' pw > ~/.my.cnf``,
``printf 'machine h login bob password %s\\n' pw >> ~/.netrc``, ``printf 'export API_TOKEN=%s\\n'
tok >> ~/.bashrc``, ``printf -- '--password=%s' pw``. The label is inside the format and the value is
an argument words away, so no label rule saw them together (session 46: 12 format layouts, every
value kept, random ones too). The view shows the printed text: the format's characters, each
escape as what it prints (``\\n`` a line break), each ``%s`` as its argument unquoted (mapped to
the argument's raw span), the format used again while arguments remain, as ``printf`` does. What
it prints is then judged by the scan's rules, as the same text in a file would be; an argument
that is a variable (``"$PW"``) shows as written, a reference.

A format of a label and placeholders alone (``printf 'password=%s%s' a b``) is the pieces view's
(``decoders._printf_pieces``, which also reads ``printf -v`` and substitutions); this view takes
the others. Formats with conversions other than ``%s``, ``%b`` and ``%%`` are not read.
"""

from __future__ import annotations

import re

from trajectory_platform.curation.redact.alternations import literal_first

PRINTF_FORMAT = re.compile(
    literal_first(r"(?<![\w-])", "printf")
    + r"[ \t]+(?:--[ \t]+)?(?P<q>['\"])(?P<format>(?:(?!(?P=q))[^\n\\]|\\[^\n])*)(?P=q)"
    r"(?P<args>(?:[ \t]+(?:'[^'\n]*'|\"(?:[^\"\\\n]|\\[^\n])*\"|\$'[^'\n]*'|[^\s'\"|;&<>()`]+))*)"
)
"""``printf`` (``--`` may end its options), a quoted format, and its arguments up to the end of the
command (a pipe, a redirection, a ``;``, a closing bracket)."""
_ARGUMENT = re.compile(
    r"'(?P<single>[^'\n]*)'|\"(?P<double>(?:[^\"\\\n]|\\[^\n])*)\"|\$'(?P<ansi>[^'\n]*)'|(?P<bare>\S+)"
)
_FORMAT_PIECE = re.compile(r"%[sb]|%%|%|\\[^\n]|[^%\\]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
_PIECES_ONLY = re.compile(r"(?:[A-Za-z_][\w.-]{0,40}[=:] ?)?(?:%s){1,8}(?:\\n)?")
"""A format the pieces view reads (see the module docstring)."""


def _arguments(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """Each argument's text and the raw span of its characters (inside its quotes)."""
    out = []
    for argument in _ARGUMENT.finditer(match.string, match.start("args"), match.end("args")):
        group = argument.lastgroup or "bare"
        out.append((argument.group(group), argument.start(group), argument.end(group)))
    return out


def printf_output(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The view's pieces: what ``printf`` prints, each character mapped to the raw text it comes
    from (module docstring); none where the format is the pieces view's or has another conversion."""
    form = match.group("format")
    if _PIECES_ONLY.fullmatch(form) or ("%s" not in form and "%b" not in form):
        return []
    pieces = list(_FORMAT_PIECE.finditer(form))
    if any(piece.group() == "%" for piece in pieces):
        return []  # %d, %-10s, %x...: not read
    arguments = _arguments(match)
    placeholders = sum(piece.group() in ("%s", "%b") for piece in pieces)
    rounds = max(1, -(-len(arguments) // placeholders))
    base = match.start("format")
    out: list[tuple[str, int, int]] = []
    used = 0
    for _ in range(rounds):
        for piece in pieces:
            start, end, chars = base + piece.start(), base + piece.end(), piece.group()
            if chars in ("%s", "%b"):
                if used < len(arguments):
                    out.append(arguments[used])
                used += 1
            elif chars == "%%":
                out.append(("%", start, end))
            elif chars.startswith("\\"):
                out.append((_ESCAPES.get(chars[1], chars), start, end))
            else:
                out.append((chars, start, end))
    return [piece for piece in out if piece[0]]
