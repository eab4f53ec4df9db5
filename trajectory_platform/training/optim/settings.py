"""The training knobs as plain dataclasses: one source of each default, importable without torch.

``trajectory-platform train --help`` derives its flags from :class:`TrainSettings`, and the
``checkpoint`` asset its config; describing them needs no optimizer, so they live apart from the
modules that import torch, peft and transformers (``runner``, ``lora``, ``loop``, ``loss``), which
import them from here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Normalization = Literal["token", "example"]
NORMALIZATIONS: tuple[str, ...] = ("token", "example")
"""How a step's loss is averaged: over every target token of the step, or per example first."""

DEFAULT_TARGETS: tuple[str, ...] = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
)


@dataclass(frozen=True)
class LoraSettings:
    """Capacity knobs of an adapter run (16.10): rank, scaling alpha, and which projections."""

    rank: int = 8
    alpha: float = 16.0
    target_modules: tuple[str, ...] = DEFAULT_TARGETS
    dropout: float = 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "target_modules": list(self.target_modules)}


@dataclass(frozen=True)
class OptimizerSettings:
    """AdamW hyper-parameters; recorded verbatim in the training manifest."""

    learning_rate: float = 3e-3
    weight_decay: float = 0.0
    betas: tuple[float, float] = (0.9, 0.95)
    warmup_steps: int = 10
    min_lr_ratio: float = 0.1
    clip_norm: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": "AdamW",
            **asdict(self),
            "betas": list(self.betas),
            "schedule": "linear warmup + cosine",
        }


@dataclass(frozen=True)
class TrainSettings:
    """The knobs of a training run with the product's defaults: their one source. The CLI's flags
    (``trajectory-platform train``) and the ``checkpoint`` asset's config are derived from these
    fields, and :class:`TrainRequest` takes its defaults from here."""

    objective: str = field(default="sft", metadata={"choices": ("sft", "dpo"), "help": "training objective"})
    model_path: str = field(default="", metadata={"help": "local HF causal-LM directory ('': embedded)"})
    lora: bool = field(default=False, metadata={"help": "train a LoRA adapter instead of all weights"})
    lora_rank: int = field(default=LoraSettings.rank, metadata={"help": "LoRA rank r"})
    lora_alpha: float = field(
        default=LoraSettings.alpha, metadata={"help": "LoRA scale alpha (the update is scaled by alpha/r)"}
    )
    lora_targets: str = field(default=",".join(DEFAULT_TARGETS), metadata={"help": "comma-separated modules"})
    max_steps: int = field(default=200, metadata={"help": "optimizer steps"})
    normalization: str = field(
        default="token",
        metadata={
            "choices": NORMALIZATIONS,
            "help": "loss average: over every target token of the step, or per example first",
        },
    )
    capacity: int = field(default=1024, metadata={"help": "tokens per packed buffer"})
    examples_per_step: int = field(default=16, metadata={"help": "examples (or pairs) per optimizer step"})
    micro_batches: int = field(default=1, metadata={"help": "sequential micro-batches per step"})
    learning_rate: float = field(
        default=OptimizerSettings.learning_rate, metadata={"help": "AdamW peak learning rate"}
    )
    seed: int = field(default=0, metadata={"help": "seed of the model initialization and the data order"})
    eval_every: int = field(default=50, metadata={"help": "validation every N steps (0: end only)"})
    beta: float = field(default=0.1, metadata={"help": "DPO preference scale"})
    sft_weight: float = field(default=0.0, metadata={"help": "DPO auxiliary SFT term on the chosen record"})
    threads: int = field(default=0, metadata={"help": "CPU intra-op threads (0: torch's default)"})
    shared_prefix: bool = field(
        default=False,
        metadata={
            "help": "SFT: store a context prefix examples share (tool block, system prompt) once per buffer"
        },
    )
    preamble_warmup_steps: int = field(
        default=0,
        metadata={
            "help": "SFT: for the first N steps leave each example's tool block and system prompt out "
            "(a context curriculum: a small model learns to copy names from the prompt first)"
        },
    )

    def __post_init__(self) -> None:
        """Refuse a warm-up that covers the whole run: the checkpoint would be scored on prompts
        whose tool block it never learned to read past."""
        if 0 < self.max_steps <= self.preamble_warmup_steps:
            raise ValueError(
                f"preamble_warmup_steps={self.preamble_warmup_steps} leaves none of max_steps="
                f"{self.max_steps} with the tool block and system prompt every evaluation prompt holds: "
                "set it below max_steps (about two thirds of them; 0: no warm-up)"
            )
