"""The ``run`` summary: warnings apart from failures, a rerun command for each, and the release
decision with its report read from the ``scorecard`` row."""

from pathlib import Path

import pyarrow as pa
from dagster import AssetCheckEvaluation, AssetCheckSeverity, AssetKey

from trajectory_platform.commands.run import CheckOutcomes, release_decision
from trajectory_platform.evaluation.stage import SCORECARD_SCHEMA
from trajectory_platform.traces.parquet import write_parquet


def _evaluation(asset, name, passed, severity=AssetCheckSeverity.ERROR, blocking=False, partition=None):
    return AssetCheckEvaluation(
        asset_key=AssetKey(asset),
        check_name=name,
        passed=passed,
        severity=severity,
        blocking=blocking,
        partition=partition,
    )


def test_warnings_are_reported_apart_from_failures(tmp_path):
    checks = CheckOutcomes(tmp_path, tmp_path / "dagster_home")
    checks.add(_evaluation("scorecard", "decision_recorded", True))
    checks.add(_evaluation("scorecard", "required_measurements_present", False, AssetCheckSeverity.WARN))
    checks.add(_evaluation("verified_traces", "yield_in_declared_band", False, AssetCheckSeverity.WARN))
    summary = checks.to_dict()
    assert summary["passed"] == 1 and summary["failed"] == []
    assert summary["warnings"] == [
        "scorecard:required_measurements_present",
        "verified_traces:yield_in_declared_band",
    ]
    checks.add(
        _evaluation(
            "raw_traces", "parsed", False, AssetCheckSeverity.WARN, blocking=True, partition="2026-11-02"
        )
    )
    checks.add(_evaluation("token_masked_dataset", "aligned", False))
    checks.add(
        _evaluation(
            "raw_traces", "parsed", False, AssetCheckSeverity.WARN, blocking=True, partition="2026-11-03"
        )
    )
    # each day's failure of a per-day check is its own entry, with its own rerun command
    assert checks.failed == [
        "raw_traces:parsed[2026-11-02]",
        "token_masked_dataset:aligned",
        "raw_traces:parsed[2026-11-03]",
    ]
    rerun = checks.to_dict()["rerun"]
    assert set(rerun) == {*checks.failed, *checks.warnings}
    assert rerun["raw_traces:parsed[2026-11-02]"].endswith(
        "asset materialize -m trajectory_platform.definitions --select raw_traces --partition 2026-11-02"
    )
    assert rerun["raw_traces:parsed[2026-11-03]"].endswith("--partition 2026-11-03")
    assert f"DAGSTER_HOME={tmp_path / 'dagster_home'}" in rerun["token_masked_dataset:aligned"]


def test_release_decision_comes_from_the_scorecard_row(tmp_path):
    assert release_decision(tmp_path) == {"decision": None, "reasons": [], "report": None}
    row = {name: None for name in SCORECARD_SCHEMA.names}
    row.update(
        decision="hold", reasons=["acceptance gain not established"], report_path="reports/x/report.html"
    )
    write_parquet(
        pa.Table.from_pylist([row], schema=SCORECARD_SCHEMA),
        tmp_path / "parquet" / "scorecard" / "all.parquet",
    )
    assert release_decision(tmp_path) == {
        "decision": "hold",
        "reasons": ["acceptance gain not established"],
        "report": str(Path(tmp_path) / "reports/x/report.html"),
    }
