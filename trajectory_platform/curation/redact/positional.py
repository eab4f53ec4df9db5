"""Credentials whose label is not right before them: a table's column, an ``INSERT``'s column list,
a sibling key, an argument's position, a command's syntax.

``name <op> value`` (:func:`.detectors.find_assignments`) finds a password where its name precedes
it. Logs also show credentials laid out by position: a ``psql`` or Markdown table whose header
names the ``password`` column, a key/value table's row (``smtp_password | x`` under ``key |
value``), ``INSERT INTO users (name, password) VALUES ('bob', 'x')``, a
Kubernetes ``- name: DB_PASSWORD`` whose ``value:`` is the next line, ``requests.get(url,
auth=("bob", "x"))`` (any call that logs in: :mod:`.login_calls`), ``AUTH x`` at a Redis
prompt, ``echo 'x' | sudo -S``. A strong random value
there is found by entropy anyway; a memorable one (``Tr1cky-Walrus-2024``) was left standing.

Whether a name marks a credential is :func:`.credential_names.credential_class`, one rule for every
detector. A value found by position must look like a credential (:func:`credential_shaped`): the
layout says where a password would be, not that this cell holds one.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.actions_debug import find_actions_debug_values
from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_names import credential_class, unescaped_name
from trajectory_platform.curation.redact.cut_values import find_cut_cells, may_be_cut
from trajectory_platform.curation.redact.decoders import ANSI_ESCAPE
from trajectory_platform.curation.redact.detectors import acceptable_value, names_a_digest, passphrase_shaped
from trajectory_platform.curation.redact.line_values import line_phrase
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.not_values import test_verdict
from trajectory_platform.curation.redact.pairs import (
    find_account_pairs,
    find_bare_userinfo,
    find_slashed_logins,
)
from trajectory_platform.curation.redact.rows import (
    NamingLines,
    ascii_table,
    find_labelled_rows,
    naming_lines,
)
from trajectory_platform.curation.redact.spelling import unspellable
from trajectory_platform.curation.redact.sql_columns import INSERT, column_names, copy_blocks, insert_rows
from trajectory_platform.curation.redact.sql_parameters import bound_insert_values
from trajectory_platform.curation.redact.stdin_feeds import READS_STDIN, find_fed_passwords
from trajectory_platform.curation.shell_split import substituted_or_redirected

_NAME = re.compile(r"[A-Za-z_][\w .-]{0,39}")
_SEPARATOR_ROW = re.compile(r"[\s|:+=-]+")
_DELIMITERS = ("|", "\t", ",", ";")
"""A ``;`` table is a CSV file exported where the decimal mark is a comma (Excel in most of Europe)."""
_COLUMN_NAME = re.compile(r"[A-Za-z_]\w{0,39}")
"""A header cell of a ``|`` table with no separator row under it (``sqlite3 -header``): a column's
name, no spaces (a shell pipeline's stages have them)."""

CREDENTIAL_OUTPUT = {
    "kubernetes_secret": r"\bkubectl\b[^\n|]*\bget\s+secrets?\b[^\n|]*(?:"
    r"jsonpath=[\"']?\{\.data(?:\.|\[\\?[\"'])[\w.-]{1,80}(?:\\?[\"']\])?\}(?:\{[^{}\n]*\})*[\"']?"
    r"\s*\|\s*base64\s+(?:-d|--decode|-D)\b"
    r"|go-template=[\"']?\{\{[^\n]*?base64decode[^\n]*?\}\})",
    "vault_field": r"\bvault\s+(?:kv\s+get|read)\b[^\n|]*\s-field[= ]\S+",
    "aws_secrets_manager": r"\baws\s+secretsmanager\s+get-secret-value\b"
    r"(?=[^\n|]*--query\s+[\"']?SecretString\b)(?=[^\n|]*--output\s+text\b)",
    "gcloud_secrets": r"\bgcloud\s+secrets\s+versions\s+access\b",
    "az_keyvault": r"\baz\s+keyvault\s+secret\s+show\b(?=[^\n|]*--query\s+[\"']?value\b)",
    "onepassword": r"\bop\s+read\s+[\"']?op://",
    "macos_keychain": r"\bsecurity\s+find-(?:generic|internet)-password\b[^\n|]*\s-w\b",
    "pass": r"\b(?:go)?pass\s+show\b",
    "bitwarden": r"\bbw\s+get\s+password\b",
    "lastpass": r"\blpass\s+show\b[^\n|]*--password\b",
    "doppler": r"\bdoppler\s+secrets\s+get\b[^\n|]*--plain\b",
    "keyring_cli": r"\bkeyring\s+(?:-\S+\s+(?:(?!get\b)[^\s-]\S*\s+)?)*get\s+\S+\s+\S+",
    "keyring_api": r"\bprint\s*\(\s*(?:[A-Za-z_]\w*\.)*get_password\s*\(",
    "cloud_access_token": r"\bgcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token\b"
    r"|\baz\s+account\s+get-access-token\b|\baws\s+ecr(?:-public)?\s+get-login-password\b",
    "cli_session_token": r"\b(?:gh|glab)\s+auth\s+token\b|\bheroku\s+auth:token\b"
    r"|\boc\s+whoami\s+(?:-t|--show-token)\b|\bkubectl\s+create\s+token\b|\bsecret-tool\s+lookup\b",
}
"""Commands that print one credential's plaintext and nothing else, by store: a Kubernetes Secret's
field decoded (``jsonpath='{.data.password}' | base64 -d``, a ``go-template`` with
``base64decode``), ``vault kv get -field=...``, ``aws secretsmanager get-secret-value --query
SecretString --output text``, ``gcloud secrets versions access``, ``az keyvault secret show --query
value``, 1Password's ``op read``, the macOS keychain's ``-w``, ``pass``, Bitwarden, LastPass,
Doppler, Python's ``keyring`` (its command line's ``get SERVICE USER`` and a printed
``keyring.get_password(...)``), a cloud's or a CLI's own access token (``gcloud auth
print-access-token``, ``az account get-access-token``, ``aws ecr get-login-password``, ``gh auth
token``, ``oc whoami -t``, ``kubectl create token``, ``secret-tool lookup``). What it prints is the
secret, though no name stands beside it: the line after the command in a transcript, or the
output of the tool call that ran it (:func:`printed_secret`). One table: a store added here is
read everywhere a command's output is."""
SECRET_READER = "positional:secret_reader"
"""The detector of a value a :data:`CREDENTIAL_OUTPUT` command's tool call got back: its evidence is
the call, another event, so the value is replaced wherever it occurs (``engine.build_table``)."""
PRINTS_SECRET = re.compile("|".join(f"(?:{pattern})" for pattern in CREDENTIAL_OUTPUT.values()))
"""Any command of :data:`CREDENTIAL_OUTPUT`."""
_COMMAND_READERS = "|".join(
    f"(?:{pattern})" for name, pattern in CREDENTIAL_OUTPUT.items() if name != "keyring_api"
)
"""The commands of :data:`CREDENTIAL_OUTPUT`, less a call in code: a line after a command with no
prompt before it is still its output, a line after ``print(keyring.get_password(...))`` in a
script is the script's next line."""
_ASKED_FIELD = re.compile(r"-field[= ][\"']?(?P<field>[\w.-]+)|op://[^\s\"']*/(?P<item>[\w.-]+)")
"""The field a store's read names (``vault kv get -field=username``, ``op read op://v/db/username``):
a field no credential's name marks prints what it is named for, a user's or a host's name."""
_MESSAGE = re.compile(
    r"(?i)^(?:none|null|nil|undefined|<nil>|\(none\))$|^\[?[A-Za-z][\w.()/ -]{0,40}\]?:(?:\s|$)|^\[[A-Z]+\]"
    r"|^(?:error|warning|fatal|usage|traceback|exception)\b"
)
"""How a store's diagnostic starts: ``None`` (``keyring.get_password`` of nothing), a program's
or a level's prefix (``security: ...``, ``Error: ...``, ``ERROR: (gcloud...)``, ``[ERROR]``)."""
_MESSAGE_WORDS = frozenset(
    {"not", "no", "cannot", "can't", "could", "unable", "failed", "denied", "invalid", "expired", "locked"}
    | {"please", "found", "error", "missing", "unauthorized", "forbidden", "required", "sealed"}
)
"""Words of a diagnostic sentence (``Vault is locked.``, ``permission denied``): a line of two words
or more holding one is the store's complaint, not the value."""


def printed_secret(output: str, command: str = "") -> str | None:
    """The value a :data:`PRINTS_SECRET` ``command`` printed, when its ``output`` is that one line:
    whatever its shape (a memorable password, a passphrase of several words, a PIN of six digits),
    since the command says what it is. A diagnostic (:data:`_MESSAGE`, a sentence naming a
    failure), a JSON document or a line under six characters is not one; a field no credential's
    name marks (:data:`_ASKED_FIELD`) keeps the old test, a credential-shaped line."""
    value = output.strip()
    if not value or "\n" in value:
        return None
    asked = _ASKED_FIELD.search(command)
    field = asked and (asked.group("field") or asked.group("item"))
    if field and _NAME_PART.findall(field) and not _asks_for_credential(field) and field.lower() != "value":
        return value if credential_shaped(value) else None
    if credential_shaped(value):
        return value
    words = [word.strip(".,:;!?'\"()").lower() for word in value.split()]
    if (
        len(value) < 6
        or _MESSAGE.search(value)
        or value[0] in "{["
        or (len(words) > 1 and (value.endswith(".") or not _MESSAGE_WORDS.isdisjoint(words)))
    ):
        return None
    return value


_READER = re.compile(
    r"^(?:(?:sudo|command|exec)\s+(?:-\S+\s+)*|[A-Za-z_]\w*=\S*\s+"
    r"|(?:docker|podman|kubectl|oc)\s+exec\s+(?:-{1,2}[\w-]+(?:[= ](?!-)\S+)?\s+)*\S+\s+(?:--\s+)?)*"
    r"(?:echo|printf|printenv|env|cat|head|tail|type|jq|yq|grep|egrep|rg|awk|sed|cut|sops|terraform\s+output"
    r"|pulumi\s+config\s+get|heroku\s+config:get|python[\d.]*|node|ruby|perl|php|Get-Content)\b"
)
"""A command whose output is what it reads (after ``sudo``, an ``X=1`` prefix, ``docker``/``kubectl
exec <target> --``): it prints a variable, a file, a field of a document, an output of a stack."""
_REFERENCE = re.compile(
    r"\$\{?(?:env:)?(?P<variable>[A-Za-z_]\w*)"
    r"|(?P<q>[\"'])(?P<quoted>(?:(?!(?P=q))[^\n]){1,400})(?P=q)"
    r"|(?<![\w-])(?:printenv|output|get|config:get|-raw|-json|--extract)\s+(?P<argument>[A-Za-z_][\w.-]*)"
    r"|(?<![\w$])[~.]?(?:[\w.-]*/)+(?P<leaf>[\w.-]+)"
    r"|(?<![\w/])\.(?P<field>[A-Za-z_][\w.]*)"
    r"|(?<![\w$])(?P<constant>[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
)
"""Where a command names what it reads: a variable (``$DB_PASSWORD``), a quoted name, key or
pattern (``os.environ['API_KEY']``, ``'/PASSWORD/'``, ``["db"]["password"]``), the argument of a
getter (``printenv X``, ``terraform output -raw X``, ``heroku config:get X``), a file's name
(``/run/secrets/db_password``), a document's field (``jq -r .auth.password``), an environment
variable's name in a search (``grep ^DB_PASSWORD= .env``)."""
_WORD = re.compile(r"[A-Za-z_][\w.-]*")
_STAGE = re.compile(r"(?:\"[^\"\n]*\"|'[^'\n]*'|[^\"';|&\n])+")
"""One command of a pipeline or a list: ``;``, ``|`` and ``&`` split them outside quotes only."""
_FILE_NAME = re.compile(r"\.[a-z]{1,5}$")
_OPERAND = re.compile(r"(?<!\S)(?P<word>[^\s\"'$=-][^\s\"'$=]*)")
"""A bare word of a command line (not an option, a variable or a quoted string): the command's
name, a subcommand, an operand (``gh auth token``, ``git config --get github.token``)."""
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _asks_for_credential(name: str) -> bool:
    """Does ``name`` end in a credential word: what a selector, key or subcommand asks for is
    its last part (``github.token``, ``//registry/:_authToken``, ``print-access-token``,
    ``DB_PASSWORD``)? A word that only starts with one names a thing beside it (``auth-db``,
    ``token-service``, ``session_id``)."""
    parts = _NAME_PART.findall(name)
    return bool(parts) and credential_class(parts[-1]) is not None


def _a_file(word: str) -> bool:
    """Is ``word`` a file's name (``config.json``), not a dotted key ending in a credential
    (``registry.token``)?"""
    extension = _FILE_NAME.search(word)
    return extension is not None and credential_class(extension.group()[1:]) is None


def reads_named_credential(command: str) -> bool:
    """Does one stage of ``command`` ask for something whose name marks a credential? Not a list
    of secret stores or getters: any command whose variable (``echo "${API_TOKEN}"``), quoted
    key or selector (``jq -r '.db.password'``, ``sops --extract '["db"]["password"]'``), field,
    setting or subcommand ends in a credential word (:func:`_asks_for_credential`: ``gh auth
    token``, ``heroku config:get API_KEY``, ``git config --get github.token``), or whose own name
    is one (``secret-tool lookup``). A file's name counts only for a command that prints what it
    reads (:data:`_READER`: ``cat /run/secrets/db_password``); there, as before, any name that
    :func:`.credential_names.credential_class` marks counts. ``git log -1 --format=%h auth.py``
    prints a commit, not a secret."""
    for match in _STAGE.finditer(command):
        stage = match.group().strip()
        reader = _READER.match(stage) is not None
        asked: list[str] = []
        for reference in _REFERENCE.finditer(stage):
            names = [g for g in reference.group("variable", "argument", "field", "constant") if g]
            if reference.group("quoted"):
                names += _WORD.findall(reference.group("quoted"))
            leaf = reference.group("leaf")
            if reader and any(credential_class(_FILE_NAME.sub("", name)) for name in [*names, leaf or ""]):
                return True
            asked += names
        operands = [m.group("word") for m in _OPERAND.finditer(stage)]
        asked += [word for word in operands if not _a_file(word)]
        if any(map(_asks_for_credential, asked)) or (operands and credential_class(operands[0])):
            return True
    return False


def secret_printed_by(command: str, output: str) -> str | None:
    """The one secret value ``output`` holds when ``command`` printed it: a :data:`PRINTS_SECRET`
    store's read, or a command asking for a credential-named variable, key, field or file
    (:func:`reads_named_credential`). For the latter the value must be one bare token: a path, a
    file name, a JSON or quoted text, ``NAME=value`` or a credential's name is what a search or a
    listing printed, not a value (``grep -l token *.py`` prints ``auth.py``)."""
    if PRINTS_SECRET.search(command):
        return printed_secret(output, command)
    if not reads_named_credential(command):
        return None
    value = output.strip()
    if (
        "\n" in value
        or not credential_shaped(value)
        or value[0] in "/~."
        or any(ch in value for ch in "\"'{}[]<>=")
        or "://" in value
    ):
        return None
    if _FILE_NAME.search(value) or _RESOURCE_NAME.match(value) or credential_class(value) is not None:
        return None
    return value


_EZCONNECT_USER = (
    r"(?:(?<=thin:)|(?<![\w/.:@$#-]))\\?[\"']?[A-Za-z][\w$#]{0,29}/(?P<value>[^\s@/\"'()\\]{4,128})@"
)
"""Oracle's ``user/password@`` (EZConnect, a TNS alias): the user opens a word, not a path's part
(``golang.org/x/tools/gopls@latest``) nor a scope (``@scope/pkg@1.2``); JDBC's thin driver
writes it after ``thin:``. A line of GitHub Actions (``actions/checkout@v4``) or git reflogs
(``origin/main@{1}``) holds the shape too: the line or the service must say Oracle's."""


_RESOURCE_NAME = re.compile(r"[a-z][\w.-]*/[\w.-]+$")
"""``pod/auth-7d9f8b6c5-x2k4p``, ``secret/db-creds``: a kind and a name, as ``-o name`` lists them."""


_PROMPT = r"[ \t]*(?:\(\S+\)[ \t]+)?(?:[\w.@~:/\[\]()-]*[$#%\u276f]|PS [^\n>]{0,200}>)"
"""A shell's prompt: ``$``, ``user@host:~$``, ``#``, ``%``, ``❯``, ``PS C:\\>``, after a ``(venv)``."""
_TRANSCRIPT_STEP = re.compile(
    rf"(?m)^{_PROMPT}[ \t]+(?P<command>[^\n]{{2,2000}})\r?\n"
    rf"(?P<output>[^\n]{{4,4096}})(?=\r?\n(?:{_PROMPT}(?:[ \t]|$)|[ \t]*\r?$)|$)"
)
"""A terminal transcript's command (after a shell prompt, :data:`_PROMPT`) and the one line it
printed, the next prompt, a blank line or the text's end right after it."""


def _transcript_printed_secrets(text: str) -> Iterator[Finding]:
    """The line a transcript's command printed when the command asked for a credential
    (:func:`secret_printed_by`): ``$ gh auth token`` then the token, ``$ echo "$DB_PASSWORD"``
    then the password. What a tool call's result is to its call (:func:`.episode.
    printed_by_secret_readers`), the line after the prompt is to the command in one text."""
    for step in _TRANSCRIPT_STEP.finditer(text):
        value = secret_printed_by(step.group("command"), step.group("output"))
        if value is not None:
            start = step.start("output") + step.group("output").index(value)
            yield Finding("PASSWORD", start, start + len(value), value, "positional:transcript_output")


_SYNTAX = {
    "redis_auth": re.compile(
        r"(?m)(?:^|>\s*|\bredis-cli\b[^\n]*?\s)AUTH\s+(?:\S+\s+)?(?P<value>\S{4,200})\s*$"
    ),
    "sudo_stdin": re.compile(
        r"\becho\s+(?:-n\s+)?(?P<q>[\"']?)(?P<value>[^\"'\s|]{4,200})(?P=q)\s*\|\s*sudo\b[^\n|]*\s-S\b"
    ),
    "openssl_k": re.compile(r"\bopenssl\b[^\n]*?\s-k\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"),
    "gh_secret_body": re.compile(
        r"\bgh\s+secret\s+set\s+\S+[^\n]*?\s(?:--body|-b)[ =](?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "actions_mask": re.compile(r"::add-mask::(?P<value>[^\s\"'`]{4,200})"),  # a quote closes the echo
    "ftp_pop_pass": re.compile(r"(?m)^PASS\s+(?P<value>\S{4,200})\s*$"),
    "pgbouncer_userlist": re.compile(  # "user" "md5<hex>" / "SCRAM-SHA-256$...": the hash logs in
        r"(?m)^[ \t]*\"[^\"\s]{1,63}\"[ \t]+"
        r"\"(?P<value>md5[0-9a-f]{32}|SCRAM-SHA-256\$\d+:[^\"\s]{8,400})\"[ \t]*\r?$"
    ),
    "pgbouncer_userlist_plain": re.compile(  # "user" "password", in a text that names the file
        r"(?m)^[ \t]*\"[^\"\s]{1,63}\"[ \t]+\"(?P<value>[^\"\s]{4,200})\"[ \t]*\r?$"
    ),
    "imap_login": re.compile(
        r"(?m)^(?:\S+\s+)?LOGIN\s+\S+\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)\s*$"
    ),
    "go_dsn": re.compile(r"\b[\w.-]{1,64}:(?P<value>[^\s@/\"'<>()]{4,128})@(?:(?:tcp|unix|udp)\(|/(?=\w))"),
    "oracle_connect": re.compile(
        r"(?:^|(?<=[\n;&|`])|(?<=\$ ))\s*(?:sqlplus|expdp|impdp|sqlldr|rman|dgmgrl)(?=[ \t])[^\n|;&]*?\s"
        r"\\?[\"']?[\w$#]{1,30}/(?P<value>[^\s@/\"'()]{4,128}(?=@)|[^\s@/\"'.()]{4,128}(?=\s|$|[\"']))"
    ),
    "oracle_ezconnect": re.compile(  # user/pw@service on a line that names Oracle or a connect string
        r"(?i:oracle|(?:\b|_)dsn\b|\buserid\b|\blogon\b|\bconn(?:ect(?:ion)?)?[_ ]?str(?:ing)?\b|_conn\b)"
        r"[^\n]{0,80}?"
        rf"{_EZCONNECT_USER}(?=[\w./\[-])"
    ),
    "oracle_ezconnect_shape": re.compile(  # ... or whose service is: //host, host:port/name, AS SYSDBA
        rf"{_EZCONNECT_USER}(?=//[\w.\[-]|[\w.-]+:\d{{2,5}}/[\w$#.-]"
        r"|[^\s\"']*\s+as\s+sys(?:dba|oper|asm|dg|backup|km)\b)"
    ),
    "sqlplus_connect": re.compile(  # at the SQL*Plus prompt, or its CONNECT command as it is written
        r"(?m)^[ \t]*(?:SQL>[ \t]*(?i:conn(?:ect)?)|CONN(?:ECT)?)[ \t]+[\w$#]{1,30}/"
        r"(?P<value>[^\s@/\"'()]{4,128}(?=@)|[^\s@/\"'.()]{4,128}(?=\s|$))"
    ),
    "oracle_legacy_connect": re.compile(  # exp and imp are words of prose too: only user/pw@db
        r"(?:^|(?<=[\n;&|`])|(?<=\$ ))\s*(?:exp|imp)[ \t][^\n|;&]*?\s[\w$#]{1,30}/"
        r"(?P<value>[^\s@/\"'.()]{4,128})@"
    ),
    "pgpass_line": re.compile(  # a line of the file, or one echoed into it in quotes
        r"(?m)(?:^|(?<=^echo [\"'])|(?<=^printf [\"']))"
        r"(?:\*|\d{1,3}(?:\.\d{1,3}){3}|(?=[^:\n]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9.-]{0,252}):(?:\d{2,5}|\*)"
        r":(?:\*|(?=[^:\n]*[A-Za-z])[^:\s]{1,63}):(?:\*|(?=[^:\n]*[A-Za-z])[^:\s]{1,63}):"
        r"(?P<value>(?:[^\s:\\]|\\.){4,200}?)(?:\r?$|(?<=[^\\])(?=[\"']\s*(?:>|\n|$)))"
    ),
    "http_basic_config": re.compile(  # poetry's and composer's: config [--global] http-basic.HOST USER PW
        r"\bconfig\s+(?:--?[\w-]+\s+)*(?:http-basic\.\S+\s+\S+|pypi-token\.\S+)\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "user_then_password": re.compile(  # a verb of adding a user or setting a password: USER PW last
        r"(?<![\w-])(?:add[_-]user|change[_-]password|set[_-]password|authenticate[_-]user|(?:users?|admins?|accounts?)\s+(?:add|create)"
        r"|dscl\s+\S+\s+-passwd|\w+passwd\s+(?:-\w+\s+)*-\w*b\w*\s+\S+)"
        r"(?:\s+[^\s\"'-][^\s;|&<>]*)*?\s+(?P<qu>[\"']?)[^\s\"';|&<>]+(?P=qu)\s+(?P<q>[\"']?)(?P<value>[^\"'\s;|&<>]{4,200})(?P=q)"
        r"(?=[ \t]*(?:$|[;|&\n]|\d?[<>]))"  # its line's end, or a redirection (``PW>f``, ``PW 2>/dev/null``)
    ),
    "login_operand": re.compile(  # cargo login TOKEN, wandb login KEY, vault login TOKEN: one bare operand
        r"(?m)(?:^|[;&|]|\$)[ \t]*(?:[\w./-]+[ \t]+){1,2}(?:login|auth)[ \t]+(?!"
        r"[\w-]+(?:\.[\w-]+)+(?::\d+)?[ \t]*(?:$|[;&|])|\S*://|[^\s@]+@[\w-]+\.[\w.-]+"  # host, URL, e-mail
        r"|[a-z]+(?:-[a-z]+)+[ \t]*(?:$|[;&|]))"  # or a subcommand (configure-docker)
        r"(?P<q>[\"']?)(?P<value>[^\"'\s;|&$-][^\"'\s;|&]{3,199})(?P=q)[ \t]*(?=$|[;&|])"
    ),
    "password_twice_on_stdin": re.compile(  # (echo PW; echo PW) | smbpasswd -s: the first of the two
        r"\(\s*(?:echo|printf)\s+(?:-[neE]+\s+)?(?P<q>[\"']?)(?P<value>[^\"'\s;|)]{4,200})(?P=q)\s*;"
        r"[^)\n]*\)\s*\|\s*(?:" + READS_STDIN + ")"
    ),
    "db2_connect_using": re.compile(
        r"\bdb2\s+(?i:connect\s+to\s+\S+\s+user\s+\S+\s+using)\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "lftp_user_comma": re.compile(
        r"\blftp\b[^\n]*?\s-u\s+(?P<q>[\"']?)[^\s,\"']+,(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "mysqladmin_password": re.compile(
        r"\bmysqladmin\b[^\n|;&]*?\spassword\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "minio_alias": re.compile(  # mc alias set NAME URL ACCESS_KEY SECRET_KEY
        r"\bmc\s+(?:alias\s+set|config\s+host\s+add)\s+\S+\s+\S+\s+\S+\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "expect_send": re.compile(
        r"expect\s+(?:-\w+\s+)*[\"'{]?[^\n\"'}]*(?:assword|assphrase)[^\n\"'}]*?[:*?]\s*[\"'}]?\s*[\n{]\s*send\s+(?:--\s+)?"
        r"[\"{](?P<value>[^\"}\\\n]{4,128})(?:\\[rn])?[\"}]"
    ),
    "pexpect_sendline": re.compile(
        r"\.expect(?:_exact)?\(\s*\[?\s*[rbu]?(?P<e>[\"'])[^\"'\n]*(?:assword|assphrase|ASSWORD)[^\"'\n]*(?P=e)[^\n]*?\)"
        r"\s*(?:;\s*|\n\s*)[\w.\[\]]*\.send(?:line)?\(\s*[rbu]?(?P<q>[\"'])(?P<value>[^\"'\\\n]{4,128})(?:\\[rn])?(?P=q)\s*\)"
    ),
    "xfreerdp_p": re.compile(
        r"\b(?:x|wl|sdl-)?freerdp3?\b[^\n]*?\s/p:(?P<q>[\"']?)(?P<value>[^\"'\s]{4,128})(?P=q)"
    ),
    "rdesktop_p": re.compile(
        r"\brdesktop\b[^\n]*?\s-p\s*(?P<q>[\"']?)(?P<value>[^\"'\s-][^\"'\s]{3,127})(?P=q)"
    ),
    "ssh_keygen_passphrase": re.compile(
        r"\bssh-keygen\b[^\n]*?\s-[NP]\s*(?P<q>[\"']?)(?P<value>[^\"'\s]{4,128})(?P=q)"
    ),
    "ssh_keygen_second_passphrase": re.compile(  # the old one (-P) and the new (-N): the last of two
        r"\bssh-keygen\b[^\n]*\s-[NP]\s*(?P<q>[\"']?)(?P<value>[^\"'\s]{4,128})(?P=q)"
    ),
    "net_use": re.compile(r"\bnet\s+use\b[^\n]*?\s/user:\S+\s+(?P<value>[^\s/]\S{3,127})"),
    "net_use_share_password": re.compile(  # net use [drive | *] \\host\share password /user:...
        r"\bnet\s+use(?:\s+(?:[A-Za-z]:|\*))?\s+\\\\\S+\s+(?P<q>[\"']?)(?P<value>[^\s/*\"'][^\s\"']{3,127})(?P=q)"
    ),
    "password_for_account": re.compile(
        r"(?i)\b(?:password|passphrase)\s+for\s+(?:(?:the\s+)?(?:user|account|key)\s+)?"
        r"(?:[\w.@-]{1,64}|'[^'\n]{1,200}'|\"[^\"\n]{1,200}\")\s*(?:is\s*)?:[ \t]*"
        r"(?P<q>[\"'`]?)(?P<value>[^\"'`\s]{4,128})(?P=q)[ \t]*(?:\r?\n|$)"
    ),
    "credentials_in_prose": re.compile(  # not a table so named (INSERT INTO creds (user, secret))
        r"(?i)(?<!into )(?<!table )(?<!from )(?<!join )(?<!update )"
        r"\b(?:(?:credentials?|creds)(?![\w-])(?:\s+are|\s+is|\s+were|\s+was)?|log\s*in\s+with|sign\s+in\s+with"
        r"|default\s+log(?:in|on))"
        r"(?:[ \t]*[:\u2013=(-][ \t]*|[ \t]+)[\w.@-]{1,64}"
        r"(?::|[ \t]*/[ \t]*|[ \t]+and[ \t]+|[ \t]*,[ \t]*)(?!/|\d+/)"
        r"(?P<q>[\"'`]?)(?P<value>[^\"'`\s]{4,128})(?P=q)"
    ),
    "secret_reader_output": re.compile(
        r"(?:" + _COMMAND_READERS + r")[^\n]*\n[ \t]*(?P<value>\S{4,4096})[ \t]*(?:\r?\n|$)"
    ),
    "secret_wrapper": re.compile(
        r"\bSecret(?:Str|Bytes)\(\s*(?P<q>[\"'])(?P<value>(?:(?!(?P=q))[^\\\n]){4,200})(?P=q)\s*\)"
    ),
}
"""Commands whose syntax, not a name, says which word is the password (or, for ``gh secret set``
and GitHub Actions' ``add-mask``, a secret)."""
_YAML_SCALAR = r"(?:[^\"'\\\n]|\\.|(?<=\w)[\"'](?=\w))"
"""A character of a YAML ``value:`` (:data:`_NAMED_BY_SIBLING`): an escape (``\\"`` in double
quotes) or a quote between two word characters is the value's own (``"a\\"b"``, ``"a'b"``); a
password holding one lost its whole finding to the quote before (session 44, class 1)."""
_YAML_FLOW_SCALAR = r"(?:[^\"'\\,}\n]|\\.|(?<=\w)[\"'](?=\w))"
"""The same in a flow mapping (``{name: X, value: Y}``), where a ``,`` or a ``}`` ends a plain value."""
_HCL_ATTRIBUTE = r"[ \t]*(?:[+~-][ \t]+)?"
"""An HCL attribute's line start, with a plan's change mark (``+``, ``~``, ``-``) before it."""
_TOOL_BEFORE = r"(?<=[\w-] )"
"""A tool's name and a space before its ``config`` word (``git config``, ``npm config``)."""
_NAMED_BY_SIBLING = {
    "yaml_name_value": re.compile(
        r"(?m)^(?P<indent>[ \t]*)-?[ \t]*name:[ \t]*[\"']?(?P<name>[\w.-]{1,80})[\"']?[ \t]*\n"
        rf"(?P=indent)[ \t]+value:[ \t]*(?P<q>[\"']?)(?P<value>{_YAML_SCALAR}{{4,200}}?)(?P=q)[ \t]*$"
    ),
    "yaml_block": re.compile(
        r"(?m)^(?P<indent>[ \t]*)(?P<name>[\w.-]{1,80}):[ \t]*[|>][-+]?[ \t]*\n"
        r"(?P=indent)[ \t]+(?P<value>\S[^\n]{3,199})$"
    ),
    "json_parent_value": re.compile(
        r"\"(?P<name>[\w.-]{1,80})\"\s*:\s*\{[^{}]*?\"value\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
    ),
    "xml_keyed_element": re.compile(
        r"<(?P<tag>[\w:.-]+)\s+(?:key|name)=\"(?P<name>[^\"\n]{1,80})\"[^>\n]*>(?P<value>[^<\n]{4,200})</(?P=tag)>"
    ),
    "json_name_value": re.compile(
        r"\"(?i:name|key|parametername|parameterkey)\"\s*:\s*\"(?:[^\"\n/]*/)*(?P<name>[^\"\n/]{1,80})\"[^{}]*?"
        r"\"(?i:value|parametervalue)\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\""
    ),
    "json_value_name": re.compile(
        r"\"(?i:value|parametervalue)\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,200})\"[^{}]*?"
        r"\"(?i:name|key|parametername|parameterkey)\"\s*:\s*\"(?:[^\"\n/]*/)*(?P<name>[^\"\n/]{1,80})\""
    ),
    "hcl_name_value": re.compile(  # a Terraform plan's or HCL block's name = "..." ... value = "..."
        rf"(?m)^{_HCL_ATTRIBUTE}(?i:name|key)[ \t]*=[ \t]*"
        rf"\"(?:[^\"\n/]*/)*(?P<name>[^\"\n/]{{1,80}})\"[^{{}}]*?"
        rf"\n{_HCL_ATTRIBUTE}value[ \t]*=[ \t]*\"(?P<value>(?:[^\"\\\n]|\\.){{4,200}})\""
    ),
    "hcl_value_name": re.compile(
        rf"(?m)^{_HCL_ATTRIBUTE}value[ \t]*=[ \t]*\"(?P<value>(?:[^\"\\\n]|\\.){{4,200}})\"[^{{}}]*?"
        rf"\n{_HCL_ATTRIBUTE}(?i:name|key)[ \t]*=[ \t]*\"(?:[^\"\n/]*/)*(?P<name>[^\"\n/]{{1,80}})\""
    ),
    "value_flag_named": re.compile(
        r"--name\s+(?P<qn>[\"']?)(?:[^\s\"']*/)*(?P<name>[\w.-]{1,80})(?P=qn)\s+(?:--[\w-]+(?:\s+[^-\s]\S*)?\s+)*?"
        r"--value\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
    "yaml_flow_name_value": re.compile(
        rf"\{{\s*name:\s*[\"']?(?P<name>[\w.-]{{1,80}})[\"']?\s*,\s*value:\s*(?P<q>[\"']?)(?P<value>{_YAML_FLOW_SCALAR}{{4,200}}?)(?P=q)\s*\}}"
    ),
    "yaml_flow_value_name": re.compile(
        rf"\{{\s*value:\s*(?P<q>[\"']?)(?P<value>{_YAML_FLOW_SCALAR}{{4,200}}?)(?P=q)\s*,\s*name:\s*[\"']?(?P<name>[\w.-]{{1,80}})[\"']?\s*\}}"
    ),
    "gcp_secret_payload": re.compile(  # a Secret Manager version: its name path names the secret
        r"\"name\"\s*:\s*\"projects/[^\"/\n]+/secrets/(?P<name>[^\"/\n]{1,80})/versions/[^\"\n]*\"[^{}]*?"
        r"\"payload\"\s*:\s*\{[^{}]*?\"data\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,4096})\""
    ),
    "aws_configure_set": re.compile(  # aws configure set, and any tool's config set NAME VALUE
        f"(?:{literal_first('(?<=aws )', 'configure')}|{literal_first(_TOOL_BEFORE, 'config')})"
        r"\b(?:\s+set)?"
        r"(?:\s+--profile\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+"
        r"(?:[^\s\"']*[/:])?(?P<name>[\w.-]{1,80})\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)"
    ),
}
"""A value whose name is a sibling's (``name:`` above ``value:``), its parent's key (Terraform's
``{"db_password": {"value": ...}}``), the key above a YAML block scalar, an XML element's ``key``,
or an HCL block's ``name = "/app/db_password"`` beside its ``value = "..."`` (a plan's
``aws_ssm_parameter``, a provider's ``env {}``), in either order within the block."""
_SECRET_KIND = re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?Secret\b")
_YAML_SECRET_DATA = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\n(?P<body>(?:(?P=indent)[ \t]+[^\n]*(?:\n|$))+)"
)
_YAML_SECRET_VALUE = re.compile(
    r"(?m)^[ \t]+[\w.-]+:[ \t]*(?P<q>[\"']?)(?P<value>[^\"'\s]{4,4096})(?P=q)[ \t]*$"
)
_JSON_SECRET_DATA = re.compile(r"\"(?:data|stringData)\"\s*:\s*\{(?P<body>[^{}]*)\}")
_JSON_SECRET_VALUE = re.compile(r"\"[^\"\n]{1,253}\"\s*:\s*\"(?P<value>(?:[^\"\\\n]|\\.){4,4096})\"")


def credential_shaped(value: str) -> bool:
    """Could ``value`` be a password on its own evidence: no space, six characters or more, and a
    digit, a symbol or mixed case (not a plain word, a number or a date)? A position says where a
    password would be; a column of ``yes`` or ``hashed`` is not one, lowercase letters English
    cannot spell are (:func:`.spelling.unspellable`)."""
    if "\x1b" in value:  # judged as a terminal shows it; codes left over cut the value mid-code
        value = ANSI_ESCAPE.sub("", value)
    if (
        len(value) < 6
        or any(ch.isspace() for ch in value)
        or "\x1b" in value
        or not acceptable_value(value, True, "password", "")
    ):
        return False
    if re.fullmatch(r"[\d\s:/.+-]+", value):
        return False  # a number, a date or a time
    if _HYPHENATED_WORDS.fullmatch(value) and not any(map(unspellable, value.split("-"))):
        return False  # "credential sinks, user-keyed maps": an English compound, not a chosen value
    digits = any(map(str.isdigit, value))
    symbols = any(not ch.isalnum() and ch != "_" for ch in value)
    mixed = any(map(str.isupper, value)) and any(map(str.islower, value))
    return digits or symbols or mixed or unspellable(value)


_HYPHENATED_WORDS = re.compile(r"[a-z]+-[a-z]+")
"""Two lowercase words joined by one hyphen (``user-keyed``, ``read-only``, ``long-lived``): the
hyphen is the only symbol, and a sentence listing ``credential sinks, user-keyed maps`` read as
the pair ``sinks, user-keyed``. Three words or more stay a passphrase's shape
(``correct-horse-battery``)."""


_PROTOCOL_SESSION = re.compile(
    r"(?m)^(?:USER\s+\S|\d{3}[ -]|[+-](?:OK|ERR)\b)|\b(?:ftp|telnet|ncat|nc|s_client)\b"
    r"|^PASS[ \t]+\S+(?:\r$|\\r\\n)"
)
"""What makes a ``PASS x`` line the FTP or POP3 command: its session (the ``USER`` line, a reply
code, ``+OK``/``-ERR``, the client that opened it), or the protocol's own line end, CRLF, written
raw or as a trace quotes it (``write(3, "PASS x\\r\\n", 16)``: a socket's buffer, alone).
Alone, ``PASS  src/Login.test.tsx`` is Jest's result line, and the test file's path became a
password rewritten wherever the file was named (a CRLF log of Jest's: :func:`_found` asks
:func:`.not_values.test_verdict`)."""
_GATES: dict[str, str | re.Pattern[str]] = {
    "redis_auth": "AUTH",
    "sudo_stdin": "sudo",
    "openssl_k": "openssl",
    "gh_secret_body": "gh secret",
    "actions_mask": "::add-mask::",
    "ftp_pop_pass": _PROTOCOL_SESSION,
    "pgbouncer_userlist": re.compile(r"\"(?:md5[0-9a-f]{32}|SCRAM-SHA-256\$)"),
    "pgbouncer_userlist_plain": re.compile(r"userlist\.txt|auth_file|pgbouncer"),
    "imap_login": "LOGIN ",
    "yaml_name_value": "value:",
    "yaml_block": re.compile(r":[ \t]*[|>]"),
    "json_parent_value": '"value"',
    "xml_keyed_element": '="',
    "json_value_name": re.compile(r"(?i)\"(?:parameter)?value\""),
    "value_flag_named": "--value",
    "hcl_name_value": "value",
    "hcl_value_name": "value",
    "go_dsn": re.compile(r"@(?:tcp|unix|udp)\(|@/\w"),
    "oracle_connect": re.compile(r"\b(?:sqlplus|expdp|impdp|sqlldr|rman|dgmgrl)\b"),
    "oracle_legacy_connect": re.compile(r"\b(?:exp|imp)\b"),
    "sqlplus_connect": re.compile(r"SQL>|CONN"),
    "oracle_ezconnect": re.compile(r"/[^\s/@]{4,128}@"),
    "oracle_ezconnect_shape": re.compile(r"/[^\s/@]{4,128}@"),
    "ssh_keygen_second_passphrase": "ssh-keygen",
    "pgpass_line": re.compile(r":(?:\d{2,5}|\*):"),
    "expect_send": "send",
    "xfreerdp_p": "freerdp",
    "pexpect_sendline": "send",
    "rdesktop_p": "rdesktop",
    "ssh_keygen_passphrase": "ssh-keygen",
    "net_use": "net use",
    "net_use_share_password": "net use",
    "password_for_account": re.compile(r"(?i)(?:password|passphrase)\s+for"),
    "credentials_in_prose": re.compile(r"(?i)cred|log\s*in\s+with|sign\s+in\s+with|default\s+log"),
    "secret_wrapper": "Secret",  # pydantic's SecretStr / SecretBytes
    "json_name_value": re.compile(r"(?i)\"(?:parameter)?value\""),
    "yaml_flow_name_value": "value:",
    "yaml_flow_value_name": "value:",
    "aws_configure_set": "config",
    "gcp_secret_payload": '"payload"',
    "http_basic_config": re.compile(r"http-basic\.|pypi-token\."),
    "minio_alias": "mc ",
    "user_then_password": re.compile(r"(?i)user|admin|account|password|passwd"),
    "login_operand": re.compile(r"\b(?:login|auth)[ \t]"),
    "password_twice_on_stdin": re.compile(r"\(\s*(?:echo|printf)"),
    "db2_connect_using": "db2",
    "lftp_user_comma": "lftp",
    "mysqladmin_password": "mysqladmin",
    "secret_reader_output": re.compile(
        r"kubectl|vault|secret|op read|security|pass|bw get|doppler|keyring|gcloud auth|get-access-token"
        r"|get-login-password|auth token|auth:token|whoami"
    ),
}
"""A literal (or a cheap pattern) each rule's text must hold: most texts hold none, and a rule
anchored at every line start costs a pass over the text."""


_SYNTAX_RULES: tuple[tuple[str, re.Pattern[str], str | None], ...] = tuple(
    (rule, pattern, None) for rule, pattern in _SYNTAX.items()
)
_SIBLING_RULES: tuple[tuple[str, re.Pattern[str], str | None], ...] = tuple(
    (rule, pattern, "name") for rule, pattern in _NAMED_BY_SIBLING.items()
)
_RULES: tuple[tuple[str, re.Pattern[str], str | None], ...] = (
    *_SYNTAX_RULES,
    *_SIBLING_RULES,
)
"""Each pattern rule with the group naming its value's label (None: the syntax says it all)."""
_MAYBE_QUOTED_WORD = r"(?P<q>[\"']?)(?P<value>[^\"'\s]{"
_QUOTED_WORDS = r"(?P<q>[\"'])(?P<value>[^\"'\n]{"
_QUOTED_PHRASE_RULES = tuple(
    (f"{rule}:phrase", re.compile(pattern.pattern.replace(_MAYBE_QUOTED_WORD, _QUOTED_WORDS)), _GATES[rule])
    for rule, pattern in _SYNTAX.items()
    if _MAYBE_QUOTED_WORD in pattern.pattern
)
"""The same command syntaxes with a quoted argument that holds spaces: a quoted word is one
argument to the shell, so ``ssh-keygen -N 'copper nectar otter marble'`` passes a passphrase of
four words, which the one-word pattern missed whole. Such a value counts when it reads as a
passphrase (:func:`.detectors.passphrase_shaped`); a one-word value stays the first rule's."""
SHORTEST = 12
"""No layout above fits a label and a six-character value in fewer characters: most strings of an
episode (ids, names, short observations) are skipped at once."""


def find_positional_credentials(text: str) -> Iterator[Finding]:
    """Every credential of ``text`` laid out by position (module docstring)."""
    if len(text) < SHORTEST:
        return
    lower = text.lower()
    yield from find_column_credentials(text, lower)
    if "value" in lower or "etcdctl" in lower:
        yield from _key_value_rows(ascii_table(text))
    if ":" in text:
        yield from find_account_pairs(text, credential_shaped, names_a_digest)
    if "@" in text:
        yield from find_slashed_logins(text, credential_shaped)
        yield from find_bare_userinfo(text, credential_shaped)
    if "Secret" in text:
        yield from _kubernetes_secret_data(text)
    yield from _rule_findings(text, _RULES)
    yield from find_fed_passwords(text, _fed_shape)
    if "\n" in text:
        yield from _transcript_printed_secrets(text)
    if "'" in text or '"' in text:
        for rule, pattern, gate in _QUOTED_PHRASE_RULES:
            if gate in text if isinstance(gate, str) else gate.search(text):
                for match in pattern.finditer(text):
                    value = match.group("value")
                    if " " in value and passphrase_shaped(value, minimum_words=3):
                        yield Finding("PASSWORD", *match.span("value"), value, f"positional:{rule}")


def _rule_findings(
    text: str, rules: tuple[tuple[str, re.Pattern[str], str | None], ...]
) -> Iterator[Finding]:
    """The findings of each pattern rule whose gate (:data:`_GATES`) the text passes."""
    for rule, pattern, name_group in rules:
        gate = _GATES[rule]
        if gate in text if isinstance(gate, str) else gate.search(text):
            yield from _found(pattern, text, f"positional:{rule}", name_group)


def find_syntax_credentials(text: str) -> Iterator[Finding]:
    """The values a command's or a format's syntax alone names (:data:`_SYNTAX`: ``::add-mask::``,
    ``sshpass -p``), for a decoded view's changed lines: name and value stand on one line, so the
    view of a byte dump (``xxd`` of ``echo "::add-mask::x"``) shows them where the raw text shows
    hex only."""
    if len(text) >= SHORTEST:
        yield from _rule_findings(text, _SYNTAX_RULES)


def find_other_line_credentials(text: str, lines: str) -> Iterator[Finding]:
    """The credentials of ``text`` whose name stands on another line than the value: a column's
    header (:func:`find_column_credentials`), a sibling ``name`` (:data:`_NAMED_BY_SIBLING`: a
    Terraform plan's, a YAML ``env`` list's), the command a here-document feeds
    (:func:`.stdin_feeds.find_fed_passwords`). A decoded view (colour, quoted-printable, an ``xxd``
    dump) reads these over its whole text, since the naming line is often one it did not change;
    ``lines`` is the text of the lines it changed, the only ones whose findings count. A reading
    whose mark stands on its value's own line (a truncation mark, a pipe, a here-string) runs
    only where ``lines`` hold that mark: the same findings there, none of the cost elsewhere."""
    if len(text) < SHORTEST:
        return
    yield from _whole_columns(text)
    if may_be_cut(lines):
        yield from find_cut_cells(text, _named_elsewhere)
    yield from _rule_findings(text, _SIBLING_RULES)
    yield from find_fed_passwords(text, _fed_shape, lines)


def find_column_credentials(text: str, lower: str | None = None) -> Iterator[Finding]:
    """Values named by a row or a column header elsewhere in ``text``: a table's (CSV, TSV, ``|``)
    column under a credential's header, a labelled row, a SQL ``INSERT``'s or ``COPY``'s column,
    and the head of such a cell a truncation mark cut.
    The label is on another line than the value, so a decoded view (ANSI colour, JSON escapes, an
    ``xxd`` dump) reads these over its whole text, not its changed lines only."""
    yield from _whole_columns(text, lower)
    yield from find_cut_cells(text, _named_elsewhere)


def _named_elsewhere(text: str) -> Iterator[Finding]:
    """The readings of a value named on another line that a cut line, completed, is read with
    (:func:`.cut_values.find_cut_cells`): a column's header or an ``INSERT``'s column list, a
    sibling ``name`` (:data:`_NAMED_BY_SIBLING`), an Actions debug log's ``Evaluating`` line."""
    yield from _whole_columns(text)
    yield from _rule_findings(text, _SIBLING_RULES)
    if "##[debug]" in text:
        yield from find_actions_debug_values(text)


def _whole_columns(text: str, lower: str | None = None) -> Iterator[Finding]:
    """:func:`find_column_credentials` of the rows as they stand (a row cut short is completed by
    :func:`.cut_values.find_cut_cells`)."""
    lower = text.lower() if lower is None else lower
    table = ascii_table(text)
    naming = naming_lines(table, lower)
    if naming is not None:
        yield from _table_columns(table, naming)
        yield from find_labelled_rows(naming, row_credential)
    if "insert" in lower:
        yield from _sql_inserts(text)
    if "COPY" in text:
        yield from _copy_rows(text)


def _fed_shape(value: str) -> bool:
    """A piped or here-string'd answer is a password by its place: one word of a password's shape,
    or a quoted passphrase of three words or more (``passwd bob <<< 'copper nectar otter'``)."""
    return credential_shaped(value) or (" " in value and passphrase_shaped(value, minimum_words=3))


def _found(pattern: re.Pattern[str], text: str, detector: str, name_group: str | None) -> Iterator[Finding]:
    for match in pattern.finditer(text):
        kind = "PASSWORD"
        if name_group is not None:
            named = credential_class(match.group(name_group))
            if named is None:
                continue
            kind = "PASSWORD" if named == "password" else "SECRET"
        value = match.group("value")
        if detector == "positional:ftp_pop_pass" and test_verdict("PASS", value):
            continue  # a CRLF log of Jest's: PASS  src/Login.test.tsx
        operand = detector in _COMMAND_OPERANDS
        if operand and substituted_or_redirected(text, match.start(), match.start("value")):
            continue  # htpasswd -b f ana $(cat /run/pw), ssh-keygen -N >/dev/null: not the password
        if credential_shaped(value) or (
            detector in _LINE_DELIMITED and kind == "PASSWORD" and line_phrase(value.rstrip())
        ):
            value = value.rstrip()
            yield Finding(kind, match.start("value"), match.start("value") + len(value), value, detector)


_COMMAND_OPERANDS = frozenset(
    f"positional:{rule}"
    for rule in (
        "redis_auth",
        "openssl_k",
        "gh_secret_body",
        "http_basic_config",
        "user_then_password",
        "login_operand",
        "db2_connect_using",
        "lftp_user_comma",
        "mysqladmin_password",
        "minio_alias",
        "xfreerdp_p",
        "rdesktop_p",
        "ssh_keygen_passphrase",
        "ssh_keygen_second_passphrase",
        "net_use",
        "net_use_share_password",
    )
)
"""Rules that take a command's operand by its place: a substitution's word or a redirection there
is not the operand (:func:`.shell_split.substituted_or_redirected`)."""
_LINE_DELIMITED = frozenset({"positional:yaml_block"})
"""Rules whose value is a whole line, as a quoted value is its quotes: a passphrase of several
words under a password's name is the value there (:func:`.line_values.line_phrase`)."""


def _cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """The spans of ``line``'s cells split at ``delimiter``, stripped of spaces and one layer of
    quotes; a Markdown or ``psql`` border (an empty first or last cell of a ``|`` row) dropped."""
    spans, start = [], 0
    for piece in line.split(delimiter):
        end = start + len(piece)
        low, high = start, end
        while low < high and line[low] in " \"'":
            low += 1
        while high > low and line[high - 1] in " \"'\r":
            high -= 1
        spans.append((low, high))
        start = end + 1
    if delimiter == "|" and spans and spans[0][0] == spans[0][1]:
        spans = spans[1:]
    if delimiter == "|" and spans and spans[-1][0] == spans[-1][1]:
        spans = spans[:-1]
    return spans


_CODE_PUNCTUATION = re.compile(r"[=(){}\[\];]|^\s|:\s|\*\*|\bimport\b")
"""What a CSV or TSV line of data never holds and code does: an assignment, a call, brackets, an
indented line, a ``name: type`` annotation, ``**kwargs``, an import list."""


def column_class(name: str) -> str | None:
    """A header cell's credential class, for columns: ``password`` and ``salt`` names, and
    ``secret`` names of two parts or more (``api_token``, ``access_key``): a bare ``key`` or
    ``token`` column of a table holds names and words."""
    name = unescaped_name(name)
    if not _NAME.fullmatch(name):
        return None
    named = credential_class(re.sub(r"\s+", "_", name.strip()))  # a header of words: "API Secret"
    if named == "secret" and len(re.findall(r"[a-z]+|[A-Z][a-z]*", name)) < 2:
        return None
    return named


def row_credential(label: str, value: str) -> str | None:
    """The kind of a two-column row's value (:mod:`.rows`): its label names a credential as a
    column's header would, and the value is credential-shaped; a secret's (not a password's)
    must also look like a key rather than a version or a path (``| auth-lib | 1.2.3-beta |``)."""
    named = column_class(re.sub(r"\s+", "_", label))  # a label of words: "Client Secret"
    if named is None or not credential_shaped(value) or test_verdict(label, value):
        return None
    if named != "password" and not acceptable_value(value, False, named, ""):
        return None
    return "PASSWORD" if named == "password" else "SECRET"


def _table_columns(text: str, naming: NamingLines) -> Iterator[Finding]:
    """Values under a header cell that names a credential, in the rows that follow it with as many
    cells. A ``|`` table (Markdown, ``psql``) needs its separator row under the header; a comma or
    tab table needs every header cell a name, and no line of it looking like code
    (:data:`_CODE_PUNCTUATION`). Any other row ends the table. A line already read as a row is
    no header: a table whose rows all name a credential (``password,user`` line after line) was
    read again from each of them, 28 s for 70 kB."""
    if not any(delimiter in text for delimiter in _DELIMITERS):
        return
    lines, offsets, headers = naming.lines, naming.offsets, naming.naming  # headers: lines naming one
    read_to = 0  # the lines before this one were rows of a table
    for index in headers:
        if index + 1 >= len(lines):
            break
        if index < read_to:
            continue
        header = lines[index]
        for delimiter in _DELIMITERS:
            piped = delimiter == "|"
            if delimiter not in header:
                continue
            if piped and not _SEPARATOR_ROW.fullmatch(lines[index + 1]) and not header.startswith("|"):
                piped = False  # sqlite3 -header: an unbordered `|` table without a separator row
                if not all(_COLUMN_NAME.fullmatch(name.strip()) for name in header.split("|")):
                    continue
            if (piped and not _SEPARATOR_ROW.fullmatch(lines[index + 1])) or (
                not piped and _CODE_PUNCTUATION.search(header.replace(delimiter, ","))
            ):
                continue  # the cheap tests first: most lines naming a credential are no header
            cells = _cells(header, delimiter)
            names = [header[a:b] for a, b in cells]
            columns = {column: named for column, name in enumerate(names) if (named := column_class(name))}
            if len(cells) < 2 or not columns:
                continue
            if not piped and not all(_NAME.fullmatch(name) for name in names):
                break
            read_to = index + 2 if piped else index + 1
            for row_index in range(read_to, len(lines)):
                row = lines[row_index]
                row_cells = _cells(row, delimiter)
                if len(row_cells) != len(cells) or (
                    not piped and _CODE_PUNCTUATION.search(row.replace(delimiter, ","))
                ):
                    break
                read_to = row_index + 1
                for column, named in columns.items():
                    low, high = row_cells[column]
                    value = row[low:high]
                    if credential_shaped(value):
                        kind = "PASSWORD" if named == "password" else "SECRET"
                        start = offsets[row_index] + low
                        yield Finding(kind, start, start + len(value), value, "positional:table")
            break


_KEY_VALUE_HEADER = re.compile(
    r"(?im)^[ \t|]*[\"']?(?:key|name|variable(?:_name)?|setting|parameter|field|property)[\"']?[ \t]*"
    r"(?P<delimiter>[|,\t])[ \t]*[\"']?value[\"']?[ \t|]*\r?$"
)
"""The header of a table of key/value pairs: ``psql``'s ``key | value``, MySQL's ``| Variable_name |
Value |``, a CSV or TSV export's ``name,value``."""
_KEY_THEN_VALUE = re.compile(r"(?m)^(?P<key>/[^\s]*[^\s/])\n(?P<value>[^\n]+)$")
"""etcdctl's ``get`` output: the key on its own line, its value on the next."""


def _key_value_rows(text: str) -> Iterator[Finding]:
    """The value cell of a row whose key cell names a credential, in a table of key/value pairs
    (:data:`_KEY_VALUE_HEADER`: ``smtp_password | x`` under ``key | value``), and etcdctl's value
    line under a key line that names one. Here the label is a row's first cell, not a column's
    header (:func:`_table_columns`), so a ``select key, value from settings`` kept every value."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for header in _KEY_VALUE_HEADER.finditer(text):
        delimiter = header.group("delimiter")
        index = bisect.bisect_right(offsets, header.start()) - 1
        for row_index in range(index + 1, len(lines)):
            row = lines[row_index]
            if delimiter == "|" and _SEPARATOR_ROW.fullmatch(row):
                continue  # the rule under the header, a MySQL border
            cells = _cells(row, delimiter)
            if len(cells) != 2:
                break
            named = credential_class(row[cells[0][0] : cells[0][1]])
            low, high = cells[1]
            if named and credential_shaped(row[low:high]):
                kind = "PASSWORD" if named == "password" else "SECRET"
                yield Finding(
                    kind,
                    offsets[row_index] + low,
                    offsets[row_index] + high,
                    row[low:high],
                    "positional:key_value_row",
                )
    if "etcdctl" in text:
        for pair in _KEY_THEN_VALUE.finditer(text):
            named = credential_class(pair.group("key").rsplit("/", 1)[-1])
            if named and credential_shaped(pair.group("value").strip()):
                value = pair.group("value").strip()
                start = pair.start("value") + pair.group("value").index(value)
                kind = "PASSWORD" if named == "password" else "SECRET"
                yield Finding(kind, start, start + len(value), value, "positional:key_value_row")


def _copy_rows(text: str) -> Iterator[Finding]:
    """Values of ``pg_dump`` ``COPY ... FROM stdin;`` rows under a column that names a credential."""
    for names, rows in copy_blocks(text):
        columns = {column: named for column, name in enumerate(names) if (named := column_class(name))}
        for offset, cells in rows if columns else ():
            for column, cell in enumerate(cells):
                if column in columns and cell != "\\N" and credential_shaped(cell):
                    kind = "PASSWORD" if columns[column] == "password" else "SECRET"
                    yield Finding(kind, offset, offset + len(cell), cell, "positional:copy_rows")
                offset += len(cell) + 1


def _sql_inserts(text: str) -> Iterator[Finding]:
    """``INSERT INTO t (a, password) VALUES (x, 'y'), (...)``: the values in a credential column."""
    for match in INSERT.finditer(text):
        columns = [credential_class(name) for name in column_names(match.group("columns"))]
        if not any(columns):
            continue
        for row, values in insert_rows(match):
            yield from bound_insert_values(text, match.end(), row.group(1), columns, credential_shaped)
            if len(values) != len(columns):
                continue
            base = match.start("rows") + row.start(1)
            for named, value in zip(columns, values, strict=True):
                literal = value.group().strip()
                if named is None or not literal.startswith("'"):
                    continue
                inner = literal[1:-1]
                if credential_shaped(inner):
                    start = base + value.start() + 1
                    kind = "PASSWORD" if named == "password" else "SECRET"
                    yield Finding(kind, start, start + len(inner), inner, "positional:sql_insert")


def _kubernetes_secret_data(text: str) -> Iterator[Finding]:
    """Every value under ``data:`` or ``stringData:`` of a Kubernetes ``kind: Secret`` (YAML or
    JSON, as ``kubectl get secret -o yaml|json`` prints it): the manifest says each one is a
    secret, whatever its key (``DB_CONN``, ``api``), so no name has to. ``data`` holds base64,
    which a weak password's encoding does not make random enough for entropy. Only the ``data`` of
    the Secret itself: a ``ConfigMap`` in another document of the stream, or another item of a
    ``kind: List``, holds configuration (``LOG_LEVEL: debug``, a service URL)."""
    if not _SECRET_KIND.search(text):
        return
    secret_keys = _yaml_secret_keys(text)
    blocks = [
        (m.start("body"), m.group("body"), _YAML_SECRET_VALUE)
        for m in _YAML_SECRET_DATA.finditer(text)
        if m.start() in secret_keys
    ]
    kinds = [m.start() for m in _JSON_KIND_SECRET.finditer(text)]
    data = list(_JSON_SECRET_DATA.finditer(text)) if kinds else []
    holders = _json_holders(text, [*kinds, *(m.start() for m in data)])
    secret_objects = {holders[kind] for kind in kinds} - {None}
    blocks += [
        (m.start("body"), m.group("body"), _JSON_SECRET_VALUE)
        for m in data
        if holders[m.start()] in secret_objects
    ]
    for base, body, pair in blocks:
        for match in pair.finditer(body):
            value = match.group("value")
            if acceptable_value(value, True, "password", ""):
                start = base + match.start("value")
                yield Finding("SECRET", start, start + len(value), value, "positional:kubernetes_secret")


_YAML_LINE = re.compile(r"(?P<indent>[ \t]*)(?P<item>-[ \t]+)?(?P<content>[^\n]*)")
_YAML_DOCUMENT_MARKER = re.compile(r"(?:---|\.\.\.)(?:[ \t]|$)")
_YAML_KIND_SECRET = re.compile(r"[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?Secret\b")
_JSON_KIND_SECRET = re.compile(r"\"kind\"\s*:\s*\"Secret\"")


def _yaml_secret_keys(text: str) -> set[int]:
    """The line offsets of every key of a YAML mapping that holds ``kind: Secret``: its siblings
    (same indent, same document, same list item). One pass, a stack of the open mappings."""
    mapping_of: dict[int, int] = {}
    secret: set[int] = set()
    stack: list[tuple[int, int]] = []  # (indent of the keys, the mapping's id: its first key's offset)
    offset = 0
    for line in text.split("\n"):
        start, offset = offset, offset + len(line) + 1
        shape = _YAML_LINE.match(line)
        assert shape is not None  # every group is optional
        content, item = shape.group("content"), shape.group("item")
        if _YAML_DOCUMENT_MARKER.match(line):
            stack.clear()
            continue
        if not content.strip() or content.lstrip().startswith("#"):
            continue
        own = len(shape.group("indent")) + len(item or "")
        while stack and (stack[-1][0] > own or (item and stack[-1][0] == own)):
            stack.pop()  # a parent's next key, or the next item of a list
        if not stack or stack[-1][0] != own:
            stack.append((own, start))
        mapping_of[start] = stack[-1][1]
        if _YAML_KIND_SECRET.match(content):
            secret.add(stack[-1][1])
    return {line for line, mapping in mapping_of.items() if mapping in secret}


def _json_holders(text: str, positions: list[int]) -> dict[int, int | None]:
    """The object (by the offset of its ``{``) each of ``positions`` lies directly in, or None:
    one pass over ``text``, braces inside string literals skipped."""
    wanted = sorted(set(positions))
    holders: dict[int, int | None] = {}
    opened: list[int] = []
    in_string = escaped = False
    for position, char in enumerate(text):
        if len(holders) == len(wanted):
            break
        if position == wanted[len(holders)]:
            holders[position] = opened[-1] if opened else None
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char == "{":
            opened.append(position)
        elif char == "}" and opened:
            opened.pop()
    return holders
