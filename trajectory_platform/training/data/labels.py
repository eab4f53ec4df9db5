"""What a label is: the one definition of a supervised target.

A position is a target when its label is not :data:`IGNORE_INDEX`; every stage that counts,
selects or checks targets (masking, the dataset audit, packing, the loss, preference pairs, the
evaluation budget) asks this module, so "what counts as a target" cannot drift between them.
"""

from __future__ import annotations

from collections.abc import Sequence

IGNORE_INDEX = -100
"""Label value that carries no loss (the Hugging Face / PyTorch cross-entropy convention)."""


def is_target(label: int) -> bool:
    """Whether a position with this label is supervised."""
    return label != IGNORE_INDEX


def target_positions(labels: Sequence[int]) -> tuple[int, ...]:
    """Indices of the supervised positions of one example."""
    return tuple(i for i, label in enumerate(labels) if label != IGNORE_INDEX)


def target_count(labels: Sequence[int]) -> int:
    """How many positions of one example are supervised (counted in C: it runs once per example)."""
    return len(labels) - labels.count(IGNORE_INDEX)
