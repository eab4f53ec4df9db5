"""The collapse watch as a blocking check on each round's ``round_verified``.

Curation §Collapse: a round whose distinct action sequences, acceptance, fabrication or runaway
figures moved the wrong way beyond their tolerances since the previous round halts the loop, with
a reason per figure (:func:`~trajectory_platform.rounds.collapse.collapse_decision`). The check sits on
the round's verified samples, the first place the figures exist, and blocks: the round's mixture,
dataset, checkpoint and scorecard do not run on a collapsed round, so the round sensor never sees a
promote for it. Round 1 has no previous round to compare with and passes, saying so.
"""

from __future__ import annotations

from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MetadataValue

from trajectory_platform.rounds.collapse import CollapseDecision, RoundHealth, collapse_decision
from trajectory_platform.rounds.settings import CollapseSettings

COLLAPSE_CHECK = AssetCheckSpec(
    "collapse_watch",
    asset="round_verified",
    blocking=True,
    description="Blocking: the round's distinct action sequences per task, acceptance, fabricated-"
    "observation and runaway rates against the previous round's, within the declared tolerances.",
)

HEALTH_KEY = "round_health"
"""``round_verified`` metadata: the round's collapse figures, which the next round compares with."""


def collapse_watch(
    current: RoundHealth, previous: dict | None, settings: CollapseSettings
) -> tuple[CollapseDecision, AssetCheckResult]:
    """The halt decision against ``previous`` (the previous round's recorded figures; ``None`` for
    the first round) and the check result that carries it."""
    if previous is None:
        decision = CollapseDecision(False, ())
        note = "first round: no previous round to compare with"
    else:
        decision = collapse_decision(RoundHealth(**previous), current, settings)
        note = "; ".join(decision.reasons) or f"within tolerance of round {previous['round_index']}"
    result = AssetCheckResult(
        check_name=COLLAPSE_CHECK.name,
        passed=not decision.halt,
        severity=AssetCheckSeverity.ERROR,
        description=note,
        metadata={
            "halt": decision.halt,
            "reasons": MetadataValue.json(list(decision.reasons)),
            "current": MetadataValue.json(current.to_dict()),
            **({"previous": MetadataValue.json(previous)} if previous is not None else {}),
        },
    )
    return decision, result
