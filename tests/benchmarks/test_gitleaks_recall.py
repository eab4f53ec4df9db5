"""Recall on vendor secrets drawn from gitleaks' rule set (benchmarks/gitleaks_recall.py): the drawn
strings are what the rules describe, the values what gitleaks would report, and the redactor
catches them in every context on the validation half of the rules (never tuned on)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from gitleaks_recall import (
    CONTEXTS,
    draw_samples,
    go_to_python,
    load_rules,
    measure,
    random_match,
)
from redact import half_of

from trajectory_platform.curation.redact.entropy import shannon_entropy

PATTERNS = [
    r"ghp_[A-Za-z0-9]{36}",
    r"(?:sk|rk)_(?:test|live)_[a-zA-Z0-9]{10,99}",
    r"[^\s'\"]{8,20}:[\w.-]+",
    r"\d{3}-\d{2}-[a-f0-9]{4,}\.?\s?x*y+",
    r"(?i)key_[a-z]{12}",
    r"a(?i:[b-d]{3})(?-i:E)[0-9A-F]{4}",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_draw_is_a_string_the_pattern_describes(pattern: str):
    rng = random.Random(pattern)
    draws = [random_match(pattern, rng) for _ in range(300)]
    assert all(re.fullmatch(pattern, draw) for draw in draws)
    assert len(set(draws)) > 250  # uniform choices, not one edge case over and over


def test_a_class_under_ignorecase_draws_both_cases_and_a_literal_keeps_its_own():
    draws = [random_match(r"(?i)key_[a-z]{12}", random.Random(seed)) for seed in range(50)]
    assert all(draw.startswith("key_") for draw in draws)
    assert any(c.isupper() for draw in draws for c in draw) and any(c.islower() for d in draws for c in d[4:])


@pytest.mark.parametrize(
    ("go", "matches", "refuses"),
    [
        (r"abc(?i)def", ["abcDeF"], ["ABCdef"]),  # RE2: the flag holds to the end of its group
        (r"(x(?i)y)z", ["xYz"], ["xyZ"]),
        (r"a(?:b(?i)c|d)e", ["abCe", "aDe"], ["aBce"]),  # ... and in the later branches of it
        (r"tok\z", ["tok"], ["tok\n"]),
        (r"[(?i)]x", ["(x", "?x"], ["iX"]),  # inside a class, not a flag
        (r"pat[[:alnum:]]{3}", ["patA1z"], ["pat[:a", "pat:::"]),  # a POSIX class, not "[:alnum"
    ],
)
def test_gitleaks_go_syntax_reads_the_same_in_python(go: str, matches: list[str], refuses: list[str]):
    pattern = re.compile(go_to_python(go))
    assert all(pattern.fullmatch(text) for text in matches)
    assert not any(pattern.fullmatch(text) for text in refuses)


def test_drawn_values_are_what_gitleaks_would_report():
    rule = {
        "id": "acme-api-key",
        "regex": r"(?i)acme[\w.-]{0,10}\s*=\s*([a-z0-9]{8,24})\b",
        "entropy": 3.0,
        "keywords": ["acme"],
        "allowlists": [
            {"regexes": ["^0+$"]},
            {"stopwords": ["test"]},
            {"regexTarget": "match", "regexes": ["_x"]},
        ],
    }
    samples = draw_samples(rule, 40)
    assert len(samples.values) == 40 and samples.keyword == "acme"
    for value in samples.values:
        assert 8 <= len(value) <= 24 and value.isalnum()  # the secret group, not the whole match
        assert shannon_entropy(value) >= 3.0 and "test" not in value.lower()
    assert not any(samples.self_identifying)  # the regex needs its keyword: never written bare


def test_rules_python_cannot_read_are_named_with_the_reason(tmp_path: Path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        "[[rules]]\nid = 'ok'\nregex = '''ok_[a-z]{9}'''\n"
        "[[rules]]\nid = 'file-only'\npath = '''\\.p12$'''\n"
        "[[rules]]\nid = 'broken'\nregex = '''a(b'''\n"
    )
    drawable, skipped = load_rules(rules)
    assert [r["id"] for r in drawable] == ["ok"]
    assert skipped["file-only"].startswith("no regex") and skipped["broken"].startswith("regex:")


def test_vendor_secrets_of_the_validation_rules_are_caught_in_every_context(shared_data: Path):
    rules, _ = load_rules(shared_data / "secrets" / "gitleaks" / "gitleaks.toml")
    samples = [draw_samples(rule, 4) for rule in rules if half_of(rule["id"]) == "validation"]
    result = measure([s for s in samples if s.values])["validation"]
    assert set(result) == set(CONTEXTS) and all(cell["values"] >= 100 for cell in result.values())
    recall = {context: cell["caught"] / cell["values"] for context, cell in result.items()}
    assert min(recall.values()) >= 0.95, recall
