"""``redacted_corpus`` in Dagster: materializes from a verified table, checks pass, tampering is caught."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dagster import AssetSelection, asset, materialize
from redact_factory import AWS_KEY, GITHUB_TOKEN, secret_episode

from trajectory_platform.assets.redacted import redacted_corpus
from trajectory_platform.checks import redacted as checks
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.warehouse import WarehouseIOManager, asset_parquet_files
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.schema import episode_row

DAY = "2024-03-01"


def _verified_table() -> pa.Table:
    """``verified_traces``' columns (the verdicts this test does not set are null)."""
    rows = [
        {
            **episode_row(secret_episode(f"ep-{i}")),
            "sink": "admitted",
            "role": role,
            "t_div": t,
            "target_turns": turns,
        }
        for i, (role, t, turns) in enumerate([("pristine", None, [2, 4]), ("recovery", 2, [4])])
    ]
    return pa.Table.from_pylist(rows, schema=VERIFIED_SCHEMA)


@asset(name="verified_traces", partitions_def=DAILY_PARTITIONS)
def verified_traces_fixture() -> pa.Table:
    return _verified_table()


@pytest.fixture()
def salt(tmp_path) -> SecretsSaltResource:
    return SecretsSaltResource(fallback_file=str(tmp_path / "secrets" / "pipeline.key"))


def test_materializes_with_all_checks_passing(salt, tmp_path):
    # Through the warehouse, as in the product: the day arrives as its verified file, leaves as a
    # staged file the IO manager moves into place.
    all_checks = [
        checks.no_canary_leaks,
        checks.json_validity_preserved,
        checks.pseudonyms_consistent,
        checks.lineage_verifies,
        checks.license_tiers,
    ]
    result = materialize(
        [verified_traces_fixture, redacted_corpus, *all_checks],
        resources={
            "secrets_salt": salt,
            "workdir": WorkdirResource(path=str(tmp_path)),
            "io_manager": WarehouseIOManager(workdir=str(tmp_path)),
        },
        partition_key=DAY,
    )
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == 5 and all(e.passed for e in evaluations)
    [stored] = asset_parquet_files(tmp_path, "redacted_corpus", [DAY])
    table = pq.read_table(stored)
    assert table.num_rows == 2 and GITHUB_TOKEN not in str(table.to_pylist())
    assert table.column("role").to_pylist() == ["pristine", "recovery"]
    events = result.asset_materializations_for_node("redacted_corpus")
    metadata = next(e.metadata for e in events if e.asset_key.to_user_string() == "redacted_corpus")
    assert metadata["leak_rate"].value == 0.0 and metadata["findings_total"].value > 0
    assert metadata["mb_per_s"].value > 0 and "AWS_KEY" in metadata["findings_by_kind"].value


def test_the_canary_check_samples_as_the_day_s_materialization_did(salt, tmp_path):
    """``--set redacted_corpus.leak_*`` sizes the stage's canary sample and the blocking check's
    alike: the check draws its sample under the settings the day's materialization recorded."""
    result = materialize(
        [verified_traces_fixture, redacted_corpus, checks.no_canary_leaks],
        resources={
            "secrets_salt": salt,
            "workdir": WorkdirResource(path=str(tmp_path)),
            "io_manager": WarehouseIOManager(workdir=str(tmp_path)),
        },
        partition_key=DAY,
        run_config={
            "ops": {"redacted_corpus": {"config": {"leak_sample_fraction": 0.0, "leak_min_canaries": 1}}}
        },
    )
    assert result.success
    events = result.asset_materializations_for_node("redacted_corpus")
    metadata = next(e.metadata for e in events if e.asset_key.to_user_string() == "redacted_corpus")
    [evaluation] = result.get_asset_check_evaluations()
    canaries = evaluation.metadata["canaries"].value
    assert evaluation.passed and metadata["leak_sample_records"].value == 1  # of 2: the defaults take both
    assert (canaries["records_planted"], canaries["records_total"]) == (1, 2)


def test_checks_fail_on_a_tampered_corpus(salt, tmp_path):
    # The day's stored file is tampered after a clean materialization; the checks, run alone as the
    # UI runs them, read that file.
    resources = {
        "secrets_salt": salt,
        "workdir": WorkdirResource(path=str(tmp_path)),
        "io_manager": WarehouseIOManager(workdir=str(tmp_path)),
    }
    assets = [verified_traces_fixture, redacted_corpus]
    all_checks = [
        checks.no_canary_leaks,
        checks.lineage_verifies,
        checks.license_tiers,
        checks.pseudonyms_consistent,
    ]
    assert materialize(assets, resources=resources, partition_key=DAY).success
    [stored] = asset_parquet_files(tmp_path, "redacted_corpus", [DAY])
    table = pq.read_table(stored)
    rows = table.to_pylist()
    rows[0]["events"][1]["content"] += f" leaked {AWS_KEY}"
    rows[1]["role"] = "pristine"  # relabelled after sealing
    rows[1]["license_action"] = "quarantine"
    write_parquet(pa.Table.from_pylist(rows, schema=table.schema), stored)
    # verified_traces rides along: a run of checks alone has no partitions definition to resolve
    selection = AssetSelection.assets(verified_traces_fixture) | AssetSelection.checks_for_assets(
        redacted_corpus
    )
    result = materialize(
        [*assets, *all_checks],
        resources=resources,
        partition_key=DAY,
        selection=selection,
        raise_on_error=False,
    )
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not evaluations["no_canary_leaks"].passed
    lineage = evaluations["lineage_verifies"]
    assert not lineage.passed and lineage.metadata["failures"].value == 2
    assert not evaluations["license_tiers"].passed
    assert evaluations["pseudonyms_consistent"].passed
