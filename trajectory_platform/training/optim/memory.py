"""Parameter-state inventory before launch, and the measured peak after (fine-tuning 16.10.1).

The inventory counts the resident arrays parameters imply -- frozen base weights, trainable
weights, gradients, master weights, optimizer moments -- under a declared byte convention, so a
run is sized before it starts and the remainder of the measured peak (activations, workspaces,
allocator slack) is visible afterwards rather than guessed.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class ByteConvention:
    """Bytes per parameter for each resident array; one declared convention, not a law."""

    name: str
    trainable_weight: int
    gradient: int
    master_weight: int
    optimizer_moments: int
    frozen_weight: int


MIXED_PRECISION_ADAM = ByteConvention("mixed-precision Adam (16 B/trainable, 2 B/frozen)", 2, 2, 4, 8, 2)
"""Napkin math 16.5's convention: bf16 weight and gradient, fp32 master copy and two moments."""

FP32_ADAMW = ByteConvention("fp32 AdamW (16 B/trainable, 4 B/frozen)", 4, 4, 0, 8, 4)
"""What our loops keep: fp32 weights (autocast computes in bf16 on CUDA), fp32 grads, two fp32 moments."""


@dataclass(frozen=True)
class Inventory:
    """Resident parameter state by owner x array, in bytes."""

    convention: str
    frozen_parameters: int
    trainable_parameters: int
    frozen_weights: int
    trainable_weights: int
    gradients: int
    master_weights: int
    optimizer_moments: int

    @property
    def total(self) -> int:
        return (
            self.frozen_weights
            + self.trainable_weights
            + self.gradients
            + self.master_weights
            + self.optimizer_moments
        )

    def as_dict(self) -> dict[str, int | str]:
        return {**asdict(self), "total": self.total}

    def render(self) -> str:
        """The table a person reads before launch (decimal MB, like table 10)."""
        rows = [
            ("frozen base weights", self.frozen_weights),
            ("trainable weights", self.trainable_weights),
            ("gradients", self.gradients),
            ("master weights", self.master_weights),
            ("optimizer moments (2)", self.optimizer_moments),
            ("total parameter state", self.total),
        ]
        lines = [
            f"parameter-state inventory [{self.convention}]",
            f"  parameters: {self.frozen_parameters:,} frozen, {self.trainable_parameters:,} trainable",
        ]
        lines += [f"  {label:<24}{value / 1e6:>12.3f} MB" for label, value in rows]
        return "\n".join(lines)


def inventory_from_counts(frozen: int, trainable: int, convention: ByteConvention) -> Inventory:
    """Inventory for parameter counts alone (napkin math 16.5 is this function's test vector)."""
    return Inventory(
        convention=convention.name,
        frozen_parameters=frozen,
        trainable_parameters=trainable,
        frozen_weights=frozen * convention.frozen_weight,
        trainable_weights=trainable * convention.trainable_weight,
        gradients=trainable * convention.gradient,
        master_weights=trainable * convention.master_weight,
        optimizer_moments=trainable * convention.optimizer_moments,
    )


def inventory_for_model(model: torch.nn.Module, convention: ByteConvention = FP32_ADAMW) -> Inventory:
    """Count a live model's parameters by ``requires_grad`` (tied weights counted once)."""
    seen: set[int] = set()
    frozen = trainable = 0
    for parameter in model.parameters():
        if id(parameter) in seen:
            continue
        seen.add(id(parameter))
        if parameter.requires_grad:
            trainable += parameter.numel()
        else:
            frozen += parameter.numel()
    return inventory_from_counts(frozen, trainable, convention)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """Measure the peak memory of a block: CUDA allocator peak, or sampled process RSS on CPU.

    tracemalloc cannot see tensor storage (torch allocates outside Python's allocator), so on
    CPU a background thread samples resident set size every few milliseconds; ``peak_bytes`` is
    the highest RSS seen and ``baseline_bytes`` the RSS at entry.
    """

    def __init__(self, device: torch.device, interval_s: float = 0.005) -> None:
        self.device = device
        self.interval_s = interval_s
        self.baseline_bytes = 0
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PeakMemory:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.baseline_bytes = torch.cuda.memory_allocated(self.device)
        else:
            self.baseline_bytes = self.peak_bytes = _rss_bytes()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_bytes = max(self.peak_bytes, _rss_bytes())
            time.sleep(self.interval_s)

    def __exit__(self, *exc: object) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            self.peak_bytes = torch.cuda.max_memory_allocated(self.device)
        else:
            self._stop.set()
            if self._thread is not None:
                self._thread.join()
            self.peak_bytes = max(self.peak_bytes, _rss_bytes())

    def report(self, inventory: Inventory) -> dict[str, Any]:
        """Measured against inventoried: what the parameter state explains and what it does not.

        ``peak_above_baseline_bytes`` is what the measured block added on top of what was resident
        at entry (activations, gradients, kernel workspaces); on CPU the RSS totals also hold the
        Python runtime and libraries, so compare the inventory with the CUDA totals, or the CPU delta.
        """
        cuda = self.device.type == "cuda"
        return {
            "measured_by": "torch.cuda.max_memory_allocated" if cuda else "sampled process RSS",
            "baseline_bytes": self.baseline_bytes,
            "peak_bytes": self.peak_bytes,
            "peak_above_baseline_bytes": max(0, self.peak_bytes - self.baseline_bytes),
            "inventory_bytes": inventory.total,
        }
