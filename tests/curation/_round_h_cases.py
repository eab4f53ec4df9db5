"""Generators of session 45's round H redaction leftovers (fresh values, carriers and spellings):
each class has a development half, the only one the rules were developed against, and a
validation half of carriers and spellings the first never holds. A leak case is ``(text, secret
pieces)``: the text leaks when any piece survives (in the redacted text with its separators
dropped, where the class spells a value apart). A false-positive case is a text that must come
out unchanged."""

from __future__ import annotations

import random
import string

Case = tuple[str, tuple[str, ...]]
HALVES = ("dev", "validation")
_ALNUM = string.ascii_letters + string.digits


def _draw(rng: random.Random, length: int, alphabet: str = _ALNUM) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if alphabet != _ALNUM or (
            any(map(str.isdigit, value)) and any(map(str.isupper, value)) and any(map(str.islower, value))
        ):
            return value


# --- false positive: a template literal (or any literal) joined to a variable --------------------

TEMPLATE_JOINS_DEV = ("  secret: {var}+`{lit}`,", "const password = {var} + `{lit}`;")
TEMPLATE_JOINS_VALIDATION = (
    "  apiToken: `{lit}` + {var},",
    "let dbPassword = `${{{var}}}{lit}`;",
    'String password = "{lit}" + {var};',
    "  return {var} + `{lit}`;",
    "connect(host, password={var}+`{lit}`)",
)
_JOIN_VARIABLES = {
    "dev": ("envPrefix", "base"),
    "validation": ("config.stage", "userName", "process.env.STAGE"),
}
_JOIN_LITERALS = {
    "dev": ("_2024", "-dev", "@example.com"),
    "validation": ("/v2/login", "-suffix-9", ".staging", "_db"),
}


def template_joins(half: str) -> list[str]:
    """Code computing a credential from a variable and a literal a person chose: no value stands."""
    layouts = TEMPLATE_JOINS_DEV if half == "dev" else TEMPLATE_JOINS_VALIDATION
    return [
        layout.format(var=var, lit=lit)
        for layout in layouts
        for var in _JOIN_VARIABLES[half]
        for lit in _JOIN_LITERALS[half]
    ]


SHELL_PLUS = ("export DB_PASSWORD=abc+'{v}'", "mysql -u root -pabc+'{v}' db", "PASS=abc+`{v}`x")
"""A shell has no ``+``: these words are passwords (the last a substitution's output glued on) and
stay redacted."""


def shell_plus(seed: int = 61) -> list[Case]:
    rng = random.Random(f"shell-plus-{seed}")
    return [(layout.format(v=(v := _draw(rng, 12))), (v,)) for layout in SHELL_PLUS[:2]]


# --- leak: a random-looking literal joined to a variable under a credential's name -----------------

RANDOM_JOINS_DEV = ('password = base + "{v}"', "const apiKey = prefix + '{v}';")
RANDOM_JOINS_VALIDATION = (
    "  secret: `${{env}}{v}`,",
    'String token = "{v}" + suffix;',
    "login(user, password=base+'{v}')",
    'db_password := host + "{v}"',
)
_RANDOM_ALPHABETS = {
    "dev": (_ALNUM, string.ascii_lowercase),
    "validation": (_ALNUM + "!#%*", string.ascii_uppercase + string.digits),
}


def random_joins(half: str, seed: int = 67) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in RANDOM_JOINS_DEV if half == "dev" else RANDOM_JOINS_VALIDATION:
        for alphabet in _RANDOM_ALPHABETS[half]:
            value = _draw(rng, rng.randint(12, 20), alphabet)
            if alphabet == string.ascii_lowercase:
                value = _draw(rng, 16, "bcdfghjklmnpqrstvwxz")  # letters a reader cannot say
            cases.append((layout.format(v=value), (value,)))
    return cases


JOIN_CONTROLS = (
    'password = prefix + "Suffix-9"',
    "const token = `${scheme}://${host}/v2`;",
    'echo "build " + version',
    "sum = a + `b`",
)
"""Joins with nothing random in them (a word and a digit, a URL template), and joins under no
credential's name: they stay as they are."""
