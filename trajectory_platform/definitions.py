"""The Dagster code location: every asset, check, job, sensor, schedule and resource.

Assets and checks are discovered from their packages so each stage owns its own module;
this file holds no business logic. The named stage jobs (``sensors/jobs.py``) are what the
platform launches runs under; :func:`stage_job` finds the one for a set of assets.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType
from typing import TypeVar

from dagster import (
    AssetKey,
    Definitions,
    JobDefinition,
    ScheduleDefinition,
    SensorDefinition,
    load_asset_checks_from_package_module,
    load_assets_from_package_module,
)

from trajectory_platform import assets, checks, sensors
from trajectory_platform.resources import build_resources
from trajectory_platform.sensors.jobs import RETRAINING_JOB, STAGE_JOBS

NamedT = TypeVar("NamedT", SensorDefinition, ScheduleDefinition)


def _collect(package: ModuleType, kind: type[NamedT]) -> list[NamedT]:
    """Every module-level instance of ``kind`` in ``package``'s modules, in a stable order."""
    found: dict[str, NamedT] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, kind):
                found.setdefault(value.name, value)
    return list(found.values())


defs = Definitions(
    assets=load_assets_from_package_module(assets),
    asset_checks=[
        *load_asset_checks_from_package_module(checks),
        *load_asset_checks_from_package_module(assets),
    ],
    jobs=[*STAGE_JOBS, RETRAINING_JOB],
    sensors=_collect(sensors, SensorDefinition),
    schedules=_collect(sensors, ScheduleDefinition),
    resources=build_resources(),
)


def bound_to(resources: dict) -> Definitions:
    """The code location's assets, checks and stage jobs with ``resources`` (another workdir's,
    as ``trajectory-platform run --workdir`` builds them) in place of the default ones."""
    return Definitions(
        assets=defs.assets, asset_checks=defs.asset_checks, jobs=list(STAGE_JOBS), resources=resources
    )


def stage_job(definitions: Definitions, keys: Iterable[AssetKey]) -> JobDefinition:
    """The named stage job of ``definitions`` that selects all of ``keys``: ``trajectory-platform
    run`` executes each step through it, so the run list names the stage, not an ephemeral job."""
    wanted = set(keys)
    for job in STAGE_JOBS:
        resolved = definitions.resolve_job_def(job.name)
        if wanted <= resolved.asset_layer.selected_asset_keys:
            return resolved
    names = sorted(k.to_user_string() for k in wanted)
    raise LookupError(f"no stage job in trajectory_platform/sensors/jobs.py selects {names}")
