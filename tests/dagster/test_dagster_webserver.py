"""The Dagster UI as a person uses it: start the webserver, read the graph, materialize, backfill.

The session's ``ui_server`` (tests/dagster/conftest.py) runs ``dagster-webserver`` on a free
loopback port, with no daemon: runs launch directly, backfills stay requested. The browser tests
(``test_dagster_browser.py``) use the same server.
"""

from __future__ import annotations

import time

import duckdb

from trajectory_platform.definitions import defs

RUN_TIMEOUT_S = 240


GRAPH = """
{
  assetNodes { assetKey { path } isPartitioned
    assetChecksOrError { ... on AssetChecks { checks { name } } } }
  repositoriesOrError { ... on RepositoryConnection { nodes {
    name location { name } sensors { name } schedules { name } } } }
}
"""

LAUNCH = """
mutation Launch($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
    ... on RunConfigValidationInvalid { errors { message } }
  }
}
"""

LOCATIONS = """
{ workspaceOrError { ... on Workspace { locationEntries {
    name locationOrLoadError { __typename ... on PythonError { message } } } } } }
"""

STATUS = "query Status($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"


def test_dagster_webserver_serves_graph_and_materializes(ui_server) -> None:
    _graphql, workdir = ui_server.graphql, ui_server.workdir
    for entry in _graphql(LOCATIONS)["workspaceOrError"]["locationEntries"]:
        loaded = entry["locationOrLoadError"]
        assert loaded["__typename"] == "RepositoryLocation", f"{entry['name']} failed to load: {loaded}"
    data = _graphql(GRAPH)
    served = {"/".join(n["assetKey"]["path"]): n for n in data["assetNodes"]}
    served_checks = {
        (name, check["name"])
        for name, node in served.items()
        for check in node["assetChecksOrError"]["checks"]
    }
    graph = defs.resolve_asset_graph()  # every stage that exists now, as the code location defines it
    assert set(served) == {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert served_checks == {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert served["raw_traces"]["isPartitioned"]
    assert {("raw_traces", "records_conserved"), ("raw_traces", "raw_traces_episode_ids")} <= served_checks
    [repository] = data["repositoriesOrError"]["nodes"]
    assert {s["name"] for s in repository["sensors"]} == {s.name for s in defs.sensors}
    assert {s["name"] for s in repository["schedules"]} == {s.name for s in defs.schedules}
    assert {"new_logs_sensor", "retraining_sensor", "nightly_ingest_and_curate_schedule"} <= {
        s["name"] for s in repository["sensors"] + repository["schedules"]
    }

    params = {
        "selector": {
            "repositoryLocationName": repository["location"]["name"],
            "repositoryName": repository["name"],
            "jobName": "__ASSET_JOB",
            "assetSelection": [{"path": ["raw_traces"]}, {"path": ["ingest_rejects"]}],
        },
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "2024-03-01"}]},
        "runConfigData": {"execution": {"config": {"in_process": {}}}},  # one process: fast on 2 cores
    }
    launched = _graphql(LAUNCH, {"params": params})["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while (status := _graphql(STATUS, {"id": run_id})["runOrError"]["status"]) not in (
        "SUCCESS",
        "FAILURE",
        "CANCELED",
    ):
        assert time.monotonic() < deadline, f"run {run_id} still {status}"
        time.sleep(2)
    assert status == "SUCCESS"
    with duckdb.connect(str(workdir / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM raw_traces").fetchall() == [(2,)]


BACKFILL = """
mutation Backfill($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
  }
}
"""

BACKFILLS = """
{ partitionBackfillsOrError { ... on PartitionBackfills { results {
    id status partitionNames assetSelection { path } } } } }
"""


def test_dagster_webserver_backfills_raw_traces_alone(ui_server) -> None:
    """The request the UI sends for a raw_traces-only backfill (it failed while the multi-asset
    could not be subset): accepted, for exactly that asset and those days."""
    params = {"assetSelection": [{"path": ["raw_traces"]}], "partitionNames": ["2024-03-01", "2024-03-02"]}
    launched = ui_server.graphql(BACKFILL, {"params": params})["launchPartitionBackfill"]
    assert launched["__typename"] == "LaunchBackfillSuccess", launched
    backfills = ui_server.graphql(BACKFILLS)["partitionBackfillsOrError"]["results"]
    [ours] = [b for b in backfills if b["id"] == launched["backfillId"]]
    assert ours["assetSelection"] == [{"path": ["raw_traces"]}]
    assert ours["partitionNames"] == ["2024-03-01", "2024-03-02"] and ours["status"] == "REQUESTED"
