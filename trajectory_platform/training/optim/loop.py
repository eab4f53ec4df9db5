"""The optimizer loop shared by SFT and DPO: seeded, clipped, resumable, with a progress bar.

The objective-specific work is a ``step_fn(step) -> StepStats`` that leaves gradients in
``.grad``; this loop owns everything around it (AdamW over trainable parameters, warmup + cosine
schedule, gradient clipping, validation cadence, checkpoints, loss history, tokens/s), so both
objectives are optimized, logged and resumed identically.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from tqdm import tqdm

from trajectory_platform.training.optim.checkpoint import restore_rng
from trajectory_platform.training.optim.settings import OptimizerSettings
from trajectory_platform.training.optim.sft import StepStats


@dataclass
class LoopResult:
    """The record of a run: per-step losses, validation points and throughput."""

    steps: int
    losses: list[float] = field(default_factory=list)
    grad_norms: list[float] = field(default_factory=list)
    validation: list[dict[str, Any]] = field(default_factory=list)
    stored_tokens: int = 0
    targets: int = 0
    train_seconds: float = 0.0
    resumed_from: int | None = None

    @property
    def tokens_per_s(self) -> float:
        return self.stored_tokens / self.train_seconds if self.train_seconds else 0.0


def make_optimizer(
    model: torch.nn.Module, settings: OptimizerSettings, max_steps: int
) -> tuple[torch.optim.AdamW, torch.optim.lr_scheduler.LambdaLR]:
    """AdamW over trainable parameters only, and its warmup + cosine schedule."""
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        parameters, lr=settings.learning_rate, betas=settings.betas, weight_decay=settings.weight_decay
    )

    def scale(step: int) -> float:
        if step < settings.warmup_steps:
            return (step + 1) / settings.warmup_steps
        progress = (step - settings.warmup_steps) / max(1, max_steps - settings.warmup_steps)
        return settings.min_lr_ratio + (1 - settings.min_lr_ratio) * 0.5 * (
            1 + math.cos(math.pi * min(1.0, progress))
        )

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, scale)


def run_loop(
    model: torch.nn.Module,
    step_fn: Callable[[int], StepStats],
    *,
    max_steps: int,
    settings: OptimizerSettings,
    eval_fn: Callable[[], dict[str, Any]] | None = None,
    eval_every: int = 0,
    save_fn: Callable[[dict[str, Any]], None] | None = None,
    save_every: int = 0,
    resume_state: dict[str, Any] | None = None,
    description: str = "train",
) -> LoopResult:
    """Run ``max_steps`` optimizer steps (continuing from ``resume_state``), return the history.

    ``save_fn`` receives the trainer state (optimizer, scheduler, step, history) at every
    ``save_every`` steps and at the end; ``eval_fn`` runs every ``eval_every`` steps and at the end.
    """
    model.train()
    optimizer, scheduler = make_optimizer(model, settings, max_steps)
    result = LoopResult(steps=0)
    if resume_state is not None:
        optimizer.load_state_dict(resume_state["optimizer"])
        scheduler.load_state_dict(resume_state["scheduler"])
        history = resume_state["history"]
        result = LoopResult(
            steps=resume_state["step"],
            losses=history["losses"],
            grad_norms=history["grad_norms"],
            validation=history["validation"],
            stored_tokens=history["stored_tokens"],
            targets=history["targets"],
            train_seconds=history["train_seconds"],
            resumed_from=resume_state["step"],
        )
        restore_rng(resume_state["rng"])
    trainable = [p for p in model.parameters() if p.requires_grad]

    def state() -> dict[str, Any]:
        history = {
            key: getattr(result, key)
            for key in ("losses", "grad_norms", "validation", "stored_tokens", "targets", "train_seconds")
        }
        return {
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "step": result.steps,
            "history": history,
        }

    def evaluate() -> None:
        if eval_fn is not None:
            result.validation.append({"step": result.steps, **eval_fn()})

    bar = tqdm(total=max_steps, initial=result.steps, desc=description, unit="step", dynamic_ncols=True)
    while result.steps < max_steps:
        started = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        stats = step_fn(result.steps)
        norm = torch.nn.utils.clip_grad_norm_(trainable, settings.clip_norm)
        optimizer.step()
        scheduler.step()
        elapsed = time.perf_counter() - started
        result.steps += 1
        result.losses.append(stats.loss)
        result.grad_norms.append(float(norm))
        result.stored_tokens += stats.stored_tokens
        result.targets += stats.targets
        result.train_seconds += elapsed
        bar.update(1)
        bar.set_postfix(loss=f"{stats.loss:.4f}", tok_s=f"{stats.stored_tokens / elapsed:,.0f}")
        if eval_every and result.steps % eval_every == 0 and result.steps < max_steps:
            evaluate()
        if save_fn is not None and save_every and result.steps % save_every == 0 and result.steps < max_steps:
            save_fn(state())
    bar.close()
    if not result.validation or result.validation[-1]["step"] != result.steps:
        evaluate()
    if save_fn is not None:
        save_fn(state())
    model.eval()
    return result


def loss_trend(losses: list[float], window_share: float = 0.25) -> dict[str, Any]:
    """Is the training loss falling? Mean of the last quarter of steps against the first quarter.

    Quarters rather than first-vs-last step, so one noisy batch neither passes nor fails a run.
    """
    window = max(1, int(len(losses) * window_share))
    first = sum(losses[:window]) / window if losses else math.nan
    last = sum(losses[-window:]) / window if losses else math.nan
    finite = bool(losses) and all(math.isfinite(value) for value in losses)
    return {
        "first_window_mean": first,
        "last_window_mean": last,
        "window": window,
        "finite": finite,
        "falls": finite and len(losses) >= 2 and last < first,
    }
