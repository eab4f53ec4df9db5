"""Whether a run of lowercase letters could be an English word, by how English spells.

A statement in prose ("the new token is pfhqgtqkpzn", "log in with root and rpjdgxtgcbv") gives a
value that no digit, symbol or case marks as chosen: only that it is no word tells it from "the
token is refreshed" or "log in with root and sudo". No word list ships with the platform (none
in its environment, and the system's ``/usr/share/dict`` is absent on the hosts it runs on), so the
test is a limit of English spelling: hardly an English word runs five consonants together (``y``
counts as a vowel: ``rhythm``; ``strength`` runs four; ``strengths`` and ``twelfths``, five, are
the rare exceptions). Random lowercase letters break it about half the time, a string of
consonants always; a code identifier run together (``appendstring``) can too, which is why only
rules that already found a credential's place (a statement's link, a user's pair, a password
column) ask it.

:func:`random_letters` is that test for a key's value under a key's or a token's name
(``api_token = "qwhxkzpmvbtrlsdf"``), letters in one case with no digit, symbol or case flip to
mark them: a long run English cannot spell, or three consonants together at a fifth of its places
or more (random letters do at about two in five, English words seldom: ``strengths`` is the rare
one); together they catch 85-98% of random runs of 12 to 32 letters.
"""

from __future__ import annotations

import re

_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxz]{5}")
MIN_LETTERS = 6
"""Shorter runs of letters are abbreviations as often as values (``hmac``, ``ldap``)."""


_CONSONANT_TRIPLE = re.compile(r"(?=[bcdfghjklmnpqrstvwxz]{3})")
RANDOM_LETTERS_MIN = 12
"""The shortest run of letters in one case read as a key's (shorter: a word or an abbreviation)."""
_NAMING_WORD = re.compile(r"token|key|secret|pass|auth|example|sample|dummy|placeholder|default|test")
"""A word inside the value that makes it a name or a placeholder (``csrfmiddlewaretoken``)."""


def random_letters(value: str) -> bool:
    """Is ``value`` a run of letters in one case that reads as random, not spelled (module
    docstring)? Never a run with a credential's or a placeholder's word inside."""
    if len(value) < RANDOM_LETTERS_MIN or not (value.isascii() and value.isalpha()):
        return False
    if not (value.islower() or value.isupper()):
        return False
    lower = value.lower()
    if _NAMING_WORD.search(lower):
        return False
    return unspellable(lower) or len(_CONSONANT_TRIPLE.findall(lower)) >= 0.2 * (len(lower) - 2)


def unspellable(value: str) -> bool:
    """Is ``value`` lowercase letters that English cannot spell (module docstring)?"""
    if len(value) < MIN_LETTERS or not (value.isascii() and value.isalpha() and value.islower()):
        return False
    return _CONSONANT_RUN.search(value) is not None


_LONE_SMALL_LETTER = re.compile(r"[A-Z][a-z][A-Z]")


def case_flips_at_random(value: str) -> bool:
    """Do the letters of ``value`` change case as a random key's do: more than twice, and at more
    than a third of its places or around one small letter (``wJalrXUtnFEMI``)? Names change case
    seldom, once per word (``src``, ``MyProject``, ``HuggingFaceTB``, ``OpenGVLab``)."""
    flips = sum(a.islower() != b.islower() for a, b in zip(value, value[1:], strict=False))
    return flips > 2 and (3 * flips > len(value) or _LONE_SMALL_LETTER.search(value) is not None)
