"""Stage 3, dynamic: replay the final diff onto the fixture's S0 in the gym sandbox, run the sealed
oracle (FAIL_TO_PASS and PASS_TO_PASS) in a clean interpreter, and re-run when the result cannot be
trusted from one run.

The agent's own workspace is never consulted: the post-image comes from S0 plus the recorded diff,
and the tests come from the fixture's sealed copy. A result is re-run up to ``K`` times in total
when it is borderline or timing-sensitive (a timeout, a run whose tests used more CPU time than a
set fraction of the oracle's time limit, a fixture whose tests depend on time, randomness or
threads, or a diff whose added code reads any of those, the environment, or imports by a computed
name: :func:`reads_nondeterminism`); a failure is re-run once to show it is reproducible, because a
hard negative must be. Disagreeing runs make the episode inconsistent: it goes to flaky quarantine
and counts in R_flake.

"Borderline" reads CPU time (the judge's ``wait4`` figure per test worker, summed), never the run's
wall time: the number of runs is stored (``oracle_runs``, the stage's ``runs``/``run_outcomes``), and
wall time grows with whatever else the machine runs, so a wall-clock rule made those bytes depend on
the load. CPU time is the part of a run's time that is the run's own: on an idle machine the two
agree for a test that computes, so the line still catches a suite close to its limit. The wall-clock
deadline stays, as the hard stop for a test that hangs (docs/verification.md says what it can still
change).

A timing-sensitive fixture is also calibrated once per batch: its reference solution is run
``calibration_runs`` times (or the outcome is read back from the cross-run cache, ``calibration.py``,
when nothing that decides it changed), and so is any other fixture on which an episode's runs
disagreed, once the batches are done: a fixture whose reference disagrees with itself is a flaky
fixture, and every episode on it is quarantined (the cascade does that); where the reference holds,
the disagreement was the episode's own, and only that episode is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from trajectory_platform.curation.verify.context import DiffView, FixtureContext
from trajectory_platform.curation.verify.verdicts import Finding, StageVerdict
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.oracle import OracleResult, run_oracle
from trajectory_platform.gym.warm_start import imported_names


@dataclass(frozen=True)
class DynamicConfig:
    """How hard stage 3 tries before it trusts a result."""

    reruns: int = 3
    reproduce_failures: bool = True
    borderline_fraction: float = 0.5
    """A first run whose tests used more CPU seconds than this fraction of the time limit is re-run."""
    oracle_timeout_s: float = 10.0
    calibration_runs: int = 20


_NONDETERMINISM = re.compile(
    r"\bimport (random|time|threading|uuid|secrets)\b|\bfrom (random|time|threading|"
    r"datetime) import|\bsleep\(|datetime\.now|os\.urandom|perf_counter"
)


def timing_sensitive(sealed_tests: dict[str, str]) -> bool:
    """Do the sealed tests read clocks, randomness or threads? Then one run proves nothing."""
    return any(_NONDETERMINISM.search(text) for text in sealed_tests.values())


_SOLUTION_NONDETERMINISM = re.compile(
    _NONDETERMINISM.pattern
    + r"|\b(?:random|secrets|uuid|threading|multiprocessing|asyncio|concurrent)\b|environ|getenv|getpid"
    r"|\b(?:hash|id)\(|time_ns|monotonic|__import__|import_module|SystemRandom|tempfile|mkstemp|mktemp"
)
"""What makes a solution's own outcome vary from run to run: clocks, randomness, threads, process
ids, the environment (the run's ``GYM_SCHEDULE_SEED`` among it), object addresses and string hashes
(randomized per interpreter), temporary file names, and imports by computed name, which hide any
of these. Liberal on purpose: a solution wrongly suspected costs reruns, never a verdict. Each rerun
starts an interpreter of its own (``own_interpreter``): a kept judge's runs share its string-hash
seed, and a solution that read ``hash()`` or a set's order as a coin agreed with itself across all
K of them (red team, 2026-12-06)."""


def reads_nondeterminism(diff: DiffView) -> bool:
    """Does code the diff adds read anything that varies between runs? Then its one passing run
    proves nothing either: ``random() < 0.5`` passed once in two, and a solution reading the run's
    schedule seed passed the first run only, each admitted after one run (red team, 2026-12-06)."""
    return any(_SOLUTION_NONDETERMINISM.search(line) for lines in diff.added.values() for line in lines)


def fixture_context(fixture: Fixture) -> FixtureContext:
    """Curation's view of a gym fixture.

    Protected: the sealed tests and everything under the tests folder. Edit scope: the one the task
    declares (:attr:`Fixture.edit_scope`: a configuration task's data files, since its statement
    forbids code edits, and a loader edited to hide broken data behaved exactly like the data fix on
    every check, red team 2026-12-06); otherwise the folders holding the files the reference
    solution edits (a different file in the same package is a legitimate alternative fix of code;
    an edit elsewhere in the tree is out of scope), and none at all where the reference edits
    nothing: a report task ("Do not modify any file") whose episode also edited code was admitted
    (red team, 2026-12-06).
    """
    tests = {p for p in fixture.s0_files if p.startswith(fixture.tests_dir.rstrip("/") + "/")}
    folders = sorted({str(PurePosixPath(p).parent) for p in fixture.edited_paths})
    scope = fixture.edit_scope
    if scope is None:
        scope = None if "." in folders else tuple(folders)
    return FixtureContext(
        fixture_id=fixture.fixture_id,
        files=dict(fixture.s0_files),
        protected=frozenset(tests | set(fixture.sealed_tests)),
        edit_scope=scope,
        min_tool_calls=fixture.min_tool_calls,
        timing_sensitive=timing_sensitive(fixture.sealed_tests),
        s0_digest=fixture.s0_digest,
        handle=fixture,
        oracle_timeout_s=fixture.oracle_timeout_s,
        test_imports=frozenset().union(
            *(
                imported_names(text)
                for text in [*fixture.sealed_tests.values(), *(fixture.s0_files[p] for p in tests)]
            )
        ),
    )


def _failing(result: OracleResult) -> list[str]:
    return sorted(t for t, s in {**result.fail_to_pass, **result.pass_to_pass}.items() if s != "passed")


def run_dynamic(
    fixture: FixtureContext, diff: DiffView, final_answer: str | None, config: DynamicConfig
) -> StageVerdict:
    """Run stage 3; ``data`` holds the run outcomes, failing tests, exit codes and ``inconsistent``."""
    verdict = StageVerdict("dynamic", passed=False)
    files = diff.post if diff.post is not None else dict(fixture.files)
    outcomes: list[bool] = []
    exit_codes: list[int] = []
    failing: set[str] = set()
    timed_out = False
    planned = 1
    timeout_s = fixture.timeout_s(config.oracle_timeout_s)
    while len(outcomes) < planned:
        result = run_oracle(
            fixture.handle,
            files,
            final_answer=final_answer,
            timeout_s=timeout_s,
            run_label=f"verify:{len(outcomes)}",
            own_interpreter=bool(outcomes),  # a rerun draws its own string-hash seed
        )
        outcomes.append(result.passed)
        exit_codes.extend(result.exit_codes)
        timed_out = timed_out or result.timed_out
        if not result.passed:
            failing.update(_failing(result))
        if len(outcomes) == 1:
            borderline = (
                timed_out
                or fixture.timing_sensitive
                or reads_nondeterminism(diff)
                or (result.cpu_s > config.borderline_fraction * timeout_s)
            )
            if borderline:
                planned = config.reruns
            elif not result.passed and config.reproduce_failures:
                planned = 2
        if len(set(outcomes)) > 1:
            planned = max(planned, config.reruns)
    inconsistent = len(set(outcomes)) > 1
    verdict.passed = all(outcomes)
    if inconsistent:
        verdict.passed = False
        verdict.findings.append(Finding("flaky_oracle", f"runs disagree: {outcomes}"))
    elif not verdict.passed:
        detail = ", ".join(sorted(failing)[:5]) or ("timed out" if timed_out else "failed")
        verdict.findings.append(Finding("oracle_failed", detail))
    verdict.data = {
        "runs": len(outcomes),
        "run_outcomes": outcomes,
        "inconsistent": inconsistent,
        "timed_out": timed_out,
        "exit_codes": sorted(set(exit_codes)),
        "failing_tests": sorted(failing),
    }
    return verdict


def calibrate_oracle(fixture: FixtureContext, config: DynamicConfig) -> list[bool]:
    """Run the fixture's own reference solution ``calibration_runs`` times: outcomes per run.

    A fixture whose reference does not pass every time has an oracle that disagrees with itself;
    no single episode's verdict on it can be trusted, whichever way it went.
    """
    handle = fixture.handle
    return [
        run_oracle(
            handle,
            handle.reference_files,
            final_answer=handle.reference_answer,
            timeout_s=fixture.timeout_s(config.oracle_timeout_s),
            run_label=f"calibrate:{attempt}",
            own_interpreter=attempt > 0,  # as the reruns of an episode: no shared hash seed
        ).passed
        for attempt in range(config.calibration_runs)
    ]
