"""Users' feedback redacted with the episode it is about, through one symbol table.

A user's edit is a diff against the agent's final workspace, so its context lines quote what the
agent wrote (a key it put into ``deploy.env``) and its added lines may paste a secret of the user's
own. Redacted alone, the edit could give a value another kind, hence another pseudonym, than the
episode's diff gave it, and the edit would no longer apply to the redacted final state. Redacted
with the episode (:func:`~trajectory_platform.curation.redact.episode.redact_row`, the texts
beside it), every value gets one pseudonym in both, and a value found in only one of them is also
replaced where the other merely echoes it. An episode of the redacted corpus is a fixed point of
redaction (redacting redacted text changes nothing), so passing one here changes it only where the
feedback reveals a value its own scan missed.

The corpus's episode no longer holds its values, only their pseudonyms, so the symbol table alone
cannot see that a user pasted one of them where no detector would find it (a password the agent
wrote under its label, echoed bare in the user's note). A pseudonym is keyed, though: its digest is
``HMAC(salt, value)``. So before the scan, each piece of the feedback that could be a value (a
whitespace-delimited run, and its sub-runs cut where letters and digits meet punctuation) is keyed
under the same salt, and one whose digest is a pseudonym the episode carries is that value: it is
replaced by that very pseudonym (:func:`echoes_of_redacted_values`). A raw episode gives the same
result through its symbol table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from trajectory_platform.curation.redact.episode import redact_row, string_slots
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE, pseudonym, pseudonym_digest
from trajectory_platform.traces.feedback import FEEDBACK_TEXT_FIELDS, FeedbackRecord
from trajectory_platform.traces.record import Episode

MAX_RUN = 256
"""Longest whitespace-delimited run whose pieces are keyed (a longer one is a blob, not a value)."""
MAX_CUTS = 48
"""Most cut points of a run tried pairwise (48 points: about 1,100 keyed pieces)."""

_RUN = re.compile(r"\S+")
_CUT = re.compile(r"(?<=[A-Za-z0-9])(?=[^A-Za-z0-9])|(?<=[^A-Za-z0-9])(?=[A-Za-z0-9])")
"""Where a value may start or end inside a run: between a letter or digit and anything else."""


def carried_pseudonyms(episode: Episode) -> dict[str, str]:
    """The pseudonyms ``episode`` carries, as their digest and their angle form (the one a diff's
    text takes; a shell-safe pseudonym's value gets the angle form of the same kind)."""
    carried: dict[str, str] = {}
    for _path, owner, attr, _context in string_slots(episode):
        for match in PSEUDONYM_RE.finditer(getattr(owner, attr) or ""):
            kind, digest = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
            carried.setdefault(digest, pseudonym(kind, digest))
    return carried


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every piece of ``text`` that could be one value, longest first per run."""
    for run in _RUN.finditer(text):
        if run.end() - run.start() > MAX_RUN:
            continue
        cuts = sorted(
            {run.start(), run.end(), *(run.start() + m.start() for m in _CUT.finditer(run.group()))}
        )
        cuts = cuts[:MAX_CUTS]
        for width in range(len(cuts) - 1, 0, -1):
            for left in range(len(cuts) - width):
                yield cuts[left], cuts[left + width]


def echoes_of_redacted_values(text: str, carried: Mapping[str, str], salt: bytes) -> str:
    """``text`` with every piece whose keyed digest is one of ``carried``'s replaced by that
    pseudonym: a value the episode's redaction replaced, echoed here where no detector may read it."""
    if not carried:
        return text
    found: list[tuple[int, int, str]] = []
    taken = bytearray(len(text))
    for start, end in _pieces(text):
        if any(taken[start:end]):
            continue
        known = carried.get(pseudonym_digest(salt, text[start:end]))
        if known is not None:
            found.append((start, end, known))
            taken[start:end] = b"\x01" * (end - start)
    for start, end, replacement in sorted(found, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _slot(index: int, name: str) -> str:
    """The name a record's text travels under (``Finding.field``): ``feedback[2].edit_diff``."""
    return f"feedback[{index}].{name}"


def redact_feedback(
    episode: Episode,
    records: Sequence[FeedbackRecord],
    salt: bytes,
    config: RedactionConfig | None = None,
) -> tuple[Episode, list[FeedbackRecord], list[Finding]]:
    """``episode`` and every free-text field (:data:`FEEDBACK_TEXT_FIELDS`) of ``records`` (the
    feedback about it) redacted together: the redacted episode, the redacted records in the same
    order, and every finding. Values the episode carries only as pseudonyms are found in the
    feedback by their keyed digest first (:func:`echoes_of_redacted_values`). Nothing given is
    modified."""
    carried = carried_pseudonyms(episode)
    beside = {
        _slot(i, name): _echoes(getattr(record, name), carried, salt)
        for i, record in enumerate(records)
        for name in FEEDBACK_TEXT_FIELDS
    }
    redacted, texts, findings = redact_row(episode, beside, salt, config)
    out = [
        dataclasses.replace(record, **{name: texts[_slot(i, name)] for name in FEEDBACK_TEXT_FIELDS})
        for i, record in enumerate(records)
    ]
    return redacted, out, findings


def _echoes(text: str | None, carried: Mapping[str, str], salt: bytes) -> str | None:
    return None if text is None else echoes_of_redacted_values(text, carried, salt)


@dataclass(frozen=True)
class FeedbackRedactor:
    """The redaction that building feedback candidates needs
    (:class:`~trajectory_platform.environments.from_feedback.FeedbackRedaction`), under ``salt``:
    the corpus's redaction salt, so the pseudonyms match the ones the corpus stores."""

    salt: bytes
    config: RedactionConfig | None = None

    def redact(
        self, episode: Episode, records: Sequence[FeedbackRecord]
    ) -> tuple[Episode, list[FeedbackRecord]]:
        """:func:`redact_feedback` without its findings."""
        redacted, out, _ = redact_feedback(episode, records, self.salt, self.config)
        return redacted, out

    def redacted_values(self, text: str) -> int:
        """Pseudonyms in ``text`` (either form)."""
        return sum(1 for _ in PSEUDONYM_RE.finditer(text))
