"""A secret GitHub Actions' step debug log prints unmasked.

With step debug logging on (``ACTIONS_STEP_DEBUG``), the runner prints how it evaluates each
expression: ``##[debug]Evaluating: secrets.NPM_TOKEN``, the steps inside it (``..Evaluating
Index:``, ``..=> Object``), then its value, ``##[debug]=> '<value>'`` and ``##[debug]Result:
'<value>'``. The runner masks a registered secret as ``***``; a value it does not know as a
secret (an ``env.`` or ``inputs.`` credential, a secret put through ``format()``, a log copied from
a runner whose masking failed) is printed as it is, and no rule read it: a quoted value after
``Result:`` carries no credential name beside it (session 44's brief, class 5). The value of an
evaluation whose expression names a credential (``secrets.*``, or a name the credential vocabulary
reads as one: ``env.REGISTRY_PASSWORD``, ``inputs.api_key``) is the secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding

_DEBUG = re.compile(r"##\[debug\](?P<body>[^\n]*)")
_EVALUATING = re.compile(r"Evaluating: (?P<expression>.+)")
_VALUE = re.compile(r"(?:=>|Result:) '(?P<value>(?:[^'\n]|'')*)'[ \t\r]*$")
"""The evaluation's value at its top level (nested steps start with ``..``), quoted as the runner
quotes a string (a ``'`` doubled)."""
_SECRETS_CONTEXT = re.compile(r"\bsecrets\s*(?:\.|\[)")
_PROPERTY = re.compile(r"(?:[A-Za-z_][\w-]*\.)*(?P<name>[A-Za-z_][\w-]*)")
"""A property path's last name (``env.REGISTRY_PASSWORD``'s): its contexts (``github``, ``env``,
``steps``) name no credential, whatever the vocabulary makes of a vendor's name."""


def _names_a_credential(expression: str) -> bool:
    """Does the expression read a secret: the ``secrets`` context, or a name the credential
    vocabulary reads as one at the end of a property path (``env.REGISTRY_PASSWORD``,
    ``inputs.api_key``)?"""
    if _SECRETS_CONTEXT.search(expression):
        return True
    return any(credential_class(path.group("name")) is not None for path in _PROPERTY.finditer(expression))


def find_actions_debug_values(text: str) -> Iterator[Finding]:
    """The value of every debug evaluation of an expression that names a credential (module
    docstring); the runner's mask (``***``) and placeholders are none."""
    secret = False
    for line in _DEBUG.finditer(text):
        body = line.group("body")
        if evaluating := _EVALUATING.match(body):
            secret = _names_a_credential(evaluating.group("expression"))
            continue
        if not secret or (value := _VALUE.match(body)) is None:
            continue
        if body.startswith("Result:"):
            secret = False
        found = value.group("value")
        if acceptable_value(found, True, "password", "") and found.strip("*"):
            start = line.start("body") + value.start("value")
            yield Finding("SECRET", start, start + len(found), found, "actions_debug")
