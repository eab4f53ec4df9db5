"""The Dagster UI as a person uses it: start the webserver, read the graph, materialize, stop.

:func:`running_webserver` starts it on a free loopback port with default signal handlers and
stops exactly that process by PID. There is no daemon here, so the test instance launches runs
directly (DefaultRunCoordinator) instead of queueing them for one.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from trajectory_platform.definitions import defs
from trajectory_platform.resources import prepare_dagster_home
from trajectory_platform.resources.webserver import running_webserver

RUN_TIMEOUT_S = 240


def _graphql(url: str, query: str, variables: dict | None = None) -> dict:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"{url}/graphql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        payload = json.load(response)
    assert "errors" not in payload, payload["errors"]
    return payload["data"]


@pytest.fixture
def webserver(tmp_path: Path, log_writer) -> Iterator[tuple[str, Path]]:
    log_writer("2024-03-01", good=2, bad=1)
    home = prepare_dagster_home(tmp_path)
    config = (home / "dagster.yaml").read_text()
    (home / "dagster.yaml").write_text(
        config.replace("class: QueuedRunCoordinator", "class: DefaultRunCoordinator")
    )
    with running_webserver(home, tmp_path, tmp_path / "webserver.log") as url:
        yield url, tmp_path


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


def test_dagster_webserver_serves_graph_and_materializes(webserver) -> None:
    url, workdir = webserver
    for entry in _graphql(url, LOCATIONS)["workspaceOrError"]["locationEntries"]:
        loaded = entry["locationOrLoadError"]
        assert loaded["__typename"] == "RepositoryLocation", f"{entry['name']} failed to load: {loaded}"
    data = _graphql(url, GRAPH)
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
    launched = _graphql(url, LAUNCH, {"params": params})["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while (status := _graphql(url, STATUS, {"id": run_id})["runOrError"]["status"]) not in (
        "SUCCESS",
        "FAILURE",
        "CANCELED",
    ):
        assert time.monotonic() < deadline, f"run {run_id} still {status}"
        time.sleep(2)
    assert status == "SUCCESS"
    with duckdb.connect(str(workdir / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM raw_traces").fetchall() == [(2,)]
