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
wrote under its label, echoed bare in the user's note), nor that the edit's scan labelled a value
with another kind than the corpus did (another pseudonym: the edit's context line would no longer
match). A pseudonym is keyed, though: its digest is ``HMAC(salt, value)``, whatever the kind. So
after the scan (:func:`agree_with_episode`), a pseudonym in the feedback whose digest the episode
carries takes the episode's kind, and each piece of what is left that could be a value (a
whitespace-delimited run, and its sub-runs cut next to any punctuation) is keyed under the same
salt: one whose digest the episode carries is that value and gets that pseudonym. After the scan,
not before: a value replaced first would hide its label from the scan, and the scan would miss the
shorter value under it that the note echoes. A raw episode gives the same result through its
symbol table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trajectory_platform.curation.redact.detectors import MAX_VALUE_SPACES
from trajectory_platform.curation.redact.episode import redact_row, string_slots
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pseudonym import (
    PSEUDONYM_RE,
    SymbolTable,
    pseudonym,
    pseudonym_digest,
)
from trajectory_platform.traces.feedback import FEEDBACK_TEXT_FIELDS, FeedbackRecord
from trajectory_platform.traces.record import Episode

MAX_RUN = 256
"""Longest whitespace-delimited run whose pieces are keyed (a longer one is a blob, not a value)."""
MAX_CUTS = 48
"""Most cut points of a run tried pairwise (48 points: about 1,100 keyed pieces)."""
MAX_SPACED_CUTS = 8
"""Cut points tried at each end of a value with spaces (the last of its first run, the first of
its last run): a value's edges lie next to the text around it, and this bounds the keyed pieces."""

_RUN = re.compile(r"\S+")
_CUT = re.compile(r"(?<=[^A-Za-z0-9])|(?=[^A-Za-z0-9])")
"""Where a value may start or end inside a run: next to any character but a letter or a digit
(a value ends its punctuation anywhere: ``Prl23Db#@`` in ``Prl23Db#@:password:...``)."""


def carried_pseudonyms(episode: Episode) -> dict[str, str]:
    """The pseudonyms ``episode`` carries: each digest and the kind it is labelled with."""
    carried: dict[str, str] = {}
    for _path, owner, attr, _context in string_slots(episode):
        for match in PSEUDONYM_RE.finditer(getattr(owner, attr) or ""):
            kind, digest = _kind_and_digest(match)
            carried.setdefault(digest, kind)
    return carried


def _kind_and_digest(match: re.Match[str]) -> tuple[str, str]:
    return (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))


_SPACED = re.compile(r" (?:\S+ )*")
"""What lies between the first and the last run of a value with spaces: runs one space apart."""


def _cuts(run: re.Match[str]) -> list[int]:
    """Where a value may start or end in ``run``: its ends and next to its punctuation."""
    cuts = {run.start(), run.end(), *(run.start() + m.start() for m in _CUT.finditer(run.group()))}
    return sorted(cuts)[:MAX_CUTS]


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every piece of ``text`` that could be one value, longest first: first
    the pieces that span runs one space apart (a value may hold up to
    :data:`~.detectors.MAX_VALUE_SPACES` spaces: ``hunter2 rocks``, which the scan replaced), then
    each run's own pieces, longest first per run."""
    runs = [run for run in _RUN.finditer(text) if run.end() - run.start() <= MAX_RUN]
    for spaces in range(MAX_VALUE_SPACES, 0, -1):
        for first, last in zip(runs, runs[spaces:], strict=False):
            between = text[first.end() : last.start()]
            if between.count(" ") != spaces or not _SPACED.fullmatch(between):
                continue  # not one value: a line break, a tab or two spaces apart
            heads = [cut for cut in _cuts(first) if cut < first.end()][-MAX_SPACED_CUTS:]
            tails = [cut for cut in _cuts(last) if cut > last.start()][:MAX_SPACED_CUTS]
            yield from ((head, tail) for head in heads for tail in reversed(tails))
    for run in runs:
        cuts = _cuts(run)
        for width in range(len(cuts) - 1, 0, -1):
            for left in range(len(cuts) - width):
                yield cuts[left], cuts[left + width]


def _plain_word(value: str, kind: str, salt: bytes) -> bool:
    """The engine's rule for a password that reads as a name in code (``postgres``): replaced
    where its label names it, never where it is merely echoed (``image: postgres:16``)."""
    table = SymbolTable(salt)
    table.add(value, kind)
    return table.is_plain_word(value)


def agree_with_episode(text: str, carried: Mapping[str, str], salt: bytes) -> str:
    """Redacted feedback ``text`` made to agree with the episode's pseudonyms (``carried``): a
    pseudonym of a value the episode carries takes the episode's kind (its form kept), and a piece
    whose keyed digest the episode carries (a value the episode's redaction replaced, echoed where
    no detector reads it) becomes that pseudonym, unless it reads as a name in code, whose echoes
    the engine leaves (:meth:`SymbolTable.is_plain_word`)."""
    if not carried:
        return text
    found: list[tuple[int, int, str]] = []
    taken = bytearray(len(text))
    for match in PSEUDONYM_RE.finditer(text):
        kind, digest = _kind_and_digest(match)
        taken[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
        if carried.get(digest, kind) != kind:
            found.append((match.start(), match.end(), pseudonym(carried[digest], digest, not match.group(1))))
    for start, end in _pieces(text):
        if any(taken[start:end]):
            continue
        value = text[start:end]
        digest = pseudonym_digest(salt, value)
        if digest in carried and not _plain_word(value, carried[digest], salt):
            found.append((start, end, pseudonym(carried[digest], digest)))
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
    order, and every finding. The feedback is then made to agree with the pseudonyms the episode
    carries (:func:`agree_with_episode`), which matters where the episode comes redacted already.
    Nothing given is modified."""
    beside = {
        _slot(i, name): getattr(record, name)
        for i, record in enumerate(records)
        for name in FEEDBACK_TEXT_FIELDS
    }
    redacted, texts, findings = redact_row(episode, beside, salt, config)
    carried = carried_pseudonyms(redacted)
    out = []
    for i, record in enumerate(records):
        fields: dict[str, Any] = {
            name: _agreed(texts[_slot(i, name)], carried, salt) for name in FEEDBACK_TEXT_FIELDS
        }
        out.append(dataclasses.replace(record, **fields))
    return redacted, out, findings


def _agreed(text: str | None, carried: Mapping[str, str], salt: bytes) -> str | None:
    return None if text is None else agree_with_episode(text, carried, salt)


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
