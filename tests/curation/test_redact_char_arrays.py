"""Red team, round 15 (2026-12-07): a password under a credential's name written as an array of its
characters the way C and Rust write one: C's char literals closed by a bare ``0`` (the NUL), and
Rust's byte literals (``[b'h', b'u', ...]``). Java's ``{'h', 'u', ...}`` and C's ``'\\0'`` were
read; these two were kept whole. Layouts and passwords are split into a development and a
validation half (none in both); the controls are the same arrays under names of no credential."""

from __future__ import annotations

import random
import re
import string

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"char-array-salt"


def _chars(password: str, prefix: str = "") -> str:
    return ", ".join(f"{prefix}'{c}'" for c in password)


LAYOUTS = {
    "development": {
        "c_nul": lambda name, pw: f"char {name}[] = {{{_chars(pw)}, 0}};",
        "cpp_unsigned_nul": lambda name, pw: (
            f"static const unsigned char {name}[{len(pw) + 1}] = {{ {_chars(pw)}, 0 }};"
        ),
    },
    "validation": {
        "rust_array": lambda name, pw: f"let {name}: [u8; {len(pw)}] = [{_chars(pw, 'b')}];",
        "rust_static_slice": lambda name, pw: f"static {name.upper()}: &[u8] = &[{_chars(pw, 'b')}];",
    },
}
NAMES = {"development": ("secret", "db_password"), "validation": ("api_token", "password")}
ALPHABET = {
    "development": string.ascii_letters + "!@#",
    "validation": string.ascii_letters + string.digits + "%&",
}


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for half, layouts in LAYOUTS.items():
        rng = random.Random(f"char-array-{half}")
        for layout, write in layouts.items():
            for name in NAMES[half]:
                password = "".join(rng.choice(ALPHABET[half]) for _ in range(rng.randint(8, 14)))
                cases.append(pytest.param(password, write(name, password), id=f"{half}-{layout}-{name}"))
    return cases


@pytest.mark.parametrize(("password", "text"), _cases())
def test_a_password_spelled_as_a_char_array_is_replaced(password: str, text: str) -> None:
    assert password in "".join(re.findall(r"'(.)'", text))
    redacted, _ = redact_text(text, SALT)
    assert password not in "".join(re.findall(r"'(.)'", redacted))


CONTROLS = [
    "char name[] = {'M', 'a', 'r', 'g', 'a', 'r', 'e', 't', 0};",
    "let letters = [b'a', b'b', b'c', b'd', b'e', b'f', b'g'];",
    "static const unsigned char header[6] = { 'G', 'I', 'F', '8', '9', 'a', 0 };",
    "static VOWELS: &[u8] = &[b'a', b'e', b'i', b'o', b'u', b'y'];",
]


@pytest.mark.parametrize("text", CONTROLS)
def test_the_same_arrays_under_no_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
