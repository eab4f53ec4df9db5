"""The evaluation's knobs as plain dataclasses: one source of each default, importable without torch.

``trajectory-platform evaluate --help`` derives its flags from :class:`EvaluationSettings`, and the
``scorecard`` asset its config; describing them needs no model, so the suite spec, the decoding
parameters and the settings live apart from ``harness``, ``policy`` and ``run``, which import them
from here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from trajectory_platform.evaluation.gate import GateRule
from trajectory_platform.gym.faults import FAULT_KINDS


@dataclass(frozen=True)
class SuiteSpec:
    """How many trials of each suite and how they are drawn (all recorded in the manifest)."""

    episodes: int = 8
    attempts: int = 1
    recovery_episodes: int = 4
    retention_episodes: int = 4
    seed: int = 0
    library_seed: int = 0
    retention_kinds: tuple[str, ...] = ("count_files", "report")
    fault_kinds: tuple[str, ...] = FAULT_KINDS
    reserved_tool_families: tuple[str, ...] = ("alias",)
    learnable_only: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Decoding:
    """Declared decoding parameters; recorded in the lineage and in the evaluation manifest."""

    max_new_tokens: int = 64
    do_sample: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the episode's ``sampling_params_json``)."""
        return {"decoding": "sampled" if self.do_sample else "greedy", **asdict(self)}


@dataclass(frozen=True)
class EvaluationSettings:
    """What a user sets for an evaluation, with the product's defaults: their one source. The
    ``evaluate`` CLI's flags and the ``scorecard`` asset's config are derived from these fields,
    and all of them land in the evaluation manifest."""

    episodes: int = field(default=SuiteSpec.episodes, metadata={"help": "acceptance trials per arm"})
    attempts: int = field(
        default=SuiteSpec.attempts, metadata={"help": "seeds per task: pass@k / pass^k when > 1"}
    )
    recovery_episodes: int = field(
        default=SuiteSpec.recovery_episodes, metadata={"help": "fault-injected trials"}
    )
    retention_episodes: int = field(
        default=SuiteSpec.retention_episodes, metadata={"help": "retention trials"}
    )
    seed: int = field(default=SuiteSpec.seed, metadata={"help": "suite draw and episode seed"})
    library_seed: int = field(default=SuiteSpec.library_seed, metadata={"help": "gym fixture library seed"})
    learnable_only: bool = field(default=False, metadata={"help": "only the gym's learnable family"})
    max_steps: int = field(default=8, metadata={"help": "turn budget per trial"})
    max_new_tokens: int = field(
        default=0,
        metadata={
            "help": "output limit per turn (0: the training dataset's longest target turn + 8 where the "
            f"caller has the dataset, else {Decoding.max_new_tokens})"
        },
    )
    max_generated_tokens: int = field(default=600, metadata={"help": "generated-token budget per trial"})
    sample: bool = field(default=False, metadata={"help": "sample (pinned seeds) instead of greedy decoding"})
    temperature: float = field(
        default=Decoding.temperature, metadata={"help": "sampling temperature (with --sample)"}
    )
    top_p: float = field(default=Decoding.top_p, metadata={"help": "nucleus sampling mass (with --sample)"})
    alpha: float = field(default=0.05, metadata={"help": "two-sided level of the paired intervals"})
    min_gain: float = field(
        default=GateRule.min_acceptance_ci_low,
        metadata={"help": "gate: the interval's low end must exceed this"},
    )
    baseline_path: str = field(
        default="",
        metadata={"help": "incumbent checkpoint ('': the candidate's base, else the default base)"},
    )
    threads: int = field(default=1, metadata={"help": "torch CPU threads (small models: 1 is fastest)"})
    batch: int = field(
        default=8,
        metadata={
            "help": "trials in flight, their turns decoded together (speed only: each trial gets the "
            "tokens it would get alone)"
        },
    )
