"""Where the platform keeps its state when no one says otherwise: the one rule, for every layer.

``$TRAJECTORY_PLATFORM_WORKDIR`` or ``./workdir``. The domain packages (the default model and
tokenizer caches), the Dagster resources and the CLI all ask this module, so they cannot
disagree about where the embedded run's files are.

Inside it, the layout more than one layer reads: the warehouse copy of an asset's table,
``<workdir>/parquet/<asset>/<partition key | all>.parquet`` (the IO manager writes it), and the
manifest a data asset writes for that table, ``<workdir>/artifacts/<asset>/manifest.json`` (the
``checkpoint`` asset and ``trajectory-platform train`` on a warehouse copy read it).
"""

from __future__ import annotations

import os
from pathlib import Path

WORKDIR_ENV = "TRAJECTORY_PLATFORM_WORKDIR"
PARQUET_DIR = "parquet"
ARTIFACTS_DIR = "artifacts"
ARTIFACT_MANIFEST = "manifest.json"


def default_workdir() -> Path:
    """``$TRAJECTORY_PLATFORM_WORKDIR`` or ``./workdir``, resolved."""
    return Path(os.environ.get(WORKDIR_ENV, "workdir")).resolve()


def asset_parquet_dir(workdir: Path, asset: str) -> Path:
    """``<workdir>/parquet/<asset>``: the folder of an asset's warehouse copy."""
    return Path(workdir) / PARQUET_DIR / asset


def asset_manifest(workdir: Path, asset: str) -> Path:
    """``<workdir>/artifacts/<asset>/manifest.json``: the manifest a data asset writes for its table."""
    return Path(workdir) / ARTIFACTS_DIR / asset / ARTIFACT_MANIFEST


def warehouse_manifest(path: Path) -> Path | None:
    """The artifact manifest of the asset whose warehouse copy ``path`` is
    (``<workdir>/parquet/<asset>/<key>.parquet``), or ``None`` for a file outside that layout: a
    person who trains by hand on a pipeline's table points at the Parquet, not at the manifest."""
    path = Path(path).resolve()
    folder = path.parent
    if path.suffix != ".parquet" or folder.parent.name != PARQUET_DIR:
        return None
    return asset_manifest(folder.parent.parent, folder.name)
