"""Red team, round 15 (2026-12-07): a word password (``Footballmonkey564``) a session echoes after the
expression that read it. Two layouts were found by pass 1 and still kept: a Jupyter notebook, whose
cell source and output are two JSON literals (the transcript that pairs them has no place in the
document, so the output's literal, rewritten alone, showed no label), and a REPL echo written as a
prefixed literal (``b'...'`` of ``os.environb`` or a decoded secret, Python 2's ``u'...'``), whose
quotes kept it from both of the echo rule's forms. Expressions, prefixes and words are split into a
development and a validation half (none in both); the controls are echoes of expressions naming no
credential. (A notebook showing the word in a second literal keeps both: which one the label names
is unknown there, the rule that keeps ``image: postgres`` beside ``POSTGRES_PASSWORD: postgres``.)"""

from __future__ import annotations

import json
import random

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"session-echo-salt"

EXPRESSIONS = {
    "development": ("os.environb[b'API_KEY']", "settings.SECRET_KEY", "token"),
    "validation": ("creds.password", "base64.b64decode(auth_token)", "vault.read('db')['secret']"),
}
PREFIXES = {"development": ("b", "B"), "validation": ("u", "rb")}
WORDS = {
    "development": ("football", "monkey", "dragon", "shadow"),
    "validation": ("harbor", "falcon", "rocket", "coffee"),
}


def _password(rng: random.Random, half: str) -> str:
    first, second = rng.sample(WORDS[half], 2)
    return f"{first.capitalize()}{second}{rng.randint(10, 999)}"


def _notebook(expression: str, shown: str) -> str:
    cell = {
        "cell_type": "code",
        "execution_count": 3,
        "source": ["import os\n", expression],
        "outputs": [{"data": {"text/plain": [shown]}, "execution_count": 3, "output_type": "execute_result"}],
    }
    return json.dumps({"cells": [cell], "nbformat": 4})


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for half in ("development", "validation"):
        rng = random.Random(f"echo-{half}")
        for n, expression in enumerate(EXPRESSIONS[half]):
            prefix = PREFIXES[half][n % 2]
            for layout in ("repl", "ipython", "notebook"):
                password = _password(rng, half)
                shown = f"{prefix}'{password}'"
                text = {
                    "repl": f">>> {expression}\n{shown}\n>>> ",
                    "ipython": f"In [7]: {expression}\nOut[7]: {shown}",
                    "notebook": _notebook(expression, f"'{password}'"),
                }[layout]
                cases.append(pytest.param(password, text, id=f"{half}-{layout}-{n}"))
    return cases


@pytest.mark.parametrize(("password", "text"), _cases())
def test_a_word_password_a_session_echoes_is_replaced(password: str, text: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert any(f.value == password for f in findings), "pass 1 must find it"
    assert password not in redacted


CONTROLS = [
    ">>> os.environb[b'HOME']\nb'Footballmonkey564'",
    "In [2]: project.name\nOut[2]: u'Harborfalcon12'",
    _notebook("user.display_name", "'Rocketcoffee305'"),
]


@pytest.mark.parametrize("text", CONTROLS)
def test_echoes_of_expressions_naming_no_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
