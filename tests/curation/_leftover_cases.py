"""Generators of the redaction leftovers of session 44's brief (fresh values, carriers and
spellings; not the red team's): each class has a development half, the only one the rules were
developed against, and a validation half of carriers and spellings the first never holds. A case
is ``(text, secret pieces)``: the text leaks when any piece survives. Controls are texts that must
come out unchanged."""

from __future__ import annotations

import random
from collections.abc import Callable

Case = tuple[str, tuple[str, ...]]


def _password(rng: random.Random, length: int = 12) -> str:
    """A generated password of letters and digits (the carriers add the punctuation under test)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if any(map(str.isdigit, value)) and any(map(str.isupper, value)) and any(map(str.islower, value)):
            return value


# --- class 2: a value spelled in several quoting pieces of one shell word -------------------------

SPLICES_DEV: dict[str, Callable[[str, str, str], str]] = {
    "single_double_bare": lambda a, b, c: f"'{a}'\"{b}\"{c}",
    "double_single": lambda a, b, c: f"\"{a}\"'{b}{c}'",
    "ansi_c_hex": lambda a, b, c: f"$'{a}\\x21{b}{c}'",
    "bare_escape": lambda a, b, c: f"{a}\\!{b}\\#{c}",
}
SPLICES_VALIDATION: dict[str, Callable[[str, str, str], str]] = {
    "bare_single_double": lambda a, b, c: f"{a}'{b}'\"{c}\"",
    "ansi_c_octal": lambda a, b, c: f"$'{a}\\041{b}'{c}",
    "single_ansi_c": lambda a, b, c: f"'{a}'$'{b}\\x2a{c}'",
    "double_escaped_bare": lambda a, b, c: f'"{a}\\"{b}"\\&{c}',
}
"""How a shell word spells one value in pieces: the value's characters are ``a``, ``b`` and ``c``
with what the spelling puts between them."""
CARRIERS_DEV = (
    "openssl enc -aes-256-cbc -salt -k {v} -in backup.tar -out backup.enc",
    "sshpass -p {v} ssh deploy@app-3 uptime",
    "mysql -h db -u root -p{v} inventory < dump.sql",
    "zip -P {v} -r site.zip site/",
    "docker login --username ci --password {v} registry.example.com",
    "redis-cli -h cache -a {v} ping",
)
CARRIERS_VALIDATION = (
    "openssl enc -d -aes256 -pass pass:{v} -in secrets.enc",
    "sqlcmd -S sql01 -U sa -P {v} -Q 'SELECT 1'",
    "unzip -P {v} archive.zip",
    "htpasswd -b -c /etc/nginx/.htpasswd admin {v}",
    "7z x -p{v} vault.7z",
    "curl -u ops:{v} https://ci.example.com/api/json",
)


def spliced_words(half: str, seed: int = 7) -> list[Case]:
    """Every carrier of the half with a password spelled in every spelling of the half."""
    carriers, splices = (
        (CARRIERS_DEV, SPLICES_DEV) if half == "dev" else (CARRIERS_VALIDATION, SPLICES_VALIDATION)
    )
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for carrier in carriers:
        for spell in splices.values():
            a, b, c = _password(rng, 5), _password(rng, 5), _password(rng, 5)
            cases.append((carrier.format(v=spell(a, b, c)), (a, b, c)))
    return cases


SPLICED_CONTROLS = (
    "python -c 'print(\"ok\")' && echo \"done\"'!'",
    "echo 'it'\\''s done' && make release",
    "git commit -m 'fix: don'\"'\"'t log the body'",
    "printf '%s\\n' \"$HOME\"'/bin' >> paths.txt",
    "jq -r '.items[]'\".name\" data.json",
    "sed -i 's/a/b/'\"g\" file.txt",
    "x = b'abc' + f\"{y}\" + r'\\d+'",
    '{"name":"web","image":"nginx:1.25"}',
    "echo $'line one\\nline two'",
    "grep -E 'v[0-9]+'\"\\.\"'[0-9]+' CHANGELOG.md",
)


# --- class 1: a connection string's password cut at a character its format allows ----------------

CONNECTION_DEV = (
    "Server=sql01;Database=orders;User Id=app;Password={v};",
    "Driver={{ODBC Driver 18 for SQL Server}};Server=sql01;Uid=app;Pwd={v};Encrypt=yes",
    "host=db.internal port=5432 dbname=orders user=app password={v} sslmode=require",
    "jdbc:sqlserver://sql01:1433;databaseName=orders;user=app;password={v};encrypt=true",
)
CONNECTION_VALIDATION = (
    'var cs = "Data Source=sql02;Initial Catalog=billing;User ID=svc;Password={v}";',
    '  "DefaultConnection": "Server=sql02;Uid=svc;Pwd={v};TrustServerCertificate=True"',
    'psql "host=pg-2 user=svc password={v} dbname=billing"',
    "Provider=SQLOLEDB;Data Source=sql02;User ID=svc;Password={v};Persist Security Info=False",
    "PGCONN='hostaddr=10.1.2.3 port=6432 user=svc password={v} dbname=billing'",
)
VALUE_SHAPES_DEV = ("{a},{b}\\{c}", "{a},{b}{c}", "{a}\\{b}{c}")
VALUE_SHAPES_VALIDATION = ("{a}\\,{b}{c}", "{a}={b},{c}", "{a},{b}\\\\{c}", "{a},{b}/{c}")


def connection_strings(half: str, seed: int = 11) -> list[Case]:
    """Every connection string format of the half with a password of every shape of the half."""
    formats, shapes = (
        (CONNECTION_DEV, VALUE_SHAPES_DEV)
        if half == "dev"
        else (CONNECTION_VALIDATION, VALUE_SHAPES_VALIDATION)
    )
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in formats:
        for shape in shapes:
            a, b, c = _password(rng, 5), _password(rng, 5), _password(rng, 5)
            cases.append((layout.format(v=shape.format(a=a, b=b, c=c)), (a, b, c)))
    return cases


CONNECTION_CONTROLS = (
    "Server=sql01;Database=orders;Integrated Security=SSPI;",
    "Server=sql01;Database=orders;User Id=app;Password=${DB_PASSWORD};",
    "Driver={ODBC Driver 18 for SQL Server};Server=sql01;Uid=app;Pwd={your_password};",
    "host=db port=5432 dbname=orders user=app password=<password> sslmode=require",
    "Server=sql01;Uid=app;Pwd=%s;Database=%s",
    "host=db port=5432 user=app passfile=/home/app/.pgpass dbname=orders",
    'conn = f"host={host} user={user} password={password} dbname={db}"',
    "Server=sql01;Database=orders;User Id=app;Password=changeme;",
)


# --- class 1: a configuration value holding a quote --------------------------------------------

CONFIG_DEV = (
    "[database]\nhost = db01\npassword = {v}\nport = 5432\n",
    "env:\n  - name: DB_PASSWORD\n    value: {q}\n",
    "spring.datasource.password={v}\n",
)
CONFIG_VALIDATION = (
    "[smtp]\nuser = mailer\nsmtp_pass = {v}\n",
    "containers:\n- env:\n  - name: API_TOKEN\n    value: {q}\n",
    "env: [{{name: REDIS_PASSWORD, value: {q}}}]\n",
    "mail.password : {v}\n",
)
QUOTE_SHAPES_DEV = ('{a}"{b}{c}', '{a}"{b}"{c}')
QUOTE_SHAPES_VALIDATION = ("{a}'{b}{c}", "{a}\"{b}'{c}")


def _yaml_double_quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quoted_config_values(half: str, seed: int = 13) -> list[Case]:
    """Each configuration layout of the half with a value of each quote shape of the half; ``{q}``
    is the value as YAML double-quotes it (an escaped ``\\"``)."""
    layouts, shapes = (
        (CONFIG_DEV, QUOTE_SHAPES_DEV) if half == "dev" else (CONFIG_VALIDATION, QUOTE_SHAPES_VALIDATION)
    )
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for layout in layouts:
        for shape in shapes:
            a, b, c = _password(rng, 5), _password(rng, 5), _password(rng, 5)
            value = shape.format(a=a, b=b, c=c)
            cases.append((layout.format(v=value, q=_yaml_double_quoted(value)), (a, b, c)))
    return cases


CONFIG_CONTROLS = (
    '[database]\nhost = db01\npassword = os.environ["DB_PASSWORD"]\n',
    'password = get_secret("db")\n',
    'env:\n  - name: DB_HOST\n    value: "db01.example.com"\n',
    'env:\n  - name: DB_PASSWORD\n    value: "${DB_PASSWORD}"\n',
    'title = The "quoted" word\n',
)


# --- class 5: personal data in an unusual spelling ---------------------------------------------

EMAIL_SPELLINGS_DEV = (
    ("(at)", "(dot)"),
    ("[at]", "[.]"),
    (" (at) ", " (dot) "),
)
EMAIL_SPELLINGS_VALIDATION = (
    ("{at}", "{dot}"),
    (" [AT] ", " [DOT] "),
    ("<at>", "."),
    (" AT ", " DOT "),
    ("(@)", "(.)"),
)
EMAIL_SENTENCES_DEV = ("Contact {e} for access.", "reporter: {e}\n")
EMAIL_SENTENCES_VALIDATION = ("Escalate to {e} if the job fails", "# maintainer {e}\n")
_FIRST = ("jana", "omar", "li.wei", "k.novak", "priya_s", "tom.h")
_DOMAINS = (("acme-robotics", "com"), ("corp", "example", "org"), ("northwind", "io"))


def obfuscated_emails(half: str, seed: int = 17) -> list[Case]:
    """An address written with its ``@`` and dots spelled out, in each spelling of the half."""
    spellings, sentences = (
        (EMAIL_SPELLINGS_DEV, EMAIL_SENTENCES_DEV)
        if half == "dev"
        else (EMAIL_SPELLINGS_VALIDATION, EMAIL_SENTENCES_VALIDATION)
    )
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for at, dot in spellings:
        for sentence in sentences:
            user = rng.choice(_FIRST) + str(rng.randint(2, 99))
            domain = rng.choice(_DOMAINS)
            cases.append((sentence.format(e=user + at + dot.join(domain)), (user,)))
    return cases


PRIVATE_IPS_DEV = ("010.000.000.001", "192.168.001.010", "::ffff:a00:1", "::ffff:c0a8:10a")
PRIVATE_IPS_VALIDATION = (
    "172.016.005.004",
    "010.020.030.040",
    "::FFFF:AC10:0A0B",
    "0:0:0:0:0:ffff:c0a8:0101",
)
IP_SENTENCES = ("connecting to {ip} port 22", "peer={ip} state=ESTABLISHED")


def unusual_private_ips(half: str) -> list[Case]:
    """A private address in an unusual spelling (zero-padded octets, IPv4-mapped IPv6 in hex)."""
    ips = PRIVATE_IPS_DEV if half == "dev" else PRIVATE_IPS_VALIDATION
    return [(sentence.format(ip=ip), (ip,)) for ip in ips for sentence in IP_SENTENCES]


PII_CONTROLS = (
    "Meet me at the office at noon.",
    "release 010.002.003 is out",
    "Windows 10.0.19041.1 build",
    "resolver 192.000.002.001 (TEST-NET-1)",
    "peer ::ffff:808:808 closed",
    "peer ::ffff:8.8.8.8 closed",
    "see docs (at) the wiki (dot) section",
    "x = a @ b.T  # matrix product",
    "version 2010.001.002.003",
)


# --- class 5: a secret GitHub Actions' debug log prints -----------------------------------------


def _actions_evaluation(expression: str, value: str, prefix: str, nested: tuple[str, ...]) -> str:
    lines = [f"Evaluating: {expression}", *nested, f"=> '{value}'", f"Result: '{value}'"]
    return "".join(f"{prefix}##[debug]{line}\n" for line in lines)


ACTIONS_DEV = (
    ("secrets.NPM_TOKEN", "", ("Evaluating Index:", "..Evaluating secrets:", "..=> Object")),
    ("secrets.DEPLOY_KEY", "", ()),
)
ACTIONS_VALIDATION = (
    ("env.REGISTRY_PASSWORD", "2024-05-02T08:14:03.5512345Z ", ("Evaluating Index:", "..=> Object")),
    ("format('Bearer {0}', secrets.API_TOKEN)", "2024-05-02T08:14:03.5512345Z ", ("Evaluating format:",)),
    ("inputs.api_key", "", ()),
)


def actions_debug_results(half: str, seed: int = 19) -> list[Case]:
    """A step's debug evaluation of an expression naming a secret, unmasked."""
    layouts = ACTIONS_DEV if half == "dev" else ACTIONS_VALIDATION
    rng = random.Random(f"{half}-{seed}")
    cases = []
    for expression, prefix, nested in layouts:
        value = _password(rng, 12)
        cases.append((_actions_evaluation(expression, value, prefix, nested), (value,)))
    return cases


ACTIONS_CONTROLS = (
    _actions_evaluation("github.ref", "refs/heads/release-2024.05", "", ()),
    _actions_evaluation("secrets.NPM_TOKEN", "***", "", ("Evaluating Index:",)),
    _actions_evaluation("steps.build.outputs.artifact", "dist-linux-x64.tar.gz", "", ()),
    "##[debug]Evaluating condition for step: 'Publish'\n##[debug]Evaluating: success()\n"
    "##[debug]Evaluating success:\n##[debug]=> true\n##[debug]Result: true\n",
    'echo "::add-mask::$DEPLOY_TOKEN"',
)


# --- class 6: identifiers made of words, digits and underscores ----------------------------------

_WORDS = (
    "initial", "schedule", "invoice", "customer", "backfill", "orders", "refund", "partial",
    "status", "column", "index", "payment", "shipping", "address", "tenant", "quota",
)  # fmt: skip


def word_identifiers(half: str, seed: int = 23) -> list[str]:
    """Identifiers that must stay: migration names (dev: ``001_initial_schedule``,
    ``test_042_refund_partial``) and job, snapshot and Flyway names (validation)."""
    rng = random.Random(f"{half}-{seed}")
    out = []
    for _ in range(12):
        a, b, c = rng.sample(_WORDS, 3)
        number = rng.randint(1, 999)
        if half == "dev":
            shapes = (f"{number:03d}_{a}_{b}", f"test_{number:03d}_{a}_{b}_{c}", f"{number:04d}_add_{a}_{b}")
        else:
            shapes = (
                f"{a}_sync_v{number % 9 + 1}_{b}_{2020 + number % 6}q{number % 4 + 1}",
                f"snapshot_{20240101 + number}_{number:04d}_{a}",
                f"V{number}__create_{a}_{b}_table",
            )
        out.append(rng.choice(shapes))
    return out


IDENTIFIER_SENTENCES = ("running {i}", "Applying migration {i} ... done", "job {i} finished in 3s")
UNDERSCORED_SECRETS = (
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "api_token_" + "Zq7Rm2pLx9wKt4vB8nQ1zYc6",
    "prod_orders_" + "aZ3kQ9xLm2PvB7nXw4RtY8u",
)
"""Controls the other way: a random key joined to words by underscores is still a key."""


# --- class 4: a query string (honest) and an OAuth redirect's grant (secret) --------------------

QUERY_STRINGS_DEV = (
    "open ?Sort=Desc&Page={n}&Filter=Active#Top{n}",
    "see ?q=Select*From&Limit={n}&Offset=20 there",
)
QUERY_STRINGS_VALIDATION = (
    "GET search?Query=Red+Shoes&Size={n}&Page=2&Sort=Price!Desc",
    "link ?utm_source=Newsletter&utm_medium=Email&utm_campaign=Spring{n}!",
    "filter ?filter[status]=Active&Page={n}&Order=Name~Asc",
)


def query_strings(half: str) -> list[str]:
    """Bare query strings (no path before the ``?``) that must stay."""
    layouts = QUERY_STRINGS_DEV if half == "dev" else QUERY_STRINGS_VALIDATION
    return [layout.format(n=n) for layout in layouts for n in (2, 37, 2024)]


OAUTH_DEV = (
    "Redirected to https://app.example.com/callback?code={v}&state=af0ifjsldkj",
    "https://app.example.com/cb#access_token={v}&token_type=Bearer&expires_in=3600",
)
OAUTH_VALIDATION = (
    "Location: https://portal.example.org/signin-oidc#id_token={v}&session_state=2f1e",
    "GET /oauth/callback?state=xyz&code={v} HTTP/1.1",
    "https://app.example.net/auth/done?oauth_verifier={v}&oauth_token=hh5s93j4hdidpola",
)


def oauth_redirects(half: str, seed: int = 29) -> list[Case]:
    """A redirect URL carrying an authorization code or a token in its query or fragment."""
    rng = random.Random(f"{half}-{seed}")
    layouts = OAUTH_DEV if half == "dev" else OAUTH_VALIDATION
    cases = []
    for layout in layouts:
        value = _password(rng, 14)
        cases.append((layout.format(v=value), (value,)))
    return cases


OAUTH_CONTROLS = (
    "https://shop.example.com/products?code=SUMMER2024SALE",
    "https://status.example.com/check?code=200&region=eu",
    "GET /api/countries?code=US&lang=en HTTP/1.1",
)
"""A ``code`` parameter outside a redirect: a promotion, a status, a country."""
