"""Which names mark a value as a credential: the one rule every detector, view and layout rule of
the redaction engine asks (``MYSQL_DATABASE_PASSWORD`` is a password's name, ``passenger`` is not).

Its own module so that the decoders (a key shown in groups counts under a credential's label) and
the detectors, which read the decoders' views, both ask it without importing each other.
"""

from __future__ import annotations

import re
from functools import lru_cache

from trajectory_platform.curation.redact.alternations import gated_alternation

# Whole name segments (``MYSQL_DATABASE_PASSWORD`` -> mysql, database, password): "passenger",
# "tokenizer" or "author" must not mark a value as a credential.
FOREIGN_PASSWORD = (
    r"passwort|kennwort|contrase[ñn]a|senha|has[łl]o|[şs]ifre|wachtwoord|salasana|parola|l[öo]senord"
    r"|adgangskode|passord|heslo|jelsz[óo]|пароль|密[码碼]|口令|パスワード|비밀번호|비번|암호|סיסמ[הא]"
    r"|mot[\s_]?de[\s_]?passe|mdp|clave|palavra[\s_]?passe|lozinka|geslo|[šs]ifra|kata[\s_]?sandi"
    r"|m[ậa]t[\s_]?kh[ẩa]u|كلمة[\s_]?(?:المرور|السر)|รหัสผ่าน|पासवर्ड|κωδικός"
)
""""Password" in the languages users write in (lowercased), the one table of it: a label or a key so
named (``Kennwort = X``, ``{"пароль": X}``, ``mot_de_passe``, ``DB_MDP``) marks its value as
``password`` does, and prose says it (``mot de passe : X``). Words of a phrase are joined by a
space, an underscore or nothing (a red team, rtsec10 NI: French, Spanish, Vietnamese and Arabic
names kept 47 of 48 values)."""
FOREIGN_SECRET = (
    r"chiave|schl[üu]e?ssel|geheimnis|clé|llave|chave|sleutel|klucz|ключ|секрет|密[钥鑰]|秘密|鍵"
    r"|anahtar|gizli|segreto|secreto|secr[èe]te?|jeton|токен"
)
""""Key", "secret" and "token" in other languages, whole segments (``clave_api`` is a password by
:data:`FOREIGN_PASSWORD`; ``chiave_api``, ``SCHLUESSEL``, ``cle_secrete``): a key-shaped value under
them is a credential, as under ``api_key``."""
_FOREIGN_PASSWORD_NAME = re.compile(rf"(?:^|_)(?:{FOREIGN_PASSWORD})(?=_|$)")
"""A foreign password word inside a name, its words joined by ``_`` (``mot_de_passe_admin``)."""
_PASSWORD_SEGMENT = re.compile(
    r"\w*?(?:pa+s+(?:w\w*|phrase|code)?s?|pwd|pw|ps+w(?:o?r)?d|secret|authtok)"
    r"|pins?|psk|creds?|mnemonic|" + FOREIGN_PASSWORD
)
"""A password segment may end a longer word (``dbpass``, ``bindpw``, and the authentication
token of PAM and SSSD, ``ldap_default_authtok``, ``krb5_authtok``: the bind password by the name
those configurations give it); a PIN, a Wi-Fi pre-shared key, a credentials pair and a wallet's
seed phrase only stand alone (``spin``, ``sacred`` are words)."""
_SECRET_SEGMENT = re.compile(
    r"\w*?(?:secret|token|key|apikey|credentials?|cookie|seed|salt|otp|totp|nonce)s?"
    r"|\w*?auth(?:entication|orization|key|token)?|signature|bearer|private|hmac|kek|sessions?|dsn|login|jwt|"
    + FOREIGN_SECRET
)
"""Whole segments that mark a key-shaped value: under ``APP_SESSION``, ``HMAC``, ``KEK``, ``DSN``,
``LOGIN`` or ``JWT`` a random token is the credential, a word or a URL is not (the generic test
of :func:`acceptable_value`)."""
_VENDOR_SEGMENT = re.compile(
    r"aws|azure|gcp|github|gitlab|bitbucket|slack|stripe|twilio|sendgrid|mailgun|mailchimp|heroku|netlify|vercel"
    r"|dropbox|facebook|twitter|discord|telegram|shopify|okta|datadog|sentry|jira|confluence|atlassian|npm|pypi"
    r"|dockerhub|jfrog|artifactory|openai|anthropic|huggingface|cloudflare|digitalocean|notion|airtable|figma"
    r"|postman|newrelic|pagerduty|paypal|braintree|salesforce|hubspot|zendesk|algolia|mapbox|firebase|supabase"
    r"|sourcegraph"
)
_NOT_PASSWORD_SEGMENTS = frozenset(
    {"bypass", "compass", "surpass", "overpass", "underpass", "trespass", "encompass", "askpass"}
)
"""Words ending in ``pass`` that are no password: ``SSH_ASKPASS`` / ``SUDO_ASKPASS`` name the
program that asks for one (a path)."""
_NOT_SECRET_NAMES = re.compile(
    r"(?:^|_)(?:id|ids|name|names|type|types|file|path|dir|url|uri|length|len|size|count|min|max|hint|policy|"
    r"reset|field|label|prompt|stdin|format|regex|pattern|mask|hash|algorithm|algo|method|version|mode|enabled|required|"
    r"expiry|expires|expires_at|expiration|timeout|ttl|header|prefix|env|var|key_id|kid|kty|alg|use|"
    r"confirmation_sent|strength|manager|store|column|index|map|storage|provider|model|models|deployment|region"
    r"|rotation|team|endpoint|(?<!key_)base|org|organization|project|encryption|hasher|hashers|validators|scheme"
    r"|rate|ratio|pct|percent|percentage|fraction|score|at_(?:\d+|k)|encoder|encoding|hashing|backend|attribute|attr"
    r"|days|hours|minutes|seconds|commit|revision|rev|sha)\d*$"
    r"|(?:^|_)(?:pubblic[ao]|publi(?:que|ca|co)|[öo]ffentlich\w*|publiczny|открыт\w*)(?:_|$)"
    r"|(?:^|_)(?:cache|partition|sort|range|primary|foreign|row|translation|i18n|l10n|lookup|dict|group|object|s3"
    r"|idempotency|dedup|dedupe|deduplication|recv|public|pub|hot|composite|unique|hash)_keys?$"
    r"|(?:^|_)key_pairs?(?:_|$)|(?:^|_)pubkeys?$"
    r"|(?:^|_)(?:next|page|next_page|continuation|pagination|cursor|sync|change|starting|resume|lock"
    r"|client_request|idempotency)_tokens?$"
)
"""Names whose value is no credential though the name holds a credential's word. The tokens among
them name a place in a list (``NextToken``, ``page_token``, ``--starting-token``), a sync's state
or a lock, or make a request idempotent (``ClientRequestToken``): an API hands them out to be sent
back, and they grant nothing. A UUID or a random string under them is an agent's tool argument as
often as any id, and was replaced, breaking the call's pagination."""
_KEYWORDS = (
    r"pas|pw|psw|pssw|paas|secret|token|key|auth|cred|otp|seed|salt|nonce|cookie|signature|bearer|answer|maiden|"
    r"memorable|"
    r"pin|psk|mnemonic|phrase|private|hmac|kek|session|dsn|login|jwt|"
    + FOREIGN_PASSWORD
    + "|"
    + FOREIGN_SECRET
    + "|"
    + _VENDOR_SEGMENT.pattern
)
KEYWORD_SCAN = gated_alternation(_KEYWORDS)
"""Run over the lowercased text: a case-insensitive alternation is about 25x slower in ``re``; gated
by the words' first characters (:func:`.alternations.gated_alternation`), 3x faster again."""
KEYWORD_SCAN_ANY_CASE = re.compile(_KEYWORDS, re.IGNORECASE)  # when lower() changes lengths
_ANY_KEYWORD = re.compile(
    r"pa|pw|ps|secret|token|key|auth|cred|otp|seed|salt|nonce|cookie|signature|bearer|answer|maiden|memorable|"
    r"pin|mnemonic|phrase|private|hmac|kek|session|dsn|login|jwt|"
    + FOREIGN_PASSWORD
    + "|"
    + FOREIGN_SECRET
    + "|"
    + _VENDOR_SEGMENT.pattern,
    re.I,
)


_KBA_NAME = re.compile(
    r"(?:^|_)(?:(?:security|secret|recovery|challenge)_(?:question_)?answer|memorable_(?:word|phrase|answer)"
    r"|(?:mothers?_)?maiden_name)(?:_?\d+)?$"
)
"""A knowledge-based authentication answer (``security_answer``, ``memorableWord``,
``mothers_maiden_name``): a password the user chose as a word, so a word under it counts (a red
team, round 11: such answers kept). Read before :data:`_NOT_SECRET_NAMES`, whose ``_name`` would
take ``maiden_name`` for a label."""
_SECRET_HEADER_KEY = re.compile(r"x_(?:[a-z0-9]+_)*(?:cache|primary)_keys?")
"""An HTTP extension header naming a key by what it unlocks (``X-Cache-Key``, ``X-Primary-Key``): a
client sends it to the server as a credential (a CDN's purge or bypass key, Azure's primary key),
where in code a ``cache_key`` or ``primary_key`` names a lookup (:data:`_NOT_SECRET_NAMES`). Only
the ``X-`` form counts: a workflow's ``cache-key`` is a lookup too."""
_CLIENT_AUTH_PASSWORD = re.compile(r"(?:^|_)(?:rediscli|redis|keydb|valkey|master)_?auth$")
"""The password a Redis-protocol client or replica sends with ``AUTH``, named for the command:
``redis-cli`` reads ``REDISCLI_AUTH``, a replica's ``redis.conf`` says ``masterauth``. Under an
``auth`` name a word is no key, but these hold the password itself, a word included."""
KBA_BLOCK = re.compile(
    r"(?i)(?<![\w-])(?:(?:security|secret|recovery|challenge|verification|kba)[ _-]?"
    r"(?:questions?|q(?:&|_?and_?)?as?)|kba|knowledge[ _-]?based[ _-]?auth(?:entication)?)(?![\w-])"
)
"""The name of a block of knowledge-based authentication questions (``security_questions``,
``challengeQuestions``, ``kba``): a plain ``answer`` inside it is a password the user chose as a
word (:mod:`.kba_answers`), where a quiz's or an FAQ's ``answer`` is text."""
_PHRASE_QUALIFIERS = frozenset(
    {"secret", "seed", "recovery", "mnemonic", "wallet", "backup", "master", "unlock"}
)
"""Words that make a ``phrase`` a secret one (a ``search_phrase`` or ``key_phrase`` is text)."""


@lru_cache(maxsize=4096)
def unescaped_name(name: str) -> str:
    """``name`` as written without Markdown's escapes of an ``_`` inside it (``DB\\_PASSWORD``,
    written so that no emphasis opens): with the backslash, no rule read it as a credential's."""
    return name.replace("\\_", "_")


def credential_class(name: str) -> str | None:
    """``password`` / ``salt`` / ``secret`` when the assigned name marks its value as sensitive, else None."""
    if not _ANY_KEYWORD.search(name):
        return None
    lowered = re.sub(r"([a-z])([A-Z])", r"\1_\2", unescaped_name(name.strip("\"'"))).lower().lstrip("-$@")
    lowered = lowered.replace("-", "_").replace(":", "_")  # ASP.NET Core's section path: Smtp:Password
    if _KBA_NAME.search(lowered.replace(".", "_")):
        return "password"
    if _CLIENT_AUTH_PASSWORD.search(lowered):
        return "password"
    if _SECRET_HEADER_KEY.fullmatch(lowered):
        return "secret"
    if not lowered or _NOT_SECRET_NAMES.search(lowered.replace(".", "_")):  # a dotted name's last segment
        return None
    segments = [seg for seg in lowered.replace(".", "_").split("_") if seg]
    if any(_PASSWORD_SEGMENT.fullmatch(seg) and seg not in _NOT_PASSWORD_SEGMENTS for seg in segments):
        return "password"
    if _FOREIGN_PASSWORD_NAME.search(lowered.replace(".", "_")):
        return "password"
    if "phrase" in segments and _PHRASE_QUALIFIERS.intersection(segments):
        return "password"  # secret_phrase, seed_phrase, recovery_phrase: a passphrase by another name
    if any(seg in ("salt", "salts", "pepper") for seg in segments):
        return "salt"  # any literal counts, like a password: salts are often short or plain
    if any(_SECRET_SEGMENT.fullmatch(seg) or _VENDOR_SEGMENT.fullmatch(seg) for seg in segments):
        return "secret"
    return None
