"""Source templates of the repository families (small Python packages with tests and data files).

Each family is a reference tree (correct code) plus *bugs*: exact text substitutions that break one
function or one configuration value. ``__NAME__`` placeholders are filled per variant from
``params`` so the same family yields several distinct S0 snapshots. Test *cases* are expressions;
their expected values are computed by running the reference code at generation time, never typed
by hand, so a template edit cannot desynchronize code and tests.

``corelib`` is the shared internal helper library: families that import it list it in
``depends_on`` so curation's split assignment can keep dependency closures together.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Bug:
    """A text substitution turning the reference into a broken S0 (``old`` -> ``new`` in ``path``).

    ``symbol`` is the function or setting it breaks (what a diagnostic report must name);
    ``domain`` is ``bug_repair`` for code and ``config_fix`` for data/configuration files.
    """

    path: str
    old: str
    new: str
    symbol: str
    domain: str = "bug_repair"
    requirement: str = ""


@dataclass(frozen=True)
class Family:
    name: str
    package: str
    license: str
    files: dict[str, str]
    bugs: tuple[Bug, ...]
    suites: dict[str, tuple[str, tuple[tuple[str, str], ...]]]
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    extra_tests: dict[str, str] = field(default_factory=dict)
    flaky: bool = False
    secret_file: str | None = None
    forked_from: str | None = None
    description: str = ""


CORELIB_FILES = {
    "corelib/__init__.py": '"""Internal helper library shared by several product repositories."""\n',
    "corelib/numbers.py": (
        '"""Numeric helpers used across services."""\n\n\n'
        "def clamp(value, low, high):\n"
        "    return max(low, min(high, value))\n\n\n"
        "def round_money(value):\n"
        "    return round(value + 0.0, 2)\n\n\n"
        "def percent(part, whole):\n"
        "    if whole == 0:\n"
        "        return 0.0\n"
        "    return round(100.0 * part / whole, 1)\n"
    ),
    "corelib/text.py": (
        '"""Text helpers used across services."""\n\n\n'
        "def normalize_key(key):\n"
        '    return key.strip().lower().replace(" ", "_")\n\n\n'
        "def split_csv(line):\n"
        '    return [part.strip() for part in line.split(",") if part.strip()]\n'
    ),
}

INVENTORY = Family(
    name="inventory",
    package="inventory",
    license="MIT",
    depends_on=("corelib",),
    description="stock levels, pricing and warehouse configuration",
    params={"TAX": ("0.07", "0.2", "0.125"), "LIMIT": ("40", "25", "60"), "CAP": ("500", "800", "1200")},
    files={
        "README.md": "# inventory\n\nStock levels, pricing and warehouse configuration.\n",
        "inventory/__init__.py": '"""Inventory service."""\n',
        "inventory/pricing.py": (
            "from corelib.numbers import clamp, round_money\n\n"
            "TAX_RATE = __TAX__\n\n\n"
            "def subtotal(items):\n"
            '    """Sum of quantity * unit price over (quantity, price) pairs."""\n'
            "    return round_money(sum(qty * price for qty, price in items))\n\n\n"
            "def apply_discount(amount, percent):\n"
            "    percent = clamp(percent, 0, 100)\n"
            "    return round_money(amount * (1 - percent / 100))\n\n\n"
            "def with_tax(amount):\n"
            "    return round_money(amount * (1 + TAX_RATE))\n"
        ),
        "inventory/stock.py": (
            "def restock_needed(level, threshold):\n"
            "    return level <= threshold\n\n\n"
            "def reserve(stock, qty):\n"
            "    if qty > stock:\n"
            '        raise ValueError("insufficient stock")\n'
            "    return stock - qty\n\n\n"
            "def merge_counts(first, second):\n"
            "    merged = dict(first)\n"
            "    for sku, count in second.items():\n"
            "        merged[sku] = merged.get(sku, 0) + count\n"
            "    return merged\n"
        ),
        "inventory/config.py": (
            "import json\n"
            "from pathlib import Path\n\n"
            'CONFIG = Path(__file__).parent / "data" / "warehouses.json"\n\n\n'
            "def load():\n"
            '    return json.loads(CONFIG.read_text(encoding="utf-8"))\n\n\n'
            "def reorder_limit():\n"
            '    value = load()["reorder_limit"]\n'
            "    if not 1 <= value <= 500:\n"
            '        raise ValueError("reorder_limit out of range")\n'
            "    return value\n\n\n"
            "def capacity(name):\n"
            '    return load()["warehouses"][name]["capacity"]\n'
        ),
        "inventory/data/warehouses.json": (
            '{\n  "reorder_limit": __LIMIT__,\n  "warehouses": {\n'
            '    "north": {"capacity": __CAP__},\n    "south": {"capacity": 300}\n  }\n}\n'
        ),
    },
    bugs=(
        Bug("inventory/pricing.py", "sum(qty * price for", "sum(qty + price for", "subtotal"),
        Bug("inventory/pricing.py", "(1 - percent / 100)", "(1 - percent / 10)", "apply_discount"),
        Bug("inventory/pricing.py", "(1 + TAX_RATE)", "(1 - TAX_RATE)", "with_tax"),
        Bug("inventory/stock.py", "level <= threshold", "level < threshold", "restock_needed"),
        Bug("inventory/stock.py", "if qty > stock:", "if qty >= stock:", "reserve"),
        Bug("inventory/stock.py", "merged.get(sku, 0) + count", "count", "merge_counts"),
        Bug(
            "inventory/data/warehouses.json",
            '"reorder_limit": __LIMIT__',
            '"reorder_limit": 0',
            "reorder_limit",
            "config_fix",
            "the reorder limit must be __LIMIT__",
        ),
        Bug(
            "inventory/data/warehouses.json",
            '"north": {"capacity": __CAP__}',
            '"north": {"capacity": "__CAP__"}',
            "capacity",
            "config_fix",
            "warehouse capacities must be JSON numbers",
        ),
    ),
    suites={
        "tests/test_pricing.py": (
            "from inventory.pricing import apply_discount, subtotal, with_tax",
            (
                ("subtotal_pairs", "subtotal([(2, 3.5), (3, 1.25)])"),
                ("subtotal_empty", "subtotal([])"),
                ("apply_discount_quarter", "apply_discount(80.0, 25)"),
                ("apply_discount_clamped", "apply_discount(50.0, 150)"),
                ("with_tax_round", "with_tax(19.99)"),
            ),
        ),
        "tests/test_stock.py": (
            "from inventory.stock import merge_counts, reserve, restock_needed",
            (
                ("restock_needed_at_threshold", "restock_needed(5, 5)"),
                ("restock_needed_above", "restock_needed(9, 5)"),
                ("reserve_exact", "reserve(5, 5)"),
                ("reserve_too_many", "reserve(5, 6)"),
                ("merge_counts_overlap", "merge_counts({'a': 1, 'b': 2}, {'b': 3, 'c': 4})"),
            ),
        ),
        "tests/test_config.py": (
            "from inventory.config import capacity, reorder_limit",
            (
                ("reorder_limit_value", "reorder_limit()"),
                ("capacity_total", "capacity('north') + capacity('south')"),
            ),
        ),
    },
)

TEXTKIT = Family(
    name="textkit",
    package="textkit",
    license="Apache-2.0",
    description="slugs, wrapping and word statistics",
    params={"SEP": ("-", "_", "."), "WIDTH": ("12", "16", "20")},
    files={
        "README.md": "# textkit\n\nSlugs, wrapping and word statistics.\n",
        "textkit/__init__.py": '"""Text utilities."""\n',
        "textkit/slug.py": (
            'SEPARATOR = "__SEP__"\n\n\n'
            "def slugify(title):\n"
            "    words = [w for w in title.lower().split() if w.isalnum()]\n"
            "    return SEPARATOR.join(words)\n\n\n"
            "def truncate_words(text, limit):\n"
            "    words = text.split()\n"
            "    if len(words) <= limit:\n"
            "        return text\n"
            '    return " ".join(words[:limit]) + " ..."\n'
        ),
        "textkit/counts.py": (
            "from pathlib import Path\n\n"
            'STOPWORDS = set(Path(__file__).with_name("stopwords.txt").read_text(encoding="utf-8")'
            ".split())\n\n\n"
            "def word_count(text):\n"
            "    return len(text.split())\n\n\n"
            "def top_words(text, n):\n"
            "    counts = {}\n"
            "    for word in text.lower().split():\n"
            "        if word not in STOPWORDS:\n"
            "            counts[word] = counts.get(word, 0) + 1\n"
            "    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))\n"
            "    return [word for word, _ in ranked[:n]]\n"
        ),
        "textkit/wrap.py": (
            "WIDTH = __WIDTH__\n\n\n"
            "def wrap(text, width=WIDTH):\n"
            "    lines, current = [], []\n"
            "    for word in text.split():\n"
            '        if current and len(" ".join(current + [word])) > width:\n'
            '            lines.append(" ".join(current))\n'
            "            current = []\n"
            "        current.append(word)\n"
            "    if current:\n"
            '        lines.append(" ".join(current))\n'
            "    return lines\n\n\n"
            "def indent(lines, prefix):\n"
            "    return [prefix + line for line in lines]\n"
        ),
        "textkit/stopwords.txt": "a\nan\nthe\nof\nand\nto\n",
    },
    bugs=(
        Bug("textkit/slug.py", "title.lower().split()", "title.split()", "slugify"),
        Bug("textkit/slug.py", "if len(words) <= limit:", "if len(words) < limit:", "truncate_words"),
        Bug("textkit/counts.py", "return len(text.split())", 'return len(text.split(" "))', "word_count"),
        Bug("textkit/counts.py", "(-item[1], item[0])", "(item[1], item[0])", "top_words"),
        Bug("textkit/wrap.py", ") > width:", ") >= width:", "wrap"),
        Bug("textkit/wrap.py", "[prefix + line for", "[line + prefix for", "indent"),
        Bug(
            "textkit/stopwords.txt",
            "a\nan\nthe\nof\n",
            "a\nan\nof\n",
            "stopwords",
            "config_fix",
            "'the' must be listed as a stopword",
        ),
    ),
    suites={
        "tests/test_slug.py": (
            "from textkit.slug import slugify, truncate_words",
            (
                ("slugify_title", "slugify('Hello Big World')"),
                ("slugify_drops_symbols", "slugify('Fast & Safe Tools')"),
                ("truncate_words_exact", "truncate_words('one two three', 3)"),
                ("truncate_words_long", "truncate_words('one two three four', 2)"),
            ),
        ),
        "tests/test_counts.py": (
            "from textkit.counts import top_words, word_count",
            (
                ("word_count_spaces", "word_count('alpha  beta\\tgamma')"),
                ("top_words_ranked", "top_words('the cat and the dog saw the cat', 2)"),
                ("top_words_stopwords", "top_words('the the the owl', 1)"),
            ),
        ),
        "tests/test_wrap.py": (
            "from textkit.wrap import indent, wrap",
            (
                ("wrap_fits_width", "wrap('aaaa bbbb cccc', 9)"),
                ("wrap_default", "wrap('one two three four five six seven')"),
                ("indent_prefix", "indent(['x', 'y'], '> ')"),
            ),
        ),
    },
)

GEOMETRY = Family(
    name="geometry",
    package="geometry",
    license="BSD-3-Clause",
    depends_on=("corelib",),
    description="shapes, vectors and unit conversion",
    params={"PI": ("3.14159", "3.1416", "3.141593"), "CM": ("2.54", "2.54", "2.54")},
    files={
        "README.md": "# geometry\n\nShapes, vectors and unit conversion.\n",
        "geometry/__init__.py": '"""Geometry helpers."""\n',
        "geometry/shapes.py": (
            "from corelib.numbers import round_money\n\n"
            "PI = __PI__\n\n\n"
            "def rect_area(width, height):\n"
            "    return width * height\n\n\n"
            "def circle_area(radius):\n"
            "    return round_money(PI * radius ** 2)\n\n\n"
            "def perimeter(sides):\n"
            "    return sum(sides)\n"
        ),
        "geometry/vectors.py": (
            "import math\n\n\n"
            "def dot(u, v):\n"
            "    return sum(a * b for a, b in zip(u, v))\n\n\n"
            "def norm(u):\n"
            "    return round(math.sqrt(dot(u, u)), 4)\n\n\n"
            "def add(u, v):\n"
            "    return [a + b for a, b in zip(u, v)]\n"
        ),
        "geometry/units.py": (
            "import json\n"
            "from pathlib import Path\n\n"
            'FACTORS = json.loads(Path(__file__).with_name("units.json").read_text(encoding="utf-8"))\n\n\n'
            "def to_cm(value, unit):\n"
            "    return round(value * FACTORS[unit], 3)\n"
        ),
        "geometry/units.json": '{"cm": 1.0, "in": __CM__, "m": 100.0}\n',
    },
    bugs=(
        Bug("geometry/shapes.py", "return width * height", "return width + height", "rect_area"),
        Bug("geometry/shapes.py", "radius ** 2", "radius * 2", "circle_area"),
        Bug("geometry/shapes.py", "return sum(sides)", "return sum(sides[1:])", "perimeter"),
        Bug("geometry/vectors.py", "sum(a * b for a, b", "sum(a + b for a, b", "dot"),
        Bug("geometry/vectors.py", "[a + b for a, b", "[a - b for a, b", "add"),
        Bug("geometry/units.json", '"in": __CM__', '"in": 1.0', "in", "config_fix", "an inch is __CM__ cm"),
        Bug("geometry/units.json", '"m": 100.0', '"m": 10.0', "m", "config_fix", "a metre is 100 cm"),
    ),
    suites={
        "tests/test_shapes.py": (
            "from geometry.shapes import circle_area, perimeter, rect_area",
            (
                ("rect_area_basic", "rect_area(3, 4)"),
                ("circle_area_unit", "circle_area(2)"),
                ("perimeter_triangle", "perimeter([3, 4, 5])"),
            ),
        ),
        "tests/test_vectors.py": (
            "from geometry.vectors import add, dot, norm",
            (
                ("dot_basic", "dot([1, 2, 3], [4, 5, 6])"),
                ("norm_345", "norm([3, 4])"),
                ("add_pairs", "add([1, 2], [3, 5])"),
            ),
        ),
        "tests/test_units.py": (
            "from geometry.units import to_cm",
            (
                ("to_cm_inches", "to_cm(2, 'in')"),
                ("to_cm_metres", "to_cm(1.5, 'm')"),
            ),
        ),
    },
)

LEDGER = Family(
    name="ledger",
    package="ledger",
    license="GPL-3.0-only",
    description="account balances, interest and transfers (copyleft)",
    params={"RATE": ("0.05", "0.03", "0.04"), "FEE": ("1.5", "2.0", "0.75")},
    secret_file="settings/database.ini",
    files={
        "README.md": "# ledger\n\nAccount balances, interest and transfers. GPL-3.0-only.\n",
        "COPYING": "GNU GENERAL PUBLIC LICENSE Version 3 (see https://www.gnu.org/licenses/gpl-3.0.txt)\n",
        "ledger/__init__.py": '"""Ledger service."""\n',
        "ledger/accounts.py": (
            "def balance(entries):\n"
            '    """Credits are positive, debits negative."""\n'
            "    return round(sum(amount for _, amount in entries), 2)\n\n\n"
            "def apply_interest(amount, rate, years):\n"
            "    return round(amount * (1 + rate) ** years, 2)\n\n\n"
            "def transfer(accounts, source, target, amount):\n"
            "    if accounts[source] < amount:\n"
            '        raise ValueError("insufficient funds")\n'
            "    updated = dict(accounts)\n"
            "    updated[source] -= amount\n"
            "    updated[target] += amount\n"
            "    return updated\n"
        ),
        "ledger/fees.py": (
            "import json\n"
            "from pathlib import Path\n\n"
            'RATES = json.loads(Path(__file__).parent.parent.joinpath("settings", "rates.json")'
            ".read_text())\n\n\n"
            "def monthly_fee(balance):\n"
            '    return 0.0 if balance >= RATES["free_above"] else RATES["fee"]\n\n\n'
            "def savings_rate():\n"
            '    return RATES["savings_rate"]\n'
        ),
        "settings/rates.json": '{"fee": __FEE__, "free_above": 1000, "savings_rate": __RATE__}\n',
    },
    bugs=(
        Bug("ledger/accounts.py", "sum(amount for _, amount", "sum(abs(amount) for _, amount", "balance"),
        Bug("ledger/accounts.py", "(1 + rate) ** years", "(1 + rate) * years", "apply_interest"),
        Bug("ledger/accounts.py", "updated[target] += amount", "updated[target] = amount", "transfer"),
        Bug(
            "ledger/fees.py", 'balance >= RATES["free_above"]', 'balance > RATES["free_above"]', "monthly_fee"
        ),
        Bug(
            "settings/rates.json",
            '"free_above": 1000',
            '"free_above": -1000',
            "free_above",
            "config_fix",
            "accounts at or above 1000 pay no fee",
        ),
        Bug(
            "settings/rates.json",
            '"savings_rate": __RATE__',
            '"savings_rate": "__RATE__"',
            "savings_rate",
            "config_fix",
            "the savings rate is __RATE__",
        ),
    ),
    suites={
        "tests/test_accounts.py": (
            "from ledger.accounts import apply_interest, balance, transfer",
            (
                ("balance_mixed", "balance([('dep', 100.0), ('wd', -30.5)])"),
                ("apply_interest_two_years", "apply_interest(100.0, 0.1, 2)"),
                ("transfer_moves", "transfer({'a': 50, 'b': 10}, 'a', 'b', 20)"),
                ("transfer_insufficient", "transfer({'a': 5, 'b': 0}, 'a', 'b', 20)"),
            ),
        ),
        "tests/test_fees.py": (
            "from ledger.fees import monthly_fee, savings_rate",
            (
                ("monthly_fee_threshold", "monthly_fee(1000)"),
                ("monthly_fee_low", "monthly_fee(10)"),
                ("savings_rate_value", "savings_rate() == float('__RATE__')"),
            ),
        ),
    },
)

TELEMETRY = Family(
    name="telemetry",
    package="telemetry",
    license="CC-BY-NC-4.0",
    depends_on=("corelib",),
    description="log parsing and latency metrics (restricted: non-commercial licence)",
    params={"P": ("95", "90", "99"), "WARN": ("250", "300", "400")},
    secret_file="deploy/exporter.env",
    files={
        "README.md": (
            "# telemetry\n\nLog parsing and latency metrics. CC-BY-NC-4.0: non-commercial use only.\n"
        ),
        "telemetry/__init__.py": '"""Telemetry pipeline."""\n',
        "telemetry/parse.py": (
            "from corelib.text import normalize_key\n\n\n"
            "def parse_line(line):\n"
            '    level, _, rest = line.partition(" ")\n'
            "    return normalize_key(level), rest.strip()\n\n\n"
            "def level_counts(lines):\n"
            "    counts = {}\n"
            "    for line in lines:\n"
            "        level, _ = parse_line(line)\n"
            "        counts[level] = counts.get(level, 0) + 1\n"
            "    return counts\n"
        ),
        "telemetry/metrics.py": (
            "import configparser\n"
            "from pathlib import Path\n\n"
            "_CFG = configparser.ConfigParser()\n"
            '_CFG.read(Path(__file__).parent.parent / "config" / "alerts.ini")\n\n\n'
            "def mean(values):\n"
            "    return round(sum(values) / len(values), 2) if values else 0.0\n\n\n"
            "def percentile(values, pct=__P__):\n"
            "    ordered = sorted(values)\n"
            "    index = max(0, int(round(pct / 100 * len(ordered))) - 1)\n"
            "    return ordered[index]\n\n\n"
            "def alert_level(latency_ms):\n"
            '    warn = _CFG.getint("latency", "warn_ms")\n'
            '    page = _CFG.getint("latency", "page_ms")\n'
            '    return "page" if latency_ms >= page else "warn" if latency_ms >= warn else "ok"\n'
        ),
        "config/alerts.ini": "[latency]\nwarn_ms = __WARN__\npage_ms = 1000\n",
    },
    bugs=(
        Bug(
            "telemetry/parse.py",
            "return normalize_key(level), rest.strip()",
            "return level, rest.strip()",
            "parse_line",
        ),
        Bug("telemetry/parse.py", "counts.get(level, 0) + 1", "counts.get(level, 1)", "level_counts"),
        Bug("telemetry/metrics.py", "sum(values) / len(values)", "sum(values) / (len(values) + 1)", "mean"),
        Bug("telemetry/metrics.py", "ordered = sorted(values)", "ordered = list(values)", "percentile"),
        Bug("telemetry/metrics.py", "latency_ms >= page else", "latency_ms > page else", "alert_level"),
        Bug(
            "config/alerts.ini",
            "page_ms = 1000",
            "page_ms = 1000ms",
            "page_ms",
            "config_fix",
            "the paging threshold is 1000 milliseconds",
        ),
    ),
    suites={
        "tests/test_parse.py": (
            "from telemetry.parse import level_counts, parse_line",
            (
                ("parse_line_level", "parse_line('WARN disk almost full')"),
                ("level_counts_mixed", "level_counts(['INFO a', 'WARN b', 'INFO c'])"),
            ),
        ),
        "tests/test_metrics.py": (
            "from telemetry.metrics import alert_level, mean, percentile",
            (
                ("mean_basic", "mean([10, 20, 40])"),
                ("percentile_unsorted", "percentile([50, 10, 40, 20, 30], 60)"),
                ("alert_level_page", "alert_level(1000)"),
                ("alert_level_ok", "alert_level(5)"),
            ),
        ),
    },
)

CONFIGSVC = Family(
    name="configsvc",
    package="configsvc",
    license="ISC",
    description="service settings loader with validation",
    params={"RETRIES": ("3", "5", "4"), "PORT": ("8080", "9090", "8443"), "TIMEOUT": ("30", "45", "20")},
    secret_file=".env",
    forked_from="github.com/example/settings-loader@v0.4.1",
    files={
        "README.md": "# configsvc\n\nService settings with validation. Forked from settings-loader v0.4.1.\n",
        "configsvc/__init__.py": '"""Service configuration."""\n',
        "configsvc/settings.py": (
            "import json\n"
            "from pathlib import Path\n\n"
            'SERVICE = Path(__file__).parent.parent / "config" / "service.json"\n\n\n'
            "def load():\n"
            '    data = json.loads(SERVICE.read_text(encoding="utf-8"))\n'
            '    if not 1 <= data["max_retries"] <= 10:\n'
            '        raise ValueError("max_retries must be between 1 and 10")\n'
            '    if not 1024 <= data["port"] <= 65535:\n'
            '        raise ValueError("port out of range")\n'
            "    return data\n\n\n"
            "def endpoint(data):\n"
            "    return f\"http://{data['host']}:{data['port']}\"\n"
        ),
        "configsvc/merge.py": (
            "def deep_merge(base, override):\n"
            "    merged = dict(base)\n"
            "    for key, value in override.items():\n"
            "        if isinstance(value, dict) and isinstance(merged.get(key), dict):\n"
            "            merged[key] = deep_merge(merged[key], value)\n"
            "        else:\n"
            "            merged[key] = value\n"
            "    return merged\n\n\n"
            "def parse_bool(text):\n"
            '    return text.strip().lower() in ("1", "true", "yes", "on")\n'
        ),
        "config/service.json": (
            '{\n  "host": "localhost",\n  "port": __PORT__,\n  "max_retries": __RETRIES__,\n'
            '  "timeout_s": __TIMEOUT__\n}\n'
        ),
    },
    bugs=(
        Bug(
            "configsvc/merge.py",
            "merged[key] = deep_merge(merged[key], value)",
            "merged[key] = value",
            "deep_merge",
        ),
        Bug("configsvc/merge.py", '("1", "true", "yes", "on")', '("1", "true")', "parse_bool"),
        Bug(
            "configsvc/settings.py",
            "f\"http://{data['host']}:{data['port']}\"",
            "f\"https://{data['host']}:{data['port']}\"",
            "endpoint",
        ),
        Bug(
            "config/service.json",
            '"max_retries": __RETRIES__',
            '"max_retries": 0',
            "max_retries",
            "config_fix",
            "max_retries must be __RETRIES__",
        ),
        Bug(
            "config/service.json",
            '"port": __PORT__',
            '"port": 80',
            "port",
            "config_fix",
            "the service listens on port __PORT__",
        ),
        Bug(
            "config/service.json",
            '"timeout_s": __TIMEOUT__\n',
            '"timeout_s": __TIMEOUT__,\n',
            "timeout_s",
            "config_fix",
            "config/service.json must be valid JSON",
        ),
    ),
    suites={
        "tests/test_settings.py": (
            "from configsvc.settings import endpoint, load",
            (
                ("load_retries", "load()['max_retries']"),
                ("load_port", "load()['port']"),
                ("endpoint_url", "endpoint({'host': 'db', 'port': 5432})"),
            ),
        ),
        "tests/test_merge.py": (
            "from configsvc.merge import deep_merge, parse_bool",
            (
                ("deep_merge_nested", "deep_merge({'a': {'x': 1, 'y': 2}}, {'a': {'y': 3}})"),
                ("parse_bool_yes", "parse_bool(' Yes ')"),
                ("parse_bool_off", "parse_bool('off')"),
            ),
        ),
    },
)

JOBQUEUE = Family(
    name="jobqueue",
    package="jobqueue",
    license="MIT",
    flaky=True,
    description="priority job queue with retries (its timing test is flaky)",
    params={"BASE": ("0.5", "1.0", "0.25"), "CAP": ("30", "60", "10")},
    files={
        "README.md": "# jobqueue\n\nPriority job queue with retry backoff.\n",
        "jobqueue/__init__.py": '"""Job queue."""\n',
        "jobqueue/queue.py": (
            "import heapq\n\n\n"
            "class JobQueue:\n"
            "    def __init__(self):\n"
            "        self._heap = []\n"
            "        self._count = 0\n\n"
            "    def push(self, priority, job):\n"
            "        heapq.heappush(self._heap, (priority, self._count, job))\n"
            "        self._count += 1\n\n"
            "    def pop(self):\n"
            "        return heapq.heappop(self._heap)[2]\n\n"
            "    def __len__(self):\n"
            "        return len(self._heap)\n\n\n"
            "def drain(queue):\n"
            "    return [queue.pop() for _ in range(len(queue))]\n"
        ),
        "jobqueue/retry.py": (
            "BASE_DELAY = __BASE__\n"
            "MAX_DELAY = __CAP__\n\n\n"
            "def backoff(attempt):\n"
            "    return min(MAX_DELAY, BASE_DELAY * 2 ** attempt)\n\n\n"
            "def should_retry(attempt, limit):\n"
            "    return attempt < limit\n"
        ),
    },
    bugs=(
        Bug("jobqueue/queue.py", "(priority, self._count, job)", "(-priority, self._count, job)", "push"),
        Bug("jobqueue/queue.py", "for _ in range(len(queue))", "for _ in range(len(queue) - 1)", "drain"),
        Bug("jobqueue/retry.py", "BASE_DELAY * 2 ** attempt", "BASE_DELAY * 2 * attempt", "backoff"),
        Bug("jobqueue/retry.py", "return attempt < limit", "return attempt <= limit", "should_retry"),
    ),
    suites={
        "tests/test_queue.py": (
            "from jobqueue.queue import JobQueue, drain",
            (
                (
                    "priority_order",
                    "(lambda q: (q.push(2, 'b'), q.push(1, 'a'), q.push(3, 'c'), drain(q))[-1])(JobQueue())",
                ),
                ("drain_all", "(lambda q: (q.push(1, 'x'), q.push(1, 'y'), len(drain(q)))[-1])(JobQueue())"),
            ),
        ),
        "tests/test_retry.py": (
            "from jobqueue.retry import backoff, should_retry",
            (
                ("backoff_growth", "[backoff(n) for n in range(4)]"),
                ("backoff_capped", "backoff(20)"),
                ("should_retry_limit", "should_retry(3, 3)"),
            ),
        ),
    },
    extra_tests={
        "tests/test_queue.py": (
            "\n\ndef test_worker_drain_timing():\n"
            '    """Drains a queue from a worker thread; ordering depends on scheduler timing (flaky)."""\n'
            "    import hashlib\n"
            "    import os\n"
            "    import threading\n\n"
            "    queue = JobQueue()\n"
            "    for n in range(50):\n"
            "        queue.push(n % 3, n)\n"
            "    worker = threading.Thread(target=drain, args=(queue,))\n"
            "    worker.start()\n"
            "    worker.join()\n"
            "    # The sandbox draws this run's scheduler interleaving (GYM_SCHEDULE_SEED); 1 in 5 loses.\n"
            '    interleaving = hashlib.sha256(os.environ.get("GYM_SCHEDULE_SEED", "").encode()).digest()\n'
            '    assert interleaving[0] % 5 != 0, "worker finished out of order"\n'
        ),
    },
)

FAMILIES = (INVENTORY, TEXTKIT, GEOMETRY, LEDGER, TELEMETRY, CONFIGSVC, JOBQUEUE)
