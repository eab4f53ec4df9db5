"""Redaction recall on vendor secrets drawn from gitleaks' rule set, by the context they sit in.

Data: ``<repo>/../shared/data/secrets/gitleaks/gitleaks.toml`` (gitleaks' default rules; see its
PROVENANCE.md). gitleaks keeps its true positives in Go code that generates them from each rule's
regex at test time, so this script does the same: for every rule it draws strings that match the
rule's regex and keeps the rule's secret group when gitleaks itself would report it (at least 8
characters, the rule's entropy floor, outside the rule's allowlists). Each value is then written into
the contexts a value like it reaches an agent log in (a code assignment, a shell ``export``, a JSON
field, an ``Authorization`` header, a sentence, and, for self-identifying formats whose regex matches
the value alone, the bare token) and counts as caught when it no longer appears in
``redact_text``'s output.

Why a generator of our own, not hypothesis' ``from_regex``: hypothesis draws edge cases on purpose
(repeated characters, minimal lengths, any Unicode), which no scanner calls a credential; recall is
about values like real keys, so every choice here is uniform (printable ASCII, repeats up to 8
beyond their minimum; a character class under ``(?i)`` draws either case, a literal keeps the case
gitleaks writes it in). gitleaks' Go (RE2) syntax is translated where Python's differs: a case flag
inside the pattern applies to the rest of its group, and ``\\z`` is ``\\Z``.

Generalization is measured as in ``redact.py``: rules are split by a digest of their id into a
development half (the only one detectors may be tuned on) and a validation half, and recall is
reported on each. Only rule ids and contexts are printed, never a value.

Usage: ``.venv/bin/python benchmarks/gitleaks_recall.py [--rules PATH] [--samples 6]``; the last
stdout line is a JSON object: recall per half and context, the misses by rule id, the rules skipped.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from re import _constants as sre
from re import _parser as sre_parse

from redact import half_of

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.entropy import shannon_entropy  # gitleaks' entropy: bits per char

DEFAULT_RULES = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "secrets" / "gitleaks" / "gitleaks.toml"
)
SALT = b"gitleaks-recall"
PRINTABLE = "".join(chr(c) for c in range(32, 127))
TOKEN = re.compile(r"[^\s\"'`\\]+")
"""A value that stands as one token in every context: no space, quote or backslash."""
EXTRA_REPEATS = 8
"""An unbounded repeat (``*``, ``+``, ``{n,}``) or a very wide one draws at most this many beyond n."""
_CATEGORIES = {
    sre.CATEGORY_DIGIT: string.digits,
    sre.CATEGORY_NOT_DIGIT: "".join(c for c in PRINTABLE if not c.isdigit()),
    sre.CATEGORY_SPACE: " \t",
    sre.CATEGORY_NOT_SPACE: PRINTABLE.replace(" ", ""),
    sre.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre.CATEGORY_NOT_WORD: "".join(c for c in PRINTABLE if not (c.isalnum() or c == "_")),
}

POSIX_CLASSES = {
    "alnum": "A-Za-z0-9",
    "alpha": "A-Za-z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
    "word": "0-9A-Za-z_",
    "space": "\\s",
    "punct": "!-/:-@\\[-`{-~",
}
"""RE2's bracketed POSIX classes, as members of a Python class."""

CONTEXTS: dict[str, Callable[[str, str], str]] = {
    "assignment": lambda name, value: f'{name.lower()}_api_key = "{value}"',
    "export": lambda name, value: f"export {name.upper()}_TOKEN={value}",
    "json": lambda name, value: f'{{"{name.lower()}_secret": "{value}"}}',
    "header": lambda name, value: f"curl -H 'Authorization: Bearer {value}' https://api.example.com/v1/me",
    "prose": lambda name, value: f"the {name.lower()} key is {value}",
    "bare": lambda name, value: value,
}
"""How a value reaches a log, by context; ``name`` is the rule's first keyword as an identifier."""


def go_to_python(pattern: str) -> str:
    """A gitleaks (Go RE2) regex in Python's syntax: ``\\z`` becomes ``\\Z``, and a flag group such as
    ``(?i)`` after the start (RE2: the flag holds to the end of the enclosing group; Python: refused)
    becomes a scoped group, ``(?i:``, closed where its branch or its enclosing group ends (and
    reopened after a ``|``: RE2's flag holds in the later branches too); a POSIX class inside
    brackets (``[[:alnum:]]``, which Python would read as the characters ``[:alnum``) is spelled out."""
    pattern = re.sub(r"\[:(\w+):\]", lambda m: POSIX_CLASSES[m.group(1)], pattern)
    out: list[str] = []
    scoped: list[list[str]] = [[]]  # per open group (the whole pattern first): its scoped flags
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escape = pattern[index : index + 2]
            out.append("\\Z" if escape == "\\z" else escape)
            index += 2
            continue
        flag = None if in_class or index == 0 else re.match(r"\(\?([a-zA-Z]+)\)", pattern[index:])
        if flag:
            out.append(f"(?{flag.group(1)}:")
            scoped[-1].append(flag.group(1))
            index += flag.end()
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1 : index + 2] == "]":  # a leading ] is a member, not the end
                out.append("[]")
                index += 2
                continue
        elif char == "(":
            scoped.append([])
        elif char == ")" and len(scoped) > 1:
            out.append(")" * len(scoped.pop()))
        elif char == "|" and scoped[-1]:
            out.append(")" * len(scoped[-1]) + "|" + "".join(f"(?{f}:" for f in scoped[-1]))
            index += 1
            continue
        out.append(char)
        index += 1
    out.append(")" * len(scoped[0]))
    return "".join(out)


def random_match(pattern: str, rng: random.Random) -> str:
    """A string drawn uniformly, choice by choice, from what ``pattern`` describes (printable ASCII)."""
    parsed = sre_parse.parse(pattern)
    out: list[str] = []
    _emit(parsed, rng, out, bool(parsed.state.flags & re.IGNORECASE))
    return "".join(out)


def _emit(items: sre_parse.SubPattern, rng: random.Random, out: list[str], any_case: bool) -> None:
    for op, arg in items:
        if op is sre.LITERAL:
            out.append(chr(arg))  # as written, under (?i) too: keywords and token prefixes keep their case
        elif op is sre.NOT_LITERAL:
            out.append(rng.choice(PRINTABLE.replace(chr(arg), "")))
        elif op is sre.ANY:
            out.append(rng.choice(PRINTABLE))
        elif op is sre.IN:
            out.append(rng.choice(_members(arg, any_case)))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, sub = arg
            high = min(high, low + EXTRA_REPEATS) if high is sre.MAXREPEAT or high > low + 64 else high
            for _ in range(rng.randint(low, high)):
                _emit(sub, rng, out, any_case)
        elif op is sre.SUBPATTERN:
            _, add, remove, sub = arg
            _emit(sub, rng, out, bool(add & re.IGNORECASE) or (any_case and not remove & re.IGNORECASE))
        elif op is sre.BRANCH:
            _emit(rng.choice(arg[1]), rng, out, any_case)
        elif op not in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):  # anchors and lookarounds emit nothing
            raise ValueError(f"no generator for {op}")


def _members(items: list, any_case: bool) -> str:
    chars: set[str] = set()
    negate = False
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            chars.add(chr(arg))
        elif op is sre.RANGE:
            chars.update(chr(c) for c in range(arg[0], arg[1] + 1) if chr(c) in PRINTABLE)
        elif op is sre.CATEGORY:
            chars.update(_CATEGORIES[arg])
    if any_case:  # a class under (?i) means either case: a real key's letters are mixed
        chars |= {c.swapcase() for c in chars}
    return "".join(sorted(set(PRINTABLE) - chars if negate else chars))


@dataclass(frozen=True)
class RuleSamples:
    """One gitleaks rule's drawn secrets: ``self_identifying`` when its regex matches the value alone."""

    rule_id: str
    keyword: str
    values: tuple[str, ...]
    self_identifying: tuple[bool, ...]


def draw_samples(rule: dict, count: int, tries: int = 400) -> RuleSamples:
    """Up to ``count`` secrets gitleaks would report for ``rule``, drawn with a seed of its id."""
    pattern = re.compile(go_to_python(rule["regex"]))
    group = rule.get("secretGroup") or (1 if pattern.groups else 0)
    allow = [
        (re.compile(go_to_python(regex)), entry.get("regexTarget", "secret"))
        for entry in rule.get("allowlists", [])
        if "paths" not in entry
        for regex in entry.get("regexes", [])
    ]
    stopwords = [w for entry in rule.get("allowlists", []) for w in entry.get("stopwords", [])]
    rng = random.Random(rule["id"])
    values: list[str] = []
    for _ in range(tries):
        match = pattern.search(random_match(pattern.pattern, rng))
        value = match.group(group) if match else None
        if not value or len(value) < 8 or value in values or not TOKEN.fullmatch(value):
            continue  # too short for gitleaks, or not one token (a YAML block, a PEM body, user:pass quoted)
        if shannon_entropy(value) < rule.get("entropy", 0) or any(w in value.lower() for w in stopwords):
            continue
        if any(regex.search(value if target == "secret" else match.group(0)) for regex, target in allow):
            continue
        values.append(value)
        if len(values) == count:
            break
    keyword = re.sub(r"[^A-Za-z0-9]+", "_", (rule.get("keywords") or [rule["id"]])[0]).strip("_") or "vendor"
    return RuleSamples(rule["id"], keyword, tuple(values), tuple(bool(pattern.fullmatch(v)) for v in values))


def load_rules(path: Path) -> tuple[list[dict], dict[str, str]]:
    """The rules this script can draw from, and the others by id with the reason."""
    rules, skipped = [], {}
    for rule in tomllib.loads(path.read_text())["rules"]:
        if "regex" not in rule:
            skipped[rule["id"]] = "no regex (a file-path rule)"
            continue
        try:
            sre_parse.parse(go_to_python(rule["regex"]))
        except re.error as error:
            skipped[rule["id"]] = f"regex: {error}"
            continue
        rules.append(rule)
    return rules, skipped


def measure(samples: list[RuleSamples]) -> dict[str, dict[str, dict]]:
    """Per half and context: values caught of values written, and the rule ids with a miss."""
    result: dict[str, dict[str, dict]] = {}
    for rule in samples:
        half = result.setdefault(half_of(rule.rule_id), {})
        for context, write in CONTEXTS.items():
            cell = half.setdefault(context, {"caught": 0, "values": 0, "missed_rules": []})
            for value, alone in zip(rule.values, rule.self_identifying, strict=True):
                if context == "bare" and not alone:
                    continue  # a bare value only names its vendor when its format does
                redacted, _ = redact_text(write(rule.keyword, value), SALT)
                cell["values"] += 1
                cell["caught"] += value not in redacted
                if value in redacted and rule.rule_id not in cell["missed_rules"]:
                    cell["missed_rules"].append(rule.rule_id)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES)
    parser.add_argument("--samples", type=int, default=6, help="values drawn per rule")
    args = parser.parse_args(argv)
    if not args.rules.exists():
        print(f"no gitleaks rule set at {args.rules}", file=sys.stderr)
        return 2
    rules, skipped = load_rules(args.rules)
    samples = [draw_samples(rule, args.samples) for rule in rules]
    empty = sorted(s.rule_id for s in samples if not s.values)
    result = measure([s for s in samples if s.values])
    print(f"{len(rules)} rules drawn from, {len(skipped)} skipped, {len(empty)} without a reportable value")
    print(f"{'context':12}" + "".join(f"{half:>22}" for half in sorted(result)))
    for context in CONTEXTS:
        cells = [result[half][context] for half in sorted(result)]
        print(
            f"{context:12}"
            + "".join(f"{c['caught'] / max(c['values'], 1):>12.3f} of {c['values']:>5}" for c in cells)
        )
    for context in CONTEXTS:
        missed = result.get("dev", {}).get(context, {}).get("missed_rules", [])
        if missed:
            print(f"dev misses, {context}: {', '.join(missed)}")
    print(json.dumps({"halves": result, "skipped": skipped, "no_value": empty}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
