"""The Dagster code location: every asset, check, sensor, schedule and resource.

Assets and checks are discovered from their packages so each stage owns its own module;
this file holds no business logic.
"""

from __future__ import annotations

import importlib
import pkgutil

from dagster import (
    Definitions,
    ScheduleDefinition,
    SensorDefinition,
    load_asset_checks_from_package_module,
    load_assets_from_package_module,
)

from trajectory_platform import assets, checks, sensors
from trajectory_platform.resources import build_resources


def _collect(package, kind: type) -> list:
    """Every module-level instance of ``kind`` in ``package``'s modules, in a stable order."""
    found: dict[str, object] = {}
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
    sensors=_collect(sensors, SensorDefinition),
    schedules=_collect(sensors, ScheduleDefinition),
    resources=build_resources(),
)
