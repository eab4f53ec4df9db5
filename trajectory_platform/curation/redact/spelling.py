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
"""

from __future__ import annotations

import re

_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxz]{5}")
MIN_LETTERS = 6
"""Shorter runs of letters are abbreviations as often as values (``hmac``, ``ldap``)."""


def unspellable(value: str) -> bool:
    """Is ``value`` lowercase letters that English cannot spell (module docstring)?"""
    if len(value) < MIN_LETTERS or not (value.isascii() and value.isalpha() and value.islower()):
        return False
    return _CONSONANT_RUN.search(value) is not None
