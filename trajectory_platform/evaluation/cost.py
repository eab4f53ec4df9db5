"""Cost per accepted task (fine-tuning eq. 1.2 in its per-attempt form).

Total spend over *all* initiated attempts divided by accepted ones: a candidate that spends an
extra diagnostic turn can still be cheaper per accepted task if it prevents failed runs. With
zero acceptances the ratio is undefined, so the report carries total spend beside the zero
count instead of an infinity.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class CostPerAccepted:
    """``value`` is None exactly when nothing was accepted; ``total_spend`` is always reported."""

    value: float | None
    total_spend: float
    attempts: int
    accepted: int

    def to_dict(self) -> dict:
        """JSON-ready form for the scorecard."""
        return asdict(self)


def cost_per_accepted(total_spend: float, attempts: int, accepted: int) -> CostPerAccepted:
    """C_acc = total spend across initiated attempts / accepted tasks."""
    if accepted < 0 or attempts < accepted:
        raise ValueError(f"accepted ({accepted}) must lie in [0, attempts={attempts}]")
    value = total_spend / accepted if accepted else None
    return CostPerAccepted(value=value, total_spend=total_spend, attempts=attempts, accepted=accepted)


def per_attempt_cost_per_accepted(mean_attempt_cost: float, acceptance_rate: float) -> float:
    """The per-attempt form: mean attempt cost / acceptance rate."""
    if acceptance_rate <= 0:
        raise ValueError("acceptance rate must be positive for the per-attempt form")
    return mean_attempt_cost / acceptance_rate


def break_even_attempt_cost(reference_cost_per_accepted: float, candidate_acceptance_rate: float) -> float:
    """Largest mean attempt cost at which the candidate's C_acc still matches the reference's."""
    return reference_cost_per_accepted * candidate_acceptance_rate
