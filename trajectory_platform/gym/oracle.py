"""The sealed oracle of a fixture, and fixture validation (curation §Task fixture design,
§Verifier gaming defense).

The oracle never trusts the workspace's tests: it copies the final workspace into a fresh temp
dir, deletes the tests folder, injects the fixture's sealed test files *after* the agent yielded,
and runs them through :func:`trajectory_platform.gym.judge.run_tests_in` from a directory the
agent never saw. Validation asks the oracle the two questions every fixture must answer: it
rejects untouched S0 and accepts the reference solution.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.sandbox import SandboxError, Workspace, apply_diff, derive_schedule_seed


@dataclass
class OracleResult:
    """The sealed oracle's verdict (SWE-bench dual condition) with per-test detail."""

    fail_to_pass: dict[str, str]
    pass_to_pass: dict[str, str]
    passed: bool
    wall_s: float
    timed_out: bool
    exit_codes: list[int] = field(default_factory=list)
    error: str | None = None
    cpu_s: float = 0.0
    """CPU seconds the sealed tests' workers used (the judge's ``wait4`` figures, authenticated
    with the verdicts): what a decision that must not depend on the machine's load reads instead
    of ``wall_s`` (the borderline re-run rule of curation's stage 3)."""

    def to_dict(self) -> dict:
        return {
            "fail_to_pass": self.fail_to_pass,
            "pass_to_pass": self.pass_to_pass,
            "passed": self.passed,
            "wall_s": round(self.wall_s, 4),
            "timed_out": self.timed_out,
            "exit_codes": self.exit_codes,
            "error": self.error,
        }


def run_oracle(
    fixture: Fixture,
    workspace: dict[str, str] | str,
    final_answer: str | None = None,
    timeout_s: float = 10.0,
    run_label: str = "oracle",
    warm: bool = True,
    own_interpreter: bool = False,
) -> OracleResult:
    """Run ``fixture``'s sealed FAIL_TO_PASS and PASS_TO_PASS tests against a final workspace.

    ``workspace`` is the final file map, or a unified diff against the fixture's S0 (as an episode
    log records it). The tests folder is replaced by the sealed files, whatever the agent left
    there; ``final_answer`` is readable by report-style tests and never by workspace code paths.
    Callers that run the oracle repeatedly name each run (``run_label``): the same files and label
    give the same scheduler seed, different labels independent ones. ``warm`` and
    ``own_interpreter``: see :func:`~trajectory_platform.gym.judge.run_tests_in` (``warm=False``
    only to compare; ``own_interpreter`` for a repeated run, so it draws its own string-hash seed).
    """
    start = time.perf_counter()
    try:
        files = apply_diff(fixture.s0_files, workspace) if isinstance(workspace, str) else dict(workspace)
    except SandboxError as exc:
        return _failed(fixture, f"workspace diff does not apply: {exc}", time.perf_counter() - start)
    files = {p: c for p, c in files.items() if not _in_tests(p, fixture.tests_dir)}
    files.update(fixture.sealed_tests)
    ids = list(fixture.fail_to_pass) + list(fixture.pass_to_pass)
    with Workspace(files) as ws:
        run = run_tests_in(
            ws.root,
            ids=ids,
            tests_dir=fixture.tests_dir,
            load_conftest=False,
            guard=True,
            final_answer=final_answer,
            timeout_s=timeout_s,
            schedule_seed=derive_schedule_seed({**files, "\0final_answer": final_answer or ""}, run_label),
            warm=warm,
            own_interpreter=own_interpreter,
        )
    status = {tid: run.results.get(tid, {}).get("status", "error") for tid in ids}
    f2p = {t: status[t] for t in fixture.fail_to_pass}
    p2p = {t: status[t] for t in fixture.pass_to_pass}
    passed = (
        not run.timed_out
        and bool(f2p)
        and all(s == "passed" for s in f2p.values())
        and bool(p2p)
        and all(s == "passed" for s in p2p.values())
    )
    return OracleResult(
        fail_to_pass=f2p,
        pass_to_pass=p2p,
        passed=passed,
        wall_s=time.perf_counter() - start,
        timed_out=run.timed_out,
        exit_codes=[run.exit_code],
        error="timeout" if run.timed_out else None,
        cpu_s=run.cpu_s,
    )


def _in_tests(path: str, tests_dir: str) -> bool:
    return path == tests_dir or path.startswith(tests_dir.rstrip("/") + "/")


def _failed(fixture: Fixture, reason: str, wall_s: float) -> OracleResult:
    return OracleResult(
        fail_to_pass={t: "error" for t in fixture.fail_to_pass},
        pass_to_pass={t: "error" for t in fixture.pass_to_pass},
        passed=False,
        wall_s=wall_s,
        timed_out=False,
        error=reason,
    )


@dataclass
class FixtureValidation:
    """Outcome of validating one fixture: both oracle conditions and the reason when refused."""

    fixture_id: str
    rejects_s0: bool
    accepts_reference: bool
    ok: bool
    reason: str | None
    wall_s: float


def validate_fixture(fixture: Fixture, retries: int = 8) -> FixtureValidation:
    """The oracle must reject untouched S0 and accept the reference; otherwise refuse, with a reason.

    Also checks that the plan's edits reproduce the reference (so the expert can reach the goal)
    and that the reference diff round-trips. A flaky fixture's reference may fail by chance: it is
    accepted when any of ``retries`` runs passes (its S0 must still fail every time it is run).
    """
    reasons: list[str] = []
    s0 = run_oracle(fixture, fixture.s0_files, final_answer=None)
    wall = s0.wall_s
    rejects_s0 = not s0.passed
    if not rejects_s0:
        reasons.append("oracle accepts untouched S0 (FAIL_TO_PASS tests already pass)")
    runs = retries if fixture.flaky else 1
    accepts = False
    last = None
    for attempt in range(runs):
        last = run_oracle(
            fixture,
            fixture.reference_diff,
            final_answer=fixture.reference_answer,
            run_label=f"validate:{attempt}",
        )
        wall += last.wall_s
        if last.passed:
            accepts = True
            break
    if not accepts and last is not None:
        failing = {t: s for t, s in {**last.fail_to_pass, **last.pass_to_pass}.items() if s != "passed"}
        reasons.append(f"oracle rejects the reference solution: {failing or last.error}")
    replayed = dict(fixture.s0_files)
    for step in fixture.plan:
        if step.op == "edit":
            if step.path is None or step.old is None or step.new is None:
                raise ValueError(f"plan edit step of {fixture.fixture_id} lacks its path, old or new text")
            if replayed.get(step.path, "").count(step.old) != 1:
                reasons.append(f"plan edit of {step.path} does not match S0 exactly once")
                break
            replayed[step.path] = replayed[step.path].replace(step.old, step.new, 1)
        elif step.op == "write":
            if step.path is None or step.content is None:
                raise ValueError(f"plan write step of {fixture.fixture_id} lacks its path or content")
            replayed[step.path] = step.content
    if replayed != fixture.reference_files:
        reasons.append("expert plan does not reproduce the reference files")
    if apply_diff(fixture.s0_files, fixture.reference_diff) != fixture.reference_files:
        reasons.append("reference diff does not round-trip")
    return FixtureValidation(
        fixture_id=fixture.fixture_id,
        rejects_s0=rejects_s0,
        accepts_reference=accepts,
        ok=not reasons,
        reason="; ".join(reasons) or None,
        wall_s=wall,
    )
