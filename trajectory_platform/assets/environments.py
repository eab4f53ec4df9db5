"""``task_environments``: the registry of task environments users brought, one row per environment.

Thin: read the workdir's registry (``trajectory-platform env import`` fills it), call
:func:`trajectory_platform.environments.table.environments_table`, report counts, and say through a
blocking check whether every registered environment is still the content that was validated.
``verified_traces`` judges logs against this same registry (gym fixtures first, then these), so it
is downstream of this asset in the graph.
"""

from collections import Counter

import pyarrow as pa
from dagster import AssetCheckResult, AssetCheckSpec, AssetExecutionContext, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared
from trajectory_platform.environments.table import ENVIRONMENTS_SCHEMA, environments_table
from trajectory_platform.resources.settings import WorkdirResource

INTACT_CHECK = AssetCheckSpec(
    "environments_unchanged_since_import",
    asset="task_environments",
    blocking=True,
    description="Every registered environment's content still has the digest it was validated with "
    "(an environment edited in place is judged with by nobody until it is re-imported).",
)


@asset(
    **declared("curation", ENVIRONMENTS_SCHEMA),
    check_specs=[INTACT_CHECK],
    description="Task environments users brought (S0, sealed oracle, references, tools, replay mode), "
    "validated at import, one row per environment with its content digest; logs name one by task id.",
)
def task_environments(context: AssetExecutionContext, workdir: WorkdirResource):
    """The workdir's environment registry as a table, and whether it is intact."""
    table = environments_table(workdir.environments_dir)
    statuses = Counter(table.column("status").to_pylist())
    context.log.info(f"task_environments: {table.num_rows} registered, by status {dict(statuses)}")
    yield Output(
        table,
        metadata={
            "environments": table.num_rows,
            "by_status": MetadataValue.json(dict(sorted(statuses.items()))),
            "by_replay_mode": MetadataValue.json(_counts(table, "replay_mode")),
            "by_repo_family": MetadataValue.json(_counts(table, "repo_family")),
            "registry": MetadataValue.path(str(workdir.environments_dir)),
        },
    )
    yield _intact_result(table)


def _counts(table: pa.Table, column: str) -> dict[str, int]:
    return dict(sorted(Counter(v for v in table.column(column).to_pylist() if v).items()))


def _intact_result(table: pa.Table) -> AssetCheckResult:
    changed = [r for r in table.to_pylist() if r["status"] != "registered"]
    return AssetCheckResult(
        check_name=INTACT_CHECK.name,
        passed=not changed,
        metadata={
            "changed": len(changed),
            "problems": MetadataValue.json({r["task_id"]: r["problem"] for r in changed[:20]}),
        },
    )
