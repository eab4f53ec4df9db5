"""How code binds a literal to a credential: a declaration with a type between name and value, a
call whose callee names the credential, the fallback of a lookup, a configuration directive.

``name = "value"`` (:func:`.detectors.find_assignments`) reads a value right after its name and
operator. Source files and configuration that agents read and write put more between them, and
each spelling left the value standing (red team rtsec8, F1, F4, F6, F7, F8, F20):

- a **declaration** names its target, then a type or a string prefix, then the value: Rust ``let
  pw: &str = "v"``, Go ``var pw string = "v"``, C ``char pw[] = "v"``, C# ``string Password { get;
  set; } = "v"``, VB ``Dim pw As String = "v"``, T-SQL ``DECLARE @pw NVARCHAR(50) = 'v'``,
  Objective-C ``@"v"``, Python ``b'v'``/``r'v'``/``f'v'``, R ``pw <- "v"``, Rust ``String::from("v")``;
- a **call** whose callee says what its argument is: a setter or builder (``set_password('v')``,
  ``.apiKey("v")``, ``SetApiKey("v")``, ``new BasicAWSCredentials(id, "v")``), a log-in
  (``authenticate(user, "v")``), or an API whose key sits at a known position (``jwt.encode(p,
  "v")``, ``hmac.new(b"v")``, ``createHmac('sha256', 'v')``, ``Fernet(b"v")``, a keystore's
  ``"v".toCharArray()``);
- a **fallback**: the value a lookup of a credential-named setting falls back to
  (``process.env.DB_PASSWORD || "v"``, ``?? "v"``, ``| default "v"``, ``config('X', default='v')``,
  ``.unwrap_or("v")``, ``ENV.fetch("X") { "v" }``, ``${X-v}``);
- a **directive**: a configuration line ``name value`` with a space between (``requirepass v``,
  ``rootpw v``, ``bindpw v``, ``auth_pass v``), an HCL block named by its label (``variable
  "db_password" { default = "v" }``) or marked ``sensitive = true``;
- a client's **short options**: a password option after a user option (``-u U -p X``, ``/u:U /p:X``)
  of any command, not only the listed clients.

Whether a name marks a credential is :func:`.credential_names.credential_class`, the one rule every
detector uses. A reference is no value: only a literal is taken (``os.getenv("PASSWORD", "")``,
``set_password(new_password)``, ``jwt.encode(payload, settings.SECRET_KEY)`` keep every word), and
the value must pass :func:`.detectors.acceptable_value` (placeholders, prose, format strings out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.call_arguments import call_arguments
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import (
    FORMAT_ONLY,
    STRING_PREFIX,
    acceptable_value,
    credential_word_hits,
)
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.positional import credential_shaped

_LITERAL = (
    rf"(?P<prefix>{STRING_PREFIX})?(?P<q>[\"'])"
    r"(?P<value>(?:(?!(?P=q))[^\\\n]|\\.){4,200})(?P=q)"
)
"""A string literal with its language's prefix (:data:`.detectors.STRING_PREFIX`)."""
_PATTERN_SYNTAX = re.compile(r"\\|\(\?|\[[^\]]*\][*+?{]")
"""What a raw string holds when it is a regular expression or a path: a backslash, a group's
``(?``, a character class with a quantifier (``r'([a-f0-9]{48})'`` under ``password =``)."""

_WRAPPERS = (
    r"String::from|String::new|SecretString::(?:new|from)|Secret::new|CString::new|Some|"
    r"(?:new\s+)?String|SecretStr|SecretBytes|Buffer\.from|Encoding\.\w+\.GetBytes|str|bytes|bytearray"
)
"""Calls that make a string (or a secret holder) from a literal: the literal is still the value."""
_DECLARATION = re.compile(
    r"(?<![\w$])(?P<name>@?[A-Za-z_]\w{0,63})"
    r"(?P<gap>\s*:\s*[&*'\w\[\]<>:. |?]{1,40}?\s*"  # Rust, Zig, TypeScript: ": Type"
    r"|\s+[Aa]s\s+[\w.\[\]()]{1,40}\s*"  # Visual Basic: "As String"
    r"|\s+(?P<bare_type>[A-Za-z_][\w.*\[\]]{0,30}(?:\(\s*(?:\d+|max|MAX)\s*\))?)\s*"  # Go, T-SQL
    r"|\s*\[\s*\d*\s*\]\s*"  # C: "name[]"
    r"|\s*\{\s*get;\s*(?:(?:private|protected|internal)\s+)?(?:set|init);\s*\}\s*"  # C# property
    r"|\s*)"
    r"(?P<op>=(?![=>~])|<<?-|:=)\s*"
    r"(?P<wrap>(?:" + _WRAPPERS + r")\s*\(\s*)?" + _LITERAL
)
_CONDITION_BEFORE = re.compile(r"\b(?:if|elif|while|with|lambda|case|return|and|or|not)\s+$")
_DECLARES = re.compile(r"(?:\b(?:var|const|let|val|DECLARE|declare|Dim|dim)\s+|,\s*)$")
"""What precedes a name whose type follows it unmarked (Go's ``var pw string``, T-SQL's
``DECLARE @pw NVARCHAR(50)``): without it ``word name = "x"`` is only two words."""

_CALLEE = re.compile(
    r"(?<![\w$])(?P<new>new\s+)?(?P<callee>[A-Za-z_][\w]{0,60}(?:\.[A-Za-z_]\w{0,60}){0,4})"
    r"(?P<ctor>\]?::new)?\s*\("
)
_KEY_POSITIONS = {
    "jwt.encode": 1,
    "jwt.decode": 1,
    "jwt.sign": 1,
    "jwt.verify": 1,
    "hmac.new": 0,
    "hmac.digest": 0,
    "createhmac": 1,
    "createcipheriv": 1,
    "createdecipheriv": 1,
    "aes.new": 0,
    "aes.encrypt": 1,
    "aes.decrypt": 1,
    "fernet": 0,
    "secretkeyspec": 0,
    "bcrypt.checkpw": 0,
    "bcrypt.hashpw": 0,
    "hmacsha256": 1,
    "hmacsha512": 1,
    "hmacsha1": 1,
    "load_pkcs12": 1,
    "load_key_and_certificates": 1,
    "load_pem_private_key": 1,
    "pbkdf2_hmac": 1,
}
"""APIs whose key (or password) sits at a known argument (from 0), by the callee's last one or two
names, lowercased: nothing in the call's name says "password", the API's signature does."""
_KEYSTORE_CALLS = frozenset({"load", "getkey", "store", "setkeyentry", "init", "pbekeyspec", "getentry"})
"""Java calls whose ``"x".toCharArray()`` argument is a keystore's or key's password."""
_LOGIN_CALLS = frozenset({"login", "log_in", "logon", "signin", "sign_in", "authenticate", "auth"})
"""Calls that take a user then a password: the last literal argument (of two or more) is it."""
_SETTER_VERBS = frozenset({"set", "with", "change", "update", "use", "put", "store", "save"})
"""A callee opening with one of these sets what the rest of its name says (``set_password``,
``changeUserPassword``, ``withApiKey``)."""
_NOT_SETTER_VERBS = frozenset(
    {
        *("get", "check", "verify", "validate", "is", "has", "hash", "generate", "gen", "reset", "read"),
        *("load", "fetch", "find", "lookup", "delete", "remove", "del", "revoke", "print", "log", "prompt"),
        *("input", "ask", "encrypt", "decrypt", "compare", "match", "mask", "redact", "parse", "decode"),
        *("encode", "clear", "require", "expect", "assert", "test", "invalidate", "refresh", "rotate"),
        *("create", "make", "to", "from", "as", "on", "handle", "send", "request", "issue", "sign"),
        *("forgot", "new", "random", "strong", "weak", "confirm", "show", "hide", "toggle", "count"),
        *("list", "describe", "exists", "contains", "render", "format", "display", "search", "query"),
        *("click", "type", "fill", "enter", "submit", "wait", "assert", "extract", "split", "strip"),
    }
)
"""A callee opening with a verb that reads, checks or makes a credential takes no value to keep
(``check_password("x")`` compares, ``get_token("github")`` names what it fetches)."""
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")

_FALLBACK_OPERATOR = re.compile(r"(?:\|\||\?\?|\bor\b|\?:|\|\s*default\b\s*\(?)\s*" + _LITERAL)
"""What a lookup falls back to: ``|| "v"``, ``?? "v"``, ``or "v"``, ``?: "v"``, Helm's and
Jinja's ``| default "v"`` / ``| default('v')``; the name is read back from the operator
(:data:`_LOOKED_UP`), as an unanchored name before it cost a pass per character."""
_LONGEST_LOOKUP = 70
_LOOKED_UP = re.compile(r"(?P<name>[A-Za-z_]\w{0,63})[\"']?\s*[)\]]?\s*$")
_FALLBACKS = (
    # decouple / django-environ: config('X', default='v'), env.str("X", default="v")
    re.compile(
        r"\(\s*[\"'](?P<name>[\w.\-]{1,64})[\"']\s*,\s*(?:\w+\s*=\s*[^,()\n]{1,40},\s*)*"
        r"(?:default|fallback)\s*=\s*" + _LITERAL
    ),
    # Rust / Scala / Java: env::var("X").unwrap_or("v"), .getOrElse("v"), .orElse("v")
    re.compile(
        r"[\"'](?P<name>[\w.\-]{1,64})[\"']\s*\)(?:\s*\.\s*\w+\(\s*\))*\s*\.\s*"
        r"(?:unwrap_or(?:_else)?|or_else|getOrElse|orElse|getOrDefault|or)\s*\(\s*(?:\|[^|\n]{0,20}\|\s*)?"
        + _LITERAL
    ),
    # Ruby: ENV.fetch("X") { "v" }
    re.compile(r"[\"'](?P<name>[\w.\-]{1,64})[\"']\s*\)\s*\{\s*(?:\|\w*\|\s*)?" + _LITERAL + r"\s*\}"),
)
"""A lookup of a credential-named setting, then what it falls back to: developers write the real
value there, expecting the environment to replace it."""
_SHELL_DEFAULT = re.compile(r"\$\{(?P<name>[A-Za-z_]\w{0,63}):?[-=](?P<value>[^}\s\"'$]{4,200})\}")
"""``${X-v}``, ``${X=v}`` (and their ``:`` forms): a shell or Compose default."""

_DIRECTIVE = re.compile(
    r"(?m)^[ \t]*(?:(?:[^\n>]*>[ \t]*|(?:\S*/)?(?:redis|valkey|keydb)-cli\b[^\n]*?[ \t])?"
    r"CONFIG[ \t]+SET[ \t]+"
    r"|(?P<sentinel>sentinel[ \t]+))?(?P<name>[A-Za-z_][\w.\-]{1,63})[ \t]+(?(sentinel)\S+[ \t]+)"
    r"(?P<value>\"[^\"\n]{4,200}\"|'[^'\n]{4,200}'|[^\s\"'#;][^\s]{3,199})[ \t]*\r?$"
)
"""A configuration line of a name and a value (``requirepass v`` in redis.conf, ``rootpw v`` in
slapd.conf, ``bindpw v``, ``auth_pass v``, ``secret v``): a space is its separator. Redis's
``CONFIG SET name v`` at its prompt or on a ``redis-cli`` line, and a Sentinel directive, whose
master's name stands between (``sentinel auth-pass mymaster v``)."""
_COMMANDS = frozenset({"pwd", "passwd", "pass", "kinit", "login"})
"""Shell commands spelled like a credential name: ``pwd /tmp``, ``passwd alice``, ``pass show x``."""
_HCL_BLOCK = re.compile(r"(?m)^[ \t]*(?:variable|output)[ \t]+\"(?P<label>[\w.\-]{1,64})\"[ \t]*\{")
_HCL_VALUE = re.compile(r"(?<![\w.])(?:default|value)[ \t]*=[ \t]*\"(?P<value>[^\"\n]{4,200})\"")
_HCL_SENSITIVE = re.compile(r"(?m)^[ \t]*sensitive[ \t]*=[ \t]*true\b")
_HCL_BLOCK_REACH = 2000

_USER_OPTION = r"(?:-u|-U|-l|--user(?:name)?|/u(?:ser)?:)"
_SHORT_PASSWORD = re.compile(
    r"(?<![\w.\-])" + _USER_OPTION + r"(?:[ \t]+|(?<=:))(?P<user>[^\s\-][^\s]{0,63})"
    r"(?:[ \t]+-{1,2}[\w-]+(?:[ \t]+[^\s\-][^\s]*)?){0,3}?"
    r"[ \t]+(?:-[pPw](?:[ \t]+|(?=\S))|/p(?:ass(?:word)?)?:)"
    r"(?P<q>[\"']?)(?P<value>[^\s\"'|;&<>]{4,128})(?P=q)"
    r"(?=[\s|;&)]|$)"
)
"""A password option after a user option in one command (``-u U -p X``, ``-U U -P X``, ``-u U
-w X``, ``-l U -pX``, ``/u:U /p:X``): the pair says what ``-p`` is, whatever the client."""
_PORT_OR_PATH = re.compile(r"[\d.:,/-]+(?:/(?:tcp|udp))?|[./~].*|.*/.*|.*\.[a-z]{1,5}|\$.*|`.*|%.*%")
"""``-p`` values that are no password: a port or a mapping (``-p 8080:80``), a path, a file, a
reference (``-p $PW``, ``-p "$(cat f)"``)."""


def _literal_finding(match: re.Match[str], name_class: str, detector: str) -> Finding | None:
    """The finding for a match's ``value`` group under a name of ``name_class``, or None when the
    literal is an interpolation, a format template or no credential by :func:`acceptable_value`."""
    value = match.group("value")
    prefix = (match.groupdict().get("prefix") or "").lower()
    if "f" in prefix and "{" in value:
        return None  # an f-string interpolates a reference: no literal value
    if " " in value:
        return None  # a prompt, a message, a label: code's literals with a space are text
    if "r" in prefix and _PATTERN_SYNTAX.search(value):
        return None  # a raw string holding a pattern or a Windows path
    if not acceptable_value(value, True, name_class, ""):
        return None
    kind = "PASSWORD" if name_class == "password" else "SECRET"
    return Finding(kind, match.start("value"), match.end("value"), value, detector)


def _credential_name_starts(text: str, hits: tuple[int, ...]) -> list[int]:
    """Where each word holding a credential word (:func:`.detectors.credential_word_hits`) starts:
    the rules that read a name first are tried there only, not at every word of the text."""
    starts: list[int] = []
    last = -1
    for hit in hits:
        start = hit
        floor = max(0, start - _LONGEST_NAME)
        while start > floor and (text[start - 1].isalnum() or text[start - 1] in "_@$"):
            start -= 1
        if start > last:
            last = start
            starts.append(start)
    return starts


_LONGEST_NAME = 64


def _declarations(text: str, starts: list[int]) -> Iterator[Finding]:
    """Each declaration's literal, read from each credential-named word."""
    for name_start in starts:
        match = _DECLARATION.match(text, name_start)
        if match is None:
            continue
        name_class = credential_class(match.group("name"))
        gap = match.group("gap")
        plain = not gap.strip() and match.group("op") in ("=", ":=")
        if name_class is None or _CONDITION_BEFORE.search(text, max(0, name_start - 10), name_start):
            continue  # "if password: msg = 'x'" tests the name; the literal is another's
        if match.group("bare_type") and not _DECLARES.search(text, 0, match.start("name")):
            continue
        if plain and not match.group("prefix") and not match.group("wrap"):
            continue  # name = "x": the assignment rule's own
        finding = _literal_finding(match, name_class, "binding:declaration")
        if finding is not None:
            yield finding


_ARGUMENT_LITERAL = re.compile(
    r"\s*" + _LITERAL + r"(?P<suffix>\s*\.\s*(?:toCharArray|getBytes|encode|as_bytes|to_string|to_owned|into)"
    r"\(\s*(?:[\"'][\w-]*[\"'])?\s*\))?\s*$"
)


_UNLOCKING_CALLS = frozenset({"decrypt", "encrypt"})
_DOCUMENT_RECEIVER = re.compile(r"(?i)pdf|reader|writer")
"""A PDF library's reader or writer (``PdfReader(f).decrypt(pw)``, ``writer.encrypt(pw)``):
there ``decrypt`` and ``encrypt`` take the document's password first, where a cipher's take
the data (``fernet.decrypt(token)``)."""


def _receiver(text: str, dot: int) -> str:
    """The last name of what a member call at ``text[dot] == "."`` is made on: ``reader`` of
    ``reader.decrypt``, ``PdfReader`` of ``PdfReader(f).decrypt`` (its call's arguments skipped)."""
    end = dot
    if end and text[end - 1] == ")":
        depth, end = 0, end - 1
        while end >= 0 and end > dot - _STATEMENT_REACH:
            depth += {")": 1, "(": -1}.get(text[end], 0)
            if depth == 0:
                break
            end -= 1
    start = end
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:end]


def _callee_rule(
    callee: str, constructor: bool, member: bool, receiver: str
) -> tuple[str, int | None] | None:
    """Which argument of a call to ``callee`` is a credential: (class, position) with position
    None for the last, a negative -n for the last of a call of n arguments or more (a log-in's user
    comes first), or None when the callee says nothing.
    ``member``: the callee follows a ``.`` (a builder chain's ``.apiKey(...)``), made on
    ``receiver`` (:func:`_receiver`)."""
    parts = callee.split(".")
    last = parts[-1]
    lowered = last.lower()
    for key in (".".join(parts[-2:]).lower(), lowered):
        if key in _KEY_POSITIONS:
            return "secret", _KEY_POSITIONS[key]
    owner = parts[-2] if len(parts) > 1 else receiver
    if lowered in _UNLOCKING_CALLS and _DOCUMENT_RECEIVER.search(owner):
        return "password", 0
    if lowered in _LOGIN_CALLS:
        return "password", -1
    if lowered == "connect" and len(parts) > 1:
        return "password", -4  # paramiko's connect(host, port, user, password)
    words = [word.lower() for word in _WORD.findall(last)]
    if not words:
        return None
    if words[0] in _SETTER_VERBS and len(words) > 1:
        named = credential_class("_".join(words[1:]))
        return (named, None) if named else None
    if words[0] in _NOT_SETTER_VERBS:
        return None
    named = credential_class("_".join(words))
    if named and (constructor or last[:1].isupper()):
        return named, -2  # a credentials object takes an id, then its secret; ``Secret("name")`` names one
    if named and (len(parts) > 1 or member):
        return named, None  # a builder's .password(x)
    return None


def _named_by_callee(callee: str) -> bool:
    """Does the callee's own name carry the credential word (``set_password``, ``.apiKey``), not
    only a position in a known signature (``jwt.encode``, ``login``)?"""
    last = callee.split(".")[-1]
    return last.lower() not in _LOGIN_CALLS and credential_class(last) is not None


def _calls(text: str) -> Iterator[Finding]:
    for match in _CALLEE.finditer(text):
        callee = match.group("callee")
        member = match.start("callee") > 0 and text[match.start("callee") - 1] == "."
        receiver = _receiver(text, match.start("callee") - 1) if member else ""
        rule = _callee_rule(callee, bool(match.group("new") or match.group("ctor")), member, receiver)
        keystore = callee.split(".")[-1].lower() in _KEYSTORE_CALLS
        if rule is None and not keystore:
            continue
        arguments = call_arguments(text, match.end())
        if not arguments:
            continue
        name_class, position = rule or ("password", None)
        by_name = rule is not None and _named_by_callee(callee)
        if position is not None and position < 0:  # a log-in: user first, the password last
            if len(arguments) < -position:
                continue
            position = None
        if position is None:
            position = len(arguments) - 1
        if position >= len(arguments):
            continue
        literal = _ARGUMENT_LITERAL.match(text[: arguments[position][1]], arguments[position][0])
        if literal is None or (rule is None and "toCharArray" not in (literal.group("suffix") or "")):
            continue
        if not by_name and not credential_shaped(literal.group("value")):
            continue  # a position says where a password would be, not that this one is
        finding = _literal_finding(literal, name_class, "binding:call")
        if finding is not None:
            yield finding


_CONCATENATED = re.compile(
    r"(?<![\w$])(?P<name>[A-Za-z_]\w{0,63})[\"']?\s*(?::\s*[\w\[\]<>&']{1,20}\s*)?(?:=(?![=>~])|:=|:)\s*"
)
"""A credential-named target and its operator; what follows is read by :func:`_pieces`."""
_PIECE = re.compile(r"(?P<prefix>[bBrRuU]{1,2}|@)?(?P<q>[\"'`])(?P<value>(?:(?!(?P=q))[^\\\n]|\\.)*)(?P=q)")
_GLUE_CODE = re.compile(
    r"(?:[\s+.,|()\[\]{}%&]|\b(?:join|concat|Concat|append|format|Sprintf|sprintf|fmt|new|StringBuilder"
    r"|toString|String|string|str|strings|Join)\b)*"
)
"""What may stand between the pieces of a value built from literals: operators, brackets, and the
calls that glue strings (``"".join``, ``.concat``, ``StringBuilder().append``, ``"%s%s" % (...)``,
``"{}{}".format``, ``fmt.Sprintf``); anything else (a variable, another call) makes it an
expression whose value no literal holds."""
_JOINING = re.compile(r"(?i)join|concat|append|format|printf|%")
_STATEMENT_REACH = 400
PIECE_MIN = 4
"""The shortest piece replaced."""
EVERYWHERE_MIN = 6
"""The shortest piece replaced wherever it occurs, a plain word included (``+split``, as a split
key's pieces are): a piece's label is the statement's name, which no line around an echo holds, so
a plain-word piece (``copper7131``) was otherwise kept beside its replaced head."""


def _pieces(text: str, start: int) -> list[re.Match[str]]:
    """The literals of the statement from ``start`` when it joins literals only (across lines inside
    brackets), else []. A format string of placeholders and an empty separator are glue."""
    depth, index, end = 0, start, min(len(text), start + _STATEMENT_REACH)
    pieces: list[re.Match[str]] = []
    while index < end:
        literal = _PIECE.match(text, index)
        if literal is not None:
            pieces.append(literal)
            index = literal.end()
            continue
        ch = text[index]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                break
        elif (
            ch in ";\n"
            and depth == 0
            and (ch == ";" or not text[start:index].rstrip().endswith(("+", "\\", ".", "||")))
        ):
            break
        index += 1
    between = [text[a.end() : b.start()] for a, b in zip(pieces, pieces[1:], strict=False)]
    if len(pieces) < 2 or not all(_GLUE_CODE.fullmatch(gap) for gap in between):
        return []
    if any(piece.group("q") == "`" and "${" in piece.group("value") for piece in pieces):
        return []  # a template literal interpolates a reference
    if any("," in gap for gap in between) and not _JOINING.search(text, start, index):
        return []  # "a", "b" is a list (a JSON object's next entry) unless a call joins it
    return [
        piece for piece in pieces if piece.group("value") and not FORMAT_ONLY.fullmatch(piece.group("value"))
    ]


def _concatenations(text: str, starts: list[int]) -> Iterator[Finding]:
    """A credential built from literal pieces in one statement: each piece of four characters or
    more, when the pieces joined are a credential (red team rtsec8 F22: the first piece was found,
    the rest stood beside its pseudonym)."""
    for name_start in starts:
        match = _CONCATENATED.match(text, name_start)
        if match is None:
            continue
        name_class = credential_class(match.group("name"))
        if name_class is None:
            continue
        pieces = _pieces(text, match.end())
        joined = "".join(piece.group("value") for piece in pieces)
        if len(pieces) < 2 or not acceptable_value(joined, True, name_class, ""):
            continue
        kind = "PASSWORD" if name_class == "password" else "SECRET"
        for piece in pieces:
            value = piece.group("value")
            if len(value) >= PIECE_MIN:
                detector = "binding:concatenation" + ("+split" if len(value) >= EVERYWHERE_MIN else "")
                yield Finding(kind, *piece.span("value"), value, detector)


def _fallbacks(text: str) -> Iterator[Finding]:
    for match in _FALLBACK_OPERATOR.finditer(text):
        looked_up = _LOOKED_UP.search(text, max(0, match.start() - _LONGEST_LOOKUP), match.start())
        name_class = credential_class(looked_up.group("name")) if looked_up else None
        if name_class is not None and (finding := _literal_finding(match, name_class, "binding:fallback")):
            yield finding
    for pattern in _FALLBACKS:
        for match in pattern.finditer(text):
            name_class = credential_class(match.group("name"))
            if name_class is not None and (
                finding := _literal_finding(match, name_class, "binding:fallback")
            ):
                yield finding
    if "${" in text:
        for match in _SHELL_DEFAULT.finditer(text):
            name_class = credential_class(match.group("name"))
            if name_class is not None and (
                finding := _literal_finding(match, name_class, "binding:fallback")
            ):
                yield finding


def _directives(text: str) -> Iterator[Finding]:
    for match in _DIRECTIVE.finditer(text):
        name_class = credential_class(match.group("name"))
        if name_class is None:
            continue
        raw = match.group("value")
        start = match.start("value")
        value = raw
        if raw[0] in "\"'":
            value, start = raw[1:-1], start + 1
        if match.group("name").lower() in _COMMANDS or _PORT_OR_PATH.fullmatch(value) or value[-1] in ".,:;":
            continue  # a command's argument, a path, or a line of prose ("TAPAS models.")
        if credential_shaped(value) and acceptable_value(value, True, name_class, ""):
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, start, start + len(value), value, "binding:directive")


def _hcl_blocks(text: str) -> Iterator[Finding]:
    """``variable "db_password" { default = "x" }``: the block's label names its ``default`` or
    ``value``; ``sensitive = true`` says it of any label."""
    for block in _HCL_BLOCK.finditer(text):
        body_end = min(len(text), block.end() + _HCL_BLOCK_REACH)
        closing = text.find("}", block.end(), body_end)
        body_end = closing if closing >= 0 else body_end
        body = text[block.end() : body_end]
        named = credential_class(block.group("label"))
        name_class = named or ("password" if _HCL_SENSITIVE.search(body) else None)
        if name_class is None:
            continue
        for value in _HCL_VALUE.finditer(text, block.end(), body_end):
            if acceptable_value(value.group("value"), True, name_class, ""):
                kind = "PASSWORD" if name_class == "password" else "SECRET"
                yield Finding(kind, *value.span("value"), value.group("value"), "binding:hcl")


_P_IS_NO_PASSWORD = re.compile(r"(?<![\w.-])(?:sudo|su|doas|mysql\w*|mariadb\w*)(?![\w.-])")
"""Commands whose ``-p`` after a user is no password: ``sudo -u u -p 'Prompt:'`` sets the prompt,
``mysql -u u -p db`` prompts and names the database (their glued ``-pX`` is the client table's)."""


def _short_options(text: str) -> Iterator[Finding]:
    for match in _SHORT_PASSWORD.finditer(text):
        value = match.group("value")
        if _PORT_OR_PATH.fullmatch(value) or not credential_shaped(value):
            continue
        command_start = max(text.rfind(stop, 0, match.start()) for stop in "\n|;&") + 1
        if _P_IS_NO_PASSWORD.search(text, command_start, match.start()):
            continue
        yield Finding("PASSWORD", *match.span("value"), value, "binding:short_option")


_BOUND_LITERAL = re.compile(r"(?:=|<-|:)[\s\w@:()\[\].{]{0,40}[\"'`]")
"""An operator, then a quote within a wrapper's, a prefix's or a joining call's length: what every
declaration and concatenation holds; most texts hold none, and the name scan costs a pass."""
_API_GATE = re.compile(
    r"fernet|aes|bcrypt|tochararray|cipher|pkcs12|authenticate|sign_?in|log_?(?:in|on)|connect|crypt\("
)
"""The call rules' names that hold no credential word (:data:`.credential_names.KEYWORD_SCAN`)."""
SHORTEST = 10
"""No binding fits a name, a value of four characters and their syntax in fewer characters."""


def find_code_bindings(text: str) -> Iterator[Finding]:
    """Every literal ``text`` binds to a credential by a declaration, a call, a fallback, a
    directive or a command's short options (module docstring)."""
    if len(text) < SHORTEST:
        return
    hits = credential_word_hits(text)
    named = bool(hits)
    quoted = '"' in text or "'" in text or "`" in text
    if named and quoted and _BOUND_LITERAL.search(text):
        starts = _credential_name_starts(text, hits)
        yield from _declarations(text, starts)
        yield from _concatenations(text, starts)
    if quoted and "(" in text and (named or _API_GATE.search(text.lower())):
        yield from _calls(text)
    if named:
        yield from _fallbacks(text)
        yield from _directives(text)
    if "variable" in text or "output" in text:
        yield from _hcl_blocks(text)
    if "-p" in text or "-P" in text or "-w" in text or "/p:" in text:
        yield from _short_options(text)
