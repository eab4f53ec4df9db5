"""The shared step count of a full ablation, fixed before any variant trains.

The ablations compare variants at one step count, so it is derived from costs measured on the
machine that runs them (:mod:`.calibrate`):
budget = setup + ceil(runs / workers) x (steps x step + outside + evaluation), with ``step`` the
mean over the variants, ``outside`` a run's loading and saving, ``evaluation`` an upper bound (a
barely trained model runs away to the token budget; the trained runs of 2026-12-04 took 6-17 s
where the bound read about 100). Derived steps fit the budget under that bound. The lower bound
packs the runs on the workers without idle time and without evaluation: setup + runs / workers x
(steps x step + outside). A plan is refused only when even that is over budget (or when too few
steps fit); one between the bounds goes on with a caution.
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
    outside_seconds_per_run: float
    """Loading and saving the model: the part of a run's training outside its steps."""
    evaluation_seconds_per_run: float
    """An upper bound on a run's closed-loop evaluation (see the module docstring)."""
    setup_seconds: float
    runs: int
    steps: int
    budget_seconds: float
    fitting_steps: int
    """The most steps that fit the budget under the evaluation bound (``steps`` unless declared)."""
    workers: int = 1
    """Runs side by side; each worker runs ``rounds`` runs one after the other."""

    @property
    def rounds(self) -> int:
        return math.ceil(self.runs / self.workers)

    @property
    def training_seconds(self) -> float:
        """A lower bound on the whole run: no evaluation, and the runs packed on the workers with
        no idle time (the queue starts a run whenever a worker frees: :mod:`.schedule`)."""
        per_run = self.steps * self.seconds_per_step + self.outside_seconds_per_run
        return self.setup_seconds + self.runs / self.workers * per_run

    @property
    def projected_seconds(self) -> float:
        """An upper bound: whole rounds of runs, every evaluation at its bound."""
        per_run = self.steps * self.seconds_per_step + self.outside_seconds_per_run
        return self.setup_seconds + self.rounds * (per_run + self.evaluation_seconds_per_run)

    def problem(self, steps_declared: bool) -> str | None:
        """Why this plan should not run, or ``None``: too few derived steps, or over budget before
        any evaluation."""
        if not steps_declared and self.steps < MIN_STEPS:
            return f"only {self.steps} steps per run fit the budget (minimum {MIN_STEPS})"
        if self.training_seconds > self.budget_seconds:
            return (
                f"training alone projects {self.training_seconds / 60:.1f} min, over the "
                f"{self.budget_seconds / 60:g} min budget"
            )
        return None

    def caution(self) -> str | None:
        """What the budget depends on when it holds only if the evaluations stay under their bound."""
        if self.projected_seconds <= self.budget_seconds:
            return None
        return (
            f"projected {self.training_seconds / 60:.1f} min plus evaluations: up to "
            f"{self.projected_seconds / 60:.1f} min if every run's evaluation takes its bound of "
            f"{self.evaluation_seconds_per_run:.0f} s (trained runs take a fraction of it), over the "
            f"{self.budget_seconds / 60:g} min budget"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seconds_per_step": round(self.seconds_per_step, 3),
            "outside_seconds_per_run": round(self.outside_seconds_per_run, 1),
            "evaluation_seconds_per_run_bound": round(self.evaluation_seconds_per_run, 1),
            "setup_seconds": round(self.setup_seconds, 1),
            "runs": self.runs,
            "workers": self.workers,
            "steps": self.steps,
            "budget_minutes": round(self.budget_seconds / 60, 1),
            "fitting_steps": self.fitting_steps,
            "training_minutes": round(self.training_seconds / 60, 1),
            "projected_minutes": round(self.projected_seconds / 60, 1),
        }


def plan_budget(
    seconds_per_step: float,
    outside_seconds: float,
    evaluation_seconds: float,
    setup_seconds: float,
    runs: int,
    budget_seconds: float,
    steps: int | None,
    *,
    workers: int = 1,
) -> BudgetPlan:
    """The declared ``steps``, or the most that fit the budget (see the module docstring)."""
    rounds = math.ceil(runs / workers)
    fixed = rounds * (outside_seconds + evaluation_seconds)
    fitting = max(0, int((budget_seconds - setup_seconds - fixed) / (rounds * seconds_per_step)))
    return BudgetPlan(
        seconds_per_step,
        outside_seconds,
        evaluation_seconds,
        setup_seconds,
        runs,
        fitting if steps is None else steps,
        budget_seconds,
        fitting,
        workers,
    )
