"""``verified_traces`` / ``triage_report`` materialized in-process downstream of ``raw_traces``: the
day's file in, the verified day streamed to a staged file the warehouse stores, with the bytes the
table path gives."""

import json

from _verify_factory import CALC_S0, fixed_files, make_episode, pristine_turns
from dagster import AssetKey, materialize

from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.assets.verified import verified_traces
from trajectory_platform.checks.verified import (
    every_episode_in_one_sink,
    no_tampered_episode_admitted,
    r_flake_within_limit,
    yield_in_declared_band,
)
from trajectory_platform.curation.verify.cascade import VerifySettings, fixtures_lookup
from trajectory_platform.curation.verify.tables import verify_table
from trajectory_platform.resources import build_resources, read_asset_table, warehouse_connection
from trajectory_platform.resources.warehouse import LOAD_KEY, PARQUET_FILES, STAGING_DIR
from trajectory_platform.traces.parquet import write_parquet

DAY = "2024-03-05"


def test_verified_traces_materializes_with_checks_and_metadata(tmp_path):
    source = tmp_path / "logs" / DAY
    source.mkdir(parents=True)
    episodes = [
        make_episode("real-1", pristine_turns(), fixed_files(), fixture_id=None),
        make_episode("real-2", pristine_turns()[:1], CALC_S0, fixture_id=None),
    ]
    (source / "agent.jsonl").write_text("".join(json.dumps(e.to_dict()) + "\n" for e in episodes))
    resources = build_resources(tmp_path / "work", tmp_path / "logs")
    assert materialize([raw_traces], partition_key=DAY, resources=resources).success
    checks = [
        every_episode_in_one_sink,
        no_tampered_episode_admitted,
        r_flake_within_limit,
        yield_in_declared_band,
    ]
    result = materialize(
        [raw_traces, verified_traces, *checks],
        resources=resources,
        selection=[AssetKey("verified_traces"), AssetKey("triage_report")],
        partition_key=DAY,
    )
    assert result.success
    table = read_asset_table(tmp_path / "work", "verified_traces")
    assert table.num_rows == 2
    assert set(table.column("sink").to_pylist()) == {"unverifiable"}
    assert {"sink", "role", "t_div", "t_rec", "target_turns", "turn_reasons_json", "advisory_score"} <= set(
        table.column_names
    )
    materialization = result.asset_materializations_for_node("verified_traces")[0]
    metadata = materialization.metadata
    assert metadata["sinks"].data == {"unverifiable": 2}
    assert "c_attempt_s" in metadata and "ledger" in metadata
    evaluations = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert evaluations["every_episode_in_one_sink"] and evaluations["no_tampered_episode_admitted"]
    assert evaluations["r_flake_within_limit"]
    assert evaluations["yield_in_declared_band"] is False  # nothing verifiable: yield 0 warns
    # the day's input arrived as its Parquet file; the output is the table path's bytes, stored
    assert verified_traces.node_def.input_def_named("raw_traces").metadata == {LOAD_KEY: PARQUET_FILES}
    work = tmp_path / "work"
    settings = VerifySettings()
    expected, _ = verify_table(
        read_asset_table(work, "raw_traces", [DAY]),
        fixtures_lookup(settings.fixture_seed, resources["workdir"].environments_dir),
        settings.cascade(progress=False, master_key=resources["secrets_salt"].key()),
    )
    write_parquet(expected, tmp_path / "expected.parquet")
    stored = work / "parquet" / "verified_traces" / f"{DAY}.parquet"
    assert stored.read_bytes() == (tmp_path / "expected.parquet").read_bytes()
    assert metadata["rows"].value == 2 and list((work / STAGING_DIR).iterdir()) == []
    with warehouse_connection(work / "warehouse.duckdb", read_only=True) as con:
        assert con.execute("SELECT count(*) FROM verified_traces").fetchone()[0] == 2
