"""Where the platform keeps its state: one working directory, configurable per deployment.

Everything a run writes (Parquet, the DuckDB warehouse, the trace source of the embedded
default, Dagster's own sqlite storage, reports) lives under this one directory so a newcomer
can delete it to start over and an operator can point a deployment elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from dagster import ConfigurableResource

from trajectory_platform.environments.registry import REGISTRY_DIR
from trajectory_platform.workdir import ARTIFACTS_DIR, PARQUET_DIR, WORKDIR_ENV, default_workdir

__all__ = ["WORKDIR_ENV", "WorkdirResource", "default_workdir"]


class WorkdirResource(ConfigurableResource):
    """The working directory and the well-known paths inside it.

    Assets ask this resource for paths instead of building them, so the layout documented in
    ``docs/operations.md`` is defined in exactly one place.
    """

    path: str

    @property
    def root(self) -> Path:
        return Path(self.path).resolve()

    @property
    def parquet_dir(self) -> Path:
        return self.root / PARQUET_DIR

    @property
    def warehouse_path(self) -> Path:
        return self.root / "warehouse.duckdb"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster_home"

    @property
    def trace_source_dir(self) -> Path:
        return self.root / "trace_source"

    @property
    def environments_dir(self) -> Path:
        """The registry of brought task environments (``trajectory-platform env import``)."""
        return self.root / REGISTRY_DIR

    @property
    def artifacts_dir(self) -> Path:
        """Non-tabular outputs (checkpoints, reports) that assets reference by path."""
        return self.root / ARTIFACTS_DIR

    def relative(self, path: Path) -> str:
        """``path`` as stored in a table: relative to the workdir when inside it.

        Tables that name files keep their bytes independent of where the workdir lives, so the
        same inputs and seed give byte-identical Parquet in any checkout.
        """
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def locate(self, stored: str) -> Path:
        """The file a table row names (the inverse of :meth:`relative`; absolute paths pass through)."""
        return self.root / stored

    def artifact_dir(self, name: str) -> Path:
        """A created directory for one asset's files, e.g. ``artifacts/checkpoint``."""
        target = self.artifacts_dir / name
        target.mkdir(parents=True, exist_ok=True)
        return target


PROJECT_DAGSTER_YAML = Path(__file__).resolve().parents[2] / "dagster.yaml"
"""The project's instance config (repo root); copied into each workdir's DAGSTER_HOME."""


def prepare_dagster_home(workdir: Path | str) -> Path:
    """Create ``<workdir>/dagster_home`` holding the project's ``dagster.yaml``; returns it.

    Dagster reads its instance config from ``$DAGSTER_HOME``; keeping that inside the workdir
    makes run history, sensor cursors and logs belong to the data they describe. Without the
    repo file (a wheel install) Dagster's defaults apply, which are also sqlite under the home.
    """
    home = Path(workdir).resolve() / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    if PROJECT_DAGSTER_YAML.is_file():
        target = home / "dagster.yaml"
        text = PROJECT_DAGSTER_YAML.read_text()
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    return home
