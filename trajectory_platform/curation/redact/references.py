"""What stands where a credential's value would and is no value: a reference to one, a type, a
format string, a pattern.

Every rule that reads ``name <op> value`` or ``--password VALUE`` takes whatever token follows.
When that token points at the value instead of being it (``-p "$(cat pw.txt)"``, ``password:
*shared``, ``${{ env.DB_PW }}``), names the value's type (``password: &str``) or is a template
(``"%s%s" % (a, b)``, ``s/password: .*/.../``), replacing it breaks the line and, since every
value found enters the episode's symbol table and pass 3 replaces all its occurrences, every other
``$(cat`` or ``&str`` of the episode too. One grammar, applied to the findings of every detector
in :func:`.engine.scan`, so no rule (nor a future one) can read a reference as a value.
"""

from __future__ import annotations

import re

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.model import Finding

_REFERENCE = re.compile(
    r"\$\$?\(.*"  # shell command substitution $(cmd ...), $(< f); Make / Azure Pipelines $(var)
    r"|`.*|<\(.*"  # backtick substitution left open (a value cut at its first space), <(cmd)
    r"|\$\{\{.*|\{\{.*|\{%.*"  # Actions / Go, Helm, Jinja templates, {{resolve:...}}
    r"|@[A-Za-z_][\w.\-]*@"  # Maven / Gradle resource filtering
    r"|#\{[^}\s]*\}?"  # Ruby, Octopus, SpEL interpolation
    r"|\$env:\w+"  # PowerShell's environment drive
    r"|!(?:Ref|Sub|GetAtt|ImportValue|FindInMap|Join|Select|Base64|If)\b.*"  # CloudFormation
    r"|(?:var|local|module|data|vars|secrets|inputs|needs|steps|matrix)\.[A-Za-z_][\w.\-]*"  # HCL, Actions
    r"|(?:Get|Set|New|Read|ConvertTo|ConvertFrom|Import|Export|Invoke|Select|Out|Add|Remove|Test|Start|Join)"
    r"-[A-Z][A-Za-z]+\b.*"  # a PowerShell cmdlet, the value the call returns
    r"|[a-z_][\w.]*\((?:['\"$)]|$).*",  # a call (Ansible's lookup('env', 'X')): its result is the value
)
"""A reference syntax: what the shell, a template engine, a build tool or a CI runner replaces by
the value before anyone reads it. A secret never starts so (a quoted literal is unquoted first)."""

_YAML_ALIAS = re.compile(r"\*[A-Za-z_][\w.\-]*")
"""A YAML alias (``password: *shared``): unquoted only, ``"*Hx82kLq"`` is a literal."""

_FORMAT_STRING = re.compile(
    r"(?:%[-+ #0]*\d*(?:\.\d+)?[sdifxXrbqvT]|\{[\w.!:<>^]*\}|[^\w\s%{}])*"
    r"(?:%[-+ #0]*\d*(?:\.\d+)?[sdifxXrbqvT]|\{[\w.!:<>^]*\})"
    r"(?:%[-+ #0]*\d*(?:\.\d+)?[sdifxXrbqvT]|\{[\w.!:<>^]*\}|[^\w\s%{}])*"
)
"""A format string made of placeholders and punctuation alone (``%s%s``, ``{}:{}``, ``%s@%s``):
the value is built from the arguments, the template holds nothing."""

_PATTERN = re.compile(r"(?:\.[*+]|\\[sSdDwW][*+]?|\[\^)")
"""The start of a regular expression (``.*``, ``\\S+``, ``[^``): a ``sed 's/password: .*/.../'``
names what it matches, not a value."""

_TYPE_NAMES = frozenset(
    {
        *("String", "Str", "Bytes", "Buffer", "Uint8Array", "ArrayBuffer", "Blob", "CharSequence"),
        *("SecretStr", "SecretString", "SecretBytes", "SecretValue", "SecretBox", "SecureString"),
        *("Secret", "Zeroizing", "Sensitive", "Option", "Optional", "Vec", "Box", "Arc", "Rc", "Cow"),
        *("number", "boolean", "any", "unknown", "object", "char", "byte", "Object", "Integer"),
    }
)
"""The types a credential's parameter or field is declared with across Rust, TypeScript, Python,
Java, Go and C#: at the end of a line ``secret: Buffer`` reads as a TypeScript field or as a YAML
value alike, so only a standard type's name decides there."""

_TYPE_EXPRESSION = re.compile(
    r"&(?:'\w+\s*)?(?:mut\b\s*)?(?:dyn\b\s*)?(?:[A-Za-z_][\w:]*|\[.*)"  # Rust references: &str, &[u8]
    r"|(?:impl|dyn)\s+\S.*"  # Rust trait types
    r"|[A-Za-z_][\w:.]*(?:<[\w&' ,:<>\[\];]*>?|\[[\w&' ,:<>\[\];.]*\]?)"  # Option<String>, Optional[str]
)
"""A type expression, by its punctuation: a literal password seldom reads ``Name<Args>``."""
_IDENTIFIER = re.compile(r"[A-Za-z_]+|[uif](?:8|16|32|64|128|size)")
_ANNOTATION_BEFORE = re.compile(r"[\w\"'\]]\??[ \t]*:[ \t]*$")
"""``name:`` or TypeScript's optional ``name?:`` just before the value: a type annotation's place."""
_CODE_AFTER = re.compile(r"[ \t]*(?:[);>|{]|=(?!=)|,)")


_COMPOUND_NAME = re.compile(r"[A-Za-z]+(?:_[A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")
_OPTION_BEFORE = re.compile(r"(?<!\S)--?[A-Za-z][\w-]*(?:=| +)$")


def names_a_credential(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]``, the unquoted value of a command's option, a compound name that
    itself names a credential (``gcloud secrets versions access latest --secret=db_password``,
    ``--secret-id apiKey``)? It names the entry a store holds. In a ``.env`` or YAML entry a
    snake_case value is a literal (``POSTGRES_PASSWORD=compose_pw_value``): only an option says
    that the word is an argument naming something."""
    value = text[start:end]
    return (
        _COMPOUND_NAME.fullmatch(value) is not None
        and credential_class(value) is not None
        and _OPTION_BEFORE.search(text, max(0, start - 64), start) is not None
    )


def is_reference(value: str) -> bool:
    """Does ``value`` point at a value (substitution, template, alias, cmdlet) or shape one
    (a format string, a pattern) rather than hold it?"""
    return bool(_REFERENCE.fullmatch(value) or _FORMAT_STRING.fullmatch(value) or _PATTERN.match(value))


_BACKTICK_COMMAND = re.compile(r"(?:[\w.-]*/)?[a-z][\w.-]* .*?(?:\s-\S|[/.$|<=])\S*.*")
"""What a shell runs between backticks: a program and arguments, one of them an option, a path, a
variable, a pipe or a redirection (``cat secret.txt``, ``pass show db/pw``, ``op read op://v/x``)."""


_ASSIGNED_COMMAND = re.compile(r"(?P<program>[^\s`]+)[ \t]+[^`\n]*")
"""What stands between the backticks of ``NAME=`...```: a program and at least one argument."""


def is_backtick_substitution(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]``, a rule having stripped its backticks as quotes (or a Markdown view
    having read them as a code span's), a command the shell substitutes (``--password=`cat
    pw.txt```), or its first word? Backticks opened right after an assignment's ``=`` with a
    program and arguments inside (``PGPASSWORD=`printf '%s%s' ab cd```, ``TOKEN=`gh auth
    token```) are a substitution whatever the arguments: the shell runs them, and the value is
    what they print (the glued pieces :mod:`.decoders` reads), never the program's name
    (red team, session 45)."""
    wrapped = text[start - 1 : start] == "`" and text[end : end + 1] == "`"
    if wrapped and _BACKTICK_COMMAND.fullmatch(text[start:end]) is not None:
        return True
    if text[start - 2 : start] != "=`":
        return False
    close = text.find("`", start)
    command = _ASSIGNED_COMMAND.fullmatch(text, start, close) if close != -1 else None
    return command is not None and end in (command.end("program"), close)


def is_type_annotation(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` a type written after a name and a colon (``password: &str``,
    ``token: Option<String>``, ``secret: impl AsRef<str>``, ``api_key: SecretStr,``)? A type is
    code punctuation's neighbour: a generic's ``<``/``[`` after it, or ``,`` ``)`` ``;`` ``=`` ``>``
    ``|`` ``{`` closing the declaration, where a YAML or ``.env`` value ends its line."""
    line_start = text.rfind("\n", 0, start) + 1
    if not _ANNOTATION_BEFORE.search(text, line_start, start):
        return False
    value = text[start:end]
    if _TYPE_EXPRESSION.fullmatch(value) or value in _TYPE_NAMES:
        return True
    after = text[end : end + 1]
    if value in ("impl", "dyn") and after in (" ", "\t"):
        return True
    if not _IDENTIFIER.fullmatch(value):
        return False
    if after in ("<", "["):
        return True  # a generic's head: Option<String>, Vec<u8>, Optional[str]
    closing = _CODE_AFTER.match(text, end)
    if closing is None:
        return False
    # ``,`` ends a parameter only inside an open parenthesis (in a YAML flow map it ends a value)
    in_parameters = text.count("(", line_start, start) > text.count(")", line_start, start)
    return not closing.group().endswith(",") or in_parameters


def stands_for_a_value(text: str, finding: Finding) -> bool:
    """Is ``finding`` (a span of ``text``) a reference, a type or a template rather than a value?
    A span the Markdown view found without its ``*`` (it read a YAML alias ``*shared`` as
    emphasis) is judged with it."""
    if text[finding.start : finding.end] != finding.value:
        return is_reference(finding.value)
    start = finding.start - 1 if finding.start > 0 and text[finding.start - 1] == "*" else finding.start
    unquoted = start == 0 or text[start - 1] not in "\"'`"
    return (
        is_reference(finding.value)
        or (unquoted and _YAML_ALIAS.fullmatch(text[start : finding.end]) is not None)
        or is_type_annotation(text, finding.start, finding.end)
        or names_a_credential(text, finding.start, finding.end)
        or is_backtick_substitution(text, finding.start, finding.end)
    )


def drop_references(text: str, findings: list[Finding], keep_kinds: frozenset[str]) -> list[Finding]:
    """``findings`` less those that stand for a value (:func:`stands_for_a_value`); findings of
    ``keep_kinds`` (personal data: an e-mail is no reference) are kept as found."""
    return [f for f in findings if f.kind in keep_kinds or not stands_for_a_value(text, f)]
