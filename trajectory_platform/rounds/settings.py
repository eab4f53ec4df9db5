"""The declared knobs of a round, DAgger labelling and the collapse watch, with their defaults.

Each is a frozen dataclass with ``help`` metadata, like every other stage's ``*Settings``, so a CLI
or an asset config can be derived from the fields later without a second list of names.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RoundSettings:
    """Where a round samples, how much, and how long its trajectories stay in the mix."""

    attempts: int = field(default=8, metadata={"help": "k: attempts per selected task (pinned seeds)"})
    band_low: float = field(default=0.5, metadata={"help": "lowest P_inform(p, k) a selected task may have"})
    band_high: float = field(
        default=1.0, metadata={"help": "highest P_inform(p, k) a selected task may have"}
    )
    staleness_rounds: int = field(
        default=2, metadata={"help": "R: trajectories sampled more than R rounds ago leave the mix"}
    )
    cap_per_fixture: int = field(
        default=4, metadata={"help": "distinct admitted trajectories kept per task in the mix"}
    )
    seed: int = field(default=0, metadata={"help": "base of every attempt's pinned seed"})

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {self.attempts}")
        if not 0.0 <= self.band_low <= self.band_high <= 1.0:
            raise ValueError(f"need 0 <= band_low <= band_high <= 1, got {self.band_low}, {self.band_high}")
        if self.staleness_rounds < 0:
            raise ValueError(f"staleness_rounds must be >= 0, got {self.staleness_rounds}")


@dataclass(frozen=True)
class DaggerSettings:
    """Which learner states get an expert label, and the expert/learner mixing schedule."""

    states_per_trajectory: int = field(
        default=3, metadata={"help": "learner states labelled per trajectory (evenly spaced turns)"}
    )
    beta0: float = field(
        default=1.0, metadata={"help": "beta_0: probability the expert's action is executed in round 0"}
    )
    beta_decay: float = field(
        default=0.5, metadata={"help": "beta_i = beta_0 * decay^i: how fast the expert hands over"}
    )

    def __post_init__(self) -> None:
        if self.states_per_trajectory < 1:
            raise ValueError(f"states_per_trajectory must be >= 1, got {self.states_per_trajectory}")
        if not (0.0 <= self.beta0 <= 1.0 and 0.0 <= self.beta_decay <= 1.0):
            raise ValueError(f"beta0 and beta_decay must lie in [0, 1], got {self.beta0}, {self.beta_decay}")

    def beta(self, round_index: int) -> float:
        """beta_i: Ross et al. only need the average to tend to zero; a geometric decay does."""
        if round_index < 0:
            raise ValueError(f"round index must be >= 0, got {round_index}")
        return self.beta0 * self.beta_decay**round_index


@dataclass(frozen=True)
class CollapseSettings:
    """How far a round may fall behind the previous one before the loop halts."""

    max_diversity_drop: float = field(
        default=0.25,
        metadata={"help": "largest relative drop of distinct action sequences per task"},
    )
    max_acceptance_drop: float = field(
        default=0.10, metadata={"help": "largest absolute drop of the admitted share of attempts"}
    )
    max_fabrication_rise: float = field(
        default=0.05, metadata={"help": "largest absolute rise of the fabricated-observation rate"}
    )
    max_runaway_rise: float = field(
        default=0.05, metadata={"help": "largest absolute rise of the runaway rate"}
    )
    max_heldout_drop: float = field(
        default=0.10,
        metadata={"help": "largest absolute drop of acceptance on held-out families (scorecard)"},
    )
    max_retention_drop: float = field(
        default=0.05,
        metadata={"help": "largest absolute drop of the retention suite's acceptance (scorecard)"},
    )
    audit_size: int = field(
        default=5, metadata={"help": "admitted trajectories drawn for the per-round audit"}
    )

    def __post_init__(self) -> None:
        if self.audit_size < 0:
            raise ValueError(f"audit_size must be >= 0, got {self.audit_size}")
