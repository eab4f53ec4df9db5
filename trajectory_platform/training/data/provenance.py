"""Where training data came from: the provenance a dataset carries, and the one test of it.

Raw agent logs hold secrets in context and failing calls among the assistant turns; masking them as
they are supervises both. So the data that reaches ``mask`` and ``train`` must prove it passed the
verifier cascade (only admitted episodes, only their selected turns as targets) and redaction. The
proof is a ``provenance`` object, ``{"verified": bool, "redacted": bool, "by": ..., ...}``:

- in the Arrow schema metadata of an episode table (``training_mixture`` / ``preference_pairs``
  as ``trajectory-platform curate`` writes them), under :data:`PARQUET_KEY`;
- in a dataset manifest (``<dataset>.manifest.json`` beside a JSONL or Parquet dataset, and the
  manifest the ``token_masked_dataset`` asset writes, which its warehouse copy is read with: see
  :func:`~trajectory_platform.training.data.manifest_files.manifest_places`), under :data:`MANIFEST_KEY`.

Data without it is refused (:func:`refusal_message`) unless the caller passes the loudly named opt-out
:data:`UNSAFE_FLAG`, whose provenance (:func:`unsafe`) says ``verified: false`` so every later
manifest shows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.training.data.manifest_files import find_manifest, manifest_places

if TYPE_CHECKING:  # pyarrow loads only where a file is read: `train --help` needs UNSAFE_FLAG alone
    import pyarrow as pa

MANIFEST_KEY = "provenance"
PARQUET_KEY = b"trajectory_platform.provenance"
UNSAFE_FLAG = "--unsafe-unverified-input"
CURATE_HINT = "trajectory-platform curate LOGS... --envs ENVIRONMENTS --out OUT"


def curated(by: str, **facts: Any) -> dict[str, Any]:
    """The provenance of data that went through the cascade and redaction (``by``: which path)."""
    return {"verified": True, "redacted": True, "by": by, **facts}


def unsafe(by: str, source: str) -> dict[str, Any]:
    """The provenance recorded when a user opted out: nothing vouches for ``source``."""
    return {"verified": False, "redacted": False, "by": by, "opt_out": UNSAFE_FLAG, "source": source}


def is_curated(provenance: dict[str, Any] | None) -> bool:
    """Whether ``provenance`` says verified and redacted (both literally ``true``)."""
    if provenance is None:
        return False
    return provenance.get("verified") is True and provenance.get("redacted") is True


def with_provenance(table: pa.Table, provenance: dict[str, Any]) -> pa.Table:
    """``table`` with ``provenance`` in its schema metadata, which Parquet keeps."""
    metadata = dict(table.schema.metadata or {})
    metadata[PARQUET_KEY] = json.dumps(provenance, sort_keys=True).encode("utf-8")
    return table.replace_schema_metadata(metadata)


def table_provenance(schema: pa.Schema) -> dict[str, Any] | None:
    """The provenance an episode table's schema carries, or ``None``."""
    raw = (schema.metadata or {}).get(PARQUET_KEY)
    if raw is None:
        return None
    found = json.loads(raw)
    return found if isinstance(found, dict) else None


def file_provenance(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The provenance of a data file (its dataset manifest's, else, for Parquet, its schema's) and
    where it was looked for, which a refusal names so a person can see what is missing."""
    place, manifest = find_manifest(path)
    found = manifest.get(MANIFEST_KEY)
    if isinstance(found, dict):
        return found, f"its manifest {place}"
    places = " or ".join(str(p) for p in manifest_places(path))
    looked = f"its manifest {place} names none" if place else f"no dataset manifest at {places}"
    if path.suffix == ".parquet" and path.is_file():
        import pyarrow.parquet as pq

        from_schema = table_provenance(pq.read_schema(path))
        if from_schema is not None:
            return from_schema, "its Parquet schema"
        looked += ", nor does its Parquet schema name one"
    return None, looked


def refusal_message(path: Path, provenance: dict[str, Any] | None, *, instead: str, looked: str) -> str:
    """Why ``path`` is refused and what to run instead, for a person (``looked``: where its
    provenance was sought, from :func:`file_provenance`)."""
    if provenance is None:
        why = f"carries no provenance ({looked}: raw logs, ingest output, or a file no curation run wrote)"
    else:
        said = {k: provenance.get(k) for k in ("verified", "redacted")}
        why = f"is not verified and redacted (its provenance says {json.dumps(said, sort_keys=True)})"
    return (
        f"{path}: {why}. Unverified data supervises failing tool calls and secrets in context. "
        f"{instead}, or pass {UNSAFE_FLAG} to use it anyway (recorded as unverified)"
    )


def provenance_or_refusal(path: Path, *, opt_out: bool, by: str, instead: str) -> dict[str, Any] | str:
    """What ``mask`` / ``train`` (``by``) may record for ``path``: its curated provenance, the
    opt-out's (:func:`unsafe`) when the user passed :data:`UNSAFE_FLAG`, or the refusal message
    (a ``str``: what is wrong and ``instead``, what to run)."""
    try:
        found, looked = file_provenance(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        return f"{path}: cannot read its provenance: {exc}"
    if is_curated(found):
        return found or {}
    if not opt_out:
        return refusal_message(path, found, instead=instead, looked=looked)
    return unsafe(by, str(path))
