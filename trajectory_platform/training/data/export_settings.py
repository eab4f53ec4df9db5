"""What a user sets for a chat export, with the product's defaults: the ``export`` flags' one source.

Kept apart from the export itself, which loads the tokenizer stack, so that ``trajectory-platform
export --help`` builds its flags from these fields without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trajectory_platform.training.data.serialize import TRUNCATION_POLICIES

EXPORT_RATIONALE_MODES = ("removed", "target")
"""Rationale policies a chat export can state exactly. Frameworks train a weighted assistant turn
whole, reasoning included, so the masks' ``context`` (reasoning seen, not trained) has no chat form."""


@dataclass(frozen=True)
class ExportSettings:
    """The policies the weights follow (as the masks' ``MaskConfig``) and the dataset's name."""

    rationale: str = field(
        default=EXPORT_RATIONALE_MODES[0],
        metadata={
            "choices": EXPORT_RATIONALE_MODES,
            "help": "assistant reasoning is removed, or trained with its turn (a chat export cannot keep "
            "it as untrained context)",
        },
    )
    truncation: str = field(
        default=TRUNCATION_POLICIES[0],
        metadata={
            "choices": TRUNCATION_POLICIES,
            "help": "a truncated selected turn gets weight 0 (exclude) or 1 (prefix)",
        },
    )
    name: str = field(default="trajectory-platform-chat", metadata={"help": "the dataset's name on its card"})
