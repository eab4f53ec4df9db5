"""What to do next, read off the release decision: one step per clause of the gate that held the
candidate, with the setting or command that acts on it.

The gate records which clause each reason belongs to (``gate.findings`` in ``scorecard.json``), so
the advice follows the decision's own reading of the rule and never re-judges the numbers. A
scorecard stored before findings were recorded gets one generic step per reason.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trajectory_platform.evaluation.gate import absent_measurements

RERUN = (
    "Then evaluate again: `trajectory-platform run` reruns the pipeline with your `--set` values, "
    "or `trajectory-platform evaluate --candidate CHECKPOINT --out DIR` scores one checkpoint."
)
"""How a user gets a new decision after acting on a step."""


@dataclass(frozen=True)
class NextStep:
    """Why (the decision's reason) and what to do about it."""

    why: str
    action: str


@dataclass(frozen=True)
class FailedCheck:
    """An asset check whose latest evaluation failed when the evaluation ran (an upstream stage's)."""

    asset: str
    check: str
    severity: str
    """``ERROR`` or ``WARN``, as the check declared it."""
    description: str = ""
    partition: str | None = None


def rerun_command(asset: str, partition: str | None = None, dagster: str = "dagster") -> str:
    """The command that materializes ``asset`` again with its checks (in the environment of the
    run: ``TRAJECTORY_PLATFORM_WORKDIR`` and ``DAGSTER_HOME`` set as it had them)."""
    where = f" --partition {shlex.quote(partition)}" if partition else ""
    return f"{dagster} asset materialize -m trajectory_platform.definitions --select {asset}{where}"


def check_step(failed: FailedCheck) -> NextStep:
    """Which check failed, what it guards, and how to rerun it once the cause is fixed."""
    kind = "warning" if failed.severity == "WARN" else "failure"
    where = f" (partition {failed.partition})" if failed.partition else ""
    return NextStep(
        f"Check {failed.asset}:{failed.check} failed{where} ({kind}).",
        (f"It verifies: {failed.description.strip()} " if failed.description else "")
        + "Its metadata in the Dagster UI shows the numbers. After fixing the cause, rerun "
        f"`{rerun_command(failed.asset, failed.partition)}` or materialize the asset from the UI.",
    )


def _arms_without_calls(card: Mapping[str, Any]) -> list[str]:
    validity = card.get("call_validity") or {}
    return [arm for arm in ("candidate", "baseline") if not (validity.get(arm) or {}).get("total")]


def _missing(card: Mapping[str, Any]) -> str:
    missing = absent_measurements(dict(card))
    advice = []
    if {"sfa", "pre"} & set(missing):
        silent = _arms_without_calls(card)
        who = f" The {' and the '.join(silent)} proposed no tool call at all." if silent else ""
        advice.append(
            "SFA and PRE need tool calls on renamed-schema tasks from the candidate to score (a baseline "
            "that proposes none is compared at PRE 0, the strictest reference)." + who + " "
            "Open the trial transcripts to see what the model wrote instead; a model that makes no "
            "parseable call needs more training (`--set checkpoint.max_steps=N` on `trajectory-platform "
            "run`) or training data that holds tool calls."
        )
    if suites := [name for name in ("recovery", "retention") if name in missing]:
        flags = ", ".join(f"`scorecard.{name}_episodes`" for name in suites)
        advice.append(f"No {' or '.join(suites)} trials ran: raise {flags} above 0.")
    if not advice:
        advice.append(f"Measure {', '.join(missing) or 'the named value'} for both models.")
    advice.append("The scorecard's check `required_measurements_present` fails until every value exists.")
    return " ".join(advice)


def _acceptance(card: Mapping[str, Any]) -> str:
    acceptance = card.get("acceptance") or {}
    diff = acceptance.get("difference") or {}
    margin = ((card.get("gate") or {}).get("rule") or {}).get("min_acceptance_ci_low", 0.0)
    n = int(card.get("n") or 0)
    if diff.get("estimate") is None:
        return "No paired acceptance trials ran: raise `scorecard.episodes` (`--episodes` on `evaluate`)."
    estimate, low = diff["estimate"], diff.get("ci_low", diff["estimate"])
    if not acceptance.get("candidate") and not acceptance.get("baseline"):
        return (
            f"Neither model solved any of the {n} held-out tasks, so more trials cannot show a gain. "
            "Train the candidate further (more steps, more or better data) and open the transcripts "
            "to see how trials end (cut off, looping, wrong tool)."
        )
    if estimate <= margin:
        return (
            f"The candidate is not ahead of the baseline ({estimate:+.3f} on {n} paired tasks); more "
            "trials will not change that. Change the training (steps, data, mixture) first."
        )
    # The interval's half-width shrinks like 1/sqrt(n): the n at which it would clear the margin.
    needed = math.ceil(n * ((estimate - low) / (estimate - margin)) ** 2) if n else 0
    suggest = max(2 * n, needed)
    return (
        f"The candidate looks better ({estimate:+.3f}) but {n} paired tasks are too few: the interval "
        f"reaches down to {low:.3f}, not above {margin:.3f}. Run more held-out tasks, roughly {suggest} "
        f"(`--set scorecard.episodes={suggest}` on `run`, `--episodes {suggest}` on `evaluate`)."
    )


_ADVICE = {
    "pre": lambda card: (
        "On renamed schemas the candidate uses memorized argument names the delivered schema lacks "
        "more often than the baseline: it recalls the training interface instead of reading the prompt. "
        "First check the serving prompt does not still show the old name; then add schema augmentation "
        "(renamed-argument examples) to the training data."
    ),
    "fabricated_observation_rate": lambda card: (
        "The candidate writes tool results itself more often than the baseline. Check that only the "
        "model's own turns are trained (tool results must never be targets) and read the transcripts "
        "of the trials where it happened."
    ),
    "recovery": lambda card: (
        "The candidate recovers from injected faults less often than the baseline. Give the mixture "
        "more recovery trajectories (solved after an error), within the mixture's bound, and see which "
        "fault kinds fail in `recovery.by_kind` of scorecard.json."
    ),
    "retention": lambda card: (
        "The candidate got worse at tasks outside the training focus (it forgets). Mix in examples of "
        "those tasks, or train fewer steps."
    ),
    "missing": _missing,
    "acceptance": _acceptance,
}


def next_steps(card: Mapping[str, Any], failed_checks: Sequence[FailedCheck] = ()) -> list[NextStep]:
    """The steps the decision asks for, in the order of its reasons, then one per failed check,
    then (on a hold) how to get a new decision."""
    steps = [*_decision_steps(card), *(check_step(failed) for failed in failed_checks)]
    if card.get("decision") == "promote":
        return steps
    return [*steps, NextStep("After any change above", RERUN)]


def _decision_steps(card: Mapping[str, Any]) -> list[NextStep]:
    if card.get("decision") == "promote":
        binding = (card.get("gate") or {}).get("binding_digest", "")
        candidate = (card.get("artifacts") or {}).get("candidate", "")
        return [
            NextStep(
                "Every required measurement is present and within the declared rule.",
                f"Release exactly the evaluated checkpoint ({candidate}); the decision is bound to it and "
                f"to this evaluation by digest {binding[:16]}, and holds for no other weights. Keep "
                "scorecard.json with the release.",
            )
        ]
    findings = (card.get("gate") or {}).get("findings")
    if findings is None:
        return [NextStep(str(reason), "Act on what the reason names.") for reason in card.get("reasons", [])]
    steps, advised = [], set()
    for finding in findings:
        advise = _ADVICE.get(finding["clause"])
        if finding["clause"] in advised:
            action = "See the step above."
        else:
            action = advise(card) if advise else "Act on what the reason names."
        advised.add(finding["clause"])
        steps.append(NextStep(finding["reason"], action))
    return steps
