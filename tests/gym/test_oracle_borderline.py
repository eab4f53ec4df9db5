"""Stage 3's borderline re-run rule reads the oracle run's CPU time, which the judge measures, never
its wall time: a run made slow by waiting (a busy machine looks the same from inside) keeps the
runs an idle machine gives, a run that computes close to its limit is still run K times, and the
figure travels under the verdict channel's HMAC."""

from __future__ import annotations

import hashlib
import hmac

from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.dynamic import DynamicConfig, fixture_context, run_dynamic
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.judge import _verified_results
from trajectory_platform.gym.oracle import run_oracle

TIMEOUT_S = 30.0
CONFIG = DynamicConfig(borderline_fraction=0.01, oracle_timeout_s=TIMEOUT_S)
LINE_S = CONFIG.borderline_fraction * TIMEOUT_S
"""0.3 s: the borderline line, drawn close so that the test is fast (the rule is the same at 0.5), under
a limit long enough that no load on a shared machine makes a run time out."""

SEALED = {
    "tests/test_core.py": (
        "import pkg.core\n\n\ndef test_double():\n    assert pkg.core.double(4) == 8\n\n\n"
        "def test_imports():\n    assert pkg.core.__name__ == 'pkg.core'\n"
    )
}
"""The sealed test reads no clock (``timing_sensitive`` is false): only the borderline rule can
ask for more runs."""


def _fixture(core: str) -> Fixture:
    files = {"pkg/__init__.py": "", "pkg/core.py": core, **SEALED}
    return Fixture(
        fixture_id="borderline-test",
        repo_family="pkg",
        tool_family="path",
        domain="bug_repair",
        license="MIT",
        prompt="double() must double",
        s0_files={**files, "pkg/core.py": "def double(x):\n    return x\n"},
        sealed_tests=SEALED,
        fail_to_pass=["tests/test_core.py::test_double"],
        pass_to_pass=["tests/test_core.py::test_imports"],
        reference_files=files,
        plan=[Step("answer", answer="done")],
    )


def _judged(core: str) -> dict:
    fixture = _fixture(core)
    context = fixture_context(fixture)
    assert not context.timing_sensitive
    verdict = run_dynamic(context, DiffView(text="", post=dict(fixture.reference_files)), None, CONFIG)
    assert verdict.passed, verdict.findings
    return verdict.data


WAITING = "import time\n\n\ndef double(x):\n    time.sleep(0.8)\n    return x * 2\n"
"""0.8 s of wall time at almost no CPU: what a starved run looks like from the clock."""

COMPUTING = (
    "import time\n\n\ndef double(x):\n    end = time.process_time() + 0.4\n"
    "    while time.process_time() < end:\n        pass\n    return x * 2\n"
)
"""0.4 s of CPU: a suite close to its limit, whatever the machine's load."""


def test_oracle_borderline_a_waiting_run_keeps_the_runs_of_an_idle_machine() -> None:
    fixture = _fixture(WAITING)
    result = run_oracle(fixture, fixture.reference_files, timeout_s=TIMEOUT_S)
    # the run waited 0.8 s: past the line by the wall clock, far under it by CPU time
    assert result.passed and result.wall_s > 2 * LINE_S and 0 < result.cpu_s < LINE_S / 2
    data = _judged(WAITING)
    assert data["runs"] == 1 and data["run_outcomes"] == [True]


def test_oracle_borderline_a_computing_run_is_still_run_k_times() -> None:
    data = _judged(COMPUTING)
    assert data["runs"] == CONFIG.reruns and data["run_outcomes"] == [True] * CONFIG.reruns


def test_oracle_cpu_figure_is_authenticated_with_the_verdict() -> None:
    nonce = b"n" * 32
    body = "tests/test_core.py::test_double\tpassed\t0.012500\t"
    mac = hmac.new(nonce, body.encode(), hashlib.sha256).hexdigest()
    results, cpu_s = _verified_results(f"{body}\t{mac}\n".encode(), nonce, None)
    assert results == {"tests/test_core.py::test_double": {"status": "passed", "message": ""}}
    assert cpu_s == 0.0125
    for forged in (body.replace("0.012500", "0.000000"), body.replace("\t0.012500", "")):
        results, cpu_s = _verified_results(f"{forged}\t{mac}\n".encode(), nonce, ["x"])
        assert results["x"]["status"] == "error" and cpu_s == 0.0
