"""Whether a brought environment can judge anything: the checks it must pass before registration.

An oracle that accepts the untouched S0 admits every episode; one that rejects a known-good
solution refuses every success; one that disagrees with itself turns verification into a coin
flip; one whose runtime the sandbox lacks fails for reasons the agent never caused. Each of these
would put wrong labels into training data, so an environment showing any of them is refused,
with the reason, and never registered. Validation never raises on a bad environment: a format
error is one more refusal reason (:func:`validate_path`).

The oracle runs are the gym's own (:func:`trajectory_platform.gym.oracle.run_oracle`): sealed tests
laid in after the workspace, in the sandbox, each run named ``validate:<k>`` so its scheduler seed
is independent of the others'.
"""

from __future__ import annotations

import functools
import json
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from trajectory_platform.environments.format import EnvironmentFormatError, TaskEnvironment, load_environment
from trajectory_platform.gym import isolation
from trajectory_platform.gym.oracle import OracleResult, run_oracle

DEFAULT_RUNS = 3


@dataclass
class EnvironmentValidation:
    """One environment's checks: each condition, the reasons it was refused (empty when ``ok``)."""

    task_id: str
    digest: str | None
    ok: bool
    rejects_s0: bool
    accepts_references: bool
    deterministic: bool
    runtime_ok: bool
    reasons: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "wall_s": round(self.wall_s, 3)}


def validate_environment(env: TaskEnvironment, runs: int = DEFAULT_RUNS) -> EnvironmentValidation:
    """Check ``env``'s runtime and oracle over ``runs`` runs: rejects S0 in each, accepts every
    reference in each, and every run gives every test the same status."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    start = time.perf_counter()
    runtime_reasons = runtime_problems(env)
    try:
        fixture = env.fixture()
    except EnvironmentFormatError as exc:
        return _refused(env.task_id, env.digest, [str(exc)], runtime_ok=not runtime_reasons, start=start)
    subjects: list[tuple[str, dict[str, str], str | None]] = [("S0", fixture.s0_files, None)]
    for i, files in enumerate([fixture.reference_files, *fixture.extra_references]):
        subjects.append((f"references[{i}]", files, env.reference_answer))
    results: dict[str, list[OracleResult]] = {name: [] for name, _, _ in subjects}
    for run in range(runs):
        for name, files, answer in subjects:
            results[name].append(
                run_oracle(
                    fixture,
                    files,
                    final_answer=answer,
                    timeout_s=env.oracle_timeout_s,
                    run_label=f"validate:{run}",
                )
            )
    reasons = list(runtime_reasons)
    accepted_s0 = [k for k, r in enumerate(results["S0"]) if r.passed]
    if accepted_s0:
        reasons.append(
            f"oracle accepts the untouched S0 in {len(accepted_s0)} of {runs} runs "
            "(its FAIL_TO_PASS tests already pass, so it would admit any episode)"
        )
    rejecting = False
    for name, outcomes in results.items():
        if name == "S0":
            continue
        failed = [r for r in outcomes if not r.passed]
        if failed:
            rejecting = True
            reasons.append(f"oracle rejects {name} in {len(failed)} of {runs} runs: {_failing(failed[0])}")
    disagreeing = {name: _disagreement(outcomes) for name, outcomes in results.items()}
    for name, detail in disagreeing.items():
        if detail:
            reasons.append(f"oracle disagrees with itself on {name} over {runs} runs: {detail}")
    return EnvironmentValidation(
        task_id=env.task_id,
        digest=env.digest,
        ok=not reasons,
        rejects_s0=not accepted_s0,
        accepts_references=not rejecting,
        deterministic=not any(disagreeing.values()),
        runtime_ok=not runtime_reasons,
        reasons=reasons,
        wall_s=time.perf_counter() - start,
    )


def validate_path(
    path: Path, runs: int = DEFAULT_RUNS
) -> tuple[TaskEnvironment | None, EnvironmentValidation]:
    """Load and validate one environment directory; a format error is a refusal, not an exception."""
    start = time.perf_counter()
    try:
        env = load_environment(path)
    except EnvironmentFormatError as exc:
        return None, _refused(Path(path).name, None, [str(exc)], runtime_ok=False, start=start)
    return env, validate_environment(env, runs)


def _refused(
    task_id: str, digest: str | None, reasons: list[str], runtime_ok: bool, start: float
) -> EnvironmentValidation:
    return EnvironmentValidation(
        task_id=task_id,
        digest=digest,
        ok=False,
        rejects_s0=False,
        accepts_references=False,
        deterministic=False,
        runtime_ok=runtime_ok,
        reasons=reasons,
        wall_s=time.perf_counter() - start,
    )


def _failing(result: OracleResult) -> str:
    failing = {t: s for t, s in {**result.fail_to_pass, **result.pass_to_pass}.items() if s != "passed"}
    return ", ".join(f"{t} {s}" for t, s in sorted(failing.items())) or str(result.error)


def _disagreement(outcomes: list[OracleResult]) -> str:
    """The first test whose status differs between runs, with the statuses seen; '' when all agree."""
    seen: dict[str, list[str]] = {}
    for result in outcomes:
        for test, status in {**result.fail_to_pass, **result.pass_to_pass}.items():
            seen.setdefault(test, []).append(status)
    for test, statuses in sorted(seen.items()):
        if len(set(statuses)) > 1:
            return f"{test} was {' / '.join(statuses)}"
    if len({r.passed for r in outcomes}) > 1:
        return "the verdict changed between runs"
    return ""


# ------------------------------------------------------------------------------------ runtime


def runtime_problems(env: TaskEnvironment) -> list[str]:
    """Why the sandbox's interpreter cannot run ``env``: its Python version, its packages.

    The oracle runs as ``python -I -S`` (no site-packages): a package is there only if the
    standard library has it or the workspace vendors it at its root. The probe runs the trusted
    interpreter alone, from an empty directory; no environment code is executed.
    """
    reasons = []
    version = sandbox_python_version()
    if env.python and not SpecifierSet(env.python).contains(Version(version), prereleases=True):
        reasons.append(f"runtime.python: the sandbox interpreter is Python {version}, not {env.python}")
    wanted = [name for name in env.packages if not _vendored(name, env.s0_files)]
    missing = [name for name, found in zip(wanted, _stdlib_has(tuple(wanted)), strict=True) if not found]
    for name in missing:
        reasons.append(
            f"runtime.packages: {name!r} is not importable in the sandbox (python -I -S runs the "
            "standard library only) and the workspace does not vendor it"
        )
    return reasons


def _vendored(name: str, s0_files: dict[str, str]) -> bool:
    """The workspace root is the tests' first import path: a module file or package folder there."""
    rel = name.replace(".", "/")
    return f"{rel}.py" in s0_files or any(path.startswith(rel + "/") for path in s0_files)


@functools.cache
def sandbox_python_version() -> str:
    """The version of the interpreter the sandbox runs (asked of the binary itself)."""
    return _probe("import platform; print(platform.python_version())").strip()


@functools.cache
def _stdlib_has(names: tuple[str, ...]) -> list[bool]:
    if not names:
        return []
    script = (
        "import importlib.util, json, sys\n"
        "def found(name):\n"
        "    try:\n"
        "        return importlib.util.find_spec(name) is not None\n"
        "    except Exception:\n"
        "        return False\n"
        "print(json.dumps([found(n) for n in sys.argv[1:]]))\n"
    )
    return [bool(x) for x in json.loads(_probe(script, *names))]


def _probe(script: str, *args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="tp-env-probe-") as empty:
        proc = subprocess.run(
            [isolation.interpreter(), "-I", "-S", "-B", "-c", script, *args],
            cwd=empty,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        )
    if proc.returncode != 0:
        raise RuntimeError(f"the sandbox interpreter {isolation.interpreter()} failed: {proc.stderr[-300:]}")
    return proc.stdout
