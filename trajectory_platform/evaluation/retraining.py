"""When is retraining worth it? A plain decision over warehouse facts (no Dagster here).

Three triggers (issue 10), each reported as a reason a person can read on the sensor tick:

- **enough new signal**: admitted selected-target tokens (training split of
  ``training_mixture``) minus those at the last checkpoint reach a configured threshold;
- **stale corpus**: the sampler-policy digest that produced most admitted tokens differs from
  the incumbent checkpoint's;
- **regression**: a re-evaluation of the incumbent on fresh rollouts regressed.

The readers below tolerate tables and columns that do not exist yet (returning ``None``), so
the sensor runs from day one while the downstream stages are still being built.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

SAMPLER_KEY = "sampler_policy_digest"
"""The metadata key (``training_mixture``, then ``checkpoint``) of the sampler-policy digest behind
most of the SFT mix's tokens (:func:`dominant_sampler_digest`): what the incumbent was trained on."""


@dataclass(frozen=True)
class RetrainingSignals:
    """Facts read from the warehouse at one sensor tick."""

    admitted_tokens: int
    baseline_tokens: int
    admitted_sampler_digest: str | None
    incumbent_sampler_digest: str | None
    incumbent_regressed: bool


def retraining_reasons(signals: RetrainingSignals, min_new_tokens: int) -> list[str]:
    """The triggers that fire, in a fixed order; empty means keep the incumbent."""
    reasons = []
    new_tokens = signals.admitted_tokens - signals.baseline_tokens
    if new_tokens >= min_new_tokens:
        reasons.append(f"{new_tokens} new admitted selected-target tokens >= threshold {min_new_tokens}")
    if (
        signals.admitted_sampler_digest
        and signals.incumbent_sampler_digest
        and signals.admitted_sampler_digest != signals.incumbent_sampler_digest
    ):
        reasons.append(
            f"stale corpus: admitted data sampler policy {signals.admitted_sampler_digest[:12]} "
            f"!= incumbent's {signals.incumbent_sampler_digest[:12]}"
        )
    if signals.incumbent_regressed:
        reasons.append("incumbent regressed on fresh rollouts")
    return reasons


def admitted_rows(mixture: pa.Table) -> pa.Table:
    """Rows of ``training_mixture`` that train: split ``train`` (all rows if there is no split)."""
    if "split" not in mixture.column_names:
        return mixture
    return mixture.filter(pc.fill_null(pc.equal(mixture["split"], "train"), False))


def admitted_tokens(mixture: pa.Table | None) -> int:
    """Sum of ``selected_target_tokens`` over admitted rows (0 when the table does not exist)."""
    if mixture is None or "selected_target_tokens" not in mixture.column_names:
        return 0
    total = pc.sum(admitted_rows(mixture)["selected_target_tokens"]).as_py()
    return int(total or 0)


def _digest_by_episode(table: pa.Table) -> dict[str, str | None]:
    digests = pc.struct_field(table["lineage"], "sampler_policy_digest").to_pylist()
    return dict(zip(table["episode_id"].to_pylist(), digests, strict=True))


def dominant_sampler_digest(mixture: pa.Table | None, episodes: pa.Table | None) -> str | None:
    """The sampler-policy digest behind most admitted tokens (ties: smallest digest).

    Uses the mixture's own ``lineage`` column when it carries one, else joins the episodes'
    lineage by ``episode_id``; ``None`` when neither side has it.
    """
    if mixture is None or "selected_target_tokens" not in mixture.column_names:
        return None
    rows = admitted_rows(mixture)
    if "lineage" in rows.column_names:
        digest_of = _digest_by_episode(rows)
    elif episodes is not None and "lineage" in episodes.column_names:
        digest_of = _digest_by_episode(episodes)
    else:
        return None
    weights: Counter[str] = Counter()
    tokens = rows["selected_target_tokens"].to_pylist()
    for episode_id, count in zip(rows["episode_id"].to_pylist(), tokens, strict=True):
        digest = digest_of.get(episode_id)
        if digest:
            weights[digest] += int(count or 0)
    if not weights:
        return None
    return sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def last_value(table: pa.Table | None, column: str) -> Any:
    """The last row's ``column`` (``None`` if the table or the column is missing)."""
    if table is None or table.num_rows == 0 or column not in table.column_names:
        return None
    return table[column][table.num_rows - 1].as_py()


def scorecard_regressed(scorecard: pa.Table | None) -> bool:
    """True when the latest scorecard says the evaluated policy regressed.

    A boolean ``regressed`` column wins; otherwise the acceptance difference (evaluated minus
    baseline) is a regression when its upper confidence bound is below zero: the scorecard's
    flat ``ci_high``, an ``acceptance_difference_ci_high``, or ``acceptance.difference.ci_high``.
    """
    flag = last_value(scorecard, "regressed")
    if flag is not None:
        return bool(flag)
    acceptance = last_value(scorecard, "acceptance")
    if isinstance(acceptance, dict):
        ci_high = (acceptance.get("difference") or {}).get("ci_high")
    else:
        ci_high = last_value(scorecard, "acceptance_difference_ci_high")
        ci_high = last_value(scorecard, "ci_high") if ci_high is None else ci_high
    return ci_high is not None and ci_high < 0


@dataclass(frozen=True)
class Materialization:
    """The newest materialization of an asset, as the decision needs it."""

    storage_id: int
    run_id: str
    metadata: Mapping[str, Any]  # the materialization's recorded values, as Dagster returns them


@dataclass(frozen=True)
class RetrainingFacts:
    """Everything one tick observes: tables from the warehouse, materializations from the instance.

    ``episodes`` (raw traces' ``episode_id`` and ``lineage``) is only needed when the mixture does
    not carry the lineage itself.
    """

    mixture: pa.Table
    checkpoint: Materialization | None
    scorecard: Materialization | None
    checkpoint_table: pa.Table | None
    scorecard_table: pa.Table | None
    episodes: pa.Table | None = None


@dataclass(frozen=True)
class RetrainingDecision:
    """Retrain (``reasons`` non-empty, under ``run_key``) or skip (``skip`` says why), and the
    cursor state to keep either way."""

    reasons: list[str]
    state: dict
    run_key: str | None
    skip: str | None


def decide_retraining(facts: RetrainingFacts, state: dict, min_new_tokens: int) -> RetrainingDecision:
    """One sensor tick's decision.

    ``state`` (the cursor) remembers which checkpoint materialization was last seen and how many
    admitted tokens existed then (the baseline for "new tokens"; the checkpoint's recorded
    ``selected_target_tokens`` is the exact baseline when present) and which scorecard was already
    acted on. The run key encodes the observed state, so one state never launches two trainings.
    """
    tokens_now = admitted_tokens(facts.mixture)
    checkpoint, scorecard = facts.checkpoint, facts.scorecard
    marker = checkpoint.storage_id if checkpoint else None
    if state.get("checkpoint_marker") != marker or "baseline_tokens" not in state:
        recorded = checkpoint.metadata.get("selected_target_tokens") if checkpoint else None
        baseline = 0 if checkpoint is None else int(recorded if recorded is not None else tokens_now)
        state = {**state, "checkpoint_marker": marker, "baseline_tokens": baseline}
    fresh_evaluation = (
        scorecard is not None
        and checkpoint is not None
        and scorecard.run_id != checkpoint.run_id  # a re-evaluation, not the training run's own
        and scorecard.storage_id != state.get("acted_scorecard")
    )
    signals = RetrainingSignals(
        admitted_tokens=tokens_now,
        baseline_tokens=state["baseline_tokens"],
        admitted_sampler_digest=dominant_sampler_digest(facts.mixture, facts.episodes),
        incumbent_sampler_digest=last_value(facts.checkpoint_table, SAMPLER_KEY)
        or (checkpoint.metadata.get(SAMPLER_KEY) if checkpoint else None),
        incumbent_regressed=fresh_evaluation and scorecard_regressed(facts.scorecard_table),
    )
    reasons = retraining_reasons(signals, min_new_tokens)
    if not reasons:
        new = signals.admitted_tokens - signals.baseline_tokens
        skip = f"{new} new admitted tokens < {min_new_tokens}; corpus fresh; no regression"
        return RetrainingDecision([], state, None, skip)
    if signals.incumbent_regressed and scorecard is not None:
        state = {**state, "acted_scorecard": scorecard.storage_id}
    run_key = (
        f"retrain:{marker}:{tokens_now}:{signals.admitted_sampler_digest}:{state.get('acted_scorecard')}"
    )
    return RetrainingDecision(reasons, state, run_key, None)
