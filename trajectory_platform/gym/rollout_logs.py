"""Where the gym's scripted rollout writes its logs: one name for the writer
(:func:`~trajectory_platform.gym.rollout.rollout`) and for the mixture's default anchor source
(``MixtureSettings.anchor_sources``), kept apart from the rollout so reading the name loads no runtime."""

from __future__ import annotations

import datetime as dt

ROLLOUT_LOGS = "*/gym-rollout-seed*.jsonl"
"""The rollout's logs as a pattern over an episode's ``source_file`` (any day folder, any seed)."""


def rollout_log(day: dt.date, seed: int) -> str:
    """The rollout's log of ``day`` for ``seed``, relative to its output folder (the trace source)."""
    return f"{day.isoformat()}/gym-rollout-seed{seed}.jsonl"
