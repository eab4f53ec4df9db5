"""Pass 1: known secret formats, key/value assignments, PEM blocks, and high-entropy tokens.

Every detector returns :class:`Finding` spans over the exact text it was given, so pass 3 can
replace by position. Nothing here trusts a reported value without its offsets.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import lru_cache

from detect_secrets.filters.heuristic import is_sequential_string

from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_files import READER_WORDS, find_printed_credential_files
from trajectory_platform.curation.redact.credential_names import (
    FOREIGN_PASSWORD,
    KEYWORD_SCAN,
    KEYWORD_SCAN_ANY_CASE,
    credential_class,
)
from trajectory_platform.curation.redact.cut_values import cut_at, cut_head, find_cut_values
from trajectory_platform.curation.redact.decoders import (
    base58_text,
    decoded_views,
    encoded_text,
    inflates_past_limit,
    wrapped_block_text,
)
from trajectory_platform.curation.redact.dumps import ROW_OPENS
from trajectory_platform.curation.redact.entropy import (
    entropy_threshold,
    looks_random,
    shannon_entropy,
    uuid_head,
)
from trajectory_platform.curation.redact.key_constructors import (
    find_key_constructor_hex,
    find_listed_hex_keys,
    find_named_hex_keys,
)
from trajectory_platform.curation.redact.line_values import in_env_file, line_phrase, line_remark
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.not_values import (
    PLACEHOLDER,
    log_stamp,
    not_a_value,
    owner_spec,
    placeholder_head,
    translated_label,
)
from trajectory_platform.curation.redact.pii import find_pii
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE
from trajectory_platform.curation.redact.public_material import find_unparsed_block_bodies
from trajectory_platform.curation.redact.random_sources import RANDOM_SOURCE
from trajectory_platform.curation.redact.shell_words import expansions
from trajectory_platform.curation.redact.spelling import case_flips_at_random, random_letters, unspellable
from trajectory_platform.curation.redact.sql_columns import column_at
from trajectory_platform.curation.redact.webhook_urls import find_webhook_secrets, mentions_a_hook

_TOKEN_BODY = r"[A-Za-z0-9_\-]"

_QUOTED_OR_BARE_VALUE = r"(?:\"([^\"\n]{3,128})\"|'([^'\n]{3,128})'|([^\s'\"|;&<>]{3,128}))"
"""A command's value: quoted, else up to whitespace or a shell operator. The rules that use it
take the first group that matched (their capture group is 0)."""

_PROSE_AFTER_OPTION = r"(?:option|flag|switch|argument|parameter|and|or|to|with|is|for|the|was)"
"""Words that follow an option where prose names it ("the zip -P option sets a password"): a
client's name counts wherever it stands as a word, in prose too."""
_CLIENT_PASSWORD_OPTIONS = (
    ("redis-cli", "-a|--pass"),
    ("sqlcmd|bcp|ipmitool", "-P"),
    ("ldap(?:search|add|modify|delete|whoami|compare)", "-w"),
    ("ldappasswd", "-w|-s|-a"),
    (
        "mongo(?:sh|dump|restore|import|export)?|cqlsh|cypher-shell|hdbsql|mysqlsh|rabbitmqadmin",
        "-p|--password",
    ),
    ("mosquitto_(?:pub|sub|rr)|tsql|sqsh|bsqldb|freebcp", "-P"),
    ("snmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|status)", "-A|-X|-c"),  # -c: a v1/v2c community
    ("zip|unzip", "-P|--password"),
    ("7za?|rar|unrar", "-p"),
    (r"[\w.-]+(?:\s+[\w.-]+)?\s+login(?=\s|$)", "-p|--password"),  # any tool's login: docker, oc, cf, conan
    ("keytool|jarsigner", "-storepass|-keypass|-srcstorepass|-deststorepass|-srckeypass|-destkeypass"),
    ("svn", "--password"),
    ("useradd|usermod", "-p|--password"),
)
"""Each client's own password options: one list for all read ``redis-cli -p 6380`` (its port) as
the password and kept the ``-a`` after it."""

_MYSQL_CLIENT = r"\b(?:mysql|mariadb)(?:-?(?:dump|admin|import|show|check))?\b"
"""MySQL's clients and MariaDB's (``mariadb``, ``mariadb-dump``, ``mysqlcheck``): their ``-pX`` is
the password glued to its option, wherever it stands after the client's other options."""

# (kind, regex, capture group holding the secret, gate). A rule runs only when one of its gate
# substrings occurs in the lowercased text (no gate: always). Prefixes are vendor-documented token formats.
_FORMAT_RULES: list[tuple[str, str, int, tuple[str, ...]]] = [
    (
        "AWS_KEY",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b",
        0,
        (),
    ),
    ("GITHUB_TOKEN", r"\bgh[pousr]_[A-Za-z0-9_.\-]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,}", 0, ()),
    (
        "GITLAB_TOKEN",
        r"\bgl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt|sa)-[A-Za-z0-9_.\-]{16,}"
        r"|\bGR1348941[A-Za-z0-9_\-]{20}|_gitlab_session=[0-9a-f]{32}",
        0,
        (),
    ),
    ("SLACK_TOKEN", r"\bxox[abposer]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Za-z0-9\-]{10,}", 0, ()),
    (
        "SLACK_WEBHOOK",
        r"hooks\.slack\.com/(?:services|workflows)/(T[A-Za-z0-9_/]{20,})",
        1,
        ("hooks.slack.com",),
    ),
    (
        "STRIPE_KEY",
        r"\b(?:sk|rk|pk|whsec)_(?:live|test|prod)_[A-Za-z0-9]{10,}",
        0,
        ("_live_", "_test_", "_prod_"),
    ),
    ("ANTHROPIC_KEY", r"\bsk-ant-[a-z0-9]{2,8}-[A-Za-z0-9_\-]{20,}", 0, ()),
    ("OPENAI_KEY", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}", 0, ()),
    # A JSON object encodes to "ey" when "{" is followed by a quote or a space and to "ew" when a
    # newline or tab follows it (pretty-printed claims): every segment of one token goes whole.
    # The word start is a lookbehind, not a leading \b (:func:`_compile_rule` would check that in
    # Python after the match): "ey" is no rare prefix ("key", "they"), and every one of them in a
    # long word would scan that word again, quadratic in its length. A segment may be written in
    # base64's standard alphabet (``+/``, as gitleaks' rule reads it). A JWE (RFC 7516) has five
    # segments: the header, an encrypted key (empty for ``dir``), the IV, the ciphertext, the tag.
    (
        "JWT",
        r"(?<!\w)e[wy][A-Za-z0-9_\-+/]{8,}+={0,2}\.(?:e[wy][A-Za-z0-9_\-+/]{8,}+={0,2}\.[A-Za-z0-9_\-+/=]*"
        r"|[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})",
        0,
        (),
    ),
    ("TOKEN", r"\beyJ[A-Za-z0-9_\-+/]{20,}={0,2}", 0, ()),
    (
        "API_KEY",
        r"\b(?:xai-|pplx-|gsk_|llx-|tgp_v1_|lin_api_|lin_oauth_|nfp_|vcp_|npm_|figd_|dckr_(?:pat|oat)_|cfat_|cfut_"
        r"|cfk_|do[opr]_v1_|pypi-|PMAK-|PMAT-|NRAK-|NRBR-|NRII-|NRJS-|SWMTKN-1-|SWMKEY-1-|AGE-SECRET-KEY-1"
        r"|xkeysib-|xsmtpsib-|CLOJARS_|glc_|glsa_|ops_|BBDC-|ATBB|ATATT3|GOCSPX-|AIza|ya29\.|1//0|hf_|hvs\.|hvb\."
        r"|dp\.pt\.|ntn_|sntrys_|shp(?:at|ca|pa|ss)_|dapi|sq0atp-|sq0csp-|EAAA|EAACEd|da2-|amzn\.mws\.|akab-"
        r"|ABSK|bedrock-api-key-|rubygems_|FLWSECK-|FLWSECK_|FLWPUBK_|dt0c01\.|AKCp|cmVmdGtu|LTAI|AKID|p8e-|duffel_"
        r"|EZAK|EZTK|fo1_|fio-u-|HRKU-|api_org_|pscale_|rdme_|tk-us-|sntryu_|sm_[aps]at_|shippo_|sha256~|ZXlK"
        r"|key-(?=[0-9a-f]{32}))"
        r"[A-Za-z0-9_\-.+/=]{14,}",
        0,
        (),
    ),
    (
        "API_KEY",
        r"\bico-[a-zA-Z0-9]{32}\b|\bpul-[a-f0-9]{40}\b|\bA3-[A-Z0-9]{6}-[A-Z0-9-]{20,}|\bsgp_(?:local_)?[a-fA-F0-9_]{40,}"
        r"|\bpnu_[a-zA-Z0-9]{36}\b|\bAPI-[A-Z0-9]{26}\b|\bSK[0-9a-fA-F]{32}\b|\bs-s4t2(?:ud|af)-[a-fA-F0-9]{64}\b",
        0,
        (),
    ),
    ("API_KEY", r"[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.\-]{31,34}", 0, ("q~",)),
    ("API_KEY", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9\-_=]{60,70}", 0, (".atlasv1.",)),
    ("API_KEY", r"webhook\.office\.com/webhookb2/([A-Za-z0-9@\-/]{40,})", 1, ("webhook.office.com",)),
    ("API_KEY", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}|\bSG\.[A-Za-z0-9=_\-.]{66}", 0, ()),
    ("API_KEY", r"\baccess_token\$production\$[a-z0-9]{8,}\$[a-f0-9]{16,}", 0, ("access_token$",)),
    ("API_KEY", r"\boy2[a-z0-9]{43}\b", 0, ()),
    ("API_KEY", r"\b[a-z0-9]{36}NRAL\b|\beu01x[a-z0-9]{31}NRAL\b", 0, ("nral",)),
    ("API_KEY", r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", 0, ()),
    ("API_KEY", r"\b\d{15,16}\|[A-Za-z0-9_\-]{20,}", 0, ("|",)),
    ("API_KEY", r"\b3MVG[A-Za-z0-9_.]{40,}|\b00D[A-Za-z0-9]{12,15}(?:![A-Za-z0-9_.]{20,})?\b", 0, ()),
    ("API_KEY", r"\b[MN][A-Za-z0-9]{23,}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}", 0, ()),
    ("API_KEY", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b", 0, (":aa",)),
    ("NTLM_TOKEN", r"\bTlRMTVNTUAA[A-Za-z0-9+/]{20,}={0,2}", 0, ("tlrmtvntuaa",)),
    ("AZURE_KEY", r"\b[A-Za-z0-9+/]{20,}JQQJ9[9DH][A-Za-z0-9+/]{5,}={0,2}", 0, ("jqqj9",)),
    (
        "OAUTH_CLIENT_ID",
        r"\b\d{6,}-[a-z0-9]{32}\.apps\.googleusercontent\.com",
        0,
        (".apps.googleusercontent.com",),
    ),
    (
        "PASSWORD",
        # redis://:pw@host; a password with an unencoded @ or / runs to the last @ before the host
        # (as URL parsers read it), but a port and a path (host:8080/a@b) are no password
        r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'\"<>]{0,64}:(?!\d+/)([^\s'\"<>]{1,128}?)@"
        r"(?=[^\s@/'\"<>?#]*(?:[/:?#\s'\"<>)\]]|$))",
        1,
        ("://",),
    ),
    (  # a SIP or SIPS URI's userinfo (sip:alice:pw@pbx;transport=tls): a URL with no "//"
        "PASSWORD",
        r"(?<![\w.+\-])sips?:[^\s:@;/'\"<>]{1,64}:([^\s@;'\"<>]{1,128})@(?=[\w\[])",
        1,
        ("sip",),
    ),
    (  # curl -u user:pw, also with the password alone quoted (-u admin:'pw')
        "PASSWORD",
        r"(?:^|\s)(?:-u|--user)\s*[\"']?(?!\+)[^\s:'\"]{1,64}[\"']?:" + _QUOTED_OR_BARE_VALUE,
        0,
        ("-u",),
    ),
    (  # httpie / xh: http -a user:pw
        "PASSWORD",
        r"\b(?:https?|xh|xhs|httpie)\b[^\n|;&]*?\s(?:-a|--auth)[\s=]\s*[\"']?[^\s:'\"]{1,64}:"
        + _QUOTED_OR_BARE_VALUE,
        0,
        (" -a ", " -a=", "--auth"),
    ),
    (
        "PASSWORD",
        r"(?i)\b(?:identified\s+(?:with\s+\S+\s+)?(?:by|as)(?:\s+password)?|login\s+password"
        r"|set\s+password(?:\s+for\s+\S+)?\s*=\s*(?:password\s*\(\s*)?"  # MySQL SET PASSWORD = PASSWORD('x')
        r"|with\s+(?:login\s+)?(?:encrypted\s+)?password)\s*=?\s*(?:'([^'\n]{3,})'"
        r"|((?=[^\s;'\"\\]*\d)[^\s;'\"\\`()]{3,}))",  # unquoted: "identified by four" is prose
        0,
        ("identified", "password"),
    ),
    (
        "PASSWORD",
        _MYSQL_CLIENT + r"[^\n|;&]*?\s-p([^\s'\"-][^\s'\"]{2,127})",
        1,
        ("mysql", "mariadb"),
    ),
    (
        "PASSWORD",
        _MYSQL_CLIENT + r"[^\n|;&]*?\s-p'([^'\n]{3,127})'",
        1,
        ("mysql", "mariadb"),
    ),
    (
        "PASSWORD",
        _MYSQL_CLIENT + r"[^\n|;&]*?\s-p\"([^\"\n]{3,127})\"",
        1,
        ("mysql", "mariadb"),
    ),
    ("PASSWORD", r"\bsshpass\s+-p\s*[\"']?([^\s'\"]{3,128})", 1, ("sshpass",)),
    # A Kubernetes bootstrap token (kubeadm join --token, kubeadm token create): <6>.<16> of [a-z0-9]
    ("TOKEN", r"(?<![\w.\-])[a-z0-9]{6}\.(?=[a-z0-9]*[0-9])(?=[0-9]*[a-z])[a-z0-9]{16}(?![\w.\-])", 0, ()),
    (  # openssl -passin pass:X, the value quoted (pass:"a b") or the whole argument ('pass:a b')
        "PASSWORD",
        r"-pass(?:in|out)?\s+(?:pass:"
        + _QUOTED_OR_BARE_VALUE
        + r"|\"pass:([^\"\n]{3,128})\"|'pass:([^'\n]{3,128})')",
        0,
        ("pass:",),
    ),
    (  # wpa_passphrase SSID PASSPHRASE: the second word, quoted whole
        "PASSWORD",
        r"\bwpa_passphrase\s+(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"|;&<>]+)\s+" + _QUOTED_OR_BARE_VALUE,
        0,
        ("wpa_passphrase",),
    ),
    (  # Samba's user%password (smbclient, rpcclient, net, winexe): -U u%pw, -Uu%pw, --user=u%pw, the
        # pair quoted whole ("u%pw") or the password alone (u%'pw'); red team, round 12
        "PASSWORD",
        r"(?:^|\s)(?:-U\s*|--user(?:name)?(?:=|\s+))(?:\"[^\"%\n]{1,64}%([^\"\n]{3,128})\""
        r"|'[^'%\n]{1,64}%([^'\n]{3,128})'|[\"']?[^\s%'\"]{1,64}[\"']?%" + _QUOTED_OR_BARE_VALUE + ")",
        0,
        ("%",),
    ),
    (  # user:password@host as a command's word with no scheme (Impacket's [domain/]user:pw@target, a
        # proxy's user:pw@proxy:port): with a domain before the user, or a port after the host, the
        # word cannot be an address (``mailto:ops@example.com``) or a pinned image (``python:3@sha256:``);
        # a value ending in ``:`` is Oracle's driver (``jdbc:oracle:thin:@host:1521/db``), no password
        "PASSWORD",
        r"(?<![\w.\-/\\:@%])[\"']?(?:[\w.\-]{1,64}(?:/|\\{1,2})[\w.\-$]{1,64}:"
        r"(?:'([^'\n]{3,128})'|\"([^\"\n]{3,128})\"|([^\s'\"]{3,128}))[\"']?@(?=[\w\[])"
        r"|[\w.\-$]{1,64}:(?:'([^'\n]{3,128})'|\"([^\"\n]{3,128})\"|([^\s'\"/]{2,127}[^\s'\"/:]))[\"']?@"
        r"[\w\-]+(?:\.[\w\-]+)*:\d{2,5}(?![\w.]))",
        0,
        ("@",),
    ),
    ("PASSWORD", r"\bnet\s+user\s+\S+\s+[\"']?([^\s/*'\"][^\s'\"]{2,127})", 1, ("net user",)),
    (
        "PASSWORD",
        r"\becho\s+[\"']?[\w.\-]{1,32}:([^\s'\"]{3,128})[\"']?\s*\|\s*(?:sudo\s+)?chpasswd",
        1,
        ("chpasswd",),
    ),
    (
        "PASSWORD",
        r"(?m)^\s*ENV\s+\w*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY)\w*\s+[\"']?([^\s=\"'][^\s\"']{3,127})",
        1,
        ("env",),
    ),
    ("PASSWORD", r"CURLOPT_USERPWD\W{1,6}[^:\"'\s]{1,64}:([^\"'\s]{3,128})", 1, ("curlopt_userpwd",)),
    ("PASSWORD", r"ConvertTo-SecureString(?:\s+-\w+)*\s+\\?[\"']?([^\s\"'\\]{4,})", 1, ()),
    # An Authorization header read by its scheme: Digest's credential is its response hash (its
    # username, realm and nonce are no secret); the other schemes carry one credential, which may
    # hold a password's punctuation (HTTPie's ``Authorization:"Bearer v"``).
    (
        "AUTH_HEADER",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*\\?[\"']?\s*(?:digest\s+"
        r"(?:[\w-]+=(?:\"[^\"\n]*\"|[^\s,\"]*),\s*)*?response=\"?([0-9A-Fa-f]{16,})"
        r"|(?:(?:bearer|basic|token|ntlm|negotiate|apikey|sso-key)\s+)?([A-Za-z0-9._~+/\-%=!@#^]{8,}))",
        0,
        ("authorization",),
    ),
    ("AUTH_HEADER", r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-=]{12,})", 1, ("bearer",)),
    # Basic credentials outside an Authorization header (``API_AUTH=Basic ...``, ``auth: Basic
    # ...``, a proxy's config): base64 of ``user:password``, too short and too regular for entropy
    # (``admin:admin123``); read by what they decode to (:func:`basic_credentials`).
    ("AUTH_HEADER", r"(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})", 1, ("basic",)),
]


def _compile_rule(pattern: str) -> tuple[re.Pattern[str], bool]:
    """Compile a rule; a leading ``\\b`` before a literal prefix is checked in Python instead.

    ``re`` can only jump straight to a literal prefix when the pattern starts with it, and a
    leading ``\\b`` hides the prefix: dropping it makes those rules about 20x faster.
    """
    alternatives = pattern.split("|\\b")
    literal_led = pattern.startswith("\\b") and all(
        alt.removeprefix("\\b")[:1].isalnum() for alt in alternatives
    )
    if literal_led:
        return re.compile(pattern[2:].replace("|\\b", "|")), True
    return re.compile(pattern), False


_COMPILED_RULES = [(kind, *_compile_rule(rx), group, gate) for kind, rx, group, gate in _FORMAT_RULES]

_CLIENT_COMMANDS = re.compile(
    r"(?<![\w.\-])"  # the client's name as a word (or a path's last part), any prompt or prefix before it
    + "(?:"
    + "|".join(f"(?P<c{index}>{client})" for index, (client, _) in enumerate(_CLIENT_PASSWORD_OPTIONS))
    + r")\b(?P<arguments>(?:'[^'\n]*'|\"[^\"\n]*\"|[^\n|;&'\"])*)"  # a quoted & or | is no operator
)
_CLIENT_OPTIONS = tuple(
    re.compile(
        rf"\s(?:{options})(?:\s+|=)?(?:\"([^\"\n]{{3,128}})\"|'([^'\n]{{3,128}})'"
        rf"|[\"']?(?!{_PROSE_AFTER_OPTION}\b)([^\s'\"-][^\s'\"]{{2,127}}))"
    )
    for _, options in _CLIENT_PASSWORD_OPTIONS
)
"""An option's value: quoted whole (``7z -p"zip me now 9"``: the shell gives the option every
word between the quotes, spaces and all), else one bare word."""
_CLIENT_GATE = re.compile(
    r"redis-cli|sqlcmd|bcp|ipmitool|ldap|mongo|zip|7z|rar|login|keytool|jarsigner|svn|user(?:add|mod)|cqlsh"
    r"|cypher-shell|hdbsql|mysqlsh|rabbitmqadmin|mosquitto|tsql|sqsh|bsqldb|freebcp|snmp"
)


def find_client_passwords(text: str) -> Iterator[Finding]:
    """The value of every password option a common client is given (:data:`_CLIENT_PASSWORD_OPTIONS`),
    wherever the client's name stands as a word: after any prompt (``root@host:/app#``,
    ``PS C:\\>``, IPython's ``!``), a Dockerfile ``RUN``, a CI step, an environment prefix. A
    list of command positions missed each prompt it did not name. Every option of the command
    counts (``snmpwalk -A auth -X priv``, ``keytool -storepass a -keypass b``)."""
    if not _CLIENT_GATE.search(text):  # command names are written in small letters
        return
    for command in _CLIENT_COMMANDS.finditer(text):
        client = next(
            index for index in range(len(_CLIENT_OPTIONS)) if command.group(f"c{index}") is not None
        )
        for option in _CLIENT_OPTIONS[client].finditer(text, *command.span("arguments")):
            group = option.lastindex or 1
            value = option.group(group).rstrip(".-")
            if len(value) >= 4 and not PLACEHOLDER.match(value) and not PSEUDONYM_RE.fullmatch(value):
                start = option.start(group)
                yield Finding("PASSWORD", start, start + len(value), value, "format:password")


_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"\\[nrt]|([A-Za-z0-9+/]+={0,2})")
_PEM_BETWEEN_LINES = re.compile(r"(?:\s|\\[nrt]|[\"'+,;&.()]|\\$)*")
"""What may separate a key's last body line from its END marker: newlines (real or escaped),
quotes and the concatenation of a key split over string literals."""
_PEM_MAX_SPAN = 20000

# --- key/value assignments --------------------------------------------------------------------

STRING_PREFIX = r"[bBrRuUfFLN]{1,2}|@|u8|E"
"""A string literal's prefix in its language: Python's ``b r f u rb`` (any case, either order),
C#/Objective-C's ``@``, C's ``L``/``u8``, T-SQL's ``N``, PostgreSQL's ``E``. Every rule that reads a
quoted literal allows it: the prefix hid the quote, and the rule read the prefix as the value
(``password = b'x'``; redis-py's ``{b'password': b'x'}``, Python 2's ``{u'password': u'x'}``)."""

_ASSIGN = re.compile(
    r"(?P<name>\"[^\"\n]{1,64}\"|'[^'\n]{1,64}'|(?<![\w$])(?:[^\W\d]|[$@\-])[\w.\-]{0,63})"  # any script's
    r"(?P<op>\s*:\s*[A-Za-z_][\w.]*(?:\[[\w., ]*\])?(?:\s+=(?!=)\s*|=(?=\\?[\"']))"  # "pw: str = 'x'"
    r"|\s*(?::=|=>|==|!=|\?=|=|:)\s*|\s+(?=\\?[\"'])|\s+(?=\S))"
    rf"\(?\s*(?:(?<![\w$])(?:{STRING_PREFIX})(?=\\?[\"']))?"
    r"(?P<value>\\\"(?:[^\"\\\n]|\\[^\"])*\\\"|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|`[^`\n]*`|"
    r"\$'(?:[^'\\\n]|\\.)*'|"  # bash ANSI-C quoting: $'...'
    r"[^\s,;'\"`()\]}<>\\]+)"
)
_YAML_NODE_PROPERTIES = re.compile(
    r"(?:(?:&[^\s,\[\]{}]+|!!(?:str|binary)|!<tag:yaml\.org,2002:(?:str|binary)>)[ \t]+)+"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s,'\"\[\]{}#&*!|>][^\s,\]}]*)"
)
"""A YAML value's node properties before it: an anchor (``password: &pw V``, reused as ``*pw``) and
the core string tags (``!!str``, ``!!binary``, ``!<tag:yaml.org,2002:str>``). They say how to load the
value, not that it is none: read as the value, the anchor was judged and the password after it
stayed. Other tags (``!vault``, ``!Ref``, ``!secret NAME``) name where a value is and stay exempt."""
_YAML_EXPLICIT_KEY = re.compile(
    r"(?m)^(?P<indent>[ \t]*)\?[ \t]+(?P<name>[\w.-]{1,64})[ \t]*\n(?P=indent):(?P<op>[ \t]+)"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s#]+)"
)
"""YAML's explicit key: ``? password`` on one line, ``: value`` on the next (no ``name: value``)."""
_XML_ELEMENT = re.compile(
    r"<(?P<name>[A-Za-z_][\w:.\-]{0,63})(?:\s[^>\n]*)?>(?P<value>[^<\n]{1,200})</(?P=name)>"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_CODE_REF = re.compile(
    r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+(?:_[a-z]+)+$|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$"
)


_ANSI_C_TRAILING_ESCAPES = re.compile(r"(?:\\[nrt0])+$")


def _unquote(raw: str, offset: int) -> tuple[str, int]:
    """Strip one layer of quotes (``"x"``, ``'x'``, ``\\"x\\"``, backticks, bash's ``$'x'``); return
    value and its offset. An ANSI-C value's trailing ``\\n`` is its line end, not the secret's."""
    if raw.startswith("$'") and raw.endswith("'") and len(raw) >= 3:
        inner = _ANSI_C_TRAILING_ESCAPES.sub("", raw[2:-1])
        return inner, offset + 2
    for quote in ('\\"', '"', "'", "`"):
        if len(raw) >= 2 * len(quote) and raw.startswith(quote) and raw.endswith(quote):
            return raw[len(quote) : len(raw) - len(quote)], offset + len(quote)
    return raw, offset


_WORDY_PATH = re.compile(
    r"(?:[a-z0-9_-]+|[A-Z][a-z0-9_-]*)(?:[/:.](?:[a-z0-9_-]+|[A-Z][a-z0-9_-]*))+"
    r"|[a-z]+(?:-[a-z]+)*-\d{1,4}(?:-(?:[a-z]+|\d{1,4}))*"
)
"""Words and numbers joined by ``/``, ``:`` or ``.``, or a slug of words and short numbers: what a
generic ``key`` names when it is no secret (an S3 object ``data/2024/01/sales_q1.csv``, a cache key
``user:1234:profile:v2``, a message id ``errors.http.status_503``, ``src/components/Button2.tsx``,
a React ``key="item-42-b"``; a slug with a number: a passphrase of words alone is a secret). A
key's pieces mix capitals inside (``wJalrXUtnFEMI/K7MDENG/...``) or
letters and digits (a UUID). Replaced, the pseudonym reached every command naming the object."""


_MEMORABLE = re.compile(r"(?:[A-Z][a-z]{2,}[._-]){1,3}[A-Z][a-z]{2,}\d{2,6}[!#$%&*?@]?")
"""A password people choose to remember: capitalised words joined by a dot, dash or underscore,
then digits (``Sunset.Harbor2291``, ``Amber-Cedar-42``). Under a name that wants a key-shaped value
(``APP_SESSION``, ``APP_DSN``, ``APP_JWT``) it read as a dotted path or a slug and was kept; paths,
modules and message ids are lowercase or carry no trailing number."""


_PLATFORM_WORDS = frozenset(
    {
        "node",
        "python",
        "py",
        "cp",
        "pp",
        "go",
        "jdk",
        "jre",
        "java",
        "ruby",
        "php",
        "dotnet",
        "net",
        "deno",
        "bun",
    }
    | {"ubuntu", "debian", "alpine", "centos", "rhel", "fedora", "macos", "osx", "darwin", "linux", "win"}
    | {
        "windows",
        "freebsd",
        "android",
        "ios",
        "manylinux",
        "musllinux",
        "musl",
        "gnu",
        "glibc",
        "msvc",
        "mingw",
    }
    | {"slim", "bookworm", "bullseye", "buster", "jammy", "focal", "noble", "lts", "latest", "universal"}
)
_ARCHITECTURES = frozenset(
    {"x64", "x86", "x86_64", "amd64", "arm64", "aarch64", "armv6l", "armv7", "armv7l", "arm", "i386", "i686"}
    | {"386", "ppc64le", "s390x", "riscv64"}
)
"""The words of a platform's label: a runtime, an operating system or a distribution and its
release, an image's flavour, a processor architecture."""


def platform_label(value: str) -> bool:
    """Is ``value`` a platform's dotted label (``node18.linux.x64``, ``cp311.manylinux2014.aarch64``,
    ``python3.11.slim``), as a CI runner, a wheel or an image names what it runs on? Every dotted
    part is a runtime's, a system's or an architecture's word, with its version, or a number: a
    password people choose mixes in words of their own (``Granite.meadow7385``)."""
    parts = value.lower().split(".")
    if len(parts) < 2:
        return False
    named = [p for p in parts if not p.isdigit()]
    return bool(named) and all(
        part in _ARCHITECTURES or re.sub(r"[\d_]+$", "", part) in _PLATFORM_WORDS for part in named
    )


_DOTTED_WORDS = re.compile(r"[A-Za-z]+\d*(?:\.[A-Za-z]+\d*){0,2}\.(?:[A-Za-z]+\d*|\d{2,6})")


def _dotted_chosen(value: str) -> bool:
    """Words joined by dots with a number, as people choose a password (``Granite.meadow7385``,
    ``Meadow.Violet.1826``, ``orbit12.maple.quartz``; rtsec10 D1: under a token's name 21 of 40
    were kept as dotted paths): two words of three letters or more, a word with two digits or
    more after it, or a capital and two digits; no file extension last (``report2024.csv`` is
    an object's key). Module paths and message ids carry one digit or an underscore."""
    if not _DOTTED_WORDS.fullmatch(value):
        return False
    parts = value.split(".")
    last = parts[-1]
    numbered_word = any(re.fullmatch(r"[A-Za-z]{3,}\d{2,}", part) for part in parts)  # orbit12
    return (
        sum(len(re.sub(r"\d", "", part)) >= 3 for part in parts) >= 2
        and not re.fullmatch(r"[a-z]{1,5}", last)
        and (numbered_word or sum(map(str.isdigit, value)) >= 2 and any(map(str.isupper, value)))
    )


@lru_cache(maxsize=64)
def credential_word_hits(text: str) -> tuple[int, ...]:
    """Where :data:`KEYWORD_SCAN` finds a credential word in ``text``: the assignment rule and the
    code-binding rules (:mod:`.bindings`) read names from the same hits, and the scan is the
    larger part of either's cost; the last texts' hits are kept."""
    lower = text.lower()
    if len(lower) == len(text):
        return tuple(hit.start() for hit in KEYWORD_SCAN.finditer(lower))
    return tuple(hit.start() for hit in KEYWORD_SCAN_ANY_CASE.finditer(text))


_PASSPHRASE_WORD = re.compile(r"[A-Za-z]+\d*|\d+")
_FUNCTION_WORDS = frozenset(
    {
        *("a", "an", "the", "to", "of", "for", "in", "on", "at", "by", "is", "are", "be", "been"),
        *("must", "should", "can", "will", "not", "no", "your", "my", "our", "this", "that", "these"),
        *("here", "there", "please", "enter", "type", "use", "with", "from", "least", "than"),
        *(
            "characters",
            "character",
            "chars",
            "and",
            "or",
            "but",
            "nor",
            "if",
            "then",
            "so",
            "very",
            "it",
            "its",
        ),
    }
)
"""Words prose needs and a passphrase of random words seldom holds: "Password must be at least 8
characters", "Enter your password here" are messages; "Blue Monkey Dance 42" is a passphrase."""


def passphrase_shaped(value: str, minimum_words: int = 4) -> bool:
    """``minimum_words`` to twelve words (and numbers) with no function word among them
    (:data:`_FUNCTION_WORDS`): a diceware or ``correct horse battery staple`` passphrase, quoted
    under a password's name (four words: three are also a short value with spaces, which
    :data:`MAX_VALUE_SPACES` admits), or stated in prose after a link (three)."""
    words = re.split(r"[ -]", value.rstrip(".!?"))
    return (
        minimum_words <= len(words) <= 12
        and all(_PASSPHRASE_WORD.fullmatch(word) for word in words)
        and not any(word.lower() in _FUNCTION_WORDS for word in words)
    )


_DASHED_WORDS = re.compile(r"[a-z]{3,}(?:-[a-z]{3,}){3,11}")
_SECRET_WORD_NAME = re.compile(
    r"(?i)(?:^|[^a-z])(?:api[_-]?key|secret|(?:auth|access|api|bearer)?[_-]?token)s?(?:[^a-z]|$)"
)
_NOT_SECRET_TOKEN_NAME = re.compile(
    r"(?i)page|next|continuation|cursor|resume|sync|cancel|csrf|xsrf|name|_id\b|type"
)
"""A token's name that says where a listing or a request goes on, or that names the token rather
than holding it (``page_token``, ``next_token``, ``token_name``, ``secret_id``)."""


def dashed_passphrase(name: str, value: str) -> bool:
    """Is ``value`` four lowercase words or more joined by ``-`` (``correct-horse-battery-staple``)
    under a name that says a secret or a token (``api_key``, ``API_TOKEN``, ``client_secret``)?
    :func:`acceptable_value` keeps such a value under a key's generic name as a slug (a cache key,
    a React key, an article's path); the name is the evidence: nobody's slug is filed under a
    token's or a secret's name (red team, session 45). A password's name reads it already."""
    bare = name.strip("\"'-$@{}")
    return (
        _DASHED_WORDS.fullmatch(value) is not None
        and passphrase_shaped(value)
        and _SECRET_WORD_NAME.search(bare) is not None
        and _NOT_SECRET_TOKEN_NAME.search(bare) is None
    )


FORMAT_ONLY = re.compile(r"(?:[\s:@/._-]*(?:%[sd]|\{\d*\}|%\([^)]*\)s))+[\s:@/._-]*")
"""A format string of placeholders and separators only (``"%s%s"``, ``"{}:{}"``): a template the values fill,
never a value (``password = "%s%s" % (a, b)`` lost its template, and the code its meaning)."""


_FILE_PATH = re.compile(
    r"(?:/(?:dev|proc|run|etc|tmp|var|home|srv|opt|mnt|usr|root|secrets?)/|~/|\.{1,2}/)[\w.\-]+(?:/[\w.\-]+)*"
)
"""A path to a file or a device, by a root of the file system or a home or working directory, in
the characters of names alone: a tool that reads a secret from a file takes it under the
secret's name (``kubectl create secret --from-file=password=./pw.txt``, ``password=/dev/stdin``).
Replaced as a password, the path was rewritten wherever the episode named it (red team, round
12). A password that starts so and holds a symbol (``/dev/#x9``) is still one."""


MAX_VALUE_SPACES = 2
"""The most spaces a value under a credential name holds: with more it is prose."""


def acceptable_value(value: str, quoted: bool, name_class: str, next_char: str, option: bool = False) -> bool:
    """Reject placeholders, code references and ordinary words; keep anything credential-shaped.
    ``option``: the name is a command's option (``--password "open the gate 7"``), whose quoted
    value the shell hands over whole, however many words: no prose stands there."""
    if (
        len(value) < 4
        or PLACEHOLDER.match(value)
        or PSEUDONYM_RE.fullmatch(value)
        or FORMAT_ONLY.fullmatch(value)
    ):
        return False
    if value.lower() == name_class or "\n" in value or value != value.strip() or platform_label(value):
        return False
    if (head := cut_head(value)) is not None and placeholder_head(head):
        return False  # a reference or a template a truncation mark cut (``$DB_PASSWORD_PRO...``)
    if "\x00" in value or "^@" in value:
        return False  # a NUL (``cat -v``'s ``^@``) parts /proc's arguments: argv_separators reads each
    if value.count(" ") > MAX_VALUE_SPACES and not (
        quoted and name_class == "password" and (option or passphrase_shaped(value))
    ):
        return False  # prose, not a credential
    if not quoted and (
        next_char in ("(", "[")
        or value.endswith("[")
        or _CODE_REF.match(value)
        or value.startswith(("http://", "https://"))
    ):
        return False
    if _FILE_PATH.fullmatch(value):
        return False  # where the secret is read from (--from-file=pw=/dev/stdin), not the secret
    if name_class in ("password", "salt"):
        return True
    # Generic "key"/"token" names: only values that look like keys, not words or identifiers.
    if len(value) < 8 or " " in value or value.isdigit() or "://" in value or "," in value:
        return False
    if value[0] in "$%{[(<@":
        return False  # a variable reference, template, list or package scope, not a literal key
    if _MEMORABLE.fullmatch(value) or _dotted_chosen(value):
        return True  # Sunset.Harbor2291 under APP_SESSION or APP_DSN: a chosen password, not a path
    if _WORDY_PATH.fullmatch(value):
        return False  # an object key, a cache key, a message id, a file (see _WORDY_PATH)
    if named_digest_piece(pieces := value.split("-"), len(pieces) - 1):
        return False  # a CI cache key (Linux-pip-<sha256>): a word before the hex names it a digest
    if looks_random(value) or random_letters(value) and not _alphabet_like(value):
        return True  # random letters in one case too: ``api_token = "qwhxkzpmvbtrlsdf"``
    digits = sum(map(str.isdigit, value))
    letters = sum(map(str.isalpha, value))
    if value.isalnum() and len(value) >= 16 and letters:
        # Random keys spread capitals across the token; camelCase names have one per word.
        return 0.25 <= sum(map(str.isupper, value)) / letters <= 0.75 or (digits >= 2 and letters >= 4)
    mixed_case = any(map(str.isupper, value)) and any(map(str.islower, value))
    if _IDENTIFIER.fullmatch(value) and digits < 2:
        return False  # a name such as user_account or Content-Type
    return (
        mixed_case
        and (digits >= 2 or any(ch in "+/=!@#$%^&*~" for ch in value))
        or (digits >= 2 and letters >= 4)
    )


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_SNAKE_WORDS = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")
_ENV_LINE_START = re.compile(r"(?:^|\n)[ \t]*(?:-[ \t]+|export[ \t]+)?$")


def _line_entry(text: str, op: str, name_start: int, spaced: bool = False) -> bool:
    """Is this an entry of a line-oriented file: a name opening its line (``.env``, YAML, a compose
    list's ``- NAME=value``, ``export``), then ``=`` with no space or ``:`` (with ``spaced``, also
    an INI file's `` = ``), and not an argument or a member of code (the text before does not end
    with an open bracket or a comma)?"""
    if "\n" in op or not (op == "=" or op.strip() == ":" or spaced and op.strip() == "="):
        return False
    if _ENV_LINE_START.search(text, max(0, name_start - 40), name_start) is None:
        return False
    before = text[max(0, name_start - 200) : name_start].rstrip()
    return not before.endswith(("(", ",", "{", "["))


_QUALIFIER_BEFORE = re.compile(r"(?<![\w.\-])([A-Za-z]{2,20})[ \t]$")
"""A word before a name, one space apart: in ``Cache key: ...`` or ``Partition key = ...`` it says
which kind of key, as the ``cache_`` of ``cache_key`` does."""
_TERRAFORM_PROGRESS = re.compile(
    r"(?:Creating|Creation complete|Modifying|Modifications complete|Destroying|Destruction complete"
    r"|Reading|Read complete|Refreshing state|Importing|Import complete|Still \w+ing)\b"
)
"""Terraform's progress after a resource address (``random_password.db: Creation complete after
0s``): the address names a credential resource, and what follows is its status, not its value."""


def _qualified_away(text: str, name_start: int, name: str) -> bool:
    """Does the word before a generic name say it is no credential (``Cache key``, ``Primary
    key``, ``Public key``): is ``<word>_<name>`` no credential name?"""
    qualifier = _QUALIFIER_BEFORE.search(text, max(0, name_start - 24), name_start)
    joined = "_".join(name.split())  # "API key" in prose: the name's words, as a name joins them
    return qualifier is not None and credential_class(f"{qualifier.group(1)}_{joined}") is None


def _env_entry(text: str, name: str, op: str, name_start: int) -> bool:
    """Is this an ``.env`` line or a YAML entry of an environment variable
    (``POSTGRES_PASSWORD=my_strong_pw_value``, ``DJANGO_SECRET_KEY: super_secret_dev_key``)?
    There an unquoted snake_case or dotted value is a literal, not the name of a variable or an
    attribute (code assigns with spaces or reads ``$VAR``), and such a password survived. A
    constant's name (``TEST_DATA_BASE64``) or a value a comma follows (a dict) is still code."""
    return _ENV_NAME.fullmatch(name) is not None and _line_entry(text, op, name_start)


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+")


def _dotted_literal(text: str, name: str, value: str, op: str, name_start: int) -> bool:
    """Is a dotted or snake_case value (``Sunset.Harbor2291``) a literal rather than an attribute
    or a variable (``settings.password``)? Where a shell or a build tool reads it, it is: after a
    command's flag (``--password x7.Kq9zR2.mP``), a setting command (``setenv PW a.b``), Make's
    ``?=``, a URL's parameter (``jdbc:mysql://h/db?user=u&password=a.b.c``, SQL Server's
    ``;password=a.b;``: no code is read there). In a YAML entry, when it carries two digits or more
    (code's attribute chains seldom do, and a JavaScript object's member reads like YAML)."""
    if name.startswith("-") or op.strip() == "?=" or _after_setting_command(text, name_start):
        return True
    if url_parameter(text, name_start):
        return True
    return _line_entry(text, op, name_start) and sum(map(str.isdigit, value)) >= 2


def url_parameter(text: str, name_start: int) -> bool:
    """Is the name at ``name_start`` a parameter of a URL or a JDBC connection string: after the
    ``?`` or an ``&`` of a query, or a ``;`` of a word that is a URL (``jdbc:sqlserver://h;user=u;
    password=...``)? Its value is the parameter's text, whatever it looks like to code."""
    before = text[name_start - 1 : name_start]
    if before not in ("?", "&", ";"):
        return False
    word_start = max(text.rfind(space, 0, name_start) for space in " \t\n\"'`") + 1
    word = text[word_start:name_start]
    return "://" in word and (before == ";" or "?" in word)


_ENV_VALUE_END = re.compile(r"\s|[;&|](?=[\s;&|]|$)")
"""Where an unquoted ``NAME=value`` ends: whitespace (a shell's ``NAME=value command``) or a shell
operator followed by a space or another operator (``X=v; next``, ``X=v && next``)."""
_COMMAND_WORD = re.compile(r"(?:[a-z][\w.+-]*|\.{0,2}/\S*|[A-Za-z_]\w*=\S*|[-\\`$(])(?:\s|$)")
"""What follows ``NAME=value`` and a space when the line runs a command with that environment
(``DB_PASSWORD=x python app.py``, ``A=1 B=2 ./run``): a lowercase command name, a path, another
assignment, an option. A word of another shape (``DB_PASSWORD=eFNWWje CAvEVoR`` in an ``.env``
file) continues the value."""
_CODE_MARKS = frozenset("\"'`()[]{}")
_NOT_PLAIN_START = tuple("\"'`$[{&*!|>%@")
_CALL_OR_INDEX = re.compile(r"[A-Za-z_][\w.]*\s*[(\[].*[)\]]")


def _entry_value(text: str, raw: str, raw_start: int, op: str) -> str:
    """The whole unquoted value of a line entry, where :data:`_ASSIGN` cut it at a character
    that ends a value in code (``,;'"`()<>\\`` and space). An ``.env`` value runs to whitespace or
    a shell operator; a YAML plain scalar or an INI value (``password = a,b``, as ``my.cnf`` and
    ``pgbouncer.ini`` write them) to the end of its line or a `` #``/`` ;`` comment, less a comma
    or semicolon that ends a member of a JavaScript object or a TypeScript interface. A call or a
    subscript (``get_password()``, ``os.environ["PW"]``) stays code. Cut short, the password lost
    only its head to the pseudonym (``password: abc,def`` kept ``def``)."""
    if not raw or raw.startswith(_NOT_PLAIN_START):
        return raw
    line_end = len(text) if (newline := text.find("\n", raw_start)) == -1 else newline
    stop = _ENV_VALUE_END.search(text, raw_start, line_end) if op == "=" else None
    if stop is not None and (stop.group() != " " or _COMMAND_WORD.match(text, stop.end())):
        whole = text[raw_start : stop.start()]
    else:
        comments = [at for marker in (" #", " ;") if (at := text.find(marker, raw_start, line_end)) != -1]
        whole = text[raw_start : min(comments, default=line_end)].rstrip()
    whole = whole.rstrip(",;")
    if len(whole) <= len(raw) or _CALL_OR_INDEX.fullmatch(whole):
        return raw
    if op.strip() == "=" and op != "=" and any(ch in _CODE_MARKS for ch in whole) and not _quoted_word(whole):
        return raw  # ``name = value`` is code as often as INI: no quote, bracket or backtick in it
    if " " in whole and any(ch in "()[]{}=" for ch in whole):
        return raw  # an expression (``await hash(pw)``), not a value with a space in it
    return whole


_WORD_WITH_QUOTES = re.compile(r"[^\s\"'`()\[\]{}+]+(?:[\"'][^\s\"'`()\[\]{}+]*)+")
"""One word with quotes inside it and no space, bracket, backtick or ``+`` (``Kt4"vB8nQ1zY``)."""


def _quoted_word(whole: str) -> bool:
    """Is an INI value one word with a quote inside it? Code never glues a quote into a word
    (``a"b`` is no expression; ``a+"b"`` and ``f("b")`` are, and stay code), so such a value is a
    password holding a quote, which lost all but its head to the pseudonym (session 44, class 1)."""
    return _WORD_WITH_QUOTES.fullmatch(whole) is not None


_COMMAND_REACH = 400
"""How far back a setting command is looked for before a name (a bound: a minified one-line
document holds many credential words, and each would scan its whole line)."""
_SETTING_COMMAND_BEFORE = re.compile(
    r"(?<![^\s;&|(!])(?<!config )(?<!configure )(?:setenv|set(?:\s+-[A-Za-z]+)*"
    r"|rclone\s+config\s+(?:create|update)\s[^\n]*)\s+$"
)
"""What precedes a name whose value follows it after a space, as a command's arguments: csh's
``setenv NAME value``, fish's ``set -gx NAME value``, rclone's ``key value`` pairs (a tool's
``config set NAME value`` is :mod:`.positional`'s). Elsewhere a bare space after a credential
word is prose ("password is ...")."""


def _after_setting_command(text: str, name_start: int) -> bool:
    """Does a name follow a command that sets it to the word after it (:data:`_SETTING_COMMAND_BEFORE`)?"""
    line_start = max(text.rfind("\n", 0, name_start) + 1, name_start - _COMMAND_REACH)
    return _SETTING_COMMAND_BEFORE.search(text, line_start, name_start) is not None


def _assignment_finding(
    text: str,
    name: str,
    raw: str,
    raw_start: int,
    op: str,
    name_start: int | None = None,
    delimited: bool = False,
) -> Finding | None:
    """The credential a ``name <op> raw`` assignment holds, if its name marks one; for an entry of
    a line-oriented file, the whole value (:func:`_entry_value`). A value with a space is taken
    whole only where its first word alone is a credential (else "Password: not set" is prose).
    ``delimited``: the value's extent is marked as a quoted one's is (an XML element's text)."""
    entry = name_start is not None and _line_entry(text, op, name_start, spaced=True)
    if entry and op.strip() == ":" and raw.startswith("!"):
        return None  # a YAML tag (!vault, !Ref, !!python/name:...), whatever value follows it
    if op.strip() == ":" and not raw.startswith(("'", '"')) and line_remark(_line_rest(text, raw_start)):
        return None  # ``DB password: stored in the vault``: a label and a remark (see line_remark)
    if entry and name_start is not None and (phrase := _phrase_entry(text, name, raw, raw_start, op)):
        return phrase
    found = _judged_assignment(text, name, raw, raw_start, op, name_start, delimited)
    if name_start is None or not entry:
        return found
    whole = _entry_value(text, raw, raw_start, op)
    if whole == raw or (" " in whole and found is None and not passphrase_shaped(whole)):
        return found
    # A line's end delimits its value as quotes do: an unquoted passphrase of four words or more
    # (``passphrase: copper nectar otter marble``) lost only its first word before.
    delimited = delimited or passphrase_shaped(whole)
    return _judged_assignment(text, name, whole, raw_start, op, name_start, delimited) or found


def _line_rest(text: str, start: int) -> str:
    """The rest of ``text``'s line from ``start``, up to a `` #`` comment, trailing spaces dropped."""
    line_end = len(text) if (newline := text.find("\n", start)) == -1 else newline
    comment = text.find(" #", start, line_end)
    return text[start : line_end if comment == -1 else comment].rstrip()


def _phrase_entry(text: str, name: str, raw: str, raw_start: int, op: str) -> Finding | None:
    """A password of several words that a line entry's line delimits (:mod:`.line_values`):
    ``passphrase: correct horse battery staple``, an ``.env`` file's ``DB_PASSWORD=my dog ate 7
    cookies``. The rest of the line up to a `` #`` comment, when it reads as a phrase."""
    if credential_class(name) != "password" or raw.startswith(_NOT_PLAIN_START):
        return None
    if op.strip() == "=" and op != "=":
        return None  # ``name = a b``: code as often as INI (``pw_transport = pw, transport``)
    line_start = text.rfind("\n", 0, raw_start) + 1
    line_end = len(text) if (newline := text.find("\n", raw_start)) == -1 else newline
    rest = _line_rest(text, raw_start)
    if " " not in rest or not line_phrase(rest):
        return None
    if op == "=" and not in_env_file(text, line_start, line_end):
        return None  # a shell's NAME=value then a command
    if op.strip() == ":" and _TERRAFORM_PROGRESS.match(text, raw_start):
        return None
    if not_a_value(text, name, raw_start - len(op) - len(name), rest, raw_start):
        return None
    return Finding("PASSWORD", raw_start, raw_start + len(rest), rest, "keyword:phrase")


_COMMANDS_NAMED_LIKE_SECRETS = frozenset({"wpa_passphrase"})
"""Commands whose name reads as a credential's while their first argument is none (the
passphrase is their second word, a format rule's: :data:`_FORMAT_RULES`)."""


def _judged_assignment(
    text: str, name: str, raw: str, raw_start: int, op: str, name_start: int | None, delimited: bool = False
) -> Finding | None:
    """The finding for ``raw`` as the assignment's value, or None: the name's class, the operator
    and the value's shape decide (placeholders, code references and prose are no value)."""
    name_class = credential_class(name)
    if name_class is None:
        return None
    if name_class == "secret" and _qualified_away(text, raw_start - len(op) - len(name), name):
        return None
    if op.strip() == ":" and _TERRAFORM_PROGRESS.match(text, raw_start):
        return None
    value, start = _unquote(raw, raw_start)
    if not_a_value(text, name, raw_start - len(op) - len(name), value, start):
        return None
    if _cookie_reference(name, value):
        return None
    quoted = value != raw or delimited
    if (
        not op.strip()
        and not quoted
        and not name.startswith("-")
        and (name_start is None or not _after_setting_command(text, name_start))
    ):
        return None  # "password is ...": a bare space separates only --flags, quoted values, set commands
    if not op.strip() and name in _COMMANDS_NAMED_LIKE_SECRETS:
        return None  # ``wpa_passphrase SSID X``: the word after the command is a network's name
    if op.strip() in ("==", "!=") and not quoted:
        return None  # "if password == confirm_password:" compares two names; no literal is there
    if "\n" in op and not quoted:
        return None  # "confirm_password:" ending a line opens a block; the next line is code
    next_char = text[raw_start + len(raw) : raw_start + len(raw) + 1]
    if (
        not quoted
        and next_char not in ("(", "[", ",")
        and (_SNAKE_WORDS.fullmatch(value) or _DOTTED.fullmatch(value))
        and name_start is not None
        and (_env_entry(text, name, op, name_start) or _dotted_literal(text, name, value, op, name_start))
    ):
        quoted = True  # an .env or YAML entry's snake_case or dotted value is a literal, not code
    if not acceptable_value(
        value, quoted, name_class, next_char, option=name.startswith("-") and value != raw
    ) and not dashed_passphrase(name, value):
        return None
    return Finding(
        "PASSWORD" if name_class == "password" else "SECRET", start, start + len(value), value, "keyword"
    )


_COOKIE_LABEL = re.compile(r"(?i)[\"']?(?:set-)?cookie[\"']?")
_COOKIE_PAIR = re.compile(r"[^\s=;,]{1,64}=(?P<value>[^;]*)")


def _cookie_reference(name: str, value: str) -> bool:
    """Is ``value``, under a ``Cookie``/``Set-Cookie`` label, a list whose first pair holds a
    reference or a placeholder (``session_id=${SESSION_ID}``, ``sid={{ secrets.SID }}``,
    ``auth=$AUTH``)? The label rule reads the first ``name=value`` pair as the header's value; the
    pair's own value decides, as :mod:`.cookies` judges each pair: a reference names where the
    secret is kept and is none (it was replaced, and the request template lost its variable)."""
    if _COOKIE_LABEL.fullmatch(name) is None or (pair := _COOKIE_PAIR.match(value)) is None:
        return False
    return PLACEHOLDER.match(pair.group("value").strip()) is not None


_QUERY_PARAMETER = re.compile(r"^(?:[\w.~-]*/)+[\w.~%-]*\?[\w.-]+=")
"""A request path with a query (``/v1/search?token=...&q=shoes``): its value's own detectors read it."""
_QUERY_STRING = re.compile(r"[\w.~%-]*\?(?:[\w.\[\]-]+=[^&=\s]*&)+[\w.\[\]-]+=[^&=\s]*")
"""A query string with no path before its ``?`` (``?q=Select*From&Limit=2&Offset=20``), two
parameters or more: its values are each its own detectors' to read; whole, its ``?``, ``=``,
``&`` and ``*`` made it a generated password's shape (session 44, class 4)."""
_QUERY_VALUE_END = re.compile(r"&")
"""Where a query parameter's value ends: ``?api_key=...&page=2`` lost ``&page=2&sort=asc`` to the
pseudonym, and the request its arguments. (A ``#`` in a logged query is more often a password's.)"""


def in_arn(text: str, start: int) -> bool:
    """Does ``text[start]`` sit inside an AWS resource name (a token starting ``arn:``)? Its
    segments name a resource, ``secret:`` and ``key/`` among them (``arn:aws:secretsmanager:...:
    secret:prod/db-AbC123``): a command's ARN lost its name to a "secret" label before."""
    word_start = max(text.rfind(sep, 0, start) for sep in _ARN_BOUNDARY) + 1
    return text[word_start : word_start + 4].lower() == "arn:"


_ARN_BOUNDARY = " \n\t\"'=,;()[]{}<>`"
"""What an ARN never holds: where a token around it begins (a CSV cell, a call's argument)."""


_LONGEST_NAME = 66
"""How far back a credential word is widened to its name: the longest name :data:`_ASSIGN` reads
(64 characters and its quotes). Unbounded, a run of repeated words (``keykeykey...``, ``密码密码...``)
walked back over the whole run from each hit: 48 kB took 40 s."""


def _query_parameter(text: str, name_start: int) -> bool:
    """Does the name at ``name_start`` open a parameter of a URL's query (after its ``?`` or an
    ``&``) or of its fragment (a ``#`` glued to the word before it, as an implicit grant's redirect
    writes ``#access_token=...&token_type=bearer``, RFC 6749 §4.2.2)? A ``#`` after a space opens a
    comment instead. The fragment's value swallowed the parameters after it."""
    before = text[name_start - 1 : name_start]
    return before in ("?", "&") or (before == "#" and name_start >= 2 and not text[name_start - 2].isspace())


def find_assignments(text: str) -> Iterator[Finding]:
    """``name <op> value`` / ``<name>value</name>`` where the name marks the value as a credential.

    The scan starts from occurrences of credential words (cheap) and widens each to the whole name
    it sits in, so ``ID:master/PW:x`` yields the ``PW`` assignment even though ``ID:`` precedes it.
    """
    pos = 0
    for start in credential_word_hits(text):
        if start < pos:
            continue
        floor = max(0, start - _LONGEST_NAME)  # a longer run is no name _ASSIGN reads: stop there
        while start > floor and (_is_word_char(text[start - 1]) or text[start - 1] in ".-$@"):
            start -= 1
        starts = (start - 1, start) if start and text[start - 1] in "\"'" else (start,)
        if start and text[start - 1] == ":":
            starts = (*_quoted_section_path(text, start, floor), *starts)
        if in_arn(text, start):
            continue  # arn:aws:iam::123456789012:role/x, ...:secret:prod/db-AbC123 name; they grant nothing
        for name_start in starts:
            match = _ASSIGN.match(text, name_start)
            if match is None:
                continue
            value, value_start = match.group("value"), match.start("value")
            if _query_parameter(text, name_start):
                value = _QUERY_VALUE_END.split(value, 1)[0]  # a URL's query parameter ends at & or #
            if match.group("op").strip() == ":" and (node := _YAML_NODE_PROPERTIES.match(text, value_start)):
                value, value_start = node.group("value"), node.start("value")
            finding = _assignment_finding(
                text, match.group("name"), value, value_start, match.group("op"), name_start
            )
            if finding:
                yield finding
                pos = match.end()
                break
    if "? " in text:
        for match in _YAML_EXPLICIT_KEY.finditer(text):
            finding = _assignment_finding(
                text, match.group("name"), match.group("value"), match.start("value"), ":" + match.group("op")
            )
            if finding is not None:
                yield finding
    if "</" in text:
        for match in _XML_ELEMENT.finditer(text):
            finding = _assignment_finding(
                text, match.group("name"), match.group("value"), match.start("value"), "=", delimited=True
            )
            if finding is not None:
                yield finding


def _quoted_section_path(text: str, start: int, floor: int) -> tuple[int, ...]:
    """Where a quoted name opens whose last part starts at ``start`` after a ``:``: ASP.NET Core's
    section path (``"Smtp:Password": "v"``, ``Configuration["Jwt:Secret"]``). Unquoted, ``a:b`` is
    a name and a value (``password:x``), so only a quote makes the colons part of the name."""
    while start > floor and (_is_word_char(text[start - 1]) or text[start - 1] in ".-:"):
        start -= 1
    return (start - 1,) if start and text[start - 1] in "\"'" else ()


_PHRASE_WORDS = r"pass(?:phrase|\s+phrase)|(?:secret|seed|recovery|mnemonic|wallet|backup)\s+phrase|mnemonic"
"""Names of a secret made of words: its value may run over several of them, up to the clause's end."""
_PASSWORD_WORDS = (
    _PHRASE_WORDS
    + r"|pass(?:word|wd|code)s?|pwd|pw|pin(?:\s+(?:code|number))?|one[\s-]time\s+code|verification\s+code|otp"
    r"|" + FOREIGN_PASSWORD
)
"""What "password" is called, in English and in the languages users write prompts in, and the
short secrets stated like one (a PIN, a one-time code). Matched lowercased."""
_KEY_WORDS = r"token|secret|(?:api|access)?[\s_\-]?key"
_VALUE = (
    r"(?P<quote>[\"'`]?)"
    r"(?P<value>[^\s\"'`()\[\]{}<>,;\u3000-\u30ff\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]{4,128})"
)
"""A stated value: up to a space, a quote or bracket, or CJK text (``私のパスワードはX です``)."""
_ADVERB = (
    r"(?:now|still|currently|always|just|literally|actually|simply|exactly|probably|also|then|successfully)"
)
_COPULA = (
    r"(?:(?:turn(?:s|ed)?\s+out|seem(?:s|ed)?|appear(?:s|ed)?|happen(?:s|ed)?|prove(?:s|d)?"
    r"|(?:is|are|was|were)\s+going)\s+to\s+be|end(?:s|ed)?\s+up\s+(?:being|as)"
    r"|is|was|are|were|being|remains|becomes|became|(?:has|have|had)\s+been"
    rf"|(?:will|would|should|must|could|might|may|can)(?:\s+{_ADVERB})?\s+be)(?:\s+{_ADVERB})?"
)
"""The linking verbs of English, with the modals and adverbs that sit in them ("is now", "has
been", "should now be", "is literally", "being"), and the verbs that raise one ("turned out to
be", "seems to be", "happens to be", "is going to be", "ended up being"): a value after them is
stated as firmly (red team, round 12). They come first: "is" alone would end the link before
"going to be"."""
_CHANGED = (
    rf"(?:{_ADVERB}\s+)?(?:set|changed|reset|updated|rotated|switched|generated|created|assigned|configured)"
    r"(?:\s+from\s+\S{1,64})?"
)
"""A participle of setting ("set", "successfully updated", "changed from hunter2"): with "to" it
links as a verb does; with a colon or an arrow ("Root password set: X", "password changed -> X") it
says less ("password reset: done"), and its value must look chosen."""
_CHANGED_TO = rf"{_CHANGED}\s+to"
_SPEAKER = r"(?:i|we|you|they|he|she|someone|(?:my|our|your|his|her|their|the)\s+[a-z]+)"
"""Who a relative clause's subject is: a pronoun or a possessed noun ("the password my manager
sent was X", "the token our CI generated is X")."""
_PROSE_PASSWORD = re.compile(
    rf"(?<![a-z0-9])(?:(?P<word>{_PASSWORD_WORDS})|(?P<key_word>{_KEY_WORDS}))(?![a-z0-9_])"
    r"(?P<owner>\s+(?:for|of|on)\s+(?:the\s+)?(?:user\s+|account\s+)?[\"']?[\w@.\-]{1,64}[\"']?(?:\s+(?!(?:is|was|will|remains|set|changed|reset|should|to|now|has)\b)[\w@.\-]{1,64}){0,2}"
    r"(?:\s+(?:user|account|login|database|server))?)?"
    rf"(?P<clause>\s+(?:that\s+|which\s+)?{_SPEAKER}(?:'ve|'d)?(?:\s+[a-z']+){{1,3}}?"
    rf"(?=\s+{_COPULA}\s|\s*\()|\s+to\s+(?:use|enter|type|try)(?=\s+{_COPULA}\s))?"
    # "API key (keep secret): X"
    r"(?P<note>\s*\([^()\n]{1,40}\)(?=[ \t]*(?::|：|=|->|→|[-—–]\s|is\s|was\s)))?"
    rf"(?:(?P<verb>\s+{_COPULA}(?:\s+{_CHANGED_TO})?\s*:?\s+|\s+{_CHANGED_TO}\s+|\s+to\s+"
    rf"|,?\s+(?:which|that)\s+{_COPULA}\s+|,?\s+(?:it|that|this)(?:'s|\s+is|\s+was)\s+"
    r"|\s+(?:ist|lautet|est|es|é|è|är|er|jest|это)\s*:?\s+"
    r"|[ \t]*(?:=>|->|→|:|：|=|是|为|為|は|는|은|이|가)[ \t]*|[ \t]+[-—–][ \t]+|\?[ \t]+it(?:'s|\s+is)[ \t]+)"
    rf"|(?P<aside>,?[ \t]+(?:use|enter|type|try)[ \t]+|[ \t]*(?:\.\.\.|…|\(|,)[ \t]*|\s+(?:now|currently)\s+"
    r"|'s\s+|\?[ \t]+"
    rf"|\s+{_CHANGED}[ \t]*(?:=>|->|→|:|=)[ \t]*)|\s+)" + _VALUE
)
"""``<password word> [for <user>] [I chose] [(note)] <link> <value>``, or the value right after the
word. The link: an English copula with its adverbs and participles ("is now", "has been changed
to"), a setting verb's "to", the copulas and separators of the languages above ("Mein Passwort ist
X", "mot de passe : X", "密码：X", "私のパスワードはX"), an arrow or a dash, "? It's". A relative
clause of a speaker ("the passphrase I picked is X", "the password you gave me (X)") comes before
a copula or a bracket only. An ``aside`` (``password... X``, ``the password, X, is``, ``password
(X)``) says less than a verb: its value must look chosen, as a value with no link must."""
_VALUE_FIRST_TAIL = (
    rf"(?P<link>[ \t]+(?:as|for|into|in)[ \t]+|[ \t]+(?:is|was)\s+what\s+{_SPEAKER}(?:\s+[a-z']+){{1,2}}\s+"
    r"|[ \t]+(?:(?:should|will|would|could|might|can|may)\s+)?(?:work|works|do|does|serve|serves)\s+as[ \t]+"
    rf"|[ \t]+{_COPULA}[ \t]+|[ \t]*\([ \t]*|[ \t]+[-—–]+[ \t]+(?:(?:that's|that\s+is|it's)[ \t]+)?)"
    r"(?:(?:the|a|an|my|your|our|his|her|their)\s+)?(?:[\w-]+\s+){0,2}?"
    rf"(?:(?P<word>{_PASSWORD_WORDS})|(?P<key_word>{_KEY_WORDS}))(?![\w-])"
    r"(?P<close>\))?(?P<field>\s+(?:field|box|input|prompt))?"
    r"(?=\s*(?:[.,;:!?)]|$|(?:for|to|on|in|at|and|but|so|until|from|when|if|once|while|unless|then)\b))"
)
_VALUE_FIRST = re.compile(
    r"(?<![\w/.@:$%=-])(?:(?P<chooser>[a-z']+)[ \t]+)?" + _VALUE + r"(?P=quote)" + _VALUE_FIRST_TAIL
)
_PHRASE_FIRST = re.compile(
    r"(?:(?<![\w-])(?P<chooser>use|using|enter|try|type|pick)[ \t]+"
    r"|^|(?<=[.!?:;,][ \t])|(?<=\n)|(?<=[ \t])(?=[\"'`]))"
    r"(?P<quote>[\"'`]?)(?P<value>[a-z0-9]+(?:[ \t]+[a-z0-9]+){2,11})(?P=quote)" + _VALUE_FIRST_TAIL,
    re.MULTILINE,
)
"""A passphrase before the word, quoted or opening its clause: "harbor tiger falcon is the admin
password", "Enter 'violet sunset cobalt' as the password", "use cedar sunset lantern as your password"."""
_INTO_FIELD = frozenset({"type", "typed", "enter", "entered", "paste", "pasted", "put"})
"""Verbs before "X into the password field": they put X there."""
"""The value before the word: "use X as the password", "X is the new password", "X will be your
temporary password", "try X for the password", "It's X (the password)", "X - that's the PIN". The
word must end its noun phrase ("X is the password manager" names a tool)."""
_LINK_THEN_WORD = re.compile(_VALUE_FIRST_TAIL)
"""The part of :data:`_VALUE_FIRST` from its link on: found first, near a word (cheap), so the
whole pattern, which may start at any word, is tried only just before such a tail."""
_CHOOSERS = frozenset(
    {"use", "using", "used", "try", "trying", "tried", "pick", "picked", "choose", "chose", "chosen", "with"}
    | {"assign", "assigned", "put", "set", "enter", "entered", "type", "typed", "keep", "go", "went"}
)
"""Verbs before "X for the password" that choose X for it ("use X for the password"); others
seek in X ("look in vault.txt for the password") or wait for it."""
_USER_THEN_PASSWORD = re.compile(
    r"(?<![a-z0-9_/-])(?:(?:user(?:name)?|login)(?:[ \t]*[:=][ \t]*|[ \t]+)|u[ \t]*:[ \t]*)"
    r"[\"']?[\w.@-]{1,64}[\"']?"
    r"(?:[ \t]*[,;/][ \t]*|[ \t]+and[ \t]+|[ \t]+)"
    r"(?:(?:pass(?:word)?|pwd?)(?:[ \t]*[:=][ \t]*|[ \t]+)|p[ \t]*:[ \t]*)"
    + _VALUE
    + r"|(?<![a-z0-9_])(?:log(?:ging|ged|s)?[ \t]*(?:in|on)|login|logon|sign(?:ing|ed|s)?[ \t]+in"
    r"|ssh(?:[ \t]+in)?|connect(?:ed|ing|s)?|authenticat(?:e|ed|es|ing))"
    r"(?:[ \t]+(?:succeeded|failed|works|worked|ok))?"
    r"[ \t]+(?:as|for)[ \t]+[\"']?[\w.@-]{1,64}[\"']?[ \t]+(?:with|using)[ \t]+"
    r"(?:(?:the|a|my|your)[ \t]+)?(?:(?:password|pass|pwd|pw)[ \t]+)?"
    + _VALUE.replace("quote", "quote2").replace("value", "value2")
    + r"(?P=quote2)(?=[ \t]*(?:[.,;:!?)]|$|\n|(?:and|then|but|to|on|at|from|for)\b))"
)
"""A user then a password, by their short labels or by sentence: "user admin pass X", "u: admin p:
X", "username deploy and password X", "logging in as admin with X", "login succeeded for admin
using X". (``pass`` alone is a verb: only after a user does it label. "credentials: deploy / X",
"log in with deploy and X", "Default login root/X" are :mod:`.positional`'s ``credentials_in_prose``.)"""
_SIGN_IN_WITH = re.compile(
    r"(?<![\w-])(?:(?:use|using|try)[ \t]+" + _VALUE + r"(?P=quote)[ \t]+to[ \t]+(?:log|sign)[ \t]*(?:in|on)"
    r"|(?:authenticate|log[ \t]*in|sign[ \t]*in|get[ \t]+in|unlock[ \t]+it)[ \t]+(?:with|using)[ \t]+"
    + _VALUE.replace("quote", "quote2").replace("value", "value2")
    + r"(?P=quote2)(?=[ \t]*(?:[.,;:!?)]|$|\n)))"
)
"""A value a sentence signs in with, no credential word named: "use X to log in", "please
authenticate with X". Only a value that looks chosen counts ("use SSO to log in", "sign in with
Google" name a way in)."""
_NEW_VALUE = re.compile(
    literal_first("(?<![a-z])", "new")
    + r"[ \t]+(?:one|value)[ \t]+(?:is|was|will[ \t]+be)[ \t]*:?[ \t]+"
    + _VALUE
    + r"(?P=quote)"
)
"""A credential's new value named by anaphora ("Password reset done, new one is X", "rotated the
key; the new value is X"): the credential's word is earlier in the line (:data:`_ANAPHORA_REACH`)."""
_ANAPHORA_REACH = 100
_SETTING_VERB = re.compile(
    r"(?<![a-z])(?:set|sets|setting|change[ds]?|changing|reset|resets|resetting|updated?|updating"
    r"|rotated?|rotating|make|making|made)\s"
)
"""What makes "password to X" a statement of a value ("Set the root password to X") rather than
a destination ("send the password to ops")."""
_WITH_BEFORE = re.compile(r"(?:with|using|via)\s+(?:(?:the|a|my|your|this|that)\s+)?(?:[\w-]+\s+)?$")
"""A password word an instrument's preposition introduces ("log in with password X", "ssh in
using the root password X"): the value follows as it does a verb."""
_DETERMINER_BEFORE = re.compile(r"(?<![a-z])(?:the|your|my|our|this|a|new|fresh)\s+(?:[\w-]+\s+)?$")
"""A key word as a noun phrase's head ("Here's the token X", "your new API key X"): the value
after it, key-shaped, is what it names."""
_PROSE_PASSWORD_ANY_CASE = re.compile(_PROSE_PASSWORD.pattern, re.IGNORECASE)
"""The pattern runs over the lowercased text (fast); this one only when lowering changes lengths."""
_NOT_PROSE_PASSWORDS = frozenset(
    [
        "required",
        "incorrect",
        "invalid",
        "wrong",
        "correct",
        "empty",
        "missing",
        "stored",
        "hashed",
        "encrypted",
        "salted",
        "too",
        "not",
        "the",
        "a",
        "an",
        "expired",
        "changed",
        "updated",
        "same",
        "different",
        "valid",
        "needed",
        "necessary",
        "optional",
        "long",
        "short",
        "weak",
        "strong",
        "secure",
        "saved",
        "sent",
        "shown",
        "hidden",
        "visible",
        "masked",
        "provided",
        "given",
        "entered",
        "case",
        "sensitive",
        "protected",
        "disabled",
        "enabled",
        "now",
        "also",
        "still",
        "in",
        "on",
        "at",
        "of",
        "for",
        "to",
        "and",
        "or",
        "with",
        "from",
        "by",
        "field",
        "manager",
        "policy",
        "must",
        "should",
        "can",
        "will",
        "may",
        "unchanged",
        "null",
        "none",
        "generated",
        "rotated",
        "random",
        "known",
        "unknown",
        "your",
        "my",
        "his",
        "her",
        "their",
        "our",
        "its",
        "this",
        "that",
        "then",
        "than",
        "only",
        "being",
        "been",
        "be",
        "accepted",
        "rejected",
        "fine",
        "good",
        "bad",
        "plain",
        "plaintext",
        "text",
        "here",
        "there",
        "below",
        "above",
        "following",
        "as",
        "like",
        "used",
        "login",
        "prompt",
        "authentication",
        "based",
        "less",
        "set",
        "reset",
        "length",
        *("what", "which", "where", "how", "why", "who", "whatever", "whichever"),
        *("never", "always", "only", "usually", "probably", "just", "already", "often", "rarely"),
    ]
)
_WORD_SUFFIXES = (
    "ed",
    "ing",
    "ly",
    "tion",
    "sion",
    "ment",
    "able",
    "ible",
    "ness",
    "ful",
    "less",
    "ous",
    "ive",
)


def find_prose_passwords(text: str) -> Iterator[Finding]:
    """Passwords (and keys) stated in prose: "the admin password is hunter2", "token is <uuid>".

    A linking verb ("is", "was", "set to") admits any non-word value; with no verb, the value must
    be quoted or carry a digit or symbol ("login with password Zq9mPx41"). Ordinary words after the
    verb ("the password is incorrect", "password is hashed") are not passwords. The grammar is one
    of roles, not of examples: the word, who it belongs to, a speaker's clause, a link, the value
    (:data:`_PROSE_PASSWORD`); the value first (:data:`_VALUE_FIRST`); a user and then a password
    (:data:`_USER_THEN_PASSWORD`).
    """
    original = text
    for finding in _prose_statements(text.translate(_TYPOGRAPHIC_QUOTES)):
        yield replace(finding, value=original[finding.start : finding.end])


_TYPOGRAPHIC_QUOTES = str.maketrans("\u201c\u201d\u201e\u2018\u2019\u201a", '"""' + "'" * 3)
"""Curly quotes as the ASCII ones they stand for, one character for one (offsets hold): a chat
client or a word processor writes "the passphrase is \u201camber river stone\u201d", and the
statement rules read quotes as a value's extent."""


def _prose_statements(text: str) -> Iterator[Finding]:
    """:func:`find_prose_passwords` over ``text`` with its quotes made ASCII."""
    lower = text.lower()
    same_offsets = len(lower) == len(text)
    scanned = lower if same_offsets else text
    flags = 0 if same_offsets else re.IGNORECASE
    for match in (_PROSE_PASSWORD if same_offsets else _PROSE_PASSWORD_ANY_CASE).finditer(scanned):
        if (finding := _word_then_value(text, lower, match)) is not None:
            yield finding
    value_first = re.compile(_VALUE_FIRST.pattern, flags)
    stated: set[tuple[int, int]] = set()
    phrase_first = re.compile(_PHRASE_FIRST.pattern, flags | re.MULTILINE)
    for start, end in _value_first_spans(lower) if same_offsets else [(0, len(text))]:
        for pattern in (value_first, phrase_first):
            for match in pattern.finditer(scanned, start, end):
                if match.span("value") not in stated and (finding := _value_then_word(text, match)):
                    stated.add(match.span("value"))
                    yield finding
    paired = any(word in lower for word in _ACCOUNT_NEEDLES) or (
        (" as " in lower or " for " in lower) and any(word in lower for word in _SIGN_IN_WORDS)
    )
    for match in re.compile(_USER_THEN_PASSWORD.pattern, flags).finditer(scanned) if paired else ():
        group = "value" if match.group("value") is not None else "value2"
        start, end = match.span(group)
        quote = match.group(group.replace("value", "quote"))
        if phrase := _stated_phrase(text, start, quote, "pair", "password"):
            yield phrase  # "user: kmiller, pass: saffron orchid sunset crimson"
            continue
        link = "pair" if _looks_chosen(text[start:end]) else ""  # a user named: the value beside is his
        if finding := _stated_value(
            text, start, end, match.group(group.replace("value", "quote")), link, False
        ):
            yield finding
    if any(word in lower for word in _SIGN_IN_WORDS):
        for match in re.compile(_SIGN_IN_WITH.pattern, flags).finditer(scanned):
            group = "value" if match.group("value") is not None else "value2"
            start, end = match.span(group)
            if _looks_chosen(text[start:end]) and (
                finding := _stated_value(text, start, end, "", "with", False)
            ):
                yield finding
    for match in re.compile(_NEW_VALUE.pattern, flags).finditer(scanned) if "new" in lower else ():
        named = _STATED_WORD_ANYWHERE.findall(lower, max(0, match.start() - _ANAPHORA_REACH), match.start())
        if (
            named
            and "\n" not in text[max(0, match.start() - _ANAPHORA_REACH) : match.start()].rsplit("\n", 1)[-1]
        ):
            key_word = re.fullmatch(_PASSWORD_WORDS, named[-1]) is None
            start, end = match.span("value")
            if finding := _stated_value(text, start, end, match.group("quote"), "is", key_word):
                yield finding


_STATED_NEEDLES = (
    *("pass", "pw", "pin", "otp", "one-time", "one time", "verification", "phrase", "mnemonic"),
    *("token", "secret", "key"),
)
"""Where a value-first statement's word may be: its links are English ("X is the password", "use X
as the key"), and so are its words' stems. Found with ``str.find``: a regex over the whole text
that may start at any position cost prose twice its time before."""
_STATED_WORD = re.compile(rf"(?:{_PASSWORD_WORDS}|{_KEY_WORDS})(?![\w-])")
_STATED_WORD_ANYWHERE = re.compile(rf"(?<![a-z])(?:{_PASSWORD_WORDS}|{_KEY_WORDS})(?![\w-])")
_ACCOUNT_NEEDLES = ("user", "login", "u:", "log in", "log on", "sign in", "cred")
"""Where a user-then-password statement may be: without one, its pattern is not run."""
"""A statement's word, where a needle was found."""
_VALUE_FIRST_REACH = 160
"""How far before its link a value-first statement may start: a chooser and a value of up to 128
characters."""
_TAIL_REACH = 90
"""How far before its word a link may start: the link, a determiner and two words."""
_AFTER_WORD = 40
"""What is read after the word: its closing bracket and the punctuation or word ending its phrase."""
_SIGN_IN_WORDS = ("log", "sign", "ssh", "connect", "authenticat")
"""Stems of the verbs before "as <user> with <password>": without one, " as " and " for " are too
common to run the user-then-password pattern on."""


def _value_first_spans(lower: str) -> Iterator[tuple[int, int]]:
    """Spans of ``lower`` (lowercased text) that may hold a value-first statement: a link and a
    word (:data:`_LINK_THEN_WORD`) near a stem of :data:`_STATED_NEEDLES`, from
    :data:`_VALUE_FIRST_REACH` before the link to a little after the word."""
    for needle in _STATED_NEEDLES:
        at = lower.find(needle)
        while at != -1:
            inside = at and lower[at - 1].isalpha() and not lower.endswith(("api", "access"), 0, at)
            if inside or not _STATED_WORD.match(lower, at):
                at = lower.find(needle, at + len(needle))
                continue  # inside a word ("monkey") or another word ("passed"): no statement's word
            tail = _LINK_THEN_WORD.search(lower, max(0, at - _TAIL_REACH), at + len(needle) + _AFTER_WORD)
            if tail is not None:
                yield max(0, tail.start() - _VALUE_FIRST_REACH), tail.end() + _AFTER_WORD
            at = lower.find(needle, at + len(needle))


def _word_then_value(text: str, lower: str, match: re.Match[str]) -> Finding | None:
    """The value a ``<word> <link> <value>`` statement gives (:data:`_PROSE_PASSWORD`), if any."""
    verb = (match.group("verb") or "").strip()
    aside = (match.group("aside") or "").strip(" \t,") or (match.group("aside") or "").strip()
    if aside in _ASIDE_CHOOSERS and not _AS_OR_FOR_BEFORE.search(
        lower, max(0, match.start() - 30), match.start()
    ):
        return None  # "the password use policy": a chooser after the word only in "as password, use X"
    value_end = match.end("value")
    quote = match.group("quote")
    if verb == "to" and (
        not _SETTING_VERB.search(lower, max(0, match.start() - 60), match.start())
        or match.group("value").isalpha()
        and not quote
        and not _looks_chosen(text[match.start("value") : value_end])
        and not re.fullmatch(_PHRASE_WORDS, match.group("word") or "")
    ):
        return None  # "send the password to ops@corp" (a destination), "change it to match" (a verb)
    if match.group("clause") and not (verb and verb[0].isalpha() or aside == "("):
        return None  # "the password I chose: ..." is no statement; a speaker's clause needs a copula
    if aside == "(" and not match.group("clause"):
        return None  # "The PIN (GPIO17) drives ...": a bracket after a bare word is a note
    if aside in ("(", ",") and not text.startswith(")" if aside == "(" else ",", value_end + len(quote)):
        return None  # "the vault password, X, is ..." is an aside its comma or bracket closes
    if aside and _looks_chosen(text[match.start("value") : value_end]):
        verb = aside  # an aside says less than a verb: it counts for a value that looks chosen
    if aside in _BARE_ASIDES and not _strongly_chosen(text[match.start("value") : value_end]):
        # "Password? PBKDF2", "the key's argon2id": a question or a possessive names things too
        return _stated_phrase(
            text, match.start("value"), quote, "is" if aside == "'s" else "", match.group("word") or ""
        )
    if text.startswith(":", value_end + len(quote)) and quote:
        return None  # "password for user 'admin': " (curl's prompt): a quoted name before a colon
    key_word = match.group("key_word")
    word = match.group("word")
    phrase_word = word or (key_word or "").strip()
    phrase_link = verb or ("is" if aside == "'s" else "")
    phrase = _stated_phrase(text, match.start("value"), quote, phrase_link, phrase_word)
    if phrase is not None and not (key_word and _qualified_away(text, match.start(), key_word)):
        return phrase if word else replace(phrase, kind="SECRET")  # one word is other rules' too
    if verb in (":", "=", "=>") and _left_to_other_rules(match):
        return None
    if text.startswith(("(", "["), value_end):
        return None  # code: a call or an index
    if key_word and _qualified_away(text, match.end("key_word") - len(key_word.lstrip()), key_word):
        return None  # "Cache key: node-cache-...": the word before says which key
    if not verb and not aside:
        verb = _implied_link(text, match, word, key_word)
    if word == "pw" and not verb:
        return None  # "pw" alone is also a command (FreeBSD's ``pw useradd``)
    if quote == "`" and not text.startswith(quote, value_end):
        return None  # "--password `openssl passwd -1 $PW`": a backquoted command's first word
    finding = _stated_value(text, match.start("value"), value_end, quote, verb, bool(key_word))
    if finding is not None and (word not in _SHORT_SECRET_WORDS or _has_digit(finding.value)):
        return finding
    return None


_ASIDE_CHOOSERS = frozenset({"use", "enter", "type", "try"})
_BARE_ASIDES = frozenset({"'s", "?"})
"""Asides that say least ("Password? X", "my password's X"): their value must look chosen twice over
(:func:`_strongly_chosen`)."""
_AS_OR_FOR_BEFORE = re.compile(r"(?<![a-z])(?:as|for)\s+(?:(?:the|a|an|your|my|our)\s+)?(?:[\w-]+\s+)?$")
""""As password, use X", "For the password, enter X": the word is the role, the verb gives the value."""


def _implied_link(text: str, match: re.Match[str], word: str | None, key_word: str | None) -> str:
    """The link a bare space stands for, from the words before the password word: an instrument's
    preposition ("with password X") or, for a key word, a determiner ("the token X"). Only a
    value that does not read as a plain word then counts (an all-lowercase word after "with
    password" is a noun: "with password prompts")."""
    before = text[max(0, match.start() - 40) : match.start()].lower()
    value = text[match.start("value") : match.end("value")]  # as written: the match is lowercased
    if word and _WITH_BEFORE.search(before) and not (value.isalpha() and value.islower()):
        return "with"
    if key_word and _DETERMINER_BEFORE.search(before):
        return "the"
    return ""


def _value_then_word(text: str, match: re.Match[str]) -> Finding | None:
    """The value a ``<value> <link> <word>`` statement gives (:data:`_VALUE_FIRST`), if any: a
    value that reads as a word needs quotes here (any sentence may end "... is the password")."""
    link = match.group("link").strip()
    if link == "(" and not match.group("close"):
        return None
    if link == "for" and match.group("chooser") not in _CHOOSERS:
        return None  # "look in vault.txt for the password": a place to seek it, not the value
    if (link in ("into", "in")) != (match.group("field") is not None) or (
        link in ("into", "in") and match.group("chooser") not in _INTO_FIELD
    ):
        return None  # "X is the password field" names the field; only a verb of typing fills it
    quote = match.group("quote")
    start, end = match.span("value")
    if " " in match.group("value"):
        value = text[start:end]
        if not passphrase_shaped(value, minimum_words=3) or any(map(_reads_as_remark, value.split())):
            return None
        return Finding("PASSWORD" if match.group("word") else "SECRET", start, end, value, "prose")
    if not quote and not _looks_chosen(text[start:end]):
        return None
    key_word = match.group("key_word") is not None
    finding = _stated_value(text, start, end, quote, "as", key_word)
    if finding is not None and (match.group("word") not in _SHORT_SECRET_WORDS or _has_digit(finding.value)):
        return finding
    return None


_DASHED_WORDS = re.compile(r"[a-z]+(?:-[a-z]+){2,}(?:-\d+)?|[a-z]+(?:-[a-z]+)+-\d+")


def _words_and_number(value: str) -> bool:
    """A value stated after a key word that reads as chosen though it is no key-shaped token:
    lowercase letters English cannot spell (:func:`.spelling.unspellable`), or three words or
    more (or two and a number) joined by dashes (``juniper-orchid-copper-61``, a generated
    token's or a passphrase's shape; ``case-sensitive`` is a compound word)."""
    return unspellable(value) or (
        _DASHED_WORDS.fullmatch(value) is not None and not any(map(_reads_as_remark, value.split("-")))
    )


_SYMBOL_INSIDE = re.compile(r"[A-Za-z0-9][^A-Za-z0-9\s\-_.'/]+[A-Za-z0-9]")
"""A symbol inside a value, not one that joins words (``key-based``, ``and/or``, ``don't``, ``a.b``)."""


def _looks_chosen(value: str) -> bool:
    """Does a value with no verb before it read as a chosen password rather than a word: a digit,
    a symbol between its characters (``anonymous@`` ends with one), or case that flips inside
    (``aSccAMpXvWEZ``; not ``SecretStr`` or ``NULL``, which are names)?"""
    letters = "".join(filter(str.isalpha, value))
    flips = letters != letters.lower() and letters != letters.upper() and not _NAME_WORDS.fullmatch(letters)
    return _has_digit(value) or _SYMBOL_INSIDE.search(value) is not None or flips or unspellable(value)


def _strongly_chosen(value: str) -> bool:
    """More than :func:`_looks_chosen`'s one sign: two digits, a symbol inside, case that flips, or
    letters English cannot spell; a single digit in a name is a version or an algorithm
    (``argon2id``, ``PBKDF2``)."""
    letters = "".join(filter(str.isalpha, value))
    flips = letters != letters.lower() and letters != letters.upper() and not _NAME_WORDS.fullmatch(letters)
    return (
        sum(map(str.isdigit, value)) >= 2
        and not _COMPOUND_WORD.fullmatch(value)
        or _SYMBOL_INSIDE.search(value) is not None
        or flips
        or unspellable(value)
    )


_CLAUSE_END = re.compile(r"[.;,!?](?:\s|$)|[.;!?]$|\n|\s[-—–]\s")


def _stated_phrase(text: str, start: int, quote: str, verb: str, word: str) -> Finding | None:
    """A value of three words or more: the whole quoted string after any password word ("my
    password is 'amber river stone'"), or, after a word that names a phrase (passphrase, seed
    phrase, mnemonic) and a link, the words to the clause's end. Either must read as a passphrase
    (no function word: "the passphrase is stored in the vault" is a sentence)."""
    minimum_words = 3 if re.fullmatch(_PASSWORD_WORDS, word) else 4  # a key of words is rarer
    if quote:
        close = text.find(quote, start, text.find("\n", start) if "\n" in text[start:] else len(text))
        if close == -1:
            return None
        end = close
    elif verb and verb not in ("with", "the", "to"):
        stop = _CLAUSE_END.search(text, start)
        end = stop.start() if stop else len(text)
    else:
        return None
    value = text[start:end].strip()
    if value.count(" ") < 2 or not passphrase_shaped(value, minimum_words=minimum_words):
        return None
    if not quote and any(map(_reads_as_remark, value.split())):
        return None  # "the password is hashed salted twice", "Password: reset via email" are remarks
    return Finding("PASSWORD", start, start + len(value), value, "prose")


def _reads_as_remark(word: str) -> bool:
    """A word of a remark about a value rather than a chosen passphrase's word (a state, a
    participle or an adverb: ``stored``, ``hashed``, ``securely``)."""
    lowered = word.lower()
    return lowered in _NOT_PROSE_PASSWORDS or len(lowered) > 5 and lowered.endswith(_WORD_SUFFIXES)


_PREPOSITION_AFTER = re.compile(
    r"[ \t]+(?:from|in|by|with|at|on|into|via|as|than|to|using|under|before|after)\b"
)
_COMPOUND_WORD = re.compile(r"[A-Za-z0-9]+-[a-z]+")
"""A compound adjective's shape (``case-sensitive``, ``URL-safe``, ``sha256-hashed``)."""
_NAMED_FOR_CREDENTIAL = re.compile(r"[a-z0-9](?:Password|Passwd|Token|Secret|Key|Credential)s?[A-Z]")
"""A CamelCase name with a credential's word inside it, between two of its words."""
_NAME_WORDS = re.compile(r"(?:[A-Z][a-z]+)+|[A-Z]+[a-z]*")
"""Capitalised words, run together or not (``SecretStr``, ``Required``, ``NULL``): a type or a name.
Random letters flip case more often (``SUjvCmFHDLfoVH``)."""
_SHORT_SECRET_WORDS = frozenset({"pin", "otp"})
"""Words that also name other things ("the pin is loose", a GPIO pin): their value needs a digit."""


def _has_digit(value: str) -> bool:
    return any(map(str.isdigit, value))


def _left_to_other_rules(match: re.Match[str]) -> bool:
    """An ASCII ``name: value`` or ``name = value`` is :func:`find_assignments`' to judge (with its
    code checks: a URL's ``&``, ``config['x']``), and ``password for X: value`` a positional
    rule's; prose keeps a label of several words (``mot de passe :``) or with a note in brackets."""
    if not match.group().isascii() or match.group("note"):
        return False
    label = (match.group("word") or match.group("key_word")).strip()
    owner = match.group("owner")
    if owner:
        return _OWNER_NAMED.fullmatch(owner) is not None
    return not any(ch.isspace() for ch in label)


_OWNER_NAMED = re.compile(r"\s+for\s+(?:(?:the\s+)?(?:user|account)\s+)?[\w@.\-]{1,64}")
"""An owner that is one name (``password for root:``): the layout :mod:`.positional`'s
``password_for_account`` reads, with its check that the value ends the line. An owner of several
words ("New password for the router: X") is no such layout, and prose reads it."""


def _stated_value(text: str, start: int, end: int, quote: str, verb: str, key_word: bool) -> Finding | None:
    """The value a prose statement gives, unless it reads as a word, a path, a placeholder or code.

    A linking verb admits any non-word value; with no verb, the value must be quoted or carry a
    digit or symbol. After a key word ("token is <uuid>") it must look like a key."""
    value = text[start:end].rstrip(".,:!?")
    quoted = bool(quote)
    if len(value) < 4 or value[0] in "/.~-$%=*" or PLACEHOLDER.match(value):
        return None
    if _CODE_REF.match(value) and not (_MEMORABLE.fullmatch(value) or _dotted_chosen(value)):
        return None  # settings.password is code; Maple.Echo5155, maple.Red927 are passwords people remember
    if PSEUDONYM_RE.fullmatch(value) or "://" in value or translated_label(text, value):
        return None
    if log_stamp(text, start, value):
        return None  # the next log line's time stamp, after a line that ended with the word
    if ROW_OPENS.match(text, start):
        return None  # the next row's offset of a byte dump whose character column ended with the word
    if not quoted and _NAMED_FOR_CREDENTIAL.search(value):
        return None  # "use OAuth2PasswordBearer for the token": a class named for what it handles
    if not quoted and _COMPOUND_WORD.fullmatch(value):
        return None  # "the password is case-sensitive", "the token is long-lived": a compound word
    if key_word:
        if verb and (acceptable_value(value, quoted, "secret", "") or _words_and_number(value)):
            return Finding("SECRET", start, start + len(value), value, "prose")
        return None
    if value.isalpha():
        if not (verb or quoted) or _NAME_WORDS.fullmatch(value) and not (verb and quoted):
            return None  # a capitalised word after the keyword is a type or a name ("password: SecretStr")
        if value.lower() in _NOT_PROSE_PASSWORDS or value.endswith(_WORD_SUFFIXES):
            return None
        if not quoted and not _looks_chosen(value) and _PREPOSITION_AFTER.match(text, end):
            return None  # "the password is read from ...": a verb or an adjective, then its object
    elif not (quoted or verb or any(map(str.isdigit, value))):
        return None  # "passwd anonymous@", the shell's "pwd /tmp": no sign of a chosen password
    return Finding("PASSWORD", start, start + len(value), value, "prose")


_PREFIXED_HEX = re.compile(
    r"(?<![\w.\-/])(?P<prefix>[A-Za-z][A-Za-z0-9]{1,15}(?:[_\-][A-Za-z0-9]{1,15})?[_\-])"
    r"(?P<body>[0-9a-f]{32,128}|[0-9A-F]{32,128})(?![\w\-]|\.\w)"  # not a file name (flash_<md5>.img)
)
_NOT_KEY_PREFIX = re.compile(
    r"(?i)(?:^|[_\-])(?:sha\d*|md5|hash|digest|checksum|commit|rev|revision|build|cache|blob|tree|object|layer"
    r"|image|file|tmp|temp|trace|span|request|req|run|job|task|session|msg|event|uuid|guid|id|etag|nonce|pod"
    r"|container|volume|node|snapshot|artifact|release|version|ver|v|crash|leak|timeout|oom|slow-unit"
    r"|pip|pipenv|poetry|uv|npm|yarn|pnpm|bun|cargo|gradle|maven|mvn|go|gomod|gem|bundler|composer|nuget|conda"
    r"|deps|python|ruby|sbt|ccache|sccache|buildx)[_\-]$"
)
"""Words that make the hex after them a digest or an id: a build artefact's, and a package manager's
or toolchain's, whose CI cache key (``Linux-pip-<sha256>``, ``macOS-gradle-<sha256>``) ends in the
hash of its lockfile (actions/cache prints it after ``key:``)."""


_ID_NAME_BEFORE = re.compile(
    r"(?P<label>[\w$]*(?:(?:\b|[_\-])(?:id|ID|Id|oid)|(?<=[a-z])I[dD]))s?\\?[\"']?\s*(?:[:=(]\s*|\s+)\\?[\"']?$"
)
"""A name or constructor that calls what follows an id: ``run_id=``, ``"JobRunId": ``, ``[id=``, Ray's
``NodeID:``, Mongo's ``ObjectId("`` and extended JSON's ``{"$oid": "``; its quotes may be escaped
(double-encoded JSON in a log line: ``\\"commit_id\\": \\"``)."""
GRANTING_ID_NAME = re.compile(r"(?i)session|cookie|csrf|xsrf|auth|token|secret|pass")
"""An id that grants: a ``session_id``, ``auth_token_id`` or Vault ``secret_id`` is a bearer
credential, scored like any other string; an object's ``id``, ``VersionId`` or ``NodeID`` only names it."""


def hex_named_as_id(text: str, start: int) -> bool:
    """Does a label before the hex run at ``text[start:]`` call it an object's id (``NodeID: ``,
    ``ObjectId("``, ``[id=``), and not a session's or a token's? A Mongo shell prints every
    document's id, Ray every node's: replaced, each got a pseudonym and the output its meaning."""
    label = _ID_NAME_BEFORE.search(text, max(0, start - 40), start)
    return label is not None and not GRANTING_ID_NAME.search(label.group("label"))


def named_as_id(text: str, start: int, token: str) -> bool:
    """Is the token at ``text[start:]`` an API object's id, by its prefix (``req_``, ``call_``,
    ``cus_``) or by a name before it that calls it an id (``run_id=``, ``"JobRunId": ``)?"""
    return bool(
        _ID_PREFIX.match(token)
        or _STRIPE_OBJECT_ID.fullmatch(token)
        or _ID_NAME_BEFORE.search(text, max(0, start - 40), start)
    )


def find_prefixed_hex(text: str) -> Iterator[Finding]:
    """Vendor-style tokens made of a short prefix and a random hex body (``pul-<40 hex>``,
    ``acme_live_<32 hex>``), named or not: the class many vendors share, not one vendor's format.

    A prefix that names a digest or an identifier (``sha256-``, ``commit_``, ``req-``, ``build-``)
    marks an id, not a key; the body must score as random hex.
    """
    for match in _PREFIXED_HEX.finditer(text):
        if _NOT_KEY_PREFIX.search(match.group("prefix")) or named_as_id(text, match.start(), match.group()):
            continue  # the value of an id field or flag (--job-run-id jr_<64 hex>): an id, by its name
        if looks_random(match.group("body")) and not is_sequential_string(match.group("body")):
            yield Finding("API_KEY", match.start(), match.end(), match.group(), "format:prefixed_hex")


_LITERAL_PREFIX = rf"(?:{STRING_PREFIX})?"
_DEFAULT_KEYWORD = r"(?:(?:fallback|default)\s*=\s*)?"
"""A getter's default by keyword (ConfigParser's ``get(section, "password", fallback="x")``)."""
_NAMED_LITERAL = re.compile(
    r"(?:\b(?:set|with)(?P<setter>[A-Z]\w{0,40})\s*\(\s*"  # setPassword("x"), withApiKey("x")
    # put("pw", "x"), config.get("password", fallback="x"):
    rf"|\(\s*{_LITERAL_PREFIX}(?P<q1>[\"'])(?P<argument>[\w.:\-]{{1,64}})(?P=q1)\s*,\s*{_DEFAULT_KEYWORD}"
    # setattr(o, "SECRET_KEY", "x"), config.get("db", "password", fallback="x"):
    rf"|,\s*{_LITERAL_PREFIX}(?P<q4>[\"'])(?P<last_but_one>[\w.:\-]{{1,64}})(?P=q4)\s*,\s*{_DEFAULT_KEYWORD}"
    rf"|\[\s*(?:{_LITERAL_PREFIX}(?P<q3>[\"'])(?P<subscript>[\w.:\-]{{1,64}})(?P=q3)|:(?P<key_symbol>\w{{1,64}}))"
    r"\s*\]\s*=\s*"  # e["PW"]="x", Ruby's config[:password] = "x"
    r"|\bset\s+:(?P<symbol>\w{1,64})\s*,\s*(?:ENV\.fetch\(\s*[\"'][^\"'\n]{0,64}[\"']\s*,\s*|(?P<list>\[)\s*)?"
    r"|\{\s*(?P<q5>'?)(?P<atom>[a-z]\w{0,63})(?P=q5)\s*,\s*(?:<<)?"  # Erlang's {password, "x"}
    r"|\b(?P<typed>[A-Za-z_]\w{0,63})\s*:\s*[\w.\[\], |]{1,60}=\s*[\w.]*(?:Field|Option|Argument)\(\s*"
    r"(?:default\s*=\s*)?"  # pydantic's Field, typer's Option and Argument: a default
    r"|\b(?:key|name|field)[\"']?\s*[:=]\s*(?P<q2>[\"'])(?P<field>[\w.\-]{1,64})(?P=q2)\s*[,;]?\s*"
    r"[\"']?value[\"']?\s*[:=]\s*)"  # {"key": "password", "value": "x"}, <add key="Password" value="x"/>
    rf"{_LITERAL_PREFIX}(?P<q>[\"'])(?P<value>[^\"'\n]{{4,200}})(?P=q)"
)
_LIST_ITEM = re.compile(r"\s*,\s*(?P<q>[\"'])(?P<value>[^\"'\n]{4,200})(?P=q)")
"""The next literal of a list a name was set to (Ruby's ``set :api_keys, ["a", "b"]``)."""
_NAMING_GROUPS = (
    "setter",
    "argument",
    "last_but_one",
    "subscript",
    "key_symbol",
    "symbol",
    "atom",
    "typed",
    "field",
)
_CALL_END = re.compile(r"\s*\)")
"""What follows a call's last argument: a string argument names the next one only there, where a
list of names (``__all__ = [..., "XLNetForTokenClassification", "XLNetLMHeadModel"]``) runs on."""


def find_named_literals(text: str) -> Iterator[Finding]:
    """A literal whose name is given by code around it rather than an assignment: a setter's
    name, a string argument before it (``put("password", "x")``, ``config.set("db", "password",
    "x")``, ``setattr(s, "SECRET_KEY", "x")``: before the last argument, a getenv default), a
    string or a Ruby symbol subscript assigned to (``os.environ["DB_PASSWORD"] = "x"``,
    ``settings["api_key"] = "x"``, ``config[:password] = "x"``), a typed field's default,
    or a key/value pair (Postman variables, .NET ``appSettings``). Code names a credential by a
    string as often as by an identifier, and there no assignment rule sees the name.

    A match that names no credential is retried one character on: ``setProperty("db.password",
    "x")`` first reads as the setter ``Property``, and the argument after it names the value."""
    position = 0
    while (match := _NAMED_LITERAL.search(text, position)) is not None:
        name = next(match.group(group) for group in _NAMING_GROUPS if match.group(group))
        name_class = credential_class(name)
        value = match.group("value")
        if match.group("last_but_one") and not _CALL_END.match(text, match.end()):
            name_class = None  # a later string argument names the value only as the call's last
        if name_class and acceptable_value(value, True, name_class, ""):
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, match.start("value"), match.end("value"), value, "keyword:named")
            position = match.end()
            while match.group("list") and (item := _LIST_ITEM.match(text, position)) is not None:
                if acceptable_value(item.group("value"), True, name_class, ""):  # set :keys, ["a", "b"]
                    yield Finding(kind, *item.span("value"), item.group("value"), "keyword:named")
                position = item.end()
        else:
            position = match.start() + 1


_TYPED_INTO = re.compile(
    r"\.(?:send_keys|sendKeys|fill|type|press_sequentially|pressSequentially|set_value|setValue|input_text"
    r"|clear_and_type)\s*\(\s*(?P<selector>\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`)?\s*,?\s*"
    r"(?P<q>[\"'`])(?P<value>[^\"'`\n]{3,200})(?P=q)\s*[,)]"
)
_LOCATOR_REACH = 300
"""How far back the statement that locates a field is read (``driver.find_element(...)`` chains)."""


def find_typed_into_fields(text: str) -> Iterator[Finding]:
    """A literal a browser agent types into a credential field: Selenium's ``find_element(By.ID,
    "password").send_keys("x")``, Playwright's ``page.fill("#password", "x")`` or
    ``get_by_label("Password").fill("x")``. The field is named by the locator (the statement
    before the call, or the call's own selector argument), not by an assignment, so no other rule
    saw the name; web agents log their logins exactly like this."""
    for match in _TYPED_INTO.finditer(text):
        start = match.start()
        reach = max(0, start - _LOCATOR_REACH)
        statement_start = max(text.rfind("\n", reach, start), text.rfind(";", reach, start), reach - 1) + 1
        locator = text[statement_start:start] + (match.group("selector") or "")
        name_class = field_named_by(locator)
        value = match.group("value")
        if name_class and acceptable_value(value, True, name_class, ""):
            kind = "PASSWORD" if name_class == "password" else "SECRET"
            yield Finding(kind, match.start("value"), match.end("value"), value, "keyword:typed")


_LOCATOR_WORD = re.compile(r"[A-Za-z]+")
_FORM_WORDS = frozenset({"login", "signin", "session"})
"""Words that name a form rather than a field: every field of a login form is ``login-*``."""


def field_named_by(locator: str) -> str | None:
    """``password`` or ``secret`` when a locator or label names a credential field (``Password
    textbox``, ``input[type=password]``, ``#login-pwd``, ``//input[@name='api_key']``,
    ``find_element(By.ID, "password")``): one of its words does, by :func:`credential_class`, a
    form's name aside. One rule for code that types (:func:`find_typed_into_fields`), a browser
    tool's arguments and an instruction to a browser agent (:mod:`.structure`)."""
    classes = {
        credential_class(word) for word in _LOCATOR_WORD.findall(locator) if word.lower() not in _FORM_WORDS
    }
    return "password" if classes & {"password", "salt"} else "secret" if "secret" in classes else None


_BASE32_SEED = re.compile(
    r"(?:(?<=^[+-])|(?<![A-Za-z0-9+/=_\-:]))[A-Z2-7]{16,64}(?:={1,6})?(?![A-Za-z0-9+/=_]|-[^a-z])",
    re.MULTILINE,
)
"""A seed standing alone, right after a diff's ``+``/``-`` line marker (an added ``.env`` line), or
before a hyphen and a small letter (``<seed>-backup``: a name glued on after it, which no seed or
uppercase identifier's own piece starts with)."""


def _alphabet_like(token: str) -> bool:
    """A run of mostly consecutive characters ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "qwerty..."):
    an alphabet or a keyboard row, not a key."""
    ascending = sum(ord(b) - ord(a) == 1 for a, b in zip(token, token[1:], strict=False))
    return is_sequential_string(token) or ascending > len(token) / 2


def find_base32_seeds(text: str) -> Iterator[Finding]:
    """One-time-password seeds: RFC 4648 base32 (A-Z, 2-7) of a key's length (16, 26, 32, ...
    characters), shorter than the entropy pass looks at. Random base32 mixes in digits and
    repeats few letters; uppercase words and constants do neither. Base32 that decodes to text
    is not a seed (a seed is random bytes): the entropy pass reads the text for secrets."""
    for match in _BASE32_SEED.finditer(text):
        token = match.group().rstrip("=")
        if len(token) % 8 not in (0, 2, 4) or _alphabet_like(token) or encoded_text(token) is not None:
            continue
        digits = sum(map(str.isdigit, token))
        if digits >= 2 and len(token) - digits >= 8 and len(set(token)) >= 0.55 * len(token):
            yield Finding("SECRET", match.start(), match.start() + len(token), token, "format:base32_seed")


def find_pem_blocks(text: str) -> Iterator[Finding]:
    """PEM private keys: the BEGIN marker, every base64 body run up to END, and the END marker.

    Body runs are separate spans so the quoting and concatenation around them (a key split over
    string literals, JSON-escaped newlines) survives pass 3 intact.
    """
    for begin in _PEM_BEGIN.finditer(text):
        end = _PEM_END.search(text, begin.end(), begin.end() + _PEM_MAX_SPAN)
        stop = end.start() if end else min(len(text), begin.end() + _PEM_MAX_SPAN)
        yield Finding("PRIVATE_KEY", begin.start(), begin.end(), begin.group(), "pem")
        blank = re.search(r"\n\s*\n", text[begin.end() : stop]) if end is None else None
        if blank:
            stop = begin.end() + blank.start()
        for body in _PEM_BODY.finditer(text, begin.end(), stop):
            line = body.group(1)
            # Full body lines are 64 characters; the last one may be as short as one. Shorter runs
            # elsewhere are header words ("Proc-Type: 4,ENCRYPTED") or code around a split key. A
            # last line under 4 characters (under 24 bits of key) is kept: its pseudonym would be
            # applied to every standalone occurrence of those characters in the episode.
            last = end is not None and _PEM_BETWEEN_LINES.fullmatch(text, body.end(), stop) is not None
            if line and (len(line) >= 16 or line.endswith("=") or (last and len(line) >= 4)):
                yield Finding("PRIVATE_KEY", body.start(1), body.end(1), line, "pem")
        if end:
            yield Finding("PRIVATE_KEY", end.start(), end.end(), end.group(), "pem")


_NAME_NOT_KEY = re.compile(r"\.(?:[a-z]{1,5}|cpython-\d+[\w.-]*)$|^[a-z]+(?:_[a-z]+)+\d{0,3}$")
"""A prefix-matched token that ends in a file extension, or is a plain snake_case name."""


def _is_path(token: str) -> bool:
    """A ``/``-separated path with a word for a segment (base64 keys have slashes, not words)."""
    return "/" in token and any(part.isalpha() and len(part) >= 3 for part in token.split("/")[1:])


def find_known_formats(text: str) -> Iterator[Finding]:
    """Vendor token formats, JWTs with signatures, connection-string and header credentials."""
    lower = text.lower()
    for kind, regex, word_start, group, gate in _COMPILED_RULES:
        if gate and not any(g in lower for g in gate):
            continue
        for match in regex.finditer(text):
            if word_start and match.start() and _is_word_char(text[match.start() - 1]):
                continue
            groups = range(1, regex.groups + 1)
            idx = group or next((g for g in groups if match.group(g) is not None), 0)
            start, end = match.span(idx)
            value = text[start:end].rstrip(".-")
            if kind == "PASSWORD" and (PLACEHOLDER.match(value) or owner_spec(text, start, value)):
                continue  # postgres://app:${DB_PASSWORD}@db, docker login -p <token>, docker run -u 1000:1000
            if kind == "API_KEY" and (_NAME_NOT_KEY.search(value) or _is_path(value)):
                continue  # hf_storage.cpython-311.pyc, ops_handler, hf_xet-1.8.0.dist-info/RECORD
            if kind == "API_KEY" and _reads_as_prose(encoded_text(value)):
                continue  # a prefix that is base64 itself (cmVmdGtu: "reftkn"), then a sentence: a fixture
            if kind == "TOKEN" and value.startswith("eyJ") and plain_document(wrapped_rows(text, start, end)):
                continue  # ?cursor=<base64 of {"offset": 100}>: a document of ordinary data
            if match.group()[:5].lower() == "basic" and not basic_credentials(value):
                continue  # Basic realm="x", Basic authentication
            if len(value) >= 4 and not PSEUDONYM_RE.fullmatch(value):
                yield Finding(kind, start, start + len(value), value, f"format:{kind.lower()}")


_BASIC_USER = re.compile(rb"[!-9;-~]{1,64}:")
"""A user name and the colon after it (RFC 7617): printable, no colon in it."""


def basic_credentials(token: str) -> bool:
    """``token`` is base64 that opens with ``user:``: HTTP Basic credentials, or their head (the
    rest of a value cut short, or filler after it, may decode to anything)."""
    usable = token.rstrip("=")
    usable = usable[: len(usable) // 4 * 4]
    try:
        raw = base64.b64decode(usable, validate=True)
    except ValueError:
        return False
    return _BASIC_USER.match(raw) is not None


_JWT_HEADER_KEYS = frozenset(
    {"alg", "typ", "kid", "enc", "cty", "jku", "jwk", "x5u", "x5c", "x5t", "crit", "epk", "k"}
)
"""The registered header parameters of a JWS or JWE (RFC 7515, 7516): a document naming one is a
token's header, a token cut at its first dot; and the keys of vendor keys that are base64 JSON
(Grafana's provisioned API key, ``{"k": ..., "n": ..., "id": ...}``, whose ``k`` is the key)."""


_ROW_END = re.compile(r"[ \t]*(?:[|│][^\n]*)?\r?\n")
"""After a piece that ends its cell: spaces, then the row's end or a table's border and the cells
after it (a table of three columns wraps its middle one)."""
_ROW_PIECE = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_BORDER = " \t|│"


def wrapped_rows(text: str, start: int, end: int) -> str:
    """The token at ``text[start:end]`` joined with the rows it goes on in, above and below: a row
    whose cell ends with base64 in the same column above it, rows below whose text starts there
    while the token ends its cell (only spaces, then the row's end or a border), as a table cell or an
    indented block wraps a long cursor (red team, session 45). Read row by row, the first row of a
    pagination cursor decoded to no whole document and was replaced as a token, and the rows below
    it scored as random; joined, it is the document :func:`plain_document` judges. The token alone
    where it goes on nowhere."""
    return "".join(text[low:high] for low, high in wrapped_row_spans(text, start, end))


def wrapped_row_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where each piece of :func:`wrapped_rows` stands, top to bottom (the token's own among them)."""
    line_start = text.rfind("\n", 0, start) + 1
    column = start - line_start
    spans = [(start, end)]
    while line_start and not text[line_start:start].strip(_BORDER):  # a continuation row: look up
        above_start = text.rfind("\n", 0, line_start - 1) + 1
        above = text[above_start : line_start - 1].rstrip("\r")
        piece = _ROW_PIECE.fullmatch(above, column, len(above.rstrip(_BORDER)))
        if piece is None or "=" in piece.group() or (column and above[column - 1] not in _BORDER):
            break  # the row above holds no piece of this token ending its cell
        spans.insert(0, (above_start + piece.start(), above_start + piece.end()))
        line_start, start = above_start, above_start + column
    while not text[spans[-1][0] : spans[-1][1]].endswith("=") and (row_end := _ROW_END.match(text, end)):
        row_start = row_end.end()
        piece = _ROW_PIECE.match(text, row_start + column)
        if piece is None or text[row_start : row_start + column].strip(_BORDER) or "\n" in piece.group():
            break  # no row below, or a row whose text in that column is no continuation
        spans.append(piece.span())
        end = piece.end()
    return spans


_WRAP_WIDTH_MIN = 16
"""The narrowest row a wrapped secret's continuation is read under: a table cell or a block cut
at its width, not a short value with an unrelated word below it."""
_ENCODED_TAIL = re.compile(r"[0-9+/=]")
"""What a short last row needs to read as an encoding's tail (a digit, ``+``, ``/``, padding), not
as a word a cell below holds (``None``, ``TBD``)."""


def wrapped_continuations(text: str, found: list[Finding]) -> Iterator[Finding]:
    """The other rows of a secret a table's cell or a block wraps (:func:`wrapped_row_spans`), where
    one row was found: a short last row (``In0=``, ``M3gifQ==``) scores as nothing alone and stayed
    beside its redacted rows (session 46). Only where the rows read as one value cut at a width:
    every row but the last as long as the found one (16 characters or more), the last no longer
    and, if shorter, with a digit, ``+``, ``/`` or padding in it; each row of
    :data:`SPLIT_PIECE_MIN` characters or more is replaced where it stands."""
    for finding in found:
        if len(finding.value) < _WRAP_WIDTH_MIN or not _ROW_PIECE.fullmatch(finding.value):
            continue
        spans = wrapped_row_spans(text, finding.start, finding.end)
        widths = [high - low for low, high in spans]
        if (
            len(spans) < 2
            or any(width != len(finding.value) for width in widths[:-1])
            or widths[-1] > widths[0]
        ):
            continue
        if widths[-1] < widths[0] and not _ENCODED_TAIL.search(text[spans[-1][0] : spans[-1][1]]):
            spans = spans[:-1]
        for low, high in spans:
            piece = text[low:high]
            if (low, high) != (finding.start, finding.end) and len(piece) >= SPLIT_PIECE_MIN:
                yield Finding(finding.kind, low, high, piece, f"{finding.detector}+wrapped_row")


def plain_document(token: str) -> bool:
    """Is ``token`` base64 of a JSON object that holds no credential: no token header's key
    (:data:`_JWT_HEADER_KEYS`), no key a credential's name marks (``password``, ``auths``' ``auth``),
    no string that reads as a random key or a known format? ``eyJ`` is only how ``{"`` encodes: a
    pagination cursor, an OAuth ``state`` or a feature-flag blob is such a document, and was replaced
    as a token wherever it recurred. Anything that does not decode to one object stays a token."""
    text = encoded_text(token)
    if text is None:
        return False
    try:
        document = json.loads(text)
    except ValueError:
        return False
    return isinstance(document, dict) and not _carries_credential(document)


def _carries_credential(node: object) -> bool:
    """Whether a decoded document holds what :func:`plain_document` calls a credential."""
    if isinstance(node, dict):
        return any(
            key.lower() in _JWT_HEADER_KEYS or credential_class(key) is not None or _carries_credential(value)
            for key, value in node.items()
        )
    if isinstance(node, list):
        return any(map(_carries_credential, node))
    if isinstance(node, str):
        return any(len(word) >= 12 and looks_random(word) for word in node.split()) or any(
            find_known_formats(node)
        )
    return False


def _path_word(part: str) -> bool:
    """A part of a ``/``-separated token that reads as a name of a path or a repository: letters
    only, three or more, changing case at most twice (``src``, ``MyProject``, ``macOSX``) or as
    camel case does, seldom and never around one small letter (``HuggingFaceTB``, ``OpenGVLab``).
    A base64 key's letters flip case at random (``wJalrXUtnFEMI``): such a part names no path,
    and the key is scored whole."""
    return part.isalpha() and len(part) >= 3 and not case_flips_at_random(part)


def _at_line_start(text: str, position: int) -> bool:
    """Is ``position`` the first character of its line?"""
    return position == 0 or text[position - 1] == "\n"


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


_CANDIDATE = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")
BASE64_DEPTH = 3
"""Layers of base64 an encoded credential is looked for under (``base64(base64(key))``)."""
_DIGEST_CONTEXT = re.compile(
    r"(?i)(?:sha(?:1|224|256|384|512)?(?:sums?)?|md5(?:sums?)?|blake2b?|commit|blob|tree|parent|digests?|hash(?:es)?"
    r"|checksums?|etag|object|revision|rev|merge|head|index|image|layer|fingerprint|recv-keys|keyid|key id|@)"
    r"[\s\x00:=\"'()#\\-]*$"
)
"""A word that names the hex run after it a digest: ``sha256:``, the GitHub API's ``"sha": ...``,
``hexdigest()  # ...`` (a comment showing a call's result), ``ETag:``. Backslashes count among the
separators: double-encoded JSON in a log line (``{\\"commit\\": \\"<sha>\\"}``) and the AWS CLI's
quoted ETag (``"ETag": "\\"<md5>\\""``) put escaped quotes between the word and the run."""


def names_a_digest(key: str) -> bool:
    """Does a JSON key name its value a digest (``sha``, ``commit_sha``, ``etag``, ``parent``)? The
    value then stands alone in its literal, where :func:`_own_digest_evidence` sees no word."""
    return _DIGEST_CONTEXT.search(key + ":") is not None


_GIT_REVISION_ARGUMENT = re.compile(
    r"\bgit(?:\s+-C\s+\S+)?\s+(?:checkout|switch|cherry-pick|revert|reset|show|bisect|rebase|diff|log|"
    r"blame|cat-file|rev-parse|rev-list|describe|format-patch|merge-base|branch|tag|shortlog|range-diff)"
    r"\b[^\n;&|`]*$"
)
"""A hex argument of a git command that takes revisions (``git checkout 8b0e71...``, ``git
bisect bad ...``, ``git diff A B``) is a commit. Flagged, its pseudonym replaced the commit in
every ``git log`` line of the episode too, and the commands no longer ran (red team)."""
_GIT_SEARCHED_OR_QUOTED = re.compile(r"(?:\s-[SGm]\s*|--grep\b|[\"'#])[^\n]*$")
"""A git line's text that makes the hex after it no revision: what ``log -S``/``-G``/``--grep``
searches for (a leaked key), a ``-m`` message, anything quoted or after a comment."""
_LISTED_AFTER = re.compile(r"(?<![0-9A-Za-z])([0-9a-fA-F]{7,128})(?:[ \t]+|[\"']\s*,\s*[\"'])$")
"""A hex run right before another, one space apart or the previous quoted item of a list: the
previous id of a list of ids of one length, which is a digest when the first of them is shown to be
one (a merge commit's ``parent A B`` in ``--format=raw``-like output: the second hash was redacted,
2026-12-06; a JSON array under ``"sha256sums"``)."""
_CONTAINER_OPENS = re.compile(r"[\"']?(?P<key>[A-Za-z_][\w.-]{0,39})[\"']?\s*[:=]\s*[\[(]\s*[\"']$")
"""The first quoted item of a list under a key (``"checksums": ["<hex>", ...``): the key names the
items, which :func:`names_a_digest` reads as it reads a key of one literal."""
_COLUMN_DELIMITERS = ("|", "\t", ",")
_TABLE_BORDER = re.compile(r"[ \t]*[|+]?[ \t]*:?-{3,}[-|+: \t]*")
"""A Markdown or ``psql`` separator row under a table's header."""
_ID_PREFIX = re.compile(
    r"^(?:call|toolu|chatcmpl|msg|req|run|resp|evt|file|asst|thread|step|item|ws|fc|gen)[_-]"
)
_STRIPE_OBJECT_ID = re.compile(
    r"(?:acct|ba|card|ch|cs|cus|dp|du|evt|fee|ii|il|in|li|pi|pm|po|price|prod|promo|py|pyr|re|seti|si|src|sub"
    r"|sub_sched|tr|trr|txn|tu)_(?:(?:test|live)_)?[A-Za-z0-9]{8,}"
)
"""A Stripe object's id (``cus_``, ``pi_``, ``ch_``, ``re_``, ``cs_test_``...: a customer, a payment
intent, a charge, a refund, a checkout session): it names a record, as a tool call's ``call_`` id
does, and grants nothing; customer-service logs (tau-bench's retail and airline tasks, a support
agent's refunds) quote them under any key (``"latest_charge"``, ``--charge=``, prose), and entropy
replaced them there. A key is ``sk_``/``rk_`` then ``live_``/``test_`` (the format rule, wherever it
stands, an ``"id"`` key included); after the prefix an id holds letters and digits only, so a vendor
key that shares a prefix and goes on with another ``_`` (``re_<id>_<secret>``) is still scored."""


def find_high_entropy(text: str, config: RedactionConfig, layers: int = 0) -> Iterator[Finding]:
    """Tokens that score like random keys for their alphabet and length (see :mod:`.entropy`), and
    base64 tokens whose text carries a secret (``text`` is itself under ``layers`` of base64).

    Path segments are scored one by one (a ``/``-separated path is not a key), digests named as
    digests and API object ids (``call_…``, ``toolu_…``) are left alone.
    """
    digests: dict[tuple[int, int], bool] = {}
    for match in _CANDIDATE.finditer(text):
        token = match.group()
        if token.startswith("//") and text[match.start() - 1 : match.start()] == ":":
            token = token[2:]  # a URL's // (after its scheme) is no part of its user
        elif token[:1] in "+-" and _at_line_start(text, match.start()):
            token = token[1:]  # a diff's +/- line marker: taken in, the redacted diff lost its lines
        begin = match.end() - len(token)
        if len(token) < config.min_entropy_length or PSEUDONYM_RE.search(token):
            continue
        if "/" in token and not token.endswith("=") and any(map(_path_word, token.split("/"))):
            offset = begin
            for part in token.split("/"):
                if len(part) >= config.min_entropy_length and random_candidate(part, text, offset, digests):
                    yield Finding("SECRET", offset, offset + len(part), part, "entropy")
                offset += len(part) + 1
            continue
        if random_candidate(token, text, begin, digests):
            yield Finding("SECRET", begin, match.end(), token, "entropy")
        elif layers < BASE64_DEPTH and (kind := _encoded_secret_kind(token, config, layers + 1)):
            yield Finding(kind, begin, match.end(), token, "base64")
        elif inflates_past_limit(token):
            yield Finding("SECRET", begin, match.end(), token, "base64:unread")
        elif layers < BASE64_DEPTH:
            yield from _glued_encoded_pieces(token, begin, config, layers + 1)


_GLUED_PIECE = re.compile(r"[^\-_]+")
"""A piece of a token between the hyphens and underscores that glue a name to it."""


def _glued_encoded_pieces(token: str, begin: int, config: RedactionConfig, layers: int) -> Iterator[Finding]:
    """The pieces of a token glued by ``-`` or ``_`` (``<base32>-suffix``, ``backup_<base64>``) that
    decode to text carrying a secret: neither base32 nor base64 holds ``-``, so a name glued to an
    encoded credential made the whole token decode to nothing and the credential stayed."""
    if "-" not in token and "_" not in token:
        return
    for piece in _GLUED_PIECE.finditer(token):
        if len(piece.group()) >= config.min_entropy_length and (
            kind := _encoded_secret_kind(piece.group(), config, layers)
        ):
            yield Finding(kind, begin + piece.start(), begin + piece.end(), piece.group(), "base64")


_PUNCTUATED_RUN = re.compile(r"(?<![!-~])[!-~]{16,}(?![!-~])")
_STRONG_SYMBOLS = frozenset("!#$%&*+=?@^~")
"""Symbols a generated password draws and a base64 or url-safe key never holds (but ``+``, which
base64 does: a token needs two of these)."""
_STRUCTURE = frozenset("()[]{}<>\"'`\\,;")
"""Brackets, quotes and separators: code and markup, which a run holding any of them is."""
_WRAPPING = "\"'`()[]{}<>,;:."
_ENCODED_WORD = re.compile(r"=\?[\w.-]+\?[BbQq]\?")
"""The start of an RFC 2047 encoded word (``=?UTF-8?B?...?=``): text in a mail header."""
_EMAIL_LIKE = re.compile(r"[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


_LABEL_BEFORE_VALUE = re.compile(r"[-+]*(?:(?:[A-Z_][A-Z0-9_.-]{2,}|[a-z_][a-z0-9_.-]{2,})[=:])+|[-+]+")
"""What a whitespace-delimited run holds before its value: a diff line's ``+`` or ``-``, a flag's
dashes, names (one case: a random token's head mixes them) and their ``=`` or ``:`` (``export
AWS_SECRET_ACCESS_KEY=...``, ``--from-literal=API_TOKEN=...``, ``connect.sid=...``). Taken into
the token, the pseudonym swallowed the name and the diff marker, and the command or the patch no
longer worked. The cost: a 16-character generated password whose head reads as such a name is
left too short to score (3 more of 180 in ``benchmarks/generated_passwords.py``)."""


def find_punctuated_secrets(text: str) -> Iterator[Finding]:
    """A random token drawn from all of printable ASCII, as password generators write them
    (``E?#qV8=ib8H@Dy8#@8YtDt*Xbiu?fMdI8X2Y``): base64-family candidates (:data:`_CANDIDATE`) stop
    at the first ``!`` or ``%``, so such a token fell apart into pieces too short to score, and was
    left whole. A whitespace-delimited run (quotes and brackets around it aside) counts when it
    holds no bracket, quote or separator (code and markup do), two different symbols no base64
    key holds, capitals, small letters and a digit, and scores like a random token of printable
    ASCII. A token of brackets and quotes too stays to the labelled detectors: regular expressions
    and calls in code look as random as those. Run on the raw text only (``engine.scan``):
    in a decoded view, quoted-printable or percent-encoded mail headers and URLs read as such."""
    if len(text) < 16:
        return
    for match in _PUNCTUATED_RUN.finditer(text):
        raw = match.group()
        token = raw.strip(_WRAPPING)
        if "://" in token or _QUERY_PARAMETER.search(token) or _QUERY_STRING.fullmatch(token):
            continue  # a URL, a request path or a query (a scheme would read as a label below)
        label = _LABEL_BEFORE_VALUE.match(token)
        token = token[label.end() :] if label else token
        if not 16 <= len(token) <= 128 or _EMAIL_LIKE.fullmatch(token):
            continue
        if any(ch in _STRUCTURE for ch in token) or PSEUDONYM_RE.search(token):
            continue
        if len(_STRONG_SYMBOLS.intersection(token.rstrip("="))) < 2 or _ENCODED_WORD.match(token):
            continue  # one symbol repeated is arithmetic or a glob (``2*pi*r``, ``a/*/b``)
        upper, lower = sum(map(str.isupper, token)), sum(map(str.islower, token))
        if upper < 2 or lower < 2 or not any(map(str.isdigit, token)):
            continue
        if shannon_entropy(token) >= entropy_threshold(len(token), "printable"):
            start = match.start() + raw.index(token)
            yield Finding("SECRET", start, start + len(token), token, "entropy:printable")


def _encoded_secret_kind(token: str, config: RedactionConfig, layers: int) -> str | None:
    """The kind of secret inside a base64 token whose text carries one (``X-Api-Key: …`` encoded).

    Base64 of text scores below random keys (its input bytes are printable), so entropy alone
    misses encoded credentials; decoding and running pass 1's detectors finds them, under another
    encoding too (``base64(hex(key))``) and in base64 again, up to :data:`BASE64_DEPTH` layers.
    """
    decoded = encoded_text(token)
    if decoded is None:
        return None
    inner = _carried(decoded, config, layers) or [
        found for view in decoded_views(decoded) for found in _carried(view.text, config, layers)
    ]
    return inner[0].kind if inner else None


def _carried(text: str, config: RedactionConfig, layers: int) -> list[Finding]:
    """The credentials (else the personal data) a text decoded from ``layers`` of base64 carries."""
    found = _pass_one(text, config, layers)
    return found if found or not config.pii else list(find_pii(text, config))


_PUBLIC_BEFORE = re.compile(
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+$"
    r"|\bh1:$|--hash=\w+:$|\b(?i:sha)(?:1|256|384|512)[:=-]$"
)
"""Context that proves a token public or a content digest: an SSH public key's type, a go.sum
``h1:`` hash, pip's ``--hash=sha256:``, an SRI ``sha512-`` integrity value, a wheel ``RECORD``
line's ``sha256=``, an SSH host key's ``SHA256:`` fingerprint."""
_STRUCTURED_NAME = re.compile(
    r"(?:sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}"  # SRI integrity (npm, yarn, HTML)
    r"|[a-z0-9]+(?:-[a-z0-9]+)*-[a-z0-9]{9,10}-[a-z0-9]{5}"  # a Kubernetes deployment's pod name
    r"|[\w.]*(?:cpython|cp3\d+|pypy\d*)-[\w.-]*(?:linux|darwin|win32|win_amd64|musl|gnu)[\w.-]*"
    r"|(?:vpc|vpce|subnet|ami|vol|snap|eni|rtb|rtbassoc|igw|eigw|nat|sg|i|eipalloc|eipassoc|lt|tgw|tgw-attach"
    r"|acl|dopt|pcx|vgw|cgw|fs|fsap|r|sir|elb|aki|ari|ipam|pl|prefix)-(?:[0-9a-f]{8}|[0-9a-f]{17})"  # AWS ids
    r"|[\w.-]+-[A-Za-z0-9_-]{8}-py\d{1,2}"  # Poetry's virtualenv: <project>-<8 of its path's hash>-py3.11
    r"|[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})"  # W3C traceparent: version-trace id-span id-flags
)
"""Tokens whose shape says what they are, however random their characters look."""


def structured_name(token: str) -> bool:
    """Does ``token``'s shape say what it is (:data:`_STRUCTURED_NAME`), so that no part of it is a key?"""
    return _STRUCTURED_NAME.fullmatch(token) is not None


_FILE_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}(?:\.\d+)*(?![\w\-])")


def public_by_context(text: str, start: int, end: int) -> bool:
    """Does what surrounds ``text[start:end]`` show it is no key: a file name's extension after it
    (umath-validation-set-README.txt, libgfortran-040039e1-0352e75f.so), a resource id inside an ARN
    (arn:aws:dms:...:task:K55IUCGB...), a public key's type or a digest's name before it, or the
    command whose echo it is computing a digest or an id?"""
    return bool(
        _FILE_EXTENSION.match(text, end)
        or in_arn(text, start)
        or _PUBLIC_BEFORE.search(text, max(0, start - 48), start)
        or _multipart_boundary(text, start, end)
        or _echo_of_a_public_call(text, start)
    )


_ECHO_PREFIX = re.compile(r"[ \t]*(?:Out\[\d+\]:[ \t]*|=>[ \t]*)?(?:UUID\(|b)?[\"']?[\w+/=-]*$")
"""What a REPL writes on its answer's line before the value (``Out[3]:``, irb's ``=>``, a repr's
quote), and the head of the value's own token (a base64 digest is scored piece by piece at ``/``)."""
_PUBLIC_CALL = re.compile(
    r"(?i)^[ \t]*(?:>>>|\$|#|>|In \[\d+\]:|irb\S*>|\.\.\.)[ \t]*[^\n]*"
    r"(?:hexdigest|\.digest\(|\buuid\d?\b|\bdgst\b|\b(?:sha\d*|md5|b2|b3)sum\b|\bshasum\b|\bcksum\b"
    r"|\bgit\s+(?:rev-parse|hash-object|write-tree|commit-tree)\b)[^\n]*$"
)
"""A REPL's or a shell's input computing a digest or a UUID (``hashlib...hexdigest()``,
``uuid.uuid4().hex``, ``openssl dgst -sha384 -binary | base64``, ``sha256sum``, ``git rev-parse``)."""


def _echo_of_a_public_call(text: str, start: int) -> bool:
    """Is the token at ``start`` alone on the line under a prompt whose command computes a digest or
    a UUID, and draws no random bytes (``hashlib.sha256(os.urandom(32)).hexdigest()`` is a key made
    from random bytes: :data:`.random_sources.RANDOM_SOURCE`)? Its echo is that digest or id: a
    ``uuid.uuid4().hex`` or ``openssl dgst | base64`` answer was replaced as a key."""
    line_start = text.rfind("\n", 0, start) + 1
    if not line_start or not _ECHO_PREFIX.fullmatch(text, line_start, start):
        return False
    above = text.rfind("\n", 0, line_start - 1) + 1
    command = text[above : line_start - 1].rstrip("\r")
    return _PUBLIC_CALL.match(command) is not None and RANDOM_SOURCE.search(command) is None


_BOUNDARY_PARAMETER = re.compile(r"(?i)boundary=\"?-*$")


def _multipart_boundary(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` a multipart body's boundary: the ``boundary=`` parameter's value, or a
    delimiter line (``--`` and the boundary, ``--`` after the last) of a body whose parts it opens?
    A boundary is random by design and no credential; replaced, its parameter and its delimiter
    lines (cut at different dashes) got different pseudonyms and the body no longer parsed."""
    if _BOUNDARY_PARAMETER.search(text, max(0, start - 16), start):
        return True
    core = text[start:end].strip("-")
    line_start = text.rfind("\n", 0, start) + 1
    line_end = len(text) if (newline := text.find("\n", end)) == -1 else newline
    line = text[line_start:line_end].rstrip("\r")
    if not core or not line.startswith("--") or line.strip("-") != core:
        return False
    return re.search(rf"(?im)^--+{re.escape(core)}\r?\nContent-(?:Disposition|Type):", text) is not None


def random_candidate(token: str, text: str, start: int, digests: dict[tuple[int, int], bool]) -> bool:
    """Entropy verdict for one candidate, with object ids, public keys, lockfile and package
    digests, pod names and platform tags, UUIDs a truncation mark cut, and named digests exempt
    (``digests``: the verdicts of :func:`_digest_by_evidence` so far in this text)."""
    if (
        _ID_PREFIX.match(token)
        or _STRIPE_OBJECT_ID.fullmatch(token)
        or _alphabet_like(token)
        or structured_name(token)
    ):
        return False
    if public_by_context(text, start, start + len(token)) or _request_id_header(text, start):
        return False
    if uuid_head(token) and cut_at(text, start + len(token)):
        return False  # a UUID a truncation mark cut (``request_id: 3f2a9c1e-7b4d-4e2a-9...``), as a whole one
    bare = token.rstrip("=")
    if re.fullmatch(r"[0-9a-fA-F]+", bare) and _digest_by_evidence(text, start, start + len(token), digests):
        return False
    if len(_SLUG_WORD.findall(token)) >= 2:
        # A slug (my-post-title-8f3a2b1c9d4e) or a snake_case name (001_initial_schedule): its
        # words are no key; a random piece counts alone, unless it is hex after a word naming a
        # digest (node-cache-Linux-x64-npm-<sha256>).
        pieces = _SLUG_SEPARATOR.split(token)
        return any(
            len(piece) >= 20 and looks_random(piece) and not named_digest_piece(pieces, index)
            for index, piece in enumerate(pieces)
        )
    if not looks_random(bare):
        return False
    return not _reads_as_prose(
        encoded_text(token) or base58_text(token) or wrapped_block_text(text, start, start + len(token))
    ) and not plain_document(wrapped_rows(text, start, start + len(token)))


_HEADER_BEFORE = re.compile(
    r"(?m)^[<>]?[ \t]*(?P<name>[A-Za-z][A-Za-z0-9-]{1,60})[ \t]*:[ \t]*(?:[\w.-]+=)?[\w.-]*$"
)
"""An HTTP header's name up to the token in its value (``< x-amz-id-2: ``, ``X-Amzn-Trace-Id:
Root=1-67a3b2c1-``): the value's own ``key=`` prefix and the id's earlier pieces allowed."""
_ID_HEADER_ENDS = frozenset({"id", "ray", "trace", "traceid", "spanid", "requestid"})


def _request_id_header(text: str, start: int) -> bool:
    """Is the token at ``start`` the value of a header that names it a request's or a trace's id
    (``x-request-id``, ``x-amz-cf-id``, ``x-amz-id-2``, ``cf-ray``, ``X-Correlation-ID``)? It
    correlates a request with the server's logs and grants nothing, as a ``req_`` id does
    (:data:`_ID_PREFIX`); replaced, an HTTP trace lost its correlation. A header naming a session,
    a token or a key (:data:`GRANTING_ID_NAME`, ``x-api-key``) keeps its value scored."""
    line_start = text.rfind("\n", 0, start) + 1
    header = _HEADER_BEFORE.search(text, max(line_start, start - 120), start)
    if header is None:
        return False
    name = header.group("name")
    words = [word for word in name.lower().split("-") if not word.isdigit()]
    return bool(words) and words[-1] in _ID_HEADER_ENDS and not GRANTING_ID_NAME.search(name)


def named_digest_piece(pieces: list[str], index: int) -> bool:
    """Is ``pieces[index]`` of a hyphenated slug hex that a piece before it names a digest or an
    id (``cache``, ``build``, ``layer``: the vocabulary of :data:`_NOT_KEY_PREFIX`)? A CI cache
    key ends in the hash of its lockfile."""
    return re.fullmatch(r"[0-9a-fA-F]+", pieces[index]) is not None and any(
        _NOT_KEY_PREFIX.search(f"-{piece}-") for piece in pieces[:index]
    )


_SLUG_WORD = re.compile(r"(?:^|(?<=[-_]))[a-z]*[aeiouy][a-z]{2,}(?=[-_]|$)")
"""A word of a hyphenated slug or a snake_case name: small letters with a vowel, three or more,
between hyphens or underscores. Underscores too since session 44: a migration's, a test's or a
job's name of words and numbers (``0515_add_orders_column``, ``index_sync_v1_backfill_2023q2``)
scored as random and was rewritten wherever the episode named it."""
_SLUG_SEPARATOR = re.compile(r"[-_]")


_PATH_WORD = r"[a-z]{2,}(?:[_\-][a-z]{2,})*"
_PATH = re.compile(rf"[./~]*{_PATH_WORD}(?:[./]{_PATH_WORD}){{2,}}")
"""A path or a dotted name of lowercase words (``src/payments/invoice_renderer.py``), three parts
or more."""


def _reads_as_prose(decoded: str | None) -> bool:
    """Is this what a base64 token encodes a sentence (``VGhlIHF1aWNr...``: "The quick brown fox")
    or a path of words (:data:`_PATH`)? A test fixture or a message body, not a key: three words or
    more, letters and spaces almost all of it. A sentence that carries a credential is read by the
    encoded-secret path instead (:func:`_encoded_secret_kind`)."""
    if decoded is None:
        return False
    if len(decoded.split()) >= 3:
        return sum(ch.isalpha() or ch.isspace() for ch in decoded) >= 0.85 * len(decoded)
    return _PATH.fullmatch(decoded.strip()) is not None


def _digest_by_evidence(text: str, start: int, end: int, verdicts: dict[tuple[int, int], bool]) -> bool:
    """Is the hex run at ``text[start:end]`` shown to be a commit, object id or content digest?

    Its length proves nothing (a random 40-hex token is a fine API key). Evidence is what the log
    says around it: a naming word or prefix (``commit``, ``sha256:``, ``--hash=``, ``@``), a URL
    or ref path (``/``), the layout of ``git log`` / ``sha256sum`` output (the digest opens its
    line and a name follows), or being the next id of a list whose earlier id has that evidence.

    The list is walked back in a loop, not by recursion: a tool's output of thousands of
    space-separated numbers made a chain as long as the output (RecursionError, the record
    dropped). ``verdicts`` (a run's span to its verdict, one per text) keeps the walk linear
    when the caller asks about the runs of a text in order: each stops at the run before it.
    """
    chain: list[tuple[int, int]] = []  # runs whose verdict is their predecessor's
    verdict = False
    while True:
        if (start, end) in verdicts:
            verdict = verdicts[start, end]
            break
        if text.startswith("@", end):
            break  # a URL's user (https://<token>@github.com/...): a credential, whatever precedes
        if _own_digest_evidence(text, start, end):
            verdict = True
            break
        chain.append((start, end))
        listed = _LISTED_AFTER.search(text, max(0, start - (end - start) - 24), start)
        if not listed or len(listed.group(1)) != end - start:
            break
        start, end = listed.span(1)  # the previous id of a list of ids (git's ``parent A B``)
    for link in chain:
        verdicts[link] = verdict
    return verdict


def _own_digest_evidence(text: str, start: int, end: int) -> bool:
    """The evidence :func:`_digest_by_evidence` reads around one hex run, its list aside."""
    before = text[max(0, start - 24) : start]
    if _DIGEST_CONTEXT.search(before) or before.endswith(("/", "#", "@", "..", 'W/"')):
        return True
    if hex_named_as_id(text, start):
        return True
    opens = _CONTAINER_OPENS.search(text, max(0, start - 64), start)
    if opens and names_a_digest(opens.group("key")):
        return True
    entry = _KEYED_ENTRY.search(text, max(0, start - 80), start)
    if entry and names_a_digest(entry.group("key")):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    if _column_names_a_digest(text, line_start, start):
        return True
    if (column := column_at(text, start, end)) is not None and names_a_digest(column):
        return True  # INSERT INTO t (name, sha256) VALUES ('a', '<hex>'); COPY t (checksum) FROM stdin
    command = _GIT_REVISION_ARGUMENT.search(text, max(line_start, start - 200), start)
    if command and not _GIT_SEARCHED_OR_QUOTED.search(command.group()):
        return True
    return not text[line_start:start].strip() and (
        _NAME_FOLLOWS.match(text, end) is not None or text.startswith("..", end)
    )


_KEYED_ENTRY = re.compile(r"""\bkey\s*=\s*["'](?P<key>[\w.:-]{1,40})["']\s+value\s*=\s*["']$""")
"""An element whose ``key`` attribute names its ``value`` (.NET's ``<add key="..." value="..." />``)."""


def _cell_names(line: str, delimiter: str) -> list[str]:
    """The cells of a table row split at ``delimiter``, stripped of spaces and quotes; the empty
    border cells of a Markdown row (``| a | b |``) dropped."""
    cells = [cell.strip(" \t\r\"'") for cell in line.split(delimiter)]
    if delimiter == "|" and cells and not cells[0]:
        cells = cells[1:]
    if delimiter == "|" and cells and not cells[-1]:
        cells = cells[:-1]
    return cells


_TABLE_LOOKBACK = 200
"""Rows walked up from a cell to its table's header: tables longer than that are read in part."""


def _column_names_a_digest(text: str, line_start: int, start: int) -> bool:
    """Is the run at ``start`` a cell of a CSV, TSV, Markdown or ``psql`` table whose header cell
    names a digest (``sha256``, ``MD5``, ``checksum``)? The word heads the column, not the run's
    line, so :data:`_DIGEST_CONTEXT` never saw it and entropy replaced every digest of a
    manifest. The header is the first line above of as many cells (a separator row skipped); a
    credential column of the same table keeps its own verdict."""
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end == -1 else line_end]
    for delimiter in _COLUMN_DELIMITERS:
        if delimiter not in line:
            continue
        cells = _cell_names(line, delimiter)
        before = _cell_names(text[line_start:start] + "x", delimiter)  # the run's cell is the last one
        column = len(before) - 1
        if len(cells) < 2 or column >= len(cells):
            continue
        header, end = "", line_start - 1
        for _ in range(_TABLE_LOOKBACK):
            if end <= 0:
                break
            above_start = text.rfind("\n", 0, end) + 1
            above = text[above_start:end]
            end = above_start - 1
            if delimiter == "|" and _TABLE_BORDER.fullmatch(above):
                continue
            if len(_cell_names(above, delimiter)) != len(cells):
                break
            header = above
        if header:
            name = _cell_names(header, delimiter)[column]
            if re.fullmatch(r"[A-Za-z_][\w .-]{0,39}", name) and names_a_digest(name):
                return True
    return False


_NAME_FOLLOWS = re.compile(r"[ \t]+\S")
"""``sha256sum`` / ``git log --oneline`` layout: the digest opens its line and a name follows on it.
A hex run alone on its line is no listing, even where it ends the text (a tool result whose
trailing newline the framework stripped: ``openssl rand -hex 32``, ``cat .secret``)."""


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=")
_DS_SKIPPED = {"IPPublicDetector", "PrivateKeyDetector"}  # public IPs are not secrets; PEM bodies are ours


@lru_cache(maxsize=1)
def _detect_secrets_plugins() -> tuple:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    classes: Iterable[type] = get_mapping_from_secret_type_to_class().values()
    return tuple(
        cls()
        for cls in sorted(classes, key=lambda c: c.__name__)
        if issubclass(cls, RegexBasedDetector) and cls.__name__ not in _DS_SKIPPED
    )


def find_with_detect_secrets(text: str) -> Iterator[Finding]:
    """detect-secrets' vendor regex plugins, turned into spans.

    Its reports carry no offsets and some values are truncated (``ghs_`` tokens, JWTs without
    their signature), so each reported value is located in its line and widened to the whole
    token around it; the keyword and entropy plugins are not used (they flag ordinary words, and
    the ``_id`` filter would hide every secret on a ``tool_call_id`` line).
    """
    offset = 0
    for line in text.split("\n"):
        for plugin in _detect_secrets_plugins():
            for secret in plugin.analyze_line(filename="trace", line=line, line_number=0):
                value = secret.secret_value or ""
                start = line.find(value) if value else -1
                while start != -1:
                    lo, hi = start, start + len(value)
                    while lo and line[lo - 1] in _TOKEN_CHARS:
                        lo -= 1
                    while hi < len(line) and line[hi] in _TOKEN_CHARS:
                        hi += 1
                    token = line[lo:hi].rstrip(".")
                    yield Finding("SECRET", offset + lo, offset + lo + len(token), token, "detect-secrets")
                    start = line.find(value, hi)
        offset += len(line) + 1


def find_secrets(text: str, config: RedactionConfig) -> list[Finding]:
    """All pass-1 findings in ``text`` (overlaps are resolved later, in pass 3)."""
    found = _pass_one(text, config)
    if config.detect_secrets_plugins:
        found.extend(find_with_detect_secrets(text))
    found.extend(find_split_variables(text, config))
    found.extend(list(wrapped_continuations(text, found)))
    return drop_inside_pseudonyms(text, found)


def find_labelled(text: str) -> list[Finding]:
    """The findings a label beside its value makes (an assignment, a prose statement): all a view
    that only drops marks between them can add (:data:`.decoders.LABEL_DECODERS`)."""
    return drop_inside_pseudonyms(text, [*find_assignments(text), *find_prose_passwords(text)])


def _pass_one(text: str, config: RedactionConfig, layers: int = 0) -> list[Finding]:
    """Our own detectors on ``text`` as it stands (decoded from ``layers`` of base64)."""
    found = [*find_pem_blocks(text), *find_known_formats(text), *find_assignments(text)]
    if "-----BEGIN " in text:
        found.extend(find_unparsed_block_bodies(text))
    if any(word in text for word in READER_WORDS):
        found.extend(find_printed_credential_files(text))
    found.extend(find_client_passwords(text))
    found.extend(find_prose_passwords(text))
    found.extend(find_cut_values(text, config, _pass_one))
    if mentions_a_hook(text.lower()):
        found.extend(find_webhook_secrets(text))
    if "(" in text or "value" in text or "] =" in text or "]=" in text or "set :" in text or "{" in text:
        found.extend(find_named_literals(text))
        found.extend(find_typed_into_fields(text))
        found.extend(find_key_constructor_hex(text))
    if "0x" in text:
        found.extend(find_named_hex_keys(text))
        found.extend(find_listed_hex_keys(text))
    if config.entropy:
        found.extend(find_prefixed_hex(text))
        found.extend(find_base32_seeds(text))
        found.extend(find_high_entropy(text, config, layers))
    return found


SPLIT_PIECE_MIN = 4
"""The shortest piece of a split key replaced: pass 3 replaces a value wherever it occurs in the
episode, so a piece of one to three characters would rewrite unrelated text (and carries under
four characters of the key)."""
SPLIT_LITERAL_MIN = 12
"""The shortest literal (not variable) piece replaced: a word's literal part is often a vendor
prefix (``ghp_``, ``sk_live_``) that other text holds too."""


def labelled_by_name(value: str, name: str) -> list[Finding]:
    """The credential ``value`` is when ``name`` labels it from elsewhere (a JSON key, decoded: see
    :class:`.engine.Context`; a markup element or attribute naming its text, :mod:`.markup`), read
    as ``"<name>": "<value>"``: the rule for a labelled value (:func:`find_assignments`) judges it,
    and each finding is placed in ``value``."""
    labelled = f"{json.dumps(name, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
    found = []
    for finding in drop_inside_pseudonyms(labelled, list(find_assignments(labelled))):
        start = value.find(finding.value)
        if start >= 0:
            found.append(replace(finding, start=start, end=start + len(finding.value)))
    return found


def find_split_variables(text: str, config: RedactionConfig) -> Iterator[Finding]:
    """A key cut across shell variables and joined in one word (``A=AKIAQW; B=ERTY...; ... $A$B``):
    each word's expansion (:mod:`.shell_words`) is scanned within its line, and a finding there
    becomes one finding per raw piece it covers, the variables' values where they were assigned."""
    for expansion in expansions(text):
        for finding in _pass_one(expansion.line, config):
            if finding.end <= expansion.start or finding.start >= expansion.end:
                continue
            for start, end, raw_start, _raw_end, variable in expansion.pieces:
                low, high = max(start, finding.start), min(end, finding.end)
                if high - low < (SPLIT_PIECE_MIN if variable else SPLIT_LITERAL_MIN):
                    continue
                raw = raw_start + low - start, raw_start + high - start
                yield Finding(finding.kind, *raw, text[raw[0] : raw[1]], f"{finding.detector}+shell_vars")


def drop_inside_pseudonyms(text: str, found: list[Finding]) -> list[Finding]:
    """Discard findings inside an existing pseudonym, so redacting redacted text changes nothing."""
    if "REDACTED_" not in text:
        return found
    marks = [m.span() for m in PSEUDONYM_RE.finditer(text)]
    return [f for f in found if not any(start < f.end and f.start < end for start, end in marks)]
