"""Wallet recovery phrases (BIP39 mnemonics): the private key of a crypto wallet, spelled as words.

A phrase is 12, 15, 18, 21 or 24 words of a fixed list of 2,048 lowercase words of 3 to 8 letters.
No copy of the list ships in the environment, so the class is recognised by its shape, which
ordinary text rarely takes: exactly one of those word counts, every word lowercase letters of list
length, the run ending where the quoted value or line ends, and a mnemonic/seed/recovery-phrase
label in the 80 characters before it. Wallets also display the phrase as a numbered list (``1. arena`` ...
``12. zoo``); a list numbered 1..N with N a phrase length and one such word per line is the same
secret without a label. Either form is reported whole, as one value, so that no ordinary word of
the phrase becomes a table value replaced everywhere else in the episode.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.model import Finding

PHRASE_LENGTHS = frozenset({12, 15, 18, 21, 24})
_WORD = r"[a-z]{3,8}"
_INLINE = re.compile(rf"(?<![\w-])(?<![\w,] ){_WORD}(?: {_WORD}){{11,23}}(?![\w-]| \w|,)")
_LABEL = re.compile(
    r"mnemonic|seed|phrase|(?:recovery|secret|backup|wallet)[ _-]?words",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(rf"^[ \t]*(\d{{1,2}})[.):]?[ \t]+({_WORD})[ \t]*$", re.MULTILINE)


def _inline_phrases(text: str) -> Iterator[Finding]:
    for match in _INLINE.finditer(text):
        before = text[max(0, match.start() - 80) : match.start()]
        if len(match.group().split()) in PHRASE_LENGTHS and _LABEL.search(before):
            yield Finding("SEED_PHRASE", match.start(), match.end(), match.group(), "seed:phrase")


def _numbered_lists(text: str) -> Iterator[Finding]:
    run: list[re.Match[str]] = []
    for item in [*_LIST_ITEM.finditer(text), None]:
        follows = (
            item is not None
            and run
            and int(item.group(1)) == len(run) + 1
            and text.count("\n", run[-1].end(), item.start()) == 1
        )
        if item is not None and not follows and int(item.group(1)) == 1:
            if len(run) in PHRASE_LENGTHS:
                yield _list_finding(text, run)
            run = [item]
        elif follows and item is not None:
            run.append(item)
        else:
            if len(run) in PHRASE_LENGTHS:
                yield _list_finding(text, run)
            run = []


def _list_finding(text: str, run: list[re.Match[str]]) -> Finding:
    start, end = run[0].start(2), run[-1].end(2)
    return Finding("SEED_PHRASE", start, end, text[start:end], "seed:list")


def find_seed_phrases(text: str) -> Iterator[Finding]:
    """Labelled inline phrases and numbered-list phrases in ``text``."""
    if " " not in text:
        return
    yield from _inline_phrases(text)
    if "1" in text and "\n" in text:
        yield from _numbered_lists(text)
