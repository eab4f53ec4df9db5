"""A credential in an RTF document, where formatting runs cut its line (``password: }{\\loch\\ul
...\\n<value>``) or its value, is read as a word processor shows the text and replaced
(``decoders._rtf_controls``: control words, braces and line breaks dropped, ``\\par`` a line
break, ``\\'xx`` its character).

Cases are generated (credentials x run layouts) and split in two: the view was written against the
development layouts (the label and the value in runs of their own); the validation layouts (the
value cut into two runs, a paragraph mark before the next line, a hex escape in the value, runs
with font and colour changes) are held to the same standard. Controls: RTF documents of ordinary
text, kept byte for byte."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"rtf-runs-salt"

_HEADER = (
    "{\\rtf1\\ansi\\deff3\\adeflang1025\n{\\fonttbl{\\f0\\froman\\fprq2\\fcharset0 Times New Roman;}"
    "{\\f3\\fswiss\\fprq2\\fcharset0 Liberation Sans;}}\n{\\colortbl;\\red0\\green0\\blue0;}\n"
    "\\pard\\plain \\s0\\rtlch\\af7\\afs24 \\ltrch\\lang1033\\loch\\f3\\fs24\n"
)
_FOOTER = "\n\\par }"
_CREDENTIALS = (
    ("password: ", "Tr0ub4dor&3x"),
    ("api_key=", "Qz8vKp2LmW4xR7tYb6Nc"),
    ("-H 'Authorization: Bearer ", "m9Qx2LwZ8rTq4VbK7pLs"),
    ("client_secret = ", "hunter2-Blue-Horse"),
)


def _label_run(label: str, value: str) -> str:
    return f"{{\\loch {label}}}{{\\loch\\ul\\ulc0\\loch\n{value}}}{{\\loch\n'}}"


def _spaced_runs(label: str, value: str) -> str:
    return f"{label}}}{{\\rtlch \\ltrch\\loch\n{value}"


def _cut_value(label: str, value: str) -> str:
    half = len(value) // 2
    return f"{label}{value[:half]}}}{{\\loch\\b {value[half:]}}}"


def _font_change(label: str, value: str) -> str:
    return f"{{\\f0\\fs20 {label}}}{{\\cf1\\f3\\fs24\\i {value}}}"


def _hex_escape(label: str, value: str) -> str:
    return f"{label}{value[:3]}\\'{ord(value[3]):02x}{value[4:]}"


def _next_paragraph(label: str, value: str) -> str:
    return f"see below\\par\\pard\\plain \\loch\n{label}}}{{\\loch {value}}}"


DEVELOPMENT_LAYOUTS = (_label_run, _spaced_runs)
VALIDATION_LAYOUTS = (_cut_value, _font_change, _hex_escape, _next_paragraph)


def _cases(layouts: tuple) -> list[tuple[str, str]]:
    return [
        (_HEADER + layout(label, value) + _FOOTER, value)
        for (label, value), layout in itertools.product(_CREDENTIALS, layouts)
    ]


DEVELOPMENT = _cases(DEVELOPMENT_LAYOUTS)
VALIDATION = _cases(VALIDATION_LAYOUTS)

CONTROLS = [
    _HEADER + "{\\loch Meeting notes}{\\loch\\b\n for Monday}" + _FOOTER,
    _HEADER + "Status: }{\\loch\\ul\\ulc0\\loch\nall green\\par\\pard Owner: }{\\loch Dana" + _FOOTER,
    _HEADER + "version }{\\loch\n1.2.3\\par build }{\\loch 42" + _FOOTER,
    _HEADER + "caf\\'e9 au lait, na\\'efve r\\'e9sum\\'e9" + _FOOTER,
]


def _leaked(text: str, value: str) -> bool:
    out = redact_text(text, SALT)[0]
    return value in out or value[:6] in out


@pytest.mark.parametrize(
    ("text", "value"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT) + len(VALIDATION))
)
def test_a_credential_cut_by_rtf_runs_is_replaced(text: str, value: str) -> None:
    assert not _leaked(text, value)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_rtf_documents_of_ordinary_text_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
