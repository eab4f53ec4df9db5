"""The declared release gate (fine-tuning 16.11-16.12).

A candidate is promoted only on closed-loop evidence, never on loss: paired acceptance whose
interval on the difference clears the declared margin, no regression in schema robustness,
fabrication, recovery or retention beyond declared tolerances. A candidate missing any
required measurement is held, whatever else it shows; a baseline that proposed no tool call on
renamed schemas (an untrained base) has measured silence there, and the candidate's PRE is compared
with 0, the strictest reference. The decision is bound to the exact
artifact hashes and evaluation manifest it was made on, so it cannot be reused for another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from trajectory_platform.traces.record import canonical_json

REQUIRED_MEASUREMENTS = (
    "acceptance",
    "call_validity",
    "sfa",
    "pre",
    "recovery",
    "fabricated_observation_rate",
    "retention",
    "cost_per_accepted",
)


GATED_REGIME = "renamed"
"""SFA and PRE count as measured only with a value on renamed schemas: the regime the gate reads."""
_REGIME_OF = {"sfa": GATED_REGIME, "pre": GATED_REGIME}


SILENT_BASELINE_PRE = 0.0
"""The PRE a baseline that proposed no call on the gated regime is compared at: none of its calls
recalled a training key. It is the lowest PRE any baseline can have, so the substitution can only
make the candidate's comparison stricter, never looser."""


def silent_baseline(scorecard: dict[str, Any]) -> bool:
    """The paired trials on the gated regime ran, the candidate proposed calls there and the
    baseline none (an untrained base typically): the baseline's SFA and PRE are 0/0, a measured
    silence, not a missing measurement. Read from the scorecard's ``calls_by_regime``."""
    counts = scorecard.get("calls_by_regime") or {}
    candidate = (counts.get("candidate") or {}).get(GATED_REGIME, 0)
    baseline = (counts.get("baseline") or {}).get(GATED_REGIME, 0)
    return bool(candidate) and not baseline


def absent_measurements(scorecard: dict[str, Any]) -> list[str]:
    """Required measurements the gate cannot read: missing, or without a value for either arm
    (SFA and PRE on the gated regime, where a :func:`silent_baseline` counts as measured). One
    definition for the gate and the scorecard's check."""
    absent = []
    silent = silent_baseline(scorecard)
    for name in REQUIRED_MEASUREMENTS:
        value = scorecard.get(name)
        if value is None:
            absent.append(name)
            continue
        if not (isinstance(value, dict) and "candidate" in value):
            continue
        arms = (value.get("candidate"), value.get("baseline"))
        regime = _REGIME_OF.get(name)
        if regime is None:
            gap = any(arm is None for arm in arms)
        else:
            unread = [not isinstance(arm, dict) or arm.get(regime) is None for arm in arms]
            gap = unread[0] or (unread[1] and not silent)
        if gap:
            absent.append(name)
    return absent


@dataclass(frozen=True)
class GateRule:
    """Thresholds of the decision rule, declared up front and recorded with every decision."""

    min_acceptance_ci_low: float = 0.0
    max_pre_increase_renamed: float = 0.02
    max_fabrication_increase: float = 0.0
    max_recovery_drop: float = 0.05
    max_retention_drop: float = 0.05
    version: str = "release_gate_v1"


PROMOTE_REASON = "all required measurements present and within the declared rule"
"""The one reason of a promotion."""

GATE_CLAUSES = ("missing", "acceptance", "pre", "fabricated_observation_rate", "recovery", "retention")
"""The rule's clauses, each a finding's ``clause``: what a reader (the report's next steps) acts on."""


@dataclass(frozen=True)
class GateFinding:
    """One clause the candidate did not clear, and the reason as the decision states it."""

    clause: str
    reason: str


@dataclass(frozen=True)
class GateDecision:
    """``promote`` or ``hold`` with every reason, bound to ``binding_digest``."""

    decision: str
    reasons: list[str]
    rule: dict[str, Any]
    binding: dict[str, Any] = field(default_factory=dict)
    binding_digest: str = ""
    findings: list[GateFinding] = field(default_factory=list)
    """The reasons of a hold by clause (empty on promote)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the scorecard."""
        return asdict(self)


def _arm_value(measure: Any, arm: str, regime: str | None = None) -> float | None:
    """Read ``measure[arm]`` or ``measure[arm][regime]`` when present, else None."""
    if not isinstance(measure, dict):
        return None
    value = measure.get(arm)
    if regime is not None:
        value = value.get(regime) if isinstance(value, dict) else None
    return value if isinstance(value, int | float) else None


def decide(
    scorecard: dict[str, Any],
    artifacts: Mapping[str, str | None],
    evaluation_manifest: dict[str, Any],
    rule: GateRule | None = None,
) -> GateDecision:
    """Apply ``rule`` to ``scorecard`` (the measurements) and bind the result to its inputs.

    ``scorecard`` needs, per REQUIRED_MEASUREMENTS, ``acceptance.difference.ci_low``;
    ``pre`` / ``sfa`` as ``{"candidate": {regime: v}, "baseline": {regime: v}}``; and
    ``recovery`` / ``retention`` / ``fabricated_observation_rate`` as
    ``{"candidate": v, "baseline": v}``.
    """
    rule = rule or GateRule()
    findings: list[GateFinding] = []
    missing = absent_measurements(scorecard)
    if missing:
        findings.append(GateFinding("missing", f"missing required measurement(s): {', '.join(missing)}"))
    acceptance = scorecard.get("acceptance") or {}
    ci_low = (acceptance.get("difference") or {}).get("ci_low")
    if ci_low is None:
        findings.append(GateFinding("acceptance", "no paired interval on the acceptance difference"))
    elif ci_low <= rule.min_acceptance_ci_low:
        findings.append(
            GateFinding(
                "acceptance",
                f"acceptance gain not established: paired interval low end {ci_low:.3f} "
                f"<= declared margin {rule.min_acceptance_ci_low:.3f}",
            )
        )
    checks = (
        ("pre", GATED_REGIME, rule.max_pre_increase_renamed, +1, "PRE on renamed schemas rose"),
        ("fabricated_observation_rate", None, rule.max_fabrication_increase, +1, "fabrication rate rose"),
        ("recovery", None, rule.max_recovery_drop, -1, "recovery success fell"),
        ("retention", None, rule.max_retention_drop, -1, "retention fell"),
    )
    for name, regime, tolerance, sign, text in checks:
        cand = _arm_value(scorecard.get(name), "candidate", regime)
        base = _arm_value(scorecard.get(name), "baseline", regime)
        if base is None and name == "pre" and silent_baseline(scorecard):
            base, text = SILENT_BASELINE_PRE, f"{text} (the baseline proposed no call there)"
        if cand is None or base is None:
            if name not in missing:
                findings.append(GateFinding("missing", f"{name} lacks a candidate or baseline value"))
            continue
        change = (cand - base) * sign
        if change > tolerance:
            reason = f"{text}: {base:.3f} -> {cand:.3f} (tolerance {tolerance:.3f})"
            findings.append(GateFinding(name, reason))
    # Bind what the artifacts ARE (digests), not where they lie: the same weights evaluated from
    # another directory are the same release decision, with the same binding digest.
    identities = {k: v for k, v in artifacts.items() if not k.endswith("_path")}
    binding = {"artifacts": identities, "evaluation_manifest": evaluation_manifest, "rule": asdict(rule)}
    digest = hashlib.sha256(canonical_json(binding).encode()).hexdigest()
    return GateDecision(
        decision="hold" if findings else "promote",
        reasons=[f.reason for f in findings] or [PROMOTE_REASON],
        rule=asdict(rule),
        binding=binding,
        binding_digest=digest,
        findings=findings,
    )
