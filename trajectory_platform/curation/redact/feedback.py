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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from trajectory_platform.curation.redact.episode import redact_row
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE
from trajectory_platform.traces.feedback import FEEDBACK_TEXT_FIELDS, FeedbackRecord
from trajectory_platform.traces.record import Episode


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
    order, and every finding. Nothing given is modified."""
    beside = {
        _slot(i, name): getattr(record, name)
        for i, record in enumerate(records)
        for name in FEEDBACK_TEXT_FIELDS
    }
    redacted, texts, findings = redact_row(episode, beside, salt, config)
    out = [
        dataclasses.replace(record, **{name: texts[_slot(i, name)] for name in FEEDBACK_TEXT_FIELDS})
        for i, record in enumerate(records)
    ]
    return redacted, out, findings


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
