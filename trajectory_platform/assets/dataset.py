"""The dataset stage's assets: ``token_masked_dataset`` (SFT) and ``preference_dataset`` (DPO).

``token_masked_dataset``: the training mixture serialized, masked and verified (fine-tuning
16.3-16.5). Thin: read ``training_mixture`` (episode rows with ``role``, ``split``,
``target_turns``), call :func:`trajectory_platform.training.data.dataset_stage.run_dataset_stage`
once (it masks the mixture ``batch_rows`` episodes at a time), write the dataset manifest beside
the artifacts (with the digest of the rows it describes, so ``trajectory-platform train`` on the
warehouse copy can tell it belongs there), attach what a person reads (token stats, drop reasons,
the manifest, a decoded sample with targets marked ``[[...]]``) and return the table.

``preference_dataset``: the same for span DPO (16.8). Read ``preference_pairs`` (curation's
episode pairs), call
:func:`trajectory_platform.training.data.preference_dataset.run_preference_stage` once (both sides
of each pair rendered and masked like SFT examples, refusals counted by reason), write its
manifest, attach the same kind of metadata and return the token rows ``checkpoint`` trains DPO on.
"""

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.resources import WorkdirResource
from trajectory_platform.resources.stage_config import SETTINGS_KEY, settings_of, stage_config
from trajectory_platform.sensors.automation import CURATION_CONDITION
from trajectory_platform.training.data.dataset_stage import run_dataset_stage
from trajectory_platform.training.data.manifest_files import ROWS_DIGEST_KEY, rows_digest
from trajectory_platform.training.data.mask_settings import DatasetSettings
from trajectory_platform.training.data.masked_dataset import MASKED_SCHEMA
from trajectory_platform.training.data.preference_dataset import (
    PREFERENCE_DATASET_SCHEMA,
    PreferenceDatasetSettings,
    run_preference_stage,
)
from trajectory_platform.training.data.provenance import MANIFEST_KEY, curated
from trajectory_platform.workdir import asset_manifest

GRAPH_PROVENANCE = curated("dagster", upstream="redacted_corpus <- verified_traces")
"""Both data assets read curation's tables, which only the cascade and redaction feed."""


def write_manifest(workdir: WorkdirResource, asset: str, manifest: dict, table: pa.Table) -> Path:
    """``artifacts/<asset>/manifest.json``: the dataset manifest beside the table, where the
    ``checkpoint`` asset and ``train`` on the warehouse copy find it, with the digest of ``table``'s
    rows: the next materialization rewrites this file, so a reader checks it describes its copy."""
    path = asset_manifest(workdir.root, asset)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = {**manifest, ROWS_DIGEST_KEY: rows_digest(table)}
    path.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n")
    return path


HEADLINE_STATS = ("stored_tokens", "selected_targets", "target_share", "dilution_factor", "observation_share")
"""The dataset manifest's token stats a person reads first on the asset page."""


class MaskedDatasetConfig(stage_config(DatasetSettings)):  # type: ignore[misc]
    """``token_masked_dataset``'s run config: :class:`DatasetSettings`' fields."""


class PreferenceDatasetConfig(stage_config(PreferenceDatasetSettings)):  # type: ignore[misc]
    """``preference_dataset``'s run config: :class:`PreferenceDatasetSettings`' fields."""


@asset(
    ins={"training_mixture": AssetIn()},
    **declared("training", MASKED_SCHEMA),
    automation_condition=CURATION_CONDITION,
    description="One row per training example: input_ids and HF-convention labels (-100 = no loss) "
    "with only the selected assistant turns (and their authentic end token) as targets.",
)
def token_masked_dataset(
    context: AssetExecutionContext,
    config: MaskedDatasetConfig,
    workdir: WorkdirResource,
    training_mixture: pa.Table,
) -> Output[pa.Table]:
    """Serialize and mask the mixture; every dropped example is counted with its reason."""
    settings = settings_of(config, DatasetSettings)
    source, artifact = "training_mixture", "token_masked_dataset"
    return masked_output(settings, workdir, training_mixture, source, artifact, context.log.info)


def masked_output(
    settings: DatasetSettings,
    workdir: WorkdirResource,
    mixture: pa.Table,
    source: str,
    artifact: str,
    log: Callable[[str], None],
    provenance: dict[str, Any] = GRAPH_PROVENANCE,
) -> Output[pa.Table]:
    """Mask ``mixture`` (the ``source`` asset's rows), write its manifest (with ``provenance``: where
    the rows came from) under ``artifact`` and return the table with what a person reads (``log``
    hears the counts): what ``token_masked_dataset`` and each round's ``round_dataset`` return."""
    stage = run_dataset_stage(
        mixture,
        settings.tokenizer_dir(workdir.root),
        settings.mask_config(),
        augmentation=settings.augmentation(),
        batch_rows=settings.batch_rows,
        source=source,
        provenance=provenance,
    )
    manifest_path = write_manifest(workdir, artifact, stage.manifest, stage.table)
    manifest = stage.manifest
    log(f"{artifact}: {manifest['counts']}, drops {manifest['drop_reasons']}")
    return Output(
        stage.table,
        metadata={
            **tally_metadata(stage.dataset.tally()),
            **manifest["counts"],
            **{key: manifest["stats"][key] for key in HEADLINE_STATS},
            "expansion_factor": manifest["serialization"]["expansion_factor"],
            **{key: MetadataValue.json(manifest[key]) for key in ("drop_reasons", "augmentation")},
            "manifest_path": MetadataValue.path(str(manifest_path)),
            "manifest": MetadataValue.json(manifest),
            SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
            "sample_with_targets_marked": MetadataValue.md(f"```\n{stage.sample}\n```"),
        },
    )


@asset(
    ins={"preference_pairs": AssetIn()},
    **declared("training", PREFERENCE_DATASET_SCHEMA),
    automation_condition=CURATION_CONDITION,
    description="One row per DPO pair: both sides rendered and masked like SFT examples (input_ids, "
    "HF-convention labels, the scored positions), over a conditioning prefix that is the same tokens.",
)
def preference_dataset(
    context: AssetExecutionContext,
    config: PreferenceDatasetConfig,
    workdir: WorkdirResource,
    preference_pairs: pa.Table,
) -> Output[pa.Table]:
    """Tokenize the admitted pairs; every refused pair is counted with its reason."""
    settings = settings_of(config, PreferenceDatasetSettings)
    tokenizer_path = settings.tokenizer_dir(workdir.root)
    stage = run_preference_stage(
        preference_pairs, tokenizer_path, settings.mask_config(), source="preference_pairs"
    )
    stage.manifest[MANIFEST_KEY] = GRAPH_PROVENANCE
    manifest_path = write_manifest(workdir, "preference_dataset", stage.manifest, stage.table)
    manifest = stage.manifest
    context.log.info(f"preference_dataset: {manifest['counts']}, drops {manifest['drop_reasons']}")
    stats = manifest["stats"]
    return Output(
        stage.table,
        metadata={
            **tally_metadata(stage.tally),
            **manifest["counts"],
            "stored_tokens": stats["stored_tokens"],
            "chosen_selected": stats["chosen_selected"],
            "rejected_selected": stats["rejected_selected"],
            "prefix_tokens": stats["prefix_tokens"],
            "target_share": stats["target_share"],
            "drop_reasons": MetadataValue.json(manifest["drop_reasons"]),
            "manifest_path": MetadataValue.path(str(manifest_path)),
            "manifest": MetadataValue.json(manifest),
            "sample_with_targets_marked": MetadataValue.md(f"```\n{stage.sample}\n```"),
        },
    )
