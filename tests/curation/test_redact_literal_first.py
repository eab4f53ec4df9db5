"""Patterns that opened with a lookbehind, written with their literal first
(:func:`.alternations.literal_first`): each finds what its old spelling found, where it found it,
with the same groups, on generated texts around its literal."""

import random
import re

import pytest

from trajectory_platform.curation.redact import (
    credential_files,
    decoders,
    detectors,
    key_numbers,
    lisp_pairs,
    named_elsewhere,
    positional,
    printf_formats,
)
from trajectory_platform.curation.redact.alternations import literal_first

# (the pattern now, its spelling before it opened with its literal, texts that match it)
CASES = {
    "jwt_start": (decoders._JWT_START, r"(?<![\w\-+/.])eyJ", ["token eyJhbGciOi", "x=eyJ0eX", "-eyJ a.eyJ"]),
    "utf7": (decoders._UTF7, r"(?<![\w+/=])\+A[A-Za-z0-9+/]{6,}-?", ["+AEcASQBU-", "x +AHAAdwA6- y"]),
    "aws_configure_set": (
        positional._NAMED_BY_SIBLING["aws_configure_set"],
        r"(?:(?<=aws )configure|(?<=[\w-] )config)\b(?:\s+set)?"
        r"(?:\s+--profile\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+"
        r"(?:[^\s\"']*[/:])?(?P<name>[\w.-]{1,80})\s+(?P<q>[\"']?)(?P<value>[^\"'\s]{4,200})(?P=q)",
        [
            "aws configure set aws_secret_access_key Kq9x2",
            "npm config set //r/:_authToken 'Zz91aa'",
            "xconfig set name value1",  # no tool's name and space before the word
            "configure set a bcdefg",
        ],
    ),
    "printf_format": (
        printf_formats.PRINTF_FORMAT,
        r"(?<![\w-])printf[ \t]+(?:--[ \t]+)?(?P<q>['\"])(?P<format>(?:(?!(?P=q))[^\n\\]|\\[^\n])*)(?P=q)"
        r"(?P<args>(?:[ \t]+(?:'[^'\n]*'|\"(?:[^\"\\\n]|\\[^\n])*\"|\$'[^'\n]*'|[^\s'\"|;&<>()`]+))*)",
        ["printf '%s\\n' pw1 | x", 'printf -- "%s" "a b"'],
    ),
    "scheme_passwords": (
        credential_files._SCHEME_PASSWORDS,
        r"(?<![\w{$])\{(?:PLAIN|CLEAR|PLAIN-TRUNC)\}(?P<value>[^\s:\\\"'{}][^\s:\\\"']{3,199})",
        ["bob:{PLAIN}hunter22:1000", "{CLEAR}abcd"],
    ),
    "new_value": (
        detectors._NEW_VALUE,
        r"(?<![a-z])new[ \t]+(?:one|value)[ \t]+(?:is|was|will[ \t]+be)[ \t]*:?[ \t]+"
        + detectors._VALUE
        + r"(?P=quote)",
        ["the new one is Qw9rmaple42", "New value was 'x7Yt2pq9'"],
    ),
    "bare_bytes_repr": (
        key_numbers._BARE_BYTES_REPR,
        r"(?<![\w\\])b(?P<q>[\"'])(?P<value>(?:\\x[0-9a-f]{2}|\\[nrt0'\"\\]|(?!(?P=q))[^\\\n]){16,256})(?P=q)",
        ["k = b'\\x01\\x02abcdefghijklmnop'", 'b"0123456789abcdefgh"'],
    ),
    "lisp_pair": (
        lisp_pairs._PAIR,
        r"(?<![\w$\])])\([ \t]*(?P<name>\"[^\"\n]{1,64}\"|:?[A-Za-z][\w-]{0,63})[ \t]+\.[ \t]+"
        r"(?P<value>\"(?:[^\"\\\n]|\\.){1,512}\")[ \t]*\)",
        ['(password . "hunter22")', '\'((:token . "abc"))'],
    ),
    "jq_path_set": (
        named_elsewhere._NAMED["jq_path_set"],
        r"(?<![\w.\]\"])\.(?:[\w-]{1,80}\.|\[[^\]\n]{0,80}\]\.?){0,12}\"?(?P<name>[\w-]{1,80})\"?\]?\s*\|?=\s*"
        r"\\?(?P<q>[\"'])(?P<value>[^\"'\\\n]{4,200})\\?(?P=q)",
        ["jq '.auth.password = \"s3cretpw\"'", ".a[0].token |= 'tok12345'"],
    ),
}
_NOISE = list("ab Z9_-+/.=$])([{}\"'\\:\n\t") + ["x.", "w-", "aws ", "git ", "AB", "\\x0f", "  "]


def _texts(examples: list[str], seed: int) -> list[str]:
    """The examples, and texts of them cut, glued to noise on either side (the characters the
    lookbehinds read) and joined, so each lookbehind is both met and failed."""
    rng = random.Random(seed)
    texts = list(examples)
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 4)):
            example = rng.choice(examples)
            cut = rng.randint(len(example) // 2, len(example))
            parts += ["".join(rng.choices(_NOISE, k=rng.randint(0, 3))), example[:cut]]
        parts.append("".join(rng.choices(_NOISE, k=rng.randint(0, 3))))
        texts.append("".join(parts))
    return texts


def _matches(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(match.span(), match.groupdict()) for match in pattern.finditer(text)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_literal_first_finds_what_the_lookbehind_first_spelling_found(name: str) -> None:
    pattern, before, examples = CASES[name]
    old = re.compile(before, pattern.flags)
    assert pattern.pattern != before
    found = 0
    for text in _texts(examples, seed=len(name)):
        assert _matches(pattern, text) == _matches(old, text), text
        found += bool(_matches(old, text))
    assert found >= 30


def test_literal_first_moves_the_assertion_after_the_literal() -> None:
    assert literal_first(r"(?<![\w.])", "a+b") == r"a\+b(?<![\w.]a\+b)"
    assert literal_first("(?<=aws )", "configure") == "configure(?<=aws configure)"
    with pytest.raises(ValueError, match="lookbehind"):
        literal_first("(?=x)", "a")
