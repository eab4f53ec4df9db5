"""Shared fixtures for the Dagster-layer tests: a trace source with a few dated log files, and
one running Dagster webserver for the UI tests (GraphQL and the browser) of a session."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from trajectory_platform.resources import prepare_dagster_home
from trajectory_platform.resources.webserver import running_webserver

UI_DAYS = ("2024-03-01", "2024-03-02")
"""The trace-source days of the UI tests' workdir (2 good + 1 bad record, then 1 good)."""


def write_day(source: Path, day: str, good: int, bad: int = 0, name: str = "chat.jsonl") -> Path:
    """Write ``good`` OpenAI-chat records and ``bad`` malformed lines under ``source/day/name``."""
    lines = [
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": f"{day} {name} task {i}"},
                    {"role": "assistant", "content": f"answer {i}"},
                ]
            }
        )
        for i in range(good)
    ]
    lines += ["{this is not json" for _ in range(bad)]
    path = source / day / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def log_writer(tmp_path: Path) -> Callable[..., Path]:
    """``log_writer(day, good, bad=0, name=...)`` writes into ``tmp_path/trace_source``."""
    source = tmp_path / "trace_source"
    return lambda day, good, bad=0, name="chat.jsonl": write_day(source, day, good, bad, name)


@dataclass(frozen=True)
class UiServer:
    """A running webserver (``url``) over ``workdir``, and its GraphQL endpoint."""

    url: str
    workdir: Path

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        """POST one query; its ``data`` (fails on any error)."""
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(f"{self.url}/graphql", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = json.load(response)
        assert "errors" not in payload, payload["errors"]
        return payload["data"]


@pytest.fixture(scope="session")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """``dagster-webserver`` on a free loopback port over a small workdir.

    Started once per session (it takes a minute on a loaded 2-core machine) and shared by the
    GraphQL and browser tests. There is no daemon, so the instance launches runs directly
    (DefaultRunCoordinator) instead of queueing them for one; backfills stay requested.
    """
    workdir = tmp_path_factory.mktemp("ui")
    write_day(workdir / "trace_source", UI_DAYS[0], good=2, bad=1)
    write_day(workdir / "trace_source", UI_DAYS[1], good=1)
    home = prepare_dagster_home(workdir)
    config = (home / "dagster.yaml").read_text()
    (home / "dagster.yaml").write_text(
        config.replace("class: QueuedRunCoordinator", "class: DefaultRunCoordinator")
    )
    with running_webserver(home, workdir, workdir / "webserver.log") as url:
        yield UiServer(url, workdir)
