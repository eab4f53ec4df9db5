"""Checks on ``scorecard``: every required measurement present, and a decision recorded.

Both read the stored ``scorecard.json`` (not the asset's own bookkeeping). A missing measurement
already forces ``hold`` through the gate; the check makes the gap visible in the UI as a failure
to fix. Neither blocks anything: the scorecard is the end of the graph.
"""

import json

import pyarrow as pa
from dagster import AssetCheckResult, AssetCheckSeverity, MetadataValue, asset_check

from trajectory_platform.evaluation.gate import REQUIRED_MEASUREMENTS, absent_measurements
from trajectory_platform.resources import WorkdirResource


def _card(scorecard: pa.Table, workdir: WorkdirResource) -> dict:
    return json.loads(workdir.locate(scorecard.to_pylist()[0]["scorecard_path"]).read_text())


@asset_check(asset="scorecard")
def required_measurements_present(scorecard: pa.Table, workdir: WorkdirResource) -> AssetCheckResult:
    """Every measurement the release gate requires has a value for both arms."""
    card = _card(scorecard, workdir)
    missing = absent_measurements(card)
    return AssetCheckResult(
        passed=not missing,
        severity=AssetCheckSeverity.WARN,
        metadata={
            "missing": MetadataValue.json(missing),
            "required": MetadataValue.json(list(REQUIRED_MEASUREMENTS)),
        },
    )


@asset_check(asset="scorecard")
def decision_recorded(scorecard: pa.Table, workdir: WorkdirResource) -> AssetCheckResult:
    """A promote / hold decision with reasons, bound to artifact digests, is stored and matches the row."""
    row = scorecard.to_pylist()[0]
    card = _card(scorecard, workdir)
    ok = (
        card.get("decision") in ("promote", "hold")
        and card.get("decision") == row["decision"]
        and bool(card.get("reasons"))
        and bool((card.get("gate") or {}).get("binding_digest"))
        and bool((card.get("artifacts") or {}).get("candidate"))
    )
    return AssetCheckResult(
        passed=ok,
        metadata={
            "decision": str(card.get("decision")),
            "binding_digest": str((card.get("gate") or {}).get("binding_digest")),
        },
    )
