"""One training run end to end: data -> model -> inventory -> loop -> checkpoint -> manifest.

Both the CLI (``trajectory-platform train``) and the Dagster ``checkpoint`` asset call
:func:`run_training`; it picks the objective (SFT or span DPO), the parameter artifact (full or
LoRA) and the device (CUDA with bf16 autocast when present, else CPU fp32), prints the
parameter-state inventory before launch, measures the peak, and writes a checkpoint that
transformers (or peft) loads, with ``training_manifest.json`` beside the weights. It reads token
rows only (``token_masked_dataset`` rows for SFT, ``preference_dataset`` rows for DPO): rendering
and masking episodes is the data wing's work.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import torch

from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.training.data.chat_template import template_digest
from trajectory_platform.training.data.dataset import (
    LoadedRows,
    Rejection,
    read_rows,
    rows_from_table,
    split_examples,
    table_digest,
)
from trajectory_platform.training.data.preference_tokens import PreferencePair, is_episode_pair
from trajectory_platform.training.data.tokenizer import load_tokenizer, tokenizer_files_digest
from trajectory_platform.training.optim import train_manifest
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.checkpoint import (
    MANIFEST_NAME,
    checkpoint_digest,
    load_checkpoint_model,
    load_trainer_state,
    save_checkpoint,
)
from trajectory_platform.training.optim.dpo import (
    ReferenceBinding,
    ReferenceCache,
    dpo_step_function,
    pair_accuracy,
)
from trajectory_platform.training.optim.loop import LoopResult, run_loop
from trajectory_platform.training.optim.lora import attach_lora
from trajectory_platform.training.optim.loss import HEAD_POSITIONS, HeadPositions
from trajectory_platform.training.optim.memory import FP32_ADAMW, PeakMemory, inventory_for_model
from trajectory_platform.training.optim.model import (
    build_default_model,
    load_model,
    resolve_device,
    weights_digest,
)
from trajectory_platform.training.optim.model_card import write_model_card
from trajectory_platform.training.optim.settings import (
    NORMALIZATIONS,
    LoraSettings,
    Normalization,
    OptimizerSettings,
    TrainSettings,
)
from trajectory_platform.training.optim.sft import evaluate_masked_loss, sft_step_function
from trajectory_platform.workdir import default_workdir

if TYPE_CHECKING:
    from peft import PeftModel
    from transformers import PreTrainedModel


@dataclass
class TrainRequest:
    """Everything a run is configured by; every field lands in the manifest's update section."""

    out: Path
    objective: str = TrainSettings.objective
    model_path: Path | None = None
    workdir: Path | None = None
    lora: LoraSettings | None = None
    max_steps: int = TrainSettings.max_steps
    normalization: Normalization = "token"
    capacity: int = TrainSettings.capacity
    examples_per_step: int = TrainSettings.examples_per_step
    micro_batches: int = TrainSettings.micro_batches
    optimizer: OptimizerSettings = field(default_factory=OptimizerSettings)
    seed: int = TrainSettings.seed
    eval_every: int = TrainSettings.eval_every
    save_every: int = 0
    resume: bool = False
    device: str | None = None
    validation_fraction: float = 0.1
    beta: float = TrainSettings.beta
    sft_weight: float = TrainSettings.sft_weight
    spot_check: int = 4
    threads: int | None = None  # CPU intra-op threads; 1 is fastest on a machine shared with other work
    # Where the LM head and log-softmax run: only before scored targets ("targets", exact up to float
    # rounding and several times less head work), or everywhere ("all", the reference path).
    head: HeadPositions = "targets"
    # SFT: store a context prefix that examples of a micro-batch share (tool block, system prompt) once
    # per packed buffer and let each suffix attend to it; same loss, gradients within float rounding.
    shared_prefix: bool = TrainSettings.shared_prefix
    # SFT: the first N steps train without each example's preamble (tool block, system prompt): see
    # sft.without_preamble. Validation always scores whole examples.
    preamble_warmup_steps: int = TrainSettings.preamble_warmup_steps

    def __post_init__(self) -> None:
        if self.objective not in ("sft", "dpo"):
            raise ValueError(f"objective must be 'sft' or 'dpo', got {self.objective!r}")
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got {self.normalization!r}")
        if self.head not in HEAD_POSITIONS:
            raise ValueError(f"head must be one of {HEAD_POSITIONS}, got {self.head!r}")

    @classmethod
    def from_settings(
        cls, settings: TrainSettings, out: Path, *, workdir: Path | None = None, **runtime: Any
    ) -> TrainRequest:
        """The run request for ``settings``; ``runtime`` holds what is not a setting (device,
        resume, save_every, an optimizer with a non-default schedule)."""
        runtime.setdefault("optimizer", OptimizerSettings(learning_rate=settings.learning_rate))
        targets = tuple(t for t in settings.lora_targets.split(",") if t)
        return cls(
            out=out,
            objective=settings.objective,
            model_path=Path(settings.model_path) if settings.model_path else None,
            workdir=workdir,
            lora=LoraSettings(settings.lora_rank, settings.lora_alpha, targets) if settings.lora else None,
            max_steps=settings.max_steps,
            normalization=settings.normalization,  # type: ignore[arg-type]  # validated by TrainRequest
            capacity=settings.capacity,
            examples_per_step=settings.examples_per_step,
            micro_batches=settings.micro_batches,
            seed=settings.seed,
            eval_every=settings.eval_every,
            beta=settings.beta,
            sft_weight=settings.sft_weight,
            threads=settings.threads or None,
            shared_prefix=settings.shared_prefix,
            preamble_warmup_steps=settings.preamble_warmup_steps,
            **runtime,
        )


CHECKPOINT_SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("artifact_digest", pa.string()),
        ("objective", pa.string()),
        ("steps", pa.int64()),
        ("losses", pa.list_(pa.float64())),
        ("validation_loss", pa.float64()),
        ("validation_targets", pa.int64()),
    ]
)
"""The ``checkpoint`` asset's one row: where the weights are, their digest, and the loss record."""


@dataclass
class TrainOutcome:
    """What a run produced; ``summary()`` is the CLI's JSON line, ``to_table()`` the asset's output."""

    checkpoint_dir: Path
    artifact_digest: str
    objective: str
    loop: LoopResult
    counts: dict[str, Any]
    inventory: dict[str, Any]
    memory: dict[str, Any]
    manifest: dict[str, Any]
    tally: Tally = field(default_factory=Tally)
    """Rows in, used (train, validation, held-out test), rejected by reason (run facts, not in the row)."""

    def summary(self) -> dict[str, Any]:
        final = self.loop.validation[-1] if self.loop.validation else {}
        return {
            "checkpoint": str(self.checkpoint_dir),
            "artifact_digest": self.artifact_digest,
            "objective": self.objective,
            "steps": self.loop.steps,
            "train_loss_first": self.loop.losses[0] if self.loop.losses else None,
            "train_loss_last": self.loop.losses[-1] if self.loop.losses else None,
            "validation": final,
            "tokens_per_s": round(self.loop.tokens_per_s, 1),
            "counts": self.counts,
            "inventory_bytes": self.inventory["total"],
            "peak_bytes": self.memory["peak_bytes"],
        }

    def to_table(self, stored_path: str) -> pa.Table:
        """One row describing the checkpoint; the weights stay on disk at ``stored_path``.

        Only what the same data, config and seed reproduce goes in the row: measured throughput
        and memory are run facts for metadata, so the row's Parquet bytes are deterministic.
        """
        final = self.loop.validation[-1] if self.loop.validation else {}
        row = {
            "path": stored_path,
            "artifact_digest": self.artifact_digest,
            "objective": self.objective,
            "steps": self.loop.steps,
            "losses": self.loop.losses,
            "validation_loss": final.get("loss"),
            "validation_targets": final.get("target_count", final.get("pairs")),
        }
        return pa.Table.from_pylist([row], schema=CHECKPOINT_SCHEMA)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _load_pairs(loaded: LoadedRows) -> tuple[list[PreferencePair], list[Rejection]]:
    """Token pairs from token rows (``preference_dataset``); this wing never tokenizes, so one of
    curation's episode pairs is rejected with the stage that turns it into token rows."""
    pairs: list[PreferencePair] = []
    rejected: list[Rejection] = []
    for index, row in enumerate(loaded.rows):
        if is_episode_pair(row):
            detail = "an episode pair: tokenize it first (preference_dataset asset, run_preference_stage)"
            rejected.append(Rejection(loaded.source, row["_line"], Drop("untokenized_pair", detail)))
            continue
        try:
            pairs.append(PreferencePair.from_row(row, index))
        except (KeyError, ValueError, TypeError) as error:
            rejected.append(Rejection(loaded.source, row["_line"], Drop("unusable_pair", str(error))))
    return pairs, rejected


def run_key(data: pa.Table, config: dict[str, Any]) -> str:
    """``<objective>-<key>``: where a run on ``data`` with ``config`` (the asset's run config, which
    names the objective) writes. The key binds the data digest and the config, so a rerun on the same
    inputs writes the same place."""
    digest = hashlib.sha256((table_digest(data) + json.dumps(config, sort_keys=True)).encode()).hexdigest()
    return f"{config['objective']}-{digest[:16]}"


@dataclass
class _Objective:
    """What the loop needs from an objective, and what the manifest records about its data."""

    step: Callable[[int], Any]
    evaluate: Callable[[], dict[str, Any]] | None
    counts: dict[str, Any]
    targets: dict[str, int]
    members: list[str]
    tally: Tally
    reference: dict[str, Any] | None = None


@dataclass
class _Context:
    """The resolved run: device, precision, model, tokenizer and where things live."""

    request: TrainRequest
    loaded: LoadedRows
    device: torch.device
    autocast: torch.dtype | None
    attention: str
    workdir: Path
    base_path: Path
    base_digest: str
    tokenizer_path: Path
    tokenizer: Any
    model: PreTrainedModel | PeftModel
    resume_state: dict[str, Any] | None


def _resolve(request: TrainRequest, loaded: LoadedRows) -> _Context:
    """Pick the device and load base, tokenizer and (resumed or fresh, full or LoRA) model."""
    device = resolve_device(request.device)
    if request.threads:
        torch.set_num_threads(request.threads)
    workdir = Path(request.workdir) if request.workdir else default_workdir()
    base_path = Path(request.model_path) if request.model_path else build_default_model(workdir)
    tokenizer_path = Path(loaded.manifest.get("tokenizer_path") or base_path)
    resume_state = load_trainer_state(Path(request.out)) if request.resume else None
    base = load_model(base_path, device=device)
    base_digest = weights_digest(base)
    # Packed buffers attend per example (varlen); transformers then builds no dense mask at all.
    base.set_attn_implementation(VARLEN_ATTENTION)
    if resume_state is not None:
        model = load_checkpoint_model(
            Path(request.out), device=device, trainable=True, base=base if request.lora else None
        )
        if not request.lora:
            model.set_attn_implementation(VARLEN_ATTENTION)
        _log(f"resuming {request.out} from step {resume_state['step']}")
    else:
        torch.manual_seed(request.seed)
        model = attach_lora(base, request.lora, seed=request.seed) if request.lora else base
    tokenizer = load_tokenizer(tokenizer_path)
    _check_serialization(loaded, tokenizer_path, tokenizer)
    return _Context(
        request=request,
        loaded=loaded,
        device=device,
        # CUDA: bf16 autocast over fp32 weights; CPU: fp32. Both: example boundaries from position_ids.
        autocast=torch.bfloat16 if device.type == "cuda" else None,
        attention="position_ids",
        workdir=workdir,
        base_path=base_path,
        base_digest=base_digest,
        tokenizer_path=tokenizer_path,
        tokenizer=tokenizer,
        model=model,
        resume_state=resume_state,
    )


def _check_serialization(loaded: LoadedRows, tokenizer_path: Path, tokenizer: Any) -> None:
    """Refuse data tokenized with another tokenizer or template than the one this run will save.

    Token ids from another vocabulary still index a same-size embedding, so the mismatch would
    train silently on garbage, and a checkpoint served with a different template than it learned.
    """
    declared = loaded.manifest
    actual = {
        "tokenizer_files_digest": tokenizer_files_digest(tokenizer_path),
        "template_digest": template_digest(tokenizer.chat_template or ""),
    }
    for key, value in actual.items():
        if declared.get(key) not in (None, value):
            raise ValueError(
                f"{loaded.source}: the dataset manifest's {key} {declared[key][:12]} does not match "
                f"{tokenizer_path} ({value[:12]}); re-run `trajectory-platform mask` with this tokenizer"
            )


def _sft(ctx: _Context) -> _Objective:
    request, model = ctx.request, ctx.model
    split = split_examples(
        ctx.loaded,
        capacity=request.capacity,
        vocab_size=cast(int, model.get_input_embeddings().num_embeddings),  # an nn.Embedding: its row count
        validation_fraction=request.validation_fraction,
    )
    for rejection in split.rejected[:20]:
        _log(rejection.describe())
    if not split.train:
        raise ValueError(f"{ctx.loaded.source}: no usable training examples ({split.counts()})")
    step = sft_step_function(
        model,
        split.train,
        examples_per_step=request.examples_per_step,
        micro_batches=request.micro_batches,
        capacity=request.capacity,
        normalization=request.normalization,
        seed=request.seed,
        attention=ctx.attention,
        autocast_dtype=ctx.autocast,
        head=request.head,
        shared_prefix=request.shared_prefix,
        preamble_warmup_steps=request.preamble_warmup_steps,
    )

    def evaluate() -> dict[str, Any]:
        return evaluate_masked_loss(
            model,
            split.validation,
            normalization=request.normalization,
            capacity=request.capacity,
            attention=ctx.attention,
            autocast_dtype=ctx.autocast,
            head=request.head,
            shared_prefix=request.shared_prefix,
        )

    return _Objective(
        step=step,
        evaluate=evaluate if split.validation else None,
        counts=split.counts(),
        targets={"train_targets": _targets(split.train), "validation_targets": _targets(split.validation)},
        members=[e["key"] for e in split.train],
        tally=split.tally(),
    )


def _dpo(ctx: _Context) -> _Objective:
    request, model = ctx.request, ctx.model
    pairs, rejected = _load_pairs(ctx.loaded)
    for rejection in rejected[:20]:
        _log(rejection.describe())
    if not pairs:
        reasons = dict(Counter(r.drop.reason for r in rejected))
        raise ValueError(f"{ctx.loaded.source}: no usable preference pairs (rejected: {reasons})")
    held = max(1, len(pairs) // 10) if len(pairs) >= 5 else 0
    train_pairs, val_pairs = pairs[held:], pairs[:held]
    binding = ReferenceBinding(
        reference_weights_digest=weights_digest(model),
        adapter_config=request.lora.as_dict() if request.lora else None,
        tokenizer_digest=tokenizer_files_digest(ctx.tokenizer_path),
        template_digest=template_digest(ctx.tokenizer.chat_template or ""),
        truncation=str(ctx.loaded.manifest.get("truncation_policy", "none")),
        dtype=str(ctx.autocast or torch.float32),
    )
    cache = ReferenceCache(
        ctx.workdir / "cache" / "dpo_reference" / f"{binding.reference_weights_digest[:16]}.json"
    )
    stats = cache.precompute(model, pairs, binding, autocast_dtype=ctx.autocast, head=request.head)
    worst = cache.spot_check(
        model,
        pairs,
        binding,
        sample=request.spot_check,
        seed=request.seed,
        autocast_dtype=ctx.autocast,
        head=request.head,
    )
    reference = cache.sums(pairs, binding)
    step = dpo_step_function(
        model,
        train_pairs,
        reference[held:],
        beta=request.beta,
        pairs_per_step=request.examples_per_step,
        seed=request.seed,
        sft_weight=request.sft_weight,
        autocast_dtype=ctx.autocast,
        head=request.head,
    )

    def evaluate() -> dict[str, Any]:
        return pair_accuracy(
            model, val_pairs, reference[:held], request.beta, ctx.autocast, head=request.head
        )

    def scored(chunk: list[PreferencePair]) -> int:
        return sum(len(p.chosen_selected) + len(p.rejected_selected) for p in chunk)

    counts = {
        "rows_in": len(ctx.loaded.rows) + len(ctx.loaded.rejected),
        "train": len(train_pairs),
        "validation": len(val_pairs),
        "rejected": len(rejected) + len(ctx.loaded.rejected),
    }
    return _Objective(
        step=step,
        evaluate=evaluate if val_pairs else None,
        counts=counts,
        targets={"train_targets": scored(train_pairs), "validation_targets": scored(val_pairs)},
        members=[p.pair_id for p in train_pairs],
        tally=Tally(
            counts["rows_in"],
            len(train_pairs) + len(val_pairs),
            Counter(r.drop.reason for r in [*rejected, *ctx.loaded.rejected]),
        ),
        reference={
            "reference_cache": str(cache.path),
            **stats,
            "spot_check_max_abs_diff": worst,
            "binding": asdict(binding),
        },
    )


def run_training(
    request: TrainRequest,
    data: Path | pa.Table,
    *,
    dataset_manifest: dict | None = None,
    source_name: str = "table",
) -> TrainOutcome:
    """Train per ``request`` on ``data`` (a file path or an Arrow table) and write the checkpoint.

    ``dataset_manifest``: the manifest the caller vouches for (a table's; for a file, it replaces
    the one beside the file, as when the user opted out of the provenance check)."""
    out = Path(request.out)
    if isinstance(data, pa.Table):
        loaded = rows_from_table(data, source=source_name, manifest=dataset_manifest)
    else:
        loaded = read_rows(Path(data))
        loaded.manifest = loaded.manifest if dataset_manifest is None else dataset_manifest
    ctx = _resolve(request, loaded)
    inventory = inventory_for_model(ctx.model, FP32_ADAMW)
    _log(inventory.render())

    def save(state: dict[str, Any]) -> None:
        save_checkpoint(out, ctx.model, state, tokenizer=ctx.tokenizer)

    with PeakMemory(ctx.device) as peak:
        objective = _sft(ctx) if request.objective == "sft" else _dpo(ctx)
        loop = run_loop(
            ctx.model,
            objective.step,
            max_steps=request.max_steps,
            settings=request.optimizer,
            eval_fn=objective.evaluate,
            eval_every=request.eval_every,
            save_fn=save,
            save_every=request.save_every,
            resume_state=ctx.resume_state,
            description=f"train[{request.objective}]",
        )
    memory = peak.report(inventory)
    _log(
        f"memory: peak {memory['peak_bytes'] / 1e6:.1f} MB ({memory['measured_by']}), "
        f"{memory['peak_above_baseline_bytes'] / 1e6:.1f} MB above the pre-launch baseline; "
        f"parameter-state inventory {inventory.total / 1e6:.3f} MB"
    )
    digest = checkpoint_digest(out)
    manifest = _manifest(ctx, objective, loop, digest, inventory.as_dict(), memory)
    train_manifest.write_manifest(out, manifest, MANIFEST_NAME)
    write_model_card(out, manifest)
    return TrainOutcome(
        out,
        digest,
        request.objective,
        loop,
        objective.counts,
        inventory.as_dict(),
        memory,
        manifest,
        objective.tally,
    )


def _manifest(
    ctx: _Context,
    objective: _Objective,
    loop: LoopResult,
    digest: str,
    inventory: dict[str, Any],
    memory: dict[str, Any],
) -> dict[str, Any]:
    """Table 12's bindings for this run (see :mod:`trajectory_platform.training.optim.train_manifest`)."""
    request, declared = ctx.request, ctx.loaded.manifest
    tokenizer_digest = tokenizer_files_digest(ctx.tokenizer_path)
    chat_digest = template_digest(ctx.tokenizer.chat_template or "")
    sft = request.objective == "sft"
    aggregation = (
        f"{request.normalization}-averaged; numerators and denominators reduced globally across micro-batches"
        " and workers before dividing"
        if sft
        else "mean over pairs of -log sigmoid(beta * margin); pair count reduced globally"
    )
    return train_manifest.build_manifest(
        corpus={
            "dataset_path": ctx.loaded.source,
            "dataset_digest": ctx.loaded.digest,
            "dataset_manifest": declared,
            "corpus_version": declared.get("corpus_version"),
            "member_count": len(objective.members),
            "members_digest": train_manifest.members_digest(objective.members),
            "member_ids": sorted(set(objective.members)),
            "counts": objective.counts,
        },
        serialization={
            "tokenizer_path": str(ctx.tokenizer_path),
            "tokenizer_digest": tokenizer_digest,
            "template_digest": chat_digest,
            "declared_by_dataset": {k: declared.get(k) for k in DECLARED_SERIALIZATION},
            # None when the dataset declared nothing; False is a mismatch worth stopping to look at.
            "matches_dataset": {
                "tokenizer": _same(declared.get("tokenizer_files_digest"), tokenizer_digest),
                "template": _same(declared.get("template_digest"), chat_digest),
                "normalization": _same(
                    declared.get("intended_normalization"), f"{request.normalization}_averaged"
                ),
            },
        },
        prediction_targets={
            "label_convention": "HF-aligned labels (-100 = context), shifted once in training.loss",
            "target_policy": declared.get("target_policy", "as masked by the dataset"),
            "dataset_intended_normalization": declared.get("intended_normalization"),
            **objective.targets,
        },
        update={
            "base_model": str(ctx.base_path),
            "base_digest": ctx.base_digest,
            "objective": request.objective,
            "aggregation": aggregation,
            "optimizer": request.optimizer.as_dict(),
            "seeds": {"run": request.seed, "data_order": request.seed, "init": request.seed},
            "parameter_artifact": {"kind": "lora", **request.lora.as_dict()}
            if request.lora
            else {"kind": "full"},
            "precision": "bf16 autocast, fp32 master weights and moments" if ctx.autocast else "fp32",
            "attention": f"{VARLEN_ATTENTION}: one causal sdpa per packed example (segments from reset "
            "position_ids, positions restart at 0), no cross-example attention"
            + ("; shared context prefixes stored once per buffer" if sft and request.shared_prefix else ""),
            "lm_head": "only at positions predicting a scored target (logits_to_keep)"
            if request.head == "targets"
            else "every position",
            "device": str(ctx.device),
            "cpu_threads": torch.get_num_threads(),
            "max_steps": request.max_steps,
            "examples_per_step": request.examples_per_step,
            "micro_batches": request.micro_batches,
            "capacity": request.capacity,
            "preamble_warmup_steps": request.preamble_warmup_steps if sft else None,
            "beta": None if sft else request.beta,
            "sft_weight": None if sft else request.sft_weight,
            "resumed_from": loop.resumed_from,
            "dpo_reference": objective.reference,
        },
        candidate={
            "path": str(request.out),
            "artifact_digest": digest,
            "format": "peft adapter + merged/ dense copy" if request.lora else "transformers full checkpoint",
        },
        results={
            "steps": loop.steps,
            "train_loss_first": loop.losses[0] if loop.losses else None,
            "train_loss_last": loop.losses[-1] if loop.losses else None,
            "losses": loop.losses,
            "validation": loop.validation,
            "tokens_per_s": loop.tokens_per_s,
            "memory_inventory": inventory,
            "memory_measured": memory,
        },
    )


DECLARED_SERIALIZATION = (
    "tokenizer_files_digest",
    "template_digest",
    "special_token_ids",
    "truncation_policy",
    "rationale_mode",
    "label_convention",
)


def _same(declared: Any, actual: Any) -> bool | None:
    return None if declared is None else declared == actual


def _targets(examples: list[dict[str, Any]]) -> int:
    return sum(sum(1 for label in e["labels"][1:] if label != -100) for e in examples)
