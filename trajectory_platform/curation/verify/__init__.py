"""The verifier cascade (curation §Staged verifier cascades): stages, sinks, ledger, triage, roles.

Public API: :func:`verify_episodes` -> :class:`CascadeResult` (``.verdicts``, ``.ledger``,
``.triage``), and the Arrow forms in :mod:`.tables`. See ``docs/verification.md``.
"""

from trajectory_platform.curation.verify.cascade import CascadeConfig, CascadeResult, verify_episodes
from trajectory_platform.curation.verify.context import FixtureContext
from trajectory_platform.curation.verify.dynamic import DynamicConfig, fixture_context
from trajectory_platform.curation.verify.tables import (
    VERDICTS_SCHEMA,
    VERIFIED_SCHEMA,
    turn_reasons,
    verdicts_table,
    verified_table,
)
from trajectory_platform.curation.verify.verdicts import ROLES, SINKS, STAGES, EpisodeVerdict, StageVerdict

__all__ = [
    "ROLES",
    "SINKS",
    "STAGES",
    "VERDICTS_SCHEMA",
    "VERIFIED_SCHEMA",
    "CascadeConfig",
    "CascadeResult",
    "DynamicConfig",
    "EpisodeVerdict",
    "FixtureContext",
    "StageVerdict",
    "fixture_context",
    "turn_reasons",
    "verdicts_table",
    "verified_table",
    "verify_episodes",
]
