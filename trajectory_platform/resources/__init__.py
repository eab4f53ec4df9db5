"""Dagster resources: the workdir, the warehouse IO manager, the trace source, the secrets salt.

``build_resources(workdir)`` is the single place the embedded default deployment is wired;
``definitions.py`` calls it with the default workdir and ``trajectory-platform run --workdir``
with the chosen one.
"""

from __future__ import annotations

from pathlib import Path

from trajectory_platform.resources.facts import UPSTREAM_FACTS, upstream_facts_manager
from trajectory_platform.resources.retraining import RetrainingPolicyResource, default_min_new_tokens
from trajectory_platform.resources.secrets import SALT_ENV, SecretsSaltResource, workdir_salt
from trajectory_platform.resources.settings import (
    WORKDIR_ENV,
    WorkdirResource,
    default_workdir,
    prepare_dagster_home,
)
from trajectory_platform.resources.trace_source import TraceSourceResource
from trajectory_platform.resources.warehouse import (
    WarehouseIOManager,
    read_asset_table,
    table_name,
    warehouse_connection,
)

__all__ = [
    "SALT_ENV",
    "UPSTREAM_FACTS",
    "RetrainingPolicyResource",
    "WORKDIR_ENV",
    "SecretsSaltResource",
    "TraceSourceResource",
    "WarehouseIOManager",
    "WorkdirResource",
    "build_resources",
    "default_workdir",
    "prepare_dagster_home",
    "read_asset_table",
    "table_name",
    "warehouse_connection",
]


def build_resources(workdir: Path | str | None = None, trace_source: Path | str | None = None) -> dict:
    """Resources for the default (embedded) deployment, all rooted at ``workdir``.

    Keys: ``io_manager`` (warehouse), ``workdir``, ``trace_source``, ``feedback_source`` (users'
    feedback on a deployed agent, dated folders like the trace source's but apart from them, so
    ingestion never reads feedback as traces), ``secrets_salt``,
    ``retraining`` (the retraining sensor's threshold), ``upstream_facts`` (an upstream stage's
    reported figures as an input).
    """
    root = Path(workdir).resolve() if workdir is not None else default_workdir()
    source = Path(trace_source).resolve() if trace_source is not None else root / "trace_source"
    return {
        "io_manager": WarehouseIOManager(workdir=str(root)),
        "workdir": WorkdirResource(path=str(root)),
        "trace_source": TraceSourceResource(root=str(source)),
        "feedback_source": TraceSourceResource(root=str(root / "feedback_source")),
        "secrets_salt": workdir_salt(root),
        "retraining": RetrainingPolicyResource(min_new_selected_target_tokens=default_min_new_tokens()),
        UPSTREAM_FACTS: upstream_facts_manager,
    }
