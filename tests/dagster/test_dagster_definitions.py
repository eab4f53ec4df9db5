"""The code location loads and holds the ingestion stage, its checks and its resources."""

from __future__ import annotations

import pytest
from dagster import AssetKey, Definitions

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")


def test_dagster_definitions_load() -> None:
    from trajectory_platform.definitions import defs

    Definitions.validate_loadable(defs)
    graph = defs.resolve_asset_graph()
    keys = graph.get_all_asset_keys()
    assert {AssetKey("raw_traces"), AssetKey("ingest_rejects")} <= keys
    checks = {k.name for k in graph.asset_check_keys}
    assert {"records_conserved", "raw_traces_schema", "raw_traces_episode_ids"} <= checks
    assert {"io_manager", "workdir", "trace_source", "secrets_salt"} <= set(defs.resources)
    raw = graph.get(AssetKey("raw_traces"))
    assert raw.partitions_def.get_first_partition_key() == "2023-01-01"
