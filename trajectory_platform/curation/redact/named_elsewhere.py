"""Credentials whose label is not a ``name = value`` beside them: the store they are put in says
they are secret, a path names them, an edit format or a debugger's dump carries the name apart.

:func:`.detectors.find_assignments` reads a name that precedes its value. These layouts break that:

- a secret store whose entry name is neutral (``aws ssm put-parameter --type SecureString --value
  v``, ``az keyvault secret set``, ``vault kv put secret/x value=v`` and ``vault kv get``'s table,
  ``docker secret create``, ``kubectl create secret --from-literal=k=v``, ``doppler secrets set
  NAME v``, the lines ``sops -d`` prints): the container says the value is secret, so no name is needed;
- a path expression whose last segment names the value (``yq '.db.password = "v"'``, ``jq``, an
  XPath for ``xmlstarlet -u ... -v v``, Ansible ``ini_file``'s ``option:`` then ``value:``,
  PowerShell's ``Set-Item Env:API_KEY v``), or RFC 6902 JSON Patch's ``"path": "/password", "value": "v"``;
- a debugger or REPL showing a variable's value apart from its name (PHP ``var_dump`` and
  ``print_r``, gdb's ``$1 = "v"`` after ``p password``, and the echo of the REPLs of
  :data:`_REPL_PROMPTS`: IPython's ``Out[n]``, irb's ``=>``, jshell's ``$1 ==>``, R's ``[1]``...).

A named value is judged by :func:`.credential_names.credential_class` on its name; every value must look like
a credential (:func:`.positional.credential_shaped`): an ordinary field edited with ``jq`` or a
config value in a store is not one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

_Q_VALUE = r"(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
_STORED = {
    "ssm_secure_string": re.compile(
        r"\baws\s+ssm\s+put-parameter\b(?=[^\n]*SecureString)[^\n]*?\s--value[ =]" + _Q_VALUE
    ),
    "ssm_secure_string_row": re.compile(r"\tSecureString\t(?P<value>[^\t\n]{4,200})\t"),
    "ssm_secure_string_json": re.compile(
        r"\"Type\"\s*:\s*\"SecureString\"\s*,[^{}]*?\"Value\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
        r"|\"Value\"\s*:\s*\"(?P<value2>(?:[^\"\\\n]|\\.){4,200})\"\s*,[^{}]*?\"Type\"\s*:\s*\"SecureString\""
    ),
    "keyvault_secret_set": re.compile(r"\baz\s+keyvault\s+secret\s+set\b[^\n]*?\s--value[ =]" + _Q_VALUE),
    "keyvault_secret_json": re.compile(
        r"\"id\"\s*:\s*\"https://[\w.-]+\.vault\.azure\.net/secrets/[^\"]*\"\s*,[^{}]*?"
        r"\"value\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
    ),
    "doppler_secrets_set": re.compile(r"\bdoppler\s+secrets\s+set\s+(?:-\S+\s+)*[\w.-]+(?:=|\s+)" + _Q_VALUE),
    "docker_secret_create": re.compile(
        r"\b(?:echo|printf)\s+(?:-n\s+)?(?P<q>[\"']?)(?P<value>[^\"'\s|]{4,200})(?P=q)\s*\|\s*"
        r"(?:docker|podman)\s+secret\s+create\b"
    ),
}
"""A value a secret store holds, found by the command that puts it or the output that shows it."""
_STORED_GATES = {
    "ssm_secure_string": "SecureString",
    "ssm_secure_string_row": "SecureString",
    "ssm_secure_string_json": "SecureString",
    "keyvault_secret_set": "keyvault",
    "keyvault_secret_json": "vault.azure.net",
    "docker_secret_create": "secret create",
    "doppler_secrets_set": "doppler",
}
_PAIRS_AFTER = re.compile(
    r"\b(?:vault\s+kv\s+(?:put|patch)|vault\s+write)\s+(?:-\S+\s+)*\S+(?P<pairs>(?:[ \t]+[\w.-]+=\S+)+)"
    r"|\bkubectl\s+create\s+secret\b(?P<literals>[^\n]*)"
)
_PAIR = re.compile(
    r"(?:^|[ \t])(?:--from-literal[= ])?[\"']?[\w.-]+=[\"']?(?P<value>[^\"'\s@][^\"'\s]{3,199})"
)
_VAULT_DATA = re.compile(
    r"=+ (?:Secret )?Data =+\n(?:Key +Value\n-+ +-+\n)?(?P<rows>(?:[\w.-]+ +[^\n]+\n?)+)"
)
_DATA_ROW = re.compile(r"(?m)^[\w.-]+ +(?P<value>\S[^\n]{3,199}?)[ \t]*$")
_SOPS_OUTPUT = re.compile(
    r"\bsops\s+(?:-\S+\s+)*(?:-d|--decrypt)\b[^\n]*\n(?P<body>(?:(?![ \t]*\$ )[^\n]+\n?)+)"
)
_DOCUMENT_ENTRY = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+)?[\w.-]+[ \t]*[:=][ \t]*(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)[ \t]*$"
)

_REPL_PROMPTS = (
    r"In \[\d+\]:",  # IPython, and a notebook cell (:func:`.engine.notebook_transcripts`)
    r">>>",  # Python
    r"irb\([^)\n]*\):\d+(?::\d+)?[>*]",  # irb, with or without its nesting level
    r"\[\d+\] pry\([^)\n]*\)>",  # pry
    r"iex\(\d+\)>",  # Elixir
    r"scala>",
    r"jshell>",
    r"ghci>|Prelude>|λ>",  # Haskell
    r"julia>",
    r">",  # R, Lua, Node, Laravel tinker (PsySH)
    r"\(gdb\)\s+p(?:rint)?",
    r"p(?:rint)?",
)
"""The prompts of a REPL (or a debugger's print command) before the expression it reads."""
_REPL_ECHOES = (
    r"Out\[\d+\]:[ \t]*",  # IPython
    r"=>?[ \t]*",  # irb, pry; tinker's ``= "v"``
    r"\$\d+ = (?:0x[0-9a-f]+ )?",  # gdb
    r"\$\d+ ==>[ \t]*",  # jshell
    r"(?:val )?res\d+: [\w.\[\]]+ = ",  # scala
    r"\[1\][ \t]*",  # R
    r"Just[ \t]+",  # ghci's ``Maybe``
)
"""What a REPL writes before the value it echoes on the next line (none: Python, julia, iex, Lua).
The value may be a literal with Python's prefix (``b'...'`` for ``os.environb`` or a decoded
secret's bytes, Python 2's ``u'...'``): without it, the quotes kept the value from the bare form
too, and the echo stood (red team rtsec15)."""

_NAMED = {
    "jq_path_set": re.compile(
        literal_first(r"(?<![\w.\]\"])", ".")
        + r"(?:[\w-]{1,80}\.|\[[^\]\n]{0,80}\]\.?){0,12}\"?(?P<name>[\w-]{1,80})\"?\]?\s*\|?=\s*"
        r"\\?(?P<q>[\"'])(?P<value>[^\"'\\\n]{4,200})\\?(?P=q)"
    ),
    "xpath_update": re.compile(r"\s-u\s+[\"']?/[^\s\"']*?(?P<name>[\w:@-]+)[\"']?\s+-v\s+" + _Q_VALUE),
    "ini_file_option": re.compile(
        r"(?m)^(?P<indent>[ \t]*)option:[ \t]*[\"']?(?P<name>[\w.-]+)[\"']?[ \t]*\n"
        r"(?:(?P=indent)\w+:[^\n]*\n){0,4}?(?P=indent)value:[ \t]*" + _Q_VALUE + r"[ \t]*$"
    ),
    "set_item_env": re.compile(
        r"(?i:\bset-item|\bni|\bnew-item)\s+(?i:-path\s+)?[\"']?(?i:env):(?P<name>\w+)[\"']?\s+"
        r"(?i:-value\s+)?" + _Q_VALUE
    ),
    "json_patch": re.compile(
        r"\"path\"\s*:\s*\"[^\"\n]*/(?P<name>[^\"/\n]+)\"[^{}]*?,\s*\"value\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
    ),
    "json_patch_value_first": re.compile(
        r"\"value\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\"[^{}]*?,\s*\"path\"\s*:\s*\"[^\"\n]*/(?P<name>[^\"/\n]+)\""
    ),
    "var_dump": re.compile(
        r"\[\"(?P<name>[^\"\n]{1,80})\"\]=>\s*\n\s*string\(\d+\)\s+\"(?P<value>[^\"\n]{4,200})\""
    ),
    "print_r": re.compile(r"(?m)^[ \t]*\[(?P<name>[\w.-]{1,80})\] => (?P<value>[^\n]{4,200}?)[ \t]*$"),
    "gdb_member": re.compile(
        r"[{,]\s*(?P<name>\w{1,80}) = (?:0x[0-9a-f]+ )?\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
    ),
    "repl_echo": re.compile(
        r"(?m)^(?:" + "|".join(_REPL_PROMPTS) + r")"
        r"[ \t]+(?P<expr>[^\n]{1,200})\n(?:" + "|".join(_REPL_ECHOES) + r")?"
        r"(?:(?:[bBuU]|[rR][bB]|[bB][rR])?(?P<q>[\"'])(?P<value>[^\"'\\\n]{4,200})(?P=q)"
        r"|(?P<bare>[^\s\"'\\]{4,200}))[ \t]*$"
    ),
}
"""A value and the name that labels it, apart: ``name`` is the label, ``value`` the value."""
_NAMED_GATES: dict[str, str | re.Pattern[str]] = {
    "jq_path_set": re.compile(r"\b(?:jq|yq|gojq)\b"),
    "xpath_update": " -v ",
    "ini_file_option": "option:",
    "set_item_env": re.compile(r"(?i)env:"),
    "json_patch": '"path"',
    "json_patch_value_first": '"path"',
    "var_dump": "]=>",
    "print_r": "] => ",
    "gdb_member": re.compile(r"\$\d+ = \{"),
    "repl_echo": re.compile(r"(?m)^(?:" + "|".join(_REPL_PROMPTS) + r")[ \t]"),
}
_LAST_WORD = re.compile(r"[A-Za-z_][\w-]*")
_JQ_LINE = re.compile(r"\b(?:jq|yq|gojq)\b")
"""A path assignment counts on a ``jq``/``yq`` command's line: the path is matched from its own
dot, with bounded segments (a prefix up to the command, scanned lazily, was quadratic: 100 s on a
line of 20,000 dots)."""


def find_named_elsewhere(text: str) -> Iterator[Finding]:
    """Every credential of ``text`` in one of the layouts of the module docstring."""
    for rule, pattern in _STORED.items():
        if _STORED_GATES[rule] in text:
            for match in pattern.finditer(text):
                group = "value" if match.group("value") is not None else "value2"
                yield from _judged("SECRET", match, group, f"stored:{rule}")
    if "vault" in text or "kubectl" in text:
        for match in _PAIRS_AFTER.finditer(text):
            group = "pairs" if match.group("pairs") is not None else "literals"
            for pair in _PAIR.finditer(text, match.start(group), match.end(group)):
                if group == "pairs" or "--from-literal" in pair.group():
                    yield from _judged("SECRET", pair, "value", "stored:pairs")
    if "Data =" in text:
        for match in _VAULT_DATA.finditer(text):
            for row in _DATA_ROW.finditer(text, match.start("rows"), match.end("rows")):
                yield from _judged("SECRET", row, "value", "stored:vault_kv_get")
    if "sops" in text:
        for match in _SOPS_OUTPUT.finditer(text):
            for entry in _DOCUMENT_ENTRY.finditer(text, match.start("body"), match.end("body")):
                yield from _judged("SECRET", entry, "value", "stored:sops_decrypt")
    for rule, pattern in _NAMED.items():
        gate = _NAMED_GATES[rule]
        if gate in text if isinstance(gate, str) else gate.search(text):
            for match in pattern.finditer(text):
                if rule == "jq_path_set" and not _JQ_LINE.search(
                    text, text.rfind("\n", 0, match.start()) + 1, match.start()
                ):
                    continue
                words = _LAST_WORD.findall(match.group("expr" if rule == "repl_echo" else "name"))
                named = credential_class(words[-1]) if words else None
                if named is not None:
                    kind = "PASSWORD" if named == "password" else "SECRET"
                    group = "bare" if rule == "repl_echo" and match.group("value") is None else "value"
                    yield from _judged(kind, match, group, f"named:{rule}")


def _judged(kind: str, match: re.Match[str], group: str, detector: str) -> Iterator[Finding]:
    value = match.group(group)
    if value is not None and credential_shaped(value):
        yield Finding(kind, match.start(group), match.end(group), value, detector)
