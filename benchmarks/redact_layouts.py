"""How many credentials a layout labels or delimits survive redaction, and how many ids do not.

Five classes a red team left (2026-12-06), written here afresh with varied layouts: a two-column
table's row naming a credential (Markdown, box-drawn, ASCII grid, aligned columns, a printed
``NAME  =  value`` table, a value wrapped over two rows), ``user:password`` as a word in prose, a
line entry's value of several words (YAML, nested YAML, a block scalar, an ``.env`` file), Stripe
object ids (must be kept) and keys (must be replaced) under any key, a memorable value under a
key-shaped name, and a labelled value restated in ROT13, ROT18, ROT47 or reversed ROT13. A case
is wrong when its secret survives (any eight consecutive characters; a phrase: any word of four
letters or more) or its id does not. Cases split into development and validation halves by a
sha256 of the case id. Deterministic (seeded); no value is printed.

Usage: ``.venv/bin/python benchmarks/redact_layouts.py``; the last stdout line is a JSON object:
wrong and total per class and half.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import random
import string

from trajectory_platform.curation.redact import redact_text

SALT = b"redact-layouts"
WORDS = [
    "amber",
    "river",
    "falcon",
    "tiger",
    "maple",
    "cobalt",
    "violet",
    "harbor",
    "canyon",
    "ember",
    "willow",
    "quartz",
    "lantern",
    "meadow",
    "orbit",
    "pepper",
    "ginger",
    "nimbus",
    "saffron",
    "thistle",
]
PASSWORD_LABELS = [
    *("password", "DB password", "db_password", "DB_PASS", "admin_pwd", "Root Password", "smtp_password"),
    *("passwd", "MYSQL_ROOT_PASSWORD", "Passphrase"),
]
SECRET_LABELS = [
    *("api_token", "secret_key", "Client Secret", "auth_token", "API key", "access_token", "SECRET_KEY"),
    *("webhook_secret", "private_token", "stripe_secret"),
]
NEUTRAL_ROWS = [
    ("user", "admin"),
    ("host", "db.internal"),
    ("port", "5432"),
    ("region", "eu-west-1"),
    ("database", "orders"),
]
HEADERS = [
    ("Setting", "Value"),
    ("Field", "Detail"),
    ("Name", "Value"),
    ("Item", "Current"),
    ("Parameter", "Setting"),
    None,
]
PAIR_USERS = ["admin", "root", "deploy", "ubuntu", "postgres", "jenkins", "svc_backup", "alice", "ops"]
PAIR_SENTENCES = [
    *("Log in with {u}:{p} on the staging box.", "The default creds are {u}:{p}", "Use {u}:{p} to sign in."),
    *(
        "SSH access ({u}:{p}) works now.",
        "I created the account `{u}:{p}` for you.",
        "login {u}:{p} failed, retrying",
    ),
    *(
        "Credentials: {u}:{p}",
        "basic auth is {u}:{p}, keep it private",
        "Try {u}:{p} against the admin panel.",
    ),
]
PHRASES = [
    *(
        "correct horse battery staple",
        "my dog ate 7 cookies",
        "purple monkey dishwasher 42",
        "blue moon over tokyo",
    ),
    *(
        "seven tired lions sleep",
        "never gonna give you up 1987",
        "the quick brown fox 9",
        "rainy sunday jazz club",
    ),
    *("orange cat on my keyboard", "four green bottles 88 falling"),
]
YAML_NAMES = [
    "password",
    "passphrase",
    "secret",
    "db_password",
    "admin_password",
    "smtp_pass",
    "key_passphrase",
]
ENV_NAMES = ["DB_PASSWORD", "SMTP_PASS", "ADMIN_PASSWORD", "APP_SECRET", "KEY_PASSPHRASE"]
STRIPE_KEYS = ["sk_live_", "sk_test_", "rk_live_", "rk_test_"]
STRIPE_IDS = [
    *("cus_", "pi_", "ch_", "in_", "sub_", "prod_", "price_", "evt_", "txn_", "re_", "pm_", "seti_", "acct_"),
    *("py_", "src_", "cs_test_", "po_"),
]
Case = tuple[str, str, str, str, bool]
"""Case id, class, text, the value, whether it must be replaced (False: an id that must stay)."""


def half(case_id: str) -> str:
    return "dev" if hashlib.sha256(case_id.encode()).digest()[0] % 2 == 0 else "val"


def memorable(draw: random.Random) -> str:
    word = draw.choice(WORDS)
    word = word.capitalize() if draw.random() < 0.5 else word
    return word + str(draw.randint(10, 9999)) + draw.choice(["", "!", "#", "-x", "@", "$"])


def random_token(draw: random.Random, length: int = 0) -> str:
    length = length or draw.randint(10, 18)
    alphabet = string.ascii_letters + string.digits
    while True:
        token = "".join(draw.choice(alphabet) for _ in range(length))
        if any(map(str.isdigit, token)) and any(map(str.isupper, token)):
            return token


def table(draw: random.Random, style: str, label: str, value: str) -> str:
    """A small settings table holding ``label``/``value`` among neutral rows, in ``style``."""
    rows = draw.sample(NEUTRAL_ROWS, 2)
    rows.insert(draw.randint(0, 2), (label, value))
    header = draw.choice(HEADERS)
    cells = rows + ([header] if header else [])
    width1, width2 = max(len(a) for a, _ in cells) + 2, max(len(b) for _, b in cells) + 2
    lines: list[str] = []
    if style == "markdown":
        lines += [f"| {header[0]} | {header[1]} |", "|---|---|"] if header else []
        lines += [f"| {a} | {b} |" for a, b in rows]
    elif style == "box":
        vertical, horizontal = draw.choice([("│", "─"), ("┃", "━"), ("║", "═")])
        lines.append("┌" + horizontal * width1 + "┬" + horizontal * width2 + "┐")
        if header:
            lines.append(
                f"{vertical} {header[0]:<{width1 - 1}}{vertical} {header[1]:<{width2 - 1}}{vertical}"
            )
            lines.append("├" + horizontal * width1 + "┼" + horizontal * width2 + "┤")
        lines += [f"{vertical} {a:<{width1 - 1}}{vertical} {b:<{width2 - 1}}{vertical}" for a, b in rows]
        lines.append("└" + horizontal * width1 + "┴" + horizontal * width2 + "┘")
    elif style == "ascii":
        rule = "+" + "-" * width1 + "+" + "-" * width2 + "+"
        lines.append(rule)
        lines += [f"| {header[0]:<{width1 - 1}}| {header[1]:<{width2 - 1}}|", rule] if header else []
        lines += [f"| {a:<{width1 - 1}}| {b:<{width2 - 1}}|" for a, b in rows]
        lines.append(rule)
    elif style == "aligned":
        named = [(a.replace(" ", "_"), b) for a, b in rows]
        width = max(len(a) for a, _ in named) + draw.randint(2, 6)
        if header:
            underline = [f"{'-' * (width - 2):<{width}}{'-' * 8}"] if draw.random() < 0.5 else []
            lines += [f"{header[0]:<{width}}{header[1]}", *underline]
        lines += [f"{a:<{width}}{b}" for a, b in named]
    else:  # a printed table of NAME  =  value lines
        named = [(a.replace(" ", "_").upper(), b) for a, b in rows]
        width = max(len(a) for a, _ in named) + 2
        lines.append("+" + "-" * (width + len(value) + 8) + "+")
        lines += [f"| {a:<{width}}=  {b:<{len(value) + 3}}|" for a, b in named]
        lines.append("+" + "-" * (width + len(value) + 8) + "+")
    return "\n".join(lines)


def wrapped(draw: random.Random, label: str, value: str) -> str:
    """A table that wrapped ``value`` onto the next row (aws CLI, box-drawn, an indented column)."""
    cut = draw.randint(4, len(value) - 4)
    head, tail = value[:cut], value[cut:]
    style = draw.choice(["aws", "box", "indent"])
    if style == "aws":
        rule = "+" + "-" * 16 + "+" + "-" * 31 + "+"
        return "\n".join(
            ["-" * 50, "|" + "GetSecretValue".center(48) + "|", rule, f"|  {'Name':<14}|  {'prod/app':<29}|"]
            + [f"|  {label:<14}|  {head:<29}|", f"|  {'':<14}|  {tail:<29}|", rule]
        )
    if style == "box":
        return "\n".join(
            [
                f"│ {'host':<14}│ {'db.internal':<14}│",
                f"│ {label:<14}│ {head:<14}│",
                f"│ {'':<14}│ {tail:<14}│",
            ]
        )
    return "\n".join(
        [f"  {'host':<16}db.internal", f"  {label.replace(' ', '_'):<16}{head}", f"  {'':<16}{tail}"]
    )


_PRINTABLE = "".join(map(chr, range(33, 127)))


def rotated(value: str, form: str) -> str:
    rot47 = value.translate(str.maketrans(_PRINTABLE, _PRINTABLE[47:] + _PRINTABLE[:47]))
    rot13 = codecs.encode(value, "rot13")
    rot18 = rot13.translate(str.maketrans(string.digits, string.digits[5:] + string.digits[:5]))
    return {"rot13": rot13, "rot47": rot47, "rot18": rot18, "rot13_reversed": rot13[::-1]}[form]


def cases() -> list[Case]:
    out: list[Case] = []
    for i in range(60):
        draw = random.Random(f"tab{i}")
        label = draw.choice(PASSWORD_LABELS + SECRET_LABELS)
        value = memorable(draw) if draw.random() < 0.6 else random_token(draw)
        style = ["markdown", "box", "ascii", "aligned", "equals"][i % 5]
        out.append((f"tab{i}", "table", table(draw, style, label, value), value, True))
    for i in range(30):
        draw = random.Random(f"wrap{i}")
        label = draw.choice(["SecretString", "password", "api_token", "client_secret", "db_password"])
        value = (
            random_token(draw, draw.randint(14, 24))
            if draw.random() < 0.6
            else memorable(draw) + random_token(draw, 6)
        )
        out.append((f"wrap{i}", "table", wrapped(draw, label, value), value, True))
    for i in range(40):
        draw = random.Random(f"pair{i}")
        user, password = (
            draw.choice(PAIR_USERS),
            memorable(draw) if draw.random() < 0.6 else random_token(draw),
        )
        out.append(
            (f"pair{i}", "pair", draw.choice(PAIR_SENTENCES).format(u=user, p=password), password, True)
        )
    for i in range(40):
        draw = random.Random(f"yaml{i}")
        name, phrase = draw.choice(YAML_NAMES), draw.choice(PHRASES)
        if i % 4 == 0:
            text = f"{name}: {phrase}"
        elif i % 4 == 1:
            text = f"database:\n  host: db.internal\n  {name}: {phrase}\n  port: 5432"
        elif i % 4 == 2:
            indicator = draw.choice(["|", "|-", ">", ">-", "|+"])
            phrase = phrase if draw.random() < 0.5 else memorable(draw)
            text = f"auth:\n  user: admin\n  {name}: {indicator}\n    {phrase}\n  port: 5432"
        else:
            text = f"# app settings\nDB_HOST=db.internal\n{draw.choice(ENV_NAMES)}={phrase}\nDB_PORT=5432"
        out.append((f"yaml{i}", "line_phrase", text, phrase, True))
    for i in range(40):
        draw = random.Random(f"stripe{i}")
        if i % 2 == 0:
            key = draw.choice(STRIPE_KEYS) + random_token(draw, 24)
            text = draw.choice(
                [
                    f'{{"id": "{key}", "object": "api_key"}}',
                    f"key_id: {key}",
                    f"Restricted key {key} was created",
                ]
                + [f'{{"secret": {{"id": "{key}"}}}}', f"object_id={key}", f'"description": "{key}"']
            )
            out.append((f"stripe{i}", "stripe_key", text, key, True))
        else:
            object_id = draw.choice(STRIPE_IDS) + random_token(draw, draw.randint(14, 24))
            text = draw.choice(
                [
                    f'{{"payment_intent": "{object_id}", "amount": 2000}}',
                    f'{{"latest_charge": "{object_id}"}}',
                ]
                + [
                    f"Refunded {object_id} for the customer.",
                    f"customer: {object_id}",
                    f'"source": "{object_id}"',
                ]
                + [f"stripe refunds create --charge={object_id}", f'{{"data": ["{object_id}"]}}']
            )
            out.append((f"stripe{i}", "stripe_id", text, object_id, False))
    for i in range(30):
        draw = random.Random(f"memo{i}")
        name = draw.choice(
            ["api_key", "auth_token", "secret_key", "access_token", "private_key", "client_secret"]
        )
        value = memorable(draw)
        text = draw.choice(
            [f"{name}: {value}", f"{name} = {value}", f'{{"{name}": "{value}"}}', f"{name}={value}"]
        )
        out.append((f"memo{i}", "memorable", text, value, True))
    for i in range(40):
        draw = random.Random(f"rot{i}")
        value = memorable(draw) if draw.random() < 0.5 else random_token(draw)
        restated = rotated(value, ["rot13", "rot47", "rot18", "rot13_reversed"][i % 4])
        out.append(
            (f"rot{i}", "rotation", f"DB_PASSWORD={value}\n$ python obfuscate.py\n{restated}", restated, True)
        )
    return out


def wrong(case: Case) -> bool:
    """Did redaction get ``case`` wrong: its secret survives, or its id does not?"""
    _, _, text, value, must_go = case
    out, _ = redact_text(text, SALT)
    if not must_go:
        return value not in out
    if " " in value:
        return any(word in out for word in value.split() if len(word) >= 4)
    return any(value[i : i + 8] in out for i in range(max(1, len(value) - 7)))


def main() -> None:
    result: dict[str, list[int]] = {}
    for case in cases():
        tally = result.setdefault(f"{case[1]}/{half(case[0])}", [0, 0])
        tally[0] += wrong(case)
        tally[1] += 1
    for key, (bad, total) in sorted(result.items()):
        print(f"{key:<24} wrong {bad:>3} of {total}")
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
