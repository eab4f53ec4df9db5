"""Where a dataset file's manifest lies, and proof that an asset's manifest describes the copy.

A dataset written by ``mask`` or ``curate`` carries its manifest beside it
(``<file>.manifest.json``); the warehouse copy of a data asset (``parquet/<asset>/<key>.parquet``)
has the manifest that asset wrote under ``artifacts/`` (:mod:`trajectory_platform.workdir`), which
every materialization rewrites, so it is used only when the digest of rows it records matches the
copy. The loader (``dataset.py``) and the provenance check (``provenance.py``) both read manifests
through :func:`find_manifest`, so they cannot disagree about which one a file has.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.workdir import warehouse_manifest

if TYPE_CHECKING:  # pyarrow loads only where a file is read: `train --help` imports this module
    import pyarrow as pa

ROWS_DIGEST_KEY = "rows_digest"
"""Where a data asset's artifact manifest records :func:`rows_digest` of the table it describes."""


def hash_rows(digest: Any, table: pa.Table) -> str:
    """``digest`` (a hashlib object) updated with every row of ``table`` as sorted JSON."""
    for row in table.to_pylist():
        digest.update(json.dumps(row, sort_keys=True, default=str).encode())
    return str(digest.hexdigest())


def rows_digest(table: pa.Table) -> str:
    """Digest of a table's column names and rows, blind to how Arrow spells their types: a Parquet
    round trip renames list children (``list<item>`` becomes ``list<element>``), so the asset's
    in-memory table and its warehouse copy agree here and not under a schema-bound digest."""
    return hash_rows(hashlib.sha256(json.dumps(table.column_names).encode()), table)


def sidecar_manifest(path: Path) -> Path:
    """``<path>.manifest.json``: where a dataset file's manifest lives."""
    return path.with_name(path.name + ".manifest.json")


def manifest_places(path: Path) -> list[Path]:
    """Where a dataset file's manifest may lie, in the order looked: beside it
    (``<file>.manifest.json``, what ``mask`` and ``curate`` write), then, for the warehouse copy of
    a data asset, the manifest that asset wrote (:func:`~trajectory_platform.workdir.warehouse_manifest`)."""
    artifact = warehouse_manifest(path)
    return [sidecar_manifest(Path(path)), *([artifact] if artifact is not None else [])]


def _belongs(path: Path, place: Path, manifest: dict[str, Any]) -> None:
    """Refuse an artifact manifest written for another materialization than the Parquet ``path``:
    every materialization rewrites it, so it may describe a newer (or older) table than the copy."""
    recorded = manifest.get(ROWS_DIGEST_KEY)
    if recorded is None:
        raise ValueError(
            f"{place}: records no {ROWS_DIGEST_KEY}, so nothing shows it describes {path}; "
            "materialize the asset again to write a manifest that does"
        )
    import pyarrow.parquet as pq

    actual = rows_digest(pq.read_table(path))
    if recorded != actual:
        raise ValueError(
            f"{place} describes another materialization than {path} (its {ROWS_DIGEST_KEY} "
            f"{str(recorded)[:12]}, the file's {actual[:12]}): materialize the asset again, or train on "
            "the copy that manifest was written with"
        )


def find_manifest(path: Path) -> tuple[Path | None, dict[str, Any]]:
    """A dataset file's manifest and where it lay (the first of :func:`manifest_places` that
    exists), or ``(None, {})``; an artifact manifest only when it records this file's rows."""
    path = Path(path)
    for place in manifest_places(path):
        if not place.is_file():
            continue
        try:
            manifest = json.loads(place.read_text(encoding="utf-8"))
        except ValueError as error:
            raise ValueError(f"{place}: not a JSON dataset manifest ({error})") from error
        if not isinstance(manifest, dict):
            raise ValueError(f"{place}: a JSON {type(manifest).__name__}, not a dataset manifest object")
        if place != sidecar_manifest(path):
            _belongs(path, place, manifest)
        return place, manifest
    return None, {}
