"""Checks on ``checkpoint``: a complete manifest, finite losses, a falling training loss.

All three block the scorecard: a checkpoint that cannot say what it was trained on, whose loss
diverged, or that did not learn is not worth a closed-loop evaluation.
"""

import json
import math

import pyarrow as pa
from dagster import AssetCheckResult, MetadataValue, asset_check

from trajectory_platform.resources import WorkdirResource
from trajectory_platform.training.optim.checkpoint import MANIFEST_NAME
from trajectory_platform.training.optim.loop import loss_trend
from trajectory_platform.training.optim.train_manifest import missing_fields


def _row(table: pa.Table) -> dict:
    return table.to_pylist()[0]


@asset_check(asset="checkpoint", blocking=True)
def training_manifest_complete(checkpoint: pa.Table, workdir: WorkdirResource) -> AssetCheckResult:
    """Every table-12 binding in ``training_manifest.json`` is present and non-null."""
    path = workdir.locate(_row(checkpoint)["path"]) / MANIFEST_NAME
    if not path.exists():
        return AssetCheckResult(passed=False, metadata={"missing": f"{path} does not exist"})
    missing = missing_fields(json.loads(path.read_text()))
    return AssetCheckResult(
        passed=not missing, metadata={"manifest": str(path), "missing": MetadataValue.json(missing)}
    )


@asset_check(asset="checkpoint", blocking=True)
def losses_finite(checkpoint: pa.Table) -> AssetCheckResult:
    """No NaN or infinite training loss, and a finite validation loss when one was measured."""
    row = _row(checkpoint)
    trend = loss_trend(row["losses"])
    validation = row["validation_loss"]
    finite = trend["finite"] and (validation is None or math.isfinite(validation))
    return AssetCheckResult(
        passed=finite, metadata={"steps": len(row["losses"]), "validation_loss": validation}
    )


@asset_check(asset="checkpoint", blocking=True)
def training_loss_falls(checkpoint: pa.Table) -> AssetCheckResult:
    """The mean loss of the last quarter of steps is below that of the first quarter."""
    trend = loss_trend(_row(checkpoint)["losses"])
    return AssetCheckResult(passed=trend["falls"], metadata={k: v for k, v in trend.items() if k != "finite"})
