"""What sits where a credential's value would and is not one: the exceptions every labelled-value
rule asks before it reports a value.

A false positive here is not a harmless extra pseudonym: the value enters the episode's symbol
table and pass 3 rewrites every copy of it, so a working directory read as a password rewrote the
task prompt and every ``cd``, and a ``16 bytes`` read as one rewrote every size the episode
printed. Each rule is about a *meaning* the name or the value carries, never a listed example:

- ``PWD`` / ``OLDPWD`` are the shell's working directories (``env`` dumps, ``-v $PWD:/src``): with
  a path as value the name is no password (MongoDB's ``pwd: "s3cret"`` keeps its meaning);
- a number with a unit (``16 bytes``, ``81.5%``, ``250 ms``) is a measurement: what ``kubectl
  describe secret`` prints instead of the value, a metric, a size;
- a language keyword that opens an expression (``password = await get_password()``, ``= yield
  select(...)``, ``= lambda: ...``) followed by more code on its line is code fetching the
  value, not the value;
- the operand of ``${NAME:?message}`` / ``${NAME:+alternate}`` is a message or an alternate, never
  the variable's value (only ``:-`` / ``:=`` defaults can hold one);
- a hardware pin label (``GPIO21``, ``D2``) under ``pin`` names a pin, not a PIN;
- a human-language label that names a credential (``"password": "Mot de passe"``, ``secret_key:
  Geheimer Schlüssel``) is a translation catalogue's entry: the credential's name, as the
  placeholder rule already reads ``password: Password``. A label naming none (``Wachtzin``) counts
  where the same text holds two that do: the text is a catalogue;
- ``PASS``/``FAIL`` before a test's name or a test file (``--- PASS: TestRefresh``, Jest's ``PASS
  src/Login.test.tsx``) is a test runner's verdict, not the FTP command or a password's label;
- a credential's name compared (``if key == 'password': continue``, ``case "token":``, ``elif k in
  ('secret'): break``) is a string a branch tests: what follows its colon is the branch's code;
- ``-u``/``--user`` ``USER:GROUP`` of a container runtime or an owner-setting command, or where
  the group repeats the user or both are numeric ids, is a container's or a file's owner (``docker
  run -u 1000:1000``, ``--user nobody:nogroup``), not ``curl -u user:password``;
- a request target (``/api/v1/users?page=2``, ``GET:/static/app.js``) is what a cache or a gateway
  keyed (``X-Cache-Key``'s debug value), never a credential: a path of two lowercase segments or
  more, each spelled, optionally after an HTTP method, with a query of words;
- a variable joined to a string literal (``password = prefix+"-dev"``, ``pw: base + "@2024"``,
  the literal first, ``"dev-" + suffix``, or a template literal, ``prefix+`_2024```,
  ```${base}_2024```) is an expression of JavaScript, TypeScript, Java, C# or Python computing the
  value: the variable's name is spelled (letters, ``_``, ``$``, dots), the ``+`` and a quote
  stand between it and the literal, and code's syntax stands before the expression (a spaced
  ``=`` or ``:``, an argument's ``(`` or ``,``, ``return``). A shell has no ``+`` operator:
  ``PASS=abc+'x'`` and ``-pabc+'x'`` are one word, a password. A literal of the expression that
  looks random is still a piece of the credential (:mod:`.joined_values`);
- a time stamp opening a line (``2024-05-01T12:00:00.1234567Z``, ``[2024-05-01 12:00:00,123]``,
  ``12:00:01.250``) is the next log line's, read as a value where a credential's name ended the
  line before (a GitHub Actions runner's ``Evaluating: env.DB_PASSWORD``, a logger's message);
- a YAML flow mapping or sequence of keys (``secretKeyRef: {name: db, key: password}``,
  ``envFrom: [{secretRef: {name: db}}]``) is a reference to where a secret is kept, its entries
  judged as their own ``name: value`` pairs: replacing ``{name:`` broke the manifest.
"""

from __future__ import annotations

import re
from functools import lru_cache

from trajectory_platform.curation.redact.credential_names import FOREIGN_PASSWORD, credential_class
from trajectory_platform.curation.redact.spelling import MIN_LETTERS, unspellable

PLACEHOLDER = re.compile(
    r"^(?:[*xX#.\-_?•]+|<[^>]*>|\$\{[^}]*\}?|\{\{.*\}\}|%\(.*\)s?|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|"
    r"[\[({]?(?i:none|null|nil|true|false|undefined|required|optional|string|str|int|bool|text|bytes|password|"
    r"passwd|secret|token|key|hidden|redacted|masked|omitted|removed|withheld|censored|changeme|example|dummy|"
    r"test|(?:your|my)[_-]?[a-z_\-]*|"
    r"os\.environ.*|process\.env.*|getenv.*|env\..*|self|this|value|input|default|empty|prompt|"
    r"not[_ ]?set|unset|todo|fixme|tbd|n/?a|sample|sensitive)[\])}]?|0x[0-9a-fA-F]{1,40})$"
)
"""What stands for a value and is none. A word of the list may sit in the brackets a tool prints
it in (``Password: [hidden]``, ``token = (redacted)``, ``{masked}``; the rule reading the value may
stop before the closing one), as ``<your-key>`` sits in its angles (red team, round 12)."""
_PLACEHOLDER_CLOSERS = ("", ">", "}", " }}", ")s", "%")
"""What closes each opening :data:`PLACEHOLDER` knows: nothing (a ``$NAME`` reference, a word of
the list), an angle, a brace, a template's braces, a ``%(name)s`` format, a ``%NAME%`` variable."""


def placeholder_head(head: str) -> bool:
    """Is ``head`` the start of a placeholder that a truncation mark cut (``<your-passw...``,
    ``$DB_PASSWORD_PRO...``, ``${API_TO…``, ``{{ secrets.DB_PA...``): a :data:`PLACEHOLDER` once
    its closer is put back? A harness's cut keeps a placeholder's head as it keeps a value's, and
    a reference or a template, even cut, names where the value is kept, never the value."""
    return len(head) >= 2 and any(PLACEHOLDER.match(head + closer) for closer in _PLACEHOLDER_CLOSERS)


_WORKING_DIRECTORY_NAMES = frozenset({"pwd", "oldpwd"})
_VALUE_ATTRIBUTE_AFTER = re.compile(r"""["']?[ \t]+value[ \t]*=[ \t]*["']""")
"""A ``value`` attribute after a ``key`` attribute's (.NET's ``<add key="SHA256SUM" value="..." />``,
a ``<setting key=... value=...>``): the key names the entry, and its value is the other attribute's."""
_PATH_VALUE = re.compile(r"(?:~|\.{1,2})?/|[A-Za-z]:[\\/]|\$\{?[A-Za-z_]")
"""The start of a path: absolute, home- or dot-relative, a Windows drive, or a variable holding one."""

_REQUEST_TARGET = re.compile(
    r"(?:(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)[: ]?)?(?P<path>(?:/[a-z0-9._-]+){2,}/?)"
    r"(?:\?[a-z0-9_.-]+=[\w.%-]*(?:&[a-z0-9_.-]+=[\w.%-]*)*)?"
)
"""A request's method and path (module docstring); its segments are checked for words."""
_SEGMENT_LETTERS = re.compile(rf"[a-z]{{{MIN_LETTERS},}}")
_NUMBER = r"[-+]?\d+(?:[.,]\d+)?"
_UNIT = (
    r"(?:%|bytes?|[kKMGTP]i?B|bits?|[mun]s|secs?|seconds?|mins?|minutes?|hours?|days?|chars?|characters?"
    r"|words?|lines?|items?|entries|keys?|rounds?)(?![\w-])"
)
_MEASUREMENT = re.compile(rf"{_NUMBER}(?:\s*{_UNIT}|\s+[Bhs])")
"""A number and its unit: a size, a duration, a share, a count of characters or rounds."""
_UNIT_AFTER = re.compile(rf"[ \t]*{_UNIT}")
"""A unit after a number a rule read alone (``password:  1024 bytes`` gave ``1024``)."""

_EXPRESSION_KEYWORDS = frozenset(
    {
        *("await", "yield", "lambda", "match", "new", "typeof", "try", "async", "function", "not"),
        *("runBlocking", "suspend", "sizeof", "instanceof", "delete", "void", "unsafe", "move", "if"),
        *("switch", "when", "do", "defer", "go", "select", "from", "import", "require", "static"),
    }
)
"""Keywords (and Kotlin's ``runBlocking``) that open an expression or a statement: after ``=`` the
value is computed there, by code that follows the keyword on its line."""
_CODE_AFTER = re.compile(r"[ \t]+[\w$@*(\[{!<:.|-]")

_HARDWARE_PIN = re.compile(r"(?i)(?:GPIO|GP|IO|ADC|PWM|PIN)_?\d{1,3}|P[A-K]?\d{1,2}(?:_\d{1,2})?")
"""A microcontroller pin's label (ESPHome ``pin: GPIO21``, MicroPython ``Pin("GP15")``, STM32
``PA10``); shorter ones (Arduino's ``D2``) are below any value's length."""

_EXPANSION_OPEN = re.compile(r"\$\{[#!]?$")
_EXPANSION_OPERAND = re.compile(r"\??[?+]")
"""``${NAME:?msg}``, ``${NAME?msg}``, ``${NAME:+alt}``: after the name's ``:`` the operand starts
with ``?`` or ``+``."""

_LABEL = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*(?: [^\W\d_]+(?:['’-][^\W\d_]+)*){0,4}(?: ?[?:.!…])?")
"""A label of natural language: one to five words of letters (any script), an apostrophe or a hyphen
inside a word, an ending mark; no digit, no symbol a password is made of."""
_CAMEL_CASE = re.compile(r"[a-z][A-Z]")
_CREDENTIAL_WORD = re.compile(
    r"(?i)"
    + FOREIGN_PASSWORD
    + r"|pass(?:word|phrase|code)?s?|passe|pins?|secrets?|keys?|tokens?|phrases?|credentials?"
    r"|secr[eèé]t[aeo]?s?|segret[ao]|geheim(?:e[rns]?)?|hemlig[at]?|hemmelig[et]?|salainen|tajn[aeyáýé]|gizli"
    r"|cl[ée]s?|claves?|chiav[ei]|chaves?|schl[üu]ssel|sleutel|nyckel[n]?|n[øo]gle|n[øo]kkel|avain|klucz|kl[íi][čc]"
    r"|anahtar[ıi]?|ключ\w*|секрет\w*|фраз[аы]|токен|jeton|frases?|fraza|parol[aăe]?|parool|lozinka|лозинка"
    r"|парола|slapta[žz]odis|contrasenya|sandi|laluan|rahasia|kunci|kh[ẩa]u|kh[óo]a|cheie|chei|clau|titkos|kulcs\w*"
    r"|raktas|atsl[ēe]ga|v[õo]ti|salajane|tajn[iy]|тајн\w*|таен|κωδικ\w*|κλειδ\w*|μυστικ\w*|συνθηματικ\w*"
    r"|مفتاح|المرور|سر\w*|رمز|कुंजी|पासवर्ड|"
    r"\w+(?:token|schl[üu]ssel|sleutel|nyckel|fras|zin|wort)"
)
"""A word naming a credential in the languages users write (a whole word of a label: a key, a
secret, a phrase, a token, a password), and the heads of the compounds Germanic languages make of
them (``Zugriffstoken``, ``Lösenfras``, ``Wachtzin``). Whole words only: ``Mypassword`` is a
(weak) password, not a label."""
_CREDENTIAL_IDEOGRAMS = re.compile(
    r"鍵|键|密钥|秘密|キー|키|비밀|令牌|トークン|토큰|フレーズ|パスワード|密[码碼]|口令|비밀번호|비번|รหัส|กุญแจ"
)
"""The same in scripts that write no spaces (``APIキー``, ``秘密鍵``): found anywhere in the label."""
_CATALOGUE_ENTRY = re.compile(
    r"(?m)^[ \t]*[\"']?(?P<name>[\w.\-]{1,64})[\"']?[ \t]*[:=][ \t]*"
    r"[\"']?(?P<value>[^\"'\n]{1,80}?)[\"']?[;,]?[ \t]*$"
)

_VERDICTS = frozenset({"PASS", "FAIL", "PASSED", "FAILED"})
_TEST_SUBJECT = re.compile(
    r"(?:Test|Example|Benchmark|test_)\w*|\S*(?:(?:^|/)(?:__tests__|tests?|specs?|e2e)/\S+"
    r"|[._-](?:test|spec|e2e)s?\.[A-Za-z]{1,4}|/?test_\w+\.py)(?:::\S+)?"
)
"""What a test runner names after its verdict: a Go/Rust/JUnit test, a test file by its folder or
its ``.test``/``.spec``/``test_`` name."""

_OWNER_COMMAND = re.compile(
    r"\b(?:docker|podman|nerdctl|buildah|docker-compose|podman-compose|crictl|ctr|apptainer|singularity"
    r"|chown|chgrp|install|runuser|setpriv|gosu|su-exec)\b"
)
"""Commands whose ``-u``/``--user`` (or owner argument) is ``USER[:GROUP]``: who a container or a
file runs as or belongs to."""
_CLIENT_BETWEEN = re.compile(
    r"\b(?:curl|wget|https?|xh|httpie|git|svn|lftp|ftp|mysql|psql|mongo\w*|redis-cli)\b|[|;&]"
)
"""A client (or a new command) between the owner command and ``-u``: then ``-u`` is the client's
``user:password`` (``docker run curlimages/curl -u bob:pw``)."""
_FLOW_COLLECTION = re.compile(r"[\[{][ \t]*(?:\{[ \t]*)?[\"']?[A-Za-z_][\w.-]*[\"']?:(?:[ \t]|$)")
"""A YAML flow mapping (or a sequence of them) opening with a key: ``{name: db``, ``[{secretRef:``."""
_USER_SPEC = re.compile(r"(?<!\S)(?:-u|--user)[\s=]*[\"']?(?P<user>[^\s:'\"=]{1,64})[\"']?:[\"']?$")

_JOINED_TO_LITERAL = re.compile(
    r"[A-Za-z_$][A-Za-z_$.]*[ \t]*\+[ \t]*[\"'`]"
    r"|(?:\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`)[ \t]*\+[ \t]*[A-Za-z_$]"
    r"|`[^`\n]*\$\{[^`\n]*`"
)
"""A spelled variable, ``+`` and a string literal's opening quote; a literal, ``+`` and a variable;
or a template literal that interpolates one (module docstring)."""
_LOG_STAMP = re.compile(
    r"\[?(?:\d{4}([-/.])\d{2}\1\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?"
    r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(?:Z|[+-]\d{2}:?\d{2})?\]?"
)
"""A log line's time stamp: an ISO 8601 date (``-``, ``/`` or ``.`` between its parts) and time,
or a time of day alone, with a zone and brackets."""


def log_stamp(text: str, value_start: int, value: str) -> bool:
    """Is ``value`` the time stamp opening its line in ``text`` (module docstring)?"""
    line_start = text.rfind("\n", 0, value_start) + 1
    if text[line_start:value_start].strip(" \t["):
        return False
    stamp = _LOG_STAMP.match(text, value_start)
    return stamp is not None and stamp.end() >= value_start + len(value.rstrip(".,:;!?"))


_CODE_BEFORE = re.compile(r"(?:[=:][ \t]+|[(,][ \t]*(?:[A-Za-z_]\w*=)?|\breturn[ \t]+)$")
"""Code's syntax before an expression: a spaced assignment or key (a shell's ``NAME=`` has no
space), a call's argument (a keyword argument's too), a returned value."""


def joined_to_literal(text: str, at: int) -> bool:
    """Does ``text`` at ``at`` hold a variable joined to a string literal by ``+``, where code
    stands (module docstring)? The rules and the view that reads a word's quoted pieces as one
    both ask. ``at`` may be a quoted value's first character: the expression opens at its quote."""
    if at and text[at - 1] in "\"'`" and _JOINED_TO_LITERAL.match(text, at - 1) is not None:
        at -= 1
    elif _JOINED_TO_LITERAL.match(text, at) is None:
        return False
    line_start = max(text.rfind("\n", 0, at) + 1, at - 80)
    return _CODE_BEFORE.search(text, line_start, at) is not None


_JOINED_BEFORE_QUOTE = re.compile(r"[A-Za-z_$][A-Za-z_$.]*[ \t]*\+[ \t]*$")


def opens_joined_literal(text: str, quote_at: int) -> bool:
    """Does the quote at ``quote_at`` open the literal of a :func:`joined_to_literal` expression
    (``envPrefix+`_2024```, ```dev_` + suffix``, ```${base}_2024```)? Markdown's view asks it of a
    backtick: there it opens a JavaScript template literal, not a code span, and dropped, it left
    the variable glued to the literal's text, read as a password (session 45)."""
    if joined_to_literal(text, quote_at):
        return True
    line_start = max(text.rfind("\n", 0, quote_at) + 1, quote_at - 80)
    variable = _JOINED_BEFORE_QUOTE.search(text, line_start, quote_at)
    return variable is not None and joined_to_literal(text, variable.start())


_COMPARED = re.compile(r"(?:[=!]==?|<>|\bcase|\bwhen)\s*[(\[]?\s*$")
"""What stands before a name a branch compares: an equality operator, ``case``, ``when``."""
_COMPARED_QUOTED = re.compile(r"(?:\b(?:in|is|not\s+in|is\s+not))\s*[(\[]?\s*$")
"""A membership or identity test, before a quoted name only (prose says "log in password: x")."""


def _compared(text: str, name: str, name_start: int) -> bool:
    """Is ``name`` the operand of a comparison or a ``case`` (:data:`_COMPARED`)?"""
    line_start = text.rfind("\n", 0, name_start) + 1
    start = max(line_start, name_start - 40)
    if _COMPARED.search(text, start, name_start):
        return True
    return name[:1] in "\"'" and _COMPARED_QUOTED.search(text, start, name_start) is not None


def not_a_value(text: str, name: str, name_start: int, value: str, value_start: int) -> bool:
    """Is ``value`` (at ``value_start`` of ``text``, after the credential-marking ``name`` at
    ``name_start``) one of the things that stand where a value would without being one (module
    docstring)?"""
    if test_verdict(name, value):
        return True
    bare_name = name.strip("\"'").lstrip("-$@{").rstrip("}").lower()
    if bare_name in _WORKING_DIRECTORY_NAMES and _PATH_VALUE.match(value):
        return True
    if bare_name == "key" and _VALUE_ATTRIBUTE_AFTER.match(text, value_start + len(value)):
        return True
    if _MEASUREMENT.fullmatch(value) or (
        re.fullmatch(_NUMBER, value) and _UNIT_AFTER.match(text, value_start + len(value))
    ):
        return True
    if value.rstrip(":") in _EXPRESSION_KEYWORDS and _CODE_AFTER.match(text, value_start + len(value)):
        return True
    if "pin" in re.split(r"[^a-z]+", bare_name) and _HARDWARE_PIN.fullmatch(value):
        return True
    if translated_label(text, value):
        return True
    if _compared(text, name, name_start):
        return True
    if _FLOW_COLLECTION.match(text, value_start) or joined_to_literal(text, value_start):
        return True
    if log_stamp(text, value_start, value):
        return True
    if (target := _REQUEST_TARGET.fullmatch(value)) and not any(
        map(unspellable, _SEGMENT_LETTERS.findall(target.group("path")))
    ):
        return True
    return (
        _EXPANSION_OPEN.search(text, max(0, name_start - 3), name_start) is not None
        and _EXPANSION_OPERAND.match(value) is not None
    )


def owner_spec(text: str, value_start: int, value: str) -> bool:
    """Is the ``value`` after ``-u``/``--user NAME:`` a group (``USER:GROUP``), not a password: the
    group repeats the user (``www-data:www-data``) or both are numeric ids (``1000:1000``)?"""
    line_start = text.rfind("\n", 0, value_start) + 1
    spec = _USER_SPEC.search(text, max(line_start, value_start - 80), value_start)
    if spec is None:
        return False
    user = spec.group("user")
    if value == user or (user.isdigit() and value.isdigit()):
        return True
    commands = [found.end() for found in _OWNER_COMMAND.finditer(text, line_start, spec.start())]
    return bool(commands) and _CLIENT_BETWEEN.search(text, commands[-1], spec.start()) is None


def _label(value: str) -> bool:
    return _LABEL.fullmatch(value) is not None and _CAMEL_CASE.search(value) is None


def _names_a_credential(value: str) -> bool:
    """Does a label say which credential it is (``Mot de passe``, ``Clé API``, ``Пароль``)?"""
    return _label(value) and (
        _CREDENTIAL_IDEOGRAMS.search(value) is not None
        or any(_CREDENTIAL_WORD.fullmatch(word) for word in re.split(r"[ '’-]", value.rstrip("?:.!… ")))
    )


def translated_label(text: str, value: str) -> bool:
    """Is ``value`` a catalogue's label for a credential (module docstring): a label naming one, or
    any label where ``text`` holds two such entries?"""
    if not _label(value):
        return False
    return _names_a_credential(value) or _catalogue(text)


@lru_cache(maxsize=16)
def _catalogue(text: str) -> bool:
    """Does ``text`` hold two entries or more of a credential-named key and a label naming a
    credential (``password = "Passwort"``, ``"api_key": "Clé API"``)?"""
    entries = 0
    for entry in _CATALOGUE_ENTRY.finditer(text):
        if credential_class(entry.group("name")) and _names_a_credential(entry.group("value").strip()):
            entries += 1
            if entries == 2:
                return True
    return False


def test_verdict(label: str, value: str) -> bool:
    """Is ``label value`` a test runner's verdict on a test (``PASS  src/Login.test.tsx``)?"""
    return label.strip().rstrip(":") in _VERDICTS and _TEST_SUBJECT.fullmatch(value) is not None
