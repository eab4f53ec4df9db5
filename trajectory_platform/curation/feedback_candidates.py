"""The ``feedback_candidates`` stage: feedback and the redacted corpus in, judged candidate
environments out (what the asset calls, once).

Candidates are built from ``redacted_corpus``, never from ``verified_traces``: a candidate's
reference is S0 plus the episode's workspace diff plus the user's edit, and it is stored in the
candidates table and written to ``artifacts/feedback_candidates/`` to be imported as an
environment, which feeds gym tasks and training. So the episode side must be the redacted one, and
the user's edit is redacted with it under the corpus's salt
(:class:`~trajectory_platform.curation.redact.feedback.FeedbackRedactor`, handed to
:func:`~trajectory_platform.environments.from_feedback.candidates_from_feedback`: the environments
layer sits below redaction and says what it needs of it). Only the episodes some feedback names
are read, one Parquet file (a day of the corpus) at a time with the filter pushed into the reader,
so no step holds the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from trajectory_platform.curation.keys import derive_key
from trajectory_platform.curation.redact.feedback import FeedbackRedactor
from trajectory_platform.environments.format import TaskEnvironment
from trajectory_platform.environments.from_feedback import (
    FeedbackOutcome,
    ReviewFolder,
    candidates_from_feedback,
    validate_candidates,
    write_validated,
)
from trajectory_platform.environments.validate import DEFAULT_RUNS
from trajectory_platform.traces.feedback import table_to_feedback
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import EPISODE_SCHEMA, table_to_episodes

TRIAGE_COLUMN = "triage_class"
"""The verifier's triage verdict, carried through redaction beside each episode."""


def corpus_episodes(
    files: Sequence[Path], wanted: set[str]
) -> tuple[dict[str, Episode], dict[str, str | None]]:
    """The episodes of the corpus ``files`` whose id is in ``wanted``, and their triage classes."""
    columns = [*EPISODE_SCHEMA.names, TRIAGE_COLUMN]
    episodes: dict[str, Episode] = {}
    triage: dict[str, str | None] = {}
    for path in files if wanted else []:
        day = pq.read_table(path, columns=columns, filters=[("episode_id", "in", sorted(wanted))])
        classes = day[TRIAGE_COLUMN].to_pylist()
        for episode, failure_class in zip(table_to_episodes(day), classes, strict=True):
            episodes[episode.episode_id] = episode
            triage[episode.episode_id] = failure_class
    return episodes, triage


def left_out_episodes(rejects: pa.Table) -> dict[str, str]:
    """Episode id to the reason key the redaction stage left it out for (``redaction_rejects``)."""
    ids, reasons = rejects["episode_id"].to_pylist(), rejects["reason"].to_pylist()
    return dict(zip(ids, reasons, strict=True))


def propose_candidates(
    feedback: pa.Table,
    corpus_files: Sequence[Path],
    rejects: pa.Table,
    environments: Callable[[str], TaskEnvironment | None],
    master_key: bytes,
    out: Path,
    runs: int = DEFAULT_RUNS,
) -> tuple[FeedbackOutcome, ReviewFolder]:
    """Link ``feedback`` (a ``production_feedback`` table) to the redacted corpus's episodes, turn
    each edit on a policy gap into a candidate built from redacted text only (the redaction salt
    derived from ``master_key`` as the corpus derived it, so pseudonyms match), validate the
    candidates and write the validated ones under ``out``. Feedback on an episode in ``rejects``
    (``redaction_rejects``: left out of the corpus) is counted with that stage's reason. Returns the
    outcome and what was written to (and removed from) ``out``."""
    records = table_to_feedback(feedback)
    episodes, triage = corpus_episodes(corpus_files, {r.episode_id for r in records})
    redaction = FeedbackRedactor(derive_key(master_key, "redaction"))
    outcome = validate_candidates(
        candidates_from_feedback(
            records, episodes, environments, triage, redaction=redaction, left_out=left_out_episodes(rejects)
        ),
        runs,
    )
    return outcome, write_validated(outcome, out)
