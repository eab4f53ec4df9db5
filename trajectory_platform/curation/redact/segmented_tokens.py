"""Keys made of random segments joined by ``_``, ``.`` or ``-`` (``lsv2_pt_<hex>_<hex>``,
``<id>.<secret>``, ``v1.0-<hex>``, ``<hex32>-us12``).

The entropy pass scores a candidate whole: a run joined by ``_`` reads as a snake_case name (hex
with underscores scores below the base64 threshold), and ``.`` ends a candidate, so three
16-character random parts joined by dots were never scored at all. Many vendors mint keys this
way (LangSmith, ``id_secret`` pairs, dotted three-part tokens that are not JWTs). A name's segments
are words; a key's are random. So each segment of 16 characters or more is scored alone, with all
the exemptions of a lone candidate (object ids, named and listed digests, a file extension after
it), and one random segment makes the whole run the secret: keeping the rest would keep a
prefix that names the vendor and the other random halves.

A ``-``-joined run is scored whole as one base64-alphabet token, a bar a hex body never reaches, so
hex glued to a version or a region by ``-`` was kept. Split on ``-`` too, a hex piece after a word
that names a digest or a cache (``Linux-pip-<sha256>``, :func:`.detectors.named_digest_piece`) and
a token whose whole shape says what it is (a W3C ``traceparent``, :func:`.detectors.structured_name`)
stay; UUIDs and ``git describe`` names have no piece of 16 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.detectors import (
    named_as_id,
    named_digest_piece,
    public_by_context,
    random_candidate,
    structured_name,
)
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE

_SEGMENTED = re.compile(r"(?<![\w./\-+])[A-Za-z0-9]+(?:[_.-][A-Za-z0-9]+)+(?![\w/+]|[.-]\w)")
MIN_SEGMENT = 16
"""Shorter segments are words, versions and ids; a random 16-character part is 80+ bits."""
_CASE_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
MAX_RANDOM_RUN = 3.0
"""Mean length of a segment's case/digit runs below which it is no name. A name's runs are words
(``Http2TestExchangeImpl``: Http, 2, Test, Exchange, Impl); a random segment changes character class
every one or two characters. Hex is scored as hex (its digit runs are long, and it is never a name)."""


def _reads_as_words(segment: str) -> bool:
    if re.fullmatch(r"[0-9a-fA-F]+", segment):
        return False
    runs = _CASE_RUN.findall(segment)
    capitalised = [run for run in runs if run[0].isupper() and run[1:].islower() and len(run) >= 3]
    if len(capitalised) >= 2 and max(map(len, capitalised)) >= 4:
        return True  # CamelCase class names with version digits: Wav2Vec2BertForCTC, HunYuanMoEV1ForCausalLM
    return sum(map(len, runs)) >= MAX_RANDOM_RUN * len(runs)


def find_segmented_tokens(text: str) -> Iterator[Finding]:
    """Runs of ``_``/``.``-joined segments in ``text`` of which one long segment scores as random.

    Reported as the entropy pass's findings are (detector ``entropy``), so that the same rules
    apply to them: a value under a JSON key that names an id (``"JobRunId"``) is left alone.
    """
    if "_" not in text and "." not in text and "-" not in text:
        return
    digests: dict[tuple[int, int], bool] = {}
    for match in _SEGMENTED.finditer(text):
        token = match.group()
        if len(token) < 2 * MIN_SEGMENT or PSEUDONYM_RE.search(token):
            continue
        if structured_name(token) or public_by_context(text, match.start(), match.end()):
            continue
        if named_as_id(text, match.start(), token):
            continue
        offset = match.start()
        segments = re.split(r"[_.-]", token)
        for index, segment in enumerate(segments):
            if (
                len(segment) >= MIN_SEGMENT
                and not _reads_as_words(segment)
                and not (index > 0 and text[offset - 1] == "-" and named_digest_piece(segments, index))
                and random_candidate(segment, text, offset, digests)
            ):
                yield Finding("SECRET", match.start(), match.end(), token, "entropy")
                break
            offset += len(segment) + 1
