"""A value bound to a neutral name, then passed where a credential goes (red team rtsec8 F13).

``X = "v"`` then ``connect(password=X)``; ``VAL = "v"`` then ``{"password": VAL}``; a YAML anchor
``&shared v`` then ``password: *shared``; an Actions ``env:`` entry ``tmp: v`` then ``-p"${{
env.tmp }}"``; a Terraform ``locals { X = "v" }`` then ``password = local.X``. The name a
detector reads (``password``) labels a reference, and the value is elsewhere under a name that
says nothing. The shell's ``A=v; cmd -p"$A"`` is :mod:`.shell_words`'; this is the same dataflow in
code and configuration, within one text: each credential-labelled reference is followed back to
the literal its name is bound to there, and that literal is judged as a labelled value would be
(:func:`.positional.credential_shaped`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import KEYWORD_SCAN, credential_class
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

_REFERENCE = (
    r"(?:\*(?P<anchor>[\w-]{1,80})"
    r"|\$\{\{\s*(?:env|vars)\.(?P<env>[\w-]{1,80})\s*\}\}"
    r"|(?:local|var)\.(?P<tf>[\w-]{1,80})"
    r"|(?P<ident>[A-Za-z_]\w{0,79}))"
)
_USE = re.compile(r"[\"']?[ \t]*(?:=|:|=>)[ \t]*[\"']?" + _REFERENCE + r"(?=[\"']?[ \t]*(?:[,)};\n]|$))")
"""After a credential's label: ``=``, ``:`` or ``=>`` and a reference, nothing else, before the
end of the argument, entry or line (``password=X)``, ``"password": VAL,``, ``password: *pw``)."""
_OPTION_USE = re.compile(
    r"(?<=\s)(?:-p|--pass(?:word)?[= ])[\"']?\$\{\{\s*(?:env|vars)\.(?P<env>[\w-]{1,80})\s*\}\}"
)
"""A client's password option given an Actions expression (``mysql -p"${{ env.tmp }}"``)."""
_FOUND_REFERENCE = re.compile(
    r"\$\(?\{?(?P<ident>[A-Za-z_]\w{0,79})\}?\)?|\{(?P<braced>[A-Za-z_]\w{0,79})\}"
    r"|\$\{\{\s*(?:env|vars)\.(?P<env>[\w-]{1,80})\s*\}\}|\*(?P<anchor>[\w-]{1,80})"
)
"""A value another detector found that is only a reference: ``$X``, ``${X}``, make's ``$(X)``,
an f-string's ``{X}``, an Actions ``${{ env.X }}``, a YAML alias ``*X``: the detector read the
place of a credential, the reference says which name holds it."""
_LABEL_CHARS = re.compile(r"[\w.-]")
_CALL = re.compile(r"[()\[\]{}$]")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
"""An unquoted right-hand side that is code, not a literal: a call, an index, an expansion
(``getpass.getpass()``, ``os.environ[...]``), or, after ``=`` in code, a dotted name
(``settings.DB``); after a YAML ``:`` an unquoted ``Comet.River37`` is a literal."""


def _binds_code(bound: re.Match[str]) -> bool:
    return bound.re is _BINDING and bound.group("op") != ":"


_NOT_A_REFERENCE = frozenset({"None", "null", "nil", "true", "false", "True", "False", "undefined", "self"})


_BOUND_VALUE = r"(?P<q>[\"']?)(?P<value>[^\"'\s,;]{4,200})(?P=q)[ \t]*(?:[;,]|$)"
_BINDING = re.compile(
    r"(?:^|(?<=[;{]))[ \t]*(?:(?:const|let|var|final|export|local)[ \t]+|\$)?"
    r"(?P<name>[A-Za-z_][\w-]{0,79})[ \t]*(?P<op>:=|=|:)[ \t]*" + _BOUND_VALUE,
    re.MULTILINE,
)
"""Where a name is bound to a literal: an assignment or an entry at the start of a statement
(``name = "v"``, ``const name = 'v'``, ``$name = 'v'``, ``name := v``, ``name: v``)."""
_ANCHOR = re.compile(r"&(?P<name>[\w-]{1,80})[ \t]+" + _BOUND_VALUE, re.MULTILINE)
"""A YAML anchor on a scalar (``&name v``)."""


def _bindings(text: str) -> dict[tuple[str, bool], list[re.Match[str]]]:
    """Every binding of ``text`` by (name, whether an anchor): one pass each, so a text with
    thousands of references costs what one with a single reference does."""
    found: dict[tuple[str, bool], list[re.Match[str]]] = {}
    for pattern, anchor in ((_BINDING, False), (_ANCHOR, True)):
        if anchor and "&" not in text:
            continue
        for bound in pattern.finditer(text):
            found.setdefault((bound.group("name"), anchor), []).append(bound)
    return found


def find_bound_credentials(text: str, found: list[Finding]) -> Iterator[Finding]:
    """The literals that credential-labelled references in ``text`` are bound to (module docstring),
    and those that references other detectors ``found`` in a credential's place are bound to."""
    if "\n" not in text and ";" not in text:
        return  # a binding and its use are two statements
    lower = text.lower()
    if len(lower) != len(text):
        return
    uses: dict[tuple[str, bool], str] = {}
    for finding in found:
        if reference := _FOUND_REFERENCE.fullmatch(finding.value):
            name = next(group for group in reference.groups() if group)
            uses.setdefault((name, reference.group("anchor") is not None), "password")
    for hit in KEYWORD_SCAN.finditer(lower):
        start, end = hit.start(), hit.end()
        while start > 0 and _LABEL_CHARS.match(text, start - 1):
            start -= 1
        while end < len(text) and _LABEL_CHARS.match(text, end):
            end += 1
        named = credential_class(text[start:end])
        use = _USE.match(text, end) if named else None
        if use is None or named is None:
            continue
        name = use.group("anchor") or use.group("env") or use.group("tf") or use.group("ident")
        if name not in _NOT_A_REFERENCE and name != text[start:end]:
            uses.setdefault((name, use.group("anchor") is not None), named)
    if "${{" in text:
        for use in _OPTION_USE.finditer(text):
            uses.setdefault((use.group("env"), False), "password")
    bindings = _bindings(text) if uses else {}
    for key, named in uses.items():
        kind = "PASSWORD" if named == "password" else "SECRET"
        for bound in bindings.get(key, []):
            value = bound.group("value")
            literal = bound.group("q") or not (
                _CALL.search(value) or _binds_code(bound) and _DOTTED.match(value)
            )
            if credential_shaped(value) and literal:
                yield Finding(
                    kind, bound.start("value"), bound.end("value"), bound.group("value"), "bound_name"
                )
