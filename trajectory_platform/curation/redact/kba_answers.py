"""Answers of knowledge-based authentication blocks: ``answer`` under ``security_questions``.

A security question's answer is a password the user chose as a word, and its name marks it when the
name says so (``security_answer``: :data:`.credential_names._KBA_NAME`). A block of such questions
names only itself, its entries a plain ``question`` / ``answer`` (a YAML list, a JSON array, a TOML
table array), so the answers stayed. Inside a block that :data:`.credential_names.KBA_BLOCK` names,
each ``answer`` (``response``, ``reply``; numbered or camel-cased: ``answer2``, ``answerText``) is
judged as a security answer by the labelled-value rule (:func:`.detectors.labelled_by_name`); an
``answer`` anywhere else (a quiz, an FAQ, a model's output) is text. A found answer is replaced
wherever it recurs, a plain word too (:data:`KBA_DETECTOR`).

A block runs from its name to the bracket that closes the one after it (JSON, a Python or JS
literal, a YAML flow collection), else over the lines indented deeper than the name's line (YAML;
a list's ``-`` entries may share its indentation), else, after a TOML table header, to the next
header.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.call_arguments import closing_bracket
from trajectory_platform.curation.redact.credential_names import KBA_BLOCK
from trajectory_platform.curation.redact.detectors import labelled_by_name
from trajectory_platform.curation.redact.model import Finding

_AS_SECURITY_ANSWER = "security_answer"
KBA_DETECTOR = "+kba_block"
"""The suffix of a finding's detector here: its evidence (the block's name) may be lines above, where
no window the engine re-reads around an echo reaches, so its value is replaced wherever it occurs."""
_BLOCK_REACH = 4000
"""The most characters of a block read: a profile's questions fit many times over."""
_OPENER = re.compile(r"[\"']?\]*[ \t]*(?:[:=]|=>)?[ \t]*(?P<open>[\[{(])?")
_ANSWER = re.compile(
    r"(?<![\w-])(?P<q>[\"']?)(?:answer|response|reply)(?:_?(?:text|value|\d+)|[A-Z]\w*)?(?P=q)"
    r"[ \t]*(?::|=>?)[ \t]*"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[^\s\"'#,}\]][^\n#,}\]]*)",
    re.IGNORECASE,
)
_TABLE_HEADER = re.compile(r"(?m)^[ \t]*\[")


def find_kba_answers(text: str) -> Iterator[Finding]:
    """Each answer inside a knowledge-based authentication block of ``text`` (module docstring)."""
    if "nswer" not in text and "NSWER" not in text and "espon" not in text and "eply" not in text:
        return
    for block in KBA_BLOCK.finditer(text):
        start, end = _block(text, block)
        for answer in _ANSWER.finditer(text, start, end):
            raw = answer.group("value").rstrip()
            value = raw[1:-1] if raw[:1] in "\"'" and len(raw) > 1 and raw[-1] == raw[0] else raw
            offset = answer.start("value") + (1 if value is not raw else 0)
            for finding in labelled_by_name(value, _AS_SECURITY_ANSWER):
                yield Finding(
                    finding.kind,
                    offset + finding.start,
                    offset + finding.end,
                    finding.value,
                    finding.detector + KBA_DETECTOR,
                )


def _block(text: str, name: re.Match[str]) -> tuple[int, int]:
    """The span of the block ``name`` names (module docstring)."""
    after = _OPENER.match(text, name.end())
    limit = min(len(text), name.end() + _BLOCK_REACH)
    if after is not None and after.group("open"):
        closing = closing_bracket(text, after.end(), limit)
        return after.end(), limit if closing is None else closing
    line_start = text.rfind("\n", 0, name.start()) + 1
    if text[line_start : name.start()].strip() in ("[", "[["):  # a TOML table (array) header
        header = _TABLE_HEADER.search(text, text.find("\n", name.end()) + 1 or limit, limit)
        return name.end(), header.start() if header else limit
    indent = _indent(text[line_start : name.start()])
    position = text.find("\n", name.end())
    while 0 <= position < limit:
        line_end = text.find("\n", position + 1)
        line = text[position + 1 : line_end if line_end >= 0 else len(text)]
        if line.strip():
            depth = _indent(line)
            if depth < indent or depth == indent and not line.lstrip().startswith("- "):
                return name.end(), position
        if line_end < 0:
            return name.end(), len(text)
        position = line_end
    return name.end(), limit if position >= 0 else len(text)


def _indent(prefix: str) -> int:
    """The indentation of a line (its start to its first character that is no space or list dash)."""
    return len(prefix) - len(prefix.lstrip(" \t"))
