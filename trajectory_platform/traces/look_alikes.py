"""Which characters look like an ASCII letter or digit (Unicode TR39's confusables, one table).

Two rules read text as a person sees it, not as its code points: redaction (a credential spelled
with Cyrillic letters is the credential) and the linked-log instruction check (``mսl()`` with an
Armenian ``ս`` points at ``mul``). Both read this table, so a look-alike one of them folds the
other folds too. It comes from Unicode's own data through the ``confusable-homoglyphs`` package,
never from a list written here.
"""

from __future__ import annotations

import functools
import itertools
import string
import unicodedata


@functools.cache
def latin_look_alikes() -> dict[str, str]:
    """Each non-ASCII character Unicode's confusables table (UTS #39, through the
    ``confusable-homoglyphs`` package: the Unicode Consortium's list, not one written here) gives
    an ASCII letter or digit look-alike for, mapped to it. The table maps a character to its class's
    representative (Cyrillic ``І`` and Latin ``I`` both to ``l``), so the ASCII members of that
    class are candidates too, and a capital reads as a capital where one is among them."""
    from confusable_homoglyphs import confusables

    data = confusables.confusables_data

    def ascii_alnum(entries: list[dict[str, str]]) -> list[str]:
        return [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii() and e["c"].isalnum()]

    members: dict[str, list[str]] = {}
    for letter in string.ascii_letters + string.digits:
        for representative in ascii_alnum(data.get(letter, [])):
            members.setdefault(representative, []).append(letter)
    table = {}
    for char, homoglyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        direct = ascii_alnum(homoglyphs)
        forms = [*direct, *(member for form in direct for member in members.get(form, []))]
        if forms:
            same_case = [form for form in forms if form.isupper() == char.isupper()]
            table[char] = (same_case or forms)[0]
    table.update(_small_capitals())
    return table


def _small_capitals() -> dict[str, str]:
    """Latin small capitals (``ᴀ ʙ ᴄ``, phonetic letters drawn as capitals at a small letter's
    height) by their Unicode names, each read as its capital: the confusables table gives few of
    them, and those as small letters."""
    table = {}
    for code in itertools.chain(range(0x0250, 0x02B0), range(0x1D00, 0x1D80), range(0xA720, 0xA800)):
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(letter := name.rsplit(" ", 1)[1]) == 1:
            table[chr(code)] = letter
    return table
