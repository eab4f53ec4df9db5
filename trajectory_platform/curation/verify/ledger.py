"""The cost ledger of the cascade: curation eq. 1 (C_attempt), eq. 2 (yield Y), C_accepted.

Stages are measured, not assumed: each stage records how many episodes entered it, how many
passed, and the wall seconds spent inside it. From those, ``c_i`` is the mean cost of one entry and
``p_i`` the conditional pass rate, and eq. 1 gives the expected cost of one raw attempt:

    C_attempt = c_1 + p_1 c_2 + p_1 p_2 c_3 + ... + (prod_{j<K} p_j) c_K
    Y         = prod_i p_i
    C_accepted = C_attempt / Y

Because every episode that passes stage i enters stage i+1 and nothing else does, eq. 1 over the
measured ``c_i, p_i`` equals the total measured stage time divided by the number of attempts; the
ledger keeps both so a reader can see they agree. The naive monolithic order (curation napkin math
0.2: dynamic first, then static, then the advisory stage) is costed over the same episodes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

R_FLAKE_LIMIT = 0.02
"""Curation §Formal mathematical metrics: above 2 % inconsistent re-runs, admission halts."""

LAX_YIELD = 0.5
"""eta above this almost always signals a lax verifier or test cheating."""


def count_flakes(dynamic_data: Iterable[dict[str, Any]]) -> tuple[int, int, int]:
    """(inconsistent, judged, retired) over the stage-3 ``data`` of episodes the oracle ran on.

    Episodes on a fixture *retired* by calibration (its own reference solution disagreed with
    itself) are counted apart: that fixture is already out of service with all its episodes, so
    its known flakiness does not threaten other verdicts. R_flake = inconsistent / judged measures
    the unexplained nondeterminism of the fixtures still trusted, which is what halts admission.
    """
    inconsistent = judged = retired = 0
    for data in dynamic_data:
        if not data.get("runs"):
            continue
        if data.get("fixture_retired"):
            retired += 1
            continue
        judged += 1
        inconsistent += bool(data.get("inconsistent"))
    return inconsistent, judged, retired


@dataclass
class StageCost:
    """Measured counters of one stage."""

    stage: str
    entered: int = 0
    passed: int = 0
    wall_s: float = 0.0

    @property
    def cost(self) -> float:
        """c_i: mean wall seconds per entry (0 for a stage nobody entered)."""
        return self.wall_s / self.entered if self.entered else 0.0

    @property
    def pass_rate(self) -> float:
        """p_i: conditional pass rate of the episodes that entered."""
        return self.passed / self.entered if self.entered else 0.0


def expected_attempt_cost(costs: Sequence[float], pass_rates: Sequence[float]) -> float:
    """Eq. 1: the sum of stage costs weighted by the probability of reaching each stage."""
    if len(costs) != len(pass_rates):
        raise ValueError("costs and pass_rates must have one entry per stage")
    total, reach = 0.0, 1.0
    for c, p in zip(costs, pass_rates, strict=True):
        total += reach * c
        reach *= p
    return total


def cumulative_yield(pass_rates: Sequence[float]) -> float:
    """Eq. 2: the fraction of raw attempts that survive every stage."""
    return math.prod(pass_rates)


def accepted_cost(c_attempt: float, yield_: float) -> float | None:
    """C_accepted = C_attempt / Y; ``None`` when nothing was accepted (the cost is unbounded)."""
    return c_attempt / yield_ if yield_ > 0 else None


@dataclass
class Ledger:
    """The measured ledger of one cascade run, with the monolithic comparison and health flags."""

    attempts: int
    stages: list[StageCost]
    monolithic: list[StageCost]
    routing_wall_s: float
    oracle_runs: int
    dynamic_verified: int
    inconsistent: int
    retired_fixtures: list[str]
    yield_band: tuple[float, float]
    warnings: list[str] = field(default_factory=list)

    @property
    def c_attempt(self) -> float:
        return expected_attempt_cost([s.cost for s in self.stages], [s.pass_rate for s in self.stages])

    @property
    def measured_c_attempt(self) -> float:
        """Total stage seconds / attempts: what eq. 1 must reproduce."""
        return sum(s.wall_s for s in self.stages) / self.attempts if self.attempts else 0.0

    @property
    def yield_(self) -> float:
        return cumulative_yield([s.pass_rate for s in self.stages]) if self.attempts else 0.0

    @property
    def c_accepted(self) -> float | None:
        return accepted_cost(self.c_attempt, self.yield_)

    @property
    def monolithic_c_attempt(self) -> float:
        return expected_attempt_cost(
            [s.cost for s in self.monolithic], [s.pass_rate for s in self.monolithic]
        )

    @property
    def cost_ratio(self) -> float | None:
        """Monolithic / staged cost per attempt: how many times cheaper the cascade order is."""
        return self.monolithic_c_attempt / self.c_attempt if self.c_attempt > 0 else None

    @property
    def r_flake(self) -> float:
        """R_flake: episodes whose repeated oracle runs disagreed / episodes the oracle judged
        (both on fixtures not retired by calibration; see :func:`count_flakes`)."""
        return self.inconsistent / self.dynamic_verified if self.dynamic_verified else 0.0

    @property
    def admission_halted(self) -> bool:
        return self.r_flake > R_FLAKE_LIMIT

    @property
    def lax_verifier(self) -> bool:
        return self.yield_ > LAX_YIELD

    def health_warnings(self) -> list[str]:
        """Human-readable warnings: R_flake over the limit, yield outside the declared band."""
        out = list(self.warnings)
        low, high = self.yield_band
        if self.admission_halted:
            out.append(f"R_flake {self.r_flake:.3f} > {R_FLAKE_LIMIT}: admission halted")
        if self.attempts and not low <= self.yield_ <= high:
            out.append(f"yield {self.yield_:.4f} outside declared band [{low}, {high}]")
        if self.lax_verifier:
            out.append(f"yield {self.yield_:.4f} > {LAX_YIELD}: the verifier is probably lax")
        return out

    def summary(self) -> dict[str, Any]:
        """The JSON-ready ledger: per-stage counters and the headline figures."""

        def rows(stages: list[StageCost]) -> list[dict[str, Any]]:
            return [
                {
                    "stage": s.stage,
                    "entered": s.entered,
                    "passed": s.passed,
                    "wall_s": round(s.wall_s, 6),
                    "c": round(s.cost, 6),
                    "p": round(s.pass_rate, 6),
                }
                for s in stages
            ]

        c_acc = self.c_accepted
        ratio = self.cost_ratio
        return {
            "attempts": self.attempts,
            "stages": rows(self.stages),
            "monolithic_stages": rows(self.monolithic),
            "c_attempt": round(self.c_attempt, 6),
            "measured_c_attempt": round(self.measured_c_attempt, 6),
            "yield": round(self.yield_, 6),
            "c_accepted": None if c_acc is None else round(c_acc, 6),
            "monolithic_c_attempt": round(self.monolithic_c_attempt, 6),
            "cost_ratio": None if ratio is None else round(ratio, 4),
            "routing_wall_s": round(self.routing_wall_s, 6),
            "oracle_runs": self.oracle_runs,
            "dynamic_verified": self.dynamic_verified,
            "inconsistent": self.inconsistent,
            "r_flake": round(self.r_flake, 6),
            "retired_fixtures": self.retired_fixtures,
            "admission_halted": self.admission_halted,
            "lax_verifier": self.lax_verifier,
            "yield_band": list(self.yield_band),
            "warnings": self.health_warnings(),
        }


def _added(parts: Sequence[list[StageCost]]) -> list[StageCost]:
    """Stage counters of several runs added stage by stage (every run lists the same stages)."""
    if not parts or not parts[0]:
        return []
    return [
        StageCost(
            stages[0].stage,
            sum(s.entered for s in stages),
            sum(s.passed for s in stages),
            sum(s.wall_s for s in stages),
        )
        for stages in zip(*parts, strict=True)
    ]


def merge_ledgers(ledgers: Sequence[Ledger]) -> Ledger:
    """One ledger for several cascade runs: counts and seconds add, so eq. 1 over the merged
    counters is the total stage time over the total attempts, as for a single run."""
    if not ledgers:
        raise ValueError("no ledgers to merge")
    return Ledger(
        attempts=sum(x.attempts for x in ledgers),
        stages=_added([x.stages for x in ledgers]),
        monolithic=_added([x.monolithic for x in ledgers]),
        routing_wall_s=sum(x.routing_wall_s for x in ledgers),
        oracle_runs=sum(x.oracle_runs for x in ledgers),
        dynamic_verified=sum(x.dynamic_verified for x in ledgers),
        inconsistent=sum(x.inconsistent for x in ledgers),
        retired_fixtures=sorted({f for x in ledgers for f in x.retired_fixtures}),
        yield_band=ledgers[0].yield_band,
        warnings=[w for x in ledgers for w in x.warnings],
    )
