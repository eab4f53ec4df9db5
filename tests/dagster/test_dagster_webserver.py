"""The Dagster UI as a person uses it: start the webserver, read the graph, materialize, stop.

The webserver is started on a free loopback port with default signal handlers (a background
job inherits an ignored SIGINT, which would make a polite stop impossible) in its own session,
and stopped by its PID; nothing else is touched. There is no daemon here, so the test instance
launches runs directly (DefaultRunCoordinator) instead of queueing them for one.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from trajectory_platform.resources import prepare_dagster_home

BIN = Path(sys.executable).parent
START_TIMEOUT_S = 180
RUN_TIMEOUT_S = 240


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _graphql(url: str, query: str, variables: dict | None = None) -> dict:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"{url}/graphql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        payload = json.load(response)
    assert "errors" not in payload, payload["errors"]
    return payload["data"]


def _stop(process: subprocess.Popen) -> None:
    """SIGINT by PID (a graceful shutdown that also stops its code server), then escalate."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its own session: only what we started
        process.wait(timeout=30)


@pytest.fixture
def webserver(tmp_path: Path, log_writer) -> Iterator[tuple[str, Path]]:
    log_writer("2024-03-01", good=2, bad=1)
    home = prepare_dagster_home(tmp_path)
    config = (home / "dagster.yaml").read_text()
    (home / "dagster.yaml").write_text(
        config.replace("class: QueuedRunCoordinator", "class: DefaultRunCoordinator")
    )
    env = {**os.environ, "DAGSTER_HOME": str(home), "TRAJECTORY_PLATFORM_WORKDIR": str(tmp_path)}
    port = _free_port()
    process = subprocess.Popen(
        [
            str(BIN / "dagster-webserver"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-m",
            "trajectory_platform.definitions",
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "webserver.log", "wb"),  # noqa: SIM115 (closed with the process)
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert process.poll() is None, (tmp_path / "webserver.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{url}/server_info", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "webserver did not answer in time"
            time.sleep(1)
        yield url, tmp_path
    finally:
        _stop(process)
    assert process.returncode is not None


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
