"""``token_masked_dataset``: the training mixture serialized, masked and verified (fine-tuning 16.3-16.5).

Thin: read ``training_mixture`` (episode rows with ``role``, ``split``, ``target_turns``), call
:func:`trajectory_platform.training.data.dataset_stage.run_dataset_stage` once, write the dataset
manifest beside the artifacts, attach what a person reads (token stats, drop reasons, the
manifest, a decoded sample with targets marked ``[[...]]``) and return the table.
"""

import json

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.resources import WorkdirResource
from trajectory_platform.resources.stage_config import settings_of, stage_config
from trajectory_platform.sensors.automation import CURATION_CONDITION
from trajectory_platform.training.data.dataset_stage import DatasetSettings, run_dataset_stage
from trajectory_platform.training.data.masked_dataset import MASKED_SCHEMA, inputs_from_table
from trajectory_platform.training.data.tokenizer import build_default_tokenizer

MANIFEST_FILE = "manifest.json"


MaskedDatasetConfig = stage_config(DatasetSettings, "MaskedDatasetConfig")


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
    tokenizer_path = settings.tokenizer_path or str(build_default_tokenizer(workdir.root))
    stage = run_dataset_stage(
        inputs_from_table(training_mixture),
        tokenizer_path,
        settings.mask_config(),
        augment=list(settings.augment),
        augment_seed=settings.augment_seed,
        source="training_mixture",
    )
    manifest_path = workdir.artifact_dir("token_masked_dataset") / MANIFEST_FILE
    manifest_path.write_text(json.dumps(stage.manifest, indent=1, sort_keys=True) + "\n")
    manifest = stage.manifest
    context.log.info(f"token_masked_dataset: {manifest['counts']}, drops {manifest['drop_reasons']}")
    stats = manifest["stats"]
    return Output(
        stage.table,
        metadata={
            **tally_metadata(stage.dataset.tally()),
            **manifest["counts"],
            "stored_tokens": stats["stored_tokens"],
            "selected_targets": stats["selected_targets"],
            "target_share": stats["target_share"],
            "dilution_factor": stats["dilution_factor"],
            "observation_share": stats["observation_share"],
            "expansion_factor": manifest["serialization"]["expansion_factor"],
            "drop_reasons": MetadataValue.json(manifest["drop_reasons"]),
            "augmentation": MetadataValue.json(manifest["augmentation"]),
            "manifest_path": MetadataValue.path(str(manifest_path)),
            "manifest": MetadataValue.json(manifest),
            "sample_with_targets_marked": MetadataValue.md(f"```\n{stage.sample}\n```"),
        },
    )
