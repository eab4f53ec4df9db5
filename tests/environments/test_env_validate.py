"""Validation: a good environment passes; each way an oracle cannot judge is refused with its reason.

Every oracle run costs a sandbox start (~0.1-0.3 s), so each test asks for the fewest runs that
show its point.
"""

from __future__ import annotations

from env_factory import BUGGY, S0, SEALED, make_env

from trajectory_platform.environments.format import load_environment
from trajectory_platform.environments.validate import (
    runtime_problems,
    sandbox_python_version,
    validate_environment,
    validate_path,
)


def test_a_good_environment_passes_every_check(tmp_path):
    result = validate_environment(load_environment(make_env(tmp_path)), runs=2)
    assert result.ok and result.reasons == []
    assert result.rejects_s0 and result.accepts_references and result.deterministic and result.runtime_ok
    assert result.digest == load_environment(tmp_path / "calc-env").digest


def test_an_oracle_that_accepts_s0_is_refused(tmp_path):
    sealed = {"test_ops.py": SEALED["test_ops.py"] + "\n\ndef test_mul_zero():\n    assert mul(0, 5) == 0\n"}
    oracle = {
        "fail_to_pass": ["tests/test_ops.py::test_mul"],  # passes on S0 already: a wrong oracle
        "pass_to_pass": ["tests/test_ops.py::test_mul_zero"],
    }
    env = load_environment(make_env(tmp_path, sealed=sealed, oracle=oracle))
    result = validate_environment(env, runs=1)
    assert not result.ok and not result.rejects_s0 and result.accepts_references
    assert result.reasons == [
        "oracle accepts the untouched S0 in 1 of 1 runs (its FAIL_TO_PASS tests already pass, "
        "so it would admit any episode)"
    ]


def test_a_reference_the_oracle_rejects_is_refused(tmp_path):
    wrong = {**S0, "calc/ops.py": BUGGY.replace("return a - b", "return a * b")}
    fixed = {**S0, "calc/ops.py": BUGGY.replace("return a - b", "return a + b")}
    result = validate_environment(load_environment(make_env(tmp_path, references=[fixed, wrong])), runs=1)
    assert not result.ok and result.rejects_s0 and not result.accepts_references
    assert result.reasons == [
        "oracle rejects references[1] in 1 of 1 runs: tests/test_ops.py::test_add failed"
    ]


COIN_FLIPS = "".join(f"\n\ndef test_coin_{i}():\n    assert os.urandom(1)[0] % 2 == 0\n" for i in range(4))


def test_an_oracle_that_disagrees_with_itself_is_refused(tmp_path):
    sealed = {**SEALED, "test_coin.py": "import os" + COIN_FLIPS}
    coins = [f"tests/test_coin.py::test_coin_{i}" for i in range(4)]
    oracle = {"fail_to_pass": ["tests/test_ops.py::test_add"], "pass_to_pass": coins}
    fixed = {**S0, "calc/ops.py": BUGGY.replace("return a - b", "return a + b")}
    env = load_environment(make_env(tmp_path, sealed=sealed, oracle=oracle, references=[fixed]))
    # 4 fair coins, 3 runs, 2 subjects: all agreeing by chance has probability 4**-8
    result = validate_environment(env, runs=3)
    assert not result.ok and not result.deterministic
    assert any(r.startswith("oracle disagrees with itself on") and "test_coin_" in r for r in result.reasons)


def test_runtime_requirements_the_sandbox_lacks_are_named(tmp_path):
    env = load_environment(
        make_env(tmp_path, runtime={"python": ">=99", "packages": ["json", "calc", "yaml_nowhere"]})
    )
    problems = runtime_problems(env)
    assert problems == [
        f"runtime.python: the sandbox interpreter is Python {sandbox_python_version()}, not >=99",
        "runtime.packages: 'yaml_nowhere' is not importable in the sandbox (python -I -S runs the standard "
        "library only) and the workspace does not vendor it",
    ]
    env.python, env.packages = ">=3.11", ["json", "calc.ops", "email.mime"]
    assert runtime_problems(env) == []


def test_a_missing_package_refuses_the_environment(tmp_path):
    env = load_environment(make_env(tmp_path, runtime={"packages": ["yaml_nowhere"]}))
    result = validate_environment(env, runs=1)
    assert not result.ok and not result.runtime_ok
    assert result.rejects_s0 and result.accepts_references  # the oracle itself is fine
    assert "'yaml_nowhere' is not importable" in result.reasons[0]


def test_a_format_error_is_a_refusal_not_an_exception(tmp_path):
    env_dir = make_env(tmp_path, oracle={"fail_to_pass": []})
    env, result = validate_path(env_dir, runs=1)
    assert env is None and not result.ok and result.digest is None
    assert result.reasons == [
        f"{env_dir / 'environment.json'}: oracle.fail_to_pass: must be a non-empty list of test ids"
    ]
