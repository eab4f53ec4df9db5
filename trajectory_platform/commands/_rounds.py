"""Running self-improvement rounds from the command line: ``run --rounds N`` and ``round``.

A round is one run of ``round_job`` for one partition of ``rounds``, executed in process against
the workdir's Dagster instance (so it shows in the UI, partition and lineage included), as the
round sensor would have the daemon launch it. The next round's key is one past the highest round
that exists; naming an existing key replays that round (a backfill of one partition).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trajectory_platform.commands._profile import QUIET_LOGS

ROUND_OPS = ("policy_rollouts", "round_mixture", "round_dataset", "round_checkpoint", "round_scorecard")
"""The ops of ``round_job`` that take run config (the ``--set`` prefixes a round reads)."""


def is_round_asset(assets_def: Any) -> bool:
    """Whether an assets definition is partitioned by round (run by round, not with the graph)."""
    from trajectory_platform.resources.partitions import ROUND_PARTITIONS

    return assets_def.partitions_def == ROUND_PARTITIONS


def next_round_key(instance: Any) -> str:
    """One past the highest round the instance knows ("1" on a workdir with none)."""
    from trajectory_platform.resources.partitions import ROUND_PARTITIONS, round_index

    known = instance.get_dynamic_partitions(ROUND_PARTITIONS.name)
    return str(max((round_index(k) for k in known), default=0) + 1)


def run_round(
    located: Any, instance: Any, key: str, asset_config: dict[str, dict], record: Callable[[Any], None]
) -> dict[str, Any]:
    """Add round ``key`` if it is new, run ``round_job`` for it and say what it decided;
    ``record`` hears every check evaluation (the collapse watch among them)."""
    from trajectory_platform.resources import read_asset_table
    from trajectory_platform.resources.partitions import ROUND_PARTITIONS

    if key not in instance.get_dynamic_partitions(ROUND_PARTITIONS.name):
        instance.add_dynamic_partitions(ROUND_PARTITIONS.name, [key])
    ops = {op: {"config": asset_config[op]} for op in ROUND_OPS if op in asset_config}
    result = located.resolve_job_def("round_job").execute_in_process(
        partition_key=key,
        instance=instance,
        run_config={**QUIET_LOGS, **({"ops": ops} if ops else {})},
        raise_on_error=False,
    )
    for evaluation in result.get_asset_check_evaluations():
        record(evaluation)
    workdir = located.resources["workdir"].root
    card = read_asset_table(workdir, "round_scorecard", [key], columns=["decision", "reasons", "report_path"])
    row = card.to_pylist()[-1] if result.success and card is not None else {}
    return {
        "round": key,
        "ok": result.success,
        "run_id": result.run_id,
        "decision": row.get("decision"),
        "reasons": row.get("reasons", []),
        "report": str(workdir / row["report_path"]) if row else None,
    }


def run_rounds(
    located: Any, instance: Any, count: int, asset_config: dict[str, dict], record: Callable[[Any], None]
) -> list[dict[str, Any]]:
    """Up to ``count`` rounds after the last one, stopping at a failure or at a round that did not
    promote (the loop samples only with a promoted checkpoint, as the round sensor does)."""
    outcomes: list[dict[str, Any]] = []
    for _ in range(count):
        outcomes.append(run_round(located, instance, next_round_key(instance), asset_config, record))
        if not outcomes[-1]["ok"] or outcomes[-1]["decision"] != "promote":
            break
    return outcomes
