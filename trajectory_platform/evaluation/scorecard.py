"""From two arms' trials to the release scorecard: measurements, paired statistics, the gate.

The scorecard holds the five measurements of fine-tuning 16.11.2 for both arms (budgeted
acceptance, call validity, schema robustness as SFA / PRE by regime, resource use and cost per
accepted task, retention) plus recovery under injected faults and the fabricated-observation and
runaway rates. Every comparison is paired on the same items: the acceptance, recovery and
retention differences carry a score interval (Tango) and McNemar score p with ``n`` and the
discordant counts. The decision comes from :func:`trajectory_platform.evaluation.gate.decide`,
bound to the artifact digests and the evaluation manifest.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from trajectory_platform.evaluation.calls import by_regime, call_validity
from trajectory_platform.evaluation.cost import cost_per_accepted
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.gate import GateRule, decide
from trajectory_platform.evaluation.stats import paired_comparison, pass_at_k, pass_hat_k

ARMS = ("candidate", "baseline")
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class CostModel:
    """Declared prices (not measured charges): tokens per million and sandbox wall seconds."""

    usd_per_million_input_tokens: float = 2.0
    usd_per_million_output_tokens: float = 8.0
    usd_per_wall_second: float = 0.0001

    def spend(self, m: EpisodeMeasure) -> float:
        """Spend of one initiated attempt, whatever its outcome."""
        return (
            m.input_tokens * self.usd_per_million_input_tokens / 1e6
            + m.generated_tokens * self.usd_per_million_output_tokens / 1e6
            + m.wall_s * self.usd_per_wall_second
        )

    def to_dict(self) -> dict:
        return asdict(self)


def _rate(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _suite(measures: Sequence[EpisodeMeasure], suite: str) -> list[EpisodeMeasure]:
    return [m for m in measures if m.suite == suite]


def _pass_k(measures: Sequence[EpisodeMeasure], attempts: int) -> dict[str, Any] | None:
    """pass@k and pass^k over tasks with exactly ``attempts`` trials (k = attempts)."""
    if attempts < 2:
        return None
    by_task: dict[str, list[bool]] = {}
    for m in measures:
        by_task.setdefault(m.fixture_id, []).append(m.accepted)
    tasks = [v for v in by_task.values() if len(v) == attempts]
    if not tasks:
        return None
    return {
        "k": attempts,
        "tasks": len(tasks),
        "pass_at_1": sum(pass_at_k(sum(v), attempts, 1) for v in tasks) / len(tasks),
        "pass_at_k": sum(pass_at_k(sum(v), attempts, attempts) for v in tasks) / len(tasks),
        "pass_hat_k": sum(pass_hat_k(sum(v), attempts, attempts) for v in tasks) / len(tasks),
    }


def _recovery_by_kind(measures: Sequence[EpisodeMeasure], training_fault_kinds: set[str] | None) -> dict:
    out: dict[str, dict[str, Any]] = {}
    for m in measures:
        for kind in m.fault_kinds:
            row = out.setdefault(
                kind,
                {
                    "n": 0,
                    "recovered": 0,
                    "in_training": None if training_fault_kinds is None else kind in training_fault_kinds,
                },
            )
            row["n"] += 1
            row["recovered"] += int(m.recovered)
    for row in out.values():
        row["rate"] = row["recovered"] / row["n"]
    return dict(sorted(out.items()))


def arm_summary(
    measures: Sequence[EpisodeMeasure],
    *,
    training_keys: set[str],
    cost_model: CostModel,
    attempts: int = 1,
    training_fault_kinds: set[str] | None = None,
) -> dict[str, Any]:
    """Every measurement of one arm (rates are None when their denominator is empty)."""
    acceptance = _suite(measures, "acceptance")
    recovery = _suite(measures, "recovery")
    retention = _suite(measures, "retention")
    calls = [c for m in measures for c in m.calls]
    regimes = by_regime(calls, training_keys)
    spend = sum(cost_model.spend(m) for m in acceptance)
    unseen = [
        m
        for m in recovery
        if training_fault_kinds is not None and not set(m.fault_kinds) <= training_fault_kinds
    ]
    n_all = len(measures) or 1
    return {
        "acceptance": _rate([m.accepted for m in acceptance]),
        "accepted": sum(m.accepted for m in acceptance),
        "trials": len(acceptance),
        "pass_k": _pass_k(acceptance, attempts),
        "call_validity": call_validity(calls),
        "sfa": {r: v["sfa"] for r, v in regimes.items()},
        "pre": {r: v["pre"] for r, v in regimes.items()},
        "calls_by_regime": {r: v["n_calls"] for r, v in regimes.items()},
        "recovery": _rate([m.recovered for m in recovery]),
        "recovery_unseen_kinds": _rate([m.recovered for m in unseen]) if unseen else None,
        "recovery_by_kind": _recovery_by_kind(recovery, training_fault_kinds),
        "retention": _rate([m.accepted for m in retention]),
        "fabricated_observation_rate": _rate([m.fabricated_turns > 0 for m in measures]),
        "fabricated_turn_rate": _ratio(
            sum(m.fabricated_turns for m in measures), sum(m.call_turns for m in measures)
        ),
        "runaway_rate": _ratio(sum(m.runaway_turns for m in measures), sum(m.turns for m in measures)),
        "terminal_status": _counts(m.terminal_status for m in measures),
        "resources": {
            "trials": len(measures),
            "mean_turns": sum(m.turns for m in measures) / n_all,
            "mean_generated_tokens": sum(m.generated_tokens for m in measures) / n_all,
            "mean_input_tokens": sum(m.input_tokens for m in measures) / n_all,
            "mean_wall_s": sum(m.wall_s for m in measures) / n_all,
            "total_wall_s": sum(m.wall_s for m in measures),
        },
        "cost_per_accepted": cost_per_accepted(
            spend, len(acceptance), sum(m.accepted for m in acceptance)
        ).to_dict(),
    }


def _counts(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items()))


def _paired(
    cand: Sequence[EpisodeMeasure], base: Sequence[EpisodeMeasure], attr: str, alpha: float
) -> dict | None:
    if not cand:
        return None
    outcome = (lambda m: m.recovered) if attr == "recovered" else (lambda m: m.accepted)
    return paired_comparison([outcome(m) for m in cand], [outcome(m) for m in base], alpha=alpha).to_dict()


def acceptance_by_source(
    cand: Sequence[EpisodeMeasure], base: Sequence[EpisodeMeasure], sources: Mapping[str, str] | None
) -> dict[str, dict[str, Any]]:
    """Acceptance of each arm per task source (``gym``, ``environment``) with its trial count: a
    total can hide that a candidate gained on the gym and lost on the user's own tasks."""
    out: dict[str, dict[str, Any]] = {}
    for source in sorted({(sources or {}).get(m.item_id, "gym") for m in cand}):
        picked = [i for i, m in enumerate(cand) if (sources or {}).get(m.item_id, "gym") == source]
        out[source] = {
            "trials": len(picked),
            **{
                arm: _rate([ms[i].accepted for i in picked])
                for arm, ms in zip(ARMS, (cand, base), strict=True)
            },
        }
    return out


def build_scorecard(
    candidate: Sequence[EpisodeMeasure],
    baseline: Sequence[EpisodeMeasure],
    *,
    training_keys: set[str],
    training_keys_source: str,
    cost_model: CostModel | None = None,
    attempts: int = 1,
    alpha: float = 0.05,
    training_fault_kinds: set[str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The measurements of both arms, paired by item id (both arms must have run the same items).
    ``sources`` (item id -> ``gym`` / ``environment``; absent: gym) splits acceptance by where the
    task came from, beside the totals."""
    cost_model = cost_model or CostModel()
    cand = sorted(candidate, key=lambda m: m.item_id)
    base = sorted(baseline, key=lambda m: m.item_id)
    if [m.item_id for m in cand] != [m.item_id for m in base]:
        raise ValueError("candidate and baseline did not run the same items; a paired comparison needs both")
    arms = {
        name: arm_summary(
            ms,
            training_keys=training_keys,
            cost_model=cost_model,
            attempts=attempts,
            training_fault_kinds=training_fault_kinds,
        )
        for name, ms in (("candidate", cand), ("baseline", base))
    }

    def both(key: str) -> dict[str, Any]:
        return {arm: arms[arm][key] for arm in ARMS}

    def paired(suite: str, attr: str = "accepted") -> dict | None:
        return _paired(_suite(cand, suite), _suite(base, suite), attr, alpha)

    difference = paired("acceptance")
    return {
        "n": len(_suite(cand, "acceptance")),
        "acceptance": {
            **both("acceptance"),
            "difference": difference,
            "pass_k": both("pass_k"),
            "by_source": acceptance_by_source(
                _suite(cand, "acceptance"), _suite(base, "acceptance"), sources
            ),
        },
        "call_validity": both("call_validity"),
        "sfa": both("sfa"),
        "pre": both("pre"),
        "calls_by_regime": both("calls_by_regime"),
        "training_keys": {"source": training_keys_source, "keys": sorted(training_keys)},
        "recovery": {
            **both("recovery"),
            "n": len(_suite(cand, "recovery")),
            "difference": paired("recovery", "recovered"),
            "unseen_kinds": both("recovery_unseen_kinds"),
            "by_kind": both("recovery_by_kind"),
            "training_fault_kinds": None if training_fault_kinds is None else sorted(training_fault_kinds),
        }
        if _suite(cand, "recovery")
        else None,
        "retention": {
            **both("retention"),
            "n": len(_suite(cand, "retention")),
            "difference": paired("retention"),
        }
        if _suite(cand, "retention")
        else None,
        "fabricated_observation_rate": both("fabricated_observation_rate"),
        "fabricated_turn_rate": both("fabricated_turn_rate"),
        "runaway_rate": both("runaway_rate"),
        "terminal_status": both("terminal_status"),
        "resources": both("resources"),
        "cost_model": cost_model.to_dict(),
        "cost_per_accepted": both("cost_per_accepted"),
    }


def code_version() -> dict[str, Any]:
    """Package version, git commit (when the source is a checkout) and a digest of the source files."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    try:
        version = metadata.version("trajectory-platform")
    except metadata.PackageNotFoundError:
        version = None
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(PACKAGE_ROOT), "rev-parse", "HEAD"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"package_version": version, "git_commit": commit, "source_digest": digest.hexdigest()}


def decide_release(
    scorecard: dict[str, Any],
    artifacts: Mapping[str, str | None],
    evaluation_manifest: dict[str, Any],
    rule: GateRule | None = None,
) -> dict[str, Any]:
    """``scorecard`` plus ``decision``, ``reasons`` and the gate binding (digest of its inputs).

    The gate reads the measurements in the shape :func:`gate.decide` documents; recovery and
    retention are passed as their two arm rates.
    """
    view = dict(scorecard)
    for name in ("recovery", "retention"):
        measure = scorecard.get(name)
        view[name] = None if measure is None else {arm: measure.get(arm) for arm in ARMS}
    decision = decide(view, artifacts, evaluation_manifest, rule)
    return {
        **scorecard,
        "decision": decision.decision,
        "reasons": decision.reasons,
        "gate": {
            "rule": decision.rule,
            "binding_digest": decision.binding_digest,
            "findings": [asdict(f) for f in decision.findings],
        },
        "artifacts": artifacts,
        "evaluation_manifest": evaluation_manifest,
    }


def row_figures(card: dict[str, Any]) -> dict[str, Any]:
    """The decision and headline figures of a decided scorecard as the warehouse row stores them:
    the one reading of them, shared by the ``scorecard`` table and the report's headline."""
    acceptance = card["acceptance"]
    difference = acceptance.get("difference") or {}
    return {
        "decision": card["decision"],
        "reasons": card["reasons"],
        "n": card["n"],
        "acceptance_candidate": acceptance["candidate"],
        "acceptance_baseline": acceptance["baseline"],
        "difference": difference.get("estimate"),
        "ci_low": difference.get("ci_low"),
        "ci_high": difference.get("ci_high"),
        "candidate_digest": card["artifacts"]["candidate"],
        "baseline_digest": card["artifacts"]["baseline"],
        "binding_digest": card["gate"]["binding_digest"],
    }
