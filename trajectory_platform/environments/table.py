"""The registry as a table: one row per registered environment, with its digest and whether its
content is still the content that was validated.

``task_environments`` (the Dagster asset) is this table; the verifier judges logs against the same
registry, so a row whose content changed since import (``status = changed_since_import``) is what a
person must fix before any verdict on that task can be trusted. Nothing here runs environment code.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from trajectory_platform.environments.format import EnvironmentFormatError, TaskEnvironment
from trajectory_platform.environments.registry import EnvironmentCatalog, read_index
from trajectory_platform.gym.fixtures import Fixture

ENVIRONMENT_STATUSES = ("registered", "changed_since_import")

ENVIRONMENTS_SCHEMA = pa.schema(
    [
        pa.field("task_id", pa.string(), nullable=False),
        pa.field("registered_digest", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("problem", pa.string()),
        pa.field("repo_family", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("license", pa.string()),
        pa.field("tool_family", pa.string()),
        pa.field("replay_mode", pa.string()),
        pa.field("workspace_files", pa.int64()),
        pa.field("fail_to_pass", pa.int64()),
        pa.field("pass_to_pass", pa.int64()),
        pa.field("references", pa.int64()),
        pa.field("depends_on", pa.list_(pa.string())),
    ]
)
"""One row per registered environment; ``problem`` says why a row is not ``registered``."""


def replay_mode(env: TaskEnvironment) -> str:
    """How the verifier can re-execute a log on this environment (docs/environments.md)."""
    if env.replay.shell:
        return "shell"
    if env.replay.tools_entry_point:
        return "tools"
    return "final_state"


def environments_table(root: Path) -> pa.Table:
    """The registry at ``root`` as :data:`ENVIRONMENTS_SCHEMA` rows, sorted by task id."""
    catalog = EnvironmentCatalog(root)
    rows = []
    for task_id, digest in sorted(read_index(root).items()):
        try:
            env = catalog.get(task_id)
        except EnvironmentFormatError as exc:
            rows.append(_changed_row(task_id, digest, exc.reason))
            continue
        if env is None:  # the index names it, so only a concurrent removal gets here
            rows.append(_changed_row(task_id, digest, "removed from the registry folder"))
            continue
        rows.append(
            {
                "task_id": task_id,
                "registered_digest": digest,
                "status": "registered",
                "problem": None,
                "repo_family": env.repo_family,
                "domain": env.domain,
                "license": env.license,
                "tool_family": env.tool_family,
                "replay_mode": replay_mode(env),
                "workspace_files": len(env.s0_files),
                "fail_to_pass": len(env.fail_to_pass),
                "pass_to_pass": len(env.pass_to_pass),
                "references": len(env.references),
                "depends_on": list(env.depends_on),
            }
        )
    return pa.Table.from_pylist(rows, schema=ENVIRONMENTS_SCHEMA)


def _changed_row(task_id: str, digest: str, problem: str) -> dict:
    return {
        "task_id": task_id,
        "registered_digest": digest,
        "status": "changed_since_import",
        "problem": problem,
    }


def registered_fixtures(root: Path) -> list[Fixture]:
    """The fixtures of the registry's environments whose row is ``registered``, by task id: the
    environments the split plan places and the evaluation scores (one edited in place since import
    is judged by nobody, nor planned, nor evaluated on)."""
    catalog = EnvironmentCatalog(root)
    rows = environments_table(root).select(["task_id", "status"]).to_pylist()
    fixtures = [catalog.fixture(r["task_id"]) for r in rows if r["status"] == "registered"]
    return [f for f in fixtures if f is not None]
