"""``checkpoint``: fine-tune the policy on ``token_masked_dataset`` (SFT) or ``preference_dataset`` (DPO).

Thin by design: the run config (derived from
:class:`~trajectory_platform.training.optim.settings.TrainSettings`) becomes a
:class:`~trajectory_platform.training.optim.runner.TrainRequest`,
:func:`~trajectory_platform.training.optim.runner.run_training` runs once on the objective's token
table (with the manifest its data asset wrote), and the body attaches what a person reads (loss
curve, tokens/s, memory inventory vs measured peak, the training manifest) and returns a one-row
table describing the checkpoint. The weights live on disk under
``<workdir>/checkpoints/<objective>-<key>/`` (the row stores that path relative to the workdir,
so its Parquet bytes do not depend on where the workdir lives); the key binds the data digest
and the config (:func:`~trajectory_platform.training.optim.runner.run_key`), so a rerun on the same
inputs writes the same place. Runs in the ``train`` pool (limit 1 in dagster.yaml): training uses
every core, so two at once would only thrash.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.evaluation.retraining import SAMPLER_KEY
from trajectory_platform.resources import UPSTREAM_FACTS, WorkdirResource
from trajectory_platform.resources.stage_config import settings_of, stage_config
from trajectory_platform.training.optim.model_card import MODEL_CARD
from trajectory_platform.training.optim.runner import CHECKPOINT_SCHEMA, TrainRequest, run_key, run_training
from trajectory_platform.training.optim.settings import TrainSettings
from trajectory_platform.workdir import asset_manifest


class CheckpointConfig(stage_config(TrainSettings, dataset_manifest_path=(str, ""))):  # type: ignore[misc]
    """Run config of a training job: :class:`TrainSettings` (every field also lands in the training
    manifest) plus ``dataset_manifest_path`` ('': the manifest artifact of the objective's data asset)."""


DATA_ASSET = {"sft": "token_masked_dataset", "dpo": "preference_dataset"}
"""The token table each objective trains on (both are inputs; the objective picks one)."""


@asset(
    ins={
        **{name: AssetIn() for name in DATA_ASSET.values()},
        "training_mixture": AssetIn(input_manager_key=UPSTREAM_FACTS),
    },
    pool="train",
    **declared("training", CHECKPOINT_SCHEMA),
    description="A fine-tuned policy checkpoint (path, digest, steps, losses); weights on disk.",
)
def checkpoint(
    context: AssetExecutionContext,
    config: CheckpointConfig,
    workdir: WorkdirResource,
    token_masked_dataset: pa.Table,
    preference_dataset: pa.Table,
    training_mixture: dict,
) -> Output[pa.Table]:
    """Train on the objective's token table and describe the checkpoint written; record the
    sampler-policy digest the mixture reported (the retraining sensor's "stale corpus" baseline)."""
    name = DATA_ASSET[config.objective]
    data = {"token_masked_dataset": token_masked_dataset, "preference_dataset": preference_dataset}[name]
    manifest_path = Path(config.dataset_manifest_path or asset_manifest(workdir.root, name))
    output = trained_output(config, workdir, data, manifest_path, name, context.log.info)
    return Output(output.value, metadata={**output.metadata, SAMPLER_KEY: training_mixture.get(SAMPLER_KEY)})


def trained_output(
    config: CheckpointConfig,
    workdir: WorkdirResource,
    data: pa.Table,
    manifest_path: Path,
    source: str,
    log: Callable[[str], None],
) -> Output[pa.Table]:
    """Train on ``data`` (the ``source`` asset's token rows, described by the manifest at
    ``manifest_path`` when there is one) and describe the checkpoint written (``log`` hears the
    training summary): what ``checkpoint`` and each round's ``round_checkpoint`` return."""
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
    out = workdir.root / "checkpoints" / run_key(data, config.model_dump())
    request = TrainRequest.from_settings(settings_of(config, TrainSettings), out, workdir=workdir.root)
    outcome = run_training(request, data, dataset_manifest=manifest, source_name=f"asset:{source}")
    log(json.dumps(outcome.summary(), default=str))
    losses = outcome.loop.losses
    return Output(
        outcome.to_table(workdir.relative(outcome.checkpoint_dir)),
        metadata={
            **tally_metadata(outcome.tally),
            "path": MetadataValue.path(str(outcome.checkpoint_dir)),
            "model_card": MetadataValue.path(str(outcome.checkpoint_dir / MODEL_CARD)),
            "artifact_digest": outcome.artifact_digest,
            "steps": outcome.loop.steps,
            "train_loss_first": losses[0],
            "train_loss_last": losses[-1],
            "loss_curve": MetadataValue.md(_loss_table(losses)),
            "validation": MetadataValue.json(outcome.loop.validation),
            "tokens_per_s": round(outcome.loop.tokens_per_s, 1),
            "counts": MetadataValue.json(outcome.counts),
            "memory_inventory": MetadataValue.json(outcome.inventory),
            "memory_measured": MetadataValue.json(outcome.memory),
            "training_manifest": MetadataValue.json(outcome.manifest),
        },
    )


def _loss_table(losses: list[float], rows: int = 20) -> str:
    """A compact markdown loss curve: about ``rows`` evenly spaced steps plus the last."""
    stride = max(1, len(losses) // rows)
    picked = sorted({*range(0, len(losses), stride), len(losses) - 1})
    return "| step | loss |\n|---:|---:|\n" + "\n".join(f"| {i + 1} | {losses[i]:.4f} |" for i in picked)
