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


# --- leak: an od -t u1 row whose decimal codes all read as octal too --------------------------------

_OCTAL_LOOKING = "defghijknopqrstuxyz"
"""Lowercase letters whose decimal codes (100 to 122) hold no 8 or 9: a row of them reads as
``od -b``'s octal codes too."""


def od_decimal(data: bytes, per_row: int, offsets: str) -> str:
    """``od -t u1`` of ``data``, ``per_row`` bytes a row, offsets octal (``o``), decimal (``d``) or
    none (``""``, ``-An``)."""
    rows = []
    for at in range(0, len(data), per_row):
        codes = "".join(f"{byte:>4}" for byte in data[at : at + per_row])
        rows.append((f"{at:07o}" if offsets == "o" else f"{at:07d}" if offsets == "d" else "") + codes)
    if offsets:
        rows.append(f"{len(data):07o}" if offsets == "o" else f"{len(data):07d}")
    return "\n".join(rows) + "\n"


OD_KEYS = {
    "dev": (
        lambda g: "ghp_" + _draw(g, 36, _OCTAL_LOOKING),
        lambda g: "sk_live_" + _draw(g, 24, _OCTAL_LOOKING),
    ),
    "validation": (
        lambda g: "glpat-" + _draw(g, 20, _OCTAL_LOOKING),
        lambda g: "xoxp-" + _draw(g, 30, _OCTAL_LOOKING),
        lambda g: "AIza" + _draw(g, 35, _OCTAL_LOOKING),
    ),
}
OD_LAYOUTS = {
    "dev": (("the key {k} works\n", 8, "o"), ("{k}\n", 16, "")),
    "validation": (("deploy with {k}\n", 8, "d"), ("ok {k} saved\n", 16, "o"), ("[{k}]\n", 8, "")),
}


def od_octal_looking(half: str, seed: int = 71) -> list[Case]:
    """(dump, pieces): a vendor's key whose random part is letters of :data:`_OCTAL_LOOKING`, no
    label beside it, in a file dumped by ``od -t u1``: rows of it read as octal spelled it with
    ``@`` and capitals, which no vendor's pattern reads. A piece is looked for in the bytes the
    redacted dump's rows still show."""
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for draw in OD_KEYS[half]:
        for layout, per_row, offsets in OD_LAYOUTS[half]:
            key = draw(rng)
            middle = len(key) // 2
            dump = od_decimal(layout.format(k=key).encode(), per_row, offsets)
            cases.append((dump, (key[middle - 4 : middle + 4],)))
    return cases


def undumped(text: str) -> str:
    """The bytes every row of decimal codes left in ``text`` shows, joined (offsets dropped)."""
    codes = []
    for line in text.splitlines():
        fields = line[7:] if line[:7].isdigit() else line
        if fields.strip() and all(part.isdigit() and int(part) < 256 for part in fields.split()):
            codes.extend(int(part) for part in fields.split())
    return bytes(codes).decode("latin-1")


OD_CONTROLS = (
    od_decimal(b"hello world, this is a plain text file\n", 16, "o"),
    od_decimal(b"version = 2.14.1\nlog_level = info\n", 8, ""),
    " 150 145 154 154 157 040 167 157 162 154 144 012\n",
    "0000000 164 157 153 145 156 072 040 163 145 162 166 151 143 145 012\n0000017\n",
)
"""Text dumped by ``od -t u1`` with no key, and ``od -b`` rows (octal, ``040`` a space) that must
stay octal."""


# --- leak: a private address or a phone number spelled out ---------------------------------------


def _private_address(rng: random.Random) -> str:
    first = rng.choice(("10.{}.{}.{}", "192.168.{}.{}", "172.{}.{}.{}"))
    octets = [rng.randint(16, 31)] if first.startswith("172") else []
    octets += [rng.randint(0, 254) for _ in range(first.count("{}") - len(octets))]
    return first.format(*octets)


def _phone(rng: random.Random) -> str:
    area, exchange = (f"{rng.randint(2, 9)}{rng.randint(10, 99)}" for _ in range(2))
    return f"{area}-{exchange}-{rng.randint(0, 9999):04d}"


_NAMES = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")))


def _one_at_a_time(value: str, gap: str, group_gap: str, dot: str = ".") -> str:
    """Each digit apart by ``gap``; a group's separator (``-``) spelled ``group_gap``, a dot ``dot``."""
    groups = value.replace("-", " - ").replace(".", " . ").split()
    spelled = [gap.join(g) if g not in "-." else (group_gap.strip() if g == "-" else dot) for g in groups]
    out = spelled[0]
    for word in spelled[1:]:
        out += (group_gap if word == group_gap.strip() or out.endswith(group_gap.strip()) else gap) + word
    return out


def _named(value: str, dot: str = "dot", group: str = ",") -> str:
    words = []
    for char in value:
        if char.isdigit():
            words.append(_NAMES[int(char)])
        elif char == ".":
            words.append(dot)
        else:
            words[-1] += group
    return " ".join(words)


SPELLINGS = {
    "dev": (
        ("ip", lambda v: " ".join(v)),  # 1 9 2 . 1 6 8 . 0 . 1
        ("ip", lambda v: v.replace(".", "..")),  # 10..0..0..5
        ("phone", lambda v: " ".join(v).replace(" - ", " - ")),  # 5 5 5 - 1 2 3 - 4 5 6 7
        ("phone", lambda v: _named(v)),  # five five five, one two three, ...
    ),
    "validation": (
        ("ip", lambda v: v.replace(".", " . ")),  # 192 . 168 . 1 . 20
        ("ip", lambda v: v.replace(".", "[.]")),
        ("ip", lambda v: v.replace(".", " (dot) ")),
        ("ip", lambda v: _named(v)),
        ("ip", lambda v: "-".join(v).replace("-.-", " - . - ")),
        ("phone", lambda v: v.replace("-", " - ")),  # 555 - 123 - 4567
        ("phone", lambda v: "  ".join(" ".join(group) for group in v.split("-"))),  # groups two spaces apart
        ("phone", lambda v: _named(v, group=" -").replace("zero", "oh")),
        ("phone", lambda v: "+ 1 " + " ".join(v)),
    ),
}
SPELLED_CARRIERS = {
    "dev": ("the database is at {s} now", "Call me at {s} tomorrow."),
    "validation": ("ssh into {s} with the deploy key", "contact: {s}", "| backup host | {s} |"),
}


def spelled_addresses(half: str, seed: int = 73) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for kind, spell in SPELLINGS[half]:
        for carrier in SPELLED_CARRIERS[half]:
            value = _private_address(rng) if kind == "ip" else _phone(rng)
            spelled = spell(value)
            cases.append((carrier.format(s=spelled), (spelled,)))
    return cases


SPELLED_CONTROLS = (
    "[10.  0.  0.  5.]",
    "array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1])",
    "root         1  0.0  0.1 169316 13112 ?        Ss   09:12   0:03 /sbin/init",
    "version 1 . 2 . 3 . 4 and 8..8..8..8",
    "1 2 3 4 5 6 7 8 9 10",
    "See Figure 1. 2. 3. below.",
    "one two three four five six seven eight nine ten",
    "released 2024 - 05 - 01",
    "5 3 0 0 7 0 0 0 0\n6 0 0 1 9 5 0 0 0\n0 9 8 0 0 0 0 6 0",
    "scores 10 . 5 and 3 . 2",
    "test net 192 . 0 . 2 . 1",
)
"""Numbers in lists, tables, arrays, process listings, versions and prose, and public addresses
spelled out: none is a private address or a phone number."""


# --- leak: a plain password cut into a shell printf's arguments ------------------------------------

PRINTF_DEV = ("DB_PASSWORD=$(printf '%s%s' {a} {b})", "printf -v ADMIN_PASSWORD '%s%s%s' {a} {b} {c}")
PRINTF_VALIDATION = (
    "export SMTP_PASS=\"$(printf \"%s%s\" '{a}' '{b}')\"",
    "PGPASSWORD=`printf '%s%s%s' {a} {b} {c}` psql -h db -U app",
    'printf -v db_passwd \'%s%s\' "{a}" "{b}"',
    "printf '%s%s' {a} {b} > ~/.vault_pass",
    "printf 'password=%s%s\\n' {a} {b} >> .env",
)
_WORDS = ("hunter", "summer", "maple", "river", "horse", "blue", "castle", "orange", "42", "2024", "tiger")


def printf_passwords(half: str, seed: int = 79) -> list[Case]:
    """(line, (the password glued,)): words a person chose, none random; looked for in the redacted
    line with its quotes and spaces dropped."""
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in PRINTF_DEV if half == "dev" else PRINTF_VALIDATION:
        for _ in range(2):
            a, b, c = rng.sample(_WORDS, 3)
            text = layout.format(a=a, b=b, c=c)
            cases.append((text, (a + b + (c if "{c}" in layout else ""),)))
    return cases


PRINTF_PASSWORD_CONTROLS = (
    'NAME=$(printf \'%s%s\' "$first" "$last")',
    "printf -v today '%s%s' 2024 05",
    "OUT=$(printf '%s%s\\n' a b c d)",
)
"""A substitution of variables, a printf into a variable that names no credential, a format used
again per pair of arguments."""


# --- leak: a key cut into numbered fields -----------------------------------------------------------

SPLIT_KEYS = {
    "dev": (
        lambda g: "ghp_" + _draw(g, 36),
        lambda g: "AKIA" + _draw(g, 16, string.ascii_uppercase + "234567"),
    ),
    "validation": (
        lambda g: "sk_live_" + _draw(g, 24),
        lambda g: "glpat-" + _draw(g, 20),
        lambda g: "xoxb-" + _draw(g, 10, string.digits) + "-" + _draw(g, 24),
    ),
}


def _cut(rng: random.Random, key: str) -> list[str]:
    """``key`` in 3 to 5 pieces of 4 characters or more."""
    count = rng.randint(3, 5)
    cuts = sorted(rng.sample(range(4, len(key) - 3), count - 1))
    while any(b - a < 4 for a, b in zip([0, *cuts], [*cuts, len(key)], strict=True)):
        cuts = sorted(rng.sample(range(4, len(key) - 3), count - 1))
    return [key[a:b] for a, b in zip([0, *cuts], [*cuts, len(key)], strict=True)]


def _json_fields(pieces: list[str]) -> str:
    return "{" + ", ".join(f'"key_part{n}": "{p}"' for n, p in enumerate(pieces, 1)) + "}"


def _log_lines(pieces: list[str]) -> str:
    return "\n".join(f"token_{n}={p}" for n, p in enumerate(pieces, 1))


def _xml_attributes(pieces: list[str]) -> str:
    return "<credential " + " ".join(f'part{n}="{p}"' for n, p in enumerate(pieces, 1)) + "/>"


def _yaml_chunks(pieces: list[str]) -> str:
    return "\n".join(f"  secret_chunk_{n}: '{p}'" for n, p in enumerate(pieces, 0))


def _stamped_lines(pieces: list[str]) -> str:
    return "\n".join(f"2024-05-01 12:00:0{n} DEBUG API_KEY_{n}={p}" for n, p in enumerate(pieces, 1))


SPLIT_LAYOUTS = {
    "dev": (_json_fields, _log_lines),
    "validation": (_xml_attributes, _yaml_chunks, _stamped_lines),
}


def split_fields(half: str, seed: int = 89) -> list[Case]:
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in SPLIT_LAYOUTS[half]:
        for draw in SPLIT_KEYS[half]:
            pieces = _cut(rng, draw(rng))
            cases.append((layout(pieces), tuple(piece for piece in pieces[1:])))
    return cases


SPLIT_CONTROLS = (
    '{"address_line1": "221B Baker Street", "address_line2": "Flat 4"}',
    "step_1=checkout\nstep_2=build\nstep_3=test",
    '{"color1": "#ff0000", "color2": "#00ff00", "color3": "#0000ff"}',
    '<row cell1="alpha" cell2="beta" cell3="gamma"/>',
    '{"sha_part1": "9f86d081884c7d65", "sha_part2": "9a2feaa0c55ad015", "sha_part3": "a3bf4f1b2b0b822c"}',
    "  tag_1: prod\n  tag_2: eu-west-1\n  tag_3: web",
)
"""Numbered fields that are no key's pieces: lines of an address, steps, colours, cells, a digest's
parts (a digest's name joins nothing), tags."""
