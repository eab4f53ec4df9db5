"""The shared step count of a full ablation, fixed before any variant trains.

The ablations compare variants at one step count, so it is derived from costs measured on the
machine that runs them (:mod:`.calibrate`):
budget = setup + ceil(runs / workers) x (steps x step + evaluation), with ``step`` the mean over
the variants. A plan under
:data:`MIN_STEPS` or over budget is refused unless the caller allows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MIN_STEPS = 50
"""Below this many steps per run a derived plan is refused: the runs would measure only noise."""


@dataclass(frozen=True)
class BudgetPlan:
    """Measured costs on this machine and the steps they allow within the budget."""

    seconds_per_step: float
    fixed_seconds_per_run: float
    """Evaluation plus loading and saving the model: the part of a run that steps do not scale."""
    setup_seconds: float
    runs: int
    steps: int
    budget_seconds: float
    fitting_steps: int
    """The most steps that fit the budget (equal to ``steps`` unless steps were declared)."""
    workers: int = 1
    """Runs side by side; each worker runs ``rounds`` runs one after the other."""

    @property
    def rounds(self) -> int:
        return math.ceil(self.runs / self.workers)

    @property
    def projected_seconds(self) -> float:
        per_run = self.steps * self.seconds_per_step + self.fixed_seconds_per_run
        return self.setup_seconds + self.rounds * per_run

    def problem(self, steps_declared: bool) -> str | None:
        """Why this plan should not run, or ``None``: too few derived steps, or over budget."""
        if not steps_declared and self.steps < MIN_STEPS:
            return f"only {self.steps} steps per run fit the budget (minimum {MIN_STEPS})"
        if self.projected_seconds > self.budget_seconds:
            return (
                f"projected {self.projected_seconds / 60:.1f} min exceeds the "
                f"{self.budget_seconds / 60:g} min budget"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seconds_per_step": round(self.seconds_per_step, 3),
            "fixed_seconds_per_run": round(self.fixed_seconds_per_run, 1),
            "setup_seconds": round(self.setup_seconds, 1),
            "runs": self.runs,
            "workers": self.workers,
            "steps": self.steps,
            "budget_minutes": round(self.budget_seconds / 60, 1),
            "fitting_steps": self.fitting_steps,
            "projected_minutes": round(self.projected_seconds / 60, 1),
        }


def plan_budget(
    seconds_per_step: float,
    fixed_seconds: float,
    setup_seconds: float,
    runs: int,
    budget_seconds: float,
    steps: int | None,
    *,
    workers: int = 1,
) -> BudgetPlan:
    """The declared ``steps``, or the most that fit the budget (see the module docstring)."""
    rounds = math.ceil(runs / workers)
    fitting = max(
        0, int((budget_seconds - setup_seconds - rounds * fixed_seconds) / (rounds * seconds_per_step))
    )
    return BudgetPlan(
        seconds_per_step,
        fixed_seconds,
        setup_seconds,
        runs,
        fitting if steps is None else steps,
        budget_seconds,
        fitting,
        workers,
    )
