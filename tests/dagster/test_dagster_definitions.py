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


@pytest.fixture(scope="module")
def graph():
    from trajectory_platform.definitions import defs

    return defs.resolve_asset_graph()


def test_every_asset_declares_group_owners_description_and_columns(graph) -> None:
    from trajectory_platform.assets._house import GROUP_OWNERS

    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        name = key.to_user_string()
        assert node.group_name in GROUP_OWNERS, name
        assert list(node.owners) == GROUP_OWNERS[node.group_name], name
        assert (node.description or "").strip(), name
        columns = node.metadata.get("dagster/column_schema")
        assert columns is not None and columns.columns, f"{name} declares no column schema"


def test_every_check_says_what_it_checks(graph) -> None:
    for check in graph.asset_check_keys:
        spec = graph.get_check_spec(check)
        assert (spec.description or "").strip(), check.to_user_string()
        assert spec.asset_key in graph.get_all_asset_keys(), check.to_user_string()


def test_the_warehouse_refuses_a_table_unlike_its_declared_columns(tmp_path) -> None:
    import pyarrow as pa
    from dagster import AssetKey, build_output_context

    from trajectory_platform.assets._house import column_schema
    from trajectory_platform.resources.warehouse import WarehouseIOManager

    manager = WarehouseIOManager(workdir=str(tmp_path))
    context = build_output_context(
        asset_key=AssetKey("demo"),
        definition_metadata={"dagster/column_schema": column_schema(pa.schema([("a", pa.int64())]))},
    )
    with pytest.raises(ValueError, match="not the columns its definition declares"):
        manager.handle_output(context, pa.table({"b": [1]}))
