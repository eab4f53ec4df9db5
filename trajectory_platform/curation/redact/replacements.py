"""A credential written as the replacement of a placeholder or of an old value: the new text alone
carries no label, the old text it replaces shows what the place holds.

``sed -i 's/changeme/Qw9rTz7pLm/' app.conf`` and ``sed 's/^password=.*/password=X/'`` set a
password in a file; an editing tool's call (Claude Code's ``Edit`` with ``old_string`` and
``new_string``, ``str_replace_editor``'s ``old_str`` and ``new_str``) replaces ``password =
"changeme"`` with ``"hunter2xyz"``. Read alone, the new side is a bare word: no rule of a label
beside its value reads it, and a sed expression read whole is a path of words
(``.*/password=X/``), which the reference rules drop. Here each replacement is read as the pair it
is: the new side's own label where it has one, else the new side is the value when the old side
is a credential's placeholder (``changeme``, ``<password>``, a name such as
``PASSWORD_PLACEHOLDER``) or a credential's assignment.

The new value must look like a credential on its own evidence
(:func:`.positional.credential_shaped`): ``s/password/passphrase/`` renames, it sets nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import find_assignments
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped
from trajectory_platform.curation.redact.structure import json_objects

_SED = re.compile(
    r"(?:^|(?<=[\s'\";:%{]))s(?P<d>[/|#,@!:])"
    r"(?P<old>(?:(?!(?P=d))[^\\\n]|\\[^\n]){1,200})(?P=d)"
    r"(?P<new>(?:(?!(?P=d))[^\\\n]|\\[^\n]){1,200})(?P=d)[gIimpe0-9]*"
)
"""A substitution of ``sed``, ``perl -pe`` or vim's ``:%s``: ``s``, a delimiter, the old
pattern, the new text, the delimiter again, its flags."""
_PLACEHOLDER = re.compile(
    r"(?i)change[_-]?me\w*|replace\w*|(?:set|put|insert)[_-]?me|placeholder\w*"
    r"|x{4,}|\*{3,}|<[^<>\n]{1,40}>|\$\{[^}\n]{1,60}\}|\{\{[^}\n]{1,60}\}\}|__\w+__|%\w+%|@\w+@"
)
"""What a template writes where a credential will go: ``changeme``, ``REPLACE``, ``<password>``,
``${DB_PW}``, ``{{ secret }}``, ``__TOKEN__``, ``xxxx``. On the new side it is no value either
(``s/password: .*/password: REPLACE/`` writes a template)."""
_CAPITALS = re.compile(r"[A-Z][A-Z_]*")
"""A name in capitals without a digit (``NEW_VALUE``): on the new side, a template's slot too."""
_ASSIGNED = re.compile(r"(?P<name>[A-Za-z_][\w.-]{0,63})[\"']?\s*(?::=|=>|=|:)")
"""A name and its operator: the old side assigns a value there."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z_.-]*")
"""A name without a digit: ``s/password/passphrase/`` renames, ``Z9urPwXVpK`` is a value though
its letters spell ``pw``."""
_BACK_REFERENCE = re.compile(r"^(?:\\\d|&|\$\d)+")
_EDIT_KEYS = (
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("old_text", "new_text"),
    ("oldText", "newText"),
)
"""The keys an editing tool's call names its old and new text by (Claude Code's ``Edit`` and
``MultiEdit``, ``str_replace_editor``, agent frameworks' file editors)."""


def find_substitutions(text: str) -> Iterator[Finding]:
    """The credential each ``s/old/new/`` substitution of ``text`` writes (module docstring)."""
    if "s" not in text:
        return
    for match in _SED.finditer(text):
        old, new = match.group("old"), match.group("new")
        if "\\" in new.replace("\\1", "", 1):
            continue  # an escaped new text: its characters are not where the text shows them
        value_start = match.start("new")
        for finding in _replaced_value(old.removeprefix("^").removesuffix("$"), new):
            yield Finding(
                finding.kind,
                value_start + finding.start,
                value_start + finding.end,
                finding.value,
                "replacement:sed",
            )


def find_edited_credentials(document: object) -> Iterator[Finding]:
    """The credential an editing tool's call in a parsed JSON ``document`` writes in place of a
    placeholder or an old value (module docstring). Offsets are in the new text."""
    for node in json_objects(document):
        for old_key, new_key in _EDIT_KEYS:
            old, new = node.get(old_key), node.get(new_key)
            if isinstance(old, str) and isinstance(new, str):
                for finding in _replaced_value(old, new):
                    yield Finding(finding.kind, finding.start, finding.end, finding.value, "replacement:edit")


def _replaced_value(old: str, new: str) -> Iterator[Finding]:
    """The credential ``new`` holds where it replaces ``old``: by its own label, else as a bare
    value standing where ``old`` showed a credential's placeholder or assignment."""
    labelled = list(find_assignments(new))
    if labelled:
        yield from (finding for finding in labelled if not _template_slot(finding.value))
        return
    if not _shows_credential(old):
        return
    reference = _BACK_REFERENCE.match(new)
    start = reference.end() if reference else 0
    value = new[start:].strip()
    start = new.index(value) if value else start
    if value[:1] in "\"'`" and len(value) > 1 and value[-1] == value[0]:
        value, start = value[1:-1], start + 1
    renamed = _NAME.fullmatch(value) is not None and credential_class(value) is not None
    if credential_shaped(value) and not renamed and not _template_slot(value):
        yield Finding("PASSWORD", start, start + len(value), value, "replacement")


def _template_slot(value: str) -> bool:
    """Does a new side's value hold a place rather than a value (:data:`_PLACEHOLDER`,
    :data:`_CAPITALS`)?"""
    return bool(_PLACEHOLDER.fullmatch(value) or _CAPITALS.fullmatch(value))


def _shows_credential(old: str) -> bool:
    """Is the replaced text a credential's placeholder (:data:`_PLACEHOLDER`, or a word that names
    a credential, ``PASSWORD_PLACEHOLDER``), or the assignment of one (``password = "changeme"``,
    ``DB_PASSWORD=.*``)?"""
    core = old.strip().strip("\"'`")
    if "\n" not in core and (_PLACEHOLDER.fullmatch(core) or credential_class(core)):
        return True
    return any(credential_class(match.group("name")) for match in _ASSIGNED.finditer(old))
