"""A key cut into numbered fields: ``{"key_part1": "ghp_aB3", "key_part2": "dE5fG", ...}``, an
element's ``part1="..." part2="..."`` attributes, a log's ``token_1=...`` then ``token_2=...`` lines.

No field holds enough of the key for a pattern, and each piece alone is too short to score as
random. Pieces are joined only on the evidence that they are one value's: the fields share one
name but for a number, the numbers run 0 or 1, 2, 3... in the order written, and nothing but
separators (a comma, spaces, one line break and a log line's prefix) stands between one field and
the next. The joined value is judged as one: a known format or a random token (pass 1's
detectors), or a value its name's class accepts (``acceptable_value``, the name stripped of its
number and of ``part``/``chunk``...). A digest's name (``sha_part1``) joins nothing. Each piece of
a joined key is then redacted where it stands; a piece under ``SPLIT_PIECE_MIN`` characters is
kept, as for keys cut across shell variables (pass 3 replaces a value wherever it recurs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import (
    SPLIT_PIECE_MIN,
    acceptable_value,
    find_secrets,
    names_a_digest,
)
from trajectory_platform.curation.redact.model import Finding, RedactionConfig

_FIELD = re.compile(
    r"(?P<qn>[\"']?)(?P<stem>[A-Za-z][\w.-]{0,40}?)[_.-]?(?P<n>\d{1,2})(?P=qn)[ \t]*[:=][ \t]*"
    r"(?:\"(?P<dq>[^\"\\\n]{1,64})\"|'(?P<sq>[^'\\\n]{1,64})'|(?P<bare>[^\s\"',;}\]<>]{1,64}))"
)
"""A field whose name ends with a number, and its value (quoted or bare)."""
_HINT = re.compile(r"[A-Za-z_.-][01][\"']?[ \t]*[:=].{0,200}?[A-Za-z_.-][12][\"']?[ \t]*[:=]", re.DOTALL)
"""A field numbered 0 or 1 and, near it, one numbered 1 or 2: the cheap test before any chain is read."""
_GAP = re.compile(r"[ \t]*[,;]?[ \t]*(?:\r?\n[^\n\"'=]{0,60}?)?")
"""What may stand between one numbered field and the next: separators, or a line break and a log
line's prefix (a time stamp, a level)."""
_PART_WORD = re.compile(r"(?i)[_.-]?(?:part|chunk|piece|seg(?:ment)?|frag(?:ment)?|split|p)$")
"""A word naming the field a piece (``key_part``, ``token_chunk``), read off before the name's
class is asked."""
_CHAIN_MIN = 2


def _chains(text: str) -> Iterator[list[re.Match[str]]]:
    """Runs of numbered fields of one name, numbered in order from 0 or 1, apart by a gap alone."""
    chain: list[re.Match[str]] = []
    if _HINT.search(text) is None:
        return
    for field in _FIELD.finditer(text):
        previous = chain[-1] if chain else None
        if (
            previous is not None
            and field.group("stem") == previous.group("stem")
            and int(field.group("n")) == int(previous.group("n")) + 1
            and _GAP.fullmatch(text, previous.end(), field.start()) is not None
        ):
            chain.append(field)
            continue
        if len(chain) >= _CHAIN_MIN:
            yield chain
        chain = [field] if int(field.group("n")) in (0, 1) else []
    if len(chain) >= _CHAIN_MIN:
        yield chain


def _value_group(field: re.Match[str]) -> str:
    return "dq" if field.group("dq") is not None else "sq" if field.group("sq") is not None else "bare"


def find_split_fields(text: str, config: RedactionConfig) -> Iterator[Finding]:
    """Each piece of a key cut into numbered fields (module docstring)."""
    for chain in _chains(text):
        stem = chain[0].group("stem")
        name = _PART_WORD.sub("", stem) or stem
        if names_a_digest(name):
            continue
        values = [field.group(_value_group(field)) for field in chain]
        joined = "".join(values)
        name_class = credential_class(name)
        found = [f for f in find_secrets(joined, config) if f.end - f.start >= len(joined) // 2]
        if not found and not (name_class and acceptable_value(joined, True, name_class, "")):
            continue
        kind = found[0].kind if found else "PASSWORD" if name_class == "password" else "SECRET"
        for field, value in zip(chain, values, strict=True):
            if len(value) >= SPLIT_PIECE_MIN:
                group = _value_group(field)
                yield Finding(kind, field.start(group), field.end(group), value, "split_fields")
