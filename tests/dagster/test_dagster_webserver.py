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
    assets = {"/".join(n["assetKey"]["path"]): n for n in data["assetNodes"]}
    assert {"raw_traces", "ingest_rejects"} <= set(assets)
    assert assets["raw_traces"]["isPartitioned"]
    raw_checks = {c["name"] for c in assets["raw_traces"]["assetChecksOrError"]["checks"]}
    assert {"records_conserved", "raw_traces_schema", "raw_traces_episode_ids"} <= raw_checks
    [repository] = data["repositoriesOrError"]["nodes"]
    assert {"new_logs_sensor", "retraining_sensor"} <= {s["name"] for s in repository["sensors"]}
    schedules = {s["name"] for s in repository["schedules"]}
    assert {"nightly_ingest_and_curate_schedule", "weekly_closed_loop_evaluation_schedule"} <= schedules

    params = {
        "selector": {
            "repositoryLocationName": repository["location"]["name"],
            "repositoryName": repository["name"],
            "jobName": "__ASSET_JOB",
            "assetSelection": [{"path": ["raw_traces"]}, {"path": ["ingest_rejects"]}],
        },
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "2024-03-01"}]},
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
