"""Generators of session 44's round G redaction leftovers (fresh values, carriers and spellings):
each class has a development half, the only one the rules were developed against, and a
validation half of carriers and spellings the first never holds. A leak case is ``(text, secret
pieces)``: the text leaks when any piece survives. A false-positive case is a text that must come
out unchanged (or, for a fragment, keep the parameters after the secret)."""

from __future__ import annotations

import random
import string
import unicodedata

Case = tuple[str, tuple[str, ...]]
HALVES = ("dev", "validation")


def _draw(rng: random.Random, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if alphabet != string.ascii_letters + string.digits or (
            any(map(str.isdigit, value)) and any(map(str.isupper, value)) and any(map(str.islower, value))
        ):
            return value


# --- false positive: a variable joined to a string literal by ``+`` --------------------------------

JOINED_DEV = ('const password = {var}+"{lit}";', '  password: {var} + "{lit}",')
JOINED_VALIDATION = (
    'String dbPassword = {var} + "{lit}";',
    "login(user, password={var}+'{lit}')",
    "var apiToken = {var} + '{lit}';",
    "  secret: {var}+`{lit}`,",
)
_JOINED_VARIABLES = {"dev": ("prefix", "basePath"), "validation": ("envPrefix", "user.name", "config.stage")}
_LITERALS = {"dev": ("-dev", "Suffix-9"), "validation": ("@example.com", "_2024", "/v2/login")}


def joined_literals(half: str) -> list[str]:
    """Code that computes a credential from a variable and a literal: no value stands there."""
    layouts = JOINED_DEV if half == "dev" else JOINED_VALIDATION
    return [
        layout.format(var=var, lit=lit)
        for layout in layouts
        for var in _JOINED_VARIABLES[half]
        for lit in _LITERALS[half]
    ]


SHELL_JOINED = ("export DB_PASSWORD=abc+'{v}'", "mysql -u root -pabc+'{v}' db")
"""A shell has no ``+``: these words are passwords and stay redacted."""


def shell_joined(seed: int = 31) -> list[Case]:
    rng = random.Random(f"shell-joined-{seed}")
    return [(layout.format(v=(v := _draw(rng, 12))), (v,)) for layout in SHELL_JOINED]


# --- false positive: the next log line's time stamp after a credential's name ----------------------

STAMPS_DEV = (
    "{t} ##[debug]Evaluating: env.{name}\n{t} ##[debug]=> null\n{t} ##[debug]Result: null\n{t} Run npm ci\n",
    "##[debug]Evaluating: env.{name}\n{t} Starting the job now\n",
)
STAMPS_VALIDATION = (
    "{d} 12:00:00,123 INFO reading {word}\n{d} 12:00:00,456 INFO connected\n",
    "[12:00:01.250] loaded {word}\n[12:00:01.300] next step\n",
    "{d2} 08:15:00 rotating the {word}\n{d2} 08:15:02 done\n",
)


def log_stamps(half: str) -> list[str]:
    """Log lines whose previous line ends with a credential's name."""
    if half == "dev":
        return [
            layout.format(t=t, name=name)
            for layout in STAMPS_DEV
            for t in ("2024-05-01T12:00:00.1234567Z", "2025-11-30T23:59:59.0000001Z")
            for name in ("DB_PASSWORD", "X_PASSWORD", "REGISTRY_TOKEN")
        ]
    return [
        layout.format(d="2024-05-01", d2="2024/05/01", word=word)
        for layout in STAMPS_VALIDATION
        for word in ("password", "api token", "secret key")
    ]


# --- false positive: an implicit grant's fragment swallowing the parameters after its token --------

FRAGMENTS_DEV = ("https://app.example.com/cb#access_token={v}&token_type=Bearer&expires_in=3600",)
FRAGMENTS_VALIDATION = (
    "Location: https://portal.example.org/signin#id_token={v}&state=xyz&session_state=2f1e",
    "redirected to https://app.example.net/auth/done#refresh_token={v}&scope=openid",
)


def fragments(half: str, seed: int = 37) -> list[tuple[str, str, str]]:
    """(text, token, what follows the token): the token goes, the parameters after it stay."""
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in FRAGMENTS_DEV if half == "dev" else FRAGMENTS_VALIDATION:
        value = _draw(rng, 20)
        text = layout.format(v=value)
        cases.append((text, value, text[text.index(value) + len(value) :]))
    return cases


# --- leak: a hashing command's password holding an escaped quote or a quoted operator --------------

HASHING_DEV = (
    'htpasswd -b /etc/nginx/.htpasswd admin "{a}\\"{b}"\\&{c}',
    "openssl passwd -6 '{a}&{b}{c}'",
)
HASHING_VALIDATION = (
    'mkpasswd -m sha-512 "{a}\\"{b};{c}"',
    "htpasswd -bB .htpasswd ana '{a}\"{b}|{c}'",
    'openssl passwd -1 -salt xyz "{a}{b}"\\|{c}',
)


def hashing_commands(half: str, seed: int = 41) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in HASHING_DEV if half == "dev" else HASHING_VALIDATION:
        a, b, c = (_draw(rng, 6) for _ in range(3))
        cases.append((layout.format(a=a, b=b, c=c), (a, b, c)))
    return cases


HASHING_CONTROLS = ('htpasswd -b .htpasswd ana "$PW" && echo done', "openssl passwd -stdin < pw.txt")


# --- leak: a credential in a Lisp association list ---------------------------------------------------

ALISTS_DEV = ('(setq auth \'(("password" . "{v}")))', '(setq smtp \'((user . "bob") (password . "{v}")))')
ALISTS_VALIDATION = (
    '(push \'("api_token" . "{v}") creds)',
    '(defvar my-creds \'((:secret . "{v}") (host . "db")))',
    '(list (cons "x" "y") \'(db-password . "{v}"))',
)


def lisp_alists(half: str, seed: int = 43) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    return [
        (layout.format(v=(v := _draw(rng, 14))), (v,))
        for layout in (ALISTS_DEV if half == "dev" else ALISTS_VALIDATION)
    ]


ALIST_CONTROLS = (
    '$pw = $password . "-suffix";',
    '$digest = hash("sha256", $password . $salt);',
    '(setq db \'((user . "bob") (host . "db.example.com")))',
    '(setq auth-sources \'("~/.authinfo.gpg"))',
)
"""PHP's join operator, and a Lisp alist whose keys name no credential."""


# --- leak: a key of letters alone with accents on its letters ----------------------------------------

_UPPER = string.ascii_uppercase
_LETTERS = string.ascii_letters
DIGITLESS_KEYS = {
    "dev": (lambda g: "AKIA" + _draw(g, 16, _UPPER), lambda g: "ghp_" + _draw(g, 36, _LETTERS)),
    "validation": (
        lambda g: "glpat-" + _draw(g, 20, _LETTERS),
        lambda g: "sk_live_" + _draw(g, 24, _LETTERS),
    ),
}
ACCENTS = {
    "dev": (("\u0301", 1, False), ("\u0300", 2, False)),
    "validation": (("\u0308", 3, True), ("\u0302", 1, True)),
}


def _accented(key: str, mark: str, every: int, compose: bool) -> str:
    written = "".join(c + (mark if i % every == 0 and c.isalpha() else "") for i, c in enumerate(key))
    return unicodedata.normalize("NFC", written) if compose else written


def accented_keys(half: str, seed: int = 47) -> list[tuple[str, str]]:
    """(key, line): a key drawn with no digit, accents on its letters, in a line."""
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for draw in DIGITLESS_KEYS[half]:
        for mark, every, compose in ACCENTS[half]:
            key = draw(rng)
            cases.append((key, f"export TOKEN={_accented(key, mark, every, compose)}"))
    return cases


ACCENT_CONTROLS = (
    "Die Geschäftsführerin bestätigte die Übernahmevereinbarungen gestern.",
    "C'est l'établissement-réglementaire qui décide, anticonstitutionnellement.",
    "naïve@examplé.com wrote about the Ångström-measurement-apparatus.",
)


# --- leak: a key cut into a shell printf's arguments -------------------------------------------------

PRINTF_DEV = ("printf '%s%s%s' {p1} {p2} {p3} > token.txt",)
PRINTF_VALIDATION = ('TOKEN=$(printf "%s%s%s" \'{p1}\' "{p2}" {p3})', "printf -v KEY '%s%s%s' {p1} {p2} {p3}")
PRINTF_KEYS = {
    "dev": (lambda g: "ghp_" + _draw(g, 36), lambda g: "AKIA" + _draw(g, 16, _UPPER + "234567")),
    "validation": (lambda g: "glpat-" + _draw(g, 20), lambda g: "sk_live_" + _draw(g, 24)),
}


def printf_pieces(half: str, seed: int = 53) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in PRINTF_DEV if half == "dev" else PRINTF_VALIDATION:
        for draw in PRINTF_KEYS[half]:
            for _ in range(2):
                key = draw(rng)
                third = len(key) // 3
                p1, p2, p3 = key[:third], key[third : 2 * third], key[2 * third :]
                cases.append((layout.format(p1=p1, p2=p2, p3=p3), (key[2:14], key[-12:])))
    return cases


PRINTF_CONTROLS = ("printf '%s%s\\n' foo bar baz qux", "printf '%s%s' hello world", "printf '%s %s' abc def")


# --- leak: Markdown's ``\\_`` escapes inside a credential's name ------------------------------------

ESCAPED_DEV = ("secret\\_key\\_base: {v}", "| DB\\_PASSWORD | {v} |")
ESCAPED_VALIDATION = (
    "- `SMTP\\_AUTH\\_TOKEN`: {v}",
    'stripe\\_secret\\_key = "{v}"',
    "| Name | Value |\n|---|---|\n| REDIS\\_PASS\\_WORD | {v} |",
)


def escaped_names(half: str, seed: int = 59) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    return [
        (layout.format(v=(v := _draw(rng, 16))), (v,))
        for layout in (ESCAPED_DEV if half == "dev" else ESCAPED_VALIDATION)
    ]


ESCAPED_CONTROLS = (
    "Use `\\_\\_init\\_\\_` and db\\_name: orders\\_2024",
    "| user\\_name | alice |",
    "see my\\_notes\\_2024.md for the steps",
)
